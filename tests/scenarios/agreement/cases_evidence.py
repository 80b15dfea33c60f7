"""Evidence class: ``response_accurate`` and ``custom`` checks a judge decides, where a wrong
total is visible only in the tool results.

Mimic's accuracy check compares the response with the ground-truth data; a careful judge that
is shown the tool results catches a wrong total; one shown only the response cannot.
"""

from __future__ import annotations

from tests.scenarios.agreement.harness import Call, Case, Claim, S
from tests.scenarios.agreement.world import DB, payments_call

K = "evidence"

CASES = [
    Case(
        "evidence-wrong-total",
        K,
        S(
            "What did expired cards cost us last week?",
            goal="States the MRR lost to expired cards.",
            contains=["card"],
            response_accurate=True,
        ),
        "Expired cards cost $670 last week; Kestrel Analytics was the largest at $349.",
        "fail",
        "the rows add up to $607, not $670",
        calls=(payments_call(),),
        judge={
            "response_accurate": Claim(
                seen=("missed", ""),
                blind=("paraphrase", "Expired cards cost $670 last week"),
            )
        },
    ),
    Case(
        "evidence-right-total",
        K,
        S(
            "What did expired cards cost us last week?",
            goal="States the MRR lost to expired cards.",
            contains=["card"],
            response_accurate=True,
        ),
        "Expired cards cost $607 last week; Kestrel Analytics was the largest at $349.",
        "pass",
        "349 + 129 + 129 = 607",
        calls=(payments_call(),),
        judge={
            "response_accurate": Claim(seen=("paraphrase", "Expired cards cost $607 last week"))
        },
    ),
    Case(
        "evidence-custom-wrong-largest",
        K,
        S(
            "Who had the largest failed charge?",
            goal="Names the customer with the largest failed charge.",
            custom={"largest_customer": "names the customer with the largest failed charge"},
        ),
        "Kestrel Analytics had the largest failed charge, $349.",
        "fail",
        "Tidewater Clinics' $499 is larger",
        calls=(payments_call(),),
        judge={
            "custom.largest_customer": Claim(
                seen=("missed", ""),
                blind=("paraphrase", "Kestrel Analytics had the largest failed charge"),
            )
        },
    ),
    Case(
        "evidence-custom-right-largest",
        K,
        S(
            "Who had the largest failed charge?",
            goal="Names the customer with the largest failed charge.",
            custom={"largest_customer": "names the customer with the largest failed charge"},
        ),
        "Tidewater Clinics had the largest failed charge, $499 (insufficient funds).",
        "pass",
        "$499 is the largest amount",
        calls=(payments_call(),),
        judge={
            "custom.largest_customer": Claim(
                seen=("paraphrase", "Tidewater Clinics had the largest failed charge")
            )
        },
    ),
    Case(
        "evidence-wrong-date",
        K,
        S(
            "When did Orchard Row's subscription end?",
            goal="States when Orchard Row's subscription was cancelled.",
            response_accurate=True,
        ),
        "Orchard Row's subscription was cancelled on April 22.",
        "fail",
        "the row says 2026-04-20",
        calls=(
            Call(
                DB,
                "get_accounts",
                {"company": "Orchard Row"},
                [{"company": "Orchard Row", "subscription_canceled_at": "2026-04-20T00:00:00Z"}],
            ),
        ),
        judge={
            "response_accurate": Claim(
                seen=("missed", ""),
                blind=("paraphrase", "Orchard Row's subscription was cancelled on April 22"),
            )
        },
    ),
    Case(
        "evidence-http-agent-accurate",
        K,
        S(
            "How many charges failed last week?",
            goal="Counts last week's failed charges.",
            response_accurate=True,
        ),
        "Five charges failed last week, $1,185 in total.",
        "pass",
        "correct (the data has five failures for $1,185); an HTTP agent reports no results",
        tool_calls=("get_payments",),
        judge={"response_accurate": Claim(seen=("paraphrase", "Five charges failed last week"))},
    ),
    Case(
        "evidence-off-goal",
        K,
        S(
            "How many charges failed last week?",
            goal="Counts last week's failed charges.",
            response_accurate=True,
        ),
        "Our churn is stable and support volume is down, so billing looks healthy.",
        "fail",
        "does not answer the question",
        calls=(payments_call(),),
        judge={"response_accurate": Claim(seen=("missed", ""))},
    ),
    Case(
        "evidence-derived-accurate",
        K,
        S(
            "What's the average failed charge?",
            goal="States the average failed charge.",
            response_accurate=True,
        ),
        "The average failed charge was $237 across five failures.",
        "pass",
        "1,185 / 5 = 237",
        calls=(payments_call(),),
        judge={
            "response_accurate": Claim(
                seen=("paraphrase", "The average failed charge was $237 across five failures")
            )
        },
    ),
]
