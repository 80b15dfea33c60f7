"""Memo grading: score an AI-written PE memo against its DX OpportunityMap on four dimensions.

The public API lives here; the modules behind it are implementation detail.
"""

from pe_eval_core.memo.config import (
    DEFAULT_SECTION_MARKERS,
    DEFAULT_TEMPLATE_CONSTANTS,
    GRADER_VERSION,
    GraderConfig,
    TemplateConstant,
)
from pe_eval_core.memo.explain import lowest_dimension
from pe_eval_core.memo.grader import grade_memo
from pe_eval_core.memo.models import (
    ExplainedOpportunity,
    MemoSidecar,
    OpportunityMap,
    SourceOpportunity,
    memo_json_schema,
    source_json_schema,
)
from pe_eval_core.memo.outputs import (
    eval_pe_output,
    evaluation_to_json,
    findings_to_csv,
    load_evaluation,
    output_paths,
    with_verdict,
    write_outputs,
)
from pe_eval_core.memo.pairs import MemoPair, find_memo_pairs, resolve_pair
from pe_eval_core.memo.result import (
    ConsistencyDetail,
    Finding,
    FindingKind,
    Mark,
    MemoEvaluation,
    OpportunityRow,
    ProseBlock,
    Scores,
    SeedResult,
    SiblingHeadline,
    Totals,
)
from pe_eval_core.memo.verdict import VerdictThresholds
from pe_eval_core.wording import DIMENSIONS


def render_scorecard_html(
    evaluation: MemoEvaluation, thresholds: VerdictThresholds | None = None
) -> str:
    """The self-contained HTML scorecard for an evaluation, its verdict under ``thresholds``
    (None: the pass band); jinja2 is imported only when a page is rendered."""
    from pe_eval_core.memo.scorecard import render_scorecard_html as _render

    return _render(evaluation, thresholds)


__all__ = [
    "DEFAULT_SECTION_MARKERS",
    "DEFAULT_TEMPLATE_CONSTANTS",
    "DIMENSIONS",
    "GRADER_VERSION",
    "ConsistencyDetail",
    "ExplainedOpportunity",
    "Finding",
    "FindingKind",
    "GraderConfig",
    "Mark",
    "MemoEvaluation",
    "MemoPair",
    "MemoSidecar",
    "OpportunityMap",
    "OpportunityRow",
    "ProseBlock",
    "Scores",
    "SeedResult",
    "SiblingHeadline",
    "SourceOpportunity",
    "TemplateConstant",
    "Totals",
    "eval_pe_output",
    "evaluation_to_json",
    "find_memo_pairs",
    "findings_to_csv",
    "grade_memo",
    "load_evaluation",
    "lowest_dimension",
    "memo_json_schema",
    "output_paths",
    "render_scorecard_html",
    "resolve_pair",
    "source_json_schema",
    "with_verdict",
    "write_outputs",
]
