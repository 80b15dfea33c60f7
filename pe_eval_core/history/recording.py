"""Recording a result from a surface (CLI, dashboard, MCP server) without ever failing it.

Memo gradings bound for a SQLite file are written with the standard library's ``sqlite3``
(``pe_eval_core.db.lite``, the same schema and rows): the memo command records one run, and
SQLAlchemy alone would cost it more CPU than the grading. Scenario runs, other documents,
PostgreSQL, and a SQLite file that needs a migration go through the full store (``RunStore``).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pe_eval_core.errors import HistoryError, PeEvalError

if TYPE_CHECKING:
    from pe_eval_core.documents.results import DocumentEvaluation
    from pe_eval_core.history.memo_rows import MemoRows
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun

NO_HISTORY_ENV = "PE_EVAL_NO_HISTORY"


def _kind(result: MemoEvaluation | DocumentEvaluation | ScenarioRun) -> str:
    """``memo``, ``document`` or ``scenarios``: what ``result`` is, told apart by its class.

    The classes are looked up among the loaded modules: an instance exists only if its module
    was imported, and importing the other domain here would slow every command that records.
    """
    scenarios = sys.modules.get("pe_eval_core.scenarios.models")
    if scenarios is not None and isinstance(result, scenarios.ScenarioRun):
        return "scenarios"
    memo = sys.modules.get("pe_eval_core.memo.result")
    if memo is not None and isinstance(result, memo.MemoEvaluation):
        return "memo"
    documents = sys.modules.get("pe_eval_core.documents.results")
    if documents is not None and isinstance(result, documents.DocumentEvaluation):
        return "document"
    raise TypeError(
        f"cannot record {type(result).__name__}: not a MemoEvaluation, DocumentEvaluation "
        "or ScenarioRun"
    )


def record_memos(
    evaluations: Sequence[MemoEvaluation],
    *,
    origin: str,
    db: str | os.PathLike[str] | None = None,
) -> list[int]:
    """Store memo gradings in one transaction; their run ids. A plain SQLite file is written
    with ``sqlite3`` (no SQLAlchemy); anything else through ``RunStore``. Raises the store's
    typed errors."""
    from pe_eval_core.history.memo_rows import memo_rows

    return record_memo_rows([memo_rows(e, origin=origin) for e in evaluations], db=db)


def record_memo_rows(
    batch: Sequence[MemoRows], *, db: str | os.PathLike[str] | None = None
) -> list[int]:
    """``record_memos`` for gradings already turned into rows (``history.memo_rows``), as a
    batch's workers send them back."""
    from pe_eval_core.db import lite
    from pe_eval_core.db.location import lock_timeout_s, plain_sqlite_file
    from pe_eval_core.history.memo_rows import insert_memo_rows

    if not batch:
        return []
    path = plain_sqlite_file(db)
    if path is not None:
        timeout = lock_timeout_s()
        for attempt in (1, 2):  # once more after a unique-key race with another writer
            try:
                with lite.write_transaction(path, timeout) as conn:
                    return insert_memo_rows(conn, batch)
            except lite.NeedsFullStore:
                break
            except sqlite3.IntegrityError as exc:
                if attempt == 2:
                    raise HistoryError(f"history database {path}: {exc}") from exc
    from pe_eval_core.history.records import memo_record_from_rows
    from pe_eval_core.history.store import RunStore

    return RunStore(db).record_many([memo_record_from_rows(rows) for rows in batch])


def _recording_off() -> bool:
    return os.environ.get(NO_HISTORY_ENV, "").strip() not in ("", "0")


def record_or_warn(
    result: MemoEvaluation | DocumentEvaluation | ScenarioRun,
    *,
    origin: str,
    db: str | os.PathLike[str] | None = None,
) -> int | None:
    """Record a ``MemoEvaluation``, ``DocumentEvaluation`` or ``ScenarioRun`` without ever
    failing the caller.

    For surfaces whose job is the evaluation itself: a history problem becomes a one-line
    warning on stderr and ``None``. ``PE_EVAL_NO_HISTORY=1`` turns recording off. ``db`` is a
    file path or a database URL (default: ``$PE_EVAL_DATABASE_URL``, else the default file).
    """
    if _recording_off():
        return None
    kind = _kind(result)
    try:
        if kind == "memo":
            return record_memos([result], origin=origin, db=db)[0]  # type: ignore[list-item]
        from pe_eval_core.history.store import RunStore  # the store imports this module

        if kind == "document":
            from pe_eval_core.history.document_records import document_record

            return RunStore(db).record(document_record(result, origin=origin))  # type: ignore[arg-type]
        return RunStore(db).record_scenario_run(result, origin=origin)  # type: ignore[arg-type]
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
        return record_memos(evaluations, origin=origin, db=db)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: runs not recorded in history: {exc}", file=sys.stderr)
        return None


def record_rows_or_warn(
    batch: Sequence[MemoRows], *, db: str | os.PathLike[str] | None = None
) -> list[int] | None:
    """``record_many_or_warn`` for gradings already turned into rows."""
    if _recording_off() or not batch:
        return None
    try:
        return record_memo_rows(batch, db=db)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: runs not recorded in history: {exc}", file=sys.stderr)
        return None
