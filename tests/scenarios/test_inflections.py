"""Word forms strict matching accepts (``inflections``), both directions, through the matcher."""

from __future__ import annotations

import pytest

from pe_eval_core.scenarios.scoring.assertions import check_contains
from pe_eval_core.scenarios.scoring.inflections import spellings, word_forms

# (expected phrase, response, strict verdict)
ROWS = [
    # the last word's plural and -ed forms, both ways
    ("risk flag", "Two risk flags were set.", "satisfied"),
    ("risk flags", "A risk flag was set.", "satisfied"),
    ("usage drop", "Usage dropped in March.", "satisfied"),
    ("double charge", "They were double charged.", "satisfied"),
    ("payment retry", "Payment retried twice.", "satisfied"),
    ("duplicate invoices", "One duplicate invoice.", "satisfied"),
    ("policy", "Two policies apply.", "satisfied"),
    ("tax box", "Three tax boxes.", "satisfied"),
    ("card update", "The card was updated.", "missed"),  # "card was": not adjacent
    ("card update", "Both cards updated on Monday.", "missed"),  # only the last word
    ("card update", "The card updated on Monday.", "satisfied"),
    ("card updated", "Ask for a card update.", "missed"),  # -ed: it happened; "update" not
    # British and US spellings, any word
    ("subscription cancelled", "Subscription canceled on the 20th.", "satisfied"),
    ("canceled in billing", "It was cancelled in billing.", "satisfied"),
    ("prioritised", "We prioritized the refunds.", "satisfied"),
    ("customer behaviour", "Customer behavior changed.", "satisfied"),
    ("organisation", "The organization churned.", "satisfied"),
    ("analysed", "We analyzed the invoices.", "satisfied"),
    ("licence renewal", "License renewal is due.", "satisfied"),
    # not accepted
    ("risk flag", "Flagged as a risk.", "missed"),
    ("risk flag", "The risk flagging job.", "missed"),
    ("fee", "The feed failed.", "missed"),
    ("notes", "Not now.", "missed"),
    ("refund", "The fee is refundable.", "missed"),
    ("four charges", "For charges see below.", "missed"),
    ("failed charges", "Fail charges", "missed"),
    ("churned", "Acme might churn next quarter.", "missed"),
    ("cancelled", "They may cancel.", "missed"),
    ("cancelled", "They canceled.", "satisfied"),
    ("subscription cancelled", "Subscriptions canceled.", "missed"),
    ("promise", "We promize nothing.", "missed"),
]


@pytest.mark.parametrize(("phrase", "response", "verdict"), ROWS)
def test_strict_word_forms(phrase: str, response: str, verdict: str) -> None:
    assert check_contains(response, phrase).verdict == verdict


def test_table_both_directions() -> None:
    assert sum(v == "satisfied" for *_, v in ROWS) >= 12
    assert sum(v == "missed" for *_, v in ROWS) >= 8


def test_figures_and_short_words_are_only_themselves() -> None:
    assert word_forms("$4,820", last=True) == {"$4,820"}
    assert word_forms("VP", last=True) == {"vp"}
    assert spellings("four") == {"four"}


def test_a_form_is_reported_as_such() -> None:
    assert check_contains("Two risk flags.", "risk flag").reason.endswith("(word form)")
    assert check_contains("A risk flag.", "risk flag").reason == "word-bounded match"
