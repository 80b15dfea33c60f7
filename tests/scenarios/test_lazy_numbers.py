"""The scorer reads numbers only as far as the numeric ranges need; results still report all.

``ScenarioResult.numbers`` is read from the response on first use when the scorer stopped at
a range's first hit; it must equal an eager read, in Python, in JSON and after a round trip.
"""

from __future__ import annotations

import asyncio
import json

from hypothesis import given
from hypothesis import strategies as st

from pe_eval_core.numbers import iter_number_values, number_values
from pe_eval_core.scenarios import (
    RecordedTarget,
    ScenarioResult,
    TargetResponse,
    ascore_response,
    load_scenarios,
    run_scenarios_sync,
    score_response,
)
from pe_eval_core.scenarios.run.report import run_from_json, run_to_json
from tests.helpers.scenario_helpers import DEMO, make_scenario

TEXT = "Lost $4,820 (15 customers) on 2026-04-29; then (1,200), $1.2-1.5M and 4.8%."


def test_stops_at_the_first_hit_and_reads_the_rest_on_demand():
    s = make_scenario(response_contains=["Lost"], numeric_range={"min": 4800, "max": 4840})
    r = score_response(s, TargetResponse(text=TEXT))
    assert r.numbers_read is None  # stopped at $4,820
    assert r.numeric.matched == 4820
    assert r.numbers == number_values(TEXT) == [4820, 15, -1200, 1.2e6, 1.5e6, 4.8]
    assert r.numbers_read == r.numbers  # read once, kept


def test_an_unsatisfied_range_reads_every_number_for_the_nearest():
    s = make_scenario(response_contains=["Lost"], numeric_range={"min": 5000, "max": 6000})
    r = score_response(s, TargetResponse(text=TEXT))
    assert r.numeric.nearest == 4820 and r.numbers == number_values(TEXT)
    # the range reader's own reading is on the check, every number with its decision
    assert [n["raw"] for n in r.numeric.read][:2] == ["$4,820", "15"]


def test_no_range_reads_no_numbers_until_asked():
    r = score_response(make_scenario(response_contains=["Lost"]), TargetResponse(text=TEXT))
    assert r.numbers_read is None and r.numbers == number_values(TEXT)


def test_lazy_and_eager_results_serialise_and_compare_the_same():
    s = make_scenario(response_contains=["Lost"], numeric_range={"min": 4800, "max": 4840})
    lazy = score_response(s, TargetResponse(text=TEXT))
    eager = lazy.model_copy(update={"numbers_read": number_values(TEXT)})
    fresh = score_response(s, TargetResponse(text=TEXT))
    assert fresh == eager  # comparing reads the numbers first
    assert json.loads(lazy.model_dump_json())["numbers"] == number_values(TEXT)
    assert ScenarioResult.model_validate_json(lazy.model_dump_json()) == lazy


def test_given_numbers_are_kept_as_given():
    r = ScenarioResult(name="a", tier="smoke", status="pass", response="x 5", numbers=[4280.0])
    assert r.numbers == [4280.0] and r.model_dump()["numbers"] == [4280.0]
    assert ScenarioResult(name="a", tier="smoke", status="pass", response="x 5").numbers == []


def test_demo_run_json_round_trip_keeps_every_number(tmp_path):
    run = run_scenarios_sync(
        load_scenarios(DEMO / "mimic-scenarios.json"),
        RecordedTarget(DEMO / "recorded-responses.json"),
        save_responses=False,
    )
    data = json.loads(run_to_json(run))
    for result, row in zip(run.results, data["results"], strict=True):
        assert row["numbers"] == number_values(result.response or "") or result.status == "error"
    assert run_from_json(run_to_json(run)) == run


@given(st.text(alphabet="0123456789$£€-.,()%kKmM: -T\n abApril", max_size=60))
def test_iter_number_values_reads_exactly_number_values(text):
    assert [repr(v) for v in iter_number_values(text)] == [repr(v) for v in number_values(text)]


def test_validated_results_read_numbers_lazily_too():
    # An int latency is validated to a float like any other input.
    s = make_scenario(response_contains=["Lost"], numeric_range={"min": 4800, "max": 4840})
    r = asyncio.run(ascore_response(s, TargetResponse(text=TEXT), latency_ms=5))
    assert type(r.latency_ms) is float and r.numbers_read is None
    assert r.numbers == number_values(TEXT)


def test_the_scorers_working_records_become_plain_validated_results():
    from pe_eval_core.scenarios.models import ExpectationResult
    from pe_eval_core.scenarios.scoring.steps import strict_check

    found = strict_check(["a", "b"], "x A")
    hit = ExpectationResult(text="a", method="strict", satisfied=True, evidence="A")
    miss = ExpectationResult(text="b")
    assert [e.result() for e in found] == [hit, miss]
    assert [e.result().model_dump_json() for e in found] == [
        hit.model_dump_json(),
        miss.model_dump_json(),
    ]
    one, two = strict_check(["x"], ""), strict_check(["x"], "")
    one[0].note = "changed"  # each record owns its data
    assert two[0].note == "" and two[0].result().note == ""
