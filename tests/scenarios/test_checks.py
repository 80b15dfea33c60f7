"""Scoring: numbers, the seed's pass rule, excludes, latency, methods, judge errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios import JudgeOutcome, JudgeVerdict, TargetResponse, score_response
from pe_eval_core.scenarios.scoring.judge import JudgeBase
from pe_eval_core.scenarios.scoring.score import ASSERTS_NOTHING
from tests.helpers.scenario_helpers import make_scenario


def resp(text: str | None, **kw) -> TargetResponse:
    return TargetResponse(text=text, **kw)


# The seed's regex reads 12400 as 124 and 00, drops the sign of -$4,820 and reads dates as
# negative numbers. Each case: response text, a range that must be satisfied, one that must not.
NUMBER_CASES = [
    ("Loss: 12400 this week", (12400, 12400), (124, 124)),
    ("Loss: 12,400 this week", (12400, 12400), (400, 400)),
    ("Loss: £12.4k this week", (12400, 12400), (12.4, 12.4)),
    ("Pipeline: $1.2M", (1_200_000, 1_200_000), (1.2, 1.2)),
    # a written sign satisfies a non-negative range by magnitude (range_reader rule 2) ...
    ("Net: (1,200) after refunds", (1200, 1200), (12, 12)),
    ("MRR lost: -$4,820", (4820, 4820), (48.2, 48.2)),
    # ... but not on a signed field ("change"), below
    ("MRR change: -$4,820", (-4820, -4820), (4482, 4482)),
    ("Churn rate 4.8%", (4.8, 4.8), (48, 48)),
]


@pytest.mark.parametrize(("text", "inside", "outside"), NUMBER_CASES)
def test_numeric_range_reads_numbers_correctly(text, inside, outside):
    ok = make_scenario(numeric_range={"field": "v", "min": inside[0], "max": inside[1]})
    bad = make_scenario(numeric_range={"field": "v", "min": outside[0], "max": outside[1]})
    assert score_response(ok, resp(text)).numeric.satisfied
    assert not score_response(bad, resp(text)).numeric.satisfied


def test_dates_yield_no_numbers():
    s = make_scenario(numeric_range={"field": "v", "min": -10_000, "max": 10_000})
    r = score_response(s, resp("Analysed on 2026-04-29."))
    assert r.numbers == [] and not r.numeric.satisfied and r.numeric.nearest is None
    assert r.status == "fail"


def test_numeric_range_is_inclusive_and_never_judged():
    s = make_scenario(numeric_range={"field": "total", "min": 4800, "max": 4840})
    assert score_response(s, resp("total $4,800")).status == "pass"
    assert score_response(s, resp("total $4,840")).status == "pass"
    judge = CountingJudge(verdict="paraphrase")
    r = score_response(s, resp("total $4,841"), judge)
    assert r.status == "fail" and r.numeric.nearest == 4841 and judge.calls == 0


def test_pass_rule_at_exactly_point_eight():
    five = make_scenario(response_contains=["alpha", "beta", "gamma", "delta", "epsilon"])
    assert score_response(five, resp("alpha beta gamma delta")).status == "pass"  # 4/5 = 0.8
    four = make_scenario(response_contains=["alpha", "beta", "gamma", "delta"])
    assert score_response(four, resp("alpha beta gamma")).status == "fail"  # 3/4 = 0.75


def test_numeric_failure_fails_even_with_all_substrings():
    s = make_scenario(
        response_contains=["failed charges"], numeric_range={"field": "t", "min": 4800, "max": 4840}
    )
    r = score_response(s, resp("Failed charges cost $4,280"))
    assert (r.status, r.strict_satisfied, r.numeric.satisfied) == ("fail", 1, False)


def test_excluded_phrase_fails_case_insensitively():
    s = make_scenario(response_contains=["refund"], response_excludes=["refund issued"])
    r = score_response(s, resp("REFUND ISSUED for the duplicate charge"))
    assert r.status == "fail" and r.excluded_hits == ["refund issued"]
    assert score_response(s, resp("Recommend a refund, to be executed")).status == "pass"
    # a hit a negation governs is not an assertion: it needs a judge (none: missed)
    negated = score_response(s, resp("We do not recommend a refund"))
    assert negated.status == "fail" and "negated" in negated.expectations[0].note
    # a cue after the hit, in an aside, does not govern it
    assert score_response(s, resp("Recommend a refund (not executed)")).status == "pass"


def test_latency_is_a_warning_unless_enforced():
    s = make_scenario(response_contains=["ok"], max_latency_ms=1000)
    slow = resp("ok", latency_ms=1500)
    warned = score_response(s, slow)
    assert (warned.status, warned.latency_warning) == ("pass", True)
    enforced = score_response(s, slow, enforce_latency=True)
    assert (enforced.status, enforced.latency_warning) == ("fail", True)
    on_budget = score_response(s, resp("ok", latency_ms=1000), enforce_latency=True)
    assert (on_budget.status, on_budget.latency_warning) == ("pass", False)


def test_a_scenario_that_asserts_nothing_is_an_error():
    r = score_response(make_scenario(max_latency_ms=5), resp("anything"))
    assert (r.status, r.error) == ("error", ASSERTS_NOTHING)


def test_target_error_is_a_scenario_error_with_unsatisfied_expectations():
    s = make_scenario(response_contains=["a", "b"])
    r = score_response(s, TargetResponse(error="HTTP 502 from agent: upstream timeout"))
    assert r.status == "error" and "502" in r.error
    assert [e.satisfied for e in r.expectations] == [False, False]


def test_methods_are_recorded_strict_rule_judge():
    s = make_scenario(
        response_contains=["$4,820", "£240k", "VP Engineering", "expired card", "Globex"]
    )
    text = "Lost $4,820; £240,000 at risk; ask the VP of Engineering. 4 cards had expired."
    judge = CountingJudge(verdict="paraphrase", evidence="4 cards had expired")
    r = score_response(s, resp(text), judge)
    assert [(e.method, e.satisfied) for e in r.expectations] == [
        ("strict", True),
        ("rule", True),
        ("rule", True),
        ("judge", True),
        (None, False),  # the judge said paraphrase, but the quote does not name Globex
    ]
    assert judge.calls == 1 and judge.asked == [["expired card", "Globex"]]  # one call, both misses
    assert "does not carry the fact" in r.expectations[4].note
    assert r.expectations[1].note == "number format"
    assert r.expectations[2].note == "function words"
    assert r.expectations[3].judge_model == "fake-judge"
    assert r.paraphrase_satisfied == 3 and r.status == "pass"  # 4 of 5 met


def test_fabricated_evidence_fails_closed_whatever_the_judge():
    s = make_scenario(response_contains=["alpha", "beta", "gamma", "delta", "usage drop"])
    judge = CountingJudge(verdict="paraphrase", evidence="usage dropped sharply")  # not in text
    r = score_response(s, resp("alpha beta gamma"), judge)
    assert [e.satisfied for e in r.expectations[3:]] == [False, False]
    assert "failed closed" in r.expectations[4].note
    assert r.status == "fail"


def test_no_judge_leaves_candidate_misses_missed():
    s = make_scenario(response_contains=["alpha", "expired card"])
    r = score_response(s, resp("alpha; 4 cards had expired"))
    assert r.expectations[1].method is None and "no judge" in r.expectations[1].note
    assert r.status == "fail"


def test_judge_error_is_never_a_pass():
    s = make_scenario(response_contains=["a1", "b2", "c3", "d4", "e5"])
    r = score_response(s, resp("a1 b2 c3 d4"), FailingJudge())  # 4/5 would pass without the judge
    assert r.status == "judge error" and "overloaded" in r.error


def test_judge_skipped_when_strict_and_rules_cover_everything():
    s = make_scenario(response_contains=["a1", "VP Engineering"])
    judge = CountingJudge(verdict="missed")
    assert score_response(s, resp("a1, VP of Engineering"), judge).status == "pass"
    assert judge.calls == 0


class CountingJudge(JudgeBase):
    model = "fake-judge"
    prompt_version = "p1"

    def __init__(self, verdict: str, evidence: str = ""):
        self.verdict, self.evidence = verdict, evidence
        self.calls = 0
        self.asked: list[list[str]] = []

    async def judge(
        self, scenario: str, response: str, expected: Sequence[str], *, context: object = None
    ) -> JudgeOutcome:
        self.calls += 1
        self.asked.append(list(expected))
        verdicts = [
            JudgeVerdict(
                expected=e,
                verdict=self.verdict,
                evidence=self.evidence or e,
                model=self.model,
                prompt_version=self.prompt_version,
            )
            for e in expected
        ]
        return JudgeOutcome(verdicts=verdicts, model=self.model, prompt_version="p1", calls=1)


class FailingJudge(CountingJudge):
    def __init__(self):
        super().__init__("missed")

    async def judge(self, scenario, response, expected, *, context=None):
        raise JudgeError("judge call failed: HTTP 529: overloaded")
