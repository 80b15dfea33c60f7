"""Score one response against one scenario: strict, rules, judge, numeric, excludes, latency.

The pass rule is the seed's, exactly: (strict + paraphrase) / total >= 0.8 and every numeric
range satisfied; plus no excluded phrase present (and, with ``enforce_latency``, the latency
budget met). A scenario that asserts nothing is an error, not a pass.

The judge is asked only when its verdict could decide pass or fail: a scenario that fails
anyway (a numeric range missed, an excluded phrase present, an enforced latency budget
exceeded) makes no judge call and fails with its candidate misses left missed. When the judge
is asked and fails, the scenario is ``judge error`` (never a silent pass) unless no verdict
could have passed it: too many misses to reach 0.8 even if every candidate a judge could
accept were a paraphrase (a candidate whose numbers the response states nowhere cannot be
accepted: the evidence check downgrades it). That scenario is a plain ``fail``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from pe_eval_core.errors import JudgeError
from pe_eval_core.numbers import iter_number_values
from pe_eval_core.scenarios.checks import (
    check_numeric,
    check_numeric_ranges,
    excluded_hits,
    failure_reasons,
    latency_exceeded,
    passes,
    strict_span,
    write_attempt_failure,
)
from pe_eval_core.scenarios.judge import Judge, enforce_evidence, numbers_never_stated
from pe_eval_core.scenarios.models import (
    ExpectationResult,
    JudgeOutcome,
    Method,
    NumericRange,
    NumericResult,
    Scenario,
    ScenarioResult,
    Status,
    TargetResponse,
)
from pe_eval_core.scenarios.paraphrase import ResponseView, rule_match

JUDGE_SKIPPED = "judge not called: the outcome is already decided"
"""Note on candidate misses left missed because the outcome was decided without the judge."""

JUDGE_MOOT = "judge error ignored: no verdict could make the scenario pass"
"""Note on candidate misses left missed when the judge failed but could not change the fail."""

NO_JUDGE = "no judge (--no-judge): candidate miss left missed"
"""Note on candidate misses left missed because no judge was given."""

ASSERTS_NOTHING = (
    "scenario asserts nothing: no response_contains, response_excludes or numeric_range"
)


# --- working records (internal: plain slots dataclasses, no validation) ---------------------


@dataclass(slots=True)
class _Expectation:
    """One ``response_contains`` entry while it is scored; becomes an ``ExpectationResult``."""

    text: str
    method: Method | None = None
    satisfied: bool = False
    evidence: str = ""
    note: str = ""
    judge_model: str | None = None
    judge_prompt_version: str | None = None

    def fields(self) -> dict[str, object]:
        """The ``ExpectationResult`` fields, for pydantic to validate inside the result."""
        return {
            "text": self.text,
            "method": self.method,
            "satisfied": self.satisfied,
            "evidence": self.evidence,
            "note": self.note,
            "judge_model": self.judge_model,
            "judge_prompt_version": self.judge_prompt_version,
        }

    def result(self) -> ExpectationResult:
        return ExpectationResult.model_validate(self.fields())


@dataclass(slots=True)
class _Numeric:
    """The numeric ranges' checks and the numbers read for them (None: not all were read)."""

    checks: list[NumericResult]
    numbers: list[float] | None


@dataclass(slots=True)
class _Judged:
    """What asking (or not asking) the judge produced."""

    outcome: JudgeOutcome | None = None
    error: str | None = None
    numbers: list[float] | None = None
    """Every number in the response, when the judge step had to read them all."""


@dataclass(frozen=True, slots=True)
class _Decision:
    """The facts the pass rule needs besides the expectation counts."""

    total: int
    numeric_checks: Sequence[NumericResult]
    hits: Sequence[str]
    latency_failed: bool

    def reasons(self, satisfied: int, reachable: int) -> list[str]:
        """Why the scenario fails even if ``reachable`` more expectations were met."""
        return failure_reasons(
            satisfied=satisfied,
            reachable=reachable,
            total=self.total,
            numeric_checks=self.numeric_checks,
            hits=self.hits,
            latency_failed=self.latency_failed,
        )

    def passes(self, satisfied: int) -> bool:
        return passes(
            satisfied=satisfied,
            total=self.total,
            numeric_checks=self.numeric_checks,
            hits=self.hits,
            latency_failed=self.latency_failed,
        )


# --- the checks, each returning data --------------------------------------------------------


def strict_check(expected: Sequence[str], text: str, lowered: str) -> list[_Expectation]:
    """The seed's strict pass (``checks.strict_span``) on every expectation."""
    out = []
    for wanted in expected:
        span = strict_span(text, wanted, lowered)
        if span is None:
            out.append(_Expectation(wanted))
        else:  # an empty span: lowercasing changed lengths, so the expected text stands in
            evidence = text[span[0] : span[1]] if span[1] > span[0] else wanted
            out.append(_Expectation(wanted, "strict", True, evidence))
    return out


def rule_check(found: list[_Expectation], view: ResponseView) -> list[int]:
    """The deterministic paraphrase rules on the strict misses; returns those still missed."""
    remaining = []
    for i, e in enumerate(found):
        if e.satisfied:
            continue
        match = rule_match(e.text, view)
        if match is None:
            remaining.append(i)
        else:
            found[i] = _Expectation(e.text, "rule", True, match.evidence, match.rule)
    return remaining


def numeric_check(text: str, ranges: Sequence[NumericRange], view: ResponseView | None) -> _Numeric:
    """The numeric ranges. Reuses the mentions a paraphrase rule already read; otherwise reads
    numbers only until every range has its first hit (the result reads the rest on demand)."""
    if view is not None and view.has_mentions:
        numbers = [m.value for m in view.mentions]
        return _Numeric([check_numeric(numbers, rng) for rng in ranges], numbers)
    checks, numbers_read = check_numeric_ranges(iter_number_values(text), ranges)
    return _Numeric(checks, numbers_read)


async def judge_on_misses(
    judge: Judge | None,
    scenario: str,
    view: ResponseView,
    found: list[_Expectation],
    remaining: list[int],
    decision: _Decision,
) -> _Judged:
    """Ask the judge about the remaining candidate misses, only if its verdict could decide."""
    if judge is None:
        for i in remaining:
            found[i].note = NO_JUDGE
        return _Judged()
    decided = decision.reasons(len(found) - len(remaining), reachable=len(remaining))
    if decided:
        note = f"{JUDGE_SKIPPED} ({'; '.join(decided)})"
        for i in remaining:
            found[i].note = note
        return _Judged()
    judged = await _ask_judge(judge, scenario, view.text, found, remaining)
    if judged.error is not None:
        _moot_judge_error(judged, view, found, remaining, decision)
    return judged


def _moot_judge_error(
    judged: _Judged,
    view: ResponseView,
    found: list[_Expectation],
    remaining: list[int],
    decision: _Decision,
) -> None:
    """Drop the judge error when no verdict could have passed the scenario anyway.

    A candidate whose numbers the response states nowhere cannot pass: the evidence check
    downgrades every paraphrase of it.
    """
    numbers = [m.value for m in view.mentions]
    judged.numbers = numbers
    unjudged = [i for i in remaining if found[i].judge_model is None]
    unstated = {
        i: missing for i in unjudged if (missing := numbers_never_stated(found[i].text, numbers))
    }
    met = sum(1 for e in found if e.satisfied)
    decided = decision.reasons(met, reachable=len(unjudged) - len(unstated))
    if not decided:
        return
    for i in unjudged:
        never = unstated.get(i)
        found[i].note = (
            f"{JUDGE_MOOT} ({'; '.join(decided)}"
            + (f"; the response states no {', '.join(never)}" if never else "")
            + f"): {judged.error}"
        )
    judged.error = None


async def _ask_judge(
    judge: Judge,
    scenario: str,
    text: str,
    found: list[_Expectation],
    remaining: list[int],
) -> _Judged:
    """One judge call for the remaining candidate misses; updates ``found`` in place."""
    asked = list(dict.fromkeys(found[i].text for i in remaining))
    try:
        outcome = await judge.judge(scenario, text, asked)
    except JudgeError as exc:
        return _Judged(error=str(exc))
    judged = _Judged(outcome=outcome)
    by_text = {v.expected: enforce_evidence(v, text) for v in outcome.verdicts}
    for i in remaining:
        v = by_text.get(found[i].text)
        if v is None:
            judged.error = f"judge returned no verdict for {found[i].text!r}"
            continue
        accepted = v.verdict == "paraphrase"
        found[i] = _Expectation(
            text=v.expected,
            method="judge" if accepted else None,
            satisfied=accepted,
            evidence=v.evidence if accepted else "",
            note="; ".join(filter(None, [v.reason, "cached verdict" * v.cached])),
            judge_model=v.model,
            judge_prompt_version=v.prompt_version,
        )
    return judged


# --- composed -------------------------------------------------------------------------------


def _base_fields(
    scenario: Scenario,
    response: TargetResponse,
    latency: float | None,
    over: bool,
    enforce_latency: bool,
    index: int,
) -> dict[str, object]:
    expect = scenario.expect
    return {
        "index": index,
        "name": scenario.name,
        "tier": scenario.tier,
        "platform": scenario.metadata.platform,
        "source_fact": scenario.metadata.source_fact,
        "excludes": list(expect.response_excludes),
        "latency_ms": latency,
        "max_latency_ms": expect.max_latency_ms,
        "latency_warning": over,
        "latency_enforced": enforce_latency,
        "response": response.text,
        "tokens_in": response.tokens_in,
        "tokens_out": response.tokens_out,
        "tool_calls": list(response.tool_calls),
        "trace": response.trace,
    }


def _expected_tools(expect: object) -> list[str]:
    """``expect.tools_called`` as tool names (a field or an extra key; strings only)."""
    named = getattr(expect, "tools_called", None)
    if named is None:
        named = (getattr(expect, "model_extra", None) or {}).get("tools_called")
    return [t for t in named or [] if isinstance(t, str)]


async def ascore_response(
    scenario: Scenario,
    response: TargetResponse,
    judge: Judge | None = None,
    *,
    enforce_latency: bool = False,
    index: int = 0,
    latency_ms: float | None = None,
) -> ScenarioResult:
    """Score ``response`` for ``scenario``; ``latency_ms`` overrides ``response.latency_ms``."""
    expect = scenario.expect
    latency = latency_ms if latency_ms is not None else response.latency_ms
    over = latency_exceeded(latency, expect.max_latency_ms)
    base = _base_fields(scenario, response, latency, over, enforce_latency, index)
    if not expect.asserts_something():
        return ScenarioResult.model_validate({**base, "status": "error", "error": ASSERTS_NOTHING})
    if response.error is not None or response.text is None:
        return ScenarioResult.model_validate(
            {
                **base,
                "status": "error",
                "error": response.error or "the target returned no response",
                "expectations": [ExpectationResult(text=t) for t in expect.response_contains],
            }
        )

    text = response.text
    lowered = text.lower()
    found = strict_check(expect.response_contains, text, lowered)
    hits = excluded_hits(text, expect.response_excludes, lowered)
    view: ResponseView | None = None
    remaining: list[int] = []
    if len(found) > sum(1 for e in found if e.satisfied):
        view = ResponseView(text, None, lowered)  # number mentions read only if a rule needs them
        remaining = rule_check(found, view)
    numeric = numeric_check(text, expect.numeric_ranges, view)
    decision = _Decision(len(found), numeric.checks, hits, enforce_latency and over)
    judged = _Judged()
    if remaining:
        assert view is not None  # remaining candidates went through the rules
        judged = await judge_on_misses(judge, scenario.name, view, found, remaining, decision)

    status: Status = "pass" if decision.passes(sum(1 for e in found if e.satisfied)) else "fail"
    if judged.error is not None:
        status = "judge error"
    write_failure = write_attempt_failure(response.trace, _expected_tools(expect))
    if write_failure is not None and status == "pass":
        status = "fail"
    outcome = judged.outcome
    return ScenarioResult.model_validate(
        {
            **base,
            "status": status,
            "expectations": [e.fields() for e in found],  # validated in one call, below
            "numeric_checks": numeric.checks,
            "excluded_hits": hits,
            "numbers": judged.numbers if judged.numbers is not None else numeric.numbers,
            "error": judged.error,
            "write_failure": write_failure,
            "judge_calls": outcome.calls if outcome else 0,
            "judge_tokens_in": outcome.tokens_in if outcome else 0,
            "judge_tokens_out": outcome.tokens_out if outcome else 0,
        }
    )


def score_response(
    scenario: Scenario,
    response: TargetResponse,
    judge: Judge | None = None,
    *,
    enforce_latency: bool = False,
    index: int = 0,
) -> ScenarioResult:
    """Synchronous ``ascore_response`` (opens the judge's client, if any, for this one call).

    >>> from pe_eval_core.scenarios.models import Expect
    >>> s = Scenario(name="leak", input="?", expect=Expect(
    ...     response_contains=["$4,820", "VP Engineering", "five causes", "double charge", "x"],
    ...     numeric_range={"field": "mrr_lost", "min": 4800, "max": 4840}))
    >>> text = "Lost $4,820 across five causes incl. a double charge; tell the VP of Engineering."
    >>> r = score_response(s, TargetResponse(text=text))
    >>> r.status, [e.method for e in r.expectations], r.numeric.satisfied
    ('pass', ['strict', 'rule', 'strict', 'strict', None], True)
    """

    async def _run() -> ScenarioResult:
        async with contextlib.AsyncExitStack() as stack:
            if judge is not None and hasattr(judge, "__aenter__"):
                await stack.enter_async_context(judge)  # type: ignore[arg-type]
            return await ascore_response(
                scenario, response, judge, enforce_latency=enforce_latency, index=index
            )

    return asyncio.run(_run())
