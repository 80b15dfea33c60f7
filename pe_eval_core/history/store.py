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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from pe_eval_core.errors import (
    HistoryError,
    HistorySchemaTooNewError,
    PeEvalError,
    RunNotFoundError,
)
from pe_eval_core.files import sha256_file
from pe_eval_core.wording import DIMENSIONS

DEFAULT_DIRNAME = ".pe_eval"
DB_FILENAME = "history.sqlite"
HOME_ENV = "PE_EVAL_HOME"
NO_HISTORY_ENV = "PE_EVAL_NO_HISTORY"
BUSY_TIMEOUT_MS = 30_000

RunKind = Literal["memo", "scenarios"]
MEMO_DIMENSIONS = DIMENSIONS
PASS = "pass"


# --- schema ---------------------------------------------------------------------------------

# Version 1: summary rows, memo findings and scenario verdicts.
_V1 = """
CREATE TABLE runs (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    uid                TEXT NOT NULL UNIQUE,
    kind               TEXT NOT NULL CHECK (kind IN ('memo', 'scenarios')),
    created_at         TEXT NOT NULL,
    recorded_at        TEXT NOT NULL,
    portco_id          TEXT,
    audience           TEXT,
    memo_path          TEXT,
    memo_sha256        TEXT,
    source_path        TEXT,
    source_sha256      TEXT,
    grader_version     TEXT,
    scenarios_path     TEXT,
    scenarios_sha256   TEXT,
    target             TEXT,
    model              TEXT,
    citation_accuracy  REAL,
    hallucination_rate REAL,
    coverage           REAL,
    consistency        REAL,
    n_total            INTEGER,
    n_passed           INTEGER,
    pass_rate          REAL,
    tokens_in          INTEGER,
    tokens_out         INTEGER,
    cost_usd           REAL,
    note               TEXT,
    scores_json        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_kind_created ON runs (kind, created_at);
CREATE TABLE memo_findings (
    run_id               INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                  INTEGER NOT NULL,
    kind                 TEXT NOT NULL,
    opportunity_id       TEXT,
    field                TEXT,
    start                INTEGER,
    "end"                INTEGER,
    raw                  TEXT,
    message              TEXT,
    nearest_value        REAL,
    nearest_path         TEXT,
    other_opportunity_id TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE scenario_results (
    run_id         INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    name           TEXT NOT NULL,
    tier           TEXT,
    platform       TEXT,
    source_fact    TEXT,
    status         TEXT NOT NULL,
    latency_ms     REAL,
    error          TEXT,
    response       TEXT,
    detail_json    TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, seq)
);
"""

# Version 2: who recorded the run, error counts on the summary row, per-opportunity rows,
# and the indexes the History page filters on. Existing rows are backfilled.
_V2 = """
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE runs ADD COLUMN n_errors INTEGER;
UPDATE runs SET n_errors = (
    SELECT COUNT(*) FROM scenario_results s
    WHERE s.run_id = runs.id AND s.status NOT IN ('pass', 'fail')
) WHERE kind = 'scenarios';
CREATE TABLE memo_opportunities (
    run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    opportunity_id    TEXT NOT NULL,
    archetype         TEXT,
    cohort            TEXT,
    in_source         INTEGER,
    addressed         INTEGER,
    figures_total     INTEGER,
    figures_cited     INTEGER,
    entities_total    INTEGER,
    entities_grounded INTEGER,
    n_findings        INTEGER,
    PRIMARY KEY (run_id, opportunity_id)
);
CREATE INDEX runs_created ON runs (created_at, id);
CREATE INDEX runs_memo_pair ON runs (portco_id, audience, created_at);
CREATE INDEX runs_scenarios ON runs (scenarios_path, target, model, created_at);
CREATE INDEX scenario_results_tier ON scenario_results (run_id, tier, status);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2)
"""``MIGRATIONS[i]`` upgrades a database from version ``i`` to ``i + 1``."""
SCHEMA_VERSION = len(MIGRATIONS)


# --- models ---------------------------------------------------------------------------------


class RunFilters(BaseModel):
    """Which runs to list; every field left ``None`` matches everything."""

    kind: RunKind | None = None
    portco_id: str | None = None
    audience: str | None = None
    scenarios_path: str | None = None
    target: str | None = None
    model: str | None = None
    since: str | None = None
    """ISO timestamp; runs created at or after it."""
    until: str | None = None
    """ISO timestamp; runs created before it."""


class RunSummary(BaseModel):
    """One row of the runs list: what was evaluated, when, and the headline numbers."""

    id: int
    uid: str
    kind: RunKind
    created_at: str
    recorded_at: str
    origin: str
    portco_id: str | None = None
    audience: str | None = None
    memo_path: str | None = None
    memo_sha256: str | None = None
    source_path: str | None = None
    source_sha256: str | None = None
    grader_version: str | None = None
    scenarios_path: str | None = None
    scenarios_sha256: str | None = None
    target: str | None = None
    model: str | None = None
    citation_accuracy: float | None = None
    hallucination_rate: float | None = None
    coverage: float | None = None
    consistency: float | None = None
    n_total: int | None = None
    n_passed: int | None = None
    n_errors: int | None = None
    pass_rate: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    note: str | None = None
    scores: dict[str, Any] = Field(default_factory=dict)
    """The run's full scores/totals as recorded (memo: ``scores`` and ``totals``)."""

    @property
    def subject(self) -> str:
        """A short label: ``MortgageCo/board`` or ``mimic-scenarios.json @ target``."""
        if self.kind == "memo":
            return f"{self.portco_id}/{self.audience}"
        name = Path(self.scenarios_path or "?").name
        return f"{name} @ {self.target or '?'}"


class MemoFindingRow(BaseModel):
    """A memo finding as stored: the identity used to diff two runs is (kind, opportunity, raw)."""

    kind: str
    opportunity_id: str | None = None
    field: str | None = None
    start: int | None = None
    end: int | None = None
    raw: str | None = None
    message: str | None = None
    nearest_value: float | str | None = None
    nearest_path: str | None = None
    other_opportunity_id: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.opportunity_id or "", self.raw or "")


class MemoOpportunityRow(BaseModel):
    opportunity_id: str
    archetype: str | None = None
    cohort: str | None = None
    in_source: bool | None = None
    addressed: bool | None = None
    figures_total: int | None = None
    figures_cited: int | None = None
    entities_total: int | None = None
    entities_grounded: int | None = None
    n_findings: int | None = None


class ScenarioResultRow(BaseModel):
    """A scenario verdict as stored; ``detail`` keeps expectations, numeric check and numbers."""

    name: str
    tier: str | None = None
    platform: str | None = None
    source_fact: str | None = None
    status: str
    latency_ms: float | None = None
    error: str | None = None
    response: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class TierCount(BaseModel):
    tier: str
    total: int
    passed: int
    pass_rate: float


class RunRecord(BaseModel):
    """A run with all of its detail rows."""

    summary: RunSummary
    opportunities: list[MemoOpportunityRow] = Field(default_factory=list)
    findings: list[MemoFindingRow] = Field(default_factory=list)
    results: list[ScenarioResultRow] = Field(default_factory=list)
    tiers: list[TierCount] = Field(default_factory=list)


# --- helpers --------------------------------------------------------------------------------


def default_db_path() -> Path:
    """``$PE_EVAL_HOME/history.sqlite`` if set, else ``./.pe_eval/history.sqlite``."""
    home = os.environ.get(HOME_ENV)
    base = Path(home).expanduser() if home else Path.cwd() / DEFAULT_DIRNAME
    return base / DB_FILENAME


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _iso(value: Any) -> str:
    """Normalise a datetime or ISO string to UTC ISO-8601 so text order is time order.

    >>> _iso("2026-05-01T10:00:00+02:00")
    '2026-05-01T08:00:00.000000+00:00'
    >>> _iso("2026-05-01T10:00:00")
    '2026-05-01T10:00:00.000000+00:00'
    """
    if value is None or value == "":
        return _now()
    dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    dt = dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)
    return dt.isoformat(timespec="microseconds")


def _as_dict(obj: Any) -> dict[str, Any]:
    """A core pydantic model (or a plain mapping, e.g. parsed JSON) as a JSON-ready dict."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, Mapping):
        return json.loads(json.dumps(dict(obj), default=str))
    raise TypeError(f"cannot record {type(obj).__name__}: expected a pydantic model or a mapping")


def _sha_if_file(path: Any) -> str | None:
    try:
        return sha256_file(path) if path and Path(path).is_file() else None
    except OSError:
        return None


def _count(value: Any) -> int:
    """A count that the core may give as a number or as the list itself."""
    if value is None:
        return 0
    return int(value) if isinstance(value, int | float) else len(value)


def _path(value: Any) -> str | None:
    """Absolute form of an input path, so runs of the same file group together."""
    if not value:
        return None
    try:
        return str(Path(str(value)).expanduser().resolve())
    except (OSError, RuntimeError):
        return str(value)


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


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
                self._migrate(conn)
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

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise HistorySchemaTooNewError(
                f"{self.path} has schema version {version}; this pe-eval knows up to "
                f"{SCHEMA_VERSION}"
            )
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have migrated meanwhile.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _statements(MIGRATIONS[target - 1]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def schema_version(self) -> int:
        with self._conn() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    # recording

    def record_memo_evaluation(self, evaluation: Any, *, origin: str = "api") -> int:
        """Store a ``MemoEvaluation`` (or its ``model_dump``) with its opportunities and
        findings; return the new run id."""
        data = _as_dict(evaluation)
        scores = data.get("scores") or {}
        consistency = data.get("consistency") or {}
        summary = {
            "uid": uuid.uuid4().hex,
            "kind": "memo",
            "created_at": _iso(data.get("evaluated_at")),
            "recorded_at": _now(),
            "origin": origin,
            "portco_id": _text(data.get("portco_id")),
            "audience": _text(data.get("audience")),
            "memo_path": _path(data.get("memo_path")),
            "memo_sha256": data.get("memo_sha256") or _sha_if_file(data.get("memo_path")),
            "source_path": _path(data.get("source_path")),
            "source_sha256": data.get("source_sha256") or _sha_if_file(data.get("source_path")),
            "grader_version": _text(data.get("grader_version")),
            **{dim: _num(scores.get(dim)) for dim in MEMO_DIMENSIONS},
            "note": _text(consistency.get("note")) if isinstance(consistency, dict) else None,
            "scores_json": json.dumps({"scores": scores, "totals": data.get("totals") or {}}),
        }
        findings = [
            (
                i,
                str(f.get("kind") or "unknown"),
                _text(f.get("opportunity_id")),
                _text(f.get("field")),
                _int(f.get("start")),
                _int(f.get("end")),
                _text(f.get("raw")),
                _text(f.get("message")),
                f.get("nearest_value")
                if isinstance(f.get("nearest_value"), int | float | str | None)
                else str(f.get("nearest_value")),
                _text(f.get("nearest_path")),
                _text(f.get("other_opportunity_id")),
            )
            for i, f in enumerate(data.get("findings") or [])
        ]
        opportunities = []
        for o in data.get("opportunities") or []:
            cohort = o.get("cohort")
            opportunities.append(
                (
                    str(o.get("id") or o.get("opportunity_id")),
                    _text(o.get("archetype")),
                    cohort if isinstance(cohort, str | None) else json.dumps(cohort),
                    _int(o.get("in_source")),
                    _int(o.get("addressed")),
                    _int(o.get("figures_total")),
                    _int(o.get("figures_cited")),
                    _int(o.get("entities_total")),
                    _int(o.get("entities_grounded")),
                    _count(o.get("findings")),
                )
            )
        with self._write() as conn:
            run_id = _insert_summary(conn, summary)
            conn.executemany(
                "INSERT INTO memo_findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, *row) for row in findings],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO memo_opportunities VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, *row) for row in opportunities],
            )
        return run_id

    def record_scenario_run(self, run: Any, *, origin: str = "api") -> int:
        """Store a ``ScenarioRun`` (or its ``model_dump``) with one row per scenario verdict;
        the summary's counts and pass rate are then computed from those rows in SQL."""
        data = _as_dict(run)
        summary = {
            "uid": str(data.get("run_id") or uuid.uuid4().hex),
            "kind": "scenarios",
            "created_at": _iso(data.get("started_at")),
            "recorded_at": _now(),
            "origin": origin,
            "scenarios_path": _path(data.get("scenarios_path")),
            "scenarios_sha256": data.get("scenarios_sha256")
            or _sha_if_file(data.get("scenarios_path")),
            "target": _text(data.get("target")),
            "model": _text(data.get("model")),
            "tokens_in": _int(data.get("tokens_in")),
            "tokens_out": _int(data.get("tokens_out")),
            "cost_usd": _num(data.get("estimated_cost_usd")),
            "note": _text(run.conclusion() if hasattr(run, "conclusion") else data.get("note")),
            "scores_json": "{}",
        }
        rows = []
        for i, r in enumerate(data.get("results") or []):
            detail = {
                key: r.get(key)
                for key in (
                    "index",
                    "expectations",
                    "numeric_checks",
                    "numeric",
                    "excludes",
                    "excluded_hits",
                    "numbers",
                    "max_latency_ms",
                    "latency_warning",
                    "tokens_in",
                    "tokens_out",
                )
                if key in r
            }
            rows.append(
                (
                    i,
                    str(r.get("name")),
                    _text(r.get("tier")),
                    _text(r.get("platform")),
                    _text(r.get("source_fact")),
                    str(r.get("status") or "error"),
                    _num(r.get("latency_ms")),
                    _text(r.get("error")),
                    _text(r.get("response")),
                    json.dumps(detail),
                )
            )
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE uid = ?", (summary["uid"],)).fetchone():
                summary["uid"] = f"{summary['uid']}-{uuid.uuid4().hex[:8]}"
            run_id = _insert_summary(conn, summary)
            conn.executemany(
                "INSERT INTO scenario_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, *row) for row in rows],
            )
            conn.execute(
                """UPDATE runs SET
                     n_total = (SELECT COUNT(*) FROM scenario_results WHERE run_id = :id),
                     n_passed = (SELECT COUNT(*) FROM scenario_results
                                 WHERE run_id = :id AND status = 'pass'),
                     n_errors = (SELECT COUNT(*) FROM scenario_results
                                 WHERE run_id = :id AND status NOT IN ('pass', 'fail')),
                     pass_rate = (SELECT AVG(status = 'pass') FROM scenario_results
                                  WHERE run_id = :id)
                   WHERE id = :id""",
                {"id": run_id},
            )
        return run_id

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

    def tier_counts(self, run_id: int | str) -> list[TierCount]:
        rid = self.resolve(run_id)
        with self._conn() as conn:
            return self._tiers(conn, rid)

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

    def delete_run(self, run_id: int | str) -> None:
        rid = self.resolve(run_id)
        with self._write() as conn:
            conn.execute("DELETE FROM runs WHERE id = ?", (rid,))


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


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


def _where(filters: RunFilters, prefix: str = "") -> tuple[str, list[Any]]:
    clauses, params = [], []
    for col in ("kind", "portco_id", "audience", "scenarios_path", "target", "model"):
        value = getattr(filters, col)
        if col == "scenarios_path" and value is not None:
            value = _path(value)
        if value is not None:
            clauses.append(f"{prefix}{col} = ?")
            params.append(value)
    if filters.since:
        clauses.append(f"{prefix}created_at >= ?")
        params.append(_iso(filters.since))
    if filters.until:
        clauses.append(f"{prefix}created_at < ?")
        params.append(_iso(filters.until))
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), params


def _row(row: sqlite3.Row, *drop: str) -> dict[str, Any]:
    """A row as a dict without the named columns (iterating a Row yields values, not keys)."""
    return {k: v for k, v in zip(row.keys(), row, strict=True) if k not in drop}


def _summary(row: sqlite3.Row) -> RunSummary:
    data = _row(row, "scores_json")
    data["scores"] = json.loads(row["scores_json"] or "{}")
    return RunSummary(**data)


# --- module-level conveniences for the CLI, dashboard and MCP server ------------------------


def record_memo_evaluation(
    evaluation: Any, *, db: str | os.PathLike[str] | None = None, origin: str = "api"
) -> int:
    """Record one memo evaluation in the history at ``db`` (default location otherwise)."""
    return RunStore(db).record_memo_evaluation(evaluation, origin=origin)


def record_scenario_run(
    run: Any, *, db: str | os.PathLike[str] | None = None, origin: str = "api"
) -> int:
    """Record one scenario run in the history at ``db`` (default location otherwise)."""
    return RunStore(db).record_scenario_run(run, origin=origin)


def record_or_warn(
    result: Any, *, origin: str, db: str | os.PathLike[str] | None = None
) -> int | None:
    """Record a ``MemoEvaluation`` or ``ScenarioRun`` without ever failing the caller.

    For surfaces whose job is the evaluation itself: a history problem becomes a one-line
    warning on stderr and ``None``. ``PE_EVAL_NO_HISTORY=1`` turns recording off.
    """
    if os.environ.get(NO_HISTORY_ENV, "").strip() not in ("", "0"):
        return None
    is_run = hasattr(result, "results") or (isinstance(result, Mapping) and "results" in result)
    try:
        store = RunStore(db)
        if is_run:
            return store.record_scenario_run(result, origin=origin)
        return store.record_memo_evaluation(result, origin=origin)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: run not recorded in history: {exc}", file=sys.stderr)
        return None
