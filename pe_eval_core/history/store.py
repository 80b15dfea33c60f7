"""Run history: every memo evaluation and scenario run, in SQLite (embedded) or PostgreSQL.

One summary row per run (``runs``) plus per-item detail (``memo_opportunities``,
``memo_findings``, ``scenario_results``); scenario responses and the verdicts' detail are
stored once, content-addressed (sha256) and zlib-compressed, in ``blobs``. The schema is one
SQLAlchemy Core definition (:mod:`pe_eval_core.history.schema`) for both databases, upgraded
in place by its one migration path. Aggregates for lists and trends are computed in SQL.

Where the history lives: an explicit target (a file path, or a ``postgresql://`` /
``sqlite:///`` URL: the CLI's ``--db`` / ``--database-url``), else ``$PE_EVAL_DATABASE_URL``,
else the file ``$PE_EVAL_HOME/history.sqlite`` (default ``./.pe_eval/history.sqlite``).
A lock held by another process is waited for at most ``$PE_EVAL_LOCK_TIMEOUT`` seconds
(default 5), then :class:`~pe_eval_core.errors.HistoryLockedError` names the holders.

>>> import tempfile, pathlib
>>> store = RunStore(pathlib.Path(tempfile.mkdtemp()) / "h.sqlite")
>>> store.schema_version() == SCHEMA_VERSION
True
>>> store.list_runs()
[]
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.exc import IntegrityError

from pe_eval_core.db import schema as sch
from pe_eval_core.db.engine import (
    DATABASE_URL_ENV,
    DB_FILENAME,
    LOCK_TIMEOUT_ENV,
    Database,
    database_url,
    default_db_path,
    lock_timeout_s,
)
from pe_eval_core.db.schema import SCHEMA_VERSION
from pe_eval_core.errors import HistoryError, RunNotFoundError
from pe_eval_core.history import trends
from pe_eval_core.history.blobs import delete_unreferenced
from pe_eval_core.history.reading import FILTER_COLUMNS, RowReader, where
from pe_eval_core.history.recording import record_many_or_warn, record_or_warn
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
    memo_record,
    now_utc,
    scenario_summary,
)
from pe_eval_core.history.references import find_run, parse_run_reference
from pe_eval_core.history.trends import memo_series
from pe_eval_core.history.writing import insert_records, insert_scenario_run, scenario_run_rows

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun

__all__ = [
    "DATABASE_URL_ENV",
    "DB_FILENAME",
    "LOCK_TIMEOUT_ENV",
    "MEMO_DIMENSIONS",
    "SCHEMA_VERSION",
    "GcResult",
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
    "database_url",
    "default_db_path",
    "lock_timeout_s",
    "memo_series",
    "parse_run_reference",
    "record_many_or_warn",
    "record_or_warn",
]

log = logging.getLogger("pe_eval.history")
T = TypeVar("T")


@dataclass(frozen=True)
class GcResult:
    """What ``history gc`` removed."""

    blobs_removed: int
    bytes_removed: int
    """Compressed bytes of the removed blobs."""


class RunStore:
    """The history at ``target`` (see the module docstring), created and migrated on first use.

    Connections come from a per-process pool and are held only for one call, so one
    ``RunStore`` may be shared across threads (e.g. Streamlit reruns) and several processes
    (or machines, on PostgreSQL) can write at once without losing a row. Writing, reading,
    blobs, references and trends live in their own modules; this class holds the connection.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | None = None,
        *,
        lock_timeout: float | None = None,
    ):
        self.db = Database(target, lock_timeout=lock_timeout)
        self.url = self.db.url
        self.is_sqlite = self.db.is_sqlite
        self.path: Path | None = self.db.path
        """The SQLite file, or None for a server database."""
        self.lock_timeout = self.db.lock_timeout
        self.warnings: list[str] = []
        """Corrupt rows skipped while reading (also logged on ``pe_eval.history``)."""
        self._rows = RowReader(self._skip)

    @property
    def location(self) -> str:
        """Where the history lives, safe to show (a path, or the URL without its password)."""
        return self.db.location

    def exists(self) -> bool:
        """Whether there is a history to read (reading never creates a SQLite file)."""
        return self.db.exists()

    def _read(self) -> AbstractContextManager[Connection]:
        return self.db.read()

    def _write(self) -> AbstractContextManager[Connection]:
        return self.db.write()

    def _skip(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s", message)

    def schema_version(self) -> int:
        with self._read() as conn:
            return sch.current_version(conn)

    # recording

    def _write_retrying(self, write: Callable[[Connection], T]) -> T:
        """``write`` in one transaction, retried once after a unique-key race (another
        writer recorded the same grading, or took the same uid, between our check and
        insert: the retry sees it)."""
        for attempt in (1, 2):
            try:
                with self._write() as conn:
                    return write(conn)
            except HistoryError as exc:
                if attempt == 2 or not isinstance(exc.__cause__, IntegrityError):
                    raise
        raise AssertionError("unreachable")

    def record(self, record: RunRecord) -> int:
        """Store a record built by :func:`memo_record` / :func:`scenario_record` with its
        detail rows; return the run id. A memo grading already recorded (same memo and
        source content, grader version, configuration and result) returns the existing id."""
        return self._write_retrying(lambda conn: insert_records(conn, [record]))[0]

    def record_memo_evaluation(self, evaluation: MemoEvaluation, *, origin: str = "api") -> int:
        """Store a ``MemoEvaluation`` with its opportunities and findings; return the run id."""
        return self.record(memo_record(evaluation, origin=origin))

    def record_memo_evaluations(
        self, evaluations: Iterable[MemoEvaluation], *, origin: str = "api"
    ) -> list[int]:
        """Store many memo gradings in one transaction (a batch); their run ids, in order."""
        records = [memo_record(e, origin=origin) for e in evaluations]
        return self._write_retrying(lambda conn: insert_records(conn, records))

    def record_scenario_run(self, run: ScenarioRun, *, origin: str = "api") -> int:
        """Store a ``ScenarioRun`` with one row per scenario verdict; return the run id.

        The rows go to the database as plain tuples (no per-row model), the responses as
        compressed blobs shared with every run that got the same text."""
        summary = scenario_summary(run, origin=origin)
        rows, details = scenario_run_rows(run)
        return self._write_retrying(lambda conn: insert_scenario_run(conn, summary, rows, details))

    # deleting, pinning, collecting

    def delete_run(self, run_id: int | str) -> int:
        """Remove a run and its detail rows (its blobs stay until :meth:`gc`); its id."""
        rid = self.resolve(run_id)
        with self._write() as conn:
            for table in (sch.memo_findings, sch.memo_opportunities, sch.scenario_results):
                conn.execute(delete(table).where(table.c.run_id == rid))
            conn.execute(delete(sch.baseline_pins).where(sch.baseline_pins.c.run_id == rid))
            conn.execute(delete(sch.runs).where(sch.runs.c.id == rid))
        return rid

    def pin_baseline(self, run_id: int | str) -> int:
        """Make a run the baseline of its kind (replacing any other pin of that kind)."""
        rid = self.resolve(run_id)
        with self._write() as conn:
            kind, infra = conn.execute(
                select(sch.runs.c.kind, sch.runs.c.infra_error).where(sch.runs.c.id == rid)
            ).one()
            if infra:
                raise HistoryError(
                    f"run {rid} is an infrastructure error (every scenario errored)",
                    diagnosis="A run where nothing ran cannot be a baseline",
                    fix="Pin a run whose scenarios ran (see the runs list).",
                    input="run",
                )
            conn.execute(delete(sch.baseline_pins).where(sch.baseline_pins.c.kind == kind))
            conn.execute(
                insert(sch.baseline_pins).values(kind=kind, run_id=rid, pinned_at=now_utc())
            )
        return rid

    def unpin_baseline(self, kind: RunKind) -> int | None:
        """Remove the pinned baseline of ``kind``; the run that was pinned, or None."""
        with self._write() as conn:
            pinned = self._pinned(conn, kind)
            conn.execute(delete(sch.baseline_pins).where(sch.baseline_pins.c.kind == kind))
        return pinned

    def pinned_baseline(self, kind: RunKind) -> int | None:
        """The run pinned as the baseline of ``kind``, or None."""
        if not self.exists():
            return None
        with self._read() as conn:
            return self._pinned(conn, kind)

    @staticmethod
    def _pinned(conn: Connection, kind: str) -> int | None:
        value = conn.execute(
            select(sch.baseline_pins.c.run_id).where(sch.baseline_pins.c.kind == kind)
        ).scalar_one_or_none()
        return None if value is None else int(value)

    def gc(self) -> GcResult:
        """Remove the blobs no run references (and the dictionaries no blob uses); on SQLite
        the file then shrinks (VACUUM)."""
        with self.db.write(exclusive=True) as conn:  # never beside a recorder (db/engine.py)
            removed, size = delete_unreferenced(conn)
        if self.is_sqlite and removed:
            with self.db.errors():  # outside any transaction, on the driver's connection
                raw = self.db.engine().raw_connection()
                try:
                    raw.driver_connection.execute("VACUUM")  # type: ignore[union-attr]
                finally:
                    raw.close()
        return GcResult(blobs_removed=removed, bytes_removed=size)

    # reading

    def list_runs(self, filters: RunFilters | None = None, *, limit: int = 500) -> list[RunSummary]:
        """Newest first; corrupt rows are skipped with a warning."""
        query = (
            select(sch.runs)
            .where(*where(filters or RunFilters()))
            .order_by(sch.runs.c.created_at.desc(), sch.runs.c.id.desc())
            .limit(limit)
        )
        with self._read() as conn:
            rows = conn.execute(query).mappings()
            return [s for row in rows if (s := self._rows.summary(row)) is not None]

    def count_runs(self, filters: RunFilters | None = None) -> int:
        query = select(func.count()).select_from(sch.runs).where(*where(filters or RunFilters()))
        with self._read() as conn:
            return int(conn.execute(query).scalar_one())

    def filter_options(self) -> dict[str, list[str]]:
        """Distinct values of each filterable column, for dropdowns."""
        out: dict[str, list[str]] = {}
        with self._read() as conn:
            for col in FILTER_COLUMNS:
                c = sch.runs.c[col]
                rows = conn.execute(select(c).where(c.is_not(None)).distinct().order_by(c))
                out[col] = [r[0] for r in rows]
        return out

    def get_run(self, run_id: int | str) -> RunRecord:
        """The run with every detail row; ``run_id`` may be any reference ``resolve`` accepts.
        Detail rows that cannot be read are skipped with a warning."""
        rid = self.resolve(run_id)
        with self._read() as conn:
            row = conn.execute(select(sch.runs).where(sch.runs.c.id == rid)).mappings().one()
            summary = self._rows.summary(row)
            if summary is None:
                raise HistoryError(
                    f"run {rid} in {self.location} is corrupt: {self.warnings[-1]}",
                    diagnosis="The run's summary row cannot be read",
                    fix="Delete that run from the history, or show another one.",
                    input="run",
                )
            record = RunRecord(summary=summary)
            if summary.kind == "memo":
                self._rows.memo_detail(conn, rid, record)
            else:
                self._rows.scenario_detail(conn, rid, row.get("detail_sha256"), record)
        return record

    def resolve(self, ref: int | str, kind: RunKind | None = None) -> int:
        """Turn a run reference into an id: ``12``, ``latest``, ``latest~1`` (the one before),
        or a uid / uid prefix of at least 6 characters. Anything else is a
        :class:`~pe_eval_core.errors.RunReferenceError` naming the reference.

        ``latest`` is the run recorded last, whatever time it says it ran (``--timestamp``
        may backdate a run); ``latest~N`` skips infrastructure-error runs when ``kind`` is
        given (a comparison or gate wants runs that ran)."""
        parsed = parse_run_reference(ref)
        if not self.exists():
            raise RunNotFoundError(f"no run {parsed[1]!r}: nothing recorded in {self.location}")
        with self._read() as conn:
            row = find_run(conn, parsed, kind)
        shown = str(ref).strip()
        if row is None:
            raise RunNotFoundError(f"no run {shown!r} in {self.location}")
        if kind and row.kind != kind:
            raise RunNotFoundError(f"run {shown!r} is a {row.kind} run, not {kind}")
        return int(row.id)

    # trends (aggregated in SQL)

    def memo_trend(
        self,
        portco_id: str | None = None,
        audience: str | None = None,
        memo_path: str | None = None,
    ) -> list[dict[str, Any]]:
        """The four memo dimensions over time, one row per evaluation, oldest first.

        Each row carries ``memo_path`` and ``series`` (the memo file with its folder, e.g.
        ``finance_output/explain_MortgageCo_board.json``): group by ``series``, not by portco
        name, so a memo of the same name in another folder is another line."""
        filters = RunFilters(
            kind="memo", portco_id=portco_id, audience=audience, memo_path=memo_path
        )
        with self._read() as conn:
            return trends.memo_trend(conn, filters)

    def tier_trend(self, filters: RunFilters | None = None) -> list[dict[str, Any]]:
        """Pass rate per tier per scenario run over time, oldest first (infrastructure-error
        runs left out: nothing in them ran)."""
        with self._read() as conn:
            return trends.tier_trend(conn, filters or RunFilters())
