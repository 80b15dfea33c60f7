"""Writing runs: a summary row per run, detail rows per item, responses as shared blobs.

Every function takes the open write connection (one transaction); :class:`RunStore` holds
the connection and the retry on a unique-key race.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, case, func, insert, select, update

from pe_eval_core.db import schema as sch
from pe_eval_core.db.engine import text_safe
from pe_eval_core.history.blobs import CHUNK, put_blobs
from pe_eval_core.history.memo_rows import finding_columns, opportunity_columns, run_columns
from pe_eval_core.history.records import (
    SCENARIO_DETAIL_KEYS,
    RunRecord,
    RunSummary,
    grading_key,
    scenario_run_key,
)
from pe_eval_core.rates import pass_rate

if TYPE_CHECKING:
    from pe_eval_core.scenarios.models import ScenarioRun

ROW_FIELDS_IN_BLOB = ("platform", "source_fact", "latency_ms", "error")
"""Verdict fields a version-3 row leaves to the run's detail blob (SQL never needs them)."""
_BLOB_FIELDS: set[str] = {*SCENARIO_DETAIL_KEYS, *ROW_FIELDS_IN_BLOB}
_BLOB_INCLUDE: dict[str, Any] = {"results": {"__all__": _BLOB_FIELDS}}

ScenarioRow = tuple[str, str | None, str, str | None]
"""(name, tier, status, response) of one scenario verdict."""


def scenario_run_rows(run: ScenarioRun) -> tuple[list[ScenarioRow], bytes]:
    """A run's verdict rows and its detail blob (``{"results": [...]}``, same order): one
    serialiser call writes every verdict's detail."""
    try:
        details = run.model_dump_json(include=_BLOB_INCLUDE)
    except ValueError:  # a lone surrogate: the Python path escapes it
        dumped = run.model_dump(mode="json", include=_BLOB_INCLUDE)
        details = json.dumps(dumped, separators=(",", ":"))
    rows: list[ScenarioRow] = [(r.name, r.tier, r.status, r.response) for r in run.results]
    return rows, details.encode()


def insert_records(conn: Connection, records: Sequence[RunRecord]) -> list[int]:
    """Insert ``records`` in order; the memo gradings of a batch as one bulk insert."""
    ids: list[int | None] = [None] * len(records)
    memos = [i for i, r in enumerate(records) if r.summary.kind == "memo"]
    for i, record in enumerate(records):
        if record.summary.kind != "memo":
            ids[i] = _insert_scenario_record(conn, record)
    if memos:
        batch = _insert_memos(conn, [records[i] for i in memos])
        for i, rid in zip(memos, batch, strict=True):
            ids[i] = rid
    return [int(i) for i in ids if i is not None]


def _insert_scenario_record(conn: Connection, record: RunRecord) -> int:
    rows = [(r.name, r.tier, r.status, r.response) for r in record.results]
    items = [
        {
            **r.detail,
            "platform": r.platform,
            "source_fact": r.source_fact,
            "latency_ms": r.latency_ms,
            "error": r.error,
        }
        for r in record.results
    ]
    details = json.dumps({"results": items}, separators=(",", ":")).encode()
    return insert_scenario_run(conn, record.summary, rows, details)


def _summary_values(conn: Connection, summary: RunSummary) -> dict[str, Any]:
    values = summary.model_dump(exclude={"id", "scores", "infra_error"})
    values["scores_json"] = json.dumps(summary.scores)
    taken = conn.execute(select(sch.runs.c.id).where(sch.runs.c.uid == values["uid"]))
    if taken.first() is not None:
        values["uid"] = f"{values['uid']}-{os.urandom(4).hex()}"
    return {k: text_safe(v) for k, v in values.items()}


def _insert_memos(conn: Connection, records: Sequence[RunRecord]) -> list[int]:
    """Memo gradings in bulk: the ones already recorded (same grading key, also twice in
    one batch) keep their run id; the new ones go in with one insert per table."""
    keys = [grading_key(r) for r in records]
    known = _lookup(conn, sch.runs.c.grading_key, sch.runs.c.id, keys)
    fresh: dict[int, RunRecord] = {}
    firsts: dict[str, int] = {}
    for i, (record, key) in enumerate(zip(records, keys, strict=True)):
        if key is None or (key not in known and key not in firsts):
            fresh[i] = record
            if key is not None:
                firsts[key] = i
    assigned = _insert_fresh_memos(conn, fresh, keys) if fresh else {}
    return [
        assigned[i] if i in assigned else known.get(k) or assigned[firsts[k]]  # type: ignore[index]
        for i, k in enumerate(keys)
    ]


def _insert_fresh_memos(
    conn: Connection, fresh: dict[int, RunRecord], keys: Sequence[str | None]
) -> dict[int, int]:
    """Insert the new memo gradings (batch position -> record); their run ids by position."""
    taken = _lookup(conn, sch.runs.c.uid, sch.runs.c.id, [r.summary.uid for r in fresh.values()])
    values = []
    for i, record in fresh.items():
        row = run_columns(record.summary.model_dump(), keys[i])
        if row["uid"] in taken:
            row["uid"] = f"{row['uid']}-{os.urandom(4).hex()}"
        values.append(row)
    stmt = insert(sch.runs).returning(sch.runs.c.id, sort_by_parameter_order=True)
    new_ids = [int(r[0]) for r in conn.execute(stmt, values)]
    assigned = dict(zip(fresh, new_ids, strict=True))
    findings = [
        row
        for i, rid in assigned.items()
        for row in finding_columns(rid, [f.model_dump() for f in fresh[i].findings])
    ]
    opps = [
        row
        for i, rid in assigned.items()
        for row in opportunity_columns(rid, [o.model_dump() for o in fresh[i].opportunities])
    ]
    if findings:
        conn.execute(insert(sch.memo_findings), findings)
    if opps:
        conn.execute(insert(sch.memo_opportunities), opps)
    return assigned


def insert_scenario_run(
    conn: Connection,
    summary: RunSummary,
    rows: Sequence[ScenarioRow],
    details: bytes,
) -> int:
    """``rows`` are (name, tier, status, response); ``details`` the JSON object
    ``{"results": [...]}`` with the rest of each verdict, in the same order.

    Idempotent: a run the history already holds (same content, :func:`scenario_run_key`)
    keeps its id and nothing is added (a re-score of the same responses, a reload)."""
    detail_sha = hashlib.sha256(details).hexdigest()
    responses: dict[str, bytes] = {}
    response_shas: list[str | None] = []
    for _, _, _, response in rows:
        if response is None:
            response_shas.append(None)
            continue
        data = response.encode("utf-8", "surrogatepass")
        sha = hashlib.sha256(data).hexdigest()
        responses.setdefault(sha, data)
        response_shas.append(sha)
    key = scenario_run_key(summary, [(r[0], r[2]) for r in rows], detail_sha, response_shas)
    known = _lookup(conn, sch.runs.c.grading_key, sch.runs.c.id, [key])
    if key in known:
        return known[key]
    put_blobs(conn, {detail_sha: details}, whole=True)
    put_blobs(conn, responses, shared_dictionary=True)
    values = _summary_values(conn, summary)
    values["detail_sha256"] = detail_sha
    values["grading_key"] = key  # the content key (memo runs: their grading key)
    run_id = _insert_run(conn, values)
    if rows:
        conn.execute(
            insert(sch.scenario_results),
            [
                {
                    "run_id": run_id,
                    "seq": seq,
                    "name": text_safe(name),
                    "tier": text_safe(tier),
                    "status": text_safe(status),
                    "detail_json": "",
                    "response_sha256": sha,
                }
                for seq, ((name, tier, status, _), sha) in enumerate(
                    zip(rows, response_shas, strict=True)
                )
            ],
        )
    recount(conn, run_id)
    return run_id


def recount(conn: Connection, run_id: int) -> None:
    """The run's counts and pass rate recomputed from its stored rows, in SQL."""
    s = sch.scenario_results
    mine = s.c.run_id == run_id
    passed = case((s.c.status == "pass", 1), else_=0)
    errored = case((s.c.status.in_(("pass", "fail")), 0), else_=1)
    stats = conn.execute(
        select(func.count(), func.sum(passed), func.sum(errored)).where(mine)
    ).one()
    total, n_passed, n_errors = int(stats[0]), int(stats[1] or 0), int(stats[2] or 0)
    conn.execute(
        update(sch.runs)
        .where(sch.runs.c.id == run_id)
        .values(
            n_total=total,
            n_passed=n_passed,
            n_errors=n_errors,
            pass_rate=pass_rate(n_passed, total - n_errors),  # the one rule: errors left out
            infra_error=int(total > 0 and n_errors == total),
        )
    )


def _lookup(conn: Connection, key_col: Any, value_col: Any, keys: Sequence[Any]) -> dict[Any, int]:
    """``{key: value}`` for the given keys that are in the table (None keys skipped)."""
    wanted = sorted({k for k in keys if k is not None})
    out: dict[Any, int] = {}
    for i in range(0, len(wanted), CHUNK):
        query = select(key_col, value_col).where(key_col.in_(wanted[i : i + CHUNK]))
        out.update({k: int(v) for k, v in conn.execute(query)})
    return out


def _insert_run(conn: Connection, values: dict[str, Any]) -> int:
    key = conn.execute(insert(sch.runs).values(values)).inserted_primary_key
    assert key is not None
    return int(key[0])
