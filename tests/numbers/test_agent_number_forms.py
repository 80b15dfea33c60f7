"""Scenario-mode number extraction on forms agents actually write (numeric_range depends on it)."""

from __future__ import annotations

import pytest

from pe_eval_core.numbers import extract_numbers
from pe_eval_core.scenarios import TargetResponse, score_response
from pe_eval_core.scenarios.models import Scenario


def _values(text: str) -> list[float]:
    return [n.value for n in extract_numbers(text)]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("lost $4,820 last week", [4820]),
        ("lost -$4,820", [-4820]),
        ("lost $-4,820", [-4820]),
        ("lost \u22124,820", [-4820]),
        ("lost (4,820)", [-4820]),
        ("lost $4.82k", [4820]),
        ("lost USD 4,820", [4820]),
        ("lost 4,820 USD", [4820]),
        ("lost \u00a34,820.", [4820]),
        ("on 2026-04-29 at 10:30", []),
        ("4,800-5,000", [4800, 5000]),
        ("4.8K\u20135K", [4800, 5000]),
        ("4.8k to 5k", [4800, 5000]),
        ("cus_GL078 and fact_001", []),
    ],
)
def test_numbers_agents_write(text, values):
    assert _values(text) == values


@pytest.mark.parametrize(("text", "values"), [("5k-6k", [5000, 6000]), ("4.8k-5k", [4800, 5000])])
def test_lowercase_k_range_keeps_both_bounds(text, values):
    assert _values(text) == values


def test_numeric_range_sees_upper_bound_of_k_range():
    s = Scenario.model_validate(
        {
            "name": "r",
            "input": "?",
            "expect": {"numeric_range": {"field": "loss", "min": 4900, "max": 5100}},
        }
    )
    result = score_response(s, TargetResponse(text="We lost 4.8k-5k of MRR."))
    assert result.numeric is not None and result.numeric.satisfied
