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
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import chain
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.models import OpportunityMap
from pe_eval_core.numbers import Figure, FigureKind, extract_figures

OPPORTUNITIES_KEY = "opportunities"
_HAS_DIGIT = re.compile(r"\d")
USD = FigureKind.USD

NON_NUMERIC_KEYS = frozenset({"id", "segment", "evidence_row_ids", "decision_cols", "archetype"})
"""Keys whose values are identifiers or labels (the entity universe), never quantities."""

_FRACTION_WORDS = frozenset(
    {
        "rate",
        "rates",
        "share",
        "ratio",
        "fraction",
        "frac",
        "prob",
        "probability",
        "margin",
        "yield",
        "apr",
        "apy",
        "proportion",
        "pct_frac",
    }
)
_COUNT_WORDS = frozenset(
    {
        "n",
        "count",
        "counts",
        "num",
        "loans",
        "rows",
        "accounts",
        "applications",
        "borrowers",
        "customers",
        "records",
        "observations",
        "transactions",
        "originations",
        "deals",
    }
)
_DURATION_WORDS = frozenset(
    {"week", "weeks", "day", "days", "month", "months", "year", "years", "hours", "minutes"}
)
_WEAK_USD_WORDS = frozenset({"revenue", "ebitda", "amount", "cost", "price", "balance"})


@lru_cache(maxsize=4096)
def unit_of_key(key: str) -> str:
    """The unit a source key implies: usd, percent, fraction, bps, count, quarters, score,
    difficulty, duration, or '' (unknown: kept with its path, never matched)."""
    tokens = [t for t in re.split(r"[^a-z0-9]+", key.lower()) if t]
    words = set(tokens)
    if any("difficulty" in t for t in tokens):
        return "difficulty"
    if words & {"usd", "dollar", "dollars"}:
        return "usd"
    if words & {"bps", "bp", "basis"}:
        return "bps"
    if words & {"pct", "percent", "percentage"}:
        return "percent"
    if "score" in words:
        return "score"
    if words & _FRACTION_WORDS:
        return "fraction"
    if words & {"quarter", "quarters"}:
        return "quarters"
    if words & _COUNT_WORDS:
        return "count"
    if words & _DURATION_WORDS:
        return "duration"
    if words & _WEAK_USD_WORDS:
        return "usd"
    return ""


def comparable_values(unit: str, value: float) -> list[tuple[FigureKind, float]]:
    """The (kind, value) pairs a source value stands for, in the units figures are parsed to.

    >>> comparable_values("fraction", 0.123)
    [(<FigureKind.PERCENT: 'percent'>, 12.3)]
    >>> comparable_values("bps", 150)
    [(<FigureKind.PERCENT: 'percent'>, 1.5)]
    """
    if unit == "usd":
        return [(FigureKind.USD, value)]
    if unit == "percent":
        return [(FigureKind.PERCENT, value)]
    if unit == "fraction":
        # A 0..1 field is a fraction (x100); a larger one was already written in points.
        return [(FigureKind.PERCENT, round(value * 100, 10) if abs(value) <= 1 else value)]
    if unit == "bps":
        return [(FigureKind.PERCENT, value / 100)]
    if unit == "count":
        return [(FigureKind.COUNT, value)]
    if unit == "quarters":
        return [(FigureKind.QUARTERS, value)]
    if unit == "difficulty":
        return [(FigureKind.DIFFICULTY, value)]
    if unit == "score":
        out = [(FigureKind.SCORE, value)]
        if 0 <= value <= 1:  # "persistence of 80%" for a 0.80 score
            out.append((FigureKind.PERCENT, round(value * 100, 10)))
        return out
    return []


class SourceField(NamedTuple):
    """One numeric source value as a figure of ``kind`` would be compared with it."""

    path: str
    """JSON path in the source, e.g. ``opportunities[1].projected_impact_usd_annual``."""
    kind: FigureKind | None
    """None for fields with no figure kind (durations, unknown keys): recorded, never matched."""
    value: float
    """Signed value in the figure's unit (fractions x100); the stored value for kind None."""
    raw_value: float
    unit: str
    opp: int | None
    """Index in ``opportunities`` or None for portfolio-level fields."""
    magnitude: float
    owner: str = ""
    """The owning opportunity's id ('' at portfolio level): breaks ties independently of order."""
    role: str = ""
    """For quarters fields: 'observed', 'total' or '' (either); see ``quarter_role``."""
    half: float = 0.0
    """For a figure quoted in a source string: half its displayed precision (``$1.2M``:
    50,000); a memo figure more precise than the quote is not grounded by it."""


class _Units(dict[str, str]):
    """``unit_of_key`` memoised in a plain dict (cheaper to read than the lru_cache)."""

    def __missing__(self, key: str) -> str:
        unit = self[key] = unit_of_key(key)
        return unit


_UNITS = _Units()

QUARTERS = FigureKind.QUARTERS
_SAME_VALUE_UNITS: dict[FigureKind, str] = {
    USD: "usd",
    FigureKind.COUNT: "count",
    QUARTERS: "quarters",
    FigureKind.DIFFICULTY: "difficulty",
}
"""The unit whose values a kind compares as stored (``comparable_values`` returns them as is)."""
_UNIT_KINDS: dict[str, tuple[FigureKind, ...]] = {
    "usd": (USD,),
    "percent": (FigureKind.PERCENT,),
    "fraction": (FigureKind.PERCENT,),
    "bps": (FigureKind.PERCENT,),
    "count": (FigureKind.COUNT,),
    "quarters": (QUARTERS,),
    "difficulty": (FigureKind.DIFFICULTY,),
    "score": (FigureKind.SCORE, FigureKind.PERCENT),
}
"""Every kind ``comparable_values`` can return for a unit."""


class KindIndex:
    """Source fields of one kind, sorted by magnitude for bisection."""

    __slots__ = ("fields", "mags")

    def __init__(self, fields: list[SourceField]):
        fields.sort(key=lambda f: (f.magnitude, f.owner, f.path))
        self.fields = fields
        self.mags = [f.magnitude for f in fields]

    def __len__(self) -> int:
        return len(self.fields)

    def closest_first(self, target: float, lo: float, hi: float) -> Iterator[SourceField]:
        """Fields with magnitude in [lo, hi], nearest to ``target`` first."""
        mags = self.mags
        left_end = bisect_left(mags, lo)
        right_end = bisect_right(mags, hi)
        right = min(max(bisect_left(mags, target), left_end), right_end)
        left = right - 1
        while left >= left_end or right < right_end:
            if right >= right_end or (
                left >= left_end and target - mags[left] <= mags[right] - target
            ):
                yield self.fields[left]
                left -= 1
            else:
                yield self.fields[right]
                right += 1

    def nearest(self, target: float) -> SourceField | None:
        """The field whose magnitude is closest to ``target`` (None for an empty index)."""
        if not self.fields:
            return None
        i = bisect_left(self.mags, target)
        if i == 0:
            return self.fields[0]
        if i == len(self.mags):
            return self.fields[-1]
        before, after = self.fields[i - 1], self.fields[i]
        return before if target - before.magnitude <= after.magnitude - target else after


_PAIR_WORDS = frozenset({"total", "of"})
_TOTAL_WORDS = frozenset({"total", "available", "window", "tracked", "span"})
_OBSERVED_WORDS = frozenset({"observed", "persistent", "persisted", "seen", "flagged", "hit"})


def _role_of(key: str, index: int | None) -> str:
    tokens = {t for t in re.split(r"[^a-z0-9]+", key.lower()) if t}
    if index is not None:
        if tokens >= _PAIR_WORDS:  # "k of m" pair: [observed, total]
            return ("observed", "total")[index] if index < 2 else ""
        return ""
    if tokens & _TOTAL_WORDS:
        return "total"
    if tokens & _OBSERVED_WORDS:
        return "observed"
    return ""


def quarter_role(path: str) -> str:
    """What a quarters source field counts: 'observed', 'total', or '' (unknown: either).

    >>> quarter_role("opportunities[2].persistence_quarters_out_of_total[0]")
    'observed'
    >>> quarter_role("opportunities[2].persistence_quarters_out_of_total[1]")
    'total'
    >>> quarter_role("quarters_total"), quarter_role("quarters_observed"), quarter_role("quarters")
    ('total', 'observed', '')
    """
    return _tail_role(path[path.rfind(".") + 1 :])  # the tail repeats across opportunities


@lru_cache(maxsize=1024)
def _tail_role(tail: str) -> str:
    if tail.endswith("]"):
        bracket = tail.find("[")
        index = tail[bracket + 1 : -1]
        return _role_of(tail[:bracket], int(index)) if index.isdigit() else ""
    return _role_of(tail, None)


_QUARTER_ROLES = frozenset({"observed", "total"})


def _fits_role(role: str, f: SourceField) -> bool:
    """A quarters figure of ``role`` only matches a field counting the same thing."""
    return not f.role or f.role == role


MatchStatus = Literal["grounded", "derived", "misattributed", "sign", "ungrounded"]


class FigureMatch(NamedTuple):
    """The verdict on one figure: the field that grounds it, or the nearest one if none does.

    For status ``derived`` the field is synthetic: its ``path`` is the formula
    (``opportunities[0].projected_impact_usd_annual / ebitda_baseline_usd``) and its value the
    derived value in the figure's unit.
    """

    status: MatchStatus
    field: SourceField | None


def tolerance_window(fig: Figure, config: GraderConfig) -> tuple[float, float]:
    """[lo, hi] magnitudes a figure accepts: the wider of its displayed precision and the
    nominal tolerance of its kind (USD relative, percent/score absolute, others exact)."""
    mag = abs(fig.value)
    lo, hi = abs(fig.lo), abs(fig.hi)
    if lo > hi:
        lo, hi = hi, lo
    kind = fig.kind
    if kind is FigureKind.USD:
        nominal = mag * config.usd_rel_tol
    elif kind is FigureKind.PERCENT:
        nominal = config.percent_abs_tol
    elif kind is FigureKind.SCORE:
        nominal = config.score_abs_tol
    else:
        nominal = 0.0
    slack = 1e-9 * (mag if mag > 1.0 else 1.0)  # float error in the producer's arithmetic
    return min(lo, mag - nominal) - slack, max(hi, mag + nominal) + slack


_Scope = dict[FigureKind, list[SourceField]]


class NumericUniverse:
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
            if type(value) is str and key != "id":
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
        >>> [f.path for f in u.in_window(0, USD, 1.2e6, 1.3e6)]
        ['opportunities[0].outcome_total_usd_annual', 'opportunities[0].extra.cost_usd',
         'opportunities[0].quarters_total[1].spend_usd']
        >>> all(u.in_window(0, k, -math.inf, math.inf)
        ...     == [f for f in u.opportunity_fields(0) if f.kind is k] for k in FigureKind)
        True
        """
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
        for kind in _DERIVED_KINDS:
            self._derived.pop((i, kind), None)

    def derive(
        self, i: int, kind: FigureKind, mag: float, lo: float, hi: float
    ) -> SourceField | None:
        """The derivation nearest ``mag`` with magnitude in [lo, hi] (see ``derivations``),
        or None. The candidates of opportunity ``i`` and ``kind`` are built once (a few
        hundred at most) and bisected like any other kind index."""
        if kind not in _DERIVED_KINDS:
            return None
        index = self._derived.get((i, kind))
        if index is None:
            index = self._derived[i, kind] = KindIndex(self.derivations(i, kind))
        return next(index.closest_first(mag, lo, hi), None)

    def derivations(self, i: int, kind: FigureKind) -> list[SourceField]:
        """Every derived value a figure of ``kind`` in opportunity ``i``'s prose may cite.

        The search is bounded by construction: its operands are opportunity ``i``'s own
        fields and the portfolio-level fields (a handful each; no cross-opportunity sums:
        on the templated demo they explain away tampered figures). USD: run-rates
        (``a / 4``, ``a / 12``), per-unit (``a / n`` for each own count), sum and difference
        of two fields (``a + b``, ``a - b``, signed). Percent: ratios of two USD operands
        (an impact over EBITDA or the portfolio total) x100, and the difference of two rate
        fields in points. All compared on magnitude.

        >>> u = NumericUniverse.build({"portco_id": "X", "ebitda_baseline_usd": 2e7,
        ...     "opportunities": [{"id": "a", "n": 1000, "projected_impact_usd_annual": 1.2e6,
        ...                        "outcome_total_usd_annual": -3e6}]})
        >>> d = {f.path: round(f.value, 2) for f in u.derivations(0, FigureKind.PERCENT)}
        >>> d["opportunities[0].projected_impact_usd_annual / ebitda_baseline_usd"]
        6.0
        >>> per_unit = [f for f in u.derivations(0, USD) if f.path.endswith("/ opportunities[0].n")]
        >>> ("opportunities[0].projected_impact_usd_annual / opportunities[0].n", 1200.0) in [
        ...     (f.path, f.value) for f in per_unit]
        True
        """
        owner = self._source.opportunities[i].id
        usd = self.own(i, USD) + self.portfolio.get(USD, [])
        out: list[tuple[str, float]] = []
        if kind is USD:
            counts = [c for c in self.own(i, FigureKind.COUNT) if c.magnitude > 0]
            out = _usd_derivations(usd, counts)
        else:
            rates = self.own(i, FigureKind.PERCENT) + self.portfolio.get(FigureKind.PERCENT, [])
            rates = [r for r in rates if r.unit in _RATE_UNITS]
            out = _percent_derivations(usd, rates)
        return [
            SourceField(path, kind, v, v, "derived", i, abs(v), owner, "")
            for path, v in out
            if math.isfinite(v) and v != 0
        ]

    def cross_sum(
        self, i: int, kind: FigureKind, mag: float, lo: float, hi: float
    ) -> SourceField | None:
        """For a figure worded as a sum ("together", "plus", "add up to"): the sum of two
        opportunities' impacts, opportunity ``i``'s among them (USD), or that sum's share
        of EBITDA or of the portfolio total (percent). Bounded by the opportunities' count.

        >>> u = NumericUniverse.build({"portco_id": "X", "total_projected_impact_usd_annual":
        ...     1e7, "opportunities": [{"id": "a", "projected_impact_usd_annual": 5.3e6},
        ...     {"id": "b", "projected_impact_usd_annual": 2.3e6}]})
        >>> u.cross_sum(1, FigureKind.USD, 7.6e6, 7.55e6, 7.65e6).path.split(" + ")
        ['(opportunities[0].projected_impact_usd_annual',
         'opportunities[1].projected_impact_usd_annual)']
        >>> round(u.cross_sum(1, FigureKind.PERCENT, 76.0, 75.5, 76.5).value, 1)
        76.0
        """
        sums = [f for f in self._cross_sums(i) if f.opp == i and i in _opps_in(f.path)]
        candidates = sums
        if kind is FigureKind.PERCENT:
            bottoms = [
                b for b in self.portfolio.get(USD, []) if any(w in _tail(b) for w in _DENOMINATORS)
            ]
            owner = self._source.opportunities[i].id
            candidates = [
                SourceField(f"{a.path} / {b.path}", kind, v, v, "derived", i, abs(v), owner)
                for a in sums
                for b in bottoms
                if b.magnitude > a.magnitude
                for v in (100 * a.magnitude / b.magnitude,)
            ]
        elif kind is not USD:
            return None
        return next(KindIndex(candidates).closest_first(mag, lo, hi), None)

    def _cross_sums(self, i: int) -> list[SourceField]:
        """``a.k + b.k`` for one projected-impact key over two opportunities, ``i`` among
        them or not (analysts add up two opportunities); bounded by the opportunities
        squared, and only for keys naming an impact."""
        opps = self._source.opportunities
        if len(opps) > _CROSS_LIMIT:
            return []
        per_opp = [
            [f for f in self.own(j, USD) if "impact" in f.path[f.path.rfind(".") :]]
            for j in range(len(opps))
        ]
        out: list[SourceField] = []
        owner = opps[i].id
        for j, fj in enumerate(per_opp):
            for k in range(j + 1, len(per_opp)):
                for a in fj:
                    tail = a.path[a.path.rfind(".") :]
                    for b in per_opp[k]:
                        if b.path.endswith(tail):
                            v = a.value + b.value
                            path = f"({a.path} + {b.path})"
                            out.append(SourceField(path, USD, v, v, "derived", i, abs(v), owner))
        return out

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

        Order: own fields and portfolio fields, then figures quoted in the source's strings
        (grounded); for a share of a loss (role ``of_loss``) a recovery ratio (derived);
        another opportunity's field or string (misattributed, still cited); other
        derivations (derived); a match of the wrong sign only (sign finding: an explicit
        ``-`` on a positive value or an explicit ``+`` on a negative one); otherwise the
        nearest field of the kind (ungrounded).
        """
        lo, hi = tolerance_window(fig, config)
        if fig.kind is QUARTERS and fig.role in _QUARTER_ROLES:
            return self._match_role(fig, opp, config, (lo, hi))
        kind, mag = fig.kind, abs(fig.value)
        sign = _sign(fig)
        own = self.in_window(opp, kind, lo, hi) if opp is not None else []
        pool = _fitting(chain(own, self.portfolio.get(kind, ())), fig)
        best, wrong_sign = _closest(pool, mag, lo, hi, sign)
        if best is None:  # a figure quoted from the source's own strings, after its fields
            best, quoted_sign = self._quoted(fig, opp, mag, lo, hi, sign)
            wrong_sign = wrong_sign or quoted_sign
        if best is not None:
            return FigureMatch("grounded", best)
        derive = config.derivations and opp is not None and sign >= 0
        if derive and opp is not None and _SHARE_ROLES & set(fig.role.split()):
            share = self._share(fig, opp)
            if share is not None:
                return FigureMatch("derived", share)
        shown_lo, shown_hi = _displayed(fig)
        other = self._other_opportunity(fig, opp, mag, lo, hi, sign)
        fraction = "fraction" in fig.role or "of_total" in fig.role  # a share: derive first
        if other is not None and shown_lo <= other.magnitude <= shown_hi and not fraction:
            return FigureMatch("misattributed", other)  # within the figure's own digits
        derived = self._derivation(fig, opp, sign) if derive and opp is not None else None
        if derived is not None:
            return FigureMatch("derived", derived)
        if other is not None:
            return FigureMatch("misattributed", other)
        index = self._global()[0].get(kind)
        if sign and wrong_sign is None and index is not None:
            wrong_sign = next(
                (f for f in index.closest_first(mag, lo, hi) if (f.value < 0) != (sign < 0)),
                None,
            )
        if wrong_sign is not None:
            return FigureMatch("sign", wrong_sign)
        return FigureMatch("ungrounded", index.nearest(mag) if index is not None else None)

    def _share(self, fig: Figure, opp: int) -> SourceField | None:
        """A figure worded as a share of a loss (role ``of_loss``: a recovery ratio) or of
        the quarters observed (``of_quarters``: k / m of the opportunity's quarters pair)."""
        lo, hi = _displayed(fig)
        mag = abs(fig.value)
        if "of_loss" in fig.role:
            return self.recovery(opp, mag, lo, hi)
        quarters = self.own(opp, QUARTERS)
        observed = [f for f in quarters if f.role == "observed"]
        total = [f for f in quarters if f.role == "total"]
        owner = self._source.opportunities[opp].id
        for k in observed:
            for m in total:
                v = 100 * k.magnitude / m.magnitude if m.magnitude else math.nan
                if lo <= v <= hi:
                    path = f"{k.path} / {m.path}"
                    return SourceField(path, FigureKind.PERCENT, v, v, "derived", opp, v, owner)
        return None

    def _derivation(self, fig: Figure, opp: int, sign: int) -> SourceField | None:
        """The derivation of opportunity ``opp`` within ``fig``'s displayed precision, of
        the figure's sign when it has one (``+$3.7M`` is not ``proj - imp`` of a loss); a
        sum worded as one (role ``sum``) may add another opportunity's impact."""
        mag, (lo, hi) = abs(fig.value), _displayed(fig)
        if "of_loss" in fig.role:
            return None  # a share of a loss is a recovery ratio or nothing
        found = self.derive(opp, fig.kind, mag, lo, hi)
        if found is None and "sum" in fig.role:
            found = self.cross_sum(opp, fig.kind, mag, lo, hi)
        if found is not None and sign > 0 and found.value < 0:
            return None
        return found

    def _quoted(
        self, fig: Figure, opp: int | None, mag: float, lo: float, hi: float, sign: int
    ) -> tuple[SourceField | None, SourceField | None]:
        """``_closest`` over the figures quoted in opportunity ``opp``'s and the portfolio's
        strings that are at least as precise as ``fig``."""
        texts = self.text_figures(None, fig.kind)
        if opp is not None:
            texts = self.text_figures(opp, fig.kind) + texts
        return _closest(_as_precise(texts, fig), mag, lo, hi, sign)

    def _other_opportunity(
        self, fig: Figure, opp: int | None, mag: float, lo: float, hi: float, sign: int
    ) -> SourceField | None:
        """Another opportunity's field of the right sign (nearest first), else a figure quoted
        in another opportunity's strings."""
        every, negatives = self._global()
        pool = negatives.get(fig.kind) if sign < 0 else every.get(fig.kind)
        if pool is not None:
            # own and portfolio fields in the window were rejected above: few are skipped
            for f in pool.closest_first(mag, lo, hi):
                other = f.opp is not None and f.opp != opp
                if other and (sign <= 0 or f.value >= 0) and _fits(f, fig):
                    return f
        for j in range(len(self._source.opportunities)):
            if j != opp:
                quoted = _as_precise(self.text_figures(j, fig.kind), fig)
                found, _ = _closest(quoted, mag, lo, hi, sign)
                if found is not None:
                    return found
        return None

    def recovery(self, i: int, mag: float, lo: float, hi: float) -> SourceField | None:
        """A recovery ratio of opportunity ``i`` in percent, for a figure written as a share
        of a loss ("40% of the cohort's loss", "cut the loss in half"): an impact field over
        a loss field (a negative outcome), x100. A handful of candidates, built on demand.

        >>> u = NumericUniverse.build({"portco_id": "X", "opportunities": [{"id": "a",
        ...     "projected_impact_usd_annual": 1.2e6, "outcome_total_usd_annual": -3e6}]})
        >>> u.recovery(0, 40.0, 39.5, 40.5).path
        'opportunities[0].projected_impact_usd_annual / -opportunities[0].outcome_total_usd_annual'
        """
        usd = self.own(i, USD)
        impacts = [a for a in usd if "impact" in _tail(a) and a.value > 0]
        losses = [
            b
            for b in usd
            if "outcome" in _tail(b) and "projected" not in _tail(b) and b.value < 0
            if _aggregate(b)
        ]  # today's loss: a negative outcome, not the projected one
        owner = self._source.opportunities[i].id
        best: SourceField | None = None
        for a in impacts:
            for b in losses:
                v = 100 * a.magnitude / b.magnitude
                if lo <= v <= hi and (best is None or abs(v - mag) < abs(best.value - mag)):
                    path = f"{a.path} / -{b.path}"
                    best = SourceField(path, FigureKind.PERCENT, v, v, "derived", i, v, owner)
        return best

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


_DERIVED_KINDS = (USD, FigureKind.PERCENT)
_CROSS_LIMIT = 12
"""Cross-opportunity sums are only formed for maps of at most this many opportunities."""
_RUN_RATES = ((4, "4"), (12, "12"))
_RATE_UNITS = frozenset({"fraction", "percent", "bps"})


_SHARE_ROLES = frozenset({"of_loss", "of_quarters"})
_OPP_INDEX = re.compile(rf"{OPPORTUNITIES_KEY}\[(\d+)\]")


def _opps_in(path: str) -> set[int]:
    return {int(x) for x in _OPP_INDEX.findall(path)}


def _as_precise(quoted: list[SourceField], fig: Figure) -> list[SourceField]:
    """The quoted figures at least as precise as ``fig``: "$1,200,000" in the memo is not
    grounded by a source sentence that says "$1.2M"."""
    half = (fig.hi - fig.lo) / 2 * (1 + 1e-9)
    return [q for q in quoted if q.half <= half]


def _displayed(fig: Figure) -> tuple[float, float]:
    """The magnitudes a figure's displayed precision covers (no nominal tolerance): a
    derivation must land where the figure's own digits put it."""
    lo, hi = sorted((abs(fig.lo), abs(fig.hi)))
    slack = 1e-9 * max(abs(fig.value), 1.0)
    return lo - slack, hi + slack


_DENOMINATORS = ("ebitda", "total_projected")
"""Ratios are an impact over EBITDA or the portfolio total (a share). Impact over loss
(a recovery ratio) is left out: on the templated demo it explains away tampered playbook
levels such as ``~50%`` (tests/memo/test_grader_mutations.py)."""


def _tail(f: SourceField) -> str:
    return f.path[f.path.rfind(".") + 1 :]


def _annual(f: SourceField) -> bool:
    """An annual flow (``*_annual`` key): the only operand of run-rates, per-unit values,
    sums and differences (a mean or a baseline is never added to a total)."""
    return "annual" in f.path[f.path.rfind(".") + 1 :]


def _aggregate(f: SourceField) -> bool:
    """Not a per-row statistic: the operands of ratios."""
    tail = f.path[f.path.rfind(".") + 1 :]
    return not any(w in tail for w in ("mean", "avg", "median", "per_"))


def _usd_derivations(usd: list[SourceField], counts: list[SourceField]) -> list[tuple[str, float]]:
    """Run-rates, per-unit values, sums and differences of USD operands (see ``derivations``)."""
    out: list[tuple[str, float]] = []
    plain = [a for a in usd if a.unit != "derived" and _annual(a)]
    for a in plain:  # signed: a loss's run-rate is negative ("+$721K a month" is no match)
        for d, shown in _RUN_RATES:
            out.append((f"{a.path} / {shown}", a.value / d))
        for c in counts:
            out.append((f"{a.path} / {c.path}", a.value / c.magnitude))
    for j, a in enumerate(plain):
        for b in plain[j + 1 :]:
            out.append((f"{a.path} + {b.path}", a.value + b.value))
            out.append((f"{a.path} - {b.path}", a.value - b.value))
    return out


def _percent_derivations(
    usd: list[SourceField], rates: list[SourceField]
) -> list[tuple[str, float]]:
    """Ratios of two USD operands x100 and differences of two rates in points."""
    out: list[tuple[str, float]] = []
    usd = [a for a in usd if _aggregate(a)]
    tops = [a for a in usd if "impact" in a.path]
    bottoms = [b for b in usd if any(w in _tail(b) for w in _DENOMINATORS)]
    for a in tops:
        for b in bottoms:
            if a is not b and a.magnitude < b.magnitude and b.unit != "derived":
                out.append((f"{a.path} / {b.path}", 100 * a.magnitude / b.magnitude))
    for j, a in enumerate(rates):
        for b in rates[j + 1 :]:
            if a.path != b.path:
                out.append((f"{a.path} - {b.path}", a.value - b.value))
    return out


def _closest(
    fields: Iterable[SourceField], mag: float, lo: float, hi: float, sign: int
) -> tuple[SourceField | None, SourceField | None]:
    """(the field in [lo, hi] nearest ``mag`` with the figure's sign, the first in [lo, hi]
    with the wrong sign): an explicitly negative figure (``sign`` -1) is only grounded by a
    negative value, an explicitly positive one (``+$1.4M``, ``sign`` 1) only by a value >= 0;
    an unsigned one (0) by either."""
    best: SourceField | None = None
    wrong_sign: SourceField | None = None
    for f in fields:
        m = f.magnitude
        if lo <= m <= hi:
            if (sign < 0 and f.value >= 0) or (sign > 0 and f.value < 0):
                wrong_sign = wrong_sign or f
            elif best is None or abs(m - mag) < abs(best.magnitude - mag):
                best = f
    return best, wrong_sign


def _sign(fig: Figure) -> int:
    """-1 for a figure written negative, 1 for one written with an explicit ``+``, else 0.

    >>> from pe_eval_core.numbers import extract_figures
    >>> [_sign(f) for f in extract_figures("-$1.2M, +$1.2M, $1.2M, (+4.1%)")]
    [-1, 1, 0, 1]
    """
    if fig.negative or fig.value < 0:
        return -1
    return 1 if fig.raw.lstrip("(")[:1] == "+" else 0


def _fits(f: SourceField, fig: Figure) -> bool:
    """A fraction word ("half", "a third") is a share: never a 0..1 score read as percent."""
    return not (f.unit == "score" and "fraction" in fig.role)


def _fitting(fields: Iterable[SourceField], fig: Figure) -> Iterable[SourceField]:
    if "fraction" not in fig.role:
        return fields
    return (f for f in fields if _fits(f, fig))


def _declared(model: BaseModel) -> dict[str, Any]:
    """A pydantic model's declared fields as {name: value}, in declaration order."""
    return {name: getattr(model, name) for name in type(model).model_fields}


def _items(model: BaseModel) -> Iterator[tuple[str, Any]]:
    """A pydantic model's declared fields and its extra keys, as (key, value)."""
    for name in type(model).model_fields:
        yield name, getattr(model, name)
    if model.model_extra:
        yield from model.model_extra.items()


def _by_kind(fields: list[SourceField]) -> _Scope:
    out: _Scope = {}
    for f in fields:
        kind = f.kind
        if kind is not None:
            bucket = out.get(kind)
            if bucket is None:
                out[kind] = [f]
            else:
                bucket.append(f)
    return out


def _scalar(
    value: float, path: str, key: str, opp: int | None, out: list[SourceField], owner: str = ""
) -> None:
    v = float(value)
    if not math.isfinite(v):
        return
    unit = _UNITS[key]
    pairs = comparable_values(unit, v)
    if not pairs:
        out.append(SourceField(path, None, v, v, unit, opp, abs(v), owner, ""))
    role = quarter_role(path) if unit == "quarters" else ""
    for kind, cv in pairs:
        out.append(SourceField(path, kind, cv, v, unit, opp, abs(cv), owner, role))


_SAME, _CONVERTED, _OTHER = 0, 1, 2
_SCALAR_TYPES = frozenset({float, int, str, bool, type(None)})
_NO_KEYS: frozenset[str] = frozenset()


class _Plans(dict[FigureKind | None, Any]):
    """Per key set (and nested keys): the plan of each kind, built on first use; the key
    set itself under ``None``."""


_PLANS: dict[tuple[tuple[str, ...], frozenset[str]], _Plans] = {}


def _plans(keys: tuple[str, ...], nested: frozenset[str]) -> _Plans:
    plans = _PLANS.get((keys, nested))
    if plans is None:
        if len(_PLANS) >= 1024:
            _PLANS.clear()
        plans = _PLANS[keys, nested] = _Plans({None: (keys, nested)})
    return plans


def _nested_keys(values: dict[str, Any]) -> frozenset[str]:
    """Keys (outside ``NON_NUMERIC_KEYS``) whose value may nest numbers under keys of its
    own: anything but a scalar or a flat list of scalars (bools are never numbers)."""
    nested = None
    scalar = _SCALAR_TYPES
    for key, value in values.items():
        if type(value) in scalar or key in NON_NUMERIC_KEYS:
            continue
        if type(value) is list and scalar.issuperset(map(type, value)):
            continue
        if nested is None:
            nested = {key}
        else:
            nested.add(key)
    return _NO_KEYS if nested is None else frozenset(nested)


def _plan(values: dict[str, Any], kind: FigureKind, plans: _Plans) -> tuple[tuple[str, int], ...]:
    """The keys that can hold a number of ``kind``, in order, each with how its unit yields
    ``kind``: as stored (_SAME), converted (_CONVERTED), or not at all (_OTHER: a key whose
    value nests numbers under keys of its own)."""
    keys, nested = plans[None]
    same = _SAME_VALUE_UNITS.get(kind)
    steps = []
    for key in keys:
        if key in NON_NUMERIC_KEYS:
            continue
        unit = _UNITS[key]
        if unit == same:
            steps.append((key, _SAME))
        elif kind in _UNIT_KINDS.get(unit, ()):
            steps.append((key, _CONVERTED))
        elif key in nested:
            steps.append((key, _OTHER))
    return tuple(steps)


def _walk(
    value: Any, path: str, key: str, opp: int | None, out: list[SourceField], owner: str = ""
) -> None:
    """Every number under ``value``; a number's unit comes from the nearest enclosing key
    that has one (``quarterly_cure_rate[3].value`` is a rate).

    >>> out = []
    >>> _walk([{"quarter": "2025Q1", "value": 0.41}], "o.quarterly_cure_rate",
    ...       "quarterly_cure_rate", 0, out)
    >>> [(f.path, f.kind.value, f.value) for f in out]
    [('o.quarterly_cure_rate[0].value', 'percent', 41.0)]
    """
    if value is None or isinstance(value, str | bool):
        return
    if isinstance(value, int | float):
        _scalar(value, path, key, opp, out, owner)
    elif isinstance(value, BaseModel | dict):
        items = _items(value) if isinstance(value, BaseModel) else value.items()
        for k, v in items:
            if k not in NON_NUMERIC_KEYS:
                ck = str(k)  # "value" in a series of rates: the series' unit
                _walk(v, f"{path}.{k}", ck if _UNITS[ck] else key, opp, out, owner)
    elif isinstance(value, list):
        for j, v in enumerate(value):
            _walk(v, f"{path}[{j}]", key, opp, out, owner)
