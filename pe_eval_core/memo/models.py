"""Input models: the DX OpportunityMap (both opportunity shapes) and the explain_* memo sidecar.

Both come from other tools, so they are loaded tolerantly: unknown keys are kept (they still
feed the numeric universe), ids may be numbers, prose may be null. What the grader cannot do
without is required, so a missing piece is reported by name instead of failing later.
Numbers must be finite: NaN, Infinity and values beyond float range are refused by field
(``allow_inf_nan=False``; undeclared keys are checked by ``loading``), because a non-finite
value would make every comparison with it meaningless.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

_INPUT_CONFIG = ConfigDict(extra="allow", allow_inf_nan=False)
"""Unknown keys kept (they feed the numeric universe); declared floats must be finite."""
_NESTED_CONFIG = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)
"""The same, for the models read only inside another (an opportunity inside its map or memo):
their own validator is built on first direct use, not at import (start-up: a memo run
validates them only through their parent's validator, which builds their schema inline)."""


def _id_to_str(value: Any) -> Any:
    """Ids are compared as text; producers sometimes write them as numbers."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value.strip()
    return value


class SourceOpportunity(BaseModel):
    """One opportunity of the OpportunityMap (Shape A batch builders or Shape B pipeline)."""

    model_config = _NESTED_CONFIG

    id: str
    archetype: str | None = None
    decision_cols: list[str] = Field(default_factory=list)
    segment: dict[str, Any] = Field(default_factory=dict)
    n: float | None = None
    # Shape A
    outcome_total_usd_annual: float | None = None
    outcome_mean_usd: float | None = None
    # Shape B
    current_outcome_usd_annual: float | None = None
    projected_outcome_usd_annual: float | None = None
    recommendation: str | None = None
    time_to_implement_weeks: float | None = None
    # both
    persistence_score: float | None = None
    persistence_quarters_out_of_total: list[float] | None = None
    difficulty_score_1_to_5: float | None = None
    projected_impact_usd_annual: float | None = None
    projected_action: str | None = None
    evidence_row_ids: list[int | str] = Field(default_factory=list)
    narrative_board: str | None = None
    narrative_operator: str | None = None

    _norm_id = field_validator("id", mode="before")(_id_to_str)

    @property
    def cohort(self) -> str:
        """Segment values joined the way producers print the cohort label."""
        return " × ".join(str(v) for v in self.segment.values())


class OpportunityMap(BaseModel):
    """The DX report ``dx_report_<portco>.json``: the source of truth a memo is graded against."""

    model_config = _INPUT_CONFIG

    portco_id: str
    vertical: str | None = None
    ebitda_baseline_usd: float | None = None
    as_of: str | None = None
    opportunities: list[SourceOpportunity]
    total_projected_impact_usd_annual: float | None = None


class ExplainedOpportunity(BaseModel):
    """One opportunity as the memo explains it: id, labels and markdown prose blocks."""

    model_config = _NESTED_CONFIG

    id: str
    archetype: str | None = None
    segment: dict[str, Any] = Field(default_factory=dict)
    narrative: str | None = None
    counterfactual: str | None = None
    risk_of_inaction: str | None = None
    rollout: str | None = None

    _norm_id = field_validator("id", mode="before")(_id_to_str)

    def prose(self, field: str) -> str:
        """The text of a prose block ('' when missing or null)."""
        value = getattr(self, field, None)
        if value is None and self.model_extra:
            value = self.model_extra.get(field)
        return value if isinstance(value, str) else ""

    @property
    def cohort(self) -> str:
        return " × ".join(str(v) for v in self.segment.values())


class MemoSidecar(BaseModel):
    """The memo sidecar ``explain_<portco>_<audience>.json`` written by the explainer."""

    model_config = _INPUT_CONFIG

    portco_id: str
    audience: str
    as_of: str | None = None
    total_projected_impact_usd_annual: float
    """The memo's headline, compared with the source total and sibling memos."""
    vertical: str | None = None
    ebitda_baseline_usd: float | None = None
    opportunities_explained: list[ExplainedOpportunity]
    source_opportunity_map: str | None = None


def source_json_schema() -> dict[str, Any]:
    """JSON Schema of the OpportunityMap as the grader reads it."""
    return OpportunityMap.model_json_schema()


def memo_json_schema() -> dict[str, Any]:
    """JSON Schema of the memo sidecar as the grader reads it."""
    return MemoSidecar.model_json_schema()
