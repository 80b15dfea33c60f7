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
from dataclasses import dataclass

from pe_eval_core.limits import scoring_work_text
from pe_eval_core.scenarios.models import (
    ExpectationResult,
    Scenario,
    ScenarioResult,
    Status,
    TargetResponse,
)
from pe_eval_core.scenarios.scoring.behaviour import behaviour_checks
from pe_eval_core.scenarios.scoring.checks import latency_exceeded, write_fields
from pe_eval_core.scenarios.scoring.judge import Judge
from pe_eval_core.scenarios.scoring.judge_step import judge_on_misses, judge_route
from pe_eval_core.scenarios.scoring.paraphrase import ResponseView
from pe_eval_core.scenarios.scoring.steps import (
    Decision,
    Expectation,
    Judged,
    as_shown_text,
    excluded_check,
    numeric_check,
    rule_check,
    strict_check,
)
from pe_eval_core.scenarios.trace import ToolTrace, trace_from_tool_calls

ASSERTS_NOTHING = (
    "scenario asserts nothing: no response_contains, response_excludes, numeric_range or "
    "behaviour check"
)


def _too_much_work(scenario: Scenario, text: str) -> str | None:
    """Why scoring ``text`` is refused before any work (phrases x characters over the
    limit), or None: bounded time, decided before the checks run."""
    expect = scenario.expect
    return scoring_work_text(
        len(expect.response_contains) + len(expect.response_excludes), len(text)
    )


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


def _expected_tools(scenario: Scenario) -> list[str]:
    """The tools whose call fails no read-only rule: ``expect.tools_called`` and the tools
    the scenario allows by exact name (``metadata.allow_tools``), bare or ``server/tool``."""
    return [t.name for t in scenario.expect.tools_called] + list(scenario.metadata.allowed_tools())


def _trace(response: TargetResponse) -> ToolTrace | None:
    """The tool trace to check behaviour on: the target's, else its reported tool calls."""
    if response.trace is not None:
        return response.trace
    return trace_from_tool_calls(response.tool_calls) if response.tool_calls else None


@dataclass(slots=True)
class _Checked:
    """A response after the deterministic checks, before the judge."""

    found: list[Expectation]
    remaining: list[int]
    """Indexes into ``found`` still missed after the strict check and the rules."""
    pending: list[str]
    """Excluded phrases hit only in negated sentences (the judge decides them)."""
    decision: Decision
    view: ResponseView

    @property
    def needs_judge(self) -> bool:
        """Anything left that only the judge could decide."""
        return bool(self.remaining or self.pending or self.decision.claims)


def _checks(
    scenario: Scenario, response: TargetResponse, *, judged: bool, latency_failed: bool
) -> _Checked:
    """Strict, rules, numeric ranges, excluded phrases, behaviour: everything but the judge."""
    expect = scenario.expect
    text = response.text or ""
    shown = as_shown_text(text)  # once: the phrase and range checks read it on a miss
    found = strict_check(expect.response_contains, text, shown)
    hits, pending = excluded_check(text, expect.response_excludes, judged, shown)
    view = ResponseView(text, None, text.lower())  # mentions read only if a rule needs them
    remaining = rule_check(found, view) if any(not e.satisfied for e in found) else []
    numeric = numeric_check(text, expect.numeric_ranges, shown)
    behaviour = (
        behaviour_checks(scenario, text, _trace(response)) if expect.behaviour_checks() else []
    )
    decision = Decision(len(found), numeric, hits, latency_failed, behaviour=behaviour)
    return _Checked(found, remaining, pending, decision, view)


def judge_questions(
    scenario: Scenario,
    response: TargetResponse,
    *,
    enforce_latency: bool = False,
    latency_ms: float | None = None,
) -> list[str]:
    """What scoring ``response`` would ask a judge ([]: nothing): the checks and the judge's
    route of :func:`ascore_response`, with no judge called (the cost guard's count).

    >>> from pe_eval_core.scenarios.models import Expect
    >>> s = Scenario(name="x", input="?", expect=Expect(response_contains=["$4,820", "VP Eng"]))
    >>> judge_questions(s, TargetResponse(text="Lost $4,820; ask the vice president."))
    ['VP Eng']
    >>> r = Scenario(name="y", input="?", expect=Expect(response_contains=["VP Eng"],
    ...              numeric_range={"field": "mrr", "min": 4800, "max": 4840}))
    >>> judge_questions(r, TargetResponse(text="ask the vice president"))  # fails anyway: no number
    []
    """
    expect = scenario.expect
    if not expect.asserts_something() or response.error is not None or response.text is None:
        return []
    latency = latency_ms if latency_ms is not None else response.latency_ms
    if _too_much_work(scenario, response.text) is not None:
        return []
    over = enforce_latency and latency_exceeded(latency, expect.max_latency_ms)
    checked = _checks(scenario, response, judged=True, latency_failed=over)
    if not checked.needs_judge:
        return []
    route = judge_route(
        checked.view.text, checked.found, checked.remaining, checked.decision, checked.pending
    )
    return route.asked


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
    too_much = _too_much_work(scenario, response.text)
    if too_much is not None:
        return ScenarioResult.model_validate({**base, "status": "error", "error": too_much})

    checked = _checks(
        scenario, response, judged=judge is not None, latency_failed=enforce_latency and over
    )
    found, decision = checked.found, checked.decision
    judged = Judged()
    if checked.needs_judge:
        judged = await judge_on_misses(
            judge, scenario, checked.view, found, checked.remaining, decision, checked.pending
        )

    status: Status = "pass" if decision.passes(sum(1 for e in found if e.satisfied)) else "fail"
    if judged.error is not None:
        status = "judge error"
    writes = write_fields(_trace(response), _expected_tools(scenario))
    if writes["write_failure"] is not None and status == "pass":
        status = "fail"
    outcome = judged.outcome
    return ScenarioResult.model_validate(
        {
            **base,
            "status": status,
            "expectations": [e.fields() for e in found],  # validated in one call, below
            "numeric_checks": decision.numeric_checks,
            "excluded_hits": decision.hits,
            "notes": [*scenario.load_notes, *decision.notes],
            "behaviour": [b.fields() for b in decision.behaviour],
            "numbers": judged.numbers,
            "error": judged.error,
            **writes,
            "judge_calls": outcome.calls if outcome else 0,
            "judge_tokens_in": outcome.tokens_in if outcome else 0,
            "judge_tokens_out": outcome.tokens_out if outcome else 0,
            "judge_verdicts": outcome.verdicts if outcome else [],
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
            if judge is not None:
                await stack.enter_async_context(judge)
            return await ascore_response(
                scenario, response, judge, enforce_latency=enforce_latency, index=index
            )

    return asyncio.run(_run())
