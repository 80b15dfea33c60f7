"""Roles: what quantity a number claims, for source fields (one declared table) and for figures
in prose (from their wording).

A figure is grounded only by a field of its own role: "$0 of current annual loss" is a current
outcome, so a ``projected_outcome_usd_annual`` of 0 does not ground it. The OpportunityMap's
table is here because every document kind reads maps; each kind adds its own fields' roles in
its module.

>>> opp = {"id": "opp_01", "n": 5, "persistence_quarters_out_of_total": [3, 4]}
>>> for v in map_values({"opportunities": [opp]}):
...     print(v.path, v.role.value, v.value, v.derived or "")
opportunities[0].n count 5.0
opportunities[0].persistence_quarters_out_of_total[0] quarters_observed 3.0
opportunities[0].persistence_quarters_out_of_total[1] quarters_total 4.0
opportunities[0].persistence_quarters_out_of_total persistence 0.75 k / m quarters
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pe_eval_core.numbers import Figure, FigureKind


class Role(StrEnum):
    """The quantity a number stands for."""

    CURRENT_OUTCOME = "current_outcome"
    PROJECTED_OUTCOME = "projected_outcome"
    IMPACT = "impact"
    MEAN_OUTCOME = "mean_outcome"
    TOTAL = "total"
    BASELINE = "baseline"
    COUNT = "count"
    EVIDENCE_COUNT = "evidence_count"
    PERSISTENCE = "persistence"
    QUARTERS_OBSERVED = "quarters_observed"
    QUARTERS_TOTAL = "quarters_total"
    DIFFICULTY = "difficulty"
    WEEKS = "weeks"
    MULTIPLIER = "multiplier"
    SHARE = "share"
    RANK = "rank"
    RANK_TOTAL = "rank_total"
    PERCENTILE = "percentile"


MONEY_ROLES = frozenset(
    {
        Role.CURRENT_OUTCOME,
        Role.PROJECTED_OUTCOME,
        Role.IMPACT,
        Role.MEAN_OUTCOME,
        Role.TOTAL,
        Role.BASELINE,
    }
)

KIND_ROLES: dict[FigureKind, frozenset[Role]] = {
    FigureKind.USD: MONEY_ROLES,
    FigureKind.PERCENT: frozenset({Role.SHARE, Role.PERCENTILE, Role.MULTIPLIER}),
    FigureKind.COUNT: frozenset({Role.COUNT, Role.EVIDENCE_COUNT, Role.RANK, Role.RANK_TOTAL}),
    FigureKind.QUARTERS: frozenset({Role.QUARTERS_OBSERVED, Role.QUARTERS_TOTAL}),
    FigureKind.SCORE: frozenset({Role.PERSISTENCE}),
    FigureKind.DIFFICULTY: frozenset({Role.DIFFICULTY}),
}
"""Which roles a figure of each kind may claim."""


@dataclass(frozen=True, slots=True)
class SourceValue:
    """One number of a source, with the role its field has and the item it belongs to."""

    path: str
    value: float
    role: Role
    item_id: str | None = None
    derived: str | None = None
    """How the value was derived when no field holds it (``k / m quarters``), else None."""


# --- the OpportunityMap's role table ---------------------------------------------------------

OPPORTUNITY_FIELD_ROLES: dict[str, Role] = {
    "outcome_total_usd_annual": Role.CURRENT_OUTCOME,
    "current_outcome_usd_annual": Role.CURRENT_OUTCOME,
    "projected_outcome_usd_annual": Role.PROJECTED_OUTCOME,
    "projected_impact_usd_annual": Role.IMPACT,
    "outcome_mean_usd": Role.MEAN_OUTCOME,
    "n": Role.COUNT,
    "persistence_score": Role.PERSISTENCE,
    "difficulty_score_1_to_5": Role.DIFFICULTY,
    "time_to_implement_weeks": Role.WEEKS,
}
"""Numeric fields of an opportunity and their roles. Text fields written by the producer
(``narrative_*``, ``projected_action``, ``recommendation``) are prose and ground no figure."""

MAP_FIELD_ROLES: dict[str, Role] = {
    "total_projected_impact_usd_annual": Role.TOTAL,
    "ebitda_baseline_usd": Role.BASELINE,
}
"""Top-level numeric fields of an OpportunityMap and their roles."""

PROSE_FIELDS = frozenset({"narrative_board", "narrative_operator"})
"""Fields that hold the producer's prose: never a source of figures or names."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def opportunity_values(opp: dict[str, Any], index: int) -> list[SourceValue]:
    """The numbers of one opportunity with their roles, including the two derived ones:
    the evidence row count, and the persistence as quarters observed / total where the map
    states no ``persistence_score`` (shape B maps; in shape A maps the score equals it)."""
    oid = str(opp.get("id", f"#{index}"))
    base = f"opportunities[{index}]"
    out: list[SourceValue] = []
    for key, role in OPPORTUNITY_FIELD_ROLES.items():
        v = _number(opp.get(key))
        if v is not None:
            out.append(SourceValue(f"{base}.{key}", v, role, oid))
    pair = opp.get("persistence_quarters_out_of_total")
    if isinstance(pair, list) and len(pair) == 2:
        k, m = _number(pair[0]), _number(pair[1])
        key = "persistence_quarters_out_of_total"
        if k is not None:
            out.append(SourceValue(f"{base}.{key}[0]", k, Role.QUARTERS_OBSERVED, oid))
        if m is not None:
            out.append(SourceValue(f"{base}.{key}[1]", m, Role.QUARTERS_TOTAL, oid))
        if k is not None and m and _number(opp.get("persistence_score")) is None:
            out.append(
                SourceValue(f"{base}.{key}", k / m, Role.PERSISTENCE, oid, derived="k / m quarters")
            )
    ids = opp.get("evidence_row_ids")
    if isinstance(ids, list):
        out.append(
            SourceValue(
                f"{base}.evidence_row_ids",
                float(len(ids)),
                Role.EVIDENCE_COUNT,
                oid,
                derived="number of evidence row ids",
            )
        )
    return out


def map_values(opportunity_map: dict[str, Any]) -> list[SourceValue]:
    """Every number of an OpportunityMap with its role (opportunities first)."""
    out: list[SourceValue] = []
    opps = opportunity_map.get("opportunities")
    for i, opp in enumerate(opps if isinstance(opps, list) else []):
        if isinstance(opp, dict):
            out.extend(opportunity_values(opp, i))
    for key, role in MAP_FIELD_ROLES.items():
        v = _number(opportunity_map.get(key))
        if v is not None:
            out.append(SourceValue(key, v, role))
    return out


def persistence_of(opp: dict[str, Any]) -> float | None:
    """The opportunity's persistence: its score, else quarters observed / total.

    >>> persistence_of({"persistence_score": 0.75}), persistence_of(
    ...     {"persistence_quarters_out_of_total": [6, 8]})
    (0.75, 0.75)
    """
    for v in opportunity_values(opp, 0):
        if v.role is Role.PERSISTENCE:
            return v.value
    return None


def current_outcome_of(opp: dict[str, Any]) -> float | None:
    """The opportunity's current outcome in either map shape."""
    for key in ("outcome_total_usd_annual", "current_outcome_usd_annual"):
        v = _number(opp.get(key))
        if v is not None:
            return v
    return None


# --- roles from wording ----------------------------------------------------------------------

_AFTER_CUES: tuple[tuple[Role, re.Pattern[str]], ...] = tuple(
    (role, re.compile(pattern, re.I))
    for role, pattern in (
        (Role.PROJECTED_OUTCOME, r"^\W*(?:of\s+)?projected\s+(?:annual\s+)?outcome"),
        (
            Role.CURRENT_OUTCOME,
            r"^\W*(?:/yr\b|per\s+year\b)?\W*(?:of\s+)?(?:current\s+|observed\s+)?(?:annual\s+)?"
            r"(?:loss|leakage|outcome|run-rate)",
        ),
        (Role.IMPACT, r"^\W*(?:of\s+)?(?:annual\s+)?(?:impact|recovery|uplift|upside)"),
        (Role.BASELINE, r"^\W*(?:of\s+)?(?:EBITDA\s+)?baseline"),
    )
)
_BEFORE_CUES: tuple[tuple[Role, re.Pattern[str]], ...] = tuple(
    (role, re.compile(pattern + r"[^$\d]{0,20}$", re.I))
    for role, pattern in (
        (Role.PROJECTED_OUTCOME, r"projected\s+(?:annual\s+)?outcome"),
        (Role.CURRENT_OUTCOME, r"(?:run-rate|current\s+loss|loss\s+of|outcome\s+of|leakage)"),
        (Role.IMPACT, r"(?:impact|recover\w*|uplift|claimed|attributable|contribution)"),
        (Role.BASELINE, r"baseline"),
        (Role.TOTAL, r"(?:headline|total)"),
    )
)


def money_role(text: str, start: int, end: int) -> Role | None:
    """The role of a money figure at ``text[start:end]`` from the words right after it, else
    the words right before it; None when the wording names no quantity.

    >>> t = "Counterfactual: $-440.7M of current annual loss; current run-rate $-440.7M/yr"
    >>> money_role(t, 16, 24), money_role(t, 66, 74)
    (<Role.CURRENT_OUTCOME: 'current_outcome'>, <Role.CURRENT_OUTCOME: 'current_outcome'>)
    >>> money_role("recovering $5.2M next year", 11, 16)
    <Role.IMPACT: 'impact'>
    """
    after = text[end : end + 48]
    for role, cue in _AFTER_CUES:
        if cue.search(after):
            return role
    before = text[max(0, start - 48) : start]
    for role, cue in _BEFORE_CUES:
        if cue.search(before):
            return role
    return None


def figure_role(fig: Figure, text: str) -> Role | None:
    """The role a figure claims: its kind fixes it for scores, difficulty and quarters; money
    takes it from its wording; counts of things are counts."""
    if fig.kind is FigureKind.SCORE:
        return Role.PERSISTENCE
    if fig.kind is FigureKind.DIFFICULTY:
        return Role.DIFFICULTY
    if fig.kind is FigureKind.QUARTERS:
        return Role.QUARTERS_TOTAL if fig.role == "total" else Role.QUARTERS_OBSERVED
    if fig.kind is FigureKind.COUNT:
        return Role.COUNT
    if fig.kind is FigureKind.USD:
        return money_role(text, fig.start, fig.end)
    return None
