"""Role-aware matching of a document's numbers against source values, on the shared role core
(``grading.roles``: ``claim_of`` reads what a prose figure claims, ``accepts`` says which field
roles may ground it, ``pick`` chooses among the candidates), so a document figure is judged by
the rules a memo figure is. ``match_figure`` (prose) and ``match_field`` (structured fields)
are the calls every document grader makes.

The order of preference is the rule:

1. a value of an accepted role in the figure's own item (or the map's own fields) grounds it;
2. such a value in another item grounds it too, but as a *mis-attribution*;
3. a value of an accepted role and the same magnitude whose sign the figure contradicts:
   *sign mismatch*;
4. a value only of another role: *wrong quantity* (the document names the wrong thing);
5. otherwise *ungrounded*, with the nearest value of an accepted role (its item first).

A zero is grounded only by a zero of the role it claims, never by a coincidence in another
role (``pick``'s rule): "$0 of current annual loss" where the map's projected outcome is 0 is
ungrounded, its expected value the current outcome, as the memo grader says.

>>> from pe_eval_core.numbers import extract_figures
>>> vals = [SourceValue("o[0].cur", -87655.85, Role.LOSS, "opp_01"),
...         SourceValue("o[0].impact", 87655.85, Role.IMPACT, "opp_01")]
>>> fig = extract_figures("$87,655.85")[0]
>>> m = match_figure(fig, Role.LOSS, "opp_01", vals)
>>> m.status, m.value.path
('grounded', 'o[0].cur')
>>> m = match_figure(extract_figures("$0")[0], Role.LOSS, "opp_01", vals)
>>> m.status, m.expected.path
('ungrounded', 'o[0].cur')
>>> match_field(87655.85, Role.LOSS, "opp_01", vals).status
'sign'
>>> match_field(-87655.85, Role.IMPACT, "opp_01", vals).status
'sign'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pe_eval_core.documents.source_values import SourceValue
from pe_eval_core.grading.roles import Picked, Role, accepts, pick
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.source_fields import tolerance_window
from pe_eval_core.numbers import Figure, FigureKind

Status = Literal["grounded", "misattributed", "sign", "wrong_quantity", "ungrounded"]

FIELD_REL_TOLERANCE = 1e-6
"""A structured field copies its source: it must agree to one part in a million (or a cent)."""
FIELD_ABS_TOLERANCE = 0.01
USD_TOLERANCE = GraderConfig().usd_rel_tol
"""The nominal relative tolerance of money in prose (the seed's +-1%, the memo's)."""

KIND_ROLES: dict[FigureKind, frozenset[Role]] = {
    FigureKind.USD: frozenset(
        {
            Role.LOSS,
            Role.PROJECTED,
            Role.IMPACT,
            Role.TOTAL,
            Role.BASELINE,
            Role.PER_UNIT,
            Role.COST,
        }
    ),
    FigureKind.PERCENT: frozenset({Role.RATE}),
    FigureKind.COUNT: frozenset({Role.COUNT, Role.EVIDENCE_COUNT}),
    FigureKind.QUARTERS: frozenset({Role.QUARTERS, Role.QUARTERS_OBSERVED, Role.QUARTERS_TOTAL}),
    FigureKind.SCORE: frozenset({Role.SCORE}),
    FigureKind.DIFFICULTY: frozenset({Role.DIFFICULTY}),
}
"""The field roles a figure of each kind is compared with (its unit); rates are fractions,
compared with a percent figure as percentages."""

ROLE_WORDS: dict[Role, str] = {
    Role.LOSS: "current outcome",
    Role.PROJECTED: "projected outcome",
    Role.PER_UNIT: "mean outcome",
    Role.SCORE: "persistence score",
    Role.QUARTERS_OBSERVED: "quarters observed",
    Role.QUARTERS_TOTAL: "quarters total",
    Role.EVIDENCE_COUNT: "evidence count",
}
"""A role as a finding names it for an OpportunityMap (others: the role's own name)."""


def role_words(role: Role) -> str:
    """``Role.LOSS`` -> ``current outcome``."""
    return ROLE_WORDS.get(role, role.value.replace("_", " "))


@dataclass(frozen=True, slots=True)
class Match:
    """The verdict for one number, with the source value that decided it (matched, or the
    nearest of an accepted role when ungrounded; None when the source has no value of its
    kind)."""

    status: Status
    value: SourceValue | None
    expected: SourceValue | None = None
    """The value of the figure's own role it should have stated (nearest, in its item
    first); for a grounded figure the matched value itself, for a mis-attributed one its own
    item's value (else the matched one)."""


@dataclass(frozen=True, slots=True)
class _Scaled:
    """A source value in the unit of the figure compared with it (``pick``'s candidate)."""

    source: SourceValue
    value: float

    @property
    def magnitude(self) -> float:
        return abs(self.value)


def _role(c: _Scaled) -> Role:
    return c.source.role


def _decide(
    claim: Role,
    item_id: str | None,
    pool: Sequence[_Scaled],
    window: tuple[float, float, float],
    sign: int,
) -> Match:
    """``pick`` over the item's own values, then the other items' (see the module docstring)."""
    mag, lo, hi = window
    own = [c for c in pool if c.source.item_id in (item_id, None)]
    other = [c for c in pool if c.source.item_id not in (item_id, None)]
    mine: Picked[_Scaled] = pick(own, _role, claim, mag, lo, hi, sign)
    if mine.best is not None:
        return Match("grounded", mine.best.source, mine.best.source)
    theirs: Picked[_Scaled] = pick(other, _role, claim, mag, lo, hi, sign) if mag else Picked()
    right = [c for c in pool if accepts(claim, c.source.role)]
    nearest = _nearest(mag, right or pool, item_id)
    if theirs.best is not None:  # expected: its own item's value, when it has one
        own_value = nearest if nearest is not None and nearest.item_id == item_id else None
        return Match("misattributed", theirs.best.source, own_value or theirs.best.source)
    wrong_sign = mine.wrong_sign or theirs.wrong_sign
    if wrong_sign is not None:
        return Match("sign", wrong_sign.source, wrong_sign.source)
    wrong_role = mine.wrong_role or theirs.wrong_role
    if wrong_role is not None and claim is not Role.ANY:
        return Match("wrong_quantity", wrong_role.source, nearest)
    return Match("ungrounded", nearest, nearest)


def _nearest(mag: float, pool: Sequence[_Scaled], item_id: str | None) -> SourceValue | None:
    """The closest value, preferring the item's own values."""
    mine = [c for c in pool if c.source.item_id == item_id] or list(pool)
    best = min(mine, key=lambda c: abs(c.magnitude - mag), default=None)
    return best.source if best is not None else None


def _in_unit(kind: FigureKind, v: SourceValue) -> float:
    """A source value in a figure's unit (a rate, held as a fraction, as a percentage)."""
    return v.value * 100 if kind is FigureKind.PERCENT and v.role is Role.RATE else v.value


def match_figure(
    fig: Figure, claim: Role, item_id: str | None, values: Sequence[SourceValue]
) -> Match:
    """The verdict for a prose figure claiming ``claim`` (``Role.ANY``: any role of its
    kind) in ``item_id``; the window is the memo's (``tolerance_window``)."""
    roles = KIND_ROLES.get(fig.kind, frozenset())
    pool = [_Scaled(v, _in_unit(fig.kind, v)) for v in values if v.role in roles]
    lo, hi = tolerance_window(fig, GraderConfig())
    return _decide(claim, item_id, pool, (abs(fig.value), lo, hi), -1 if fig.negative else 0)


def field_close(stated: float, x: float) -> bool:
    """A structured value equals its source (one part in a million, or a cent).

    >>> field_close(440652003.9, 440652003.90089434), field_close(0.0, -87655.85)
    (True, False)
    """
    return math.isclose(stated, x, rel_tol=FIELD_REL_TOLERANCE, abs_tol=FIELD_ABS_TOLERANCE)


def match_field(
    stated: float, role: Role, item_id: str | None, values: Sequence[SourceValue]
) -> Match:
    """The verdict for a structured field of ``role`` holding ``stated`` (signs count)."""
    roles = next((rs for rs in KIND_ROLES.values() if role in rs), frozenset({role}))
    pool = [_Scaled(v, v.value) for v in values if v.role in roles]
    mag = abs(stated)
    slack = max(mag * FIELD_REL_TOLERANCE, FIELD_ABS_TOLERANCE)
    sign = -1 if stated < 0 else 1
    return _decide(role, item_id, pool, (mag, mag - slack, mag + slack), sign)
