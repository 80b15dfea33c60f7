"""Scenario mode: every number in an agent response, signed and scaled, except dates, clock
times, ISO timestamps and version strings. The decision table is in ``pe_eval_core.numbers``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from math import isfinite

from pe_eval_core.numtext._shared import (
    _CUR_SIGN,
    _DIGIT,
    _FLOAT_DIGITS,
    _H,
    _MINUS,
    _NUM,
    _SCALE_ATTACHED,
    _SCALE_SPACED,
    _SCALE_WORDS,
    _exponent,
    _number,
    _scan,
    _scanner,
)


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
_VALUE_NAMES = ("skip", "n", "rn", "scale", "po", "s1", "s2", "pi", "pc", "cur1", "cur2")
_VALUE_GROUPS: tuple[int, ...] = ()
"""Positions in a ``findall`` tuple (group number - 1) of the groups ``number_values`` reads,
set on first use (with the scanner's compile). Head and body compile the same branches, so
their groups number alike:

>>> _NUMBER_SCANNER.head.groupindex == _NUMBER_SCANNER.body.groupindex
True
"""


def _value_groups() -> tuple[int, ...]:
    global _VALUE_GROUPS
    if not _VALUE_GROUPS:
        index = _NUMBER_SCANNER.body.groupindex
        _VALUE_GROUPS = tuple(index[name] - 1 for name in _VALUE_NAMES)
    return _VALUE_GROUPS


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
    for value, start, end, currency, percent in iter_number_spans(text):
        yield NumberMention(value, text[start:end], start, end, currency, percent)


def iter_number_spans(text: str) -> Iterator[tuple[float, int, int, str | None, bool]]:
    """``iter_numbers`` as plain tuples ``(value, start, end, currency, percent)``, with no
    object per number: for a caller that reads every number of many responses (the scenario
    range reader). Each match's groups are read in one ``groups()`` call, and a plain number
    (no sign, scale, range or parentheses) is decoded inline, the rest through
    ``_number_parts``.

    >>> list(iter_number_spans("lost -$4,820 (12%)"))
    [(-4820.0, 5, 12, '$', False), (12.0, 14, 17, None, True)]
    """
    if not _DIGIT.search(text):
        return
    skip_i, n_i, rn_i, scale_i, po_i, s1_i, s2_i, pi_i, pc_i, c1_i, c2_i = _value_groups()
    for m in _scan(_NUMBER_SCANNER, text):
        g = m.groups()
        if g[skip_i]:
            continue  # a date, time or version
        cur = g[c1_i] or g[c2_i]
        currency = (cur.strip() or None) if cur else None
        percent = bool(g[pc_i])
        n = g[n_i]
        if not (g[po_i] or g[s1_i] or g[s2_i] or g[pi_i] or g[rn_i] or g[scale_i]):
            value = float(n.replace(",", "")) if "," in n else float(n)
            if len(n) <= _FLOAT_DIGITS or isfinite(value):
                start, end = m.span("num")
                yield value, start, end, currency, percent
            continue
        for digits, start, end, exponent, negative in _number_parts(m):
            value = _number(digits, exponent)
            if len(digits) <= _FLOAT_DIGITS or isfinite(value):
                yield -value if negative else value, start, end, currency, percent


def number_spans(text: str) -> list[tuple[float, int, int, str | None, bool]]:
    """``list(iter_number_spans(text))``: every number of ``text`` at once.

    >>> number_spans("lost -$4,820 (12%) on 2026-04-29")
    [(-4820.0, 5, 12, '$', False), (12.0, 14, 17, None, True)]
    """
    return list(iter_number_spans(text))


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
    first = scanner.match_head(text)
    if first is None:
        rows = scanner.body.findall(text)
    else:
        rows = [first.groups(""), *scanner.body.findall(text, first.end())]
    skip_i, n_i, rn_i, scale_i, po_i, s1_i, s2_i, pi_i, pc_i, c1_i, c2_i = _value_groups()
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
