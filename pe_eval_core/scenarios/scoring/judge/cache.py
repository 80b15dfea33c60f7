"""A judge wrapper that remembers verdicts on disk, so re-scoring an unchanged run is free.

Verdicts live in SQLite (``$PE_EVAL_HOME/judge_cache.sqlite3``, default ``./.pe_eval/``),
keyed by (judge model, prompt version, sha256 of the response, expected text); when a database
URL is configured (``db_path`` given as ``postgresql://...``, or ``$PE_EVAL_DATABASE_URL``
with no ``db_path``) they live in that team store's ``judge_verdicts`` table instead, shared
by every machine. Only the phrases not in the cache go to the inner judge, still in one call.
Judge errors are never cached. The fail-closed evidence check is re-applied on every read.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pe_eval_core.paths import home_path
from pe_eval_core.scenarios.models import JudgeOutcome, JudgeVerdict
from pe_eval_core.scenarios.scoring.judge.fail_closed import enforce_evidence
from pe_eval_core.scenarios.scoring.judge.prompt import NO_VERDICT
from pe_eval_core.scenarios.scoring.judge.protocol import (
    Judge,
    JudgeContext,
    JudgeKind,
    response_sha256,
)

if TYPE_CHECKING:
    from pe_eval_core.db.verdicts import VerdictStore
    from pe_eval_core.scenarios.llm.batches import MessageBatcher

CACHE_FILENAME = "judge_cache.sqlite3"
DATABASE_URL_ENV = "PE_EVAL_DATABASE_URL"  # the same variable the history store reads

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    response_sha256 TEXT NOT NULL,
    expected TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('paraphrase', 'missed')),
    evidence TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model, prompt_version, response_sha256, expected)
)
"""


def default_cache_path() -> Path:
    """``$PE_EVAL_HOME/judge_cache.sqlite3``, else ``./.pe_eval/judge_cache.sqlite3``."""
    return home_path(CACHE_FILENAME)


CACHE_SOURCE = "verdict cache"
"""``JudgeVerdict.source`` of a verdict answered from the cache."""


class CachedJudge:
    """Wraps any ``Judge``; answers from the cache when every phrase is known."""

    def __init__(self, inner: Judge, db_path: str | os.PathLike[str] | None = None):
        self.inner = inner
        url = str(db_path) if db_path is not None else os.environ.get(DATABASE_URL_ENV, "")
        self._store: VerdictStore | None = None
        if "://" in url:
            from pe_eval_core.db.verdicts import VerdictStore

            self._store = VerdictStore(url.strip())
        self.db_path = Path(db_path) if db_path is not None else default_cache_path()
        """The cache file (unused when the verdicts live in a team store)."""
        self._ready = False

    @property
    def location(self) -> str:
        """Where the verdicts are kept, safe to show (no password)."""
        return self._store.location if self._store is not None else str(self.db_path)

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def prompt_version(self) -> str:
        return self.inner.prompt_version

    @property
    def live(self) -> bool:
        return self.inner.live

    @property
    def kind(self) -> JudgeKind:
        """The inner judge's kind: a cache adds no source of verdicts of its own."""
        return self.inner.kind

    @property
    def source(self) -> str:
        """The cache: where this judge's verdicts are kept."""
        return self.location

    @property
    def warnings(self) -> Sequence[str]:
        return self.inner.warnings

    @property
    def batchable(self) -> bool:
        return self.inner.batchable

    def use_batcher(self, batcher: MessageBatcher) -> None:
        self.inner.use_batcher(batcher)

    def needs_paid_call(self, response: str, expected: Sequence[str]) -> bool:
        """A call for the phrases the cache cannot answer, if the inner judge's cost money."""
        if not self.live:
            return False
        missing = set(expected) - set(self.lookup(response, expected))
        return self.inner.needs_paid_call(response, sorted(missing)) if missing else False

    async def __aenter__(self) -> CachedJudge:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.inner.__aexit__(*exc)

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.db_path, timeout=30)
        if not self._ready:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.commit()
            self._ready = True
        return conn

    def lookup(self, response: str, expected: Sequence[str]) -> dict[str, JudgeVerdict]:
        """Cached verdicts for the given phrases (absent ones are simply missing)."""
        key = (self.model, self.prompt_version, response_sha256(response))
        rows: list[Any]
        if self._store is not None:
            rows = list(self._store.lookup(*key))
        elif not self._ready and not self.db_path.is_file():
            return {}  # nothing cached yet: do not create the file just to look
        else:
            with closing(self._connect()) as conn:
                rows = conn.execute(
                    "SELECT expected, verdict, evidence, reason FROM verdicts "
                    "WHERE model = ? AND prompt_version = ? AND response_sha256 = ?",
                    key,
                ).fetchall()
        wanted = set(expected)
        return {
            text: JudgeVerdict(
                expected=text,
                verdict=verdict,
                evidence=evidence,
                reason=reason,
                model=self.model,
                prompt_version=self.prompt_version,
                cached=True,
                source=CACHE_SOURCE,
            )
            for text, verdict, evidence, reason in rows
            if text in wanted
        }

    def store(self, response: str, verdicts: Sequence[JudgeVerdict]) -> None:
        digest = response_sha256(response)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        rows = [
            (v.model, v.prompt_version, digest, v.expected, v.verdict, v.evidence, v.reason, now)
            for v in verdicts
            if v.reason != NO_VERDICT  # an answer left out is not a verdict to keep
        ]
        if not rows:
            return
        if self._store is not None:
            self._store.put(rows)
            return
        with closing(self._connect()) as conn, conn:
            conn.executemany(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
            )

    def _absent(self, expected: str) -> JudgeVerdict:
        return JudgeVerdict(
            expected=expected,
            verdict="missed",
            reason="the judge returned no verdict for this phrase",
            model=self.model,
            prompt_version=self.prompt_version,
        )

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        cached = self.lookup(response, expected)
        missing = [e for e in dict.fromkeys(expected) if e not in cached]
        fresh: dict[str, JudgeVerdict] = {}
        tokens_in = tokens_out = calls = 0
        if missing:
            outcome = await self.inner.judge(scenario, response, missing, context=context)
            self.store(response, outcome.verdicts)
            fresh = {v.expected: v for v in outcome.verdicts}
            tokens_in, tokens_out, calls = outcome.tokens_in, outcome.tokens_out, outcome.calls
        verdicts = [
            enforce_evidence(fresh.get(e) or cached.get(e) or self._absent(e), response)
            for e in expected
        ]
        return JudgeOutcome(
            verdicts=verdicts,
            model=self.model,
            prompt_version=self.prompt_version,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            calls=calls,
        )
