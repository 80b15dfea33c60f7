"""Run history: every memo evaluation and scenario run, kept in one embedded SQLite file.

One summary row per run (``runs``) plus per-item detail (``memo_opportunities``,
``memo_findings``, ``scenario_results``). The schema is versioned with ``PRAGMA user_version``
and upgraded in place by :data:`MIGRATIONS`; the file runs in WAL mode with a busy timeout so
several processes (CLI, dashboard, MCP server) can write at once without losing a row.
Aggregates for lists and trends are computed in SQL.

The default file is ``.pe_eval/history.sqlite`` under the working directory; ``PE_EVAL_HOME``
moves the folder, and every surface accepts an explicit path (``--db``).

>>> import tempfile, pathlib
>>> store = RunStore(pathlib.Path(tempfile.mkdtemp()) / "h.sqlite")
>>> store.schema_version() == SCHEMA_VERSION
True
>>> store.list_runs()
[]
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pe_eval_core.errors import HistoryError, PeEvalError, RunNotFoundError
from pe_eval_core.history.records import (
    MEMO_DIMENSIONS,
    MemoFindingRow,
    MemoOpportunityRow,
    RunFilters,
    RunKind,
    RunRecord,
    RunSummary,
    ScenarioResultRow,
    TierCount,
    iso_utc,
    memo_record,
    resolved_path,
    scenario_record,
)
from pe_eval_core.history.schema import MIGRATIONS, SCHEMA_VERSION, migrate
from pe_eval_core.paths import pe_eval_home

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun

__all__ = [
    "MEMO_DIMENSIONS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "MemoFindingRow",
    "MemoOpportunityRow",
    "RunFilters",
    "RunKind",
    "RunNotFoundError",
    "RunRecord",
    "RunStore",
    "RunSummary",
    "ScenarioResultRow",
    "TierCount",
    "default_db_path",
    "record_or_warn",
]

DB_FILENAME = "history.sqlite"
NO_HISTORY_ENV = "PE_EVAL_NO_HISTORY"
BUSY_TIMEOUT_MS = 30_000


def default_db_path() -> Path:
    """``$PE_EVAL_HOME/history.sqlite`` if set, else ``./.pe_eval/history.sqlite``."""
    return pe_eval_home() / DB_FILENAME


# --- the store ------------------------------------------------------------------------------


class RunStore:
    """The history database at ``path`` (created and migrated on first use).

    Each call opens its own short-lived connection, so one ``RunStore`` may be shared across
    threads (e.g. Streamlit reruns) and several processes can use the same file.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path).expanduser() if path else default_db_path()
        self._ready = False

    # connection management

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise HistoryError(f"cannot open history database {self.path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._enable_wal(conn)
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise HistoryError(f"{self.path} is not a usable SQLite database: {exc}") from exc
        return conn

    def _enable_wal(self, conn: sqlite3.Connection) -> None:
        # Switching the journal mode needs a moment of exclusive access; the busy handler does
        # not always cover it, so retry briefly when another process is creating the file.
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise HistoryError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        conn = self._open()
        try:
            if not self._ready:
                migrate(conn, self.path)
                self._ready = True
            yield conn
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"history database {self.path}: {exc}") from exc
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the write lock up front (no upgrade deadlocks)."""
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def schema_version(self) -> int:
        with self._conn() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    # recording

    def record(self, record: RunRecord) -> int:
        """Store a record built by :func:`memo_record` / :func:`scenario_record` with its
        detail rows; return the new run id. A scenario run's counts and pass rate are then
        recomputed from the stored rows in SQL, so the summary always matches the detail."""
        summary = record.summary.model_dump(exclude={"id", "scores"})
        summary["scores_json"] = json.dumps(record.summary.scores)
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE uid = ?", (summary["uid"],)).fetchone():
                summary["uid"] = f"{summary['uid']}-{uuid.uuid4().hex[:8]}"
            run_id = _insert_summary(conn, summary)
            if record.summary.kind == "memo":
                _insert_memo_rows(conn, run_id, record)
            else:
                _insert_scenario_rows(conn, run_id, record)
        return run_id

    def record_memo_evaluation(self, evaluation: MemoEvaluation, *, origin: str = "api") -> int:
        """Store a ``MemoEvaluation`` with its opportunities and findings; return the run id."""
        return self.record(memo_record(evaluation, origin=origin))

    def record_scenario_run(self, run: ScenarioRun, *, origin: str = "api") -> int:
        """Store a ``ScenarioRun`` with one row per scenario verdict; return the run id."""
        return self.record(scenario_record(run, origin=origin))

    # reading

    def list_runs(self, filters: RunFilters | None = None, *, limit: int = 500) -> list[RunSummary]:
        """Newest first."""
        where, params = _where(filters or RunFilters())
        sql = f"SELECT * FROM runs {where} ORDER BY created_at DESC, id DESC LIMIT ?"
        with self._conn() as conn:
            return [_summary(row) for row in conn.execute(sql, [*params, limit])]

    def count_runs(self, filters: RunFilters | None = None) -> int:
        where, params = _where(filters or RunFilters())
        with self._conn() as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM runs {where}", params).fetchone()[0])

    def filter_options(self) -> dict[str, list[str]]:
        """Distinct values of each filterable column, for dropdowns."""
        out: dict[str, list[str]] = {}
        with self._conn() as conn:
            for col in ("kind", "portco_id", "audience", "scenarios_path", "target", "model"):
                rows = conn.execute(
                    f"SELECT DISTINCT {col} FROM runs WHERE {col} IS NOT NULL ORDER BY {col}"
                )
                out[col] = [r[0] for r in rows]
        return out

    def get_run(self, run_id: int | str) -> RunRecord:
        """The run with every detail row; ``run_id`` may be any reference ``resolve`` accepts."""
        rid = self.resolve(run_id)
        with self._conn() as conn:
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (rid,)).fetchone()
            summary = _summary(row)
            record = RunRecord(summary=summary)
            if summary.kind == "memo":
                record.findings = [
                    MemoFindingRow(**_row(r, "run_id", "seq"))
                    for r in conn.execute(
                        "SELECT * FROM memo_findings WHERE run_id = ? ORDER BY seq", (rid,)
                    )
                ]
                record.opportunities = [
                    MemoOpportunityRow(**_row(r, "run_id"))
                    for r in conn.execute(
                        "SELECT * FROM memo_opportunities WHERE run_id = ? ORDER BY opportunity_id",
                        (rid,),
                    )
                ]
            else:
                record.results = [
                    ScenarioResultRow(
                        name=r["name"],
                        tier=r["tier"],
                        platform=r["platform"],
                        source_fact=r["source_fact"],
                        status=r["status"],
                        latency_ms=r["latency_ms"],
                        error=r["error"],
                        response=r["response"],
                        detail=json.loads(r["detail_json"] or "{}"),
                    )
                    for r in conn.execute(
                        "SELECT * FROM scenario_results WHERE run_id = ? ORDER BY seq", (rid,)
                    )
                ]
                record.tiers = self._tiers(conn, rid)
        return record

    @staticmethod
    def _tiers(conn: sqlite3.Connection, rid: int) -> list[TierCount]:
        rows = conn.execute(
            """SELECT COALESCE(tier, 'untiered') AS tier, COUNT(*) AS total,
                      SUM(status = 'pass') AS passed, AVG(status = 'pass') AS pass_rate
               FROM scenario_results WHERE run_id = ? GROUP BY 1 ORDER BY 1""",
            (rid,),
        )
        return [TierCount(**dict(r)) for r in rows]

    def resolve(self, ref: int | str, kind: RunKind | None = None) -> int:
        """Turn a run reference into an id: ``12``, ``latest``, ``latest~1`` (the one before),
        or a uid / uid prefix of at least 6 characters."""
        text = str(ref).strip()
        with self._conn() as conn:
            if text.isdigit():
                row = conn.execute(
                    "SELECT id, kind FROM runs WHERE id = ?", (int(text),)
                ).fetchone()
            elif text == "latest" or text.startswith("latest~"):
                back = text.partition("~")[2] or "0"
                if not back.isdigit():
                    raise RunNotFoundError(f"bad run reference {text!r} (use latest~N)")
                sql = "SELECT id, kind FROM runs"
                params: list[Any] = []
                if kind:
                    sql += " WHERE kind = ?"
                    params.append(kind)
                sql += " ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?"
                row = conn.execute(sql, [*params, int(back)]).fetchone()
            elif len(text) >= 6:
                row = conn.execute("SELECT id, kind FROM runs WHERE uid = ?", (text,)).fetchone()
                if row is None:
                    pattern = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                    rows = conn.execute(
                        "SELECT id, kind FROM runs WHERE uid LIKE ? ESCAPE '\\' LIMIT 2",
                        (pattern + "%",),
                    ).fetchall()
                    if len(rows) > 1:
                        raise RunNotFoundError(f"run reference {text!r} is ambiguous")
                    row = rows[0] if rows else None
            else:
                row = None
        if row is None:
            raise RunNotFoundError(f"no run {text!r} in {self.path}")
        if kind and row["kind"] != kind:
            raise RunNotFoundError(f"run {text!r} is a {row['kind']} run, not {kind}")
        return int(row["id"])

    # trends (aggregated in SQL)

    def memo_trend(
        self, portco_id: str | None = None, audience: str | None = None
    ) -> list[dict[str, Any]]:
        """The four memo dimensions over time, one row per evaluation, oldest first."""
        where, params = _where(RunFilters(kind="memo", portco_id=portco_id, audience=audience))
        dims = ", ".join(MEMO_DIMENSIONS)
        sql = (
            f"SELECT id, created_at, portco_id, audience, {dims} FROM runs {where} "
            "ORDER BY created_at, id"
        )
        with self._conn() as conn:
            return [dict(r) for r in conn.execute(sql, params)]

    def tier_trend(self, filters: RunFilters | None = None) -> list[dict[str, Any]]:
        """Pass rate per tier per scenario run over time, oldest first."""
        base = (filters or RunFilters()).model_copy(update={"kind": "scenarios"})
        where, params = _where(base, prefix="r.")
        sql = f"""SELECT r.id, r.created_at, r.scenarios_path, r.target, r.model,
                         COALESCE(s.tier, 'untiered') AS tier, COUNT(*) AS total,
                         SUM(s.status = 'pass') AS passed, AVG(s.status = 'pass') AS pass_rate
                  FROM runs r JOIN scenario_results s ON s.run_id = r.id {where}
                  GROUP BY r.id, 6 ORDER BY r.created_at, r.id, 6"""
        with self._conn() as conn:
            return [dict(r) for r in conn.execute(sql, params)]


_SUMMARY_COLUMNS = (
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
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "note",
    "scores_json",
)


def _insert_summary(conn: sqlite3.Connection, summary: dict[str, Any]) -> int:
    cols = ", ".join(_SUMMARY_COLUMNS)
    marks = ", ".join(f":{c}" for c in _SUMMARY_COLUMNS)
    values = {c: summary.get(c) for c in _SUMMARY_COLUMNS}
    cur = conn.execute(f"INSERT INTO runs ({cols}) VALUES ({marks})", values)
    return int(cur.lastrowid or 0)


def _insert_memo_rows(conn: sqlite3.Connection, run_id: int, record: RunRecord) -> None:
    conn.executemany(
        "INSERT INTO memo_findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run_id,
                seq,
                f.kind,
                f.opportunity_id,
                f.field,
                f.start,
                f.end,
                f.raw,
                f.message,
                f.nearest_value,
                f.nearest_path,
                f.other_opportunity_id,
            )
            for seq, f in enumerate(record.findings)
        ],
    )
    conn.executemany(
        "INSERT OR REPLACE INTO memo_opportunities VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run_id,
                o.opportunity_id,
                o.archetype,
                o.cohort,
                _int(o.in_source),
                _int(o.addressed),
                o.figures_total,
                o.figures_cited,
                o.entities_total,
                o.entities_grounded,
                o.n_findings,
            )
            for o in record.opportunities
        ],
    )


def _insert_scenario_rows(conn: sqlite3.Connection, run_id: int, record: RunRecord) -> None:
    conn.executemany(
        "INSERT INTO scenario_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run_id,
                seq,
                r.name,
                r.tier,
                r.platform,
                r.source_fact,
                r.status,
                r.latency_ms,
                r.error,
                r.response,
                json.dumps(r.detail),
            )
            for seq, r in enumerate(record.results)
        ],
    )
    conn.execute(
        """UPDATE runs SET
             n_total = (SELECT COUNT(*) FROM scenario_results WHERE run_id = :id),
             n_passed = (SELECT COUNT(*) FROM scenario_results
                         WHERE run_id = :id AND status = 'pass'),
             n_errors = (SELECT COUNT(*) FROM scenario_results
                         WHERE run_id = :id AND status NOT IN ('pass', 'fail')),
             pass_rate = (SELECT AVG(status = 'pass') FROM scenario_results WHERE run_id = :id)
           WHERE id = :id""",
        {"id": run_id},
    )


def _int(flag: bool | None) -> int | None:
    return None if flag is None else int(flag)


def _where(filters: RunFilters, prefix: str = "") -> tuple[str, list[Any]]:
    clauses, params = [], []
    for col in ("kind", "portco_id", "audience", "scenarios_path", "target", "model"):
        value = getattr(filters, col)
        if col == "scenarios_path" and value is not None:
            value = resolved_path(value)
        if value is not None:
            clauses.append(f"{prefix}{col} = ?")
            params.append(value)
    if filters.since:
        clauses.append(f"{prefix}created_at >= ?")
        params.append(iso_utc(filters.since))
    if filters.until:
        clauses.append(f"{prefix}created_at < ?")
        params.append(iso_utc(filters.until))
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), params


def _row(row: sqlite3.Row, *drop: str) -> dict[str, Any]:
    """A row as a dict without the named columns (iterating a Row yields values, not keys)."""
    return {k: v for k, v in zip(row.keys(), row, strict=True) if k not in drop}


def _summary(row: sqlite3.Row) -> RunSummary:
    data = _row(row, "scores_json")
    data["scores"] = json.loads(row["scores_json"] or "{}")
    return RunSummary(**data)


# --- module-level conveniences for the CLI, dashboard and MCP server ------------------------


def _as_record(result: MemoEvaluation | ScenarioRun, origin: str) -> RunRecord:
    """The record for a memo evaluation or a scenario run, told apart by their classes.

    The classes are looked up among the loaded modules: an instance exists only if its module
    was imported, and importing the other domain here would slow every command that records.
    """
    scenarios = sys.modules.get("pe_eval_core.scenarios.models")
    if scenarios is not None and isinstance(result, scenarios.ScenarioRun):
        return scenario_record(result, origin=origin)
    memo = sys.modules.get("pe_eval_core.memo.result")
    if memo is not None and isinstance(result, memo.MemoEvaluation):
        return memo_record(result, origin=origin)
    raise TypeError(f"cannot record {type(result).__name__}: not a MemoEvaluation or ScenarioRun")


def record_or_warn(
    result: MemoEvaluation | ScenarioRun, *, origin: str, db: str | os.PathLike[str] | None = None
) -> int | None:
    """Record a ``MemoEvaluation`` or ``ScenarioRun`` without ever failing the caller.

    For surfaces whose job is the evaluation itself: a history problem becomes a one-line
    warning on stderr and ``None``. ``PE_EVAL_NO_HISTORY=1`` turns recording off.
    """
    if os.environ.get(NO_HISTORY_ENV, "").strip() not in ("", "0"):
        return None
    record = _as_record(result, origin)
    try:
        return RunStore(db).record(record)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: run not recorded in history: {exc}", file=sys.stderr)
        return None
