"""The gate over a folder's other documents (exit proof packs, DDQ responses, red flags): the
memo thresholds applied to each, one check per document and dimension, and the gradings
recorded with the memos'."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pe_eval_core.errors import PeEvalError
from pe_eval_core.wording import DIMENSIONS

if TYPE_CHECKING:
    from pe_eval_core.history.gate import GateResult
    from pe_eval_core.history.store import RunStore


def gate_documents(
    result: GateResult,
    data_dir: str | os.PathLike[str],
    thresholds: dict[str, float],
    *,
    store: RunStore | None = None,
    write_reports: bool = False,
) -> None:
    """Grade every non-memo document of ``data_dir`` and check it like a memo."""
    from pe_eval_core.documents import find_documents, grade_document, write_document_outputs
    from pe_eval_core.history.document_records import document_record
    from pe_eval_core.history.gate import _memo_check

    try:
        found = [(k, p) for k, p in find_documents(Path(data_dir)) if k.value != "memo"]
    except PeEvalError as err:
        result.add_problem(str(data_dir), err)
        return
    for kind, path in found:
        name = f"{kind.value}/{path.stem}"
        try:
            ev = grade_document(path)
            if write_reports:
                write_document_outputs(ev)
        except PeEvalError as err:
            result.add_problem(name, err)
            continue
        for dim in DIMENSIONS:
            if dim in thresholds:
                check = _memo_check(name, dim, float(getattr(ev.scores, dim)), thresholds[dim])
                check.detail = f"({ev.score_context(dim)})"
                result.checks.append(check)
        if store is not None:
            result.recorded_run_ids.append(store.record(document_record(ev, origin="gate")))
