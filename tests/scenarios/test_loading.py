"""Loading Mimic scenario files and recorded responses: shapes accepted, errors that name things."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.errors import (
    DuplicateScenarioError,
    EmptyScenariosError,
    MalformedRecordedError,
    MalformedScenariosError,
    RecordedResponsesNotFoundError,
    RecordedSchemaError,
    ScenarioSchemaError,
    ScenariosNotFoundError,
)
from pe_eval_core.scenarios import load_recorded, load_scenarios
from tests.helpers.scenario_helpers import DEMO

ONE = {
    "name": "smoke-total",
    "persona": "growth-stage-leak",
    "goal": "states the total",
    "input": "How much MRR did we lose?",
    "expect": {
        "response_contains": ["$4,820"],
        "response_excludes": ["no revenue was lost"],
        "numeric_range": {"field": "total", "min": 4800, "max": 4840},
        "max_latency_ms": 20000,
    },
    "metadata": {"tier": "smoke", "source_fact": "fact_001", "platform": "stripe"},
    "future_key": {"kept": True},
}


def write(tmp_path: Path, data: object, name: str = "scenarios.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_native_array_loads_every_field(tmp_path):
    [s] = load_scenarios(write(tmp_path, [ONE]))
    assert s.name == "smoke-total" and s.input.startswith("How much")
    assert s.expect.response_contains == ["$4,820"]
    assert s.expect.response_excludes == ["no revenue was lost"]
    assert (s.expect.numeric_range.field, s.expect.numeric_range.min) == ("total", 4800)
    assert s.expect.max_latency_ms == 20000
    assert (s.tier, s.metadata.source_fact, s.metadata.platform) == ("smoke", "fact_001", "stripe")
    assert s.model_extra == {"future_key": {"kept": True}}  # unknown keys tolerated and kept


@pytest.mark.parametrize("wrap", [lambda x: {"scenarios": x}, lambda x: {"test": {"scenarios": x}}])
def test_wrappers_load_like_the_array(tmp_path, wrap):
    assert [s.name for s in load_scenarios(write(tmp_path, wrap([ONE])))] == ["smoke-total"]


def test_unknown_and_missing_tiers_are_kept(tmp_path):
    data = [
        ONE | {"name": "a", "metadata": {"tier": "Chaos"}},
        ONE | {"name": "b", "metadata": {}},
    ]
    assert [s.tier for s in load_scenarios(write(tmp_path, data))] == ["chaos", "untiered"]


def test_numeric_range_list_is_accepted(tmp_path):
    data = [ONE | {"expect": {"numeric_range": [{"min": 1, "max": 2}, {"min": 5, "max": 6}]}}]
    [s] = load_scenarios(write(tmp_path, data))
    assert [(r.min, r.max) for r in s.expect.numeric_ranges] == [(1, 2), (5, 6)]


def test_schema_error_names_index_name_and_field(tmp_path):
    bad = ONE | {"name": "broken-one", "expect": {"numeric_range": {"min": "lots", "max": 3}}}
    with pytest.raises(ScenarioSchemaError) as err:
        load_scenarios(write(tmp_path, [ONE, bad]))
    msg = err.value.message
    assert "scenario #2 (index 1" in msg and "'broken-one'" in msg
    assert "'expect.numeric_range.min'" in msg
    assert (err.value.index, err.value.name) == (1, "broken-one")


def test_missing_input_is_named(tmp_path):
    bad = {k: v for k, v in ONE.items() if k not in ("input", "goal")}  # no goal to stand in
    with pytest.raises(ScenarioSchemaError, match=r"field 'input': required field is missing"):
        load_scenarios(write(tmp_path, [bad]))


def test_min_above_max_and_blank_phrases_are_errors(tmp_path):
    bad = ONE | {"expect": {"numeric_range": {"min": 10, "max": 1}}}
    with pytest.raises(ScenarioSchemaError, match=r"min .* is greater than max"):
        load_scenarios(write(tmp_path, [bad]))
    bad = ONE | {"expect": {"response_contains": ["ok", "  "]}}
    with pytest.raises(ScenarioSchemaError, match=r"response_contains.*blank"):
        load_scenarios(write(tmp_path, [bad]))


def test_non_object_scenario(tmp_path):
    # a string is a Mimic scenario (name and goal); a number is not
    with pytest.raises(ScenarioSchemaError, match=r"scenario #2 \(index 1, no name\).*a number"):
        load_scenarios(write(tmp_path, [ONE, 42]))


def test_duplicate_names(tmp_path):
    with pytest.raises(
        DuplicateScenarioError, match=r"#2 .*'smoke-total'.*duplicate of scenario #1"
    ):
        load_scenarios(write(tmp_path, [ONE, ONE]))


@pytest.mark.parametrize("content", ["", "  \n", "[]", '{"scenarios": []}'])
def test_empty_files(tmp_path, content):
    with pytest.raises(EmptyScenariosError):
        load_scenarios(write(tmp_path, content))


def test_malformed_json_has_line_and_column(tmp_path):
    with pytest.raises(MalformedScenariosError) as err:
        load_scenarios(write(tmp_path, '[\n  {"name": "a",\n   "input": }\n]'))
    assert (err.value.line, err.value.column) == (3, 13)
    assert "line 3, column 13" in str(err.value)


def test_wrong_top_level(tmp_path):
    with pytest.raises(ScenarioSchemaError, match="top level"):
        load_scenarios(write(tmp_path, {"items": []}))
    with pytest.raises(ScenarioSchemaError, match="expected a list"):
        load_scenarios(write(tmp_path, {"scenarios": {"a": 1}}))


def test_missing_file(tmp_path):
    with pytest.raises(ScenariosNotFoundError, match="does not exist"):
        load_scenarios(tmp_path / "nope.json")


def test_demo_scenarios_load():
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")
    assert len(scenarios) == 19
    assert {s.tier for s in scenarios} == {"smoke", "functional", "adversarial"}


# --- recorded responses --------------------------------------------------------------------


def test_recorded_json_array_and_wrapper(tmp_path):
    rows = [{"name": "a", "response": "hi", "latency_ms": 5}, {"name": "b", "error": "HTTP 502"}]
    for data in (rows, {"label": "x", "responses": rows}):
        rec = load_recorded(write(tmp_path, data, "r.json"))
        assert rec["a"].response == "hi" and rec["a"].latency_ms == 5
        assert rec["b"].error == "HTTP 502" and rec["b"].response is None


def test_recorded_jsonl_and_its_errors(tmp_path):
    text = '{"name": "a", "response": "x"}\n\n{"name": "b", "response": "y"}\n'
    assert sorted(load_recorded(write(tmp_path, text, "r.jsonl"))) == ["a", "b"]
    with pytest.raises(MalformedRecordedError, match="line 2"):
        load_recorded(write(tmp_path, '{"name": "a", "response": "x"}\n{"name": \n', "r.jsonl"))


def test_recorded_errors(tmp_path):
    with pytest.raises(RecordedResponsesNotFoundError):
        load_recorded(tmp_path / "missing.json")
    with pytest.raises(RecordedSchemaError, match=r"'\[1\]\.name'.*required"):
        load_recorded(write(tmp_path, [{"name": "a", "response": "x"}, {"response": "y"}]))
    with pytest.raises(RecordedSchemaError, match="duplicate response for scenario 'a'"):
        load_recorded(write(tmp_path, [{"name": "a", "response": "x"}] * 2))
    with pytest.raises(RecordedSchemaError, match="empty"):
        load_recorded(write(tmp_path, ""))
    with pytest.raises(MalformedRecordedError, match="line 1, column 2"):
        load_recorded(write(tmp_path, "[}"))
