"""``no_hallucination`` on results Mimic's own servers return (captured from ``mimic host``:
the database server's pretty-printed JSON rows and summaries, Stripe's bullet text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.scenarios.models import Scenario
from pe_eval_core.scenarios.scoring.behaviour import hallucination_check
from pe_eval_core.scenarios.trace import ToolTrace, TraceCall

CAPTURED = json.loads(
    (Path(__file__).parent / "fixtures" / "mimic_tool_results.json").read_text(encoding="utf-8")
)["calls"]
SCENARIO = Scenario(
    name="failed-charges",
    input="Why did charges fail last week?",
    expect={"no_hallucination": True},
)


def trace(*tools: str) -> ToolTrace:
    return ToolTrace(
        calls=[
            TraceCall(server=c["server"], tool=c["tool"], arguments=c["arguments"],
                      result_excerpt=c["result"])
            for c in CAPTURED
            if c["tool"] in tools
        ]
    )  # fmt: skip


# (tools read, answer, grounded?)
ROWS = [
    ("get_payments", "8 failed charges cost $1,640: 4 expired cards ($920), 2 insufficient "
     "funds ($420) and 2 lost cards ($300).", True),
    ("get_payments", "Expired cards are 56% of the failed amount.", True),
    ("get_payments", "The failures ran from April 20 to April 26, 6 days.", True),
    ("get_payments", "The average failed charge was $205.", True),
    ("get_payments_summary", "Expired cards: 4 charges, $920, averaging $230.", True),
    ("get_payments_summary", "In all 8 charges failed, $1,640.", True),
    ("list_payment_intents", "8 payment intents still need a payment method, $1,640 in all.",
     True),
    ("list_payment_intents", "12 intents succeeded, $2,752 in all.", True),
    ("get_payments", "8 failed charges cost $1,460.", False),
    ("get_payments", "5 of the failures were expired cards.", False),
    ("get_payments", "Expired cards cost $940.", False),
    ("get_payments_summary", "Expired cards averaged $250.", False),
    ("list_payment_intents", "8 payment intents still need a payment method, $1,840 in all.",
     False),
    ("get_payments", "The failures ran over 9 days.", False),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "answer", "grounded"), ROWS)
def test_answers_on_mimic_results(tool: str, answer: str, grounded: bool) -> None:
    b = hallucination_check(answer, trace(tool), SCENARIO)
    assert b.method == "trace"
    assert b.satisfied is grounded, b.findings


def test_the_issue_example_names_its_derivation() -> None:
    b = hallucination_check("Expired cards cost $920.", trace("get_payments"), SCENARIO)
    assert b.satisfied
    assert b.findings == [
        "$920 = sum of amount_cents over 4 rows where failure_reason = expired_card: "
        "160 + 312 + 199 + 249 (mimic-database/get_payments), cents /100"
    ]
