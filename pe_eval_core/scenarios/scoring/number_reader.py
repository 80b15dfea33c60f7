"""The range reader's first half: every number in a response, read and classified before
any range is considered (``range_reader`` decides the ranges; its docstring has the rules).

Digits are read by ``pe_eval_core.numbers.number_spans``; this module adds number words
(rule 8), classifies what is not a quantity (rule 9: years, identifiers, phone numbers),
reads thousands separators (rule 7), brackets in prose (rule 6), ``cents`` after a figure
and the loss word before it (rules 3-4), as plain tuples (``Reading``).
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from enum import StrEnum
from typing import NamedTuple

from pe_eval_core.numbers import DEFAULT_COUNT_NOUNS, NumberMention, number_spans
from pe_eval_core.text_norm import ignorecase_lower

__all__ = [
    "Kind",
    "Reading",
    "accounting_brackets",
    "normalize_separators",
    "prose_value",
    "readings",
]


class Kind(StrEnum):
    """What a number in the text is, before any range is considered."""

    QUANTITY = "quantity"
    """An amount, count or rate: the only kind that can satisfy a range."""
    YEAR = "year"
    ID = "id"
    PHONE = "phone"


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
    new = tuple.__new__  # (speed: a NamedTuple's own __new__ is a Python function)
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
            new(
                Reading,
                (
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
                ),
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
        value = 0.0 if w.group("no") is not None else _WORD_VALUES[ignorecase_lower(w.group())]
        loss = _loss_word(norm, ws) if loss_words else None
        out.append(
            Reading(text[ws:we], ws, we, value, quantity, None, False, True, False, False, loss)
        )
        words = True
    if words:
        out.sort(key=lambda n: n.start)
    return out


def _loss_word(text: str, start: int) -> str | None:
    m = _LOSS_BEFORE.search(text[max(0, start - 60) : start])
    return m.group(1).lower() if m else None
