"""Numbers read with their meaning: does a response satisfy a ``numeric_range``?

The seed reads every digit run as a number and asks whether any lies in ``[min, max]``. A
careful reader does more: it knows a loss written ``-$4,820`` or ``($4,820)`` is a loss of
4,820, that ``$4,820`` is 482,000 cents, that ``15%`` and ``0.15`` are one rate, that
``eight`` and "No fraud cases" are counts, and that ``2026``, ``INV-4821``, ``#12345`` and
``+1 415 555 4820`` are not quantities at all. This module is that reader, as data: every
number it saw, its raw text, its value, and why it was accepted or rejected.

``number_reader`` reads every number (digits through ``pe_eval_core.numbers``, number words)
and classifies what is not a quantity; this module tries the readings a field allows.

Decision rules (each is a row of ``tests/scenarios/test_range_reader.py``):

1. **Signed value.** A number whose signed value lies in ``[min, max]`` (inclusive, with a
   relative 1e-9 slack for float error) satisfies the range.
2. **Magnitude when the sign is written.** A negative number written with a sign (``-``,
   U+2212) or accounting brackets (``($4,820)``) satisfies a range whose ``min >= 0`` by its
   magnitude: a non-negative range names an amount ("mrr lost"), and the sign only says which
   way it went. Not on a *signed field* (one whose name has a token ``change``, ``delta``,
   ``net``, ``growth``, ``gain``, ``diff``, ``variance``, ``balance``, ``profit``, ``pnl``,
   ``return``): there the sign is the fact, and ``-$4,820`` contradicts ``[4338, 5302]``.
3. **Sign carried by words.** A positive number preceded, within the same sentence and at
   most 40 characters before it, by a loss word (``lost``, ``loss``, ``down``, ``decline``,
   ``dropped``, ``fell``, ``churned``, ``leaked``, ``shortfall``, ``deficit``, ``decrease``,
   ``reduction``, ``minus``, ``negative``...) satisfies a range whose ``max <= 0`` by its
   negation: "lost $4,820" against ``mrr_change`` in ``[-5302, -4338]``.
4. **Cents.** On a *cents field* (a name token ``cents``), an amount written with a currency
   (``$4,820``, ``4,820 USD``) is read only as cents, x100 (a careful reader does not take
   ``$4,820`` for 4,820 cents); other numbers are read as written. On any other field a
   number followed by ``cents``/``cent``/``¢`` is read /100 (as dollars).
5. **Rates.** On a *rate field* (a name token ``pct``, ``percent``, ``percentage``, ``rate``),
   a percent (``15%``, ``15 percent``) is also read /100 and a bare number of magnitude at
   most 1 (``0.15``) also x100, so one rate in either form matches a fraction range
   (``[0.1, 0.2]``) or a percentage-point range (``[10, 20]``).
6. **Brackets.** Parentheses around a figure (``($920)``, ``(1,200)``) make it negative
   only in an accounting context (``accounting_brackets``): alone in a markdown table cell
   (``| Refunds | ($920) |``), alone after a label (``Net change: ($920)``, ``Refunds
   ($920)`` after a tab or two spaces, a line of leader dots), or alone on its line. In
   running prose brackets are an aside: "we refunded the duplicate ($920) on Friday" states
   +920. ``$(920)``, brackets inside the currency, is accounting notation wherever it is.
7. **Separators.** A thin space U+2009, narrow no-break space U+202F or no-break space
   U+00A0 between exact thousands groups is a thousands separator (``4\u2009820`` = 4820).
8. **Number words.** ``zero`` to ``twenty`` (whole words, not hyphenated: ``twenty-one`` and
   ``one-time`` are not read), ``none``, and ``no`` as a quantifier (followed by a word, not
   ``no more/less/fewer/longer/later/sooner/further/doubt/matter/way``) are numbers: "No
   fraud cases" is 0 and satisfies ``[0, 0]``.
9. **Never quantities.** Rejected with their reason, whatever the range:

   * ``year``: a bare integer 1900-2100 (no currency, sign, separator, decimals or percent),
     unless the next word is a count noun (``2026 customers``);
   * ``date``/``time``: ISO dates, clock times, month-name dates (skipped by the scanner);
   * ``id``: a number glued to letters or ``_`` (``cus_GL007``, ``in_quill_apr2``), after
     ``#`` (``#12345``), or a bare integer right after an identifier noun (``invoice 4820``,
     ``order #4820``, ``ticket no. 4820``, ``INV-4821``);
   * ``phone``: every number inside a phone-number shape (``+1 415 555 4820``,
     ``(415) 555-0123``, ``415-555-0123``, ``555-0123``).

>>> rng = Range(field="total_mrr_lost", min=4338, max=5302)
>>> [n.reason for n in read_range("Invoice INV-4821: lost -$4,820 in 2026", rng).numbers]
['magnitude in range (sign written, non-negative range)', 'year']
>>> read_range("$4,820", Range(field="total_mrr_lost_cents", min=481000, max=483000)).satisfied
True
>>> read_range("No fraud cases", Range(field="fraud_case_count", min=0, max=0)).matched.raw
'No'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from pe_eval_core.scenarios.scoring.number_reader import (
    Kind,
    Reading,
    accounting_brackets,
    normalize_separators,
    prose_value,
    readings,
)

__all__ = [
    "Kind",
    "NumberRead",
    "Range",
    "RangeLike",
    "RangeRead",
    "Reading",
    "Reason",
    "accounting_brackets",
    "is_cents_field",
    "is_rate_field",
    "is_signed_field",
    "judge",
    "nearest",
    "normalize_separators",
    "prose_value",
    "range_satisfied",
    "read_numbers",
    "read_range",
    "readings",
]


class RangeLike(Protocol):
    """Anything with ``field``, ``min`` and ``max`` (e.g. ``models.NumericRange``)."""

    @property
    def field(self) -> str: ...
    @property
    def min(self) -> float: ...
    @property
    def max(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Range:
    """A numeric range on its own (tests and callers without the pydantic model)."""

    field: str
    min: float
    max: float


class Reason(StrEnum):
    """Why a number was accepted for a range, or rejected."""

    SIGNED = "signed value in range"
    MAGNITUDE = "magnitude in range (sign written, non-negative range)"
    LOSS_WORD = "negated by a loss word, in a non-positive range"
    CENTS_FROM_AMOUNT = "amount x100 in a cents range"
    DOLLARS_FROM_CENTS = "cents /100 in range"
    PERCENT_AS_FRACTION = "percent /100 in a rate range"
    FRACTION_AS_PERCENT = "fraction x100 in a rate range"
    OUT_OF_RANGE = "out of range"
    YEAR = "year"
    ID = "id"
    PHONE = "phone"


@dataclass(frozen=True, slots=True)
class NumberRead:
    """One number as read from the text (and, inside a ``RangeRead``, judged for a range)."""

    raw: str
    """The text as written (``text[start:end]``)."""
    start: int
    end: int
    value: float
    """Signed value as written (``-$4,820`` -> -4820.0; ``15%`` -> 15.0; ``No`` -> 0.0)."""
    kind: Kind
    currency: str | None = None
    percent: bool = False
    word: bool = False
    """True for a number word (``eight``, ``none``, ``no``)."""
    sign_written: bool = False
    """True when a minus sign or accounting brackets make it negative."""
    cents_marked: bool = False
    """True when ``cents``/``cent``/``¢`` follows it."""
    loss_word: str | None = None
    """The loss word before it in the same sentence (rule 3), if any."""
    accepted: bool = False
    """Set by ``read_range``: this number satisfies the range."""
    read_as: float | None = None
    """Set by ``read_range``: the value that fell in the range (after rules 2-5)."""
    reason: str = ""
    """Set by ``read_range``: a ``Reason`` value (why accepted, or why rejected)."""


@dataclass(frozen=True, slots=True)
class RangeRead:
    """A range decided against a response, with every number read along the way."""

    field: str
    min: float
    max: float
    satisfied: bool
    numbers: tuple[NumberRead, ...]
    """Every number in text order, each with ``accepted``, ``read_as`` and ``reason``."""

    @property
    def matched(self) -> NumberRead | None:
        """The first accepted number."""
        return next((n for n in self.numbers if n.accepted), None)

    @property
    def nearest(self) -> float | None:
        """When unsatisfied, the quantity (as written) closest to the range, else None."""
        if self.satisfied:
            return None
        values = [n.value for n in self.numbers if n.kind is Kind.QUANTITY]
        return nearest(values, self.min, self.max)


# --- field names ------------------------------------------------------------------------------

_SIGNED_TOKENS = frozenset(
    {"change", "delta", "net", "growth", "gain", "diff", "variance", "balance", "profit"}
    | {"pnl", "return", "returns"}
)
_RATE_TOKENS = frozenset({"pct", "percent", "percentage", "rate"})


def _field_tokens(field: str) -> set[str]:
    return {t for t in re.split(r"[^a-z0-9]+", field.lower()) if t}


def is_cents_field(field: str) -> bool:
    """``total_mrr_lost_cents`` is; ``percent`` or ``recents`` are not.

    >>> is_cents_field("total_mrr_lost_cents"), is_cents_field("mrr_lost")
    (True, False)
    """
    return "cents" in _field_tokens(field)


def is_rate_field(field: str) -> bool:
    """A name token ``pct``/``percent``/``percentage``/``rate`` (``churn_rate``, ``win_pct``).

    >>> is_rate_field("churn_rate"), is_rate_field("refund_pct"), is_rate_field("rated_count")
    (True, True, False)
    """
    return bool(_field_tokens(field) & _RATE_TOKENS)


def is_signed_field(field: str) -> bool:
    """A field whose sign is the fact (rule 2 does not apply).

    >>> is_signed_field("mrr_change"), is_signed_field("net_revenue"), is_signed_field("mrr_lost")
    (True, True, False)
    """
    return bool(_field_tokens(field) & _SIGNED_TOKENS)


def read_numbers(text: str, *, loss_words: bool = True) -> list[NumberRead]:
    """Every number in ``text`` (digits and number words), classified, in text order
    (``readings`` as ``NumberRead`` objects).

    >>> [(n.raw, n.value, n.kind.value) for n in read_numbers("eight of 2026's #12345 cards")]
    [('eight', 8.0, 'quantity'), ('2026', 2026.0, 'year'), ('12345', 12345.0, 'id')]
    """
    return [NumberRead(*r) for r in readings(text, loss_words=loss_words)]


# --- the decision -----------------------------------------------------------------------------


def _within(x: float, lo: float, hi: float) -> bool:
    slack = 1e-9 * max(abs(lo), abs(hi), 1.0)
    return lo - slack <= x <= hi + slack


_REJECTED = {Kind.YEAR: Reason.YEAR.value, Kind.ID: Reason.ID.value, Kind.PHONE: Reason.PHONE.value}
_OUT_OF_RANGE = Reason.OUT_OF_RANGE.value  # (the enum values as plain text, looked up once)


@dataclass(frozen=True, slots=True)
class _FieldRules:
    """What a field's name allows (rules 2, 4, 5), read once per range."""

    cents: bool
    rate: bool
    signed: bool

    @classmethod
    def of(cls, field: str) -> _FieldRules:
        return cls(is_cents_field(field), is_rate_field(field), is_signed_field(field))


def _readings(
    n: Reading | NumberRead, rules: _FieldRules, lo: float, hi: float
) -> list[tuple[float, Reason]]:
    """The values a number may stand for on this field, each with the rule that allows it."""
    if rules.cents and n.currency is not None:
        base = [(n.value * 100, Reason.CENTS_FROM_AMOUNT)]  # rule 4: "$4,820" is 482,000 cents
    elif not rules.cents and n.cents_marked:
        base = [(n.value / 100, Reason.DOLLARS_FROM_CENTS)]
    else:
        base = [(n.value, Reason.SIGNED)]
    if rules.rate:  # rule 5
        if n.percent:
            base.append((n.value / 100, Reason.PERCENT_AS_FRACTION))
        elif abs(n.value) <= 1 and not n.word:
            base.append((n.value * 100, Reason.FRACTION_AS_PERCENT))
    out = list(base)
    for value, reason in base:
        if value < 0 and n.sign_written and lo >= 0 and not rules.signed:
            out.append((-value, Reason.MAGNITUDE if reason is Reason.SIGNED else reason))
        if value > 0 and n.loss_word and hi <= 0:
            out.append((-value, Reason.LOSS_WORD if reason is Reason.SIGNED else reason))
    return out


Decision = tuple[bool, float | None, str]
"""One number judged for a range: (accepted, the value read in range or None, ``Reason``)."""


def judge(numbers: Sequence[Reading] | Sequence[NumberRead], rng: RangeLike) -> list[Decision]:
    """Each number's decision for ``rng`` (rules 1-5 and 8), in order: the one decision
    ``read_range`` and the scorer (``steps.numeric_check``) share. ``numbers`` must carry
    their loss words when ``rng``'s max is at most 0 (``read_numbers``' default)."""
    rules = _FieldRules.of(rng.field)
    lo, hi = float(rng.min), float(rng.max)
    out: list[Decision] = []
    quantity = Kind.QUANTITY  # (speed: an enum member looked up once, not per number)
    if rules.cents or rules.rate:
        for n in numbers:
            if n.kind is not quantity:
                out.append((False, None, _REJECTED[n.kind]))
                continue
            hit = next(((v, r) for v, r in _readings(n, rules, lo, hi) if _within(v, lo, hi)), None)
            out.append(
                (False, None, _OUT_OF_RANGE) if hit is None else (True, hit[0], hit[1].value)
            )
        return out
    # Most fields: one reading per number (``_readings`` with neither cents nor rate rules),
    # plus at most one sign-flipped one, decided inline (no lists per number).
    slack = 1e-9 * max(abs(lo), abs(hi), 1.0)  # as ``_within``
    low, high = lo - slack, hi + slack
    magnitude = lo >= 0 and not rules.signed
    loss = hi <= 0
    for n in numbers:
        if n.kind is not quantity:
            out.append((False, None, _REJECTED[n.kind]))
            continue
        if n.cents_marked:
            v, why, flipped_why = n.value / 100, _CENTS_TEXT, _CENTS_TEXT
        else:
            v, why, flipped_why = n.value, _SIGNED_TEXT, ""
        if low <= v <= high:
            out.append((True, v, why))
        elif v < 0 and magnitude and n.sign_written and low <= -v <= high:
            out.append((True, -v, flipped_why or _MAGNITUDE_TEXT))
        elif v > 0 and loss and n.loss_word and low <= -v <= high:
            out.append((True, -v, flipped_why or _LOSS_TEXT))
        else:
            out.append((False, None, _OUT_OF_RANGE))
    return out


_SIGNED_TEXT, _CENTS_TEXT = Reason.SIGNED.value, Reason.DOLLARS_FROM_CENTS.value
_MAGNITUDE_TEXT, _LOSS_TEXT = Reason.MAGNITUDE.value, Reason.LOSS_WORD.value


def nearest(values: Sequence[float], lo: float, hi: float) -> float | None:
    """The value closest to ``[lo, hi]`` (None when there is none): what an unsatisfied range
    reports."""
    if not values:
        return None
    return min(values, key=lambda v: lo - v if v < lo else v - hi)


def read_range(text: str, rng: RangeLike, numbers: list[NumberRead] | None = None) -> RangeRead:
    """Decide ``rng`` against ``text``; ``numbers`` (from ``read_numbers``) avoids re-reading.

    >>> r = read_range("Churn hit 15% in Q3", Range(field="churn_rate", min=0.1, max=0.2))
    >>> r.satisfied, r.matched.read_as, r.matched.reason
    (True, 0.15, 'percent /100 in a rate range')
    """
    numbers = read_numbers(text) if numbers is None else numbers
    judged = [
        replace(n, accepted=accepted, read_as=read_as, reason=reason)
        if accepted
        else replace(n, reason=reason)
        for n, (accepted, read_as, reason) in zip(numbers, judge(numbers, rng), strict=True)
    ]
    return RangeRead(
        field=rng.field,
        min=float(rng.min),
        max=float(rng.max),
        satisfied=any(n.accepted for n in judged),
        numbers=tuple(judged),
    )


def range_satisfied(text: str, rng: RangeLike) -> bool:
    """``read_range(text, rng).satisfied``.

    >>> range_satisfied("Call +1 415 555 4820", Range(field="mrr_lost", min=4338, max=5302))
    False
    """
    return read_range(text, rng).satisfied
