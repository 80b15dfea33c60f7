"""The OpportunityMap's role table: which quantity each field of a ``dx_report`` holds.

One declared table (``docs/memo_rules.md`` prints it); a newcomer adds a producer's field with
``OPPORTUNITY_MAP_ROLES.extend(FieldRule(...))``. Keys no rule names keep role ``ANY``: they
still ground figures of their unit (from the key, as before), for any claim.

>>> r = OPPORTUNITY_MAP_ROLES.role_of
>>> [r(k).value for k in ("outcome_total_usd_annual", "current_outcome_usd_annual",
...     "projected_outcome_usd_annual", "projected_impact_usd_annual",
...     "total_projected_impact_usd_annual", "narrative_board", "recommendation")]
['loss', 'loss', 'projected_outcome', 'impact', 'total', 'prose', 'parameter']
>>> field_role("opportunities[0].narrative_operator"), field_role("opportunities[1] / 4", "derived")
(<Role.PROSE: 'prose'>, <Role.ANY: 'any'>)
"""

from __future__ import annotations

from functools import lru_cache

from pe_eval_core.grading.roles import FieldRule, Role, RoleTable

OPPORTUNITY_MAP_ROLES = RoleTable(
    "OpportunityMap",
    (
        FieldRule(
            r"narrative(?:_\w+)?|\w*_narrative|\w*_prose|commentary|notes?|memo|summary|rationale",
            Role.PROSE,
            "prose the producer wrote (its explainer prints it): not data",
        ),
        FieldRule(
            r"id|portco_id|evidence_row_ids|decision_cols|archetype|vertical|as_of|generated_at",
            Role.IDENTIFIER,
            "identifiers and names (the entity universe), never quantities",
        ),
        FieldRule(
            r"recommendation|projected_action|action|recommended_action",
            Role.PARAMETER,
            "the recommendation: the figures it states ground figures of their kind",
        ),
        FieldRule(r"segment", Role.LABEL, "segment values (`LTV 80-90%`): quoted figures ground"),
        FieldRule(
            r"total_\w*impact\w*|total_projected\w*",
            Role.TOTAL,
            "the portfolio total of impacts (the memo's headline)",
        ),
        FieldRule(
            r"outcome_total_usd_annual|current_outcome\w*|current_\w*_usd\w*|\w*loss\w*_usd\w*",
            Role.LOSS,
            "today's outcome (negative = a loss): 'loss', 'leakage', 'loses'",
        ),
        FieldRule(
            r"projected_outcome\w*", Role.PROJECTED, "the outcome after the action: 'improves to'"
        ),
        FieldRule(
            r"\w*impact\w*", Role.IMPACT, "the improvement: 'impact', 'recovering', 'uplift'"
        ),
        FieldRule(r"\w*ebitda\w*", Role.BASELINE, "the EBITDA baseline: 'EBITDA of', 'base'"),
        FieldRule(
            r"\w*_(?:mean|avg|average|median)(?:_\w+)?|\w*per_(?:loan|unit|account|row)\w*",
            Role.PER_UNIT,
            "a mean per row: 'per loan', 'the average loan'",
        ),
        FieldRule(r"\w*cost\w*|\w*spend\w*", Role.COST, "a cost: 'cost', 'spend'"),
        FieldRule(r"n|\w*_count|count|\w*_n", Role.COUNT, "rows in the cohort: '13,436 loans'"),
        FieldRule(r"\w*difficulty\w*", Role.DIFFICULTY, "'rated 4/5'"),
        FieldRule(r"\w*score\w*", Role.SCORE, "'persistence score of 0.80'"),
        FieldRule(
            r"persistence_quarters\w*|quarters(?:_\w+)?|\w+_quarters",
            Role.QUARTERS,
            "'5 of 5 quarters', 'across 8 quarters'",
        ),
        FieldRule(
            r"\w*_(?:weeks|days|months|years|hours)|time_to_\w+",
            Role.DURATION,
            "a time span: not a figure",
        ),
        FieldRule(r"\w*_(?:rate|share|ratio|pct|percent)", Role.RATE, "'default rate of 4.1%'"),
    ),
)
"""The roles of an OpportunityMap's fields (shape A and shape B), first match wins."""


@lru_cache(maxsize=8192)
def field_role(path: str, unit: str = "") -> Role:
    """The role of the source field at ``path``; a derivation's is in its unit
    (``derived:projected_outcome`` for loss + impact; plain ``derived``: none)."""
    if unit.startswith("derived"):
        return Role(unit[8:]) if unit.startswith("derived:") else Role.ANY
    return OPPORTUNITY_MAP_ROLES.role_of_path(path)
