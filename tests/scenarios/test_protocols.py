"""Targets and judges declare what the runner and the cost guard read (no probing), and the
cost guard counts judge calls by the scorer's own rule without calling any judge."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios import (
    AnthropicJudge,
    CachedJudge,
    CacheOnlyJudge,
    HttpTarget,
    Judge,
    JudgeBase,
    RecordedJudge,
    RecordedTarget,
    Target,
    UnavailableJudge,
    load_scenarios,
    run_scenarios_sync,
)
from pe_eval_core.scenarios.models import (
    JudgeOutcome,
    JudgeVerdict,
    RecordedResponse,
    Scenario,
    TargetResponse,
)
from pe_eval_core.scenarios.run.cost_guard import count_paid_calls_sync
from pe_eval_core.scenarios.scoring.score import judge_questions

DEMO = Path(__file__).resolve().parents[2] / ".mimic" / "exports"


def make_scenario(name: str, **expect: object) -> Scenario:
    """A scenario with the given ``expect`` fields (tier smoke)."""
    return Scenario.model_validate(
        {"name": name, "input": f"question for {name}", "expect": expect,
         "metadata": {"tier": "smoke", "source_fact": "fact_001"}}
    )  # fmt: skip


def test_every_shipped_target_and_judge_meets_its_protocol(tmp_path: Path) -> None:
    targets = [RecordedTarget(DEMO / "recorded-responses.json"), HttpTarget("http://127.0.0.1:9")]
    assert all(isinstance(t, Target) for t in targets)
    assert [t.label for t in targets] == [
        "recorded:recorded-responses.json",
        "http:http://127.0.0.1:9",
    ]
    assert [t.live for t in targets] == [False, True]
    assert not any(t.batchable for t in targets)
    live = AnthropicJudge("claude-opus-4-5", api_key="k")
    judges: list[Judge] = [
        RecordedJudge(DEMO / "judge-verdicts.json"),
        UnavailableJudge("no judge"),
        CacheOnlyJudge("no key", "claude-opus-4-5", tmp_path / "c.sqlite3"),
        CachedJudge(live, tmp_path / "c.sqlite3"),
        live,
    ]
    assert all(isinstance(j, Judge) for j in judges)
    assert [j.kind for j in judges] == ["recorded", "unavailable", "cache only", "live", "live"]
    assert [j.live for j in judges] == [False, False, False, True, True]
    assert [j.batchable for j in judges] == [False, False, False, True, True]
    assert judges[2].source == judges[3].source == str(tmp_path / "c.sqlite3")


class _NeverJudge(JudgeBase):
    """A live judge that must never be called, recording what the cost guard asked it."""

    model, prompt_version, live = "never", "p", True

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def needs_paid_call(self, response: str, expected: Sequence[str]) -> bool:
        self.asked.append(list(expected))
        return True

    async def judge(self, scenario, response, expected, *, context=None) -> JudgeOutcome:
        raise AssertionError("the cost guard called the judge")


class _SpyJudge(JudgeBase):
    """Answers ``missed`` for everything, recording each call's phrases."""

    model, prompt_version, live = "spy", "p", True

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def judge(self, scenario, response, expected, *, context=None) -> JudgeOutcome:
        self.asked.append(list(expected))
        verdicts = [
            JudgeVerdict(expected=e, verdict="missed", model=self.model, prompt_version="p")
            for e in expected
        ]
        return JudgeOutcome(verdicts=verdicts, model=self.model, prompt_version="p", calls=1)


def test_the_guard_asks_exactly_what_scoring_asks_and_calls_no_judge() -> None:
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")
    target = RecordedTarget(DEMO / "recorded-responses.json")
    never = _NeverJudge()
    paid = count_paid_calls_sync(scenarios, target, never, repeat=3)
    spy = _SpyJudge()
    run = run_scenarios_sync(scenarios, target, judge=spy, save_responses=False)
    assert paid.judge_measured and paid.judge == len(spy.asked) == run.judge_calls > 0
    assert never.asked == spy.asked  # the same phrases, in the same order, per scenario


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("Lost $4,820; the vice president knows.", ["VP Engineering"]),  # judge decides
        ("Lost $4,820 and the VP Engineering knows.", []),  # strict: nothing left
        ("no figure here", []),  # the numeric range fails: the judge cannot change it
    ],
)
def test_judge_questions_follow_the_pass_rule(text: str, asked: list[str]) -> None:
    s = make_scenario(
        "x",
        response_contains=["$4,820", "VP Engineering"],
        numeric_range={"field": "mrr", "min": 4800, "max": 4840},
    )
    assert judge_questions(s, TargetResponse(text=text)) == asked


def test_a_judge_error_is_what_scoring_reports_whatever_the_guard_counted() -> None:
    class Broken(JudgeBase):
        model, prompt_version, live = "broken", "p", True

        async def judge(self, scenario, response, expected, *, context=None) -> JudgeOutcome:
            raise JudgeError("judge call failed: HTTP 529")

    s = make_scenario("x", response_contains=["VP Engineering"])
    target = RecordedTarget({"x": RecordedResponse(name="x", response="the vice president")})
    assert count_paid_calls_sync([s], target, Broken()).judge == 1
    run = asyncio.run(_run([s], target, Broken()))
    assert run.results[0].status == "judge error"


async def _run(scenarios, target, judge):
    from pe_eval_core.scenarios import run_scenarios

    return await run_scenarios(scenarios, target, judge=judge, save_responses=False)
