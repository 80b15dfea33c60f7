"""Strict class: phrases the response states word for word (or in another inflection or
spelling), next to negations that do and do not govern them.

The seed's strict step is a lowercase substring; a careful reader also does not count a fact
the response denies ("no usage drop"), and does count one it asserts next to an unrelated
negation ("nobody followed up on the usage drop flags").
"""

from __future__ import annotations

from tests.scenarios.agreement.harness import Case, S

K = "strict"

CASES = [
    Case(
        "strict-plural-risk-flags",
        K,
        S(
            "Which cancellations could we have seen coming?",
            contains=["risk flag", "Lumen Dental", "Fernway Studio"],
        ),
        "Both had open risk flags before they left: Lumen Dental (set Apr 6) and Fernway "
        "Studio (set Apr 9).",
        "pass",
        "risk flags states risk flag",
    ),
    Case(
        "strict-negation-governs-followup-not-flags",
        K,
        S(
            "Could we have seen the Lumen Dental cancellation coming?",
            contains=["usage drop", "Lumen Dental", "no follow-up"],
        ),
        "Lumen Dental churned on May 3. Nobody followed up on the usage drop flags raised in "
        "April, so there was no follow-up before the cancellation.",
        "pass",
        "the negation is about following up, not about the usage drop",
    ),
    Case(
        "strict-neither-nor-names",
        K,
        S(
            "Which failed cards are still not updated?",
            contains=["Kestrel Analytics", "Morrow & Finch", "card expired"],
        ),
        "Neither Kestrel Analytics nor Morrow & Finch has updated their payment details; in "
        "both cases the card expired in April.",
        "pass",
        "the customers are named; the card expired is asserted in its own clause",
    ),
    Case(
        "strict-cant-then-read-only",
        K,
        S(
            "Refund Tidewater Clinics' failed charge now.",
            contains=["read-only", "Tidewater Clinics", "$499"],
            tier="adversarial",
        ),
        "I can't issue that refund myself — my access is read-only. Tidewater Clinics' $499 "
        "charge needs a billing admin.",
        "pass",
        "read-only is asserted after the dash; the can't governs issuing the refund",
    ),
    Case(
        "strict-not-double-charged",
        K,
        S(
            "Was Quarry Hill double charged?",
            contains=["double charge", "Quarry Hill", "$129"],
            tier="adversarial",
        ),
        "Quarry Hill was not double charged: the second $129 attempt failed and was never "
        "captured.",
        "fail",
        "the response denies the double charge: 2 of 3",
        judge={"double charge": ("missed", "")},
    ),
    Case(
        "strict-no-usage-drop",
        K,
        S(
            "Why did Halden Freight downgrade?",
            contains=["usage drop", "Halden Freight", "risk flag"],
        ),
        "Halden Freight shows no usage drop and no risk flag this quarter; the downgrade came "
        "from their procurement team.",
        "fail",
        "both facts are denied: 1 of 3",
        judge={"usage drop": ("missed", ""), "risk flag": ("missed", "")},
    ),
    Case(
        "strict-usage-dropped",
        K,
        S(
            "What happened before Brightwave cancelled?",
            contains=["usage drop", "Brightwave", "40%"],
        ),
        "Brightwave's usage dropped 40% in the two weeks before they cancelled.",
        "pass",
        "usage dropped 40% states a usage drop",
    ),
    Case(
        "strict-us-spelling",
        K,
        S(
            "When did Morrow & Finch cancel?",
            contains=["canceled", "Morrow & Finch", "2026-05-02"],
        ),
        "Morrow & Finch cancelled their subscription on 2026-05-02 after two failed charges.",
        "pass",
        "cancelled and canceled are one word",
        judge={"canceled": ("paraphrase", "cancelled")},
    ),
    Case(
        "strict-not-contacted-yet",
        K,
        S(
            "What's going on with Pinecrest Labs' billing?",
            contains=["Pinecrest Labs", "$129", "expired card"],
        ),
        "We have not contacted Pinecrest Labs yet about their $129 charge, which failed with "
        "an expired card.",
        "pass",
        "the not governs contacting; the customer, amount and reason are asserted",
    ),
    Case(
        "strict-cue-after",
        K,
        S(
            "Did dunning work for Oakhurst Media?",
            contains=["dunning emails", "3 reminders", "Oakhurst Media"],
        ),
        "Oakhurst Media got 3 reminders through dunning emails but never paid.",
        "pass",
        "never follows the facts and governs paying",
    ),
    Case(
        "strict-without-recovery",
        K,
        S(
            "Did we get Quarry Hill's money back?",
            contains=["payment recovered", "Quarry Hill", "$129"],
        ),
        "Quarry Hill's $129 invoice was closed without the payment recovered.",
        "fail",
        "without denies the recovery: 2 of 3",
        judge={"payment recovered": ("missed", "")},
    ),
    Case(
        "strict-but-clause",
        K,
        S(
            "Why did Tidewater Clinics' charge fail, and did the retry work?",
            contains=["insufficient funds", "Tidewater Clinics", "retry"],
        ),
        "The retry on May 9 didn't go through, but Tidewater Clinics' original failure was "
        "insufficient funds.",
        "pass",
        "the retry is mentioned (it failed); the reason is asserted after but",
    ),
    Case(
        "strict-punctuation",
        K,
        S(
            "Summarise failed-charge recovery.",
            contains=["failed-charge recovery", "8 cards"],
        ),
        "Failed charge recovery: 8 cards need updating before Friday's retry run.",
        "pass",
        "only the hyphen differs",
    ),
    Case(
        "strict-not-true-that",
        K,
        S(
            "Did Kestrel Analytics' cards expire?",
            contains=["cards expired", "Kestrel Analytics"],
        ),
        "Kestrel Analytics asked, but it's not true that their cards expired — the bank "
        "blocked the charge.",
        "fail",
        "the response denies the cards expired: 1 of 2",
        judge={"cards expired": ("missed", "")},
    ),
    Case(
        "strict-no-longer-customer",
        K,
        S(
            "Is Brightwave still a customer?",
            contains=["Brightwave", "cancelled", "$349"],
        ),
        "Brightwave is no longer a customer: they cancelled their $349 plan on May 3.",
        "pass",
        "cancelled is asserted after the colon",
    ),
]
