"""The deterministic paraphrase rules: what they accept, and what they must leave to the judge."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_eval_core.numbers import extract_numbers
from pe_eval_core.scenarios.scoring import paraphrase as P
from pe_eval_core.scenarios.scoring.paraphrase import (
    RULE_FUNCTION_WORDS,
    RULE_NUMBER,
    RULE_PUNCTUATION,
    ResponseView,
    rule_match,
)

ACCEPTED = [
    # expected, response, rule, evidence
    ("£240k", "about £240,000 at risk", RULE_NUMBER, "£240,000"),
    ("$4,820", "we lost $4820.00 of MRR", RULE_NUMBER, "$4820.00"),
    ("$1.2M", "a $1,200,000 pipeline", RULE_NUMBER, "$1,200,000"),
    ("4.8%", "churn of 4.80%", RULE_NUMBER, "4.80%"),
    (
        "VP Engineering",
        "escalate to the VP of Engineering",
        RULE_FUNCTION_WORDS,
        "VP of Engineering",
    ),
    (
        "active in the product database",
        "still active in product database",
        RULE_FUNCTION_WORDS,
        "active in product database",
    ),
    (
        "failed-charge recovery",
        "Failed charge recovery",
        RULE_PUNCTUATION,
        "Failed charge recovery",
    ),
    ("double   charge", "a DOUBLE\ncharge on Quillstone", RULE_PUNCTUATION, "DOUBLE\ncharge"),
    ("lost card", "lost, card", RULE_PUNCTUATION, "lost, card"),
]

REJECTED = [
    ("expired card", "4 cards had passed their expiry date"),  # synonym: the judge's job
    ("$4,820", "lost $4,280"),  # a different amount
    ("$4,820", "4,820 of MRR"),  # currency dropped
    ("£240k", "$240,000"),  # another currency
    ("4.8%", "4.8 customers"),  # percent vs count
    ("4,820", "4.820"),  # separators carry meaning
    ("not renewing", "renewing next month"),  # negations are never dropped
    ("VP Engineering", "VP Sales and Engineering"),  # extra content word
    ("the of", "of the"),  # only function words: never a rule match
    ("$4.8k", "$4,820"),  # a rounding, not the same number
]


@pytest.mark.parametrize(("expected", "response", "rule", "evidence"), ACCEPTED)
def test_rules_accept(expected, response, rule, evidence):
    match = rule_match(expected, ResponseView(response))
    assert match is not None and (match.rule, match.evidence) == (rule, evidence)


@pytest.mark.parametrize(("expected", "response"), REJECTED)
def test_rules_reject(expected, response):
    assert rule_match(expected, ResponseView(response)) is None


# --- the fast path for phrases without numbers gives the exact comparison's result ----------


def _exact_rule_match(expected: str, response: P.ResponseView) -> P.RuleMatch | None:
    """The rules exactly as specified: plain tokens, then value tokens, then content tokens."""
    exp_valued = P._value_tokens(expected, extract_numbers(expected))
    if not P._could_match(exp_valued, response):
        return None
    span = response.plain.find(P._plain_tokens(expected))
    if span:
        return P.RuleMatch(P.RULE_PUNCTUATION, response.evidence(response.plain, span))
    span = response.valued.find(exp_valued)
    if span:
        return P.RuleMatch(P.RULE_NUMBER, response.evidence(response.valued, span))
    span = response.content.find(exp_valued.without_function_words())
    if span:
        return P.RuleMatch(P.RULE_FUNCTION_WORDS, response.evidence(response.content, span))
    return None


_WORDS = ["vp", "of", "the", "Engineering", "a", "k", "million", "usd", "per", "cent", "m"]
_WORDS += ["café", "$", "%", "x_y", "Ünder", "and"]
_PIECES = [*_WORDS, "$", "£", "%", "5", "1.2", "12,40", "10:30", "(", ")", "-", ",", " ", "A$"]
_PIECES += ["_", "vpof", "ofvp", "İ", "abc5", "\n", "'", "2026-04-29", "US$", "1.2M"]


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4),
    st.lists(st.sampled_from(_PIECES), max_size=25),
    st.sampled_from([" ", "", "-"]),
)
def test_rule_match_for_phrases_without_numbers_is_the_exact_comparison(words, pieces, joiner):
    expected = " ".join(words)
    response = joiner.join(pieces)
    assert rule_match(expected, ResponseView(response)) == _exact_rule_match(
        expected, ResponseView(response)
    )
