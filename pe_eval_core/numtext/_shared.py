"""Pattern pieces and helpers both number readers share (memo figures, scenario numbers):
signs, decimal digits, scales, the two-compiled scanner, and the displayed-precision interval."""

from __future__ import annotations

import re
from collections.abc import Iterator

FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
"""The characters an ignore-case pattern matches to an ASCII letter (İ ı ſ K; İ and K are
also the only ones whose lower case holds an ASCII letter or another length): a text
without them can be prefiltered by substring tests on its lower case."""

_H = r"[ \t\u00a0\u202f]"  # horizontal space, incl. no-break and narrow no-break space

_SP = r"(?:[ \t\u00a0]|\u202f(?<=\u202f))"
"""``_H``'s characters as one pattern item that compiles in half the time (start-up): a class
with a character above U+00FF and more than two runs compiles to a 64K-entry table, about 0.9M
instructions and 30 us each time it is written (120 times in a memo run's patterns). The lookbehind
only keeps the parser from merging the two branches back into that class. It matches the
same single character; a repeat of it runs slower than the class's (a branch, not one
test), so the spaces right after a number (tried by every unit alternative at every number)
keep ``_H``. Inside a class, use ``_H``'s body."""

_MINUS = r"\-\u2212"  # class body: ASCII hyphen-minus, U+2212 minus sign (never en/em dashes)

# Class body of the signs allowed right after a currency ("$\u20137.7M"): there a dash can only
# be a sign, so en and em dashes count too.
_CUR_SIGN = r"\-\u2212\u2013\u2014+"

# A decimal number; comma groups must be exact thousands ("12,400", never "12,40").
_NUM = r"""(?:
      \d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?   # 12,400 / 1,234.5
    | \d+(?:\.\d+)?                        # 12400 / 12.4
    | \.\d+                                # .5
)"""

_SCALE_WORDS = r"(?i:thousand|million|billion|trillion)s?\b"

# A scale letter or abbreviation; a letter that starts a word is not a scale ("$5MoM").
_SCALE_LETTER = r"(?i:bn|mn|mm|tn|[kmbt])(?!\w)"

# Attached scale (after a currency): "M", "bn", "Million" glued on; a letter after a no-break
# space ("$1.2\u00a0M", the typographer's number-unit space); a word after a hyphen
# ("$1.2-million"). A plain space before a single letter is not a scale ("$5 M").
_SCALE_ATTACHED = (
    rf"(?:{_SCALE_LETTER}|{_SCALE_WORDS}|[\u00a0\u202f]{_SCALE_LETTER}"
    rf"|[\-\u2010\u2011](?:{_SCALE_WORDS}|(?i:bn|mn|mm|mln|bln)(?!\w)))"
)

# Spaced scale: spelled-out words, or a multi-letter finance abbreviation ("$1.2 bn").
_SCALE_SPACED = rf"{_H}+(?:{_SCALE_WORDS}|(?i:bn|mn|mm|mln|bln)(?!\w))"
_SCALE_SPACED_SP = _SCALE_SPACED.replace(_H, _SP, 1)  # the same, compiled cheaper (``_SP``)

# What joins a scale to its number, stripped before the scale is looked up.
_SCALE_JOINERS = " \t\u00a0\u202f-\u2010\u2011"

# Scale words and letters as powers of ten (lowercase keys; ``_exponent`` normalises case).
_SCALES: dict[str, int] = {
    "k": 3,
    "thousand": 3,
    "m": 6,
    "mm": 6,
    "mn": 6,
    "million": 6,
    "b": 9,
    "bn": 9,
    "billion": 9,
    "t": 12,
    "tn": 12,
    "trillion": 12,
    "thousands": 3,
    "millions": 6,
    "billions": 9,
    "trillions": 12,
    "mln": 6,
    "bln": 9,
}
_BP_EXPONENT = -2  # one basis point is 10**-2 percentage points

_FLOAT_DIGITS = 290  # numbers written with fewer digits always fit in a float

# Speed: every branch below starts right after a non-word character (``_LEAD``), so the regex
# engine skips through letters in C instead of trying each branch at every position, and each
# branch opens with a one-character lookahead so a failing position costs one test.
_LEAD = r"[^A-Za-z0-9_]"


class _Scanner:
    """A branch regex compiled twice: anchored at offset 0 (``head``), and led by one non-word
    character (``body``). ``head`` reads a match at offset 0; ``body.finditer(text,
    head_end)`` reads the rest.

    Both compile on first use, not at import (these are the costliest patterns of the
    package: a command that never reads a number never compiles them), and ``head`` only
    once a text passes ``first`` at offset 0 (:meth:`match_head`): most prose starts with a
    letter or ``**``, where ``first`` already fails, so the head is rarely compiled at all.
    """

    __slots__ = ("_body", "_branches", "_first", "_gate", "_head")

    def __init__(self, branches: str, first: str):
        self._branches = branches
        self._first = first
        self._gate: re.Pattern[str] | None = None
        self._head: re.Pattern[str] | None = None
        self._body: re.Pattern[str] | None = None

    @property
    def head(self) -> re.Pattern[str]:
        if self._head is None:
            self._head = re.compile(f"{self._first}(?:{self._branches})", re.VERBOSE)
        return self._head

    @property
    def body(self) -> re.Pattern[str]:
        if self._body is None:
            self._body = re.compile(f"{_LEAD}{self._first}(?:{self._branches})", re.VERBOSE)
        return self._body

    def match_head(self, text: str) -> re.Match[str] | None:
        """``head.match(text)``; the head is ``first`` followed by the branches, so where
        ``first`` (a cheap lookahead, compiled alone) fails at offset 0, so does the head."""
        if self._gate is None:
            self._gate = re.compile(self._first, re.VERBOSE)
        if self._gate.match(text) is None:
            return None
        return self.head.match(text)


def _scan(scanner: _Scanner, text: str) -> Iterator[re.Match[str]]:
    """Every match of ``scanner`` in ``text``, in order: the one scan loop of both modes."""
    first = scanner.match_head(text)
    if first is not None:
        yield first
    yield from scanner.body.finditer(text, first.end() if first is not None else 0)


def _scanner(branches: str, first: str) -> _Scanner:
    """``first`` is a lookahead every match satisfies, tested once per candidate position."""
    return _Scanner(branches, first)


# Half a unit in the last displayed place, by (decimal places, power of ten of the unit).
_HALVES: dict[tuple[int, int], float] = {}


def _interval(num: str, exponent: int, negative: bool) -> tuple[float, float, float]:
    """(value, lo, hi) of the displayed number ``num`` (digits as written) times 10**exponent.

    The value is parsed from its decimal digits, so it is the correctly rounded float
    (``"564.8"`` at 10**6 is exactly ``564.8e6``); lo and hi are within one ulp of exact.
    """
    dot = num.find(".")
    places = len(num) - dot - 1 if dot >= 0 else 0
    half = _HALVES.get((places, exponent))
    if half is None:
        half = _HALVES[places, exponent] = float(f"5e{exponent - places - 1}")
    digits = num.replace(",", "") if "," in num else num
    v = float(f"{digits}e{exponent}") if exponent else float(digits)
    if negative:
        v = -v
    return v, v - half, v + half


def _number(num: str, exponent: int = 0) -> float:
    digits = num.replace(",", "") if "," in num else num
    return float(f"{digits}e{exponent}") if exponent else float(digits)


def _exponent(word: str | None) -> int:
    if not word:
        return 0
    exponent = _SCALES.get(word)
    return exponent if exponent is not None else _SCALES[word.strip(_SCALE_JOINERS).lower()]


_DIGIT = re.compile(r"\d")
