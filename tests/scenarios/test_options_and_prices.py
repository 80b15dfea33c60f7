"""One default per run option and one price per call, whatever the surface.

Pins the drifts that existed: the HTTP agent's timeout was 120 s from the CLI and 60 s from
the dashboard; ``scenarios score`` ran 8 calls at once where every other surface ran 3; the
dashboard's tool-using agent replied in at most 2048 tokens where the CLI allowed 4096; and a
run priced by two tables printed "estimated cost unknown" before it and a dollar figure after.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from pe_eval_core.cli import scenarios as cli_scenarios
from pe_eval_core.cli.main import build_parser
from pe_eval_core.errors import PeEvalError
from pe_eval_core.scenarios import HttpTarget, run_scenarios_sync
from pe_eval_core.scenarios.agent.loop import AgentBounds
from pe_eval_core.scenarios.agent.protocol import TargetBase
from pe_eval_core.scenarios.models import Scenario, ScenarioResult, TargetResponse
from pe_eval_core.scenarios.options import DEFAULTS, RunOptions, run_options
from pe_eval_core.scenarios.run.cost_guard import count_paid_calls_sync
from pe_eval_core.scenarios.run.costs import estimate_run_cost, judge_cost_usd, run_cost_usd
from pe_eval_core.scenarios.run.setup import agent_bounds, make_target

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"


def make_scenario(name: str, **expect: object) -> Scenario:
    """A scenario with the given ``expect`` fields (tier smoke)."""
    return Scenario.model_validate(
        {"name": name, "input": f"question for {name}", "expect": expect,
         "metadata": {"tier": "smoke", "source_fact": "fact_001"}}
    )  # fmt: skip


def _cli(*argv: str) -> RunOptions:
    return cli_scenarios.run_options_of(build_parser().parse_args(["scenarios", *argv]))


def test_the_cli_without_flags_runs_on_the_one_set_of_defaults() -> None:
    assert _cli("run") == DEFAULTS
    assert _cli("score") == DEFAULTS  # score ran 8 calls at once before
    given = _cli("run", "--timeout", "30", "--max-turns", "4", "--judge-timeout", "9", "--batch")
    assert (given.timeout_s, given.max_turns, given.judge_timeout_s, given.batch) == (
        30.0,
        4,
        9.0,
        True,
    )


def test_every_default_is_read_from_the_options() -> None:
    bounds = AgentBounds()
    assert (bounds.max_turns, bounds.max_tool_calls, bounds.tool_timeout_s, bounds.max_tokens) == (
        DEFAULTS.max_turns,
        DEFAULTS.max_tool_calls,
        DEFAULTS.tool_timeout_s,
        DEFAULTS.max_tokens,
    )
    assert agent_bounds() == bounds
    assert HttpTarget("http://127.0.0.1:9/a").timeout_s == DEFAULTS.timeout_s
    http = make_target("http", scenarios_path=DEMO, agent_url="http://127.0.0.1:9/a")
    assert isinstance(http, HttpTarget) and http.timeout_s == DEFAULTS.timeout_s == 120.0


@pytest.mark.parametrize(
    ("field", "value"),
    [("concurrency", 0), ("repeat", 1.5), ("timeout_s", 0), ("max_tool_calls", -1)],
)
def test_a_bad_option_names_itself(field: str, value: object) -> None:
    with pytest.raises(PeEvalError) as err:
        run_options(**{field: value})
    assert field in err.value.message and err.value.input is not None


def test_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.concurrency = 9  # type: ignore[misc]


def _dashboard_http_timeout() -> None:
    import streamlit as st

    from ui import state
    from ui.views import scenarios

    st.session_state[state.Scenarios.TARGET] = scenarios.HTTP
    st.session_state[state.Scenarios.HTTP_URL] = "http://127.0.0.1:9/agent"
    options = scenarios.page_options()
    built = scenarios.build_target(options)
    assert built is not None
    st.session_state["timeout"] = built[0]().timeout_s
    st.session_state["concurrency"] = options.concurrency


def test_the_dashboard_http_agent_waits_as_long_as_the_cli_one() -> None:
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    at = AppTest.from_function(_dashboard_http_timeout, default_timeout=60)
    at.run()
    assert not at.exception
    cli = cli_scenarios._target(
        build_parser().parse_args(
            ["scenarios", "run", "--target", "http", "--agent-url", "http://127.0.0.1:9/agent"]
        )
    )
    assert at.session_state["timeout"] == cli.timeout_s == DEFAULTS.timeout_s  # type: ignore[attr-defined]
    assert at.session_state["concurrency"] == DEFAULTS.concurrency


# --- prices ----------------------------------------------------------------------------------


class _LiveModel(TargetBase):
    """A live model target answering every scenario, with token counts."""

    live = True
    system_prompt = "You answer."

    def __init__(self, model: str):
        self.model, self.name = model, f"anthropic:{model}"

    async def respond(self, scenario) -> TargetResponse:
        return TargetResponse(text="fact", tokens_in=1000, tokens_out=100)


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-haiku-5-5"])
def test_before_and_after_a_run_the_price_is_known_or_unknown_together(model: str) -> None:
    scenarios = [make_scenario(f"s{i}", response_contains=["fact"]) for i in range(3)]
    target = _LiveModel(model)
    before = count_paid_calls_sync(scenarios, target, None)
    run = run_scenarios_sync(scenarios, target, save_responses=False, confirm_live=True)
    known = model == "claude-sonnet-4-5"
    assert (before.usd is not None) == (run.estimated_cost_usd is not None) == known
    if known:
        assert run.estimated_cost_usd == pytest.approx(3 * (1000 * 3 + 100 * 15) / 1e6)


def test_batched_calls_cost_half_before_and_after() -> None:
    assert judge_cost_usd("claude-opus-4-5", 4, batch=True) == pytest.approx(
        judge_cost_usd("claude-opus-4-5", 4) / 2  # type: ignore[operator]
    )
    full = estimate_run_cost("claude-sonnet-4-5", scenarios=5, prefix_tokens=800)
    half = estimate_run_cost("claude-sonnet-4-5", scenarios=5, prefix_tokens=800, batch=True)
    assert half.usd == pytest.approx(full.usd / 2)  # type: ignore[operator]
    result = ScenarioResult(
        name="a",
        tier="smoke",
        status="pass",
        tokens_in=10_000,
        tokens_out=1000,
        judge_tokens_in=2000,
    )
    kwargs = {"live": True, "target_model": "claude-sonnet-4-5", "judge_model": "claude-opus-4-5"}
    plain = run_cost_usd([result], **kwargs)  # type: ignore[arg-type]
    both = run_cost_usd([result], batched=("target", "judge"), **kwargs)  # type: ignore[arg-type]
    assert both == pytest.approx(plain / 2)  # type: ignore[operator]


def test_the_run_header_estimate_and_the_guard_use_one_price() -> None:
    target = _LiveModel("claude-sonnet-4-5")
    paid = count_paid_calls_sync(
        [make_scenario("s", response_contains=["fact"])], target, None, options=run_options()
    )
    header = estimate_run_cost("claude-sonnet-4-5", scenarios=1, prefix_tokens=3)
    assert paid.usd == pytest.approx(round(header.usd, 4))  # type: ignore[arg-type]
