"""Text -> typed numbers with spans: the one place pe-eval decides what a number in prose means.

Two readers share the same digit rules:

* ``extract_figures`` (memo mode) finds only *figures* a memo cites: money, percentages,
  counts of things, quarters, persistence scores and difficulty ratings. Each keeps its raw
  text, its span, and the interval its displayed precision stands for.
* ``extract_numbers`` (scenario mode) finds *every* number in an agent response, signed and
  scaled, and skips dates, clock times, ISO timestamps and version strings.

Decision table (memo mode):

>>> def show(text):
...     return [(f.kind.value, f.value, f.raw) for f in extract_figures(text)]
>>> show("leakage of $564.8M, $-564.8M, -$564.8M, ($5.2M) and $(5.2)M")
[('usd', 564800000.0, '$564.8M'), ('usd', -564800000.0, '$-564.8M'),
 ('usd', -564800000.0, '-$564.8M'), ('usd', -5200000.0, '($5.2M)'),
 ('usd', -5200000.0, '$(5.2)M')]
>>> show("$565K, $12,340, $1.2bn, $1.2 billion, $565 million, $450 thousand, $1.39B")
[('usd', 565000.0, '$565K'), ('usd', 12340.0, '$12,340'), ('usd', 1200000000.0, '$1.2bn'),
 ('usd', 1200000000.0, '$1.2 billion'), ('usd', 565000000.0, '$565 million'),
 ('usd', 450000.0, '$450 thousand'), ('usd', 1390000000.0, '$1.39B')]
>>> show("US$5.3M and USD 5.3M")
[('usd', 5300000.0, 'US$5.3M'), ('usd', 5300000.0, 'USD 5.3M')]

Money may name its currency after the amount, and a dash right after ``$`` is a sign:

>>> show("7.7M USD, -7.7 million dollars, $\u20137.7M, $ 1.2M")
[('usd', 7700000.0, '7.7M USD'), ('usd', -7700000.0, '-7.7 million dollars'),
 ('usd', -7700000.0, '$\u20137.7M'), ('usd', 1200000.0, '$ 1.2M')]

A scale applies only when attached or spelled out right after; a letter that starts a word
is never a scale, and a bare ``$`` before a word is not a figure:

>>> show("$565 by Q3; $5 MoM; $5MoM; Annualized $ at stake: $1.39B")
[('usd', 565.0, '$565'), ('usd', 5.0, '$5'), ('usd', 5.0, '$5'), ('usd', 1390000000.0, '$1.39B')]

Attached includes a no-break space before a letter, a hyphen before a word, a glued word:

>>> show("$1.2\u00a0M, $1.2-million, $1.2Million; not $5\u00a0MoM or $5-millionaires")
[('usd', 1200000.0, '$1.2\xa0M'), ('usd', 1200000.0, '$1.2-million'),
 ('usd', 1200000.0, '$1.2Million'), ('usd', 5.0, '$5'), ('usd', 5.0, '$5')]

Percentages are in percentage points; basis points convert (precision half a bp):

>>> show("12.3%, 12.3 percent, -4.1%, 150 bps, 150 basis points, ~5% of current")
[('percent', 12.3, '12.3%'), ('percent', 12.3, '12.3 percent'), ('percent', -4.1, '-4.1%'),
 ('percent', 1.5, '150 bps'), ('percent', 1.5, '150 basis points'), ('percent', 5.0, '5%')]

Counts need a count noun; quarters, scores and difficulty need their cue words:

>>> show("**23,681 loans** seen in 5 of 5 quarters, across 8 quarters")
[('count', 23681.0, '23,681 loans'), ('quarters', 5.0, '5'), ('quarters', 5.0, '5 quarters'),
 ('quarters', 8.0, '8 quarters')]
>>> show("persistence score of 0.80; rated 4/5; difficulty score of 3")
[('score', 0.8, '0.80'), ('difficulty', 4.0, '4/5'), ('difficulty', 3.0, '3')]

Not figures: bare numbers, schedules, dates, quarters-of-year, ids, row ids, years:

>>> show("weeks 2-8 from 2026-04-29 in Q3 for opp_01; rows: 118204, 40577; since 2019")
[]

A hyphen between two tokens is never a minus sign; a range shares its unit:

>>> show("a 2-8% lift worth $1.2-1.5M")
[('percent', 2.0, '2'), ('percent', 8.0, '8%'), ('usd', 1200000.0, '$1.2'),
 ('usd', 1500000.0, '1.5M')]

``[lo, hi)`` is the interval the displayed precision stands for; ``covers`` is inclusive
because producers round ties either way:

>>> f = extract_figures("$2.3M")[0]
>>> (f.lo, f.hi, f.covers(2_349_999), f.covers(2_360_000))
(2250000.0, 2350000.0, True, False)
>>> f = extract_figures("-$2.3M")[0]
>>> (f.lo, f.hi, f.negative)
(-2350000.0, -2250000.0, True)

Scenario mode (every number, signed and scaled):

>>> def nums(text):
...     return [(m.value, m.currency, m.percent) for m in extract_numbers(text)]
>>> nums("12400 and 12,400 and £12.4k and $1.2M and (1,200) and -$4,820 and 4.8%")
[(12400.0, None, False), (12400.0, None, False), (12400.0, '£', False),
 (1200000.0, '$', False), (-1200.0, None, False), (-4820.0, '$', False), (4.8, None, True)]
>>> nums("on 2026-04-29 at 10:30, 2026-04-29T10:30:00Z, v1.2.3, 3pm, April 29, 2026")
[]
>>> nums("$99 for 9 days, 3.5x, weeks 2-8, COVID-19, step (2)")
[(99.0, '$', False), (9.0, None, False), (3.5, None, False), (2.0, None, False),
 (8.0, None, False), (2.0, None, False)]
>>> nums("a 10-15% cut, $1.2-1.5M, 30m ago, 1.2M users")
[(10.0, None, True), (15.0, None, True), (1200000.0, '$', False), (1500000.0, '$', False),
 (30.0, None, False), (1200000.0, None, False)]

Other decisions on ambiguous input (each is a row in ``tests/numbers/test_numbers.py``):

* Parentheses negate an amount only when they close right after it: ``($45M)`` is -45M even
  where a reader sees an aside, ``($5.2M of leakage)`` is +5.2M. In scenario mode ``(2)`` is
  an enumeration and ``(4.8%)`` an aside; ``(1,200)``, ``(4.5)`` and ``($5)`` are negatives.
* A range shares its unit and only its low end keeps a sign; each end is its own figure
  with role ``low``/``high``. ``weeks 2-8`` and ``2024-2026`` are two positive numbers.
* Counts and quarters are whole and unsigned: ``-3 loans`` still cites 3 loans (checked, not
  dropped); ``5.5 of 8 quarters`` is not a quarters figure.
* Memo money is USD (``$``, ``US$``, ``USD`` before it; ``USD``, ``dollars``, ``US dollars``
  after it): ``£5M`` and a bare ``7.7M`` are not memo figures. A single scale letter after a
  plain space (``$5 M``) is not a scale (after a no-break space it is); ``bn``/``mm``/``mn``
  and words are, also after a hyphen (``$1.2-million``). Before a trailing currency a spaced
  letter is a scale (``7.7 M USD``).
* An en or em dash right after the currency is a sign (``$\u20137.7M``); an en dash before
  ``$`` is one only when glued to it and not after a number (``lost \u2013$3M`` is negative,
  ``$2.5k \u2013$3k`` is a range). A bare en dash before a number is punctuation.
* Scenario mode: a number hyphenated onto a word is a label (``COVID-19``, ``GPT-4``: no
  number), as is one glued to letters (``Q3``, ``opp_01``), except after a scaled number:
  ``5k-6k`` and ``$5k-$6k`` are ranges of two numbers. Bare ``30m`` stays 30 (minutes
  or metres are as likely as millions); ``12.4k``, ``1.2M``, ``1.2B`` scale. Years remain
  numbers (``in 2026``); month-name dates are skipped (``April 29, 2026``, ``May 5``).
  Basis points are not converted (``150 bps`` -> 150).
* A number too large for a float is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from math import isfinite
from typing import NamedTuple

__all__ = [
    "DEFAULT_COUNT_NOUNS",
    "EXACT_KINDS",
    "Figure",
    "FigureKind",
    "NumberMention",
    "extract_figures",
    "extract_numbers",
    "extract_word_figures",
    "iter_number_values",
    "iter_numbers",
    "number_values",
]


class FigureKind(StrEnum):
    """What a memo figure measures; a figure only matches source fields of its own kind."""

    USD = "usd"
    PERCENT = "percent"
    COUNT = "count"
    QUARTERS = "quarters"
    SCORE = "score"
    DIFFICULTY = "difficulty"


EXACT_KINDS = frozenset({FigureKind.COUNT, FigureKind.QUARTERS, FigureKind.DIFFICULTY})

DEFAULT_COUNT_NOUNS: tuple[str, ...] = (
    "loans",
    "loan",
    "rows",
    "row",
    "applications",
    "application",
    "accounts",
    "account",
    "customers",
    "customer",
    "borrowers",
    "borrower",
    "records",
    "record",
    "transactions",
    "transaction",
    "observations",
    "observation",
    "originations",
    "origination",
    "contracts",
    "contract",
    "deals",
    "deal",
    "units",
    "unit",
    "members",
    "member",
    "cases",
    "case",
    "mortgages",
    "mortgage",
    "leases",
    "lease",
    "policies",
    "policy",
    "policyholders",
    "policyholder",
    "claims",
    "claim",
    "invoices",
    "invoice",
    "households",
    "household",
    "properties",
    "property",
    "merchants",
    "merchant",
    "payments",
    "payment",
    "obligors",
    "obligor",
    "tenants",
    "tenant",
    "clients",
    "client",
    "subscribers",
    "subscriber",
    "cardholders",
    "cardholder",
    "businesses",
    "business",
    "vehicles",
    "vehicle",
)


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure cited in memo prose."""

    kind: FigureKind
    value: float
    """USD in dollars (signed); PERCENT in percentage points; COUNT; QUARTERS; SCORE; DIFFICULTY."""
    raw: str
    """Exact matched text: ``text[start:end] == raw``."""
    start: int
    end: int
    lo: float
    """``[lo, hi)``: the values the displayed precision stands for (exact kinds: lo == hi)."""
    hi: float
    negative: bool
    """True only when the text carries an explicit minus sign or accounting parentheses."""
    role: str = ""
    """Extra detail: ``observed``/``total`` for ``k of m quarters``; ``low``/``high`` for ranges."""

    def covers(self, x: float) -> bool:
        """True if ``x`` is a value this figure could have been rounded from (ends included).

        Both ends count because producers round ties either way (f-strings round half to
        even); a relative 1e-9 slack absorbs float error in the producer's own division.
        """
        slack = 1e-9 * max(abs(self.lo), abs(self.hi), 1.0)
        return self.lo - slack <= x <= self.hi + slack


@dataclass(frozen=True, slots=True)
class NumberMention:
    """One number in free text (scenario mode), signed and scaled."""

    value: float
    raw: str
    start: int
    end: int
    currency: str | None
    """``"$"``, ``"£"``, ``"€"``, ``"US$"``, ``"USD"``, ... as written, or None."""
    percent: bool


# ---------------------------------------------------------------------------------------------
# Shared pattern pieces (plain strings, spliced into the verbose patterns below)
# ---------------------------------------------------------------------------------------------

_H = r"[ \t\u00a0\u202f]"  # horizontal space, incl. no-break and narrow no-break space

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

_SCALE_WORDS = r"(?i:thousand|million|billion|trillion)\b"

# A scale letter or abbreviation; a letter that starts a word is not a scale ("$5MoM").
_SCALE_LETTER = r"(?i:bn|mn|mm|tn|[kmbt])(?!\w)"

# Attached scale (after a currency): "M", "bn", "Million" glued on; a letter after a no-break
# space ("$1.2\u00a0M", the typographer's number-unit space); a word after a hyphen
# ("$1.2-million"). A plain space before a single letter is not a scale ("$5 M").
_SCALE_ATTACHED = (
    rf"(?:{_SCALE_LETTER}|{_SCALE_WORDS}|[\u00a0\u202f]{_SCALE_LETTER}"
    rf"|[\-\u2010\u2011](?:{_SCALE_WORDS}|(?i:bn|mn|mm)(?!\w)))"
)

# Spaced scale: spelled-out words, or a multi-letter finance abbreviation ("$1.2 bn").
_SCALE_SPACED = rf"{_H}+(?:{_SCALE_WORDS}|(?i:bn|mn|mm)(?!\w))"

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
}
_BP_EXPONENT = -2  # one basis point is 10**-2 percentage points

_FLOAT_DIGITS = 290  # numbers written with fewer digits always fit in a float

# ---------------------------------------------------------------------------------------------
# Memo mode: one alternation, one finditer pass per text
# ---------------------------------------------------------------------------------------------

# Speed: every branch below starts right after a non-word character (``_LEAD``), so the regex
# engine skips through letters in C instead of trying each branch at every position, and each
# branch opens with a one-character lookahead so a failing position costs one test.
_LEAD = r"[^A-Za-z0-9_]"

_FIGURE_TEMPLATE = rf"""
(?P<money>
    (?=[(${_MINUS}+\u2013U])               # cheap first-character test
    (?<![\w.$])(?<!\d,)                    # not glued to a word or number before it
    (?P<m_po>\()?                          # "(" of accounting "($5.2M)"
    (?P<m_s1>[{_MINUS}+]                   # sign before the currency: "-$5.2M"; an en dash
      | \u2013(?=(?:US)?\$)                 # glued to "$" too, unless it ends a range
        (?<!\d{_H}\u2013)(?<!\d[kKmMbBtT%]{_H}\u2013)(?<!\d(?:bn|mn|mm){_H}\u2013)  # "$2k –$3k"
    )?
    (?P<m_cur>(?:US)?\${_H}?|USD{_H}?)      # currency: "$", "$ ", "US$", "USD " (memo money is USD)
    (?P<m_s2>[{_CUR_SIGN}])?               # sign after the currency: "$-5.2M", "$\u20137.7M"
    (?:
        \((?P<m_pnum>{_NUM})\)             # "$(5.2)M"
      | (?P<m_num>{_NUM})                  # "$5.2M"
        (?:[-\u2013](?P<m_rnum>{_NUM}))?   # range high end sharing the unit: "$1.2-1.5M"
    )
    (?!\d|[.,]\d)                          # never stop inside a number
    (?P<m_scale>{_SCALE_ATTACHED}|{_SCALE_SPACED})?   # "M", "bn", " million"
    (?(m_po)\))                            # ")" closing "($5.2M)"
)
| (?P<num>                                 # a number whose unit follows it
    (?=[\d.{_MINUS}+])                     # cheap first-character test
    (?<![\w.])(?<!\d,)                     # not glued to a word or number
    (?P<n_s>[{_MINUS}+])?                  # explicit sign: "-4.1%"
    (?P<n_num>{_NUM})
    (?:[-\u2013](?P<n_rnum>{_NUM}))?       # range high end sharing the unit: "2-8%"
    (?!\d|[.,]\d)                          # never stop inside a number
    (?=[ \t\u00a0\u202f%/pPbBkKmMtT\-\u2010\u2011])   # speed: every unit below starts so
    (?:
        (?P<p_pc>
            {_H}?%                                       # "12.3%"
          | {_H}+(?i:percentage{_H}+points?)\b           # "3 percentage points"
          | {_H}*(?i:ppts?|pp)\b                         # "3pp", "3 ppt"
          | {_H}+(?i:percent|per{_H}cent|pct)\b          # "12.3 percent"
        )
      | (?P<p_bp>{_H}*(?i:bps|bp|basis{_H}+points?)\b)   # "150 bps", "150 basis points"
      | (?:{_H}+(?i:out{_H}+)?(?i:of){_H}+(?i:the{_H}+)?|/)  # k " of [the] " / "/" ...
        (?P<q_tot>(?P<q_num>\d+){_H}+(?i:quarters?)\b)   # ... m quarters
      | (?P<c_noun>{_H}+(?:__NOUNS__)\b)                 # a count noun: "23,681 loans"
      | (?P<p_usd>                                        # money named after the number:
            (?P<n_scale>{_SCALE_ATTACHED}|{_SCALE_SPACED}|{_H}+{_SCALE_LETTER})?   # "7.7M" ...
            {_H}+(?:(?i:(?:US{_H}+)?dollars?)\b|USD\b)    # ... " dollars", " USD"
        )
      | (?P<c_k>[kK](?!\w|[.,]\d)|M(?={_H}+(?:__NOUNS__)\b))   # a count in thousands or
        (?:{_H}+(?:__NOUNS__)\b)?                         # millions: "58k loans", "41.2k"
    )
)
| (?P<q1>
    (?=[aA])                               # cheap first-character test
    \b(?i:across){_H}+                     # "across"
    (?:(?i:all|the(?:{_H}+(?:last|past))?){_H}+)?   # "all", "the last"
    (?P<q1_tot>(?P<q1_num>\d+){_H}+(?i:quarters?)\b)   # "8 quarters"
)
| (?P<score>
    (?=[pP])                               # cheap first-character test
    \b(?i:persistence)(?:{_H}+(?i:score))? # "persistence score"
    [\s*:=]*                               # "**:", " = "
    (?:(?i:of|is|was|at){_H}+\**)?         # "of", "of **"
    \(?                                    # "(0.80)"
    (?P<s_num>[01]?\.\d+|[01])             # 0..1 as written
    (?!\d|\.\d|{_H}*%|{_H}+(?i:percent))   # "80%" is a percentage, read above
)
| (?P<diff>
    (?=[rRdD])                             # cheap first-character test
    (?:
        \b(?i:rated){_H}+                  # "rated 4/5" needs its "/5"
        (?P<d1>(?P<d1_num>\d(?:\.\d)?){_H}*(?:/|(?i:out{_H}+of)){_H}*5)
      | \b(?i:difficulty)(?:{_H}+(?i:score|rating|level))?   # "difficulty score"
        [\s*:=]*(?:(?i:of|is|was|at){_H}+\**)?              # " of ", ":** "
        (?P<d2>(?P<d2_num>\d(?:\.\d)?)(?:{_H}*(?:/|(?i:out{_H}+of)){_H}*5)?)
        (?!{_H}+(?i:weeks?|months?|days?|years?|quarters?|hours?)\b)   # a duration
    )
    (?!\d|\.\d|%)                          # not "4/50", not "3%"
)
"""


def _normalize_nouns(count_nouns: Iterable[str]) -> tuple[str, ...]:
    if isinstance(count_nouns, str):
        count_nouns = (count_nouns,)
    nouns = {n.strip().lower() for n in count_nouns if n and n.strip()}
    return tuple(sorted(nouns, key=lambda n: (-len(n), n)))


class _Scanner(NamedTuple):
    """A branch regex compiled twice: anchored at offset 0, and led by one non-word char.

    ``head`` reads a match at offset 0; ``body.finditer(text, head_end)`` reads the rest.
    """

    head: re.Pattern[str]
    body: re.Pattern[str]


def _scan(scanner: _Scanner, text: str) -> Iterator[re.Match[str]]:
    """Every match of ``scanner`` in ``text``, in order: the one scan loop of both modes."""
    first = scanner.head.match(text)
    if first is not None:
        yield first
    yield from scanner.body.finditer(text, first.end() if first is not None else 0)


def _scanner(branches: str, first: str) -> _Scanner:
    """``first`` is a lookahead every match satisfies, tested once per candidate position."""
    head = re.compile(f"{first}(?:{branches})", re.VERBOSE)
    body = re.compile(f"{_LEAD}{first}(?:{branches})", re.VERBOSE)
    return _Scanner(head, body)


# A figure starts with a digit, a sign, "$", "(", "US"/"USD", ".", or one of its cue words.
_FIGURE_FIRST = rf"""(?=[\d$(.{_MINUS}+\u2013UaApPrRdD])(?=   # one set test rejects most positions
    [\d$(.{_MINUS}+U] | \u2013(?:US)?\$    # a number, money, sign or parenthesis
  | [aA](?i:cross)\b | [pP](?i:ersistence)\b | [rR](?i:ated)\b | [dD](?i:ifficulty)\b   # cues
)"""


@lru_cache(maxsize=32)
def _figure_scanner(nouns: tuple[str, ...]) -> _Scanner:
    alternation = _trie_pattern(nouns) or "(?!)"
    return _scanner(_FIGURE_TEMPLATE.replace("__NOUNS__", f"(?i:{alternation})"), _FIGURE_FIRST)


_Trie = dict[str, "_Trie"]
"""A prefix tree of words: each character to the rest; ``""`` marks a word's end."""


def _trie_pattern(words: Iterable[str]) -> str:
    """One regex matching exactly ``words``, shared prefixes factored out (speed: the engine
    rejects a non-noun at its first letter instead of trying every noun in turn).

    >>> _trie_pattern(["loan", "loans", "lease"])
    'l(?:ease|oan(?:s)?)'
    """
    root: _Trie = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        alts = [
            (f"{_H}+" if ch == " " else re.escape(ch)) + emit(child)
            for ch, child in sorted(node.items())
            if ch
        ]
        if not alts:
            return ""
        if len(alts) == 1 and "" not in node:
            return alts[0]
        body = "|".join(alts)
        return f"(?:{body})?" if "" in node else f"(?:{body})"

    return emit(root)


@lru_cache(maxsize=32)
def _scanner_for(count_nouns: tuple[str, ...] | frozenset[str] | str) -> _Scanner:
    return _figure_scanner(_normalize_nouns(count_nouns))


_DEFAULT_NOUNS = _normalize_nouns(DEFAULT_COUNT_NOUNS)
_FIGURE_SCANNER = _figure_scanner(_DEFAULT_NOUNS)

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


def _signed(sign: str | None) -> bool:
    return sign is not None and sign != "+"


def _measured(
    out: list[Figure],
    text: str,
    kind: FigureKind,
    start: int,
    end: int,
    num: str,
    exponent: int,
    negative: bool,
    role: str = "",
) -> None:
    """Append a USD/PERCENT/SCORE figure with its displayed-precision interval."""
    value, lo, hi = _interval(num, exponent, negative)
    if len(num) > _FLOAT_DIGITS and not isfinite(value):
        return  # beyond a float: not a figure anyone can ground
    out.append(Figure(kind, value, text[start:end], start, end, lo, hi, negative, role))


def _exact(
    out: list[Figure],
    kind: FigureKind,
    m: re.Match[str],
    group: str,
    num: str,
    role: str = "",
    end: int | None = None,
) -> None:
    """Append an exact-kind figure spanning ``group`` (or from its start to ``end``)."""
    start, group_end = m.span(group)
    end = group_end if end is None else end
    value = _number(num)
    if len(num) > _FLOAT_DIGITS and not isfinite(value):
        return  # beyond a float: not a figure anyone can ground
    out.append(Figure(kind, value, m.string[start:end], start, end, value, value, False, role))


def _money(out: list[Figure], m: re.Match[str]) -> None:
    po, s1, s2, pnum, num, rnum, scale = m.group(
        "m_po", "m_s1", "m_s2", "m_pnum", "m_num", "m_rnum", "m_scale"
    )
    negative = bool(po or pnum or _signed(s1) or _signed(s2))
    exponent = _exponent(scale)
    start, end = m.span("money")
    if rnum is None:
        _measured(out, m.string, FigureKind.USD, start, end, pnum or num, exponent, negative)
    else:  # "$1.2-1.5M": the unit is shared; only the low end keeps the sign
        text, mid = m.string, m.end("m_num")
        _measured(out, text, FigureKind.USD, start, mid, num, exponent, negative, "low")
        _measured(out, text, FigureKind.USD, m.start("m_rnum"), end, rnum, exponent, False, "high")


def _unit_number(out: list[Figure], m: re.Match[str]) -> None:
    """A number followed by its unit: percent, basis points, "of m quarters", a count noun."""
    sign, num, rnum, pc, bp, usd, q_num = m.group(
        "n_s", "n_num", "n_rnum", "p_pc", "p_bp", "p_usd", "q_num"
    )
    if pc is not None or bp is not None or usd is not None:
        # "12.3%", "150 bps", and money named after the number: "7.7M USD", "7.7 million dollars"
        if usd is not None:
            kind, exponent = FigureKind.USD, _exponent(m["n_scale"])
        else:
            kind, exponent = FigureKind.PERCENT, _BP_EXPONENT if bp else 0
        negative = _signed(sign)
        start, end = m.span("num")
        if rnum is None:
            _measured(out, m.string, kind, start, end, num, exponent, negative)
        else:  # "2-8%": the unit is shared; only the low end keeps the sign
            text, mid, high = m.string, m.end("n_num"), m.start("n_rnum")
            _measured(out, text, kind, start, mid, num, exponent, negative, "low")
            _measured(out, text, kind, high, end, rnum, exponent, False, "high")
    elif q_num is not None:
        if sign is None and rnum is None and num.isdigit():  # "k of m quarters" is whole
            _exact(out, FigureKind.QUARTERS, m, "n_num", num, "observed")
            _exact(out, FigureKind.QUARTERS, m, "q_tot", q_num, "total")
    elif m["c_k"] is not None:
        if rnum is None:  # "58k loans" stands for [57,500, 58,500), "41.2k" for [41,150, 41,250)
            exponent = 3 if m["c_k"] in "kK" else 6
            _measured(out, m.string, FigureKind.COUNT, *m.span("num"), num, exponent, False)
    elif rnum is None:
        # A count is unsigned: "-3 loans" still cites 3 loans, so it is checked, not dropped.
        _exact(out, FigureKind.COUNT, m, "n_num", num, "", m.end("num"))
        zeros = _rounded_zeros(num)
        if zeros:  # "212,000 loans" stands for [211,500, 212,500)
            f, half = out[-1], 10**zeros / 2
            out[-1] = Figure(
                f.kind, f.value, f.raw, f.start, f.end, f.value - half, f.value + half, False
            )
    else:  # "2-8 loans"
        _exact(out, FigureKind.COUNT, m, "n_num", num, "low")
        _exact(out, FigureKind.COUNT, m, "n_rnum", rnum, "high", m.end("num"))


def _rounded_zeros(num: str) -> int:
    """How many trailing zeros of a whole count are rounding: all of them when there are at
    least two, the count has at least four digits and at least two significant ones
    ("212,000", "12,500", "1,200"); none otherwise ("23,680", "1,000" and "500" are exact).

    >>> [_rounded_zeros(n) for n in ("212,000", "12,500", "1,200", "23,680", "1,000", "500")]
    [3, 2, 2, 0, 0, 0]
    """
    digits = num.replace(",", "")
    if not digits.isdigit() or len(digits) < 4:
        return 0
    significant = digits.rstrip("0")
    zeros = len(digits) - len(significant)
    return zeros if zeros >= 2 and len(significant) >= 2 else 0


def _quarters(out: list[Figure], m: re.Match[str]) -> None:
    _exact(out, FigureKind.QUARTERS, m, "q1_tot", m["q1_num"], "total")


def _score(out: list[Figure], m: re.Match[str]) -> None:
    _measured(out, m.string, FigureKind.SCORE, *m.span("s_num"), m["s_num"], 0, False)


def _difficulty(out: list[Figure], m: re.Match[str]) -> None:
    if m["d1"] is not None:
        _exact(out, FigureKind.DIFFICULTY, m, "d1", m["d1_num"])
    else:
        _exact(out, FigureKind.DIFFICULTY, m, "d2", m["d2_num"])


# The outermost named group of each branch closes last, so ``Match.lastgroup`` names it.
_COLLECT: dict[str | None, Callable[[list[Figure], re.Match[str]], None]] = {
    "money": _money,
    "num": _unit_number,
    "q1": _quarters,
    "score": _score,
    "diff": _difficulty,
}


def extract_figures(text: str, count_nouns: Iterable[str] = DEFAULT_COUNT_NOUNS) -> list[Figure]:
    """Every figure in memo prose, sorted by start; spans never overlap.

    ``count_nouns`` are the nouns that make an integer a COUNT (``23,681 loans``); list both
    singular and plural forms you want matched. Matching is case-insensitive.
    """
    if count_nouns is DEFAULT_COUNT_NOUNS:
        scanner = _FIGURE_SCANNER
    elif isinstance(count_nouns, tuple | frozenset | str):
        scanner = _scanner_for(count_nouns)  # cached: callers pass the same config per block
    else:
        scanner = _figure_scanner(_normalize_nouns(count_nouns))
    out: list[Figure] = []
    for m in _scan(scanner, text):
        _COLLECT[m.lastgroup](out, m)
    return out


# ---------------------------------------------------------------------------------------------
# Memo mode, words: "seven of the last nine quarters", "a third of", "half"
# ---------------------------------------------------------------------------------------------

_CARDINAL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    " fifteen sixteen seventeen eighteen nineteen twenty"
)
_CARDINALS = {w: i for i, w in enumerate(_CARDINAL_WORDS.split(" "))}
_CARD = r"(?:\d{1,2}|" + "|".join(sorted(_CARDINALS, key=len, reverse=True)) + ")"
_WS = r"[ \t\u00a0\u202f]+"
_LAST = rf"(?:the{_WS})?(?:(?:last|past|prior|previous){_WS})?"
_WORD_FIGURES = re.compile(
    rf"""(?ix)
    \b(?=[\dzotfsenha])                    # every branch starts a word so (speed)
    (?:
    \b(?P<k>{_CARD})(?:{_WS}out)?{_WS}of{_WS}{_LAST}(?P<m>{_CARD}{_WS}quarters?)\b
  | \b(?P<half>half)(?:{_WS}of)?{_WS}{_LAST}(?P<hm>{_CARD}{_WS}quarters?)\b
  | \b(?P<all>all|every{_WS}one{_WS}of|each{_WS}of){_WS}{_LAST}(?P<am>{_CARD}{_WS}quarters)\b
  | \b(?P<dk>{_CARD}){_WS}out{_WS}of{_WS}(?:five|5)\b(?!{_WS}quarters?)
  | (?P<frac>
        \b(?:a|one)[ \t-]+(?P<unit>half|third|quarter|fifth)(?={_WS}of\b)
      | (?<=\bby\ )(?:a|one)[ \t-]+(?P<unit2>half|third|quarter|fifth)\b
      | \b(?P<count>two|three|four)[ \t-]+(?P<units>thirds|quarters|fifths)(?={_WS}of\b)
      | \bhalf(?={_WS}of\b)
      | (?<=\bin\ )half\b | (?<=\bby\ )half\b
      | \b(?:halves|halving|halve)\b
    )
    )
    """
)
_FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5}
_FRACTION_HALF_WIDTH = 100 / 24
"""A fraction word stands for its value +- 1/24 (half the gap between a quarter and a third,
the closest pair of the fractions the words name)."""


def _cardinal(word: str) -> int:
    return int(word) if word.isdigit() else _CARDINALS[word.lower()]


def extract_word_figures(text: str) -> list[Figure]:
    """Figures written (partly) in words, sorted by start: ``k of [the last] m quarters``
    with cardinal words up to twenty (QUARTERS, roles observed/total), ``half of the six
    quarters``, ``all eight quarters`` / ``every one of the six quarters`` (k = m),
    ``two out of five`` (DIFFICULTY, unless it counts quarters), and fractions of a whole:
    ``a third of``, ``two thirds of``, ``a quarter of``, ``half of``, ``in half``, ``by a
    third``, ``halves`` (PERCENT, role ``fraction``, value +- 1/24: ``a third`` is
    [29.2, 37.5]). ``a quarter`` as a time unit ("$156K a quarter") is not a fraction.

    >>> def show(t):
    ...     figs = extract_word_figures(t)
    ...     return [(f.kind.value, round(f.value, 2), f.raw, f.role) for f in figs]
    >>> show("loss-making in seven of the last nine quarters")
    [('quarters', 7.0, 'seven', 'observed'), ('quarters', 9.0, 'nine quarters', 'total')]
    >>> show("three out of five quarters; rated two out of five")
    [('quarters', 3.0, 'three', 'observed'), ('quarters', 5.0, 'five quarters', 'total'),
     ('difficulty', 2.0, 'two', '')]
    >>> show("half of the six quarters, every one of the six quarters, all eight quarters")
    [('quarters', 3.0, 'half', 'observed'), ('quarters', 6.0, 'six quarters', 'total'),
     ('quarters', 6.0, 'every one of', 'observed'), ('quarters', 6.0, 'six quarters', 'total'),
     ('quarters', 8.0, 'all', 'observed'), ('quarters', 8.0, 'eight quarters', 'total')]
    >>> show("a third of the loss, two thirds of it, cut in half, $156K a quarter")
    [('percent', 33.33, 'a third', 'fraction'), ('percent', 66.67, 'two thirds', 'fraction'),
     ('percent', 50.0, 'half', 'fraction')]
    >>> show("three-quarters of the total; reduced by a quarter; it halves the loss")
    [('percent', 75.0, 'three-quarters', 'fraction'), ('percent', 25.0, 'a quarter', 'fraction'),
     ('percent', 50.0, 'halves', 'fraction')]
    >>> show("seventeen of twenty quarters, 5 of the last 9 quarters")
    [('quarters', 17.0, 'seventeen', 'observed'), ('quarters', 20.0, 'twenty quarters', 'total'),
     ('quarters', 5.0, '5', 'observed'), ('quarters', 9.0, '9 quarters', 'total')]
    """
    out: list[Figure] = []
    for m in _word_matches(text):
        if m["k"] is not None:
            _word_quarters(out, m, "k", _cardinal(m["k"]), "m")
        elif m["half"] is not None:
            total = _cardinal(m["hm"].split()[0])
            if total % 2 == 0:
                _word_quarters(out, m, "half", total // 2, "hm")
        elif m["all"] is not None:
            _word_quarters(out, m, "all", _cardinal(m["am"].split()[0]), "am")
        elif m["dk"] is not None:
            v = float(_cardinal(m["dk"]))
            s, e = m.span("dk")
            out.append(Figure(FigureKind.DIFFICULTY, v, text[s:e], s, e, v, v, False))
        else:
            raw = m["frac"]
            low = raw.lower()
            unit = m["unit"] or m["unit2"] or (m["units"] or "half").rstrip("s")
            if low.startswith("halv"):
                unit = "half"
            parts = _CARDINALS[m["count"].lower()] if m["count"] else 1
            v = 100 * parts / _FRACTIONS[unit]
            s, e = m.span("frac")
            w = _FRACTION_HALF_WIDTH
            out.append(Figure(FigureKind.PERCENT, v, raw, s, e, v - w, v + w, False, "fraction"))
    return out


_ANCHOR = re.compile(r"(?=[qQhHtTfFoO])(?i:quarter|half|halv|third|fifth|out[ \t\u00a0\u202f]+of)")
_ANCHOR_WORDS = ("quarter", "half", "halv", "third", "fifth", "out")
_QUARTER_WORDS = re.compile(
    r"(?i)\b(?:" + "|".join(_CARDINALS) + r"|half|all|every|each|last|past|prior|previous)\b"
)
_BEFORE_ANCHOR = 64  # "every one of the previous twenty quarters" fits; cheap windows


def _word_matches(text: str) -> list[re.Match[str]]:
    """``_WORD_FIGURES`` matches, read only in windows around their anchor words (speed: the
    pattern has many branches; most prose has no anchor at all), in order, never overlapping."""
    low = text.lower()
    if not any(w in low for w in _ANCHOR_WORDS):
        return []  # most blocks: one C-speed substring test each
    found: dict[int, re.Match[str]] = {}
    last_end = -1
    for anchor in _ANCHOR.finditer(text):
        lo = max(0, anchor.start() - _BEFORE_ANCHOR)
        if anchor.group()[:1] in "qQ" and not _QUARTER_WORDS.search(text, lo, anchor.start()):
            continue  # "5 of 5 quarters": digits only, read by extract_figures
        for m in _WORD_FIGURES.finditer(text, lo, min(len(text), anchor.end() + 48)):
            if m.end() >= anchor.end() or m.start() <= anchor.start() < m.end():
                seen = found.get(m.start())
                if seen is None or seen.end() < m.end():  # the longest reading wins
                    found[m.start()] = m
                last_end = max(last_end, m.end())
    out: list[re.Match[str]] = []
    end = -1
    for start in sorted(found):
        if start >= end:
            out.append(found[start])
            end = found[start].end()
    return out


def _word_quarters(out: list[Figure], m: re.Match[str], k_group: str, k: int, m_group: str) -> None:
    text = m.string
    ks, ke = m.span(k_group)
    ms, me = m.span(m_group)
    total = float(_cardinal(m[m_group].split()[0]))
    kv, q = float(k), FigureKind.QUARTERS
    out.append(Figure(q, kv, text[ks:ke], ks, ke, kv, kv, False, "observed"))
    out.append(Figure(q, total, text[ms:me], ms, me, total, total, False, "total"))


# ---------------------------------------------------------------------------------------------
# Scenario mode: every number, except dates, times, timestamps and versions
# ---------------------------------------------------------------------------------------------

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)

_CODES = r"(?:USD|GBP|EUR|CAD|AUD|JPY|INR|CHF)"

# Every first character of a range, scale, percent or currency suffix (K is U+212A KELVIN SIGN,
# which case-insensitive matching equates with "k"). Where none follows a number, the regex
# skips trying each suffix in turn: most numbers are followed by a space and a plain word.
_SUFFIX_START = rf"[-\u2010\u2011\u2013kKmMbBtT\u212a%]|{_H}+[tTmMbBkK\u212a%pPUGECAJI]"

_NUMBER_BRANCHES = rf"""
(?P<skip>                                   # matched and thrown away: not quantities
    (?=[\dA-Z])                             # cheap first-character test
    (?=[JFMASOND]|\d{{4}}-\d|\d+\.\d+\.\d    # cheap test of what each form below needs
      |\d{{1,2}}(?::\d|[/.]\d|{_H}?[aApP]|(?:st|nd|rd|th)?{_H}+(?:of{_H}+)?[JFMASOND]))
    (?<![\d.])
    (?:
        \d{{4}}-\d{{1,2}}-\d{{1,2}}          # ISO date 2026-04-29 ...
        (?:[T{_H}]\d{{1,2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?)?   # ... T10:30:00.123
        (?:Z|[+-]\d{{2}}:?\d{{2}}(?!\d))?    # ... Z / +02:00
      | \d{{4}}-\d{{2}}(?![\d-])             # year-month 2026-04
      | \d{{1,2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?(?:{_H}?(?i:[ap]\.?m\.?)(?!\w))?  # 10:30, 9:05 pm
      | \d{{1,2}}{_H}?(?i:am|pm|a\.m\.|p\.m\.)(?!\w)   # 3pm
      | \d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}(?!\d)     # 04/29/2026, 29.04.2026
      | \d+(?:\.\d+){{2,}}                   # versions and addresses: 1.2.3, 127.0.0.1
      | \d{{1,2}}(?:st|nd|rd|th)?{_H}+(?:of{_H}+)?{_MONTH}(?:,?{_H}+\d{{4}})?(?!\w)  # 29 April 2026
    )
  | \b{_MONTH}{_H}+\d{{1,2}}(?:st|nd|rd|th)?(?:,?{_H}+\d{{4}})?(?!\w)    # April 29, 2026
)
| (?P<num>
    (?=[\d.(${_MINUS}+£€¥₹A-Z])              # cheap first-character test
    (?<![\w.])                              # not inside a word or after a decimal point
    (?!(?<=\d:)\d\d(?!\d))                   # not the minutes of a clock time: "at10:30"
    (?:(?<![A-Za-z]-)                       # not a label's suffix: "COVID-19", "GPT-4" ...
      | (?<=\d[kKmMbBtT\u212a]-)|(?<=\d(?:bn|mn|mm)-))   # ... but a range end: "5k-6k"
    (?P<po>\()?                             # "(" of accounting "(1,200)"
    (?P<s1>[{_MINUS}+])?                    # sign before the currency: "-$4,820"
    (?P<cur1>US\$|[A-Z]\$|[$£€¥₹]{_H}?|{_CODES}{_H}?)?   # currency prefix
    (?P<s2>(?(cur1)[{_CUR_SIGN}]|[{_MINUS}+]))?   # sign after the currency: "$-4,820"
    (?(cur1)(?P<pi>\()?)                    # "(" of "$(1,200)" (only after a currency)
    (?P<n>{_NUM})(?!\d|\.\d)                # the digits; never stop inside a number
    (?(pi)\))                               # ")" closing "$(1,200)"
    (?:(?!{_SUFFIX_START})                  # speed: nothing below can start here
    |
    (?:[-\u2013](?P<rn>{_NUM})(?!\d|\.\d))?  # range high end sharing the unit: "10-15%"
    (?P<scale>
        (?(cur1)                            # with a currency: any attached scale
            {_SCALE_ATTACHED}
          | (?:(?:bn|[kK]|M|B)(?!\w)        # bare: "12.4k", "1.2M users"; "30m" stays 30
            | [\-\u2010\u2011]?{_SCALE_WORDS})   # words: "1.2million", "1.2-million"
        )
      | {_SCALE_SPACED}                     # spelled out: " million"
    )?
    (?P<pc>{_H}?%|{_H}+(?i:percent|per{_H}cent)\b)?   # "4.8%", "4.8 percent"
    (?P<cur2>{_H}+{_CODES}\b)?              # currency suffix: "4,820 USD"
    )
    (?(po)\))                               # ")" closing "(1,200)"
)
"""

# A number starts with a digit, sign, parenthesis or currency; a skipped date may start with
# a month name.
_NUMBER_FIRST = rf"""(?=[\d.($£€¥₹{_MINUS}+A-Z])(?=   # one set test rejects most positions
    [\d.($£€¥₹{_MINUS}+] | [A-Z]\$ | US\$ | {_CODES}
  | (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)
)"""
_NUMBER_SCANNER = _scanner(_NUMBER_BRANCHES, _NUMBER_FIRST)
# Positions in a ``findall`` tuple (group number - 1) of the groups ``number_values`` reads;
# head and body compile the same branches, so their groups number alike.
_VALUE_GROUPS = tuple(
    _NUMBER_SCANNER.body.groupindex[name] - 1
    for name in ("skip", "n", "rn", "scale", "po", "s1", "s2", "pi", "pc", "cur1", "cur2")
)
assert _NUMBER_SCANNER.head.groupindex == _NUMBER_SCANNER.body.groupindex


_SIGNED = frozenset("-\u2212\u2013\u2014")  # a sign that negates ("+" does not)


def _decode(
    n: str,
    rn: str | None,
    scale: str | None,
    po: str | None,
    s1: str | None,
    s2: str | None,
    pi: str | None,
    pc: str | None,
    currency: bool,
) -> tuple[bool, bool, int]:
    """``(unwrap, negative, exponent)`` of a number match that is not plain: the one sign,
    parenthesis and scale rule of both readers (``_number_parts`` from a match object,
    ``number_values`` from ``findall`` tuples). ``unwrap``: the parentheses are not accounting
    ones ("(2)" is an enumeration, "(4.8%)" an aside) and are not part of the number.
    """
    paren = bool(po)
    unwrap = paren and bool(pc or rn or not (currency or "," in n or "." in n))
    if unwrap:
        paren = False
    negative = paren or bool(pi) or s1 in _SIGNED or s2 in _SIGNED
    return unwrap, negative, _exponent(scale)


def _number_parts(m: re.Match[str]) -> tuple[tuple[str, int, int, int, bool], ...]:
    """The numbers of one ``num`` match: ``(digits, start, end, exponent, negative)`` each.

    A plain number (no sign, scale, range or parentheses) is one part as written; accounting
    parentheses negate only an amount; a range is two parts sharing the scale, the low end
    keeping the sign.
    """
    start, end = m.span("num")
    n, rn, scale, po, s1, s2, pi = m.group("n", "rn", "scale", "po", "s1", "s2", "pi")
    if not (po or s1 or s2 or pi or rn or scale):  # "4,820", "$4,820", "4.8%", "4,820 USD"
        return ((n, start, end, 0, False),)
    currency = bool(m["cur1"] or m["cur2"])
    unwrap, negative, exponent = _decode(n, rn, scale, po, s1, s2, pi, m["pc"], currency)
    if unwrap:
        start, end = start + 1, end - 1
    if not rn:
        return ((n, start, end, exponent, negative),)
    # "$1.2-1.5M", "10-15%": both ends share currency, scale and percent; the low end the sign.
    high_start = m.start("rn")
    return ((n, start, high_start - 1, exponent, negative), (rn, high_start, end, exponent, False))


def _scan_numbers(text: str) -> Iterator[tuple[re.Match[str], float, int, int]]:
    """The one scenario-mode scan: ``(match, signed value, start, end)`` per number, in order.

    Dates, times and versions are matched (so their digits are not read) and skipped; a
    number too large for a float is dropped.
    """
    if not _DIGIT.search(text):
        return  # no digit, no number
    for m in _scan(_NUMBER_SCANNER, text):
        if m["skip"]:
            continue  # a date, time or version: matched only so its digits are not read
        for n, start, end, exponent, negative in _number_parts(m):
            value = _number(n, exponent)
            if len(n) > _FLOAT_DIGITS and not isfinite(value):
                continue  # beyond a float
            yield m, -value if negative else value, start, end


def extract_numbers(text: str) -> list[NumberMention]:
    """Every number in free text, signed and scaled, in order; dates and times yield nothing."""
    return list(iter_numbers(text))


def iter_numbers(text: str) -> Iterator[NumberMention]:
    """``extract_numbers`` one mention at a time (a caller looking for one can stop there).

    >>> next(m.raw for m in iter_numbers("on 2026-04-29 we lost -$4,820 of 9 causes"))
    '-$4,820'
    """
    for m, value, start, end in _scan_numbers(text):
        currency = (m["cur1"] or m["cur2"] or "").strip() or None
        yield NumberMention(value, text[start:end], start, end, currency, bool(m["pc"]))


def number_values(text: str) -> list[float]:
    """``[m.value for m in extract_numbers(text)]`` without building the mentions.

    The fast path of scoring: one ``findall`` over the text (tuples, no match objects), the
    groups read at the positions ``pattern.groupindex`` gives them, the uncommon cases
    (signs, scales, ranges, parentheses) through the same ``_decode`` as ``iter_numbers``.
    ``benchmarks/bench_number_values.py`` measures it against the match-object reader.

    >>> number_values("(1,200) and $1.2-1.5M on 2026-04-29")
    [-1200.0, 1200000.0, 1500000.0]
    """
    out: list[float] = []
    if not _DIGIT.search(text):
        return out
    append = out.append
    scanner = _NUMBER_SCANNER
    first = scanner.head.match(text)
    if first is None:
        rows = scanner.body.findall(text)
    else:
        rows = [first.groups(""), *scanner.body.findall(text, first.end())]
    skip_i, n_i, rn_i, scale_i, po_i, s1_i, s2_i, pi_i, pc_i, c1_i, c2_i = _VALUE_GROUPS
    for g in rows:
        if g[skip_i]:
            continue  # a date, time or version
        n, rn, scale, po, s1, s2, pi = (
            g[n_i], g[rn_i], g[scale_i], g[po_i], g[s1_i], g[s2_i], g[pi_i]
        )  # fmt: skip
        if not (po or s1 or s2 or pi or rn or scale):  # plain: "4,820", "$4,820", "4.8%"
            value = float(n.replace(",", "")) if "," in n else float(n)
            if len(n) <= _FLOAT_DIGITS or isfinite(value):
                append(value)
            continue
        currency = bool(g[c1_i] or g[c2_i])
        _, negative, exponent = _decode(n, rn, scale, po, s1, s2, pi, g[pc_i], currency)
        value = _number(n, exponent)
        if len(n) <= _FLOAT_DIGITS or isfinite(value):
            append(-value if negative else value)
        if rn:
            value = _number(rn, exponent)
            if len(rn) <= _FLOAT_DIGITS or isfinite(value):
                append(value)
    return out


def iter_number_values(text: str) -> Iterator[float]:
    """The values of ``number_values(text)`` one at a time, so a caller that needs only the
    first number of some kind (a numeric range's first hit) can stop reading there.

    >>> values = iter_number_values("on 2026-04-29: (1,200), then $1.2-1.5M, then 7")
    >>> next(values), next(values), list(values)
    (-1200.0, 1200000.0, [1500000.0, 7.0])
    """
    for _, value, _, _ in _scan_numbers(text):
        yield value


_DIGIT = re.compile(r"\d")
