"""The gate over a folder's other documents (exit proof packs, DDQ responses, red flags): each
checked by its verdict (:func:`pe_eval_core.documents.verdict.document_verdict`, the memo's
rule under the same thresholds), one check line per dimension and one for mis-attributions,
its verdict headline listed after the memos', and the gradings recorded with the memos'."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pe_eval_core.errors import PeEvalError

if TYPE_CHECKING:
    from pe_eval_core.history.gate import GateResult
    from pe_eval_core.history.store import RunStore
    from pe_eval_core.memo.verdict import VerdictThresholds


def gate_documents(
    result: GateResult,
    data_dir: str | os.PathLike[str],
    thresholds: VerdictThresholds,
    *,
    store: RunStore | None = None,
    write_reports: bool = False,
) -> int:
    """Grade every non-memo document of ``data_dir`` and check it by its verdict; return how
    many documents were found (graded or not)."""
    from pe_eval_core.documents import (
        document_verdict,
        find_documents,
        grade_document,
        write_document_outputs,
    )
    from pe_eval_core.history.document_records import document_record
    from pe_eval_core.history.gate import _memo_checks
    from pe_eval_core.history.gate_result import MemoGateVerdict

    try:
        found = [(k, p) for k, p in find_documents(Path(data_dir)) if k.value != "memo"]
    except PeEvalError as err:
        result.add_problem(str(data_dir), err)
        return 0
    for kind, path in found:
        name = f"{kind.value}/{path.stem}"
        try:
            ev = grade_document(path)
            if write_reports:
                write_document_outputs(ev, thresholds=thresholds)
        except PeEvalError as err:
            result.add_problem(name, err)
            continue
        verdict = document_verdict(ev, thresholds)
        result.checks += _memo_checks(name, ev, verdict)
        result.documents.append(MemoGateVerdict.of(name, verdict.summary(ev)))
        if store is not None:
            result.recorded_run_ids.append(store.record(document_record(ev, origin="gate")))
    return len(found)
