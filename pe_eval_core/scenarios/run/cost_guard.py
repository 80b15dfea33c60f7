"""The cost guard: the paid calls a run will make, counted before it starts.

Target: one call per scenario run against a live target. Judge (a live one only): against a
live target the responses are unknown, so an upper bound (one call per scenario run with an
expected or excluded phrase or a judge-decided check); against a recorded target the responses
are known, so each one's judge questions are read by the scorer's own rule
(:func:`~pe_eval_core.scenarios.scoring.score.judge_questions`, no judge is called) and a call
is counted where the judge says it would pay for one (``Judge.needs_paid_call``: its cache does
not hold every verdict). A repeat of a recorded answer asks nothing new. More than
:data:`LIVE_CONFIRM_THRESHOLD` paid calls need confirming.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from pe_eval_core.errors import LiveRunNotConfirmedError
from pe_eval_core.scenarios.agent.protocol import Target
from pe_eval_core.scenarios.models import Scenario
from pe_eval_core.scenarios.options import RunOptions, run_options
from pe_eval_core.scenarios.run.costs import (
    PaidCalls,
    approx_tokens,
    estimate_run_cost,
    is_local_agent,
    judge_call_upper_bound,
    judge_cost_usd,
)
from pe_eval_core.scenarios.scoring.judge import Judge
from pe_eval_core.scenarios.scoring.score import judge_questions

T = TypeVar("T")

LIVE_CONFIRM_THRESHOLD = 20
"""The seed's cost rule: more paid calls than this (target or judge) need confirmation."""


async def count_paid_calls(
    scenarios: Sequence[Scenario],
    target: Target,
    judge: Judge | None,
    *,
    options: RunOptions | None = None,
    repeat: int | None = None,
) -> PaidCalls:
    """The paid calls a run with ``options`` would make (the cost guard's count, printed
    before a paid run; ``repeat`` overrides the options'), and their estimated cost (batched
    calls at half price with ``options.batch``)."""
    opts = run_options(options, repeat=repeat)
    repeat, enforce_latency = opts.repeat, opts.enforce_latency
    target_calls = len(scenarios) * repeat if target.live else 0
    judge_calls, measured = 0, False
    if judge is not None and judge.live:
        if target.live:
            expects = [(len(s.expect.response_contains), judged_checks(s)) for s in scenarios]
            judge_calls = judge_call_upper_bound(expects, repeat)
        else:
            judge_calls = await _recorded_judge_calls(scenarios, target, judge, enforce_latency)
            measured = True
    target_usd = (
        estimate_run_cost(
            target.model,
            scenarios=target_calls,
            prefix_tokens=approx_tokens(target.system_prompt),
            batch=opts.batch and target.batchable,
        ).usd
        if target_calls
        else 0.0
    )
    judge_usd = (
        judge_cost_usd(judge.model, judge_calls, batch=opts.batch and judge.batchable)
        if judge is not None and judge_calls
        else 0.0
    )
    usd = None if target_usd is None or judge_usd is None else round(target_usd + judge_usd, 4)
    local = bool(target_calls) and is_local_agent(target.label)
    return PaidCalls(target_calls, judge_calls, measured, usd, local_target=local)


async def _recorded_judge_calls(
    scenarios: Sequence[Scenario], target: Target, judge: Judge, enforce_latency: bool
) -> int:
    """The judge calls a non-live target's known responses need: one per scenario whose
    judge questions the judge cannot answer without paying."""
    calls = 0
    for scenario in scenarios:
        response = await target.respond(scenario)
        asked = judge_questions(scenario, response, enforce_latency=enforce_latency)
        if asked and judge.needs_paid_call(response.text or "", asked):
            calls += 1
    return calls


def judged_checks(scenario: Scenario) -> int:
    """What of a scenario the judge may be asked about besides its expected phrases: the
    excluded phrases and the judge-decided behaviour checks (``no_hallucination`` defers to
    the judge when the trace cannot decide it)."""
    e = scenario.expect
    checks = bool(e.response_accurate) + bool(e.no_hallucination) + len(e.custom or {})
    return len(e.response_excludes) + checks


def check_confirmed(paid: PaidCalls) -> None:
    """Refuse an unconfirmed run of more than ``LIVE_CONFIRM_THRESHOLD`` paid calls."""
    if paid.total > LIVE_CONFIRM_THRESHOLD:
        raise LiveRunNotConfirmedError(
            f"{paid.line()}: {paid.total} paid calls (more than {LIVE_CONFIRM_THRESHOLD}) "
            "were not confirmed"
        )


def count_paid_calls_sync(
    scenarios: Sequence[Scenario],
    target: Target,
    judge: Judge | None,
    *,
    options: RunOptions | None = None,
    repeat: int | None = None,
) -> PaidCalls:
    """:func:`count_paid_calls` for synchronous callers (the CLI, the dashboard)."""
    return run_sync(
        lambda: count_paid_calls(scenarios, target, judge, options=options, repeat=repeat)
    )


def run_sync(coro_factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine on a fresh event loop; if this thread already runs one, on a helper
    thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
