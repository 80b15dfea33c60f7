"""Recorded judge verdicts: the same fail-closed check as live ones, stamped as recorded."""

from __future__ import annotations

import asyncio
import json

import pytest

from pe_eval_core.errors import (
    JudgeError,
    JudgeVerdictsNotFoundError,
    JudgeVerdictsSchemaError,
    MalformedJudgeVerdictsError,
)
from pe_eval_core.scenarios import (
    AnthropicJudge,
    CachedJudge,
    RecordedJudge,
    RecordedResponse,
    RecordedTarget,
    TargetResponse,
    load_recorded,
    run_scenarios_sync,
    score_response,
)
from tests.helpers.scenario_helpers import DEMO, MockAnthropic, make_scenario, message_json


def verdict_file(tmp_path, verdicts, **top):
    data = {"label": "recorded judge verdicts (test)", "model": "claude-x", "prompt_version": "v9"}
    data |= top
    data["verdicts"] = verdicts
    path = tmp_path / "judge-verdicts.json"
    path.write_text(json.dumps(data))
    return path


def test_demo_verdicts_are_stamped_recorded():
    judge = RecordedJudge(DEMO / "judge-verdicts.json")
    assert judge.model == "recorded:claude-sonnet-4-5" and judge.label.startswith("recorded")
    response = load_recorded(DEMO / "recorded-responses.json")["smoke-failed-charge-count"]
    assert response.response is not None
    outcome = asyncio.run(
        judge.judge("smoke-failed-charge-count", response.response, ["expired card"])
    )
    [v] = outcome.verdicts
    assert (v.verdict, v.model, outcome.calls) == ("paraphrase", "recorded:claude-sonnet-4-5", 0)


def test_recorded_paraphrase_with_a_quote_not_in_the_response_fails_closed(tmp_path):
    path = verdict_file(
        tmp_path,
        [
            {
                "scenario": "s1",
                "expected": "usage drop",
                "verdict": "paraphrase",
                "evidence": "usage fell",
            }
        ],
    )
    s = make_scenario("s1", response_contains=["usage drop"])
    r = score_response(s, TargetResponse(text="Logins stopped in April."), RecordedJudge(path))
    assert r.status == "fail" and not r.expectations[0].satisfied
    assert "failed closed" in r.expectations[0].note
    assert r.expectations[0].judge_model == "recorded:claude-x"


def test_missing_recorded_verdict_is_a_judge_error(tmp_path):
    path = verdict_file(tmp_path, [])
    s = make_scenario("s1", response_contains=["usage drop"])
    r = score_response(s, TargetResponse(text="nothing relevant"), RecordedJudge(path))
    assert r.status == "judge error" and "no recorded judge verdict" in r.error
    with pytest.raises(JudgeError):
        asyncio.run(RecordedJudge(path).judge("s1", "x", ["usage drop"]))


def test_verdict_file_errors(tmp_path):
    with pytest.raises(JudgeVerdictsNotFoundError):
        RecordedJudge(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(MalformedJudgeVerdictsError):
        RecordedJudge(bad)
    with pytest.raises(JudgeVerdictsSchemaError, match="label"):
        RecordedJudge(verdict_file(tmp_path, [], label=""))
    with pytest.raises(JudgeVerdictsSchemaError, match="verdict"):
        RecordedJudge(
            verdict_file(tmp_path, [{"scenario": "a", "expected": "b", "verdict": "maybe"}])
        )
    dup = {"scenario": "a", "expected": "b", "verdict": "missed"}
    with pytest.raises(JudgeVerdictsSchemaError, match="duplicate"):
        RecordedJudge(verdict_file(tmp_path, [dup, dup]))


def test_rescoring_an_unchanged_run_makes_zero_judge_calls(tmp_path):
    """Whole runs through the live judge's cache: the second run pays for nothing."""
    reply = message_json(
        tool_input={
            "verdicts": [
                {
                    "index": 0,
                    "expected": "expired card",
                    "verdict": "paraphrase",
                    "evidence": "cards had passed their expiry date",
                }
            ]
        }
    )
    api = MockAnthropic(reply)
    scenarios = [make_scenario("s1", response_contains=["failed charges", "expired card"])]
    target = RecordedTarget(
        {
            "s1": RecordedResponse(
                name="s1", response="8 failed charges; cards had passed their expiry date"
            )
        }
    )
    db = tmp_path / "cache.sqlite3"

    def run():
        judge = CachedJudge(AnthropicJudge("m", api_key="k", http_client=api.client()), db)
        return run_scenarios_sync(scenarios, target, judge=judge, save_responses=False)

    first, second = run(), run()
    assert (first.judge_calls, second.judge_calls, len(api.requests)) == (1, 0, 1)
    assert first.results[0].status == second.results[0].status == "pass"
    assert second.results[0].expectations[1].note.endswith("cached verdict")
