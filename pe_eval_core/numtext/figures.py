"""Memo mode: the figures a memo cites (money, percentages, counts, quarters, scores,
difficulty ratings), each with its raw text, span and the interval its displayed precision
stands for. The decision table is in ``pe_eval_core.numbers``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from math import isfinite

from pe_eval_core.numtext._shared import (
    _BP_EXPONENT,
    _CUR_SIGN,
    _H,
    _MINUS,
    _NUM,
    _SCALE_ATTACHED,
    _SCALE_LETTER,
    _SCALE_SPACED,
    _SCALE_SPACED_SP,
    _SP,
    _exponent,
    _interval,
    _number,
    _scan,
    _Scanner,
    _scanner,
)


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
    claim: str = ""
    """The quantity its wording claims (a ``pe_eval_core.grading.roles.Role`` value: ``loss``,
    ``impact`` ...), set by the grader from the figure's clause; '' claims nothing."""

    def covers(self, x: float) -> bool:
        """True if ``x`` is a value this figure could have been rounded from (ends included).

        Both ends count because producers round ties either way (f-strings round half to
        even); a relative 1e-9 slack absorbs float error in the producer's own division.
        """
        slack = 1e-9 * max(abs(self.lo), abs(self.hi), 1.0)
        return self.lo - slack <= x <= self.hi + slack


_FIGURE_TEMPLATE = rf"""
(?P<money>
    (?=[(${_MINUS}+\u2013U])               # cheap first-character test
    (?<![\w.$])(?<!\d,)                    # not glued to a word or number before it
    (?P<m_po>\()?                          # "(" of accounting "($5.2M)"
    (?P<m_s1>[{_MINUS}+]                   # sign before the currency: "-$5.2M"; an en dash
      | \u2013(?=(?:US)?\$)                 # glued to "$" too, unless it ends a range
        (?<!\d{_SP}\u2013)(?<!\d[kKmMbBtT%]{_SP}\u2013)(?<!\d(?:bn|mn|mm){_SP}\u2013)  # "$2k –$3k"
    )?
    (?P<m_cur>(?:US)?\${_SP}?|USD{_SP}?)  # currency: "$", "$ ", "US$", "USD " (memo money is USD)
    (?P<m_s2>[{_CUR_SIGN}])?               # sign after the currency: "$-5.2M", "$\u20137.7M"
    (?:
        \((?P<m_pnum>{_NUM})\)             # "$(5.2)M"
      | (?P<m_num>{_NUM})                  # "$5.2M"
        (?:[-\u2013](?P<m_rnum>{_NUM}))?   # range high end sharing the unit: "$1.2-1.5M"
    )
    (?!\d|[.,]\d)                          # never stop inside a number
    (?P<m_scale>{_SCALE_ATTACHED}|{_SCALE_SPACED_SP})?   # "M", "bn", " million"
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
          | {_H}+(?i:percentage{_SP}+points?)\b           # "3 percentage points"
          | {_H}*(?i:ppts?|pp)\b                         # "3pp", "3 ppt"
          | {_H}+(?i:percent|per{_SP}cent|pct)\b          # "12.3 percent"
        )
      | (?P<p_bp>{_H}*(?i:bps|bp|basis{_SP}+points?)\b)   # "150 bps", "150 basis points"
      | (?:{_H}+(?i:out{_SP}+)?(?i:of){_SP}+(?i:the{_SP}+)?|/)  # k " of [the] " / "/" ...
        (?P<q_tot>(?P<q_num>\d+){_SP}+(?i:quarters?)\b)   # ... m quarters
      | (?P<c_noun>{_H}+(?:__NOUNS__)\b)                 # a count noun: "23,681 loans"
      | (?P<p_usd>                                        # money named after the number:
            (?P<n_scale>{_SCALE_ATTACHED}|{_SCALE_SPACED}|{_H}+{_SCALE_LETTER})?   # "7.7M" ...
            {_H}+(?:(?i:(?:US{_SP}+)?dollars?)\b|USD\b)    # ... " dollars", " USD"
        )
      | (?P<c_k>[kK](?!\w|[.,]\d)|M(?={_H}+(?:__NOUNS__)\b))   # a count in thousands or
        (?:{_H}+(?:__NOUNS__)\b)?                         # millions: "58k loans", "41.2k"
    )
)
| (?P<q1>
    (?=[aA])                               # cheap first-character test
    \b(?i:across){_SP}+                     # "across"
    (?:(?i:all|the(?:{_SP}+(?:last|past))?){_SP}+)?   # "all", "the last"
    (?P<q1_tot>(?P<q1_num>\d+){_SP}+(?i:quarters?)\b)   # "8 quarters"
)
| (?P<score>
    (?=[pP])                               # cheap first-character test
    \b(?i:persistence)(?:{_SP}+(?i:score))? # "persistence score"
    [\s*:=]*                               # "**:", " = "
    (?:(?i:of|is|was|at){_SP}+\**)?         # "of", "of **"
    \(?                                    # "(0.80)"
    (?P<s_num>[01]?\.\d+|[01])             # 0..1 as written
    (?!\d|\.\d|{_SP}*%|{_SP}+(?i:percent))   # "80%" is a percentage, read above
)
| (?P<diff>
    (?=[rRdD])                             # cheap first-character test
    (?:
        \b(?i:rated){_SP}+                  # "rated 4/5" needs its "/5"
        (?P<d1>(?P<d1_num>\d(?:\.\d)?){_SP}*(?:/|(?i:out{_SP}+of)){_SP}*5)
      | \b(?i:difficulty)(?:{_SP}+(?i:score|rating|level))?   # "difficulty score"
        [\s*:=]*(?:(?i:of|is|was|at){_SP}+\**)?              # " of ", ":** "
        (?P<d2>(?P<d2_num>\d(?:\.\d)?)(?:{_SP}*(?:/|(?i:out{_SP}+of)){_SP}*5)?)
        (?!{_SP}+(?i:weeks?|months?|days?|years?|quarters?|hours?)\b)   # a duration
    )
    (?!\d|\.\d|%)                          # not "4/50", not "3%"
)
"""


def _normalize_nouns(count_nouns: Iterable[str]) -> tuple[str, ...]:
    if isinstance(count_nouns, str):
        count_nouns = (count_nouns,)
    nouns = {n.strip().lower() for n in count_nouns if n and n.strip()}
    return tuple(sorted(nouns, key=lambda n: (-len(n), n)))


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
    # beyond a float (more than ~300 digits): kept with an infinite value, which
    # ``scan_figures`` sets apart as unreadable (no source can ground it; never silence)
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
    value = _number(num)  # infinite beyond a float: set apart by ``scan_figures``
    out.append(Figure(kind, value, m.string[start:end], start, end, value, value, False, role))


def _money(out: list[Figure], m: re.Match[str]) -> None:
    po, s1, s2, pnum, num, rnum, scale = m.group(
        "m_po", "m_s1", "m_s2", "m_pnum", "m_num", "m_rnum", "m_scale"
    )
    # "(+$768K)" is a bracketed gain, not an accounting negative
    negative = bool((po and s1 != "+") or pnum or _signed(s1) or _signed(s2))
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
    singular and plural forms you want matched. Matching is case-insensitive. A figure
    written with more digits than a float holds is left out (see :func:`scan_figures`).
    """
    return scan_figures(text, count_nouns)[0]


def scan_figures(
    text: str, count_nouns: Iterable[str] = DEFAULT_COUNT_NOUNS
) -> tuple[list[Figure], list[Figure]]:
    """``(figures, unreadable)``: :func:`extract_figures`'s figures, and apart the figures
    written with so many digits that no float holds their value (its ``value`` is infinite):
    a grader names those instead of passing over them in silence.

    >>> figures, unreadable = scan_figures("Lost $4.8M and $" + "9" * 400 + ".")
    >>> [f.raw for f in figures], [len(f.raw) for f in unreadable]
    (['$4.8M'], [401])
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
    if all(isfinite(f.value) for f in out):
        return out, []
    return [f for f in out if isfinite(f.value)], [f for f in out if not isfinite(f.value)]
