"""Reading runs back: summary rows and detail rows as typed records, corrupt rows skipped.

A row that cannot be read never stops a listing: :class:`RowReader` skips it and says why
through its ``skip`` callback (the store keeps the warnings and logs them).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, case, func, literal, select

from pe_eval_core.db import schema as sch
from pe_eval_core.history.blobs import get_blobs
from pe_eval_core.history.records import (
    SCENARIO_DETAIL_KEYS,
    MemoFindingRow,
    MemoOpportunityRow,
    RunFilters,
    RunRecord,
    RunSummary,
    ScenarioResultRow,
    TierCount,
    iso_utc,
    resolved_path,
)
from pe_eval_core.history.writing import ROW_FIELDS_IN_BLOB
from pe_eval_core.rates import pass_rate

FILTER_COLUMNS = (
    "kind",
    "portco_id",
    "audience",
    "memo_path",
    "scenarios_path",
    "target",
    "model",
    "skill_path",
    "identity",
)
"""The runs columns a list can be filtered on (``RunFilters``' equality fields)."""

_SUMMARY_FIELDS = frozenset(RunSummary.model_fields) - {"scores", "infra_error"}


def where(filters: RunFilters) -> list[Any]:
    """The SQL conditions of ``filters`` on the runs table."""
    r = sch.runs
    clauses: list[Any] = []
    for col in FILTER_COLUMNS:
        value = getattr(filters, col)
        if col in ("scenarios_path", "memo_path", "skill_path") and value is not None:
            value = resolved_path(value)
        if value is not None:
            clauses.append(r.c[col] == value)
    if filters.since:
        clauses.append(r.c.created_at >= iso_utc(filters.since))
    if filters.until:
        clauses.append(r.c.created_at < iso_utc(filters.until))
    if filters.infra_error is not None:
        clauses.append(r.c.infra_error == int(filters.infra_error))
    return clauses


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ())) or "row"
        return f"{loc}: {first.get('msg')}"
    return f"{type(exc).__name__}: {exc}"


class RowReader:
    """Turns database rows into records; ``skip(message)`` hears of every row left out."""

    def __init__(self, skip: Callable[[str], None]):
        self.skip = skip

    def summary(self, row: Any) -> RunSummary | None:
        """The run's summary, or None (skipped) when its row is corrupt."""
        data = {k: v for k, v in row.items() if k in _SUMMARY_FIELDS}
        try:
            scores = json.loads(row["scores_json"] or "{}")
            data["scores"] = scores if isinstance(scores, dict) else {}
            data["infra_error"] = bool(row.get("infra_error") or 0)
            return RunSummary(**data)
        except (ValueError, TypeError) as exc:  # ValidationError is a ValueError
            self.skip(f"skipped run {row.get('id')}: its row is corrupt ({_reason(exc)})")
            return None

    def _row(self, model: Any, data: dict[str, Any], what: str) -> Any:
        try:
            return model(**data)
        except (ValueError, TypeError) as exc:
            self.skip(f"skipped {what}: corrupt row ({_reason(exc)})")
            return None

    def memo_detail(self, conn: Connection, rid: int, record: RunRecord) -> None:
        """Fill ``record`` with the memo run's findings and opportunities."""
        f, o = sch.memo_findings, sch.memo_opportunities
        for r in conn.execute(select(f).where(f.c.run_id == rid).order_by(f.c.seq)).mappings():
            data = {k: v for k, v in r.items() if k not in ("run_id", "seq", "nearest_text")}
            if r.get("nearest_text") is not None:
                data["nearest_value"] = r["nearest_text"]
            finding = self._row(MemoFindingRow, data, f"finding {r['seq']} of run {rid}")
            if finding is not None:
                record.findings.append(finding)
        query = select(o).where(o.c.run_id == rid).order_by(o.c.opportunity_id)
        for r in conn.execute(query).mappings():
            data = {k: v for k, v in r.items() if k != "run_id"}
            what = f"opportunity {r['opportunity_id']} of run {rid}"
            opportunity = self._row(MemoOpportunityRow, data, what)
            if opportunity is not None:
                record.opportunities.append(opportunity)

    def _detail_items(self, blobs: dict[str, bytes], detail_sha: str | None, rid: int) -> list:
        """The verdict detail blob's ``results`` list ([] when absent or unreadable)."""
        if not detail_sha:
            return []
        try:
            items = json.loads(blobs[detail_sha])["results"]
            if not isinstance(items, list):
                raise ValueError("not a list")
            return items
        except (KeyError, ValueError, TypeError) as exc:
            self.skip(f"the verdict detail of run {rid} is unreadable ({exc}); shown without")
            return []

    def scenario_detail(
        self, conn: Connection, rid: int, detail_sha: str | None, record: RunRecord
    ) -> None:
        """Fill ``record`` with the scenario run's verdict rows and its tier counts."""
        s = sch.scenario_results
        rows = list(conn.execute(select(s).where(s.c.run_id == rid).order_by(s.c.seq)).mappings())
        wanted = {r["response_sha256"] for r in rows if r["response_sha256"]}
        if detail_sha:
            wanted.add(detail_sha)
        blobs = get_blobs(conn, wanted, self.skip)
        items = self._detail_items(blobs, detail_sha, rid)
        for r in rows:
            what = f"scenario {r['seq']} of run {rid}"
            try:
                data = _result_data(r, items, blobs, versioned=bool(detail_sha))
            except (KeyError, ValueError, TypeError) as exc:
                self.skip(f"skipped {what}: {type(exc).__name__} {exc}")
                continue
            result = self._row(ScenarioResultRow, data, what)
            if result is not None:
                record.results.append(result)
        record.tiers = tiers(conn, rid)


def _result_data(
    r: Any, items: list, blobs: dict[str, bytes], *, versioned: bool
) -> dict[str, Any]:
    """One verdict row's fields; ``versioned`` (schema 3): the row holds what SQL aggregates,
    the run's detail blob the rest."""
    if versioned:
        seq = int(r["seq"])
        item = items[seq] if 0 <= seq < len(items) else {}
        if not isinstance(item, dict):
            raise TypeError("detail is not an object")
        extra = {k: item.get(k) for k in ROW_FIELDS_IN_BLOB}
        detail = {k: item[k] for k in SCENARIO_DETAIL_KEYS if k in item}
    else:
        extra = {k: r[k] for k in ROW_FIELDS_IN_BLOB}
        detail = json.loads(r["detail_json"] or "{}")
    response = r["response"]
    if r["response_sha256"]:
        response = blobs[r["response_sha256"]].decode("utf-8", "surrogatepass")
    return {
        "name": r["name"],
        "tier": r["tier"],
        "status": r["status"],
        "response": response,
        "detail": detail,
        **extra,
    }


def tiers(conn: Connection, rid: int) -> list[TierCount]:
    """The run's pass counts per tier, counted in SQL."""
    s = sch.scenario_results
    tier = func.coalesce(s.c.tier, literal("untiered")).label("tier")
    passed = func.sum(case((s.c.status == "pass", 1), else_=0))
    ran = func.sum(case((s.c.status.in_(("pass", "fail")), 1), else_=0))
    query = (
        select(tier, func.count().label("total"), passed.label("passed"), ran.label("ran"))
        .where(s.c.run_id == rid)
        .group_by(tier)
        .order_by(tier)
    )
    out = []
    for r in conn.execute(query).mappings():
        total, n, ran_n = int(r["total"]), int(r["passed"] or 0), int(r["ran"] or 0)
        rate = pass_rate(n, ran_n) or 0.0  # errors left out, as in the report
        out.append(TierCount(tier=r["tier"], total=total, passed=n, ran=ran_n, pass_rate=rate))
    return out
