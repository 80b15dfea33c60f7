"""The judge's verdict cache in the shared database (the ``judge_verdicts`` table), for
``pe_eval_core.scenarios.scoring.judge.cache.CachedJudge`` when a database URL is configured."""

from __future__ import annotations

import os
from collections.abc import Sequence

from sqlalchemy import select

from pe_eval_core.db import schema as sch
from pe_eval_core.db.engine import Database, text_safe, upsert


class VerdictStore:
    """Judge verdicts keyed by (model, prompt version, response sha256, expected text)."""

    def __init__(self, target: str | os.PathLike[str] | None = None):
        self.db = Database(target)

    @property
    def location(self) -> str:
        return self.db.location

    def lookup(
        self, model: str, prompt_version: str, response_sha256: str
    ) -> list[tuple[str, str, str, str]]:
        """(expected, verdict, evidence, reason) cached for one response."""
        j = sch.judge_verdicts
        query = select(j.c.expected, j.c.verdict, j.c.evidence, j.c.reason).where(
            j.c.model == model,
            j.c.prompt_version == prompt_version,
            j.c.response_sha256 == response_sha256,
        )
        with self.db.read() as conn:
            return [(r[0], r[1], r[2], r[3]) for r in conn.execute(query)]

    def put(self, rows: Sequence[Sequence[str]]) -> None:
        """Store (model, prompt_version, response_sha256, expected, verdict, evidence, reason,
        created_at) rows, replacing the verdicts they update."""
        if not rows:
            return
        j = sch.judge_verdicts
        keys = ("model", "prompt_version", "response_sha256", "expected")
        names = (*keys, "verdict", "evidence", "reason", "created_at")
        values = [{n: text_safe(v) for n, v in zip(names, row, strict=True)} for row in rows]
        with self.db.write() as conn:
            stmt = upsert(conn, j)
            stmt = stmt.on_conflict_do_update(
                index_elements=list(keys),
                set_={n: stmt.excluded[n] for n in names if n not in keys},
            )
            conn.execute(stmt, values)
