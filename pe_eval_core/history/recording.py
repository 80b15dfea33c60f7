"""Recording a result from a surface (CLI, dashboard, MCP server) without ever failing it."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pe_eval_core.errors import PeEvalError
from pe_eval_core.history.records import RunRecord, memo_record

if TYPE_CHECKING:
    from pe_eval_core.documents.results import DocumentEvaluation
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun

NO_HISTORY_ENV = "PE_EVAL_NO_HISTORY"


def _as_record(
    result: MemoEvaluation | DocumentEvaluation | ScenarioRun, origin: str
) -> RunRecord | None:
    """The record for a memo or other document's evaluation, None for a scenario run (recorded
    without one), told apart by their classes.

    The classes are looked up among the loaded modules: an instance exists only if its module
    was imported, and importing the other domain here would slow every command that records.
    """
    scenarios = sys.modules.get("pe_eval_core.scenarios.models")
    if scenarios is not None and isinstance(result, scenarios.ScenarioRun):
        return None
    memo = sys.modules.get("pe_eval_core.memo.result")
    if memo is not None and isinstance(result, memo.MemoEvaluation):
        return memo_record(result, origin=origin)
    documents = sys.modules.get("pe_eval_core.documents.results")
    if documents is not None and isinstance(result, documents.DocumentEvaluation):
        from pe_eval_core.history.document_records import document_record

        return document_record(result, origin=origin)
    raise TypeError(
        f"cannot record {type(result).__name__}: not a MemoEvaluation, DocumentEvaluation "
        "or ScenarioRun"
    )


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
    from pe_eval_core.history.store import RunStore  # the store imports this module

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
    from pe_eval_core.history.store import RunStore

    try:
        return RunStore(db).record_memo_evaluations(evaluations, origin=origin)
    except (PeEvalError, OSError, sqlite3.Error) as exc:
        print(f"warning: runs not recorded in history: {exc}", file=sys.stderr)
        return None
