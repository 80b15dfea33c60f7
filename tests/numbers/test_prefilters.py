"""The cheap tests that let the memo reader skip a costly pattern must never skip a match:
each agrees with its pattern on texts that hit, miss, and hide letters behind the characters
an ignore-case pattern folds to ASCII (İ ı ſ K)."""

from __future__ import annotations

import re

import pytest

from pe_eval_core.memo.context import _NEEDS, _PLAN, _has_plan, _Sentences, without_plan_parameters
from pe_eval_core.numbers import extract_figures, extract_labelled_figures

PLAN_TEXTS = (
    "Hold out 10% as a control group of 500 loans.",
    "HOLD-OUT 5%; A/B TEST on 200 accounts",
    "a \u017fample of 300 loans",  # long s: (?i) 'sample'
    "run a pilot on 40 branches",
    "Randomised across 12 regions",
    "the cohort has 13,436 loans and loses $6.2M",
    "operator-controllable; a sample window; tested; backtest group; pilots",
    "the control; a sample size; holdback; xcontrol group; test-cell",
    "",
)


@pytest.mark.parametrize("text", PLAN_TEXTS)
def test_the_plan_prefilter_never_hides_a_plan(text: str) -> None:
    assert _has_plan(text) is (_PLAN.search(text) is not None)


def test_a_long_s_plan_still_drops_its_parameters() -> None:
    text = "a \u017fample of 300 loans"
    assert _PLAN.search(text) is not None
    assert without_plan_parameters(text, extract_figures(text)) == []


@pytest.mark.parametrize(
    ("text", "raws"),
    [
        ("**Loans:** 6,742 in all", ["6,742"]),
        ("Loans:6742; n = 60", ["6742", "60"]),
        ("| Quarters with a loss | 6 of 8 |", ["6", "8"]),
        ("Loans: **12** today", ["12"]),
        ("Loans: twelve; ratio 3:1 = none", []),
        ("no label here: just words", []),
    ],
)
def test_labelled_figures_behind_the_prefilter(text: str, raws: list[str]) -> None:
    assert [f.raw for f in extract_labelled_figures(text)] == raws


def test_a_sentence_says_what_its_pattern_finds_and_nothing_when_the_text_lacks_it() -> None:
    text = "Together they add $5M. Alone, $2M; the loss is $1M."
    words = re.compile(r"\b(?:together|loss)\b", re.IGNORECASE)
    s = _Sentences(text)
    assert s.says(words, text.index("$5M"), text.index("$5M") + 3)
    assert not s.says(words, text.index("$2M"), text.index("$2M") + 3)
    assert s.says(words, text.index("$1M"), text.index("$1M") + 3)
    absent = re.compile(r"\bportfolio\b")
    assert not _Sentences(text).says(absent, 0, 3)


SAYS_TEXTS = (
    "Together the two cohorts add $5M. Across the five COHORTS, $26K to $187K.",
    "In total $7.6M; the sum of both is $7.6M; the \u017eEGMENTS hold $1M.",
    "Between them they make up $3M; across all pockets $2M.",
    "The cohort loses $2M a year; nothing else.",
    "Across the five Segment\u017f, $1M; the \u017fum of $2M.",  # long s folds to 's'
)


@pytest.mark.parametrize("text", SAYS_TEXTS)
def test_the_sentence_prefilter_agrees_with_searching_each_sentence(text: str) -> None:
    sentences = _Sentences(text)
    for pattern in _NEEDS:
        for m in re.finditer(r"\$[\d.]+[KM]", text):
            begin, stop = sentences.around(m.start(), m.end())
            expected = pattern.search(text, begin, stop) is not None
            assert sentences.says(pattern, m.start(), m.end()) is expected, (pattern, m.group())


def test_word_figure_anchors_are_the_patterns_own_matches() -> None:
    import random

    from pe_eval_core.numtext.words import _ANCHOR, _anchors

    pieces = (
        *("quarter", "QUARTERS", "half", "Halving", "third", "fifth", "out of", "OUT\u00a0OF"),
        *("halfifth", "outof", " ", "x", "s", "th\u0130rd", "\u017fifth", "ou", "t of", "one-"),
    )
    rng = random.Random(25)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        expected = [m.span() for m in _ANCHOR.finditer(text)]
        assert [m.span() for m in _anchors(text, text.lower())] == expected, text


def test_a_rating_is_never_hidden_by_its_tail_test() -> None:
    import random

    from pe_eval_core.numtext.words import _DIFFICULTY_RATING, _RATING_TAIL

    pieces = (
        *("2", "5", "five", "FIVE", "one", "/", " / ", " out of ", " of ", "\u00a0of\u00a0"),
        *("rated ", "difficulty ", "x", ".", "quarters", "%", " ", "f\u0131ve", "OF"),
    )
    rng = random.Random(5)
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert _RATING_TAIL.search(text) is not None or _DIFFICULTY_RATING.search(text) is None


def test_claiming_is_replace() -> None:
    import dataclasses

    from pe_eval_core.memo.context import _claiming

    f = extract_figures("lost $6.2M (12.5%) a year")[0]
    f = dataclasses.replace(f, role="low sum")
    assert _claiming(f, "loss") == dataclasses.replace(f, claim="loss")
    assert [x.name for x in dataclasses.fields(f)][-2:] == ["role", "claim"]  # none added
    assert len(dataclasses.fields(f)) == 10


def test_placeholders_behind_their_markers_are_the_patterns_matches() -> None:
    """The marker test is exact: it skips only texts where the pattern finds nothing."""
    import random

    from pe_eval_core.memo.placeholders import _PLACEHOLDER, find_placeholders

    def everywhere(text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _PLACEHOLDER.finditer(text)]

    pieces = ("**", "*", "_", " ", "  ", "\t", "__", "{a}", "[TODO x]", "[", "A", "×", "_ _", "\n")
    rng = random.Random(35)
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        assert [m.span() for m in find_placeholders(text)] == everywhere(text), repr(text)
    for text in ("**A** _\t_", "**B** ** **", "_\t_", "**Texas** loses", "the _  _ plan"):
        assert [m.span() for m in find_placeholders(text)] == everywhere(text), repr(text)
    # a spaced or tabbed blank with no other marker (the marker test once required "_ _")
    assert [m.group() for m in find_placeholders("the action is _\t_ today")] == ["_\t_"]
    assert [m.group() for m in find_placeholders("owner: _  _")] == ["_  _"]


def test_a_plan_is_found_where_the_pattern_finds_one() -> None:
    import random

    pieces = (
        *("control", "Control", " group", "hold", "-out", " back", "test", " cell", "pilot"),
        *(" of", " on", "sample", " size", "randomi", "zed", "a/b", "A/B", " test", "x", " "),
        *("\u017fample", "-", "able", "ing", "; "),
    )
    rng = random.Random(45)
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        assert _has_plan(text) is (_PLAN.search(text) is not None), repr(text)


def _word_matches_scanning_every_window(text: str) -> list[re.Match[str]]:
    """``numtext.words._word_matches`` before its live-anchor test (every anchor's window
    scanned): the form the fast path replaces."""
    from pe_eval_core.numtext.words import (
        _ANCHOR_WORDS,
        _BEFORE_ANCHOR,
        _QUARTER_WORDS,
        _WORD_FIGURES,
        _anchors,
    )

    low = text.lower()
    if not any(w in low for w in _ANCHOR_WORDS):
        return []
    found: dict[int, re.Match[str]] = {}
    for anchor in _anchors(text, low):
        lo = max(0, anchor.start() - _BEFORE_ANCHOR)
        if anchor.group()[:1] in "qQ" and not _QUARTER_WORDS.search(text, lo, anchor.start()):
            continue
        for m in _WORD_FIGURES.finditer(text, lo, min(len(text), anchor.end() + 48)):
            if m.end() >= anchor.end() or m.start() <= anchor.start() < m.end():
                seen = found.get(m.start())
                if seen is None or seen.end() < m.end():
                    found[m.start()] = m
    out: list[re.Match[str]] = []
    end = -1
    for start in sorted(found):
        if start >= end:
            out.append(found[start])
            end = found[start].end()
    return out


_WORD_PIECES = (
    *("quarter", "quarters", "QUARTERS", "quarterly", "half", "Half", "halves", "halving"),
    *("third", "thirds", "fifth", "fifths", "out of", "OUT\u00a0OF", "out", " of ", "of"),
    *("one", "One", "two", "three", "four", "five", "nine", "twelve", "twenty", "a", "A"),
    *("5", "8", "12", "123", "by", "in", "all", "every one of", "each of", "the", "last"),
    *("past", "most recent", "observed", "tracked", "fiscal", "over", "compounds", "carve"),
    *("approval", "weeks", "loans", "data", "2026", "loss", "$1.6M", "$", "rated", "x"),
    *(" ", " ", " ", " ", "  ", "\t", "-", "\u00a0", "\u202f", ".", ";", "\n", ","),
    *("\u0130", "\u017f", "th\u0131rd", "q3", "Q"),
    *(" seven of the last nine quarters", "two out of five", "a third of", " half of ", " in half"),
    *(" by a quarter", "a quarter of ", " 5 of 8 quarters", "three-quarters of"),
    *("all eight quarters", " every one of the six quarters", " this cohort's", " most recent"),
    *(" half the six quarters", " reduced by a quarter", " 3 quarters out of 8", " tracked"),
    *(" of the cohort's last eight quarters", " its", " prior", " five quarters of"),
    *(" 3 of 8 observed quarters", " six fiscal quarters", " 2 out of 5", "one out of\u00a0five"),
)


def test_word_matches_skip_only_windows_without_a_match() -> None:
    """``_word_matches`` skips the windows whose anchor words no match can hold (``_live``):
    the same matches, spans and groups, as scanning every window, on generated texts."""
    import random

    from pe_eval_core.numtext.words import _word_matches

    rng = random.Random(2525)
    matched = 0
    for _ in range(6000):
        text = "".join(rng.choice(_WORD_PIECES) for _ in range(rng.randint(0, 40)))
        expected = _word_matches_scanning_every_window(text)
        got = _word_matches(text)
        assert [(m.span(), m.groupdict()) for m in got] == [
            (m.span(), m.groupdict()) for m in expected
        ], text
        matched += bool(expected)
    assert matched > 2000  # the texts exercise the pattern, not only its absence


@pytest.mark.parametrize(
    "text",
    [
        "one of the cohort's last eight quarters",
        "in five of this cohort's most recent eight observed quarters",
        "half of the six quarters; half the previous eight tracked quarters",
        "every one of the past twelve quarters; each of the 8 quarters; all eight quarters",
        "three quarters out of five; 3 quarters of the last 8; two out of five",
        "reduced by a quarter; by one quarter; a quarter of the loss; three-quarters of it",
        "one quarter of post-action data; $156K a quarter; across 8 quarters means",
        "rated 2 out of 5; one out of\u00a0five; cut in half; it halves the loss",
    ],
)
def test_word_matches_of_each_branch_are_the_scanning_forms(text: str) -> None:
    from pe_eval_core.numtext.words import _word_matches

    expected = _word_matches_scanning_every_window(text)
    assert expected
    assert [(m.span(), m.groupdict()) for m in _word_matches(text)] == [
        (m.span(), m.groupdict()) for m in expected
    ]


def test_word_matches_on_the_producer_corpora_are_the_scanning_forms() -> None:
    """Every prose block of the corpora reads the same word matches both ways."""
    import json
    from pathlib import Path

    blocks = 0
    for path in sorted(Path(__file__).parents[1].joinpath("corpus").rglob("explain_*.json")):
        try:
            memo = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        entries = memo.get("opportunities_explained") if isinstance(memo, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            for value in entry.values() if isinstance(entry, dict) else ():
                if isinstance(value, str):
                    from pe_eval_core.numtext.words import _word_matches

                    blocks += 1
                    assert [m.span() for m in _word_matches(value)] == [
                        m.span() for m in _word_matches_scanning_every_window(value)
                    ], value
    assert blocks > 300


def test_a_run_rate_before_a_figure_is_searched_where_its_period_is_named() -> None:
    """``_names_a_period`` holds for every window the before-pattern matches in (generated
    windows with look-alike and case-folding characters)."""
    import random

    from pe_eval_core.memo.context import _PER_PERIOD_BEFORE, _names_a_period

    pieces = (
        *("quarterly", "Monthly", "WEEKLY", "wee\u212a", "each", "every", "another", "per"),
        *(" quarter", " month", " week", " loss", " of ", " is ", " at ", " costs ", " ~"),
        *(" about ", "a further", "a single", " runs at ", " ", "\u00a0", "-", "x", "Q"),
        *("\u0130", "\u017f", "quart\u0435r", " $"),
    )
    rng = random.Random(55)
    found = 0
    for _ in range(5000):
        window = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        window += rng.choice(("", " costs ", " of ", " is ", " costs about ", " loses ~"))
        hit = _PER_PERIOD_BEFORE.search(window) is not None
        found += hit
        assert _names_a_period(window.lower()) or not hit, window
    assert found > 300


def test_unmarking_a_clause_is_the_markup_translation() -> None:
    """``roles._unmarked`` (a replace per markup character present) is ``translate(_MARKUP)``
    on generated windows (markup, look-alikes, non-ASCII, nothing to replace)."""
    import random

    from pe_eval_core.grading.roles import _MARKUP, _unmarked

    pieces = ("*", "**", "_", "`", "a", " ", "$1.2M", "\u00d7", "\u2014", "\uff0a", "\n", "__x")
    rng = random.Random(65)
    for _ in range(3000):
        window = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        assert _unmarked(window) == window.translate(_MARKUP), window


def test_column_lists_are_looked_for_at_their_joiners_only() -> None:
    """``plain_names._xlists`` (the pattern tried at the word before each joiner) finds what
    ``_XLIST.finditer`` finds, on generated texts and every corpus block."""
    import json
    import random
    from pathlib import Path

    from pe_eval_core.memo.plain_names import _XLIST, _xlists

    def same(text: str) -> bool:
        return [m.span() for m in _xlists(text)] == [m.span() for m in _XLIST.finditer(text)]

    pieces = (
        *("state", "channel", "fico", "loan_officer", "_x", "X", "x", "xx", "2a", "a2", "b"),
        *(" ", "  ", "\t", "\u00d7", " \u00d7 ", " x ", " X ", "\tx\t", "-", "**", "(", ")"),
        *("\u00e9t\u00e9", "\u0661\u0662", "e\u0301", ",", ";", "\n", "360 months", "Texas"),
    )
    rng = random.Random(75)
    found = 0
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert same(text), text
        found += _XLIST.search(text) is not None
    assert found > 800
    blocks = 0
    for path in sorted(Path(__file__).parents[1].joinpath("corpus").rglob("explain_*.json")):
        try:
            memo = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        for entry in memo.get("opportunities_explained") or () if isinstance(memo, dict) else ():
            for value in entry.values() if isinstance(entry, dict) else ():
                if isinstance(value, str):
                    blocks += 1
                    assert same(value), value
    assert blocks > 300
