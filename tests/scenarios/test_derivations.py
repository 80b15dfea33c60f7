"""Derived figures in ``no_hallucination``: what an agent may compute from what it read.

Both directions on one realistic trace: figures a skill-following agent derives (sums per
cause, counts, means, shares, days between timestamps, a headline total) are grounded, with
the derivation named; figures it could not have derived stay ungrounded, with the nearest
candidates listed. A 20,000-character result set stays fast.
"""

from __future__ import annotations

import json
import time

import pytest

from pe_eval_core.scenarios.models import Scenario
from pe_eval_core.scenarios.scoring.behaviour import hallucination_check
from pe_eval_core.scenarios.scoring.derivations import MAX_POOL, Grounds, stated_total
from pe_eval_core.scenarios.scoring.range_reader import read_numbers
from pe_eval_core.scenarios.trace import ToolTrace, TraceCall

PAYMENTS = [
    {"id": 101, "customer": "Lumen Dental", "amount_cents": 24900, "status": "failed",
     "failure_reason": "expired_card", "created_at": "2026-04-20T09:12:00Z"},
    {"id": 102, "customer": "Fernway Studio", "amount_cents": 19900, "status": "failed",
     "failure_reason": "expired_card", "created_at": "2026-04-21T10:00:00Z"},
    {"id": 103, "customer": "Halcyon Health", "amount_cents": 31200, "status": "failed",
     "failure_reason": "expired_card", "created_at": "2026-04-22T11:30:00Z"},
    {"id": 104, "customer": "Brightpath", "amount_cents": 16000, "status": "failed",
     "failure_reason": "expired_card", "created_at": "2026-04-22T15:45:00Z"},
    {"id": 105, "customer": "Juniper Creative", "amount_cents": 22000, "status": "failed",
     "failure_reason": "insufficient_funds", "created_at": "2026-04-23T08:00:00Z"},
    {"id": 106, "customer": "Orchard & Pike", "amount_cents": 20000, "status": "failed",
     "failure_reason": "insufficient_funds", "created_at": "2026-04-24T08:00:00Z"},
    {"id": 107, "customer": "Quillstone Legal", "amount_cents": 15000, "status": "failed",
     "failure_reason": "lost_card", "created_at": "2026-04-25T12:00:00Z"},
    {"id": 108, "customer": "Northwind", "amount_cents": 15000, "status": "failed",
     "failure_reason": "lost_card", "created_at": "2026-04-29T12:00:00Z"},
]  # fmt: skip
SUBSCRIPTIONS = {
    "mrr_before_cents": 1250000,
    "mrr_after_cents": 1036000,
    "data": [
        {"customer": "Northwind", "plan": "starter", "amount": 99, "previous_amount": 799,
         "changed_at": "2026-04-23T10:02:00Z"},
        {"customer": "Halcyon Health", "plan": "starter", "amount": 99, "previous_amount": 799,
         "changed_at": "2026-04-23T10:09:00Z"},
        {"customer": "Brightpath", "plan": "starter", "amount": 99, "previous_amount": 799,
         "changed_at": "2026-04-23T10:16:00Z"},
    ],
}  # fmt: skip

TRACE = ToolTrace(
    calls=[
        TraceCall(server="db", tool="get_payments", result_excerpt=json.dumps(PAYMENTS)),
        TraceCall(
            server="stripe", tool="list_subscriptions", result_excerpt=json.dumps(SUBSCRIPTIONS)
        ),
    ]
)
SCENARIO = Scenario(
    name="s", input="Why did charges fail last week?", expect={"no_hallucination": True}
)

# (sentence, how the figure is grounded: a fragment of its finding, or None when read as is)
GROUNDED = [
    ("Expired cards cost $920.", "where failure_reason = expired_card: 249 + 199 + 312 + 160"),
    ("Insufficient funds: $420.", "where failure_reason = insufficient_funds"),
    ("Lost cards: $300.", "where failure_reason = lost_card"),
    ("In all $1,640 failed.", "sum of amount_cents over 8 rows"),
    ("8 charges failed.", None),
    ("4 of them were expired cards.", "count of 4 rows where failure_reason = expired_card"),
    ("Expired cards are 50% of the failures.", "4 of 8 rows"),
    ("Expired cards are 56% of the failed amount.", "expired_card as a share"),
    ("The average failed charge was $205.", "mean of amount_cents"),
    ("The failures span 9 days.", "days from 2026-04-20"),
    ("MRR fell by $2,140.", "mrr_before_cents 1,250,000 - mrr_after_cents 1,036,000"),
    ("Each downgrade cost $700 a month.", "previous_amount"),
    ("Downgrades lost $2,100 in all.", "sum of previous_amount"),
    ("MRR went from $12,500 to $10,360.", None),
    ("Failed charges, $1,640, and downgrades, $2,100: $3,740 in all.", "figures the response"),
    ("Expired cards were 2 of every 4 failures.", None),
    ("Lost cards averaged $150.", None),  # each was 15000 cents: a value as read
    ("About $1,600 failed in all.", "sum of amount_cents over 8 rows"),  # approximate
    ("MRR fell 17% over the week.", "change from mrr_before_cents"),  # percent change
    ("Two expired-card failures came in on 2 separate days in week 17.", None),  # a label
    ("The failures are spread over more than a week.", None),
    ("Downgrades took 14 minutes, all on one morning.", "minutes from"),
]

UNGROUNDED = [
    "Expired cards cost $950.",
    "In all $1,700 failed.",
    "5 of them were expired cards.",
    "Expired cards are 61% of the failures.",
    "The failures span 12 days.",
    "The average failed charge was $233.",
    "MRR fell by $2,410.",
    "Each downgrade cost $750 a month.",
    "Failed charges, $1,640, and downgrades, $2,100: $3,920 in all.",
    "Refunds came to $4,820.",
    "Churn hit 37%.",
    "Lost cards averaged $175.",
    "About $1,900 failed in all.",
    "MRR fell 23% over the week.",
    "Downgrades took 40 minutes.",
]


def _check(sentence: str):
    return hallucination_check(sentence, TRACE, SCENARIO)


@pytest.mark.parametrize(("sentence", "how"), GROUNDED)
def test_derived_figures_are_grounded_and_say_how(sentence: str, how: str | None) -> None:
    b = _check(sentence)
    assert b.satisfied, b.findings
    if how is not None:
        assert any(how in f for f in b.findings), b.findings


@pytest.mark.parametrize("sentence", UNGROUNDED)
def test_invented_figures_stay_ungrounded_with_nearest_candidates(sentence: str) -> None:
    b = _check(sentence)
    assert not b.satisfied, b.findings
    [finding] = [f for f in b.findings if ": in no tool result" in f]
    assert "(nearest: " in finding


def test_table_size_both_directions() -> None:
    assert len(GROUNDED) >= 15 and len(UNGROUNDED) >= 10


def test_derived_values_do_not_mix_result_sets() -> None:
    # 1,640 (payments) + 2,100 (downgrades) is a sum across two tools: not grounded by
    # arithmetic over results; only as a total of figures the response states.
    assert not _check("Together the two causes cost $3,740.").satisfied


def test_a_total_of_stated_figures() -> None:
    *parts, total = read_numbers("$1,640, $2,100, $540, $241, $299; total $4,820")
    assert stated_total(total, parts) == ("+", parts)
    *parts, total = read_numbers("$1,640, $2,100, $540, $241, $299; total $4,830")
    assert stated_total(total, parts) is None


def test_a_twenty_thousand_character_result_stays_fast() -> None:
    rows = [
        {"id": i, "customer": f"Customer {i % 40}", "amount_cents": 1000 + 37 * i,
         "reason": ["expired_card", "insufficient_funds", "lost_card", "do_not_honor"][i % 4],
         "created_at": f"2026-04-{1 + i % 28:02d}T{i % 24:02d}:00:00Z"}
        for i in range(400)
    ]  # fmt: skip
    text = json.dumps(rows)
    assert len(text) >= 20_000
    trace = ToolTrace(calls=[TraceCall(server="db", tool="get_payments", result_excerpt=text)])
    answer = "Expired cards cost $8,326.00 across 100 charges; 40 customers; $1,234 is invented."
    start = time.perf_counter()
    b = hallucination_check(answer, trace, SCENARIO)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0  # about 0.1 s on a loaded 2-core machine; the bound keeps it so
    assert [f.split(":")[0] for f in b.findings if "no tool result" in f] == ["$1,234"]


def test_the_pair_pool_is_bounded() -> None:
    rows = [{"k": f"g{i % 3}", "v": i} for i in range(500)]
    g = Grounds([("t", json.dumps(rows))])
    pairs_at_most = MAX_POOL * (MAX_POOL - 1) * 3
    assert len(g.plain) <= 500 + pairs_at_most + 200


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("In week 19, step 2 of the plan ran.", []),
        ("The failures span Apr 20-26.", []),
        ("From 20-26 April, and on April 3 to 9.", []),
        ("3 may churn in May.", ["3"]),
        ("4 charges in April; tier 1 customers.", ["4"]),
        ("Over 9 days, 2 customers.", ["9", "2"]),
    ],
)
def test_labels_and_days_of_a_month_are_not_figures(text: str, figures: list[str]) -> None:
    from pe_eval_core.scenarios.scoring.behaviour import _is_figure

    assert [n.raw for n in read_numbers(text) if _is_figure(n, text)] == figures
