"""Derived-figures class: ``no_hallucination`` on answers that do the arithmetic the skill asks.

Mimic's check: "a hallucination is any specific claim (names, numbers, ...) that cannot be
verified from the provided data". A total, a sum per cause, a count of rows, a share or the
days between two timestamps can be verified from the rows returned; a figure no arithmetic on
them gives cannot.
"""

from __future__ import annotations

from tests.scenarios.agreement.harness import Call, Case, S
from tests.scenarios.agreement.world import (
    ACCOUNT_ORCHARD,
    DB,
    MRR_SUMMARY,
    PAYMENT_INTENTS_TEXT,
    SHOP_SUMMARY,
    STRIPE,
    TICKETS,
    downgrades_call,
    mimic_call,
    payments_call,
)

K = "derived"

CASES = [
    Case(
        "derived-sums-per-cause",
        K,
        S(
            "Break last week's failed charges down by decline reason.",
            contains=["$1,185", "card_expired"],
            no_hallucination=True,
        ),
        "Five charges failed this week, $1,185 in total:\n"
        "- card_expired: $607 (3 charges)\n"
        "- insufficient_funds: $499 (1)\n"
        "- do_not_honor: $79 (1)",
        "pass",
        "$1,185 and $607 are sums of the rows returned; 5 and 3 are counts of them",
        calls=(payments_call(),),
    ),
    Case(
        "derived-mean",
        K,
        S(
            "What's the typical size of a failed charge?",
            contains=["$237"],
            no_hallucination=True,
        ),
        "The average failed charge last week was $237 (5 charges, $1,185 in all); the largest "
        "was Tidewater Clinics at $499.",
        "pass",
        "$237 is the mean of the five amounts",
        calls=(payments_call(),),
    ),
    Case(
        "derived-invented-total",
        K,
        S(
            "How much did failed charges cost us?",
            contains=["failed"],
            no_hallucination=True,
        ),
        "Five charges failed for $1,285 in total, mostly expired cards.",
        "fail",
        "$1,285 is no sum of the rows (they add up to $1,185)",
        calls=(payments_call(),),
    ),
    Case(
        "derived-days-between",
        K,
        S(
            "Is Orchard Row using the product without paying?",
            contains=["Orchard Row", "9 days"],
            no_hallucination=True,
        ),
        "Yes: Orchard Row has kept using the product for 9 days after its subscription was "
        "canceled (last login 2026-04-29), at $299 a month.",
        "pass",
        "9 days is the time between the cancellation and the last login in the row",
        calls=(Call(DB, "get_accounts", {"company": "Orchard Row"}, ACCOUNT_ORCHARD),),
    ),
    Case(
        "derived-days-invented",
        K,
        S(
            "Is Orchard Row using the product without paying?",
            contains=["Orchard Row"],
            no_hallucination=True,
        ),
        "Yes: Orchard Row has kept using the product for 15 days after its subscription was "
        "canceled, at $299 a month.",
        "fail",
        "15 days is no interval of the row's timestamps",
        calls=(Call(DB, "get_accounts", {"company": "Orchard Row"}, ACCOUNT_ORCHARD),),
    ),
    Case(
        "derived-share",
        K,
        S(
            "Which decline reason matters most?",
            contains=["card_expired"],
            no_hallucination=True,
        ),
        "card_expired: 51% of the failed amount ($607 of $1,185), then insufficient_funds.",
        "pass",
        "607 / 1,185 = 51.2%",
        calls=(payments_call(),),
    ),
    Case(
        "derived-headline-across-causes",
        K,
        S(
            "How much MRR leaked last week?",
            contains=["$3,285"],
            no_hallucination=True,
        ),
        "| Cause | MRR |\n|---|---|\n| Failed charges | $1,185 |\n| Downgrades (3 x $700) "
        "| $2,100 |\n| **Total** | **$3,285** |",
        "pass",
        "each line is derived from its tool; the total adds the lines",
        calls=(payments_call(), downgrades_call()),
    ),
    Case(
        "derived-wrong-percent",
        K,
        S(
            "How did MRR move over the week?",
            contains=["MRR"],
            no_hallucination=True,
        ),
        "MRR fell 12% week over week, from $12,500 to $10,360.",
        "fail",
        "the fall is 17.1%, not 12%",
        calls=(Call(DB, "get_mrr_summary", {}, MRR_SUMMARY),),
    ),
    Case(
        "derived-stripe-text",
        K,
        S(
            "Which payment intents are still open?",
            contains=["requires_payment_method"],
            no_hallucination=True,
        ),
        "Three intents are still requires_payment_method, $607 in all; one, for $499, succeeded.",
        "pass",
        "three and $607 are the count and sum of the open lines of Stripe's text",
        calls=(Call(STRIPE, "list_payment_intents", {"limit": 10}, PAYMENT_INTENTS_TEXT),),
    ),
    Case(
        "derived-distinct-customers",
        K,
        S(
            "How busy was support last week?",
            contains=["6 tickets"],
            no_hallucination=True,
        ),
        "6 tickets came in from 4 customers; 3 are still open, 2 of them urgent.",
        "pass",
        "6 rows, 4 distinct customers, 3 open, 2 urgent",
        calls=(Call(DB, "get_tickets", {"since": "2026-05-04"}, TICKETS),),
    ),
    Case(
        "derived-invented-share",
        K,
        S(
            "How busy was support last week?",
            contains=["6 tickets"],
            no_hallucination=True,
        ),
        "6 tickets came in; about 70% of them from enterprise accounts.",
        "fail",
        "nothing in the rows gives 70% (and no plan is recorded)",
        calls=(Call(DB, "get_tickets", {"since": "2026-05-04"}, TICKETS),),
    ),
    Case(
        "derived-hours-to-respond",
        K,
        S(
            "Did we breach the SLA on Tidewater Clinics' urgent ticket?",
            contains=["Tidewater Clinics", "36 hours"],
            no_hallucination=True,
        ),
        "Yes - Tidewater Clinics' urgent ticket waited 36 hours for a first response.",
        "pass",
        "2026-05-04 08:00 to 2026-05-05 20:00 is 36 hours",
        calls=(Call(DB, "get_tickets", {"since": "2026-05-04"}, TICKETS),),
    ),
    Case(
        "derived-refund-rate",
        K,
        S(
            "What's Fenwick Outdoor's refund rate?",
            contains=["4%"],
            no_hallucination=True,
        ),
        "Fenwick Outdoor refunded 12 of 300 orders, a 4% refund rate, $1,860 in all "
        "($155 per refund).",
        "pass",
        "12 / 300 = 4%; 186000 cents = $1,860; $1,860 / 12 = $155",
        calls=(Call(DB, "get_store_summary", {"store": "Fenwick Outdoor"}, SHOP_SUMMARY),),
    ),
    Case(
        "derived-mimic-issue-example",
        K,
        S(
            "How much MRR did failed charges cost us last week, by cause?",
            contains=["$1,640", "expired card", "insufficient funds", "lost card"],
            rng=("failed_charges_mrr", 1630, 1650),
            no_hallucination=True,
        ),
        "**Failed charges: $1,640 of MRR** across 8 charges\n\n"
        "| Cause | Charges | MRR |\n|---|---|---|\n| Expired card | 4 | $920 |\n"
        "| Insufficient funds | 2 | $420 |\n| Lost card | 2 | $300 |\n\n"
        "Expired cards are 56% of it; the failures span 6 days (Apr 20-26).",
        "pass",
        "the issue's example on Mimic's real rows: $920 = 249 + 199 + 312 + 160, and so on",
        calls=(mimic_call("get_payments"),),
    ),
    Case(
        "derived-mimic-stripe-text",
        K,
        S(
            "Which payment intents still need a card?",
            contains=["requires_payment_method"],
            no_hallucination=True,
        ),
        "8 intents are stuck in requires_payment_method, worth $1,640; the other 12 "
        "succeeded ($2,752).",
        "pass",
        "counts and sums of Stripe's own bullet lines by status",
        calls=(mimic_call("list_payment_intents"),),
    ),
    Case(
        "derived-mimic-wrong-average",
        K,
        S(
            "What's the typical expired-card charge?",
            contains=["expired"],
            no_hallucination=True,
        ),
        "Expired-card charges averaged $250 across the 4 failures.",
        "fail",
        "the summary says 23000 cents: $230",
        calls=(mimic_call("get_payments_summary"),),
    ),
]
