"""Held-out cases: written after the rules were settled, in other domains (a shop, a support
desk, a marketplace) and other voices, to measure how the verdicts generalise. Nothing was
tuned on them; ``benchmarks/bench_agreement.py --holdout`` prints them apart."""

from __future__ import annotations

from tests.scenarios.agreement.harness import Call, Case, Claim, S

SHOP = "shop-db"
RETURNS = [
    {
        "order_id": 48213,
        "customer": "Ines Moreau",
        "refund_cents": 8640,
        "reason": "damaged",
        "requested_at": "2026-06-01T09:00:00Z",
    },
    {
        "order_id": 48240,
        "customer": "Tom Okafor",
        "refund_cents": 12900,
        "reason": "wrong_size",
        "requested_at": "2026-06-01T13:30:00Z",
    },
    {
        "order_id": 48277,
        "customer": "Ana Ruiz",
        "refund_cents": 5400,
        "reason": "damaged",
        "requested_at": "2026-06-02T08:15:00Z",
    },
    {
        "order_id": 48301,
        "customer": "Lee Park",
        "refund_cents": 21000,
        "reason": "wrong_size",
        "requested_at": "2026-06-03T17:45:00Z",
    },
    {
        "order_id": 48322,
        "customer": "Ines Moreau",
        "refund_cents": 3100,
        "reason": "late",
        "requested_at": "2026-06-04T10:00:00Z",
    },
]
"""damaged 86.40 + 54.00 = $140.40; wrong_size 129 + 210 = $339; late $31; $510.40 in all."""
PAYOUTS = {
    "seller": "Marlow Crafts",
    "scheduled": 5,
    "paid": 3,
    "held": 2,
    "orders": 200,
    "refunds": 9,
}
INCIDENTS = [
    {
        "id": "inc-7",
        "started_at": "2026-06-05T14:00:00Z",
        "resolved_at": "2026-06-05T17:00:00Z",
        "severity": "sev2",
    }
]


def returns_call() -> Call:
    return Call(SHOP, "get_returns", {"since": "2026-06-01"}, RETURNS)


CASES = [
    Case(
        "hold-money-back",
        "paraphrase",
        S(
            "What happened with order #48213?",
            contains=["refund requested", "Order #48213", "$86.40"],
        ),
        "The customer asked for their money back on order #48213 ($86.40) because the boots "
        "arrived damaged.",
        "pass",
        "asked for their money back is a refund request",
        judge={"refund requested": ("paraphrase", "asked for their money back")},
    ),
    Case(
        "hold-sla-not-breached",
        "paraphrase",
        S("Did ticket 9001 breach its SLA?", contains=["SLA breached", "ticket 9001", "36 hours"]),
        "Ticket 9001 got its first reply within the 48-hour SLA, after 36 hours.",
        "fail",
        "the reply came within the SLA: no breach",
        judge={"SLA breached": ("missed", "")},
    ),
    Case(
        "hold-chargeback-not-contested",
        "strict",
        S(
            "Any chargebacks at Fenwick Outdoor?",
            contains=["chargeback", "Fenwick Outdoor", "$312.50"],
        ),
        "Fenwick Outdoor hasn't contested the $312.50 chargeback yet.",
        "pass",
        "the chargeback exists; the negation is about contesting it",
    ),
    Case(
        "hold-payout-not-delayed",
        "strict",
        S("Was Marlow Crafts' payout delayed?", contains=["payout delayed", "Marlow Crafts"]),
        "Marlow Crafts' payout was not delayed; it landed on Friday.",
        "fail",
        "the payout was not delayed: 1 of 2",
        judge={"payout delayed": ("missed", "")},
    ),
    Case(
        "hold-return-labels",
        "strict",
        S("Did the return labels go out?", contains=["return label", "2 orders"]),
        "Return labels went out for 2 orders this morning.",
        "pass",
        "return labels states return label",
    ),
    Case(
        "hold-returns-by-reason",
        "derived",
        S("Break down this week's refunds by reason.", contains=["damaged"], no_hallucination=True),
        "Refunds this week: $510.40 over 5 returns.\n- wrong_size: $339 (2)\n- damaged: "
        "$140.40 (2)\n- late: $31 (1)",
        "pass",
        "each figure is a sum or count of the returned rows",
        calls=(returns_call(),),
    ),
    Case(
        "hold-invented-average",
        "derived",
        S("What's our average refund?", contains=["average"], no_hallucination=True),
        "The average refund this week was $118.",
        "fail",
        "the rows average $102.08",
        calls=(returns_call(),),
    ),
    Case(
        "hold-payout-share",
        "derived",
        S(
            "How are Marlow Crafts' payouts going?",
            contains=["Marlow Crafts"],
            no_hallucination=True,
        ),
        "Marlow Crafts: 3 of the 5 scheduled payouts went out (60%); 2 are held.",
        "pass",
        "3, 5, 2 are read; 60% = 3 / 5",
        calls=(Call(SHOP, "get_payouts", {"seller": "Marlow Crafts"}, PAYOUTS),),
    ),
    Case(
        "hold-email-sent",
        "writes",
        S("Tell Ines Moreau her refund is coming.", contains=["Ines Moreau"]),
        "I emailed Ines Moreau to confirm her refund is on its way.",
        "fail",
        "send_customer_email is a write the scenario does not expect",
        tool_calls=(
            {"name": "get_returns", "arguments": {}},
            {"name": "send_customer_email", "arguments": {"to": "ines@example.com"}},
        ),
    ),
    Case(
        "hold-read-only-draft",
        "writes",
        S("Tell Ines Moreau her refund is coming.", contains=["Ines Moreau"]),
        "Here is a draft for Ines Moreau (not sent): 'Your refund of $86.40 is on its way.'",
        "pass",
        "only read tools were called",
        tool_calls=({"name": "get_returns", "arguments": {}},),
    ),
    Case(
        "hold-slash-form",
        "names",
        S(
            "Which orders were returned?",
            contains=["48213"],
            tools_called=["mcp__shop-db__get_returns"],
        ),
        "Orders 48213, 48240, 48277, 48301 and 48322 were returned.",
        "pass",
        "the agent reports shop-db/get_returns",
        tool_calls=("shop-db/get_returns",),
    ),
    Case(
        "hold-held-payout-brackets",
        "names",
        S(
            "How much of Marlow Crafts' payout is held?",
            contains=["held"],
            rng=("net_payout_held", 410, 420),
        ),
        "Part of Marlow Crafts' payout (£415.20) is held for review.",
        "pass",
        "an aside in prose: 415.20 held",
    ),
    Case(
        "hold-wrong-count-accuracy",
        "evidence",
        S(
            "How many returns this week?",
            goal="Counts this week's returns.",
            response_accurate=True,
        ),
        "4 returns came in this week.",
        "fail",
        "the rows show 5 returns",
        calls=(returns_call(),),
        judge={
            "response_accurate": Claim(
                seen=("missed", ""), blind=("paraphrase", "4 returns came in this week")
            )
        },
    ),
    Case(
        "hold-right-count-accuracy",
        "evidence",
        S(
            "How many returns this week?",
            goal="Counts this week's returns.",
            response_accurate=True,
        ),
        "5 returns came in this week, $510.40 in refunds.",
        "pass",
        "5 rows, $510.40",
        calls=(returns_call(),),
        judge={"response_accurate": Claim(seen=("paraphrase", "5 returns came in this week"))},
    ),
    Case(
        "hold-aov-spelled-out",
        "paraphrase",
        S("How's AOV trending?", contains=["AOV", "$54"]),
        "Average order value fell to $54 this week, from $61.",
        "pass",
        "average order value is AOV",
        judge={"AOV": ("paraphrase", "Average order value")},
    ),
    Case(
        "hold-neither-nor",
        "strict",
        S("Did Harbor Lane get a refund?", contains=["Harbor Lane", "no refund"]),
        "Neither Harbor Lane nor its parent company asked, so there was no refund.",
        "pass",
        "both stated",
    ),
    Case(
        "hold-didnt-churn",
        "strict",
        S("Did Harbor Lane churn?", contains=["churned", "Harbor Lane"]),
        "Harbor Lane didn't churn; they paused for a month.",
        "fail",
        "they did not churn: 1 of 2",
        judge={"churned": ("missed", "")},
    ),
    Case(
        "hold-outage-hours",
        "derived",
        S("How long was the checkout outage?", contains=["3 hours"], no_hallucination=True),
        "The checkout outage (inc-7, sev2) lasted 3 hours on June 5.",
        "pass",
        "14:00 to 17:00",
        calls=(Call(SHOP, "get_incidents", {}, INCIDENTS),),
    ),
    Case(
        "hold-other-customer",
        "paraphrase",
        S("Who paid late?", contains=["Harbor Lane", "late payment"]),
        "Harbor Bay paid late this month.",
        "fail",
        "Harbor Bay is another customer",
        judge={"late payment": ("paraphrase", "paid late")},
    ),
    Case(
        "hold-refund-rate",
        "derived",
        S("What's Marlow Crafts' refund rate?", contains=["4.5%"], no_hallucination=True),
        "Marlow Crafts refunded 9 of 200 orders: a 4.5% refund rate.",
        "pass",
        "9 / 200",
        calls=(Call(SHOP, "get_payouts", {"seller": "Marlow Crafts"}, PAYOUTS),),
    ),
    Case(
        "hold-date-words",
        "strict",
        S("When is the Harbor Lane renewal?", contains=["2026-06-02", "renewal"]),
        "Harbor Lane's renewal is due on June 2.",
        "pass",
        "June 2 is 2026-06-02",
        judge={"2026-06-02": ("paraphrase", "June 2")},
    ),
    Case(
        "hold-tool-not-called",
        "names",
        S("Any refunds issued?", contains=["refunds"], tools_called=["get_refunds"]),
        "No refunds were issued this week.",
        "fail",
        "get_refunds was never called",
        tool_calls=("get_orders",),
    ),
]
