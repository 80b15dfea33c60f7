"""Every scenario source Mimic writes loads: files shaped like Mimic's own (0.11).

Shapes taken from Mimic's code: ``MimicExporter`` (``mimic test --export mimic``: a JSON
array with persona, goal, input, expect and metadata), the generator's batch wrapper
(``{"scenarios": [...]}``), ``mimic.json``'s ``test.scenarios`` (zod schema: strings or
``{name, persona?, goal, input?, expect?}``; the CLI's ``toTestScenario`` defaults the persona
to the first configured persona, else "default") and the legacy ``test-scenarios.json`` of
the finance-assistant example (objects with goal and no input).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pe_eval_core.errors import (
    EmptyScenariosError,
    MalformedRecordedError,
    MalformedScenariosError,
    ScenarioSchemaError,
    ScenariosNotExportedError,
)
from pe_eval_core.scenarios import load_recorded, load_scenarios
from pe_eval_core.scenarios.loading import LoadedScenarios

EXPORTED = {  # MimicExporter.export, one entry
    "name": "smoke-mrr-lost",
    "persona": "growth-stage-leak",
    "goal": "Agent states the MRR lost",
    "input": "How much MRR did we lose last month?",
    "expect": {
        "response_contains": ["$4,820"],
        "response_excludes": ["no revenue was lost"],
        "numeric_range": {"field": "mrr_lost_usd", "min": 4338, "max": 5302},
        "max_latency_ms": 10000,
    },
    "metadata": {"tier": "smoke", "source_fact": "fact_001", "platform": "stripe"},
}

LEGACY = [  # examples/finance-assistant/test-scenarios.json (first release)
    {
        "name": "monthly-spending",
        "persona": "young-professional",
        "goal": "Ask about total spending last month",
        "expect": {
            "tools_called": ["get_transactions"],
            "response_accurate": True,
            "no_hallucination": True,
        },
    },
    {
        "name": "category-breakdown",
        "persona": "young-professional",
        "goal": "Ask for a breakdown of spending by category",
        "expect": {
            "tools_called": ["get_transactions_summary"],
            "response_contains": ["dining", "groceries"],
            "response_accurate": True,
        },
    },
]

CONFIG = {  # a mimic.json with hand-written scenarios, every expectation type
    "domain": "personal finance",
    "personas": [{"name": "young-professional", "description": "..."}, {"name": "student"}],
    "databases": {"primary": {"type": "postgres", "url": "$DATABASE_URL"}},
    "test": {
        "agent": "http://localhost:3000/chat",
        "mode": "text",
        "evaluator": "both",
        "scenarios": [
            "Ask what my balance is",
            {
                "name": "refund-flow",
                "persona": "student",
                "goal": "Get a refund for the double charge",
                "input": "I was charged twice, refund one please",
                "expect": {
                    "tools_called": ["list_charges", "create_refund"],
                    "response_contains": ["refund"],
                    "response_accurate": True,
                    "no_hallucination": True,
                    "confirms_before_action": True,
                    "max_latency_ms": 15000,
                    "custom": {"tone": "apologetic"},
                },
            },
            {"name": "goal-only", "goal": "Ask which invoices are overdue", "expect": {}},
        ],
    },
}


def write(tmp_path: Path, data: object, name: str = "scenarios.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_native_export_array_and_wrapper(tmp_path):
    for data in ([EXPORTED], {"scenarios": [EXPORTED]}):
        loaded = load_scenarios(write(tmp_path, data))
        assert isinstance(loaded, LoadedScenarios) and loaded.warnings == []
        [s] = loaded
        assert (s.name, s.persona, s.tier, s.input_from_goal) == (
            "smoke-mrr-lost",
            "growth-stage-leak",
            "smoke",
            False,
        )
        assert s.expect.numeric_range.field == "mrr_lost_usd"


def test_in_memory_shape_with_tier_on_top(tmp_path):
    """``MimicScenario`` keeps tier and source_fact on the object; they are read too."""
    item = {k: v for k, v in EXPORTED.items() if k != "metadata"}
    item |= {"tier": "adversarial", "source_fact": "fact_009"}
    [s] = load_scenarios(write(tmp_path, [item]))
    assert (s.tier, s.metadata.source_fact) == ("adversarial", "fact_009")


def test_mimic_json_strings_objects_and_persona_default(tmp_path):
    loaded = load_scenarios(write(tmp_path, CONFIG, "mimic.json"))
    plain, refund, goal_only = loaded
    assert (plain.name, plain.goal, plain.input, plain.persona) == (
        "Ask what my balance is",
        "Ask what my balance is",
        "Ask what my balance is",
        "young-professional",  # the first persona, as Mimic's toTestScenario does
    )
    assert refund.persona == "student" and refund.input.startswith("I was charged")
    assert goal_only.input == "Ask which invoices are overdue" and goal_only.input_from_goal
    e = refund.expect
    assert [t.name for t in e.tools_called] == ["list_charges", "create_refund"]
    assert (e.response_accurate, e.no_hallucination, e.confirms_before_action) == (True,) * 3
    assert e.custom == {"tone": "apologetic"} and e.max_latency_ms == 15000
    assert e.behaviour_checks() == [
        "tools_called",
        "confirms_before_action",
        "no_hallucination",
        "response_accurate",
        "custom",
    ]
    assert e.unknown_keys() == []
    assert loaded.warnings == [
        "scenario 'Ask what my balance is': no input in the scenario: its goal was sent as "
        "the input",
        "scenario 'Ask what my balance is': a plain-string scenario asserts nothing; it reports "
        "an error",
        "scenario 'goal-only': no input in the scenario: its goal was sent as the input",
    ]


def test_persona_defaults_to_default_without_personas(tmp_path):
    config = {"test": {"agent": "x", "scenarios": ["hello"]}}
    [s] = load_scenarios(write(tmp_path, config, "mimic.json"))
    assert s.persona == "default"


def test_legacy_test_scenarios_file(tmp_path):
    loaded = load_scenarios(write(tmp_path, LEGACY, "test-scenarios.json"))
    assert [s.input for s in loaded] == [item["goal"] for item in LEGACY]
    assert all(s.input_from_goal for s in loaded)
    assert loaded[0].expect.asserts_something()  # behaviour checks alone assert something
    assert loaded[1].expect.response_contains == ["dining", "groceries"]
    assert len(loaded.warnings) == 2 and all("goal was sent" in w for w in loaded.warnings)


def test_unknown_expectation_keys_are_warnings_and_result_notes(tmp_path):
    from pe_eval_core.scenarios import TargetResponse, score_response

    item = EXPORTED | {"expect": EXPORTED["expect"] | {"must_cite": True, "tone_score": 3}}
    loaded = load_scenarios(write(tmp_path, [item]))
    assert loaded.warnings == [
        "scenario 'smoke-mrr-lost': expectation key 'must_cite' is not one Mimic defines: "
        "not checked",
        "scenario 'smoke-mrr-lost': expectation key 'tone_score' is not one Mimic defines: "
        "not checked",
    ]
    r = score_response(loaded[0], TargetResponse(text="We lost $4,820 of MRR."))
    assert r.status == "pass"
    assert any("'must_cite'" in n for n in r.notes)  # never silently dropped


def test_config_without_scenarios_says_how_to_export(tmp_path):
    config = {"personas": [{"name": "p"}], "test": {"agent": "x", "auto_scenarios": True}}
    with pytest.raises(ScenariosNotExportedError) as err:
        load_scenarios(write(tmp_path, config, "mimic.json"))
    assert isinstance(err.value, EmptyScenariosError)
    assert "auto_scenarios" in str(err.value) and "`mimic test --export mimic`" in str(err.value)
    no_test = {"personas": [{"name": "p"}], "databases": {}}
    with pytest.raises(ScenariosNotExportedError, match=r"no test\.scenarios"):
        load_scenarios(write(tmp_path, no_test, "mimic.json"))


@pytest.mark.parametrize(("expect", "kind"), [("x", "a string"), ([1], "a list"), (3, "a number")])
def test_non_object_expect_names_the_field(tmp_path, expect, kind):
    with pytest.raises(
        ScenarioSchemaError, match=rf"field 'expect': expected an object, got {kind}"
    ):
        load_scenarios(write(tmp_path, [EXPORTED | {"expect": expect}]))


@pytest.mark.parametrize(
    ("where", "field"),
    [
        ('"name": "a\\ud800"', "name"),
        ('"metadata": {"tier": "sm\\udc00oke"}', "metadata.tier"),
        ('"expect": {"response_contains": ["ok", "\\ud83d"]}', "expect.response_contains[1]"),
    ],
)
def test_lone_surrogates_are_a_schema_error(tmp_path, where, field):
    text = '[{"name": "ok", "input": "q", "expect": {"response_contains": ["x"]}, ' + where + "}]"
    # files.parse_json_text refuses it for every input, naming the field path
    with pytest.raises(
        MalformedScenariosError, match=rf"field '\[0\]\.{re.escape(field)}'.*lone surrogate"
    ):
        load_scenarios(write(tmp_path, text))


def test_lone_surrogate_in_a_recorded_response(tmp_path):
    path = write(tmp_path, '[{"name": "a", "response": "fine \\ud800 text"}]', "r.json")
    with pytest.raises(MalformedRecordedError, match=r"\[0\]\.response.*lone surrogate"):
        load_recorded(path)


def test_tools_called_argument_subset_shape(tmp_path):
    item = EXPORTED | {
        "expect": {"tools_called": ["list_invoices", {"name": "create_refund", "arguments": {}}]}
    }
    [s] = load_scenarios(write(tmp_path, [item]))
    assert [(t.name, t.arguments) for t in s.expect.tools_called] == [
        ("list_invoices", {}),
        ("create_refund", {}),
    ]
    bad = EXPORTED | {"expect": {"tools_called": [{"tool": "x"}]}}
    with pytest.raises(ScenarioSchemaError, match=r"expect.tools_called\[0\]"):
        load_scenarios(write(tmp_path, [bad]))
