"""Memo mode, figures named by a label before them: ``Loans: 6,742``, ``n = 2,712``,
``Quarters with a loss: 6 of 8``. Writers who lay a memo out as fields or table rows put the
noun first; the digits reader needs it after the number (``6,742 loans``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from pe_eval_core.numtext.figures import DEFAULT_COUNT_NOUNS, Figure, FigureKind

_COUNT_LABELS = ("n", "count", "volume")
"""Labels that name a count whatever the noun list says (``n = 2,712``, ``Volume: 8,865``)."""
_ID_LABELS = frozenset({"row", "rows", "record", "records"})
"""Count nouns that label ids, not counts, before a colon (``spot-check rows: 7963``)."""
_NUMBER = r"(?P<num>\d{1,3}(?:,\d{3})+|\d+)"
_NOT_A_COUNT = (
    r"(?![\d.,]*\d|[ \t]*(?:%|[KkMmBb]\b|bn\b|bps\b|x\b|×|/|of\b|out\b|quarters?\b)"
    r"|[ \t]*,[ \t]*\d|[-\u2013]\d)"  # "12, 40, 77": ids; "48-60 months": a band
)
_QUARTER_LABEL = re.compile(
    r"(?i)\bquarters?\b(?:[ \t]+[\w'-]+){0,4}?[ \t]*[:|][ \t]*"
    r"(?P<k>\d{1,2})[ \t]*(?:of|/|out[ \t]+of)[ \t]*(?P<m>\d{1,2})\b"
    r"(?![ \t]*(?:quarters?\b|%|/|\.\d))"
)

_LABELLED_DIGIT = re.compile(r"[:=|][ \t]*(?:\*\*)?[ \t]*\d")
"""What every count label (``[:=]``, then ``**``, then the digits) and quarters label
(``[:|]``, then ``k``) holds: a text without it has no labelled figure."""


@lru_cache(maxsize=16)
def _count_label(nouns: tuple[str, ...]) -> re.Pattern[str]:
    words = sorted(
        {*(n.lower() for n in nouns if n.lower() not in _ID_LABELS), *_COUNT_LABELS},
        key=len,
        reverse=True,
    )
    alternation = "|".join(re.escape(w) for w in words)
    return re.compile(
        rf"(?im)(?:^|(?<=[|;(\u2022])|(?<=[.;][ \t])|(?<=^[-*+][ \t]))[ \t]*(?:\*\*)?"
        rf"(?:{alternation})[ \t]*(?:\*\*)?[ \t]*[:=][ \t]*(?:\*\*)?[ \t]*" + _NUMBER + _NOT_A_COUNT
    )


def extract_labelled_figures(
    text: str, count_nouns: Iterable[str] = DEFAULT_COUNT_NOUNS
) -> list[Figure]:
    """Counts and quarters pairs named by a label before them, sorted by start: a count noun
    (or ``n``, ``count``, ``volume``) starting a line, clause, bullet or table cell, then
    ``:`` or ``=``, then a whole number is a COUNT; ``quarters`` (up to four more words)
    then ``:`` or a table bar ``|`` then ``k of m`` or ``k/m`` is a QUARTERS pair (roles
    observed/total). A label needs its colon: ``in the last quarter, 3 of 5 cohorts`` is no
    pair, and a number with a unit (``Loans: 12%``) no count.

    >>> def show(t):
    ...     return [(f.kind.value, f.value, f.raw, f.role) for f in extract_labelled_figures(t)]
    >>> show("Loans: 6,742. n = 60; Volume: 8,865; Loans: 12%; rows: 5 of 8; loans: 7, 9")
    [('count', 6742.0, '6,742', ''), ('count', 60.0, '60', ''), ('count', 8865.0, '8,865', '')]
    >>> show("a question on longer-term loans: **48-60 months** paper; sold loans: 40")
    []
    >>> show("Quarters with a loss: 6 of 8; in the last quarter, 3 of 5 cohorts")
    [('quarters', 6.0, '6', 'observed'), ('quarters', 8.0, '8', 'total')]
    """
    out: list[Figure] = []
    if _LABELLED_DIGIT.search(text) is None:
        return out  # most blocks: no digit right after a ':', '=' or '|' that both need
    nouns = count_nouns if isinstance(count_nouns, tuple) else tuple(count_nouns)
    for m in _count_label(nouns).finditer(text):
        s, e = m.span("num")
        v = float(m["num"].replace(",", ""))
        out.append(Figure(FigureKind.COUNT, v, text[s:e], s, e, v, v, False))
    for m in _QUARTER_LABEL.finditer(text):
        for group, role in (("k", "observed"), ("m", "total")):
            s, e = m.span(group)
            v = float(m[group])
            out.append(Figure(FigureKind.QUARTERS, v, text[s:e], s, e, v, v, False, role))
    out.sort(key=lambda f: f.start)
    return out
