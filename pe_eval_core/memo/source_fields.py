"""Source fields: every numeric value of an OpportunityMap as a typed, role-bearing field,
its unit from its key, the magnitude index figures are bisected in, and the walk that finds
them (``source_numbers`` matches figures against them)."""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from pe_eval_core.grading.roles import Role
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.roles import field_role
from pe_eval_core.numbers import Figure, FigureKind

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


MatchStatus = Literal[
    "grounded", "derived", "misattributed", "sign", "wrong_quantity", "ungrounded"
]


class FigureMatch(NamedTuple):
    """The verdict on one figure: the field that grounds it, or the nearest one if none does.

    For status ``derived`` the field is synthetic: its ``path`` is the formula
    (``opportunities[0].projected_impact_usd_annual / ebitda_baseline_usd``) and its value the
    derived value in the figure's unit.
    """

    status: MatchStatus
    field: SourceField | None
    expected: SourceField | None = None
    """For ``wrong_quantity``: the figure's own field of the role its wording claims."""


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
    if fig.lo <= 0 <= fig.hi:  # "$0" stands for [-0.5, 0.5]: magnitudes from 0
        lo = 0.0
    slack = 1e-9 * max(abs(fig.value), 1.0)
    return lo - slack, hi + slack


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


def _claim(fig: Figure) -> Role:
    """The role a figure's wording claims (``Role.ANY`` when it claims none)."""
    return Role(fig.claim) if fig.claim else Role.ANY


def _role(f: SourceField) -> Role:
    """The role of a source field (by its key, ``memo.roles``; a derivation has none)."""
    return field_role(f.path, f.unit)


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
