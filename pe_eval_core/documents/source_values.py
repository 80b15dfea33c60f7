"""An OpportunityMap's numbers as source values, each with the role of its field from the one
OpportunityMap role table (``memo.roles.OPPORTUNITY_MAP_ROLES``, on the shared role core
``grading.roles``) and the opportunity it belongs to.

Besides the fields the table names, three values no field holds are derived, each with its
own role: the persistence quarters observed and in the window (``QUARTERS_OBSERVED`` /
``QUARTERS_TOTAL``, the two entries of ``persistence_quarters_out_of_total``), the persistence
as k / m quarters where a map states no ``persistence_score`` (shape B maps; in shape A maps
the score equals it), and the number of evidence row ids (``EVIDENCE_COUNT``). Producer prose
(``narrative_*``) and identifiers are not data; a numeric field no rule names (``active_loans``)
has no declared quantity and is left out.

>>> opp = {"id": "opp_01", "n": 5, "persistence_quarters_out_of_total": [3, 4],
...        "narrative_board": "7 loans"}
>>> for v in map_values({"opportunities": [opp]}):
...     print(v.path, v.role.value, v.value, v.derived or "")
opportunities[0].n count 5.0
opportunities[0].persistence_quarters_out_of_total[0] quarters_observed 3.0
opportunities[0].persistence_quarters_out_of_total[1] quarters_total 4.0
opportunities[0].persistence_quarters_out_of_total score 0.75 k / m quarters
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pe_eval_core.grading.roles import NEVER_GROUNDS, Role
from pe_eval_core.memo.roles import OPPORTUNITY_MAP_ROLES

QUARTERS_KEY = "persistence_quarters_out_of_total"
EVIDENCE_KEY = "evidence_row_ids"


@dataclass(frozen=True, slots=True)
class SourceValue:
    """One number of a source, with the role its field has and the item it belongs to."""

    path: str
    value: float
    role: Role
    item_id: str | None = None
    derived: str | None = None
    """How the value was derived when no field holds it (``k / m quarters``), else None."""

    @property
    def magnitude(self) -> float:
        return abs(self.value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _data_role(key: str) -> Role | None:
    """The role of a numeric field, None when it is not data or no rule declares it."""
    role = OPPORTUNITY_MAP_ROLES.role_of(key)
    return None if role in NEVER_GROUNDS or role is Role.ANY else role


def opportunity_values(opp: dict[str, Any], index: int) -> list[SourceValue]:
    """The numbers of one opportunity with their roles, the derived ones included."""
    oid = str(opp.get("id", f"#{index}"))
    base = f"opportunities[{index}]"
    out: list[SourceValue] = []
    for key, raw in opp.items():
        v, role = _number(raw), _data_role(key)
        if v is not None and role is not None:
            out.append(SourceValue(f"{base}.{key}", v, role, oid))
    pair = opp.get(QUARTERS_KEY)
    if isinstance(pair, list) and len(pair) == 2:
        k, m = _number(pair[0]), _number(pair[1])
        if k is not None:
            out.append(SourceValue(f"{base}.{QUARTERS_KEY}[0]", k, Role.QUARTERS_OBSERVED, oid))
        if m is not None:
            out.append(SourceValue(f"{base}.{QUARTERS_KEY}[1]", m, Role.QUARTERS_TOTAL, oid))
        if k is not None and m and _number(opp.get("persistence_score")) is None:
            derived = "k / m quarters"
            out.append(SourceValue(f"{base}.{QUARTERS_KEY}", k / m, Role.SCORE, oid, derived))
    ids = opp.get(EVIDENCE_KEY)
    if isinstance(ids, list):
        path, how = f"{base}.{EVIDENCE_KEY}", "number of evidence row ids"
        out.append(SourceValue(path, float(len(ids)), Role.EVIDENCE_COUNT, oid, how))
    return out


def map_values(opportunity_map: dict[str, Any]) -> list[SourceValue]:
    """Every number of an OpportunityMap with its role (opportunities first, then the map's
    own fields: the total, the EBITDA baseline ...)."""
    out: list[SourceValue] = []
    opps = opportunity_map.get("opportunities")
    for i, opp in enumerate(opps if isinstance(opps, list) else []):
        if isinstance(opp, dict):
            out.extend(opportunity_values(opp, i))
    for key, raw in opportunity_map.items():
        v, role = _number(raw), _data_role(key)
        if v is not None and role is not None:
            out.append(SourceValue(key, v, role))
    return out


def persistence_of(opp: dict[str, Any]) -> float | None:
    """The opportunity's persistence: its score, else quarters observed / total.

    >>> persistence_of({"persistence_score": 0.75}), persistence_of(
    ...     {"persistence_quarters_out_of_total": [6, 8]})
    (0.75, 0.75)
    """
    score = _number(opp.get("persistence_score"))
    if score is not None:
        return score
    pair = opp.get(QUARTERS_KEY)
    if isinstance(pair, list) and len(pair) == 2:
        k, m = _number(pair[0]), _number(pair[1])
        if k is not None and m:
            return k / m
    return None


def current_outcome_of(opp: dict[str, Any]) -> float | None:
    """The opportunity's current outcome (today's loss) in either map shape: the first field
    the table gives the role ``LOSS``.

    >>> current_outcome_of({"current_outcome_usd_annual": -5.0, "n": 3})
    -5.0
    """
    for key, raw in opp.items():
        v = _number(raw)
        if v is not None and _data_role(key) is Role.LOSS:
            return v
    return None
