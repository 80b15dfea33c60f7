"""The analysis date: where it comes from, how the agent is told, and that the run records it."""

from __future__ import annotations

import asyncio
import json
from datetime import date

import anthropic
import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import TargetConfigError
from pe_eval_core.scenarios.agent.as_of import (
    AsOf,
    find_mimic_config,
    parse_as_of,
    resolve_as_of,
)
from pe_eval_core.scenarios.agent.targets import AnthropicTarget
from pe_eval_core.scenarios.run.runner import run_scenarios
from pe_eval_core.scenarios.run.setup import make_target
from tests.helpers.scenario_helpers import REPO, MockAnthropic, make_scenario, message_json


def mimic_project(root, *personas, where="mimic.json"):
    """A Mimic project folder: ``.mimic/exports/s.json`` and a config at ``where``."""
    scenarios = root / ".mimic" / "exports" / "s.json"
    scenarios.parent.mkdir(parents=True)
    scenarios.write_text(json.dumps([{"name": "a", "input": "q", "expect": {}}]))
    config = root / where
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"domain": "d", "personas": list(personas)}))
    return scenarios, config


def test_the_bundled_demo_is_analysed_on_its_persona_date():
    as_of = resolve_as_of(None, REPO / ".mimic" / "exports" / "mimic-scenarios.json")
    assert as_of is not None
    assert (as_of.iso, as_of.date.weekday()) == ("2026-04-29", 2)  # a Wednesday
    assert as_of.source.endswith("mimic_stack/mimic.json (persona growth-stage-leak)")


def test_the_project_config_wins_over_the_bundled_stack(tmp_path):
    scenarios, _ = mimic_project(tmp_path, {"name": "p", "description": "x", "as_of": "2025-01-06"})
    stack = tmp_path / "mimic_stack" / "mimic.json"
    stack.parent.mkdir()
    stack.write_text(json.dumps({"personas": [{"name": "p", "as_of": "2026-04-29"}]}))
    assert find_mimic_config(scenarios) == tmp_path / "mimic.json"
    assert resolve_as_of(None, scenarios).iso == "2025-01-06"
    (tmp_path / "mimic.json").unlink()
    assert resolve_as_of(None, scenarios).iso == "2026-04-29"


def test_a_scenarios_file_outside_a_mimic_project_has_no_date(tmp_path):
    loose = tmp_path / "scenarios.json"
    loose.write_text("[]")
    assert find_mimic_config(loose) is None
    assert resolve_as_of(None, loose) is None
    # a persona without as_of gives none either (and Mimic's own keys are left alone)
    scenarios, _ = mimic_project(tmp_path / "p", {"name": "p", "description": "x"})
    assert resolve_as_of(None, scenarios) is None


def test_a_mimic_json_given_as_the_scenarios_file_is_its_own_config(tmp_path):
    config = tmp_path / "mimic.json"
    config.write_text(json.dumps({"personas": [{"name": "p", "as_of": "2026-02-02"}]}))
    assert resolve_as_of(None, config) == AsOf(date(2026, 2, 2), f"{config} (persona p)")


def test_the_explicit_date_wins_and_bad_dates_name_the_input(tmp_path):
    scenarios, _ = mimic_project(tmp_path, {"name": "p", "description": "x", "as_of": "2025-01-06"})
    assert resolve_as_of("2026-04-29", scenarios) == AsOf(date(2026, 4, 29), "--as-of")
    for bad in ("29/04/2026", "2026-4-29", "2026-02-30", "yesterday"):
        with pytest.raises(TargetConfigError) as err:
            parse_as_of(bad)
        assert err.value.input == "as_of" and bad in str(err.value)


def test_personas_with_different_dates_need_an_explicit_one(tmp_path):
    scenarios, _ = mimic_project(
        tmp_path,
        {"name": "a", "description": "x", "as_of": "2026-04-29"},
        {"name": "b", "description": "y", "as_of": "2026-05-06"},
    )
    with pytest.raises(TargetConfigError, match="2026-04-29, 2026-05-06"):
        resolve_as_of(None, scenarios)
    assert resolve_as_of("2026-05-06", scenarios).iso == "2026-05-06"


def test_the_agent_is_told_the_date_after_the_skill_and_the_run_records_it(tmp_path):
    scenarios, _ = mimic_project(tmp_path, {"name": "p", "description": "x", "as_of": "2026-04-29"})
    skill = tmp_path / "SKILL.md"
    skill.write_text("# Skill\nUse the latest complete week.\n")
    api = MockAnthropic(message_json(text="Lost $4,820."))
    target = make_target(
        "anthropic", scenarios_path=scenarios, skill=skill, model="claude-x", api_key="k"
    )
    assert isinstance(target, AnthropicTarget)
    target._http_client = api.client()
    run = asyncio.run(
        run_scenarios(
            [make_scenario(response_contains=["$4,820"])],
            target,
            confirm_live=True,
            save_responses=False,
        )
    )
    system = api.requests[0]["system"]
    assert system.endswith("Analysis date: 2026-04-29 (a Wednesday). Treat it as today.")
    assert system.index("Output ONLY") < system.index("Analysis date:")
    assert run.as_of == "2026-04-29"
    assert run.as_of_source == f"{tmp_path / 'mimic.json'} (persona p)"
    # a run with no date says so by leaving the field empty, and the prompt has no date line
    none = make_target("anthropic", scenarios_path=skill, skill=skill, model="m", api_key="k")
    assert none.as_of is None and "Analysis date" not in none.system_prompt


def test_cli_as_of_is_stated_in_the_header_and_the_report(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    api = MockAnthropic(message_json(text="Lost $4,820."))
    real = anthropic.AsyncAnthropic

    def patched(**kwargs):
        kwargs["http_client"] = api.client()
        return real(**kwargs)

    monkeypatch.setattr(anthropic, "AsyncAnthropic", patched)
    monkeypatch.chdir(tmp_path)
    skill = tmp_path / "SKILL.md"
    skill.write_text("# Skill\n")
    scenarios = tmp_path / "s.json"
    expect = {"response_contains": ["$4,820"]}
    scenarios.write_text(json.dumps([{"name": "a", "input": "q", "expect": expect}]))
    base = ["scenarios", "run", "--target", "anthropic", "--skill", str(skill), "--no-judge"]
    base += ["--scenarios", str(scenarios), "--model", "claude-x"]
    code = main([*base, "--as-of", "2026-04-29", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Analysis date: 2026-04-29 (from --as-of)." in err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert (report["as_of"], report["as_of_source"]) == ("2026-04-29", "--as-of")

    assert main([*base, "--as-of", "29/04/2026"]) == 2
    err = capsys.readouterr().err
    assert "29/04/2026" in err and "--as-of" in err
    assert main(base) == 0
    assert "Analysis date: none given" in capsys.readouterr().err
