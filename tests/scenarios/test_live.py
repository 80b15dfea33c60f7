"""A real call to Anthropic: two demo scenarios, live target and live judge (needs a key)."""

from __future__ import annotations

import os

import pytest

from pe_eval_core.scenarios import (
    AnthropicJudge,
    AnthropicTarget,
    CachedJudge,
    load_scenarios,
    run_scenarios_sync,
)
from tests.helpers.scenario_helpers import DEMO, REPO

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="needs ANTHROPIC_API_KEY"),
]


def test_live_target_and_judge():
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")[:2]
    target = AnthropicTarget(REPO / "skills" / "revenue-recovery" / "SKILL.md")
    run = run_scenarios_sync(scenarios, target, judge=CachedJudge(AnthropicJudge()))
    assert all(r.status in ("pass", "fail") for r in run.results), [r.error for r in run.results]
    assert run.tokens_in > 0 and run.tokens_out > 0
    assert all(r.response for r in run.results)
