"""Trends over the history, aggregated in SQL: memo dimensions and scenario tier pass rates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, case, func, literal, select

from pe_eval_core.db import schema as sch
from pe_eval_core.history.reading import where
from pe_eval_core.history.records import MEMO_DIMENSIONS, RunFilters
from pe_eval_core.rates import pass_rate


def memo_series(memo_path: str | None, portco_id: str | None, audience: str | None) -> str:
    """The trend line a memo run belongs to: its file with the folder it is in.

    >>> memo_series("/data/fund_a/explain_X_board.json", "X", "board")
    'fund_a/explain_X_board.json'
    >>> memo_series(None, "X", "board")
    'X/board'
    """
    if not memo_path:
        return f"{portco_id}/{audience}"
    path = Path(memo_path)
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


def memo_trend(conn: Connection, filters: RunFilters) -> list[dict[str, Any]]:
    """The four memo dimensions over time, one row per evaluation, oldest first, each with
    its ``series`` (see :meth:`RunStore.memo_trend`)."""
    r = sch.runs
    cols = [r.c.id, r.c.created_at, r.c.portco_id, r.c.audience, r.c.memo_path]
    cols += [r.c[d] for d in MEMO_DIMENSIONS]
    query = (
        select(*cols).where(*where(filters), r.c.infra_error == 0).order_by(r.c.created_at, r.c.id)
    )
    rows = [dict(row) for row in conn.execute(query).mappings()]
    for row in rows:
        row["series"] = memo_series(row["memo_path"], row["portco_id"], row["audience"])
    return rows


def tier_trend(conn: Connection, filters: RunFilters) -> list[dict[str, Any]]:
    """Pass rate per tier per scenario run over time, oldest first (infrastructure-error
    runs left out: nothing in them ran)."""
    base = filters.model_copy(update={"kind": "scenarios"})
    r, s = sch.runs, sch.scenario_results
    tier = func.coalesce(s.c.tier, literal("untiered")).label("tier")
    passed = func.sum(case((s.c.status == "pass", 1), else_=0))
    query = (
        select(
            r.c.id,
            r.c.created_at,
            r.c.scenarios_path,
            r.c.target,
            r.c.model,
            tier,
            func.count().label("total"),
            passed.label("passed"),
        )
        .join_from(r, s, s.c.run_id == r.c.id)
        # errors left out of each rate, as in the report; infrastructure errors entirely
        .where(*where(base), r.c.infra_error == 0, s.c.status.in_(("pass", "fail")))
        .group_by(r.c.id, r.c.created_at, r.c.scenarios_path, r.c.target, r.c.model, tier)
        .order_by(r.c.created_at, r.c.id, tier)
    )
    rows = [dict(row) for row in conn.execute(query).mappings()]
    for row in rows:
        row["passed"] = int(row["passed"] or 0)
        row["pass_rate"] = pass_rate(row["passed"], row["total"])  # total: runs with a verdict
    return rows
