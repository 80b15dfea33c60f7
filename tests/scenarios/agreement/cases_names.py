"""Names and numbers class: tool names in the forms agents report them; brackets that are an
aside in prose and a negative in accounts."""

from __future__ import annotations

from tests.scenarios.agreement.harness import Call, Case, S
from tests.scenarios.agreement.world import DB, STRIPE

K = "names"

CASES = [
    Case(
        "names-expected-claude-code-form",
        K,
        S(
            "Which payments failed last week?",
            contains=["Kestrel Analytics"],
            tools_called=["mcp__mimic-database__get_payments"],
        ),
        "Five payments failed; the largest were Tidewater Clinics ($499) and Kestrel "
        "Analytics ($349).",
        "pass",
        "the agent called get_payments: the expectation names it the Claude Code way",
        tool_calls=("get_payments", "list_invoices"),
    ),
    Case(
        "names-reported-claude-code-form",
        K,
        S(
            "Which payments failed last week?",
            contains=["Kestrel Analytics"],
            tools_called=["get_payments"],
        ),
        "Five payments failed, Kestrel Analytics' among them.",
        "pass",
        "the agent reports mcp__mimic-database__get_payments: that is get_payments",
        tool_calls=({"name": "mcp__mimic-database__get_payments", "arguments": {}},),
    ),
    Case(
        "names-server-slash-tool",
        K,
        S(
            "Any open invoices for Kestrel Analytics?",
            contains=["Kestrel Analytics"],
            tools_called=["mimic-stripe/list_invoices"],
        ),
        "Kestrel Analytics has no open invoices.",
        "pass",
        "list_invoices on mimic-stripe was called",
        calls=(Call(STRIPE, "list_invoices", {"customer": "cus_KA"}, "No invoices found."),),
    ),
    Case(
        "names-tool-not-called",
        K,
        S(
            "Were any refunds issued last week?",
            contains=["refunds"],
            tools_called=["list_refunds"],
        ),
        "No refunds were issued last week.",
        "fail",
        "the agent never called list_refunds, so it cannot know",
        tool_calls=("list_invoices",),
    ),
    Case(
        "names-prose-brackets-signed-field",
        K,
        S(
            "How much did we refund this week?",
            contains=["refunded"],
            rng=("net_refunds", 900, 940),
        ),
        "We refunded four duplicate charges this week ($920), all on Friday.",
        "pass",
        "($920) in running prose is an aside: 920 refunded, in range",
    ),
    Case(
        "names-accounting-bracket-negative",
        K,
        S(
            "How did net MRR move this week?",
            contains=["Net MRR change"],
            rng=("net_mrr_change", 880, 960),
        ),
        "| Metric | Week 19 |\n|---|---|\n| New MRR | $1,400 |\n| Net MRR change | ($920) |",
        "fail",
        "a bracketed figure alone in a table cell is -920: the range wants +880..+960",
    ),
    Case(
        "names-bracket-unsigned-field",
        K,
        S(
            "What did expired cards cost us?",
            contains=["expired cards"],
            rng=("expired_card_mrr", 600, 615),
        ),
        "Expired cards cost us the most ($607).",
        "pass",
        "607 in range whichever way the brackets are read",
    ),
    Case(
        "names-server-double-underscore",
        K,
        S(
            "List Kestrel Analytics' invoices.",
            contains=["Kestrel Analytics"],
            tools_called=["list_invoices"],
        ),
        "Kestrel Analytics has two paid invoices this year.",
        "pass",
        "mimic-stripe__list_invoices is list_invoices",
        tool_calls=({"name": "mimic-stripe__list_invoices", "arguments": {"customer": "cus_KA"}},),
    ),
    Case(
        "names-wrong-server-tool",
        K,
        S(
            "Which customers have failed payments?",
            contains=["Kestrel Analytics"],
            tools_called=["mimic-database/get_payments"],
        ),
        "Kestrel Analytics and four others.",
        "fail",
        "only get_customers was called on the database",
        calls=(Call(DB, "get_customers", {}, [{"company": "Kestrel Analytics"}]),),
    ),
]
