"""The judge is asked only when its verdict could decide pass or fail.

A scenario that fails anyway (numeric range missed, excluded phrase present, enforced latency
budget exceeded) makes no judge call and reports ``fail`` with its candidate misses left
missed. A judge failure is ``judge error`` (never a pass) unless no verdict could have passed
the scenario (too few expectations a judge could accept to reach 0.8): then it is ``fail``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence

import pytest

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios import (
    JudgeOutcome,
    JudgeVerdict,
    RecordedJudge,
    RecordedTarget,
    TargetResponse,
    load_scenarios,
    run_scenarios_sync,
    score_response,
)
from pe_eval_core.scenarios.scoring.judge import JudgeBase, enforce_evidence
from pe_eval_core.scenarios.scoring.judge_step import JUDGE_MOOT, JUDGE_SKIPPED
from tests.helpers.scenario_helpers import DEMO, make_scenario


class SpyJudge(JudgeBase):
    """Counts calls; answers every phrase ``paraphrase`` (quoting it), or raises if ``fail``."""

    model = "spy-judge"
    prompt_version = "p1"

    def __init__(self, *, fail: bool = False):
        self.fail = fail
        self.calls = 0

    async def judge(
        self, scenario: str, response: str, expected: Sequence[str], *, context: object = None
    ) -> JudgeOutcome:
        self.calls += 1
        if self.fail:
            raise JudgeError("judge call failed: HTTP 529: overloaded")
        verdicts = [
            JudgeVerdict(
                expected=e,
                verdict="paraphrase",
                evidence=response[:20],
                model=self.model,
                prompt_version=self.prompt_version,
            )
            for e in expected
        ]
        return JudgeOutcome(verdicts=verdicts, model=self.model, prompt_version="p1", calls=1)


TEXT = "Quillstone Legal was charged twice: the duplicate was $214 on 2026-04-22."


def _skipped(result, *reasons: str) -> None:
    """Failed without a judge call; every candidate miss left missed with the reason noted."""
    assert result.status == "fail" and result.error is None and result.judge_calls == 0
    misses = [e for e in result.expectations if e.method is None]
    assert misses, "the case needs at least one candidate miss"
    for e in misses:
        assert not e.satisfied and e.note.startswith(JUDGE_SKIPPED)
        for reason in reasons:
            assert reason in e.note


@pytest.mark.parametrize("fail", [False, True])
def test_numeric_range_out_of_range_decides_without_the_judge(fail):
    judge = SpyJudge(fail=fail)
    s = make_scenario(
        response_contains=["Quillstone Legal", "double charge"],
        numeric_range={"field": "double_charge_amount", "min": 240, "max": 242},
    )
    r = score_response(s, TargetResponse(text=TEXT), judge)
    _skipped(r, "numeric range double_charge_amount out of range")
    assert judge.calls == 0 and r.numeric.nearest == 214


@pytest.mark.parametrize("fail", [False, True])
def test_excluded_phrase_decides_without_the_judge(fail):
    judge = SpyJudge(fail=fail)
    s = make_scenario(
        response_contains=["Quillstone Legal", "double charge"], response_excludes=["twice"]
    )
    r = score_response(s, TargetResponse(text=TEXT), judge)
    _skipped(r, 'excluded phrase present: "twice"')
    assert judge.calls == 0 and r.excluded_hits == ["twice"]


def test_a_judge_error_that_could_not_change_the_fail_is_a_fail():
    # 2 strict of 4; "$241" is stated nowhere (only $214), so no verdict could count it: at
    # best 3 of 4 = 75% < 80%. The judge is asked (for "refund owed"); its failure is moot.
    judge = SpyJudge(fail=True)
    s = make_scenario(
        response_contains=["Quillstone Legal", "charged twice", "$241", "refund owed"]
    )
    r = score_response(s, TargetResponse(text=TEXT), judge)
    assert judge.calls == 1
    assert r.status == "fail" and r.error is None
    for e in r.expectations[2:]:
        assert e.method is None and not e.satisfied
        assert e.note.startswith(JUDGE_MOOT) and "overloaded" in e.note
        assert "at most 3 of 4 expectations can be met" in e.note
    assert "the response states no $241" in r.expectations[2].note
    assert "states no" not in r.expectations[3].note


def test_a_working_judge_is_still_asked_and_recorded_when_the_bound_says_fail():
    judge = SpyJudge()
    s = make_scenario(
        response_contains=["Quillstone Legal", "charged twice", "$241", "refund owed to Acme"]
    )
    r = score_response(s, TargetResponse(text=TEXT), judge)
    assert judge.calls == 1 and r.status == "fail"
    # "$241" fails closed; the spy's quote (the response's first 20 chars) names no Acme
    assert [e.method for e in r.expectations[2:]] == [None, None]
    assert "does not carry the fact" in r.expectations[3].note


def test_enforced_latency_decides_without_the_judge():
    judge = SpyJudge(fail=True)
    s = make_scenario(
        response_contains=["Quillstone Legal", "refund owed to Acme"], max_latency_ms=100
    )
    r = score_response(s, TargetResponse(text=TEXT, latency_ms=250.0), judge, enforce_latency=True)
    _skipped(r, "latency over the enforced budget")
    assert judge.calls == 0


def test_undecided_judge_failure_is_a_judge_error_never_a_pass():
    # 4 of 5 strict (and "$214" is stated): a judge paraphrase could pass it, so it must ask.
    judge = SpyJudge(fail=True)
    s = make_scenario(
        response_contains=["Quillstone", "Legal", "charged", "twice", "refund owed to Acme"]
    )
    r = score_response(s, TargetResponse(text=TEXT), judge)
    assert judge.calls == 1 and r.status == "judge error" and "overloaded" in r.error


def test_undecided_with_one_unreachable_candidate_still_asks_the_judge():
    # 3 strict of 5, "$241" unreachable, "refund owed" reachable: at best 4/5 = 80%, undecided.
    judge = SpyJudge()
    s = make_scenario(
        response_contains=["Quillstone", "Legal", "charged twice", "$241", "refund owed to Acme"]
    )
    r = score_response(s, TargetResponse(text=TEXT), judge)
    assert judge.calls == 1
    # The judge said paraphrase to both; "$241" fails closed (no quote states it), and the
    # spy's quote (the response's first 20 chars) does not name Acme.
    assert [e.satisfied for e in r.expectations[3:]] == [False, False]
    assert r.status == "fail"


def test_missing_recorded_verdict_is_a_judge_error_when_undecided(tmp_path):
    path = tmp_path / "verdicts.json"
    data = {"label": "recorded (test)", "model": "m", "prompt_version": "v", "verdicts": []}
    path.write_text(json.dumps(data))
    s = make_scenario(response_contains=["Quillstone Legal", "refund owed"])
    r = score_response(s, TargetResponse(text=TEXT), RecordedJudge(path))
    assert r.status == "judge error" and "no recorded judge verdict" in r.error


def test_demo_with_a_changed_amount_fails_instead_of_judge_error(tmp_path):
    """The reproduction: 241 -> 214 in smoke-double-charge, recorded target and verdicts."""
    for name in ("mimic-scenarios.json", "judge-verdicts.json"):
        shutil.copy(DEMO / name, tmp_path / name)
    rows = json.loads((DEMO / "recorded-responses.json").read_text(encoding="utf-8"))
    for row in rows:
        if row["name"] == "smoke-double-charge":
            assert "241" in row["response"]
            row["response"] = row["response"].replace("241", "214")
    (tmp_path / "recorded-responses.json").write_text(json.dumps(rows), encoding="utf-8")
    run = run_scenarios_sync(
        load_scenarios(tmp_path / "mimic-scenarios.json"),
        RecordedTarget(tmp_path / "recorded-responses.json"),
        judge=RecordedJudge(tmp_path / "judge-verdicts.json"),
        save_responses=False,
    )
    r = next(r for r in run.results if r.name == "smoke-double-charge")
    _skipped(r, "numeric range double_charge_amount out of range")
    assert [e.text for e in r.candidate_misses] == ["$241"] and r.paraphrase_satisfied == 0
    # Every other scenario scores as in the golden demo (15 pass there, this one now fails).
    assert run.passed == 14 and run.failed == 4 and run.errors == 1


def test_a_quote_cut_out_of_a_longer_number_does_not_state_it():
    verdict = JudgeVerdict(
        expected="$124", verdict="paraphrase", evidence="124", model="m", prompt_version="v"
    )
    assert enforce_evidence(verdict, "Lost 12400 this week").verdict == "missed"
    kept = verdict.model_copy(update={"expected": "$12,400", "evidence": "12400"})
    assert enforce_evidence(kept, "Lost 12400 this week").verdict == "paraphrase"
