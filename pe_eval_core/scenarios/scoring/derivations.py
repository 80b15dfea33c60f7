"""Figures an agent derived from what it read: sums, differences, counts, means, ratios, days.

``no_hallucination`` asks whether every figure of a response is grounded in the scenario's
tool results. An agent that follows its skill does arithmetic: a headline total, a sum per
cause, a count of rows, the days between two timestamps. :class:`Grounds` holds every value
a figure may be grounded by, each with the derivation that produced it, so a finding can say
``$920 = sum of amount over 4 rows where reason = expired_card``.

What grounds a figure (the rule, as built by :class:`Grounds`):

1. **A value** read in a tool result (``range_reader.read_numbers`` of its text) or in the
   scenario's input and goal.
2. **Over one result set**, the results of one tool (every call of ``server/tool`` together:
   an agent that pages or asks per customer reads one table in parts):

   * every *table* in it (a JSON list of objects; in a text result, the bullet lines): its
     row count; per numeric column its sum and mean, its count of distinct values, and per
     row its difference from each other numeric column; the count of rows per pair of
     grouping-column values; per
     grouping column (strings, 2 to ``MAX_GROUP_VALUES`` distinct values; at most
     ``MAX_GROUP_COLUMNS`` of them) and each of its values, the rows' count and each numeric
     column's sum and mean over those rows, and the group's share of the rows and of the
     column's total (as a percent);
   * pairs from its *pool*: the sum, difference and ratio of two of its ``MAX_POOL`` most
     salient numbers (table aggregates first, then its summary fields or, in text, its
     numbers in order); for two of one kind (two row counts, two aggregates of one column,
     two summary fields) also the ratio as a percent, and for two summary fields (``before``
     and ``after``) the percent change.
3. **Elapsed time**: the minutes, hours, days, weeks or months between two timestamps (ISO
   dates or date-times) anywhere in the trace's results, over at most ``MAX_TIMESTAMPS``
   distinct ones; a figure followed by its unit matches a whole or rounded count of it
   ("9 days" is 8.5 to 9.99 days of timestamps).
4. **A total of stated figures**: a figure equal to the sum of 2 to ``MAX_TERMS`` other
   figures of the response that are grounded themselves, chosen among the ``MAX_STATED``
   nearest before it (a headline that adds up the per-cause lines), or to their difference,
   or (a percent) their ratio.

A figure matches a value within its display precision (``evidence.same_number``: ``$4.8k``
is any value in [4750, 4850)); after ``about``, ``around``, ``~``, ``nearly``... its trailing
zeros are rounding too (``about $1,200`` is any value in [1150, 1250]), and only a value as
read or one aggregate of a table matches it, never arithmetic on two numbers (a wide
interval would find some pair). A money figure also
matches a value /100 (integer cents in the data), a percent also a fraction x100. Derived
values never match across result sets (step 2): two tools' numbers are not one table.

Bound: the values of step 1 are looked up in sorted arrays (binary search per figure), so a
20,000-character result set costs its parse plus at most ``MAX_POOL`` squared pairs, a few
thousand group aggregates, ``MAX_TIMESTAMPS`` squared elapsed times and, per figure left
ungrounded, ``MAX_STATED`` choose up to ``MAX_TERMS`` sums:
``benchmarks/bench_derivations.py`` times it: a 20,000-character result set (159 rows) and
a 12-figure answer take about 21 ms of CPU, 40,000 characters about 35 ms.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pe_eval_core.scenarios.scoring.range_reader import Kind, NumberRead, read_numbers
from pe_eval_core.scenarios.scoring.result_tables import (
    ROWS,
    SCALAR,
    Pooled,
    Table,
    fmt,
    json_tables,
    list_lengths,
    parse_json,
    text_table,
    timestamps,
    top_scalars,
)

__all__ = [
    "MAX_GROUP_COLUMNS",
    "MAX_GROUP_VALUES",
    "MAX_POOL",
    "MAX_ROWS_PAIRED",
    "MAX_STATED",
    "MAX_TERMS",
    "MAX_TIMESTAMPS",
    "Derivation",
    "Grounds",
    "display_interval",
]

MAX_POOL = 64
"""Numbers per result set combined pairwise (sum, difference, ratio)."""
MAX_GROUP_VALUES = 30
"""Distinct values a grouping column may have."""
MAX_GROUP_COLUMNS = 12
"""Grouping columns per table."""
MAX_TIMESTAMPS = 40
"""Distinct timestamps paired for elapsed days and hours."""
MAX_STATED = 14
"""Grounded figures of the response a total may add up."""
MAX_TERMS = 6
"""Figures a total may add up."""
MAX_ROWS_PAIRED = 200
"""Rows whose columns are subtracted pairwise (``previous_amount - amount``)."""

_UNITS: tuple[tuple[str, re.Pattern[str], float], ...] = tuple(
    (
        name,
        re.compile(r"[ \t\u00a0-]*(?:calendar[ \t]+|business[ \t]+)?" + words + r"\b", re.I),
        sec,
    )
    for name, words, sec in (
        ("days", r"days?", 86400.0),
        ("hours", r"(?:hours?|hrs?|h)", 3600.0),
        ("weeks", r"(?:weeks?|wks?)", 7 * 86400.0),
        ("months", r"months?", 30.4375 * 86400),
        ("minutes", r"(?:minutes?|mins?)", 60.0),
    )
)
"""Elapsed-time units a figure may carry (step 3), with their length in seconds."""
_APPROX_BEFORE = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|close to"
    r"|circa|ca\.|just (?:over|under)|over|under|more than|less than)|~|≈)[ \t\u00a0]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Derivation:
    """A value a figure may stand for, and how it was obtained."""

    value: float
    how: str
    """In words, without its source: ``sum of amount over 4 rows where reason = expired``."""
    source: str = ""
    """The result set (``server/tool``), or where else the value was read."""
    rank: int = 1
    """0: read as written; 1: one aggregate of a table, or an elapsed time; 2: arithmetic on
    two numbers. A figure is grounded by the lowest rank that matches it."""
    terms: tuple[float, ...] = ()
    """The values a sum added up, shown in the finding."""
    scale: float = 1.0
    """100 when the figure states dollars for integer cents."""

    @property
    def derived(self) -> bool:
        """False for a value read as written (step 1): no finding needed."""
        return self.rank > 0

    def scaled(self, by: float) -> Derivation:
        return replace(self, value=self.value / by, scale=self.scale * by)

    def describe(self) -> str:
        """``sum of amount_cents over 4 rows where ...: 249 + 199 + 312 + 160 (db/get_payments),
        cents /100``."""
        text = self.how
        if self.terms:
            shown = [fmt(t / self.scale) for t in self.terms[:8]]
            text += ": " + " + ".join(shown) + (" + ..." if len(self.terms) > 8 else "")
        if self.source:
            text += f" ({self.source})"
        return text + (", cents /100" if self.scale == 100 else "")


# --- the candidates ---------------------------------------------------------------------------


class _Sorted:
    """Derivations sorted by magnitude, looked up by interval."""

    def __init__(self) -> None:
        self._items: list[Derivation] = []
        self._keys: list[float] | None = None

    def add(self, value: float, how: str, source: str = "", rank: int = 1, **kw: Any) -> None:
        if math.isfinite(value):
            self._items.append(Derivation(abs(value), how, source, rank, **kw))
            self._keys = None

    def _ready(self) -> list[float]:
        if self._keys is None:
            self._items.sort(key=lambda d: d.value)
            self._keys = [d.value for d in self._items]
        return self._keys

    def within(self, lo: float, hi: float, x: float) -> Derivation | None:
        """The best derivation in ``[lo, hi]``: lowest rank, then closest to ``x``."""
        keys = self._ready()
        i, j = bisect.bisect_left(keys, lo), bisect.bisect_right(keys, hi)
        if i >= j:
            return None
        return min(self._items[i:j], key=lambda d: (d.rank, abs(d.value - x), len(d.how)))

    def near(self, x: float, k: int) -> list[Derivation]:
        """Up to ``k`` candidates of distinct values closest to ``x``."""
        keys = self._ready()
        i = bisect.bisect_left(keys, x)
        return _distinct(self._items[max(0, i - 8 * k) : i + 8 * k], x, k)

    def __len__(self) -> int:
        return len(self._items)


def _distinct(items: Iterable[Derivation], x: float, k: int) -> list[Derivation]:
    best: dict[float, Derivation] = {}
    for d in sorted(items, key=lambda d: (abs(d.value - x), d.rank, len(d.how))):
        best.setdefault(round(d.value, 9), d)
        if len(best) == k:
            break
    return list(best.values())


def _approximate(figure: NumberRead, text: str) -> bool:
    return bool(_APPROX_BEFORE.search(text, max(0, figure.start - 20), figure.start))


def display_interval(figure: NumberRead, *, approximate: bool = False) -> tuple[float, float]:
    """The magnitudes ``figure`` may stand for (``evidence.same_number``'s rounding rule).

    ``approximate`` ("about $1,200", "~40%"): rounded to its last non-zero digit, so trailing
    zeros of a whole number are rounding too (``about $1,200`` is any value in [1150, 1250]).

    >>> from pe_eval_core.scenarios.scoring.range_reader import read_numbers
    >>> [tuple(round(x, 3) for x in display_interval(n)) for n in read_numbers("$4.8k, 9, 31.7%")]
    [(4750.0, 4850.0), (9.0, 9.0), (31.65, 31.75)]
    >>> [round(x) for x in display_interval(read_numbers("about $1,200")[0], approximate=True)]
    [1150, 1250]
    """
    from pe_eval_core.scenarios.scoring.evidence import display_unit

    x = abs(figure.value)
    unit = display_unit(figure)
    if approximate and unit and x:
        while unit * 10 <= x and round(x / (unit * 10)) * unit * 10 == x:
            unit *= 10  # "about 1,200": the hundreds are the displayed precision
    half = unit / 2 if 0 < unit <= x / 10 else 0.0
    slack = 1e-9 * max(x, 1.0)
    return x - half - slack, x + half + slack


class Grounds:
    """Every value a response's figures may be grounded by (the module's rule), built once
    per scenario from its tool results and its input/goal."""

    def __init__(self, results: Sequence[tuple[str, str]], context: Iterable[str] = ()):
        """``results``: ``(source, result text)`` per tool call, ``source`` naming the tool
        (calls with the same source form one result set)."""
        self.plain = _Sorted()
        """Values, sums, differences, means (money and plain figures)."""
        self.percent = _Sorted()
        """Percent values, fractions and ratios x100 (percent figures)."""
        self.counts = _Sorted()
        """Row counts, group counts, distinct counts (whole plain figures)."""
        self.elapsed = {name: _Sorted() for name, _, _ in _UNITS}
        """Elapsed times between timestamps, by unit (days, hours, weeks, months, minutes)."""
        by_source: dict[str, list[str]] = defaultdict(list)
        for source, text in results:
            by_source[source].append(text)
        stamps: list[datetime] = []
        for source, texts in by_source.items():
            self._result_set(source, texts)
            for t in texts:
                stamps.extend(timestamps(t))
        for text in context:
            for n in read_numbers(text):
                if n.kind is Kind.QUANTITY:
                    self._value(n, "the scenario's input or goal")
        self._elapsed(stamps)

    # -- building --

    def _value(self, n: NumberRead, source: str) -> None:
        if n.percent:
            self.percent.add(n.value, n.raw, source, rank=0)
            return
        self.plain.add(n.value, n.raw, source, rank=0)
        if not n.currency and abs(n.value) < 1:
            self.percent.add(n.value * 100, f"{n.raw} as a percent", source, rank=0)

    def _result_set(self, source: str, texts: list[str]) -> None:
        tables: dict[str, Table] = {}
        pool: list[Pooled] = []
        scalars: list[Pooled] = []
        for text in texts:
            numbers = [n for n in read_numbers(text) if n.kind is Kind.QUANTITY]
            for n in numbers:
                self._value(n, source)
            doc = parse_json(text)
            if doc is not None:
                json_tables(doc, "", tables)
                scalars.extend(top_scalars(doc))
                for length in set(list_lengths(doc)):
                    self.counts.add(length, f"a list of {length}", source, rank=0)
            else:
                text_table(text, "lines", tables)
                scalars.extend(Pooled(n.value, n.raw, SCALAR) for n in numbers)
        for table in tables.values():
            pool.extend(self._table(table, source))
        self._pairs((pool + scalars)[:MAX_POOL], source)

    def _table(self, t: Table, source: str) -> list[Pooled]:
        """Aggregates of one table (step 2); returns the salient ones for the pair pool."""
        if t.rows == 0:
            return []
        where = source if t.label in {"rows", "lines", "data"} else f"{source} {t.label}"
        self.counts.add(t.rows, f"count of {t.rows} rows", where)
        salient: list[Pooled] = [Pooled(float(t.rows), f"{t.rows} rows", ROWS)]
        for col, cells in t.numeric.items():
            values = [v for _, v in cells]
            total = math.fsum(values)
            n = len(values)
            self.plain.add(total, f"sum of {col} over {n} rows", where, terms=tuple(values))
            self.plain.add(total / n, f"mean of {col} over {n} rows", where)
            self.counts.add(len(set(values)), f"distinct {col} values", where)
            salient.append(Pooled(total, f"sum of {col}", col))
        self._row_differences(t, where)
        groups = [  # a column whose every value is its own (an identifier) groups nothing
            (col, labels)
            for col, labels in t.groups.items()
            if 2 <= len({v for _, v in labels}) <= min(MAX_GROUP_VALUES, len(labels) - 1)
        ][:MAX_GROUP_COLUMNS]
        for col, labels in t.groups.items():
            self.counts.add(len({v for _, v in labels}), f"distinct {col} values", where)
        for col, labels in groups:
            members: dict[str, set[int]] = defaultdict(set)
            for i, label in labels:
                members[label].add(i)
            for label, rows in members.items():
                self._group(t, f"{col} = {label}", rows, where, salient)
        for (ca, la), (cb, lb) in itertools.combinations(groups, 2):  # "2 urgent open tickets"
            of_b = dict(lb)
            both: dict[tuple[str, str], int] = defaultdict(int)
            for i, va in la:
                if i in of_b:
                    both[va, of_b[i]] += 1
            for (va, vb), n in both.items():
                self.counts.add(n, f"count of {n} rows where {ca} = {va} and {cb} = {vb}", where)
        return salient

    def _row_differences(self, t: Table, where: str) -> None:
        """Per row, the difference of two numeric columns ("previous_amount - amount")."""
        columns = list(t.numeric.items())[:MAX_GROUP_COLUMNS]
        for (ca, cells_a), (cb, cells_b) in itertools.combinations(columns, 2):
            by_row = dict(cells_b)
            for i, va in cells_a[:MAX_ROWS_PAIRED]:
                vb = by_row.get(i)
                if vb is not None and va != vb:
                    big, small = (ca, cb) if va > vb else (cb, ca)
                    self.plain.add(va - vb, f"{big} - {small} in a row", where, rank=2)

    def _group(
        self, t: Table, cond: str, rows: set[int], where: str, salient: list[Pooled]
    ) -> None:
        n = len(rows)
        self.counts.add(n, f"count of {n} rows where {cond}", where)
        self.percent.add(100 * n / t.rows, f"{n} of {t.rows} rows where {cond}", where)
        for col, cells in t.numeric.items():
            picked = [v for i, v in cells if i in rows]
            if not picked:
                continue
            total = math.fsum(picked)
            whole = math.fsum(v for _, v in cells)
            k = len(picked)
            self.plain.add(
                total, f"sum of {col} over {k} rows where {cond}", where, terms=tuple(picked)
            )
            self.plain.add(total / k, f"mean of {col} over {k} rows where {cond}", where)
            if whole:
                self.percent.add(100 * total / whole, f"{col} where {cond} as a share", where)
            salient.append(Pooled(total, f"sum of {col} where {cond}", col))

    def _pairs(self, pool: list[Pooled], source: str) -> None:
        """Sums and differences of two numbers (never a row count with another kind);
        ratios of any two (shares, rates)."""
        for a, b in itertools.combinations(pool, 2):
            if (a.unit == ROWS) == (b.unit == ROWS):
                big, small = (a, b) if a.value >= b.value else (b, a)
                self.plain.add(a.value + b.value, f"{a.what} + {b.what}", source, rank=2)
                self.plain.add(
                    big.value - small.value, f"{big.what} - {small.what}", source, rank=2
                )
            same_unit = a.unit == b.unit  # shares and changes compare like with like
            for x, y in ((a, b), (b, a)):
                if y.value:
                    ratio = x.value / y.value
                    self.plain.add(ratio, f"{x.what} / {y.what}", source, rank=2)
                    if same_unit:
                        self.percent.add(100 * ratio, f"{x.what} / {y.what}", source, rank=2)
                    if same_unit and a.unit == SCALAR:  # "MRR fell 17%": before / after
                        self.percent.add(
                            100 * (x.value - y.value) / y.value,
                            f"change from {y.what} to {x.what}",
                            source,
                            rank=2,
                        )

    def _elapsed(self, stamps: list[datetime]) -> None:
        distinct = list(dict.fromkeys(stamps))[:MAX_TIMESTAMPS]
        for a, b in itertools.combinations(distinct, 2):
            seconds = abs((b - a).total_seconds())
            span = f"{min(a, b):%Y-%m-%d %H:%M} to {max(a, b):%Y-%m-%d %H:%M}"
            for name, _, length in _UNITS:
                self.elapsed[name].add(seconds / length, f"{name} from {span}")

    # -- looking up --

    def ground(self, figure: NumberRead, text: str) -> Derivation | None:
        """What grounds ``figure`` (steps 1-3), or None."""
        approximate = _approximate(figure, text)
        lo, hi = display_interval(figure, approximate=approximate)
        x = abs(figure.value)
        hit = self._ground(figure, text, lo, hi, x)
        if hit is not None and approximate and hit.rank > 1:
            return None  # "about $1,900" = some pair's sum: too loose to ground anything
        return hit

    def _ground(
        self, figure: NumberRead, text: str, lo: float, hi: float, x: float
    ) -> Derivation | None:
        if not figure.percent and not figure.currency:
            for name, unit, _ in _UNITS:
                if unit.match(text, figure.end):  # "9 days": 9 rounded or 9 whole days
                    hit = self.elapsed[name].within(lo - 0.5, hi + 1 - 1e-9, x + 0.25)
                    if hit is not None:
                        return hit
        if figure.percent:
            return self.percent.within(lo, hi, x)
        found = [self.plain.within(lo, hi, x)]
        if not figure.currency and abs(figure.value) < 1:  # a percent in the data
            rate = self.percent.within(lo * 100, hi * 100, x * 100)
            found.append(rate.scaled(100) if rate is not None else None)
        if figure.currency:  # integer cents in the data
            cents = self.plain.within(lo * 100, hi * 100, x * 100)
            found.append(cents.scaled(100) if cents is not None else None)
        if not figure.currency and float(figure.value).is_integer():
            found.append(self.counts.within(lo, hi, x))
        hits = [d for d in found if d is not None]
        return min(hits, key=lambda d: d.rank) if hits else None

    def nearest(self, figure: NumberRead, text: str = "", k: int = 3) -> list[Derivation]:
        """The ``k`` candidates closest to ``figure``, for an ungrounded finding."""
        x = abs(figure.value)
        for name, unit, _ in _UNITS:
            if unit.match(text, figure.end) and len(self.elapsed[name]):
                return self.elapsed[name].near(x, k)
        tables = [self.percent] if figure.percent else [self.plain, self.counts]
        found = [d for t in tables for d in t.near(x, k)]
        if figure.currency:
            found += [d.scaled(100) for d in self.plain.near(x * 100, k)]
        return _distinct(found, x, k)


def stated_total(
    figure: NumberRead, grounded: Sequence[NumberRead]
) -> tuple[str, list[NumberRead]] | None:
    """Step 4: ``figure`` as the sum (2 to ``MAX_TERMS`` terms), difference or ratio of
    grounded figures of the response; returns the operation and its terms, or None.

    >>> from pe_eval_core.scenarios.scoring.range_reader import read_numbers
    >>> *parts, total = read_numbers("$1,640, $2,100, $540, $241, $299; total $4,820")
    >>> op, terms = stated_total(total, parts); op, [t.raw for t in terms]
    ('+', ['$1,640', '$2,100', '$540', '$241', '$299'])
    """
    lo, hi = display_interval(figure)
    same = [
        g
        for g in grounded
        if g.percent == figure.percent and bool(g.currency) == bool(figure.currency)
    ]
    before = sorted(
        (g for g in same if g.start < figure.start), key=lambda g: figure.start - g.start
    )
    after = [g for g in same if g.start > figure.start]
    pool = (before + after)[:MAX_STATED]
    for size in range(2, MAX_TERMS + 1):
        for combo in itertools.combinations(pool, size):
            if lo <= abs(math.fsum(abs(g.value) for g in combo)) <= hi:
                return "+", sorted(combo, key=lambda g: g.start)
    for a, b in itertools.permutations(pool, 2):
        if lo <= abs(abs(a.value) - abs(b.value)) <= hi and abs(a.value) > abs(b.value):
            return "-", [a, b]
    if figure.percent:
        money = [g for g in grounded if not g.percent][:MAX_STATED]
        for a, b in itertools.permutations(money, 2):
            if b.value and lo <= 100 * abs(a.value / b.value) <= hi:
                return "/", [a, b]
    return None
