"""The source's numeric universe: every numeric field, its JSON path, its unit, and fast lookups.

Units come from key names (``*_usd*`` dollars, ``*score*`` 0..1 scores, ``*rate``/``*share``
fractions compared x100 with percent figures, ``n``/``*_count`` counts, ``*quarters*``,
``*difficulty*``). A memo figure only ever matches fields of its own kind. Lookups are
reads of one opportunity's handful of fields, then (for figures not grounded there) a bisection
over magnitudes sorted once per kind: a figure costs O(log n), never a scan of the source.

>>> u = NumericUniverse.build({
...     "portco_id": "X", "total_projected_impact_usd_annual": 3.0e6,
...     "opportunities": [{"id": "a", "n": 12, "persistence_score": 0.8,
...                        "outcome_total_usd_annual": -1_249_000}]})
>>> [(f.path, f.kind.value, f.value) for f in u.fields if f.kind is not None]
[('total_projected_impact_usd_annual', 'usd', 3000000.0), ('opportunities[0].n', 'count', 12.0),
 ('opportunities[0].outcome_total_usd_annual', 'usd', -1249000.0),
 ('opportunities[0].persistence_score', 'score', 0.8),
 ('opportunities[0].persistence_score', 'percent', 80.0)]
>>> unit_of_key("current_outcome_usd_annual"), unit_of_key("approval_rate")
('usd', 'fraction')
>>> unit_of_key("time_to_implement_weeks"), unit_of_key("quarterly_outcome_usd")
('duration', 'usd')
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import chain
from typing import Any

from pydantic import BaseModel

from pe_eval_core.grading.roles import Picked, Role, accepts, pick
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.derivations import _DERIVED_KINDS, _SHARE_ROLES, Derivations, per_year
from pe_eval_core.memo.models import OpportunityMap
from pe_eval_core.memo.roles import OPPORTUNITY_MAP_ROLES
from pe_eval_core.memo.source_fields import (
    _CONVERTED,
    _HAS_DIGIT,
    _QUARTER_ROLES,
    _SAME,
    _UNITS,
    NON_NUMERIC_KEYS,
    OPPORTUNITIES_KEY,
    QUARTERS,
    FigureMatch,
    KindIndex,
    MatchStatus,
    SourceField,
    _annual,
    _as_precise,
    _by_kind,
    _claim,
    _declared,
    _displayed,
    _fits,
    _fits_role,
    _fitting,
    _items,
    _nested_keys,
    _plan,
    _Plans,
    _plans,
    _role,
    _scalar,
    _Scope,
    _sign,
    _walk,
    comparable_values,
    quarter_role,
    tolerance_window,
    unit_of_key,
)
from pe_eval_core.numbers import Figure, FigureKind, extract_figures

__all__ = [
    "FigureMatch",
    "KindIndex",
    "MatchStatus",
    "NumericUniverse",
    "SourceField",
    "comparable_values",
    "quarter_role",
    "tolerance_window",
    "unit_of_key",
]


class NumericUniverse(Derivations):
    """Every numeric field of an OpportunityMap, by scope and kind.

    The portfolio scope and each opportunity's scope hold a handful of fields (bounded by
    the shape of one opportunity, not by the number of opportunities) and are read directly.
    The cross-opportunity index (sorted by magnitude, bisected) is built on first need: a
    memo whose every figure is grounded in its own opportunity never pays for it.
    """

    def __init__(self, source: OpportunityMap):
        self._source = source
        self._local: dict[int, _Scope] = {}
        self._shapes: dict[int, list[tuple[dict[str, Any], _Plans]]] = {}
        self._every: dict[FigureKind, KindIndex] | None = None
        self._negative: dict[FigureKind, KindIndex] | None = None
        self._portfolio_fields: list[SourceField] = []
        self._derived: dict[tuple[int, FigureKind], KindIndex] = {}
        self._texts: dict[int | None, _Scope] = {}
        self._windows: dict[int, dict[tuple[FigureKind, float, float], list[SourceField]]] = {}
        for key, value in _items(source):
            if key != OPPORTUNITIES_KEY and key not in NON_NUMERIC_KEYS:
                _walk(value, key, key, None, self._portfolio_fields)
        self.portfolio: _Scope = _by_kind(self._portfolio_fields)

    @classmethod
    def build(cls, source: OpportunityMap | dict[str, Any]) -> NumericUniverse:
        """From a parsed OpportunityMap (or a raw dict, validated first)."""
        if isinstance(source, dict):
            source = OpportunityMap.model_validate(source)
        return cls(source)

    def opportunity_fields(self, i: int) -> list[SourceField]:
        """Every numeric field of opportunity ``i`` (kind None included)."""
        out: list[SourceField] = []
        prefix = f"{OPPORTUNITIES_KEY}[{i}]"
        opp = self._source.opportunities[i]
        owner = opp.id
        for key, value in _items(opp):
            if type(value) is str or value is None or key in NON_NUMERIC_KEYS:
                continue  # the common non-numeric cases, without building a path
            _walk(value, f"{prefix}.{key}", key, i, out, owner)
        return out

    def text_figures(self, i: int | None, kind: FigureKind) -> list[SourceField]:
        """Figures quoted in the source's own strings (opportunity ``i``'s, or the portfolio's
        for None): a recommendation that says "reprice by 175bps", a segment value such as
        ``LTV 80-90%`` or ``$1,000-$2,500``. Each is a field of its figure's kind, path the
        string's (``opportunities[0].recommendation``), unit ``text``; read once per scope.

        >>> u = NumericUniverse.build({"portco_id": "X", "opportunities": [{"id": "a",
        ...     "recommendation": "Reprice by 175bps", "segment": {"ltv": "LTV 80-90%"}}]})
        >>> [(f.path, f.value) for f in u.text_figures(0, FigureKind.PERCENT)]
        [('opportunities[0].segment.ltv', 80.0), ('opportunities[0].segment.ltv', 90.0),
         ('opportunities[0].recommendation', 1.75)]
        """
        scope = self._texts.get(i)
        if scope is None:
            scope = self._texts[i] = _by_kind(self._string_figures(i))
        return scope.get(kind, [])

    def _string_figures(self, i: int | None) -> list[SourceField]:
        model: BaseModel
        if i is None:
            owner, prefix, model = "", "", self._source
        else:
            opp = model = self._source.opportunities[i]
            owner, prefix = opp.id, f"{OPPORTUNITIES_KEY}[{i}]."
        strings: list[tuple[str, str]] = []
        for key, value in _items(model):
            if type(value) is str and OPPORTUNITY_MAP_ROLES.grounds(key):
                strings.append((f"{prefix}{key}", value))
            elif key == "segment" and isinstance(value, dict):
                strings.extend((f"{prefix}segment.{k}", str(v)) for k, v in value.items())
        out: list[SourceField] = []
        for path, text in strings:
            if not _HAS_DIGIT.search(text):
                continue
            for fig in extract_figures(text):
                v, half = fig.value, (fig.hi - fig.lo) / 2
                out.append(
                    SourceField(path, fig.kind, v, v, "text", i, abs(v), owner, fig.role, half)
                )
        return out

    def own(self, i: int, kind: FigureKind) -> list[SourceField]:
        """Opportunity ``i``'s fields of ``kind``, in ``opportunity_fields`` order (built on
        first use, per kind: a memo citing no score never pays for the score fields)."""
        scope = self._local.get(i)
        if scope is None:
            scope = self._local[i] = {}
        fields = scope.get(kind)
        if fields is None:
            fields = scope[kind] = self._kind_fields(i, kind)
        return fields

    def _kind_fields(self, i: int, kind: FigureKind) -> list[SourceField]:
        """``[f for f in opportunity_fields(i) if f.kind is kind]``."""
        return self.in_window(i, kind, -math.inf, math.inf)

    def _shape(self, i: int) -> list[tuple[dict[str, Any], _Plans]]:
        """Opportunity ``i``'s key sets (declared, extra) with their plans by kind."""
        shape = self._shapes.get(i)
        if shape is None:
            opp = self._source.opportunities[i]
            d = _declared(opp)
            extra = opp.model_extra
            shape = self._shapes[i] = [(d, _plans(tuple(d), _nested_keys(d)))]
            if extra:
                shape.append((extra, _plans(tuple(extra), _nested_keys(extra))))
        return shape

    def in_window(self, i: int, kind: FigureKind, lo: float, hi: float) -> list[SourceField]:
        """Opportunity ``i``'s fields of ``kind`` whose magnitude lies in [lo, hi], in
        ``opportunity_fields`` order.

        Only those fields are built: the keys are read through a plan per key set and kind
        (scalars of other units skipped unread), and a value compared as stored is checked
        against the window before its field (path, role) is made. A figure is matched
        against its own opportunity this way, one read of a handful of values.

        >>> u = NumericUniverse.build({"portco_id": "X", "opportunities": [{"id": "a",
        ...     "outcome_total_usd_annual": -1_249_000, "n": 12, "extra": {"cost_usd": 1_250_000},
        ...     "quarters_total": [4, {"spend_usd": 1_251_000}]}]})
        >>> [f.path for f in u.in_window(0, FigureKind.USD, 1.2e6, 1.3e6)]
        ['opportunities[0].outcome_total_usd_annual', 'opportunities[0].extra.cost_usd',
         'opportunities[0].quarters_total[1].spend_usd']
        >>> all(u.in_window(0, k, -math.inf, math.inf)
        ...     == [f for f in u.opportunity_fields(0) if f.kind is k] for k in FigureKind)
        True
        """
        windows = self._windows.setdefault(i, {})
        got = windows.get((kind, lo, hi))
        if got is None:  # a memo repeats its figures: each window is read once per scope
            got = windows[kind, lo, hi] = self._in_window(i, kind, lo, hi)
        return got

    def _in_window(self, i: int, kind: FigureKind, lo: float, hi: float) -> list[SourceField]:
        out: list[SourceField] = []
        shape = self._shapes.get(i)
        for values, plans in shape if shape is not None else self._shape(i):
            plan = plans.get(kind)
            if plan is None:
                plan = plans[kind] = _plan(values, kind, plans)
            for key, code in plan:
                value = values[key]
                t = type(value)
                if t is float or t is int:
                    if code == _SAME:  # compared as stored: checked before its field is built
                        self._add_same(i, kind, key, key, value, lo, hi, out)
                    elif code == _CONVERTED:
                        self._general(i, kind, key, key, value, lo, hi, out)
                elif t is list and code == _SAME:
                    self._list_in_window(i, kind, key, value, lo, hi, out)
                elif not (t is str or value is None):
                    self._general(i, kind, key, key, value, lo, hi, out)
        return out

    def _list_in_window(
        self,
        i: int,
        kind: FigureKind,
        key: str,
        values: list[Any],
        lo: float,
        hi: float,
        out: list[SourceField],
    ) -> None:
        """``in_window`` for a list under a key whose unit compares as stored."""
        for j, x in enumerate(values):
            tx = type(x)
            if tx is float or tx is int:
                self._add_same(i, kind, f"{key}[{j}]", key, x, lo, hi, out)
            elif not (tx is str or x is None or tx is bool):
                self._general(i, kind, f"{key}[{j}]", key, x, lo, hi, out)

    def _add_same(
        self,
        i: int,
        kind: FigureKind,
        tail: str,
        key: str,
        value: float,
        lo: float,
        hi: float,
        out: list[SourceField],
    ) -> None:
        """Append the field of a number compared as stored if its magnitude is in [lo, hi]."""
        v = float(value)
        if lo <= abs(v) <= hi and math.isfinite(v):
            out.append(self._same(i, kind, f"{OPPORTUNITIES_KEY}[{i}].{tail}", key, v))

    def _same(self, i: int, kind: FigureKind, path: str, key: str, v: float) -> SourceField:
        """The field of a value of ``kind`` compared as stored."""
        role = quarter_role(path) if kind is QUARTERS else ""
        owner = self._source.opportunities[i].id
        return SourceField(path, kind, v, v, _UNITS[key], i, abs(v), owner, role)

    def _general(
        self,
        i: int,
        kind: FigureKind,
        tail: str,
        key: str,
        value: Any,
        lo: float,
        hi: float,
        out: list[SourceField],
    ) -> None:
        """The fields of ``kind`` in [lo, hi] under ``value`` (any shape), as
        ``opportunity_fields`` builds them."""
        found: list[SourceField] = []
        owner = self._source.opportunities[i].id
        path = f"{OPPORTUNITIES_KEY}[{i}].{tail}"
        t = type(value)
        if t is float or t is int:
            _scalar(value, path, key, i, found, owner)
        elif t is list:
            for j, x in enumerate(value):
                tx = type(x)
                if tx is float or tx is int:
                    _scalar(x, f"{path}[{j}]", key, i, found, owner)
                else:
                    _walk(x, f"{path}[{j}]", key, i, found, owner)
        else:
            _walk(value, path, key, i, found, owner)
        out.extend(f for f in found if f.kind is kind and lo <= f.magnitude <= hi)

    def release(self, i: int) -> None:
        """Forget opportunity ``i``'s cached scope (rebuilt if asked for again)."""
        self._local.pop(i, None)
        self._shapes.pop(i, None)
        self._windows.pop(i, None)
        for kind in _DERIVED_KINDS:
            self._derived.pop((i, kind), None)

    @property
    def fields(self) -> list[SourceField]:
        """Every numeric field: portfolio level first, then each opportunity in order."""
        out = list(self._portfolio_fields)
        for i in range(len(self._source.opportunities)):
            out.extend(self.opportunity_fields(i))
        return out

    def _global(self) -> tuple[dict[FigureKind, KindIndex], dict[FigureKind, KindIndex]]:
        if self._every is None or self._negative is None:
            every: _Scope = {}
            negative: _Scope = {}
            for f in self._portfolio_fields:
                if f.kind is not None:
                    every.setdefault(f.kind, []).append(f)
            for i in range(len(self._source.opportunities)):
                for kind, fs in _by_kind(self.opportunity_fields(i)).items():
                    every.setdefault(kind, []).extend(fs)

            for kind, fs in every.items():
                negative[kind] = [f for f in fs if f.value < 0]
            self._every = {k: KindIndex(v) for k, v in every.items()}
            self._negative = {k: KindIndex(v) for k, v in negative.items()}
        return self._every, self._negative

    def match(self, fig: Figure, opp: int | None, config: GraderConfig) -> FigureMatch:
        """Ground ``fig`` found in opportunity ``opp``'s prose (None: no such opportunity).

        Only fields of a role the figure's wording claims (``fig.claim``, see
        ``pe_eval_core.grading.roles``) ground it, and a zero only in its own role. Order:
        own fields and portfolio fields, then figures quoted in the source's data strings
        (grounded); for a share of a loss (role ``of_loss``) a recovery ratio (derived);
        another opportunity's field or string (misattributed, still cited); other
        derivations (derived); a field of the claimed role with the wrong sign only (sign
        finding); a field of another role only (wrong quantity); otherwise the nearest field
        of the claimed role, or of the kind (ungrounded).
        """
        lo, hi = tolerance_window(fig, config)
        if fig.kind is QUARTERS and fig.role in _QUARTER_ROLES:
            return self._match_role(fig, opp, config, (lo, hi))
        if fig.claim == Role.IMPACT.value and len(self._source.opportunities) == 1:
            fig = replace(fig, claim=Role.TOTAL.value)  # one cohort: its impact is the total
        kind, mag = fig.kind, abs(fig.value)
        sign = _sign(fig)
        claim = _claim(fig)
        if "bound" in fig.role:  # "under 10% of the total": the share, not any small field
            return self._beyond_own(fig, opp, config, (lo, hi), Picked())
        own = self.in_window(opp, kind, lo, hi) if opp is not None else []
        pool = _fitting(chain(own, self.portfolio.get(kind, ())), fig)
        if per_year(fig) is not None:  # "$7.6M per quarter" is no annual field as stated
            pool = [f for f in pool if not _annual(f)]
        found = pick(pool, _role, claim, mag, lo, hi, sign)
        if found.best is None:  # a figure quoted from the source's own strings, after its fields
            quoted = self._quoted(fig, opp, mag, lo, hi, sign, claim)
            found.best = quoted.best
            found.wrong_sign = found.wrong_sign or quoted.wrong_sign
            found.wrong_role = found.wrong_role or quoted.wrong_role
        if found.best is not None:
            return FigureMatch("grounded", found.best)
        return self._beyond_own(fig, opp, config, (lo, hi), found)

    def _beyond_own(
        self,
        fig: Figure,
        opp: int | None,
        config: GraderConfig,
        window: tuple[float, float],
        found: Picked[SourceField],
    ) -> FigureMatch:
        """``match`` once the opportunity's own and portfolio fields have not grounded it."""
        kind, mag, sign, claim = fig.kind, abs(fig.value), _sign(fig), _claim(fig)
        lo, hi = window
        derive = config.derivations and opp is not None
        periods = per_year(fig) if derive else None
        licensed = self._licensed_first(fig, opp, sign, periods) if derive else None
        if licensed is not None:
            return FigureMatch("derived", licensed)
        shown_lo, shown_hi = _displayed(fig)
        other, other_role = (
            self._other_opportunity(fig, opp, mag, lo, hi, sign)
            if "bound" not in fig.role  # a bound's window holds every field on its side
            else (None, None)
        )
        fraction = "fraction" in fig.role or "of_total" in fig.role  # a share: derive first
        if other is not None and "across" in fig.role:
            return FigureMatch("grounded", other)  # a sentence about the cohorts together
        if other is not None and shown_lo <= other.magnitude <= shown_hi and not fraction:
            return FigureMatch("misattributed", other)  # within the figure's own digits
        # a run-rate is the run-rate its wording names, or nothing ("$92.5M a quarter" is not
        # the monthly impact)
        derived = (
            self._derivation(fig, opp, sign)
            if derive and opp is not None and periods is None
            else None
        )
        if derived is not None:
            return FigureMatch("derived", derived)
        if other is not None:
            return FigureMatch("misattributed", other)
        index = self._global()[0].get(kind)
        wrong_sign = found.wrong_sign
        if sign and wrong_sign is None and index is not None:
            wrong_sign = next(
                (
                    f
                    for f in index.closest_first(mag, lo, hi)
                    if (f.value < 0) != (sign < 0) and accepts(claim, _role(f))
                ),
                None,
            )
        if wrong_sign is not None and "aside" in fig.role and wrong_sign.opp in (None, opp):
            return FigureMatch("grounded", wrong_sign)  # "EBITDA ($14.5M)": an aside, unsigned
        if wrong_sign is not None:
            return FigureMatch("sign", wrong_sign)
        expected = self._claimed(fig, opp, claim)
        wrong_role = found.wrong_role or other_role
        if wrong_role is not None:
            return FigureMatch("wrong_quantity", wrong_role, expected)
        if expected is not None:
            return FigureMatch("ungrounded", expected)
        return FigureMatch("ungrounded", index.nearest(mag) if index is not None else None)

    def _licensed_first(
        self, fig: Figure, opp: int | None, sign: int, periods: int | None
    ) -> SourceField | None:
        """The derivation a figure's wording names, tried before anything else: the run-rate
        of its period, or the share it is worded as (an explicitly negative figure may be a
        run-rate of a loss; shares are never negative)."""
        if opp is None:
            return None
        if periods is not None:
            return self.run_rate(fig, opp, periods)
        if sign >= 0 and _SHARE_ROLES & {t.split("=")[0] for t in fig.role.split()}:
            return self._share(fig, opp)
        return None

    def _claimed(self, fig: Figure, opp: int | None, claim: Role) -> SourceField | None:
        """The opportunity's (else the portfolio's) field of the role ``fig`` claims nearest
        its value, whatever the distance (None for a figure that claims no role)."""
        if claim is Role.ANY:
            return None
        own = self.own(opp, fig.kind) if opp is not None else []
        mag = abs(fig.value)
        for scope in (own, self.portfolio.get(fig.kind, [])):
            fields = [f for f in scope if _role(f) is claim]
            if fields:
                return min(fields, key=lambda f: abs(f.magnitude - mag))
        return None

    def _quoted(
        self,
        fig: Figure,
        opp: int | None,
        mag: float,
        lo: float,
        hi: float,
        sign: int,
        claim: Role,
    ) -> Picked[SourceField]:
        """``pick`` over the figures quoted in opportunity ``opp``'s and the portfolio's data
        strings (never prose) that are at least as precise as ``fig``."""
        texts = self.text_figures(None, fig.kind)
        if opp is not None:
            texts = self.text_figures(opp, fig.kind) + texts
        return pick(_as_precise(texts, fig), _role, claim, mag, lo, hi, sign)

    def _other_opportunity(
        self, fig: Figure, opp: int | None, mag: float, lo: float, hi: float, sign: int
    ) -> tuple[SourceField | None, SourceField | None]:
        """(another opportunity's field of the right sign and an accepted role, nearest
        first, else a figure quoted in another opportunity's data strings; the nearest other
        opportunity's field in the window of another role). A zero is never matched across
        opportunities."""
        if not mag:
            return None, None
        every, negatives = self._global()
        pool = negatives.get(fig.kind) if sign < 0 else every.get(fig.kind)
        claim = _claim(fig)
        wrong_role = None
        if pool is not None:
            # own and portfolio fields in the window were rejected above: few are skipped
            for f in pool.closest_first(mag, lo, hi):
                signed = sign <= 0 or f.value >= 0
                if not (f.opp is not None and f.opp != opp and signed and _fits(f, fig)):
                    continue
                if accepts(claim, _role(f)):
                    return f, None
                wrong_role = wrong_role or f
        for j in range(len(self._source.opportunities)):
            if j != opp:
                quoted = _as_precise(self.text_figures(j, fig.kind), fig)
                found = pick(quoted, _role, claim, mag, lo, hi, sign).best
                if found is not None:
                    return found, None
        return None, wrong_role

    def _match_role(
        self,
        fig: Figure,
        opp: int | None,
        config: GraderConfig,
        window: tuple[float, float] | None = None,
    ) -> FigureMatch:
        """``match`` for "k of m quarters": k only grounds in an observed-quarters field, m in
        a total-quarters field (``[k, m]`` pairs by position; unknown fields take either)."""
        role, kind, mag = fig.role, fig.kind, abs(fig.value)
        lo, hi = window if window is not None else tolerance_window(fig, config)
        if opp is not None:  # the usual answer: the opportunity's own [k, m] pair
            for f in self.in_window(opp, kind, lo, hi):
                if f.role == role or not f.role:
                    return FigureMatch("grounded", f)
        for f in self.portfolio.get(kind, ()):
            if lo <= f.magnitude <= hi and (f.role == role or not f.role):
                return FigureMatch("grounded", f)
        index = self._global()[0].get(kind)
        if index is None:
            return FigureMatch("ungrounded", None)
        for f in index.closest_first(mag, lo, hi):
            if f.opp is not None and f.opp != opp and _fits_role(role, f):
                return FigureMatch("misattributed", f)
        own = self.own(opp, kind) if opp is not None else ()
        same_role = [f for f in own if _fits_role(role, f)]
        nearest = min(same_role, key=lambda f: abs(f.magnitude - mag), default=None)
        return FigureMatch("ungrounded", nearest or index.nearest(mag))
