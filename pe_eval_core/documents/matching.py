"""Role-aware matching of a document's numbers against source values: the one interface every
document grader calls (``match_figure`` for prose, ``match_field`` for structured fields).

The order of preference is the rule:

1. a value of the figure's role in its own item grounds it;
2. a value of its role in another item grounds it too, but as a *mis-attribution*;
3. a value of the same magnitude and role whose sign the figure contradicts: *sign mismatch*;
4. a value of another role: *wrong quantity* (the document names the wrong thing);
5. otherwise *ungrounded*, with the nearest value of its role (in its item first) reported.

A figure whose wording names no role may be grounded by any role of its kind.

>>> from pe_eval_core.numbers import extract_figures
>>> vals = [SourceValue("o[0].cur", -87655.85, Role.CURRENT_OUTCOME, "opp_01"),
...         SourceValue("o[0].proj", 0.0, Role.PROJECTED_OUTCOME, "opp_01")]
>>> fig = extract_figures("$0")[0]
>>> m = match_figure(fig, Role.CURRENT_OUTCOME, "opp_01", vals)
>>> m.status, m.value.path
('wrong_quantity', 'o[0].proj')
>>> match_field(-87655.85, Role.CURRENT_OUTCOME, "opp_01", vals).status
'grounded'
>>> match_field(87655.85, Role.CURRENT_OUTCOME, "opp_01", vals).status
'sign'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pe_eval_core.documents.roles import KIND_ROLES, Role, SourceValue
from pe_eval_core.numbers import EXACT_KINDS, Figure, FigureKind

Status = Literal["grounded", "misattributed", "sign", "wrong_quantity", "ungrounded"]

USD_TOLERANCE = 0.01
"""Nominal relative tolerance for money in prose (the seed's +-1%)."""
PERCENT_TOLERANCE = 0.15
"""Nominal absolute tolerance for a percentage in prose (percentage points)."""
SCORE_TOLERANCE = 0.005
FIELD_REL_TOLERANCE = 1e-6
"""A structured field copies its source: it must agree to one part in a million (or a cent)."""
FIELD_ABS_TOLERANCE = 0.01

PERCENT_OF_FRACTION = frozenset({Role.PERSISTENCE, Role.MULTIPLIER})
"""Roles held as fractions (0..1) that prose states as percentages."""


@dataclass(frozen=True, slots=True)
class Match:
    """The verdict for one number, with the source value that decided it (matched, or the
    nearest of its role when ungrounded; None when the source has no value of its kind)."""

    status: Status
    value: SourceValue | None
    expected: SourceValue | None = None
    """The value of the figure's own role it should have stated (nearest, in its item
    first); for a grounded or mis-attributed figure, the matched value itself."""


def _prose_close(fig: Figure, x: float, magnitude: bool) -> bool:
    """``fig`` stands for ``x`` within its displayed precision or the nominal tolerance;
    with ``magnitude`` an unsigned money figure may stand for a negative value."""
    if fig.kind is FigureKind.USD and magnitude and not fig.negative and x < 0:
        x = -x
    if fig.covers(x):
        return True
    if fig.kind in EXACT_KINDS:
        return fig.value == x
    if fig.kind is FigureKind.USD:
        return abs(fig.value - x) <= USD_TOLERANCE * max(abs(x), 1e-9)
    if fig.kind is FigureKind.PERCENT:
        return abs(fig.value - x) <= PERCENT_TOLERANCE
    return abs(fig.value - x) <= SCORE_TOLERANCE


def _in_percent(fig: Figure, v: SourceValue) -> float:
    """A source value in the figure's unit (fractions as percentages for percent figures)."""
    if fig.kind is FigureKind.PERCENT and v.role in PERCENT_OF_FRACTION:
        return v.value * 100
    return v.value


def _pick(
    values: Sequence[SourceValue],
    ok: Callable[[SourceValue], bool],
    item_id: str | None,
) -> tuple[SourceValue | None, SourceValue | None]:
    """(first match in the item, first match elsewhere)."""
    own = other = None
    for v in values:
        if ok(v):
            if v.item_id == item_id or v.item_id is None:
                own = own or v
            else:
                other = other or v
    return own, other


def _nearest(
    target: float, values: Sequence[SourceValue], item_id: str | None
) -> SourceValue | None:
    """The closest value, preferring the item's own values."""
    pool = [v for v in values if v.item_id == item_id] or list(values)
    return min(pool, key=lambda v: abs(abs(v.value) - abs(target)), default=None)


def _decide(
    role: Role | None,
    item_id: str | None,
    kind_values: Sequence[SourceValue],
    close: Callable[[SourceValue], bool],
    magnitude: Callable[[SourceValue], bool],
    target: float,
) -> Match:
    same = [v for v in kind_values if role is None or v.role is role]
    own, other = _pick(same, close, item_id)
    if own is not None:
        return Match("grounded", own, own)
    if other is not None:
        return Match("misattributed", other, other)
    own, other = _pick(same, magnitude, item_id)
    if own is not None:
        return Match("sign", own, own)
    nearest = _nearest(target, same or kind_values, item_id)
    if role is not None:
        rest = [v for v in kind_values if v.role is not role]
        own, other = _pick(rest, close, item_id)
        if own is not None or other is not None:
            return Match("wrong_quantity", own or other, nearest)
    return Match("ungrounded", nearest, nearest)


def match_figure(
    fig: Figure, role: Role | None, item_id: str | None, values: Sequence[SourceValue]
) -> Match:
    """The verdict for a prose figure of ``role`` (None: any role of its kind) in ``item_id``."""
    kind_values = [v for v in values if v.role in KIND_ROLES[fig.kind]]

    def close(v: SourceValue) -> bool:
        return _prose_close(fig, _in_percent(fig, v), magnitude=True)

    def magnitude(v: SourceValue) -> bool:
        x = _in_percent(fig, v)
        return fig.kind is FigureKind.USD and x != 0 and _prose_close(fig, -x, magnitude=False)

    return _decide(role, item_id, kind_values, close, magnitude, fig.value)


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
    pool = [v for v in values if v.role in _comparable(role)]
    return _decide(
        role,
        item_id,
        pool,
        lambda v: field_close(stated, v.value),
        lambda v: v.value != 0 and field_close(stated, -v.value),
        stated,
    )


def _comparable(role: Role) -> frozenset[Role]:
    for roles in KIND_ROLES.values():
        if role in roles:
            return roles
    return frozenset({role})
