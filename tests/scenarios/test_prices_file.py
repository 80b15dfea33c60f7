"""The price table in force: published prices, a user's price file ($PE_EVAL_PRICES), unknown
models said as such with how to add them; sampling parameters only where a model takes them."""

from __future__ import annotations

import json

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import PriceFileError
from pe_eval_core.scenarios.agent.targets import AnthropicTarget
from pe_eval_core.scenarios.llm.pricing import call_cost_usd, load_price_file, price, prices
from pe_eval_core.scenarios.run.costs import estimate_run_cost
from pe_eval_core.scenarios.trace import TokenUsage
from tests.helpers.scenario_helpers import make_scenario

MILLION = TokenUsage(input=1_000_000, output=1_000_000, cache_read=1_000_000, cache_write=1_000_000)


def test_the_defaults_are_priced_as_published():
    # the target's and the judge's defaults: no more "cost unknown" for a default run
    assert call_cost_usd("claude-sonnet-5-5", MILLION) == pytest.approx(2 + 10 + 2.5 + 0.1)
    assert call_cost_usd("claude-opus-5-5", MILLION) == pytest.approx(4 + 20 + 5 + 0.2)
    assert call_cost_usd("claude-opus-4-8", MILLION) == pytest.approx(5 + 25 + 6.25 + 0.5)
    assert price("claude-haiku-5-5") is None  # priced by prompt length per request: unknown


def test_a_price_file_adds_models_and_families_and_overrides(tmp_path, monkeypatch):
    file = tmp_path / "prices.json"
    file.write_text(
        json.dumps(
            {
                "models": {
                    "claude-haiku-5-5": {
                        "input": 0.1,
                        "output": 0.5,
                        "cache_write": 0.125,
                        "cache_read": 0.01,
                    },
                    "claude-sonnet-5-5": {"input": 3, "output": 15},  # an override
                },
                "families": {"my-llm-": {"input": 1, "output": 2}},
            }
        )
    )
    monkeypatch.setenv("PE_EVAL_PRICES", str(file))
    assert call_cost_usd("claude-haiku-5-5", MILLION) == pytest.approx(0.1 + 0.5 + 0.125 + 0.01)
    assert price("claude-sonnet-5-5").cache_read == pytest.approx(0.3)  # derived: 0.1x input
    assert price("my-llm-7b").output == 2.0  # the family prefix
    assert price("claude-opus-5-5").input == 4.0  # the built-in ones stay
    line = estimate_run_cost("claude-haiku-5-5", scenarios=2, prefix_tokens=100).line()
    assert "unknown" not in line
    monkeypatch.delenv("PE_EVAL_PRICES")
    assert price("claude-haiku-5-5") is None and prices().models is not None


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("{not json", "not a JSON file"),
        ('{"model": {}}', 'expected an object with "models"'),
        ('{"models": {"m": {"input": -1, "output": 2}}}', "models.m.input must be a number"),
        ('{"models": {"m": {"input": 1}}}', "models.m.output must be a number"),
        ('{"models": {"m": {"input": 1, "output": 2, "cached": 1}}}', "models.m.cached is not"),
    ],
)
def test_a_bad_price_file_names_the_field(tmp_path, content, named):
    file = tmp_path / "prices.json"
    file.write_text(content)
    with pytest.raises(PriceFileError, match=named.replace(".", r"\.")):
        load_price_file(file)


def test_the_cli_stops_on_a_bad_price_file_before_any_call(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PE_EVAL_PRICES", str(tmp_path / "missing.json"))
    assert main(["scenarios", "score"]) == 2
    err = capsys.readouterr().err
    assert "missing.json ($PE_EVAL_PRICES) does not exist" in err
    assert "unset PE_EVAL_PRICES" in err


def test_an_unknown_model_says_how_to_price_it():
    line = estimate_run_cost("claude-haiku-5-5", scenarios=19, prefix_tokens=6000).line()
    assert line.startswith(
        "Estimated cost: unknown (claude-haiku-5-5 is not in the price table: add it to a JSON "
        "price file named by $PE_EVAL_PRICES) for 19 scenarios"
    )


@pytest.mark.parametrize(
    ("model", "sent"), [("claude-sonnet-4-5", True), ("claude-sonnet-5-5", False)]
)
def test_temperature_is_sent_only_to_models_that_take_it(tmp_path, model, sent):
    skill = tmp_path / "SKILL.md"
    skill.write_text("# Skill\n")
    body = AnthropicTarget(skill, model=model, api_key="k").request(make_scenario())
    assert ("temperature" in body["extra_body"]) is sent
