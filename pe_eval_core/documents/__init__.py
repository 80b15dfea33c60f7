"""Grading the producer's other PE documents (exit proof packs, DDQ responses, 10-K/CIM red
flags) on the memo's four dimensions: citation accuracy, hallucination rate, coverage and
consistency. One grader per kind on one shared core (``core``: checks, findings, scores).

The public API lives here; the modules behind it are implementation detail.
"""

from pe_eval_core.documents.api import (
    GRADERS,
    document_kind,
    eval_document,
    find_documents,
    grade_document,
)
from pe_eval_core.documents.outputs import (
    evaluation_to_json,
    load_document_evaluation,
    output_paths,
    with_verdict,
    write_document_outputs,
)
from pe_eval_core.documents.results import (
    KIND_TITLES,
    Check,
    DocFinding,
    DocFindingKind,
    DocumentEvaluation,
    DocumentKind,
)
from pe_eval_core.documents.summary import KIND_LABELS, lowest_dimension
from pe_eval_core.documents.verdict import document_verdict

__all__ = [
    "GRADERS",
    "KIND_LABELS",
    "KIND_TITLES",
    "Check",
    "DocFinding",
    "DocFindingKind",
    "DocumentEvaluation",
    "DocumentKind",
    "document_kind",
    "document_verdict",
    "eval_document",
    "evaluation_to_json",
    "find_documents",
    "grade_document",
    "load_document_evaluation",
    "lowest_dimension",
    "output_paths",
    "with_verdict",
    "write_document_outputs",
]
