"""The scorer's numeric check (``steps.numeric_check``) decides exactly as ``read_range``: it
shares ``range_reader.judge`` and only skips building a judged copy of every reading, and it
looks for loss words only when a range needs them."""

from __future__ import annotations

import gc

import pytest

from pe_eval_core.scenarios.models import NumberSeen, NumericRange, NumericResult
from pe_eval_core.scenarios.scoring.range_reader import read_numbers, read_range
from pe_eval_core.scenarios.scoring.steps import numeric_check

TEXTS = [
    "Invoice INV-4821: lost -$4,820 in 2026; churn hit 15% (0.15) across eight accounts.",
    "No fraud cases. Call +1 415 555 4820 or (415) 555-0123 about order #4820.",
    "MRR fell by $4\u2009820 this quarter, down from 5,302 cents; net change -4,338.",
    "Revenue grew 12% to $1.2M; twenty-one seats, one-time fee of 480 cents, ticket no. 7",
    "",
    "nothing numeric here",
]
RANGES = [
    NumericRange(field="total_mrr_lost", min=4338, max=5302),
    NumericRange(field="mrr_change", min=-5302, max=-4338),
    NumericRange(field="churn_rate", min=0.1, max=0.2),
    NumericRange(field="total_mrr_lost_cents", min=481000, max=483000),
    NumericRange(field="fraud_case_count", min=0, max=0),
]


def _expected(text: str, rng: NumericRange) -> NumericResult:
    read = read_range(text, rng)
    m = read.matched
    return NumericResult(
        field=rng.field,
        min=rng.min,
        max=rng.max,
        satisfied=read.satisfied,
        matched=m.read_as if m is not None else None,
        nearest=read.nearest,
        matched_text=m.raw if m is not None else None,
        read_as=m.read_as if m is not None else None,
        reason=m.reason if m is not None else "out of range",
        read=[
            NumberSeen(
                raw=n.raw,
                value=n.value,
                kind=n.kind.value,
                accepted=n.accepted,
                read_as=n.read_as,
                reason=n.reason,
            )
            for n in read.numbers
        ],
    )


@pytest.mark.parametrize("text", TEXTS)
def test_numeric_check_equals_read_range(text: str) -> None:
    got = numeric_check(text, RANGES)
    assert got == [_expected(text, rng) for rng in RANGES]
    for one in RANGES:  # alone too: loss words are read only for a range with max <= 0
        assert numeric_check(text, [one]) == [_expected(text, one)]


def test_loss_words_are_read_only_when_asked() -> None:
    text = "we lost 4,820 this month"
    assert [n.loss_word for n in read_numbers(text)] == ["lost"]
    assert [n.loss_word for n in read_numbers(text, loss_words=False)] == [None]
    rng = NumericRange(field="mrr_change", min=-5302, max=-4338)
    assert numeric_check(text, [rng])[0].satisfied  # rule 3 still applies where it matters


def test_number_seen_round_trips_through_the_result() -> None:
    result = numeric_check(TEXTS[0], RANGES[:1])[0]
    again = NumericResult.model_validate_json(result.model_dump_json())
    assert again == result and list(again.read[0]) == list(NumberSeen.__annotations__)
    assert not gc.is_tracked(result.read[0])  # plain data: the collector never walks it
    assert result.model_dump()["read"][0] == {
        "raw": "-$4,820",
        "value": -4820.0,
        "kind": "quantity",
        "accepted": True,
        "read_as": 4820.0,
        "reason": "magnitude in range (sign written, non-negative range)",
    }
