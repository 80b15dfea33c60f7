"""A memo grading as the history's rows: plain dicts, built without pydantic or SQLAlchemy.

One place computes what a memo run stores (its summary columns, finding and opportunity rows,
and the grading key that deduplicates it). The typed records (``records.memo_record``) are
built from these dicts, and a command that records one memo writes them with the standard
library's ``sqlite3`` (:func:`insert_memo_rows`, on a connection from
``pe_eval_core.db.lite``), so both paths store the same values.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pe_eval_core.db.location import text_safe
from pe_eval_core.files import sha256_file

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation

SUMMARY_COLUMNS = (
    "uid",
    "kind",
    "created_at",
    "recorded_at",
    "origin",
    "portco_id",
    "audience",
    "memo_path",
    "memo_sha256",
    "source_path",
    "source_sha256",
    "grader_version",
    "scenarios_path",
    "scenarios_sha256",
    "target",
    "model",
    "citation_accuracy",
    "hallucination_rate",
    "coverage",
    "consistency",
    "n_total",
    "n_passed",
    "n_errors",
    "pass_rate",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "note",
    "config_digest",
    "skill_path",
    "skill_sha256",
    "identity",
)
"""The ``runs`` columns a summary fills (``RunSummary``'s fields but ``id``, ``scores`` and
``infra_error``; a test keeps the two lists equal)."""

FINDING_FIELDS = (
    "kind",
    "opportunity_id",
    "field",
    "start",
    "end",
    "raw",
    "message",
    "nearest_value",
    "nearest_path",
    "other_opportunity_id",
)
OPPORTUNITY_FIELDS = (
    "opportunity_id",
    "archetype",
    "cohort",
    "in_source",
    "addressed",
    "figures_total",
    "figures_cited",
    "entities_total",
    "entities_grounded",
    "n_findings",
)


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def iso_utc(value: datetime | str | None) -> str:
    """Normalise a datetime or ISO string to UTC ISO-8601 so text order is time order.

    >>> iso_utc("2026-05-01T10:00:00+02:00")
    '2026-05-01T08:00:00.000000+00:00'
    >>> iso_utc("2026-05-01T10:00:00")
    '2026-05-01T10:00:00.000000+00:00'
    """
    if value is None or value == "":
        return now_utc()
    dt = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    dt = dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)
    return dt.isoformat(timespec="microseconds")


def resolved_path(value: str | None) -> str | None:
    """Absolute form of an input path, so runs of the same file group together."""
    if not value:
        return None
    try:
        return str(Path(value).expanduser().resolve())
    except (OSError, RuntimeError):
        return value


def sha_if_file(path: str | None) -> str | None:
    try:
        return sha256_file(path) if path and Path(path).is_file() else None
    except OSError:
        return None


@dataclass(frozen=True)
class MemoRows:
    """One memo grading as stored: ``summary`` has every :data:`SUMMARY_COLUMNS` plus
    ``scores`` (the dict kept as ``scores_json``); findings and opportunities are dicts of
    :data:`FINDING_FIELDS` / :data:`OPPORTUNITY_FIELDS`."""

    summary: dict[str, Any]
    findings: list[dict[str, Any]]
    opportunities: list[dict[str, Any]]


def memo_rows(evaluation: MemoEvaluation, *, origin: str = "api") -> MemoRows:
    """A memo evaluation as the history's rows (not stored)."""
    ev = evaluation
    scores = ev.scores.model_dump(mode="json")
    summary: dict[str, Any] = dict.fromkeys(SUMMARY_COLUMNS)
    summary.update(
        uid=uuid.uuid4().hex,
        kind="memo",
        created_at=iso_utc(ev.evaluated_at),
        recorded_at=now_utc(),
        origin=origin,
        portco_id=ev.portco_id,
        audience=ev.audience,
        memo_path=resolved_path(ev.memo_path),
        memo_sha256=ev.memo_sha256 or sha_if_file(ev.memo_path),
        source_path=resolved_path(ev.source_path),
        source_sha256=ev.source_sha256 or sha_if_file(ev.source_path),
        grader_version=ev.grader_version,
        note=ev.consistency.note,
        config_digest=hashlib.sha256(ev.config.model_dump_json().encode()).hexdigest(),
        citation_accuracy=ev.scores.citation_accuracy,
        hallucination_rate=ev.scores.hallucination_rate,
        coverage=ev.scores.coverage,
        consistency=ev.scores.consistency,
        scores={"scores": scores, "totals": ev.totals.model_dump(mode="json")},
    )
    findings = [
        {
            "kind": str(f.kind),
            "opportunity_id": f.opportunity_id,
            "field": f.field,
            "start": f.start,
            "end": f.end,
            "raw": f.raw,
            "message": f.message,
            "nearest_value": f.nearest_value,
            "nearest_path": f.nearest_path,
            "other_opportunity_id": f.other_opportunity_id,
        }
        for f in ev.findings
    ]
    opportunities = [
        {
            "opportunity_id": o.id,
            "archetype": o.archetype,
            "cohort": o.cohort,
            "in_source": o.in_source,
            "addressed": o.addressed,
            "figures_total": o.figures_total,
            "figures_cited": o.figures_cited,
            "entities_total": o.entities_total,
            "entities_grounded": o.entities_grounded,
            "n_findings": o.findings,
        }
        for o in ev.opportunities
    ]
    return MemoRows(summary=summary, findings=findings, opportunities=opportunities)


def grading_key_of(summary: Mapping[str, Any], findings: Sequence[Mapping[str, Any]]) -> str | None:
    """What makes two memo gradings the same: the memo file and the content of memo and
    source, the grader version and configuration, and what it gave (scores and findings: a
    sibling memo that changed changes consistency, so that is a new grading). None when the
    summary lacks the hashes (nothing to deduplicate on)."""
    if summary.get("kind") != "memo" or not summary.get("memo_sha256"):
        return None
    if not summary.get("source_sha256"):
        return None
    parts = [
        summary.get("memo_path"),
        summary["memo_sha256"],
        summary["source_sha256"],
        summary.get("grader_version"),
        summary.get("config_digest"),
        summary.get("scores") or {},
        [(f["kind"], f["opportunity_id"], f["field"], f["raw"], f["start"]) for f in findings],
    ]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def run_columns(summary: Mapping[str, Any], grading_key: str | None) -> dict[str, Any]:
    """The ``runs`` row of a summary (its uid as given: the writer makes it unique)."""
    row = {k: summary.get(k) for k in SUMMARY_COLUMNS}
    row["scores_json"] = json.dumps(summary.get("scores") or {})
    row["grading_key"] = grading_key
    return {k: text_safe(v) for k, v in row.items()}


def finding_columns(run_id: int, findings: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``memo_findings`` rows of a run (a text nearest value goes to ``nearest_text``)."""
    out = []
    for seq, f in enumerate(findings):
        near = f["nearest_value"]
        out.append(
            {
                "run_id": run_id,
                "seq": seq,
                "kind": text_safe(f["kind"]),
                "opportunity_id": text_safe(f["opportunity_id"]),
                "field": text_safe(f["field"]),
                "start": f["start"],
                "end": f["end"],
                "raw": text_safe(f["raw"]),
                "message": text_safe(f["message"]),
                "nearest_value": near if isinstance(near, int | float) else None,
                "nearest_text": text_safe(near) if isinstance(near, str) else None,
                "nearest_path": text_safe(f["nearest_path"]),
                "other_opportunity_id": text_safe(f["other_opportunity_id"]),
            }
        )
    return out


def opportunity_columns(
    run_id: int, opportunities: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The ``memo_opportunities`` rows of a run (a repeated id: the last one wins)."""
    last = {o["opportunity_id"]: o for o in opportunities}
    return [
        {
            "run_id": run_id,
            "opportunity_id": text_safe(o["opportunity_id"]),
            "archetype": text_safe(o["archetype"]),
            "cohort": text_safe(o["cohort"]),
            "in_source": _int(o["in_source"]),
            "addressed": _int(o["addressed"]),
            "figures_total": o["figures_total"],
            "figures_cited": o["figures_cited"],
            "entities_total": o["entities_total"],
            "entities_grounded": o["entities_grounded"],
            "n_findings": o["n_findings"],
        }
        for o in last.values()
    ]


def _int(flag: bool | None) -> int | None:
    return None if flag is None else int(flag)


# --- writing with sqlite3 (the light path; ``writing.py`` is the SQLAlchemy one) ----------

_CHUNK = 500
"""Parameters per ``IN (...)`` lookup, well under SQLite's limit."""


def _lookup(conn: sqlite3.Connection, column: str, keys: Sequence[str | None]) -> dict[str, int]:
    wanted = sorted({k for k in keys if k is not None})
    out: dict[str, int] = {}
    for i in range(0, len(wanted), _CHUNK):
        chunk = wanted[i : i + _CHUNK]
        marks = ", ".join("?" * len(chunk))
        query = f"SELECT {column}, id FROM runs WHERE {column} IN ({marks})"
        out.update({k: int(v) for k, v in conn.execute(query, chunk)})
    return out


def _insert(conn: sqlite3.Connection, table: str, row: Mapping[str, Any]) -> int:
    names = ", ".join(f'"{k}"' for k in row)
    marks = ", ".join("?" * len(row))
    cursor = conn.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(row.values()))
    return int(cursor.lastrowid or 0)


def _insert_many(conn: sqlite3.Connection, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
    if not rows:
        return
    names = ", ".join(f'"{k}"' for k in rows[0])
    marks = ", ".join("?" * len(rows[0]))
    conn.executemany(
        f"INSERT INTO {table} ({names}) VALUES ({marks})", [tuple(r.values()) for r in rows]
    )


def insert_memo_rows(conn: sqlite3.Connection, batch: Sequence[MemoRows]) -> list[int]:
    """Insert memo gradings in one open write transaction; their run ids, in order. A grading
    already recorded (same grading key, also twice in one batch) keeps its run id; a uid
    already taken gets a random suffix (as ``writing.insert_records`` does)."""
    keys = [grading_key_of(r.summary, r.findings) for r in batch]
    known = _lookup(conn, "grading_key", keys)
    taken = _lookup(conn, "uid", [r.summary["uid"] for r in batch])
    ids: list[int] = []
    firsts: dict[str, int] = {}
    for rows, key in zip(batch, keys, strict=True):
        if key is not None and key in known:
            ids.append(known[key])
            continue
        if key is not None and key in firsts:
            ids.append(firsts[key])
            continue
        row = run_columns(rows.summary, key)
        if row["uid"] in taken:
            row["uid"] = f"{row['uid']}-{os.urandom(4).hex()}"
        run_id = _insert(conn, "runs", row)
        _insert_many(conn, "memo_findings", finding_columns(run_id, rows.findings))
        _insert_many(conn, "memo_opportunities", opportunity_columns(run_id, rows.opportunities))
        if key is not None:
            firsts[key] = run_id
        ids.append(run_id)
    return ids
