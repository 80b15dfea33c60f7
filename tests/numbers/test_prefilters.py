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
