"""Run scenarios against a target: a bounded asyncio pool, scoring as results arrive.

``concurrency`` workers pull the next scenario as soon as they finish the last one (the
seed's "batches of 3" without the batch barrier), so at most ``concurrency`` target or judge
calls are ever in flight. Each scenario's latency is measured around its own call; a target
failure becomes that scenario's ``error`` and the rest continue. A cancel signal stops new
scenarios and cancels the ones in flight; the run returns with them marked as errors.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pe_eval_core.errors import LiveRunNotConfirmedError, PeEvalError, TargetUnreachableError
from pe_eval_core.paths import home_path
from pe_eval_core.scenarios.cost import (
    PaidCalls,
    approx_tokens,
    estimate_run_cost,
    judge_call_upper_bound,
    judge_cost_usd,
)
from pe_eval_core.scenarios.judge import Judge, JudgeContext
from pe_eval_core.scenarios.loading import write_recorded
from pe_eval_core.scenarios.models import (
    ERROR_KINDS,
    TRANSPORT_ERROR_KINDS,
    JudgeOutcome,
    JudgeVerdict,
    RecordedResponse,
    Scenario,
    ScenarioResult,
    ScenarioRun,
    TargetResponse,
)
from pe_eval_core.scenarios.pricing import estimate_cost_usd
from pe_eval_core.scenarios.scoring import ascore_response
from pe_eval_core.scenarios.targets import RecordedTarget, Target

if TYPE_CHECKING:
    from pe_eval_core.scenarios.batches import MessageBatcher

T = TypeVar("T")

LIVE_CONFIRM_THRESHOLD = 20
"""The seed's cost rule: more paid calls than this (target or judge) need confirmation."""

STOP_AFTER_TRANSPORT_ERRORS = 3
"""Consecutive transport errors (target unreachable, authentication refused) that stop a run:
the rest would fail the same way, and an outage is not the agent's quality."""

CANCELLED = "cancelled before this scenario finished"
NOT_RUN = "not run"
"""The error text prefix of a scenario ``--max-cost`` kept from starting."""

ProgressCallback = Callable[[int, int, ScenarioResult], object]
"""``progress(done, total, latest_result)``, called once per finished scenario."""


class CancelSignal(Protocol):
    """``threading.Event`` or ``asyncio.Event``: anything with ``is_set()``."""

    def is_set(self) -> bool: ...


async def run_scenarios(
    scenarios: Sequence[Scenario],
    target: Target,
    *,
    judge: Judge | None = None,
    concurrency: int = 3,
    progress: ProgressCallback | None = None,
    enforce_latency: bool = False,
    confirm_live: bool = False,
    cancel: CancelSignal | None = None,
    scenarios_path: str | os.PathLike[str] | None = None,
    scenarios_sha256: str | None = None,
    save_responses: bool | str | os.PathLike[str] = True,
    clock: Callable[[], datetime] | None = None,
    run_id: str | None = None,
    max_cost_usd: float | None = None,
    on_ready: Callable[[], object] | None = None,
    repeat: int = 1,
    stop_after_transport_errors: int = STOP_AFTER_TRANSPORT_ERRORS,
    paid_calls: PaidCalls | None = None,
    batcher: MessageBatcher | None = None,
) -> ScenarioRun:
    """Run every scenario against ``target`` and score it; results keep the file's order.

    ``save_responses``: True saves this run's responses as a recorded file under
    ``$PE_EVAL_HOME/runs/<run_id>/responses.json``; a path saves them there; False skips it.
    ``clock`` fixes the run timestamps (reproducible reports).

    A target with a ``toolbox`` (MCP servers) has it opened here, once per run and before any
    scenario: an unreachable server raises ``McpServerUnreachableError`` and nothing runs.
    ``on_ready()`` is called once every resource is open (the CLI prints its run header).
    ``max_cost_usd``: once the finished scenarios' target cost (from their traces) reaches it,
    no new scenario starts; the rest are reported as errors reading "not run: ...".
    ``repeat``: every scenario runs this many times (results in file order, each scenario's
    repeats together, ``ScenarioResult.repeat`` 1..K); the saved responses file keeps each
    scenario's first repeat (a recorded file holds one response per name).
    ``stop_after_transport_errors``: that many transport errors in a row (the target
    unreachable or refusing authentication) stop the run: no new scenario starts, the rest are
    reported as errors of the same kind and ``ScenarioRun.stopped`` says why (see
    :func:`infrastructure_error`).
    ``paid_calls``: the caller's :func:`count_paid_calls` (counted here when not given); more
    than ``LIVE_CONFIRM_THRESHOLD`` target plus judge calls need ``confirm_live``.
    ``batcher``: plain target calls and judge calls go through the Message Batches API
    (:mod:`pe_eval_core.scenarios.batches`); it is closed with the run.
    """
    _check_repeat(repeat)
    _check_concurrency(concurrency)
    if not confirm_live:
        paid = paid_calls or await count_paid_calls(scenarios, target, judge, repeat=repeat)
        _check_confirmed(paid)
    live = bool(getattr(target, "live", False))
    now = clock or (lambda: datetime.now(UTC))
    started = now()
    run_id = run_id or f"{started:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    pool = _ScenarioPool(
        scenarios,
        target,
        judge,
        repeat=repeat,
        progress=progress,
        enforce_latency=enforce_latency,
        cancel=cancel,
        max_cost_usd=max_cost_usd,
        keep_responses=save_responses is not False,
        stop_after=stop_after_transport_errors,
    )
    total = pool.total
    results, recorded, watch = pool.results, pool.recorded, pool.watch

    async with contextlib.AsyncExitStack() as stack:
        await _open_resources(stack, target, judge)
        if batcher is not None:
            from pe_eval_core.scenarios.batches import attach

            await stack.enter_async_context(batcher)
            attach(batcher, target, judge)
        if on_ready is not None:
            on_ready()
        workers = [asyncio.create_task(pool.worker()) for _ in range(min(concurrency, total))]
        watcher = (
            asyncio.create_task(_watch(cancel, workers)) if cancel is not None and workers else None
        )
        await _pool(workers, watcher)
    cancelled = cancel is not None and cancel.is_set()

    final = [
        r if r is not None else _cancelled(j // repeat, scenarios[j // repeat], j % repeat)
        for j, r in enumerate(results)
    ]
    tokens_in = sum(r.tokens_in for r in final)
    tokens_out = sum(r.tokens_out for r in final)
    judge_in = sum(r.judge_tokens_in for r in final)
    judge_out = sum(r.judge_tokens_out for r in final)
    target_model = getattr(target, "model", None)
    cost = _cost(live, target_model, judge, tokens_in, tokens_out, judge_in, judge_out, final)

    run = ScenarioRun(
        run_id=run_id,
        started_at=started,
        finished_at=now(),
        scenarios_path=str(scenarios_path) if scenarios_path is not None else None,
        scenarios_sha256=scenarios_sha256,
        target=target.name,
        target_label=target_label(target),
        repeats=repeat,
        warnings=run_warnings(scenarios, judge),
        stopped=watch.stopped,
        model=target_model,
        judge=judge.model if judge is not None else None,
        judge_prompt_version=judge.prompt_version if judge is not None else None,
        concurrency=concurrency,
        enforce_latency=enforce_latency,
        cancelled=cancelled,
        results=final,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        judge_tokens_in=judge_in,
        judge_tokens_out=judge_out,
        judge_calls=sum(r.judge_calls for r in final),
        estimated_cost_usd=cost,
    )
    if save_responses is not False:
        saved = write_recorded(_responses_path(save_responses, run_id), [r for r in recorded if r])
        run.responses_path = str(saved)
    return run


class _ScenarioPool:
    """The run's shared state: a repeat-major queue every worker pulls from, the results in
    file order (each scenario's repeats together), and the transport-error watch."""

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        target: Target,
        judge: Judge | None,
        *,
        repeat: int,
        progress: ProgressCallback | None,
        enforce_latency: bool,
        cancel: CancelSignal | None,
        max_cost_usd: float | None,
        keep_responses: bool,
        stop_after: int,
    ):
        self.scenarios, self.target, self.judge, self.repeat = scenarios, target, judge, repeat
        self.progress, self.enforce_latency, self.cancel = progress, enforce_latency, cancel
        self.max_cost_usd, self.keep_responses = max_cost_usd, keep_responses
        self.live = bool(getattr(target, "live", False))
        self.total = len(scenarios) * repeat
        self.results: list[ScenarioResult | None] = [None] * self.total
        self.recorded: list[RecordedResponse | None] = [None] * self.total
        self.done = 0
        self.spent = 0.0
        self.watch = _TransportWatch(stop_after)
        # Repeat-major: every scenario's first run is dequeued before any second run, so a
        # repeat finds its first run's judge verdicts cached instead of asking again.
        self.queue = iter(i * repeat + k for k in range(repeat) for i in range(len(scenarios)))
        self.firsts = [asyncio.Event() for _ in scenarios]

    def _set(self, j: int, result: ScenarioResult) -> None:
        self.results[j] = result
        if j % self.repeat == 0:
            self.firsts[j // self.repeat].set()

    def _finish(self, j: int, result: ScenarioResult) -> None:
        self._set(j, result)
        self.watch.see(result)
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, result)

    async def one(self, j: int) -> None:
        i, k = divmod(j, self.repeat)
        scenario = self.scenarios[i]
        if k and not self.live:  # a recorded answer repeats itself: score once, count K times
            await self.firsts[i].wait()
            self._finish(j, _repeated(self.results[i * self.repeat], k))
            return
        response, latency = await _respond(self.target, scenario)
        if response.trace is not None and response.trace.cost_usd is not None:
            self.spent += response.trace.cost_usd
        if self.keep_responses and k == 0:
            self.recorded[j] = _record(scenario, response, latency)
        result = await ascore_response(
            scenario,
            response,
            self.judge,
            enforce_latency=self.enforce_latency,
            index=i + 1,
            latency_ms=latency,
        )
        self._finish(j, _tag(result, response, k))

    async def worker(self) -> None:
        for j in self.queue:  # one shared iterator: each worker takes the next run when free
            if self.cancel is not None and self.cancel.is_set():
                return
            i, k = divmod(j, self.repeat)
            if self.watch.stopped is not None:
                self._set(j, _stopped(i, k, self.scenarios[i], self.watch.streak[-1]))
            elif self.max_cost_usd is not None and self.spent >= self.max_cost_usd:
                self._set(j, _not_run(i, self.scenarios[i], self.max_cost_usd, self.spent, k))
            else:
                await self.one(j)


async def _open_resources(
    stack: contextlib.AsyncExitStack, target: Target, judge: Judge | None
) -> None:
    """The target's MCP toolbox first (an unreachable server stops the run before any
    scenario), then the target's and the judge's clients, all closed with ``stack``."""
    toolbox = getattr(target, "toolbox", None)
    if toolbox is not None:
        await stack.enter_async_context(toolbox)
    for resource in (target, judge):
        if resource is not None and hasattr(resource, "__aenter__"):
            await stack.enter_async_context(resource)  # type: ignore[arg-type]


async def _respond(target: Target, scenario: Scenario) -> tuple[TargetResponse, float]:
    """The target's response and its latency (the target's own figure, else measured here)."""
    t0 = time.perf_counter()
    try:
        response = await target.respond(scenario)
    except Exception as exc:  # a target bug must not stop the other scenarios
        response = TargetResponse(error=f"target raised {type(exc).__name__}: {exc}")
    measured = (time.perf_counter() - t0) * 1000.0
    return response, response.latency_ms if response.latency_ms is not None else measured


def target_label(target: Target) -> str:
    """The stable label of the agent under test: ``anthropic:<model id>``, ``http:<URL>``,
    ``recorded:<file name>`` (the same on any machine and from any working directory)."""
    path = getattr(target, "path", None)
    if isinstance(target, RecordedTarget) and path is not None:
        return f"recorded:{Path(path).name}"
    return target.name


def _repeated(first: ScenarioResult | None, k: int) -> ScenarioResult:
    """Repeat ``k`` of a non-live target's scenario: its first run's result, no new calls."""
    assert first is not None  # set before firsts[i] is
    return first.model_copy(
        update={"repeat": k + 1, "judge_calls": 0, "judge_tokens_in": 0, "judge_tokens_out": 0}
    )


def _tag(result: ScenarioResult, response: TargetResponse, k: int) -> ScenarioResult:
    """The result with its repeat index and, for a target error, the error's kind."""
    update: dict[str, Any] = {"repeat": k + 1}
    if result.status == "error" and response.error is not None:
        update["error_kind"] = response.error_kind or "target"
    return result.model_copy(update=update)


class _TransportWatch:
    """Counts consecutive transport errors (in finishing order); ``stopped`` is set once
    ``limit`` of them came in a row."""

    def __init__(self, limit: int):
        self.limit = limit
        self.streak: list[ScenarioResult] = []
        self.stopped: str | None = None

    def see(self, result: ScenarioResult) -> None:
        if result.error_kind not in TRANSPORT_ERROR_KINDS:
            self.streak.clear()
            return
        self.streak.append(result)
        if len(self.streak) >= self.limit and self.stopped is None:
            kind = result.error_kind or "unreachable"
            self.stopped = (
                f"{ERROR_KINDS[kind]}: {len(self.streak)} transport errors in a row, the "
                f"last: {result.error}"
            )


def infrastructure_error(run: ScenarioRun) -> TargetUnreachableError | None:
    """The typed error for a run that says nothing about the agent: it stopped on transport
    errors, or every scenario hit one (fewer than the stop count). None otherwise.

    Every surface calls this one rule (CLI exit 2, the dashboard's banner, the gate).
    """
    if run.stopped is not None:
        return TargetUnreachableError(f"the run against {run.label} stopped: {run.stopped}")
    kinds = [r.error_kind for r in run.results]
    if kinds and all(k in TRANSPORT_ERROR_KINDS for k in kinds):
        last = run.results[-1]
        reason = ERROR_KINDS[last.error_kind or "unreachable"]
        return TargetUnreachableError(
            f"every scenario against {run.label} failed to reach the agent ({reason}): {last.error}"
        )
    return None


def run_warnings(scenarios: Sequence[Scenario], judge: Judge | None) -> list[str]:
    """The loader's warnings (``LoadedScenarios.warnings``) then the judge's (a recorded
    verdict ignored or used unkeyed), each once, in order. Wrapping judges (the cache, the
    cache-only judge) expose their inner judge as ``inner`` or ``cached``."""
    found: list[str] = list(getattr(scenarios, "warnings", ()))
    seen: set[int] = set()
    while judge is not None and id(judge) not in seen:
        seen.add(id(judge))
        found += getattr(judge, "warnings", ())
        judge = getattr(judge, "inner", None) or getattr(judge, "cached", None)
    return list(dict.fromkeys(found))


def _record(scenario: Scenario, response: TargetResponse, latency: float) -> RecordedResponse:
    """The response as a line of a recorded file (re-scored offline later)."""
    return RecordedResponse(
        name=scenario.name,
        response=response.text,
        latency_ms=round(latency, 3),
        error=response.error,
        tokens_in=response.tokens_in,
        tokens_out=response.tokens_out,
        tool_calls=response.tool_calls,
        model=response.model,
        trace=response.trace,
    )


def _check_repeat(repeat: int) -> None:
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise PeEvalError(
            f"repeat must be a whole number >= 1, got {repeat!r}",
            diagnosis="Each scenario runs at least once",
            fix="Use a repeat count of 1 or more (default 1).",
            input="repeat",
        )


def _check_concurrency(concurrency: int) -> None:
    """Refuse a pool without workers."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise PeEvalError(
            f"concurrency must be a whole number >= 1, got {concurrency!r}",
            diagnosis="The worker pool needs at least one worker",
            fix="Use a concurrency of 1 or more (default 3).",
            input="concurrency",
        )


def _check_confirmed(paid: PaidCalls) -> None:
    """Refuse an unconfirmed run of more than ``LIVE_CONFIRM_THRESHOLD`` paid calls."""
    if paid.total > LIVE_CONFIRM_THRESHOLD:
        raise LiveRunNotConfirmedError(
            f"{paid.line()}: {paid.total} paid calls (more than {LIVE_CONFIRM_THRESHOLD}) "
            "were not confirmed"
        )


class _ProbeJudge:
    """Stands in for a live judge while counting calls: a call it would make is one whose
    phrases are not all in the cache; it answers ``missed`` and costs nothing."""

    def __init__(self, inner: Judge):
        self.inner = inner
        self.calls = 0
        self.model = inner.model
        self.prompt_version = inner.prompt_version

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        lookup = getattr(self.inner, "lookup", None)
        known = lookup(response, expected) if lookup is not None else {}
        if set(expected) - set(known):
            self.calls += 1
        verdicts = [
            JudgeVerdict(
                expected=e, verdict="missed", model=self.model, prompt_version=self.prompt_version
            )
            for e in expected
        ]
        return JudgeOutcome(verdicts=verdicts, model=self.model, prompt_version=self.prompt_version)


async def count_paid_calls(
    scenarios: Sequence[Scenario], target: Target, judge: Judge | None, *, repeat: int = 1
) -> PaidCalls:
    """The paid calls a run would make (the cost guard's count, printed before a paid run).

    Target: one per scenario run against a live target. Judge (live only): against a live
    target, the upper bound (one per scenario run with an expected or excluded phrase); against
    a recorded target the responses are known, so each is scored with a probe that counts the
    judge calls the cache cannot answer (a repeat of a recorded answer asks nothing new).
    """
    live = bool(getattr(target, "live", False))
    target_calls = len(scenarios) * repeat if live else 0
    judge_live = judge is not None and bool(getattr(judge, "live", False))
    judge_calls, measured = 0, False
    if judge_live and live:
        expects = [(len(s.expect.response_contains), _judged(s)) for s in scenarios]
        judge_calls = judge_call_upper_bound(expects, repeat)
    elif judge_live and judge is not None:
        probe = _ProbeJudge(judge)
        for scenario in scenarios:
            response, latency = await _respond(target, scenario)
            await ascore_response(scenario, response, probe, latency_ms=latency)
        judge_calls, measured = probe.calls, True
    model = getattr(target, "model", None)
    target_usd = (
        estimate_run_cost(
            model,
            scenarios=target_calls,
            prefix_tokens=approx_tokens(getattr(target, "system_prompt", "")),
        ).usd
        if target_calls
        else 0.0
    )
    judge_usd = (
        judge_cost_usd(judge.model, judge_calls) if judge is not None and judge_calls else 0.0
    )
    usd = None if target_usd is None or judge_usd is None else round(target_usd + judge_usd, 4)
    return PaidCalls(target_calls, judge_calls, measured, usd)


def _judged(scenario: Scenario) -> int:
    """What of a scenario the judge may be asked about besides its expected phrases: the
    excluded phrases and the judge-decided behaviour checks (``no_hallucination`` defers to
    the judge when the trace cannot decide it)."""
    e = scenario.expect
    checks = bool(e.response_accurate) + bool(e.no_hallucination) + len(e.custom or {})
    return len(e.response_excludes) + checks


def count_paid_calls_sync(
    scenarios: Sequence[Scenario], target: Target, judge: Judge | None, *, repeat: int = 1
) -> PaidCalls:
    """:func:`count_paid_calls` for synchronous callers (the CLI, the dashboard)."""
    return _sync(lambda: count_paid_calls(scenarios, target, judge, repeat=repeat))


async def _watch(cancel: CancelSignal, tasks: list[asyncio.Task[None]]) -> None:
    """Cancel the workers once ``cancel`` is set."""
    while not cancel.is_set():
        await asyncio.sleep(0.05)
    for task in tasks:
        task.cancel()


async def _pool(workers: list[asyncio.Task[None]], watcher: asyncio.Task[None] | None) -> None:
    """Wait for the workers; the first worker failure is raised, every task is cleaned up."""
    tasks = [*workers, *([watcher] if watcher else [])]
    try:
        if workers:
            finished, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
            failed = [t for t in finished if not t.cancelled() and t.exception()]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _cancelled(i: int, s: Scenario, k: int = 0) -> ScenarioResult:
    """The result of a scenario the run was cancelled before it finished."""
    return ScenarioResult(
        index=i + 1,
        repeat=k + 1,
        error_kind="cancelled",
        name=s.name,
        tier=s.tier,
        platform=s.metadata.platform,
        source_fact=s.metadata.source_fact,
        status="error",
        error=CANCELLED,
        excludes=list(s.expect.response_excludes),
        max_latency_ms=s.expect.max_latency_ms,
    )


def _not_run(i: int, s: Scenario, limit: float, spent: float, k: int = 0) -> ScenarioResult:
    """A scenario ``max_cost_usd`` kept from starting."""
    return _cancelled(i, s, k).model_copy(
        update={
            "error_kind": "not_run",
            "error": f"{NOT_RUN}: the run had spent ${spent:.4f} of its --max-cost ${limit:g} "
            "before this scenario's turn",
        }
    )


def _stopped(i: int, k: int, s: Scenario, last: ScenarioResult) -> ScenarioResult:
    """A scenario the run did not start after it stopped on transport errors."""
    return _cancelled(i, s, k).model_copy(
        update={
            "error_kind": last.error_kind,
            "error": f"{NOT_RUN}: the run stopped on transport errors ({last.error})",
        }
    )


def _cost(
    live: bool,
    target_model: str | None,
    judge: Judge | None,
    tokens_in: int,
    tokens_out: int,
    judge_in: int,
    judge_out: int,
    results: Sequence[ScenarioResult] = (),
) -> float | None:
    """Live target plus judge tokens at list price; None when a used model's price is unknown.

    A target whose results carry tool traces is priced from them (cache reads and writes at
    their own prices); otherwise from the plain token counts.
    """
    traces = [r.trace for r in results if r.trace is not None and r.trace.turns]
    if live and traces:
        costs = [t.cost_usd for t in traces]
        target_cost = None if None in costs else sum(c for c in costs if c is not None)
    else:
        target_cost = estimate_cost_usd(target_model, tokens_in, tokens_out) if live else 0.0
    judge_cost = estimate_cost_usd(judge.model if judge else None, judge_in, judge_out)
    if target_cost is None or judge_cost is None:
        return None
    return round(target_cost + judge_cost, 6)


def _responses_path(save_responses: bool | str | os.PathLike[str], run_id: str) -> Path:
    """Where to save the run's responses: a given path, else under ``$PE_EVAL_HOME/runs``."""
    if isinstance(save_responses, bool):
        return home_path("runs", run_id, "responses.json")
    return Path(save_responses)


def run_scenarios_sync(scenarios: Sequence[Scenario], target: Target, **kwargs: Any) -> ScenarioRun:
    """``run_scenarios`` for synchronous callers (the dashboard, scripts).

    Runs on a fresh event loop; if this thread already runs one, on a helper thread.
    """
    return _sync(lambda: run_scenarios(scenarios, target, **kwargs))


def _sync(coro_factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine on a fresh event loop; if this thread already runs one, on a helper
    thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
