"""Numbers read with their meaning: does a response satisfy a ``numeric_range``?

The seed reads every digit run as a number and asks whether any lies in ``[min, max]``. A
careful reader does more: it knows a loss written ``-$4,820`` or ``($4,820)`` is a loss of
4,820, that ``$4,820`` is 482,000 cents, that ``15%`` and ``0.15`` are one rate, that
``eight`` and "No fraud cases" are counts, and that ``2026``, ``INV-4821``, ``#12345`` and
``+1 415 555 4820`` are not quantities at all. This module is that reader, as data: every
number it saw, its raw text, its value, and why it was accepted or rejected.

Digits are read by ``pe_eval_core.numbers.extract_numbers`` (its public API only); this module
adds number words, classifies what is not a quantity, and tries the readings a field allows.

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
import string
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import NamedTuple, Protocol

from pe_eval_core.numbers import DEFAULT_COUNT_NOUNS, NumberMention, number_spans

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


class Kind(StrEnum):
    """What a number in the text is, before any range is considered."""

    QUANTITY = "quantity"
    """An amount, count or rate: the only kind that can satisfy a range."""
    YEAR = "year"
    ID = "id"
    PHONE = "phone"


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


# --- text -------------------------------------------------------------------------------------

_GROUPED = re.compile(
    r"""
    (?<![\d,.])                 # the start of a number
    \d{1,3}                     # its leading group
    (?:[\u2009\u202f\u00a0]\d{3})+   # thousands groups after a thin / narrow / no-break space
    (?![\u2009\u202f\u00a0]?\d)   # and nothing more of it ("12 345 6" is not grouped)
    """,
    re.VERBOSE,
)


def normalize_separators(text: str) -> str:
    """Thousands separated by U+2009, U+202F or U+00A0 become commas; same length, same spans.

    >>> normalize_separators("$4\u2009820 and 1\u202f234\u00a0567")
    '$4,820 and 1,234,567'
    >>> normalize_separators("12\u2009345\u20096") == "12\u2009345\u20096"
    True
    """
    if "\u2009" not in text and "\u202f" not in text and "\u00a0" not in text:
        return text  # no such separator: nothing to change (most responses)
    return _GROUPED.sub(lambda m: re.sub(r"[\u2009\u202f\u00a0]", ",", m.group()), text)


# fmt: off
_UNITS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)
# fmt: on
_WORD_VALUES = {w: float(i) for i, w in enumerate(_UNITS)}
_WORD_VALUES["none"] = 0.0

_NOT_QUANTIFIER = r"more|less|fewer|longer|later|sooner|further|doubt|matter|way"

# (speed) The pattern opens with the set of first letters, consumed: the engine then skips to
# the next such letter in C instead of entering the pattern at every position. The words are
# grouped by that letter (looked behind at once per group) and read by their tails,
# case-insensitive; U+017F (long s) is in the set because case-insensitive "s" matches it.
# The match is the whole word, as written.
_WORD_TAILS: dict[str, list[str]] = {}
for _w in _WORD_VALUES:
    _WORD_TAILS.setdefault(_w[0], []).append(_w[1:])
_NUMBER_WORD = re.compile(
    rf"""
    [zotfsenZOTFSEN\u017f]             # every word below starts so
    (?<![\w\-\u2010\u2011].)           # a whole word, not the tail of "thirty-five"
    (?i:
        {"|".join(f"(?<={c})(?:{'|'.join(tails)})" for c, tails in _WORD_TAILS.items())}
      | (?P<no>(?<=n)o)(?=[ \t\u00a0]+(?!(?:{_NOT_QUANTIFIER})\b)[^\W\d_])   # "no fraud cases"
    )
    (?![\w\-\u2010\u2011])             # not "one-time", "twenty-one", "someone"
    """,
    re.VERBOSE,
)

# (speed) The first character is consumed by a set the engine skips to in C; each shape then
# looks behind at it ("+", "(" or a digit) and reads the rest.
_PHONE = re.compile(
    r"""
    [+(\d]                               # every shape starts so
    (?<![\w.,].)                         # and not inside a word or number
    (?:
        (?<=\+)\d{1,3}(?:[ .\-]?\(?\d{1,4}\)?){2,5}      # +1 415 555 4820, +44 20 7946 0958
      | (?<=\()\d{3}\)[ .\-]?\d{3}[ .\-]\d{4}            # (415) 555-0123
      | (?<=\d)\d{2}[.\-]\d{3}[.\-]\d{4}                 # 415-555-0123, 415.555.0123
      | (?<=\d)\d{2}-\d{4}                               # 555-0123
    )
    (?![\w,]|\.\d)
    """,
    re.VERBOSE,
)

_ID_NOUNS = (
    r"invoice|inv|order|ticket|case|id|ref|reference|account|acct|customer|cus|cust|charge"
    r"|subscription|sub|receipt|transaction|txn|po|number|no|item|record|row|user|member"
)
_ID_FIRST = "".join(sorted({w[0] for w in _ID_NOUNS.split("|")}))
_ID_ENDS = tuple(
    e for w in [*_ID_NOUNS.split("|"), "nr"] for e in (w, f"{w}.")
)  # what a text ``_ID_BEFORE`` matches ends with, once its trailing spaces are stripped
_ID_TAIL = max(map(len, _ID_ENDS))
_ID_END2 = frozenset(e[-2:] for e in _ID_ENDS)  # their last two characters: a set test first
_ID_LAST = frozenset(string.ascii_letters + ".#\u0130\u0131\u017f\u212a")
"""What such a match's last character can be: "#", ".", or a letter (``re.IGNORECASE``
matches ASCII letters with these four non-ASCII ones too)."""
# An identifier noun right before a bare integer: "invoice 4820", "order #4820", "ticket no. 7".
_ID_BEFORE = re.compile(
    rf"(?=[{_ID_FIRST}#])"  # (speed) every noun starts with one of these letters, or "#"
    rf"(?:\b(?:{_ID_NOUNS})\.?[ \t\u00a0]*(?:(?:no\.?|number|nr\.?|id)[ \t\u00a0]*)?#?"
    rf"|#)[ \t\u00a0]*$",
    re.IGNORECASE,
)

_LOSS_WORDS = (
    r"lost|lose|loses|losing|loss|losses|down|declined?|declining|drop|dropped|fell|fall"
    r"|churned|leaked|leak|leakage|shortfall|deficit|decrease[sd]?|reduction|reduced|minus"
    r"|negative|shrank|shrunk|wiped|owed|write-?off|written off"
)
_LOSS_FIRST = "".join(sorted({w[0] for w in _LOSS_WORDS.split("|")}))
_LOSS_BEFORE = re.compile(
    rf"(?=[{_LOSS_FIRST}])\b({_LOSS_WORDS})\b[^.!?;\n]{{0,40}}$",  # (speed) a set test first
    re.IGNORECASE,
)

_COUNT_WORDS = frozenset(w.lower() for w in DEFAULT_COUNT_NOUNS) | frozenset(
    {"cards", "card", "users", "user", "charges", "charge", "subscriptions", "subscription"}
    | {"seats", "seat", "orders", "order", "people", "employees", "items", "tickets"}
    | {"refunds", "refund", "disputes", "dispute", "retries", "attempts", "emails", "failures"}
)
_NEXT_WORD = re.compile(r"[ \t\u00a0]+([^\W\d_]+)")
_CENTS_AFTER = re.compile(r"[ \t\u00a0]*(?:¢|cents?\b)", re.IGNORECASE)


def _is_year(raw: str, value: float, end: int, text: str) -> bool:
    if not (raw.isdigit() and len(raw) == 4 and 1900 <= value <= 2100):
        return False
    nxt = _NEXT_WORD.match(text, end)
    return not (nxt and nxt.group(1).lower() in _COUNT_WORDS)


_HYPHENS = "-\u2010\u2011"
_HYPHEN_PREFIX = re.compile(r"(\w*[^\W\d_])[-\u2010\u2011]$")


def _is_id(raw: str, start: int, bare: bool, text: str) -> bool:
    """``bare``: no currency, no percent."""
    before = text[start - 30 if start > 30 else 0 : start]
    if not before:
        return False
    if before[-1].isalnum() or before[-1] == "_":
        return True  # glued to letters: "cus_GL007" (the scanner already drops most)
    # Both regexes below end at the end of ``before`` or before a final newline ("$"), past
    # no newline: what ``tail`` ends with decides whether either can match.
    tail = before[:-1] if before[-1] == "\n" else before
    if tail and tail[-1] in _HYPHENS:  # (rarely there: the regex only then)
        prefix = _HYPHEN_PREFIX.search(before)
        if prefix is not None and not prefix.group(1)[0].isdigit():
            return True  # "INV-4821" (not a range "4.8k-5k": the word before starts with a digit)
    if not (bare and raw.replace(",", "").isdigit()):
        return False
    # ``_ID_BEFORE`` can match only where ``tail``, past its spaces, ends with "#", or with an
    # identifier noun or no/nr/number/id (with or without a dot): in ASCII text, a suffix test
    # decides that (other text goes to the regex, for its case folding).
    end = tail.rstrip(" \t\u00a0")[-_ID_TAIL:]
    if not end or end[-1] not in _ID_LAST:
        return False
    if end[-1] == "#" or not end.isascii():
        return _ID_BEFORE.search(before) is not None
    low = end[-2:].lower()
    if low in _ID_END2 and end.lower().endswith(_ID_ENDS):
        return _ID_BEFORE.search(before) is not None
    return False


# Every phone shape holds "+" before a digit, "(ddd)", or three digits on each side of a "."
# or "-": where none is, there is no phone. (speed) The search skips to those four
# characters in C; ``_PHONE`` enters its pattern at every digit.
_PHONE_HINT = re.compile(r"[.\-+(](?:(?<=\d{3}.)\d{3}|(?<=\+)\d|(?<=\()\d{3}\))")


def _phone_spans(text: str) -> list[tuple[int, int]]:
    if _PHONE_HINT.search(text) is None:
        return []
    return [p.span() for p in _PHONE.finditer(text)]


_LABEL_BEFORE = re.compile(r"(?:[:=]|\t| {2,}|\.{3,}|…)[ \t*_]*$")
_ALONE_AFTER = re.compile(r"[ \t*_]*[.;,]?[ \t*_]*$")


def accounting_brackets(text: str, start: int, end: int) -> bool:
    """Whether the bracketed figure ``text[start:end]`` (``(920)``, ``($920)``) stands in an
    accounting context (rule 6): alone in a table cell, alone after a label, alone on its
    line.

    >>> t = "| Refunds | ($920) |"; accounting_brackets(t, 12, 18)
    True
    >>> t = "Net change: ($920)."; accounting_brackets(t, 12, 18)
    True
    >>> t = "We refunded the duplicate ($920) on Friday."; accounting_brackets(t, 26, 32)
    False
    >>> t = "| Refunds | issued ($920) on Friday |"; accounting_brackets(t, 19, 25)
    False
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    if before.lstrip().startswith("|"):
        cell_before = before[before.rfind("|") + 1 :]
        cell_after = after.split("|", 1)[0]
        return not cell_before.strip(" \t*_") and not cell_after.strip(" \t*_")
    if not _ALONE_AFTER.fullmatch(after):
        return False
    return bool(_LABEL_BEFORE.search(before)) or not before.strip(" \t*_->•")


def prose_value(m: NumberMention, text: str) -> float:
    """``m.value`` with rule 6: brackets in running prose do not negate.

    >>> from pe_eval_core.numbers import extract_numbers
    >>> t = "Refunded ($920) today"; prose_value(extract_numbers(t)[0], t)
    920.0
    """
    return _prose_value(m.raw, m.value, m.start, m.end, text)


def _prose_value(raw: str, value: float, start: int, end: int, text: str) -> float:
    if value >= 0 or raw[0] != "(" or raw[-1] != ")" or "-" in raw or "−" in raw:
        return value
    return value if accounting_brackets(text, start, end) else -value


class Reading(NamedTuple):
    """A number as read from the text, before any range: ``NumberRead``'s first fields as a
    tuple, so the scorer reads a response's dozens of numbers without an object each."""

    raw: str
    start: int
    end: int
    value: float
    kind: Kind
    currency: str | None = None
    percent: bool = False
    word: bool = False
    sign_written: bool = False
    cents_marked: bool = False
    loss_word: str | None = None


def readings(text: str, *, loss_words: bool = True) -> list[Reading]:
    """Every number in ``text`` (digits and number words), classified, in text order: the
    one reader (``read_numbers`` gives the same as ``NumberRead`` objects).

    ``loss_words=False`` leaves ``loss_word`` unset: it decides only a range whose max is at
    most 0 (rule 3), so a caller judging no such range skips the search.
    """
    norm = normalize_separators(text)
    same = norm is text  # no separator was rewritten (most responses): raw is as written
    phones = _phone_spans(norm)
    out: list[Reading] = []
    quantity = Kind.QUANTITY
    for value, start, end, currency, percent in number_spans(norm):
        raw = norm[start:end]
        bare = currency is None and not percent
        if value < 0:
            value = _prose_value(raw, value, start, end, norm)
        if phones and any(s <= start and end <= e for s, e in phones):
            kind = Kind.PHONE
        elif _is_id(raw, start, bare, norm):
            kind = Kind.ID
        elif bare and _is_year(raw, value, end, norm):
            kind = Kind.YEAR
        else:
            kind = quantity
        out.append(
            Reading(
                raw if same else text[start:end],
                start,
                end,
                value,
                kind,
                currency,
                percent,
                False,
                value < 0,  # the scanner negates only for a sign or brackets
                _CENTS_AFTER.match(norm, end) is not None,
                _loss_word(norm, start) if loss_words else None,
            )
        )
    starts = [n.start for n in out]
    ends = [n.end for n in out]  # the spans are disjoint and in order: so are their ends
    count = len(ends)
    words = False
    for w in _NUMBER_WORD.finditer(norm):
        ws, we = w.span()
        i = bisect_right(ends, ws)  # the first number ending after the word starts
        if i < count and starts[i] < we:
            continue  # inside a number's span
        value = 0.0 if w.group("no") is not None else _WORD_VALUES[w.group().lower()]
        loss = _loss_word(norm, ws) if loss_words else None
        out.append(
            Reading(text[ws:we], ws, we, value, quantity, None, False, True, False, False, loss)
        )
        words = True
    if words:
        out.sort(key=lambda n: n.start)
    return out


def read_numbers(text: str, *, loss_words: bool = True) -> list[NumberRead]:
    """Every number in ``text`` (digits and number words), classified, in text order
    (``readings`` as ``NumberRead`` objects).

    >>> [(n.raw, n.value, n.kind.value) for n in read_numbers("eight of 2026's #12345 cards")]
    [('eight', 8.0, 'quantity'), ('2026', 2026.0, 'year'), ('12345', 12345.0, 'id')]
    """
    return [NumberRead(*r) for r in readings(text, loss_words=loss_words)]


def _loss_word(text: str, start: int) -> str | None:
    m = _LOSS_BEFORE.search(text[max(0, start - 60) : start])
    return m.group(1).lower() if m else None


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
