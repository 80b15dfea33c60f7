"""Scoped negation looks for cues and clause breaks in the hit's sentence only (issue 25);
it must decide exactly as the whole-text scan it replaced. The reference below is that scan
(every cue, clause break and complementizer of the text, found once, then bisected),
compared on a table and on generated prose full of cues, breaks and hyphens."""

from __future__ import annotations

import re
from bisect import bisect_left

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_eval_core.scenarios.scoring import assertions as A

OLD_BREAK = re.compile(r"[.!?;](?=\s|$)|\n")


def _first_at(spans, lo, hi):
    i = bisect_left(spans, (lo, -1))
    return spans[i] if i < len(spans) and spans[i][1] <= hi else None


def slow_governing(text: str, start: int, end: int):
    """``governing_negation`` as it was: whole-text lists of cues, breaks, complementizers."""
    cues = [A.Negation(m.group(), m.start(), m.end()) for m in A._CUES.finditer(text)]
    starts = [c.start for c in cues]
    clause = [m.span() for m in A._CLAUSE_BREAK.finditer(text)]
    comps = [m.span() for m in A._COMPLEMENTIZER.finditer(text)]
    lo, _ = A.sentence_bounds(text, start, end)
    k = bisect_left(starts, start)
    while k > 0 and cues[k - 1].end > start:
        k -= 1
    if k == 0 or starts[k - 1] < lo:
        return None
    cue = cues[k - 1]
    brk = _first_at(clause, cue.end, start)
    if brk is not None and not text[cue.end : brk[0]].strip() and text[brk[0]].isalpha():
        brk = _first_at(clause, brk[1], start)
    if brk is not None:
        return None
    if _first_at(comps, cue.end, start) is None and A._presupposed(text, start, end, lo):
        return None
    return cue


WORDS = [
    "not", "no", "No", "no longer", "never", "none", "nobody", "nothing", "without", "cannot",
    "declined", "failed to", "isn't", "don’t", "won't", "but", "because", "since", "so",
    "however", "then", "that", "whether", "if", "the", "its", "risk", "at risk", "flag",
    "flags", "usage drop", "Northwind", "Lumen Dental", "recovered", "notable", "nobody's",
    "cards", "4.8", "$4,820", "-", " - ", ",", ";", ":", ".", ". ", "!", "?", "\n", "(", ")",
    "\u2014", "\t", "  ", " ", "é", "_", "x",
]  # fmt: skip
prose = st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join)
PHRASES = [
    "risk",
    "at risk",
    "flag",
    "usage drop",
    "Lumen Dental",
    "$4,820",
    "4.8",
    "cards",
    "Northwind",
]

TABLE = [
    "It is NOT the case that 4 cards expired.",
    "Nobody followed up, but both cancelled after a risk flag",
    "Both cancelled after a risk flag nobody followed up",
    "Restore it if it was not requested - Northwind Logistics",
    "The charge failed not because of insufficient funds; no risk. Not at risk!",
    "We did not see a usage drop.\nNo longer at risk; the usage drop is not notable",
    "isn't\tat risk, whether or not cards... no cards $4,820 at risk",
]


def _pairs(text: str):
    for phrase in PHRASES:
        for m in A._phrase_pattern(phrase, True).finditer(text):
            yield m.span()


@pytest.mark.parametrize("text", TABLE)
def test_scoped_negation_equals_the_whole_text_scan_on_the_table(text):
    spans = list(_pairs(text))
    assert spans
    for s, e in spans:
        assert A.governing_negation(text, s, e) == slow_governing(text, s, e), (text, s, e)


@settings(max_examples=500, deadline=None)
@given(prose, st.data())
def test_scoped_negation_equals_the_whole_text_scan(text, data):
    spans = list(_pairs(text))
    spans.append(tuple(sorted(data.draw(st.tuples(*[st.integers(0, len(text))] * 2)))))
    for s, e in spans:
        if s < e:
            assert A.governing_negation(text, s, e) == slow_governing(text, s, e), (text, s, e)


@settings(max_examples=300, deadline=None)
@given(st.one_of(prose, st.text(alphabet=".!?;\n \tab")))
def test_sentence_breaks_are_found_as_before(text):
    assert [m.span() for m in A._BREAK.finditer(text)] == [
        m.span() for m in OLD_BREAK.finditer(text)
    ]


MATCH_PHRASES = ["at risk", "risk flag", "usage drop", "cancelled", "$4,820", "4.8", "Lumen Dental"]
MATCH_WORDS = [
    *WORDS, "AT", "Risk", "RISKS", "r\u0130sk", "\u0131", "canceled", "CANCELLED", "cancels",
    "Usage", "drops", "$4,820.5", "14.8", "xat", "\u212a", "flags", "lumen", "DENTAL", "é",
]  # fmt: skip
match_prose = st.lists(st.sampled_from(MATCH_WORDS), min_size=1, max_size=40).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(match_prose, st.sampled_from(MATCH_PHRASES), st.booleans())
def test_phrase_matches_equal_finditer(text, phrase, inflect):
    """Matching tried only where a first-word form starts finds what ``finditer`` finds."""
    want = [m.span() for m in A._phrase_pattern(phrase, inflect).finditer(text)]
    assert [m.span() for m in A._phrase_matches(text, phrase, inflect)] == want
