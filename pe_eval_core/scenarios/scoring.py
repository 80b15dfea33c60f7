"""Score one response against one scenario: strict, rules, judge, numeric, excludes, latency.

The pass rule is the seed's, exactly: (strict + paraphrase) / total >= 0.8 and every numeric
range satisfied; plus no excluded phrase present (and, with ``enforce_latency``, the latency
budget met). A scenario that asserts nothing is an error, not a pass; a judge that fails makes
the scenario ``judge error``, never a silent pass.
"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial
from typing import Any

from pe_eval_core.numbers import number_values
from pe_eval_core.scenarios.checks import (
    check_numeric,
    excluded_hits,
    latency_exceeded,
    meets_pass_ratio,
    strict_span,
)
from pe_eval_core.scenarios.errors import JudgeError
from pe_eval_core.scenarios.judge import Judge, enforce_evidence
from pe_eval_core.scenarios.models import (
    ExpectationResult,
    JudgeOutcome,
    Scenario,
    ScenarioResult,
    Status,
    TargetResponse,
    trusted,
)
from pe_eval_core.scenarios.paraphrase import ResponseView, rule_match

ASSERTS_NOTHING = (
    "scenario asserts nothing: no response_contains, response_excludes or numeric_range"
)


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
    base: dict[str, Any] = {
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
    }
    # Speed: results are built from validated inputs, so they skip re-validation (``trusted``)
    # whenever the caller's own arguments have the exact field types.
    expectation = partial(trusted, ExpectationResult)
    exact = (
        type(index) is int
        and type(enforce_latency) is bool
        and (latency is None or type(latency) is float)
    )
    result = partial(trusted, ScenarioResult) if exact else ScenarioResult
    if not expect.asserts_something():
        return result(status="error", error=ASSERTS_NOTHING, **base)
    if response.error is not None or response.text is None:
        return result(
            status="error",
            error=response.error or "the target returned no response",
            expectations=[expectation(text=t) for t in expect.response_contains],
            **base,
        )

    text = response.text
    lowered = text.lower()
    expectations: list[ExpectationResult] = []
    candidates: list[int] = []
    for i, wanted in enumerate(expect.response_contains):
        span = strict_span(text, wanted, lowered)
        if span is None:
            expectations.append(expectation(text=wanted))
            candidates.append(i)
        else:
            evidence = text[span[0] : span[1]] if span[1] else wanted
            expectations.append(
                expectation(text=wanted, method="strict", satisfied=True, evidence=evidence)
            )

    hits = excluded_hits(text, expect.response_excludes, lowered)

    judge_error: str | None = None
    outcome: JudgeOutcome | None = None
    view: ResponseView | None = None
    if candidates:
        view = ResponseView(text, None, lowered)  # number mentions read only if a rule needs them
        remaining = []
        for i in candidates:
            match = rule_match(expectations[i].text, view)
            if match is None:
                remaining.append(i)
            else:
                expectations[i] = expectation(
                    text=expectations[i].text,
                    method="rule",
                    satisfied=True,
                    evidence=match.evidence,
                    note=match.rule,
                )
        if remaining and judge is not None:
            asked = list(dict.fromkeys(expectations[i].text for i in remaining))
            try:
                outcome = await judge.judge(scenario.name, text, asked)
            except JudgeError as exc:
                judge_error = str(exc)
            else:
                by_text = {v.expected: enforce_evidence(v, text) for v in outcome.verdicts}
                for i in remaining:
                    v = by_text.get(expectations[i].text)
                    if v is None:
                        judge_error = f"judge returned no verdict for {expectations[i].text!r}"
                        continue
                    accepted = v.verdict == "paraphrase"
                    expectations[i] = ExpectationResult(
                        text=v.expected,
                        method="judge" if accepted else None,
                        satisfied=accepted,
                        evidence=v.evidence if accepted else "",
                        note="; ".join(filter(None, [v.reason, "cached verdict" * v.cached])),
                        judge_model=v.model,
                        judge_prompt_version=v.prompt_version,
                    )
        elif remaining:
            for i in remaining:
                expectations[i].note = "no judge (--no-judge): candidate miss left missed"

    # Every number in the response, for the numeric ranges and the result's record: reuse the
    # mentions a paraphrase rule already read, else read only the values (no mention objects).
    if view is not None and view.has_mentions:
        numbers = [m.value for m in view.mentions]
    else:
        numbers = number_values(text)
    numeric_checks = [check_numeric(numbers, rng) for rng in expect.numeric_ranges]

    satisfied = sum(1 for e in expectations if e.satisfied)
    passed = (
        meets_pass_ratio(satisfied, len(expectations))
        and all(c.satisfied for c in numeric_checks)
        and not hits
        and not (enforce_latency and over)
    )
    status: Status = "pass" if passed else "fail"
    if judge_error is not None:
        status = "judge error"
    return result(
        status=status,
        expectations=expectations,
        numeric_checks=numeric_checks,
        excluded_hits=hits,
        numbers=numbers,
        error=judge_error,
        judge_calls=outcome.calls if outcome else 0,
        judge_tokens_in=outcome.tokens_in if outcome else 0,
        judge_tokens_out=outcome.tokens_out if outcome else 0,
        **base,
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
