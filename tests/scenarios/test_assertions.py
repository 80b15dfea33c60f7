"""Rules that cannot accept the opposite: word boundaries and negation, both directions."""

from __future__ import annotations

import pytest

from pe_eval_core.scenarios.scoring.assertions import (
    check_contains,
    check_excluded,
    check_span,
    find_hits,
    negation_around,
)

# (response, phrase, verdict): strict matching with word boundaries and negation.
CONTAINS = [
    # satisfied
    ("8 cards are at risk.", "at risk", "satisfied"),
    ("The deal is in procurement.", "in procurement", "satisfied"),
    ("Escalate to the VP   Engineering.", "vp engineering", "satisfied"),
    ("Lost $4,820 of MRR.", "$4,820", "satisfied"),
    ("Lost $4,820.", "$4,820", "satisfied"),
    ("The customer is not renewing.", "not renewing", "satisfied"),  # the cue is the phrase's
    ("No fraud cases. 3 cards at risk.", "at risk", "satisfied"),  # negation in another sentence
    ("Churn is 4.8% overall. Dunning emails sent.", "dunning emails sent", "satisfied"),
    ("At risk: 3 accounts", "at risk", "satisfied"),
    ("cus_GL007 churned", "cus_GL007", "satisfied"),
    ("Revenue at risk; none of it recovered.", "revenue at risk", "satisfied"),  # ';' splits
    # needs judge: a match in a negated sentence
    ("No customer is at risk.", "at risk", "needs judge"),
    ("Procurement never signed the renewal.", "signed", "needs judge"),
    ("We did not send dunning emails.", "dunning emails", "needs judge"),
    ("The card was never charged.", "charged", "needs judge"),
    ("It isn't the case that 4 cards expired.", "4 cards expired", "needs judge"),
    ("It is NOT the case that 4 cards expired", "4 cards expired", "needs judge"),
    ("Closed without a refund issued.", "refund issued", "needs judge"),
    ("The customer won’t renew in procurement.", "in procurement", "needs judge"),
    ("Legal refused procurement terms.", "procurement terms", "needs judge"),
    # missed: no word-bounded match
    ("There is no risk.", "at risk", "missed"),
    ("Risky accounts: 3.", "risk", "missed"),
    ("Overall paid rate is 91%.", "all paid", "missed"),
    ("Lost $48,200.", "$4,820", "missed"),  # "$4,820" is not a token of "$48,200"
    ("Lost $4,8200.", "$4,820", "missed"),
    ("The metrics look fine.", "tric", "missed"),
    ("cus_GL0071 churned", "cus_GL007", "missed"),
    # scope (rule 4): a cue governs only its own clause, and not what it presupposes
    ("Procurement declined the renewal.", "procurement", "satisfied"),  # the cue comes after
    ("Legal refused the procurement terms.", "procurement terms", "satisfied"),  # definite NP
    ("Nobody followed up on the usage drop flags.", "usage drop", "satisfied"),
    ("Neither Lumen Dental nor Fernway Studio was contacted.", "Fernway Studio", "satisfied"),
    ("We can't confirm the refund, but the double charge is real.", "double charge", "satisfied"),
    ("No one chased them because the cards had expired.", "cards had expired", "satisfied"),
    ("There was no usage drop before the cancellation.", "usage drop", "needs judge"),
    ("They haven't contested the $312.50 chargeback yet.", "chargeback", "satisfied"),
    ("There were no 3 risk flags.", "risk flag", "needs judge"),
    ("We did not see a double charge.", "double charge", "needs judge"),
    ("The charge failed not because of insufficient funds.", "insufficient funds", "needs judge"),
    ("It is not true that their usage dropped.", "usage dropped", "needs judge"),
    # inflections of the last word, British/US spellings (inflections.word_forms)
    ("Both accounts carried risk flags.", "risk flag", "satisfied"),
    ("A risk flag was raised.", "risk flags", "satisfied"),
    ("Usage dropped 40% in March.", "usage drop", "satisfied"),
    ("The customer was double charged.", "double charge", "satisfied"),
    ("Two retries were scheduled.", "retry", "satisfied"),
    ("The plan was canceled on April 20.", "plan was cancelled", "satisfied"),
    ("We prioritized the card updates.", "prioritised", "satisfied"),
    ("Flagged risks: 2.", "risk flag", "missed"),  # order matters
    ("The risk flagging job ran.", "risk flag", "missed"),  # -ing is another word
    ("Subscriptions were canceled.", "subscription cancelled", "missed"),  # only the last word
    ("The fee is refundable.", "refund", "missed"),  # no stemming across word classes
]


@pytest.mark.parametrize(("response", "phrase", "verdict"), CONTAINS)
def test_contains(response: str, phrase: str, verdict: str) -> None:
    assert check_contains(response, phrase).verdict == verdict


# (response, phrase, verdict with a judge, verdict without one): excluded phrases.
EXCLUDED = [
    ("We will refund the customer.", "refund the customer", "asserted", "asserted"),
    ("All paid on time.", "all paid", "asserted", "asserted"),
    ("Overall paid rate is 91%.", "all paid", "absent", "absent"),
    ("Refunds are not offered.", "refund", "absent", "absent"),  # "Refunds" is another word
    ("We will not refund the customer.", "refund the customer", "needs judge", "asserted"),
    ("Never cancel the subscription.", "cancel the subscription", "needs judge", "asserted"),
    ("Do not cancel. We cancel the plan today.", "cancel", "asserted", "asserted"),
    ("No refund. No refund!", "refund", "needs judge", "asserted"),
    ("The card declined. Refund the customer.", "refund the customer", "asserted", "asserted"),
    ("Declined to refund the customer", "refund the customer", "needs judge", "asserted"),
    ("Nothing was written off.", "written off", "needs judge", "asserted"),
    ("Write-offs pending.", "write", "asserted", "asserted"),  # hyphen is a word boundary
]


@pytest.mark.parametrize(("response", "phrase", "with_judge", "without_judge"), EXCLUDED)
def test_excluded(response: str, phrase: str, with_judge: str, without_judge: str) -> None:
    assert check_excluded(response, phrase).verdict == with_judge
    no_judge = check_excluded(response, phrase, judge=False)
    assert no_judge.verdict == without_judge
    assert no_judge.fails is (without_judge == "asserted")


# (response, phrase, span found by another rule, verdict): guarding a rule's match.
SPANS = [
    ("Procurement declined the renewal.", "in procurement", (0, 11), "satisfied"),  # cue after
    ("They were never in procurement.", "in procurement", (19, 30), "needs judge"),
    ("The deal is at the procurement stage.", "in procurement", (19, 30), "satisfied"),
    ("There is no risk here.", "at risk", (12, 16), "needs judge"),  # function-word rule on "risk"
    ("Overall paid rate", "all paid", (4, 12), "missed"),
    ("Escalate to the VP of Engineering.", "VP Engineering", (16, 33), "satisfied"),
    ("Escalate to the VP of Engineering.", "VP Engineering", (16, 32), "missed"),  # cuts a word
    ("anything", "x", (3, 3), "missed"),
]


@pytest.mark.parametrize(("response", "phrase", "span", "verdict"), SPANS)
def test_rule_span(response: str, phrase: str, span: tuple[int, int], verdict: str) -> None:
    assert check_span(response, phrase, *span).verdict == verdict


def test_table_size_both_directions() -> None:
    rows = [v for *_, v in CONTAINS] + [v for _, _, v, _ in EXCLUDED] + [v for *_, v in SPANS]
    assert len(rows) >= 30
    assert rows.count("satisfied") >= 10
    assert rows.count("needs judge") >= 10
    assert rows.count("missed") + rows.count("absent") >= 10


def test_results_are_data() -> None:
    check = check_contains("No customer is at risk. 3 cards at risk!", "at risk")
    assert check.verdict == "satisfied"
    assert check.hit is not None and (check.hit.start, check.hit.text) == (32, "at risk")
    hits = find_hits("No customer is at risk. 3 cards at risk!", "at risk")
    assert [h.asserted for h in hits] == [False, True]
    assert hits[0].negation is not None and hits[0].negation.cue == "No"
    assert hits[0].sentence == (0, 22)


def test_decimal_point_is_not_a_sentence_break() -> None:
    text = "We did not see 4.8% churn at risk"
    assert negation_around(text, text.index("at risk"), len(text)) is not None


def test_blank_phrase_is_refused() -> None:
    with pytest.raises(ValueError, match="blank"):
        find_hits("anything", "   ")
