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

import hashlib
import json
import logging
import lzma
import os
import re
import sqlite3
import sys
import zlib
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import (
    Connection,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from pe_eval_core.db import schema as sch
from pe_eval_core.db.engine import (
    DATABASE_URL_ENV,
    DB_FILENAME,
    LOCK_TIMEOUT_ENV,
    Database,
    database_url,
    default_db_path,
    insert_ignore,
    lock_timeout_s,
    text_safe,
)
from pe_eval_core.db.schema import SCHEMA_VERSION
from pe_eval_core.errors import (
    HistoryError,
    PeEvalError,
    RunNotFoundError,
    RunReferenceError,
)
from pe_eval_core.history.records import (
    MEMO_DIMENSIONS,
    SCENARIO_DETAIL_KEYS,
    MemoFindingRow,
    MemoOpportunityRow,
    RunFilters,
    RunKind,
    RunRecord,
    RunSummary,
    ScenarioResultRow,
    TierCount,
    grading_key,
    iso_utc,
    memo_record,
    now_utc,
    resolved_path,
    scenario_summary,
)

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun

__all__ = [
    "DATABASE_URL_ENV",
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
    "record_many_or_warn",
    "record_or_warn",
]

NO_HISTORY_ENV = "PE_EVAL_NO_HISTORY"
__all__ += ["DB_FILENAME", "LOCK_TIMEOUT_ENV", "lock_timeout_s"]
ZLIB_LEVEL = 6
_CHUNK = 500  # parameters per IN (...) lookup, well under every driver's limit

log = logging.getLogger("pe_eval.history")


@dataclass(frozen=True)
class GcResult:
    """What ``history gc`` removed."""

    blobs_removed: int
    bytes_removed: int
    """Compressed bytes of the removed blobs."""


# --- the store ------------------------------------------------------------------------------


class RunStore:
    """The history at ``target`` (see the module docstring), created and migrated on first use.

    Connections come from a per-process pool and are held only for one call, so one
    ``RunStore`` may be shared across threads (e.g. Streamlit reruns) and several processes
    (or machines, on PostgreSQL) can write at once without losing a row.
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

    def schema_version(self) -> int:
        with self._read() as conn:
            return sch.current_version(conn)

    # recording

    def record(self, record: RunRecord) -> int:
        """Store a record built by :func:`memo_record` / :func:`scenario_record` with its
        detail rows; return the run id. A memo grading already recorded (same memo and
        source content, grader version, configuration and result) returns the existing id."""
        return self._record_many([record])[0]

    def record_memo_evaluation(self, evaluation: MemoEvaluation, *, origin: str = "api") -> int:
        """Store a ``MemoEvaluation`` with its opportunities and findings; return the run id."""
        return self.record(memo_record(evaluation, origin=origin))

    def record_memo_evaluations(
        self, evaluations: Iterable[MemoEvaluation], *, origin: str = "api"
    ) -> list[int]:
        """Store many memo gradings in one transaction (a batch); their run ids, in order."""
        return self._record_many([memo_record(e, origin=origin) for e in evaluations])

    def record_scenario_run(self, run: ScenarioRun, *, origin: str = "api") -> int:
        """Store a ``ScenarioRun`` with one row per scenario verdict; return the run id.

        The rows go to the database as plain tuples (no per-row model), the responses as
        compressed blobs shared with every run that got the same text."""
        summary = scenario_summary(run, origin=origin)
        try:  # one serialiser call writes every verdict's detail as the run's detail blob
            details = run.model_dump_json(include=_BLOB_INCLUDE)
        except ValueError:  # a lone surrogate: the Python path escapes it
            dumped = run.model_dump(mode="json", include=_BLOB_INCLUDE)
            details = json.dumps(dumped, separators=(",", ":"))
        rows = [(r.name, r.tier, r.status, r.response) for r in run.results]
        for attempt in (1, 2):
            try:
                with self._write() as conn:
                    return self._insert_scenario_run(conn, summary, rows, details.encode())
            except HistoryError as exc:
                # Another machine took the same uid between our check and insert: retry once
                # (the check then sees it and suffixes ours).
                if attempt == 2 or not isinstance(exc.__cause__, IntegrityError):
                    raise
        raise AssertionError("unreachable")

    def _record_many(self, records: Sequence[RunRecord]) -> list[int]:
        for attempt in (1, 2):
            try:
                with self._write() as conn:
                    return self._insert_records(conn, records)
            except HistoryError as exc:
                # Two writers recorded the same grading at once (PostgreSQL): the retry finds it.
                if attempt == 2 or not isinstance(exc.__cause__, IntegrityError):
                    raise
        raise AssertionError("unreachable")

    def _insert_records(self, conn: Connection, records: Sequence[RunRecord]) -> list[int]:
        """Insert ``records`` in order; the memo gradings of a batch as one bulk insert."""
        ids: list[int | None] = [None] * len(records)
        memos = [i for i, r in enumerate(records) if r.summary.kind == "memo"]
        for i, record in enumerate(records):
            if record.summary.kind != "memo":
                ids[i] = self._insert_scenario_record(conn, record)
        if memos:
            batch = self._insert_memos(conn, [records[i] for i in memos])
            for i, rid in zip(memos, batch, strict=True):
                ids[i] = rid
        return [int(i) for i in ids if i is not None]

    def _insert_scenario_record(self, conn: Connection, record: RunRecord) -> int:
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
        return self._insert_scenario_run(conn, record.summary, rows, details)

    def _summary_values(self, conn: Connection, summary: RunSummary) -> dict[str, Any]:
        values = summary.model_dump(exclude={"id", "scores", "infra_error"})
        values["scores_json"] = json.dumps(summary.scores)
        taken = conn.execute(select(sch.runs.c.id).where(sch.runs.c.uid == values["uid"]))
        if taken.first() is not None:
            values["uid"] = f"{values['uid']}-{os.urandom(4).hex()}"
        return {k: text_safe(v) for k, v in values.items()}

    def _insert_memos(self, conn: Connection, records: Sequence[RunRecord]) -> list[int]:
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
        assigned: dict[int, int] = {}
        if fresh:
            taken = _lookup(
                conn, sch.runs.c.uid, sch.runs.c.id, [r.summary.uid for r in fresh.values()]
            )
            values = []
            for i, record in fresh.items():
                row = record.summary.model_dump(exclude={"id", "scores", "infra_error"})
                row["scores_json"] = json.dumps(record.summary.scores)
                if row["uid"] in taken:
                    row["uid"] = f"{row['uid']}-{os.urandom(4).hex()}"
                row["grading_key"] = keys[i]
                values.append({k: text_safe(v) for k, v in row.items()})
            stmt = insert(sch.runs).returning(sch.runs.c.id, sort_by_parameter_order=True)
            new_ids = [int(r[0]) for r in conn.execute(stmt, values)]
            assigned = dict(zip(fresh, new_ids, strict=True))
            findings = [row for i, rid in assigned.items() for row in _finding_rows(rid, fresh[i])]
            opps = [row for i, rid in assigned.items() for row in _opportunity_rows(rid, fresh[i])]
            if findings:
                conn.execute(insert(sch.memo_findings), findings)
            if opps:
                conn.execute(insert(sch.memo_opportunities), opps)
        return [
            assigned[i] if i in assigned else known.get(k) or assigned[firsts[k]]  # type: ignore[index]
            for i, k in enumerate(keys)
        ]

    def _insert_scenario_run(
        self,
        conn: Connection,
        summary: RunSummary,
        rows: Sequence[tuple[str, str | None, str, str | None]],
        details: bytes,
    ) -> int:
        """``rows`` are (name, tier, status, response); ``details`` the JSON object
        ``{"results": [...]}`` with the rest of each verdict, in the same order."""
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
        self._put_blobs(conn, {detail_sha: details}, whole=True)
        self._put_blobs(conn, responses, shared_dictionary=True)
        values = self._summary_values(conn, summary)
        values["detail_sha256"] = detail_sha
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
        self._recount(conn, run_id)
        return run_id

    def _put_blobs(
        self,
        conn: Connection,
        pending: dict[str, bytes],
        *,
        shared_dictionary: bool = False,
        whole: bool = False,
    ) -> None:
        """Store the blobs not stored yet (compressing only those). With
        ``shared_dictionary``, many small texts (one run's responses) are compressed against
        one preset dictionary sampled from them (stored once, as a blob of its own): each
        stays its own content-addressed blob, at a fraction of its lone-zlib size. A
        ``whole`` blob (a run's verdict detail: one large, very repetitive JSON) is
        compressed with LZMA, whose window spans the whole run (measured: 12x smaller than
        zlib at the same speed)."""
        shas = list(pending)
        for i in range(0, len(shas), _CHUNK):
            chunk = shas[i : i + _CHUNK]
            for (sha,) in conn.execute(
                select(sch.blobs.c.sha256).where(sch.blobs.c.sha256.in_(chunk))
            ):
                pending.pop(sha, None)
        if not pending:
            return
        rows: list[dict[str, Any]] = []
        zdict = _dictionary(list(pending.values())) if shared_dictionary else None
        if whole:
            for sha, data in pending.items():
                packed = lzma.compress(data, preset=0)
                rows.append({"sha256": sha, "size": len(data), "codec": "xz", "data": packed})
        elif zdict is None:
            for sha, data in pending.items():
                packed = zlib.compress(data, ZLIB_LEVEL)
                rows.append({"sha256": sha, "size": len(data), "codec": "zlib", "data": packed})
        else:
            dict_sha = hashlib.sha256(zdict).hexdigest()
            rows.append({"sha256": dict_sha, "size": len(zdict), "codec": "dict", "data": zdict})
            codec = f"{_ZDICT}{dict_sha[:_DICT_REF]}"
            for sha, data in pending.items():
                packer = zlib.compressobj(ZLIB_LEVEL, zdict=zdict)
                packed = packer.compress(data) + packer.flush()
                rows.append({"sha256": sha, "size": len(data), "codec": codec, "data": packed})
        conn.execute(insert_ignore(conn, sch.blobs), rows)

    @staticmethod
    def _recount(conn: Connection, run_id: int) -> None:
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
                # errors left out of the denominator, as in the report (ScenarioRun.pass_rate)
                pass_rate=n_passed / (total - n_errors) if total > n_errors else None,
                infra_error=int(total > 0 and n_errors == total),
            )
        )

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
        b, s, r = sch.blobs, sch.scenario_results, sch.runs
        referenced = (
            select(s.c.response_sha256)
            .where(s.c.response_sha256.is_not(None))
            .union(select(r.c.detail_sha256).where(r.c.detail_sha256.is_not(None)))
        )
        used_dicts = select(func.substr(b.c.codec, len(_ZDICT) + 1)).where(
            b.c.codec.like(_ZDICT + "%")
        )
        removed = size = 0
        with self.db.write(exclusive=True) as conn:  # never beside a recorder (engine.py)
            for doomed in (
                (b.c.codec != "dict") & b.c.sha256.not_in(referenced),
                (b.c.codec == "dict") & func.substr(b.c.sha256, 1, _DICT_REF).not_in(used_dicts),
            ):
                n, total = conn.execute(
                    select(func.count(), func.coalesce(func.sum(func.length(b.c.data)), 0)).where(
                        doomed
                    )
                ).one()
                conn.execute(delete(b).where(doomed))
                removed, size = removed + int(n), size + int(total)
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
            .where(*_where(filters or RunFilters()))
            .order_by(sch.runs.c.created_at.desc(), sch.runs.c.id.desc())
            .limit(limit)
        )
        with self._read() as conn:
            out = []
            for row in conn.execute(query).mappings():
                summary = self._summary_or_skip(row)
                if summary is not None:
                    out.append(summary)
            return out

    def count_runs(self, filters: RunFilters | None = None) -> int:
        query = select(func.count()).select_from(sch.runs).where(*_where(filters or RunFilters()))
        with self._read() as conn:
            return int(conn.execute(query).scalar_one())

    def filter_options(self) -> dict[str, list[str]]:
        """Distinct values of each filterable column, for dropdowns."""
        out: dict[str, list[str]] = {}
        with self._read() as conn:
            for col in _FILTER_COLUMNS:
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
            summary = self._summary_or_skip(row)
            if summary is None:
                raise HistoryError(
                    f"run {rid} in {self.location} is corrupt: {self.warnings[-1]}",
                    diagnosis="The run's summary row cannot be read",
                    fix="Delete that run from the history, or show another one.",
                    input="run",
                )
            record = RunRecord(summary=summary)
            if summary.kind == "memo":
                self._read_memo_detail(conn, rid, record)
            else:
                self._read_scenario_detail(conn, rid, row.get("detail_sha256"), record)
                record.tiers = self._tiers(conn, rid)
        return record

    def _read_memo_detail(self, conn: Connection, rid: int, record: RunRecord) -> None:
        f, o = sch.memo_findings, sch.memo_opportunities
        for r in conn.execute(select(f).where(f.c.run_id == rid).order_by(f.c.seq)).mappings():
            data = {k: v for k, v in r.items() if k not in ("run_id", "seq", "nearest_text")}
            if r.get("nearest_text") is not None:
                data["nearest_value"] = r["nearest_text"]
            finding = self._row_or_skip(MemoFindingRow, data, f"finding {r['seq']} of run {rid}")
            if finding is not None:
                record.findings.append(finding)
        query = select(o).where(o.c.run_id == rid).order_by(o.c.opportunity_id)
        for r in conn.execute(query).mappings():
            data = {k: v for k, v in r.items() if k != "run_id"}
            what = f"opportunity {r['opportunity_id']} of run {rid}"
            opportunity = self._row_or_skip(MemoOpportunityRow, data, what)
            if opportunity is not None:
                record.opportunities.append(opportunity)

    def _read_scenario_detail(
        self, conn: Connection, rid: int, detail_sha: str | None, record: RunRecord
    ) -> None:
        s = sch.scenario_results
        rows = list(conn.execute(select(s).where(s.c.run_id == rid).order_by(s.c.seq)).mappings())
        wanted = {r["response_sha256"] for r in rows if r["response_sha256"]}
        if detail_sha:
            wanted.add(detail_sha)
        blobs = self._get_blobs(conn, wanted)
        items: list[Any] = []
        if detail_sha:
            try:
                items = json.loads(blobs[detail_sha])["results"]
                if not isinstance(items, list):
                    raise ValueError("not a list")
            except (KeyError, ValueError, TypeError) as exc:
                self._skip(f"the verdict detail of run {rid} is unreadable ({exc}); shown without")
                items = []
        for r in rows:
            what = f"scenario {r['seq']} of run {rid}"
            try:
                if detail_sha:  # version 3: the row holds what SQL aggregates, the blob the rest
                    seq = int(r["seq"])
                    item = items[seq] if 0 <= seq < len(items) else {}
                    if not isinstance(item, dict):
                        raise TypeError("detail is not an object")
                    extra = {k: item.get(k) for k in _ROW_FIELDS_IN_BLOB}
                    detail = {k: item[k] for k in SCENARIO_DETAIL_KEYS if k in item}
                else:
                    extra = {k: r[k] for k in _ROW_FIELDS_IN_BLOB}
                    detail = json.loads(r["detail_json"] or "{}")
                response = r["response"]
                if r["response_sha256"]:
                    response = blobs[r["response_sha256"]].decode("utf-8", "surrogatepass")
            except (KeyError, ValueError, TypeError) as exc:
                self._skip(f"skipped {what}: {type(exc).__name__} {exc}")
                continue
            data = {
                "name": r["name"],
                "tier": r["tier"],
                "status": r["status"],
                "response": response,
                "detail": detail,
                **extra,
            }
            result = self._row_or_skip(ScenarioResultRow, data, what)
            if result is not None:
                record.results.append(result)

    def _get_blobs(self, conn: Connection, shas: Iterable[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        packed = self._fetch_blobs(conn, shas)
        dict_shas = {
            codec[len(_ZDICT) :] for codec, _ in packed.values() if codec.startswith(_ZDICT)
        }
        dictionaries = self._fetch_dictionaries(conn, dict_shas)
        for sha, (codec, data) in packed.items():
            try:
                if codec == "zlib":
                    out[sha] = zlib.decompress(data)
                elif codec == "xz":
                    out[sha] = lzma.decompress(data)
                elif codec.startswith(_ZDICT):
                    unpacker = zlib.decompressobj(zdict=dictionaries[codec[len(_ZDICT) :]])
                    out[sha] = unpacker.decompress(data) + unpacker.flush()
                else:
                    out[sha] = bytes(data)
            except (zlib.error, lzma.LZMAError, KeyError) as exc:
                self._skip(f"blob {sha[:12]} is unreadable ({type(exc).__name__} {exc})")
        return out

    @staticmethod
    def _fetch_dictionaries(conn: Connection, refs: Iterable[str]) -> dict[str, bytes]:
        """The preset dictionaries by their sha256 prefix (see :data:`_ZDICT`)."""
        b = sch.blobs
        out: dict[str, bytes] = {}
        for ref in refs:
            query = select(b.c.sha256, b.c.data).where(
                b.c.codec == "dict", b.c.sha256.like(ref + "%")
            )
            for sha, data in conn.execute(query):
                out[sha[:_DICT_REF]] = bytes(data)
        return out

    @staticmethod
    def _fetch_blobs(conn: Connection, shas: Iterable[str]) -> dict[str, tuple[str, bytes]]:
        wanted = list(shas)
        b = sch.blobs
        out: dict[str, tuple[str, bytes]] = {}
        for i in range(0, len(wanted), _CHUNK):
            query = select(b.c.sha256, b.c.codec, b.c.data).where(
                b.c.sha256.in_(wanted[i : i + _CHUNK])
            )
            for sha, codec, data in conn.execute(query):
                out[sha] = (codec, data)
        return out

    def _tiers(self, conn: Connection, rid: int) -> list[TierCount]:
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
            rate = n / ran_n if ran_n else 0.0  # errors left out, as in the report
            out.append(TierCount(tier=r["tier"], total=total, passed=n, pass_rate=rate))
        return out

    def _skip(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s", message)

    def _summary_or_skip(self, row: Any) -> RunSummary | None:
        data = {k: v for k, v in row.items() if k in _SUMMARY_FIELDS}
        try:
            scores = json.loads(row["scores_json"] or "{}")
            data["scores"] = scores if isinstance(scores, dict) else {}
            data["infra_error"] = bool(row.get("infra_error") or 0)
            return RunSummary(**data)
        except (ValueError, TypeError) as exc:  # ValidationError is a ValueError
            reason = _reason(exc)
            self._skip(f"skipped run {row.get('id')}: its row is corrupt ({reason})")
            return None

    def _row_or_skip(self, model: Any, data: dict[str, Any], what: str) -> Any:
        try:
            return model(**data)
        except (ValueError, TypeError) as exc:
            self._skip(f"skipped {what}: corrupt row ({_reason(exc)})")
            return None

    def resolve(self, ref: int | str, kind: RunKind | None = None) -> int:
        """Turn a run reference into an id: ``12``, ``latest``, ``latest~1`` (the one before),
        or a uid / uid prefix of at least 6 characters. Anything else is a
        :class:`~pe_eval_core.errors.RunReferenceError` naming the reference.

        ``latest`` / ``latest~N`` skip infrastructure-error runs when ``kind`` is given (a
        comparison or gate wants runs that ran)."""
        parsed = parse_run_reference(ref)
        r = sch.runs
        if not self.exists():
            raise RunNotFoundError(f"no run {parsed[1]!r}: nothing recorded in {self.location}")
        with self._read() as conn:
            how, value = parsed
            if how == "id":
                row = conn.execute(select(r.c.id, r.c.kind).where(r.c.id == value)).first()
            elif how == "latest":
                query = select(r.c.id, r.c.kind)
                if kind:
                    query = query.where(r.c.kind == kind, r.c.infra_error == 0)
                query = query.order_by(r.c.created_at.desc(), r.c.id.desc())
                row = conn.execute(query.limit(1).offset(int(value))).first()
            else:
                text = str(value)
                row = conn.execute(select(r.c.id, r.c.kind).where(r.c.uid == text)).first()
                if row is None:
                    pattern = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                    rows = conn.execute(
                        select(r.c.id, r.c.kind)
                        .where(r.c.uid.like(pattern + "%", escape="\\"))
                        .limit(2)
                    ).all()
                    if len(rows) > 1:
                        raise RunNotFoundError(f"run reference {text!r} is ambiguous")
                    row = rows[0] if rows else None
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
        r = sch.runs
        cols = [r.c.id, r.c.created_at, r.c.portco_id, r.c.audience, r.c.memo_path]
        cols += [r.c[d] for d in MEMO_DIMENSIONS]
        query = (
            select(*cols)
            .where(*_where(filters), r.c.infra_error == 0)
            .order_by(r.c.created_at, r.c.id)
        )
        with self._read() as conn:
            rows = [dict(row) for row in conn.execute(query).mappings()]
        for row in rows:
            row["series"] = memo_series(row["memo_path"], row["portco_id"], row["audience"])
        return rows

    def tier_trend(self, filters: RunFilters | None = None) -> list[dict[str, Any]]:
        """Pass rate per tier per scenario run over time, oldest first (infrastructure-error
        runs left out: nothing in them ran)."""
        base = (filters or RunFilters()).model_copy(update={"kind": "scenarios"})
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
            .where(*_where(base), r.c.infra_error == 0, s.c.status.in_(("pass", "fail")))
            .group_by(r.c.id, r.c.created_at, r.c.scenarios_path, r.c.target, r.c.model, tier)
            .order_by(r.c.created_at, r.c.id, tier)
        )
        with self._read() as conn:
            rows = [dict(row) for row in conn.execute(query).mappings()]
        for row in rows:
            row["passed"] = int(row["passed"] or 0)
            row["pass_rate"] = row["passed"] / row["total"]
        return rows


_FILTER_COLUMNS = (
    "kind",
    "portco_id",
    "audience",
    "memo_path",
    "scenarios_path",
    "target",
    "model",
)
_ROW_FIELDS_IN_BLOB = ("platform", "source_fact", "latency_ms", "error")
"""Verdict fields a version-3 row leaves to the run's detail blob (SQL never needs them)."""
_BLOB_FIELDS: set[str] = {*SCENARIO_DETAIL_KEYS, *_ROW_FIELDS_IN_BLOB}
_BLOB_INCLUDE: dict[str, Any] = {"results": {"__all__": _BLOB_FIELDS}}
_ZDICT = "zd:"
"""Codec prefix of a blob compressed against a preset dictionary; the first
:data:`_DICT_REF` hex digits of the dictionary's sha256 follow (a handful of dictionaries
per database, so the prefix is unique; it keeps each small blob's row small)."""
_DICT_REF = 16
DICTIONARY_BYTES = 8192
"""Preset dictionary size: most of the gain of a 32 KB one at a third of its cost."""
MIN_SHARED = 16
"""Fewer new responses than this are compressed on their own."""


def _dictionary(texts: list[bytes]) -> bytes | None:
    """A preset dictionary sampled evenly from ``texts`` (zlib favours its end), or None."""
    if len(texts) < MIN_SHARED:
        return None
    step = max(1, len(texts) // 64)
    sample = b"".join(texts[::step])
    return sample[-DICTIONARY_BYTES:] if len(sample) >= 1024 else None


_SUMMARY_FIELDS = frozenset(RunSummary.model_fields) - {"scores", "infra_error"}

_REF_ID = re.compile(r"[0-9]{1,18}", re.ASCII)
_REF_LATEST = re.compile(r"latest(?:~([0-9]{1,9}))?", re.ASCII)
_REF_UID = re.compile(r"[A-Za-z0-9][\w.:+-]{5,199}", re.ASCII)


def parse_run_reference(ref: object) -> tuple[str, int | str]:
    """A run reference as ``("id", N)``, ``("latest", back)`` or ``("uid", text)``; anything
    else (``abc``, ``1e3``, ``-1``, ``²``, an id of 19+ digits) raises RunReferenceError.

    >>> parse_run_reference("12"), parse_run_reference("latest~2"), parse_run_reference(7)
    (('id', 12), ('latest', 2), ('id', 7))
    >>> parse_run_reference("1e3")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.RunReferenceError: bad run reference '1e3' (That is not a run ...
    """
    if isinstance(ref, bool) or not isinstance(ref, int | str):
        raise RunReferenceError(f"bad run reference {ref!r}")
    if isinstance(ref, int):
        if ref < 1:
            raise RunReferenceError(f"bad run reference {ref!r}: run ids start at 1")
        return ("id", ref)
    text = ref.strip()
    if _REF_ID.fullmatch(text):
        if int(text) < 1:
            raise RunReferenceError(f"bad run reference {text!r}: run ids start at 1")
        return ("id", int(text))
    if text.isascii() and text.isdigit():
        raise RunReferenceError(f"bad run reference {text[:30]!r}: no run id is that large")
    latest = _REF_LATEST.fullmatch(text)
    if latest:
        return ("latest", int(latest.group(1) or 0))
    if text.startswith("latest"):
        raise RunReferenceError(f"bad run reference {text!r} (use latest~N)")
    if _REF_UID.fullmatch(text):
        return ("uid", text)
    raise RunReferenceError(f"bad run reference {text[:60]!r}")


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


def _lookup(conn: Connection, key_col: Any, value_col: Any, keys: Sequence[Any]) -> dict[Any, int]:
    """``{key: value}`` for the given keys that are in the table (None keys skipped)."""
    wanted = sorted({k for k in keys if k is not None})
    out: dict[Any, int] = {}
    for i in range(0, len(wanted), _CHUNK):
        query = select(key_col, value_col).where(key_col.in_(wanted[i : i + _CHUNK]))
        out.update({k: int(v) for k, v in conn.execute(query)})
    return out


def _finding_rows(run_id: int, record: RunRecord) -> list[dict[str, Any]]:
    return [
        {
            "run_id": run_id,
            "seq": seq,
            "kind": text_safe(f.kind),
            "opportunity_id": text_safe(f.opportunity_id),
            "field": text_safe(f.field),
            "start": f.start,
            "end": f.end,
            "raw": text_safe(f.raw),
            "message": text_safe(f.message),
            "nearest_value": f.nearest_value if isinstance(f.nearest_value, int | float) else None,
            "nearest_text": text_safe(f.nearest_value)
            if isinstance(f.nearest_value, str)
            else None,
            "nearest_path": text_safe(f.nearest_path),
            "other_opportunity_id": text_safe(f.other_opportunity_id),
        }
        for seq, f in enumerate(record.findings)
    ]


def _opportunity_rows(run_id: int, record: RunRecord) -> list[dict[str, Any]]:
    opportunities = {o.opportunity_id: o for o in record.opportunities}  # last one wins
    return [
        {
            "run_id": run_id,
            "opportunity_id": text_safe(o.opportunity_id),
            "archetype": text_safe(o.archetype),
            "cohort": text_safe(o.cohort),
            "in_source": _int(o.in_source),
            "addressed": _int(o.addressed),
            "figures_total": o.figures_total,
            "figures_cited": o.figures_cited,
            "entities_total": o.entities_total,
            "entities_grounded": o.entities_grounded,
            "n_findings": o.n_findings,
        }
        for o in opportunities.values()
    ]


def _insert_run(conn: Connection, values: dict[str, Any]) -> int:
    key = conn.execute(insert(sch.runs).values(values)).inserted_primary_key
    assert key is not None
    return int(key[0])


def _int(flag: bool | None) -> int | None:
    return None if flag is None else int(flag)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "row"
        return f"{where}: {first.get('msg')}"
    return f"{type(exc).__name__}: {exc}"


def _where(filters: RunFilters) -> list[Any]:
    r = sch.runs
    clauses: list[Any] = []
    for col in _FILTER_COLUMNS:
        value = getattr(filters, col)
        if col in ("scenarios_path", "memo_path") and value is not None:
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


# --- module-level conveniences for the CLI, dashboard and MCP server ------------------------


def _as_record(result: MemoEvaluation | ScenarioRun, origin: str) -> RunRecord | None:
    """The record for a memo evaluation, None for a scenario run (recorded without one), told
    apart by their classes.

    The classes are looked up among the loaded modules: an instance exists only if its module
    was imported, and importing the other domain here would slow every command that records.
    """
    scenarios = sys.modules.get("pe_eval_core.scenarios.models")
    if scenarios is not None and isinstance(result, scenarios.ScenarioRun):
        return None
    memo = sys.modules.get("pe_eval_core.memo.result")
    if memo is not None and isinstance(result, memo.MemoEvaluation):
        return memo_record(result, origin=origin)
    raise TypeError(f"cannot record {type(result).__name__}: not a MemoEvaluation or ScenarioRun")


def _recording_off() -> bool:
    return os.environ.get(NO_HISTORY_ENV, "").strip() not in ("", "0")


def record_or_warn(
    result: MemoEvaluation | ScenarioRun, *, origin: str, db: str | os.PathLike[str] | None = None
) -> int | None:
    """Record a ``MemoEvaluation`` or ``ScenarioRun`` without ever failing the caller.

    For surfaces whose job is the evaluation itself: a history problem becomes a one-line
    warning on stderr and ``None``. ``PE_EVAL_NO_HISTORY=1`` turns recording off. ``db`` is a
    file path or a database URL (default: ``$PE_EVAL_DATABASE_URL``, else the default file).
    """
    if _recording_off():
        return None
    record = _as_record(result, origin)
    try:
        store = RunStore(db)
        if record is None:
            return store.record_scenario_run(result, origin=origin)  # type: ignore[arg-type]
        return store.record(record)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: run not recorded in history: {exc}", file=sys.stderr)
        return None


def record_many_or_warn(
    evaluations: Sequence[MemoEvaluation],
    *,
    origin: str,
    db: str | os.PathLike[str] | None = None,
) -> list[int] | None:
    """Record a batch of memo gradings in one transaction, never failing the caller."""
    if _recording_off() or not evaluations:
        return None
    try:
        return RunStore(db).record_memo_evaluations(evaluations, origin=origin)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: runs not recorded in history: {exc}", file=sys.stderr)
        return None
