"""Memo grading: score an AI-written PE memo against its DX OpportunityMap on four dimensions.

The public API lives here; the modules behind it are implementation detail. Names are
imported on first use (PEP 562), so ``import pe_eval_core.memo.config`` (or a command's
``--help``) does not load the grader, its patterns and every model with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from pe_eval_core.memo.scorecard import render_scorecard_html
    from pe_eval_core.memo.verdict import VerdictThresholds
    from pe_eval_core.wording import DIMENSIONS

_EXPORTS = {
    "DEFAULT_SECTION_MARKERS": "config",
    "DEFAULT_TEMPLATE_CONSTANTS": "config",
    "GRADER_VERSION": "config",
    "GraderConfig": "config",
    "TemplateConstant": "config",
    "lowest_dimension": "explain",
    "grade_memo": "grader",
    "ExplainedOpportunity": "models",
    "MemoSidecar": "models",
    "OpportunityMap": "models",
    "SourceOpportunity": "models",
    "memo_json_schema": "models",
    "source_json_schema": "models",
    "eval_pe_output": "outputs",
    "evaluation_to_json": "outputs",
    "findings_to_csv": "outputs",
    "load_evaluation": "outputs",
    "output_paths": "outputs",
    "with_verdict": "outputs",
    "write_outputs": "outputs",
    "MemoPair": "pairs",
    "find_memo_pairs": "pairs",
    "resolve_pair": "pairs",
    "ConsistencyDetail": "result",
    "Finding": "result",
    "FindingKind": "result",
    "Mark": "result",
    "MemoEvaluation": "result",
    "OpportunityRow": "result",
    "ProseBlock": "result",
    "Scores": "result",
    "SeedResult": "result",
    "SiblingHeadline": "result",
    "Totals": "result",
    "render_scorecard_html": "scorecard",
    "VerdictThresholds": "verdict",
}
"""Public name -> the module of ``pe_eval_core.memo`` defining it."""


def __getattr__(name: str) -> Any:
    if name == "DIMENSIONS":
        from pe_eval_core.wording import DIMENSIONS

        return DIMENSIONS
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pe_eval_core.memo' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"pe_eval_core.memo.{module}"), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


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
    "VerdictThresholds",
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
