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
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from pe_eval_core.errors import JudgeError
from pe_eval_core.numbers import iter_number_values
from pe_eval_core.scenarios.checks import (
    check_numeric,
    check_numeric_ranges,
    excluded_hits,
    latency_exceeded,
    meets_pass_ratio,
)
from pe_eval_core.scenarios.judge import Judge, enforce_evidence, numbers_never_stated
from pe_eval_core.scenarios.models import (
    ExpectationResult,
    JudgeOutcome,
    NumericResult,
    Scenario,
    ScenarioResult,
    Status,
    TargetResponse,
    trusted,
)
from pe_eval_core.scenarios.paraphrase import ResponseView, rule_match

JUDGE_SKIPPED = "judge not called: the outcome is already decided"
"""Note on candidate misses left missed because the outcome was decided without the judge."""

JUDGE_MOOT = "judge error ignored: no verdict could make the scenario pass"
"""Note on candidate misses left missed when the judge failed but could not change the fail."""

ASSERTS_NOTHING = (
    "scenario asserts nothing: no response_contains, response_excludes or numeric_range"
)


def _expectation_builder(
    fixed: dict[str, Any], given: tuple[str, ...]
) -> Callable[..., ExpectationResult]:
    """A constructor for the scorer's two common ``ExpectationResult`` shapes (a strict hit, a
    candidate miss): ``trusted(ExpectationResult, **fixed, **dict(zip(given, args)))``
    without the keyword handling, as it runs for every expectation of every response.
    """
    template = {**trusted(ExpectationResult, text="", **fixed).__dict__}
    fields_set = frozenset({"text", *fixed, *given})
    new, setattr_ = object.__new__, object.__setattr__

    def build(*args: str) -> ExpectationResult:
        data = template.copy()
        data.update(zip(given, args, strict=True))
        obj = new(ExpectationResult)
        setattr_(obj, "__dict__", data)
        setattr_(obj, "__pydantic_fields_set__", set(fields_set))
        setattr_(obj, "__pydantic_extra__", None)
        setattr_(obj, "__pydantic_private__", None)
        return obj

    return build


_strict_hit = _expectation_builder({"method": "strict", "satisfied": True}, ("text", "evidence"))
"""``_strict_hit(text, evidence)``: an expectation the strict check satisfied."""
_candidate = _expectation_builder({}, ("text",))
"""``_candidate(text)``: an expectation the strict check missed (a paraphrase candidate)."""


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
            expectations=[trusted(ExpectationResult, text=t) for t in expect.response_contains],
            **base,
        )

    text = response.text
    lowered = text.lower()
    same_length = len(lowered) == len(text)
    expectations: list[ExpectationResult] = []
    candidates: list[int] = []
    for i, wanted in enumerate(expect.response_contains):
        # The strict check (``checks.strict_span``), inlined: it runs for every expectation.
        needle = wanted.lower()
        at = lowered.find(needle)
        if at < 0:
            expectations.append(_candidate(wanted))
            candidates.append(i)
        else:
            evidence = text[at : at + len(needle)] if same_length else wanted
            expectations.append(_strict_hit(wanted, evidence))

    hits = (
        excluded_hits(text, expect.response_excludes, lowered) if expect.response_excludes else []
    )

    view: ResponseView | None = None
    remaining: list[int] = []
    if candidates:
        view = ResponseView(text, None, lowered)  # number mentions read only if a rule needs them
        for i in candidates:
            match = rule_match(expectations[i].text, view)
            if match is None:
                remaining.append(i)
            else:
                expectations[i] = trusted(
                    ExpectationResult,
                    text=expectations[i].text,
                    method="rule",
                    satisfied=True,
                    evidence=match.evidence,
                    note=match.rule,
                )

    # The numeric ranges: reuse the mentions a paraphrase rule already read; otherwise read
    # numbers only until every range has its first hit (the result reads the rest on demand).
    numbers: list[float] | None
    if view is not None and view.has_mentions:
        numbers = [m.value for m in view.mentions]
        numeric_checks = [check_numeric(numbers, rng) for rng in expect.numeric_ranges]
    elif len(expect.numeric_ranges) == 1:  # the usual case, without the general loop
        rng = expect.numeric_ranges[0]
        lo, hi = rng.min, rng.max
        numbers = None
        seen: list[float] = []
        for value in iter_number_values(text):
            if lo <= value <= hi:
                hit = trusted(
                    NumericResult, field=rng.field, min=lo, max=hi, satisfied=True, matched=value
                )
                numeric_checks = [hit]
                break
            seen.append(value)
        else:  # no number in range: every number was read, the nearest one is reported
            numbers = seen
            numeric_checks = [check_numeric(seen, rng)]
    else:
        numeric_checks, numbers = check_numeric_ranges(
            iter_number_values(text), expect.numeric_ranges
        )

    judge_error: str | None = None
    outcome: JudgeOutcome | None = None
    if remaining and judge is None:
        for i in remaining:
            expectations[i].note = "no judge (--no-judge): candidate miss left missed"
    elif remaining and judge is not None:
        assert view is not None  # remaining candidates went through the rules
        decide = partial(
            decided_failure,
            satisfied=len(expectations) - len(remaining),
            total=len(expectations),
            numeric_checks=numeric_checks,
            hits=hits,
            latency_failed=enforce_latency and over,
        )
        decided = decide(reachable=len(remaining))
        if decided:
            note = f"{JUDGE_SKIPPED} ({'; '.join(decided)})"
            for i in remaining:
                expectations[i].note = note
        else:
            outcome, judge_error = await _ask_judge(
                judge, scenario.name, text, expectations, remaining
            )
        if judge_error is not None:
            # Could any verdict still have made it pass? A candidate whose numbers the response
            # states nowhere cannot: the evidence check downgrades every paraphrase of it.
            numbers = [m.value for m in view.mentions]
            unjudged = [i for i in remaining if expectations[i].judge_model is None]
            unstated = {
                i: missing
                for i in unjudged
                if (missing := numbers_never_stated(expectations[i].text, numbers))
            }
            met = sum(1 for e in expectations if e.satisfied)
            decided = decide(satisfied=met, reachable=len(unjudged) - len(unstated))
            if decided:
                for i in unjudged:
                    never = unstated.get(i)
                    expectations[i].note = (
                        f"{JUDGE_MOOT} ({'; '.join(decided)}"
                        + (f"; the response states no {', '.join(never)}" if never else "")
                        + f"): {judge_error}"
                    )
                judge_error = None

    satisfied = (
        sum(1 for e in expectations if e.satisfied)
        if outcome
        else len(expectations) - len(remaining)
    )
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
        numbers_read=numbers,
        error=judge_error,
        judge_calls=outcome.calls if outcome else 0,
        judge_tokens_in=outcome.tokens_in if outcome else 0,
        judge_tokens_out=outcome.tokens_out if outcome else 0,
        **base,
    )


def decided_failure(
    *,
    satisfied: int,
    reachable: int,
    total: int,
    numeric_checks: Sequence[NumericResult],
    hits: Sequence[str],
    latency_failed: bool,
) -> list[str]:
    """Why the scenario fails whatever a judge says about its candidate misses (empty: it may
    pass, so the judge decides).

    ``satisfied`` counts the expectations met by strict and rule matches; ``reachable`` the
    candidate misses a judge could still accept, so at best ``satisfied + reachable`` are met.

    >>> decided_failure(satisfied=2, reachable=1, total=4, numeric_checks=[],
    ...                 hits=["refund issued"], latency_failed=False)
    ['excluded phrase present: "refund issued"', 'at most 3 of 4 expectations can be met (< 80%)']
    >>> decided_failure(satisfied=3, reachable=2, total=5, numeric_checks=[], hits=[],
    ...                 latency_failed=False)
    []
    """
    reasons = [
        f"numeric range {c.field or 'value'} out of range"
        for c in numeric_checks
        if not c.satisfied
    ]
    if hits:
        reasons.append("excluded phrase present: " + ", ".join(f'"{h}"' for h in hits))
    best = satisfied + reachable
    if not meets_pass_ratio(best, total):
        reasons.append(f"at most {best} of {total} expectations can be met (< 80%)")
    if latency_failed:
        reasons.append("latency over the enforced budget")
    return reasons


async def _ask_judge(
    judge: Judge,
    scenario: str,
    text: str,
    expectations: list[ExpectationResult],
    remaining: list[int],
) -> tuple[JudgeOutcome | None, str | None]:
    """One judge call for the remaining candidate misses; updates ``expectations`` in place.

    Returns the outcome (None if the call failed) and the judge error, if any.
    """
    asked = list(dict.fromkeys(expectations[i].text for i in remaining))
    try:
        outcome = await judge.judge(scenario, text, asked)
    except JudgeError as exc:
        return None, str(exc)
    judge_error = None
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
    return outcome, judge_error


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
