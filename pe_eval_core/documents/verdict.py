"""The verdict on one graded document (exit proof pack, DDQ response, red flags): *Ready to
circulate* or *Not ready: N issues*, by the memo's one rule
(:func:`pe_eval_core.memo.verdict.decide_verdict`) under the same
:class:`~pe_eval_core.memo.verdict.VerdictThresholds` (default: the pass band, perfect scores
and no mis-attribution).

The findings behind a dimension are the counted findings of that dimension
(``results.FINDING_DIMENSION``) except the mis-attributions, which keep their unit good (cited,
grounded) and are counted against ``max_misattributed`` instead, as in the memo. Every surface
(``pe-eval doc`` text, ``--json`` and exit status, ``memo --all``, the HTML scorecard, the JSON
sidecar, the gate, the MCP tool ``eval_document``, the dashboard's Document page and Portfolio)
calls :func:`document_verdict`, so they agree.
"""

from __future__ import annotations

from pe_eval_core.documents.results import STILL_COUNTED_OK, DocFinding, DocumentEvaluation
from pe_eval_core.documents.summary import KIND_LABELS
from pe_eval_core.memo.verdict import (
    Verdict,
    VerdictThresholds,
    decide_verdict,
    verdict_lines,
)

__all__ = [
    "Verdict",
    "VerdictThresholds",
    "document_verdict",
    "issue_sentence",
    "verdict_lines",
]


def issue_sentence(f: DocFinding) -> str:
    """One finding as the issue a reader acts on: what it is, then the grader's sentence.

    >>> from pe_eval_core.documents.results import DocFindingKind
    >>> issue_sentence(DocFinding(kind=DocFindingKind.COUNT_MISMATCH,
    ...     dimension="consistency", message="summary total states 3, the flags are 2"))
    'Stated count disagrees: summary total states 3, the flags are 2'
    """
    return f"{KIND_LABELS[f.kind]}: {f.message}"


def document_verdict(
    ev: DocumentEvaluation, thresholds: VerdictThresholds | None = None
) -> Verdict:
    """Ready only when every dimension meets ``thresholds`` (None: the pass band) and the
    mis-attributed figures and names are within bound; the issues are the findings behind
    each failing dimension, then the mis-attributions."""
    counted = ev.counted_findings()
    return decide_verdict(
        ev.scores.model_dump(),
        lambda dim: [
            issue_sentence(f)
            for f in counted
            if f.dimension == dim and f.kind not in STILL_COUNTED_OK
        ],
        [(f.raw, issue_sentence(f)) for f in counted if f.kind in STILL_COUNTED_OK],
        thresholds,
    )
