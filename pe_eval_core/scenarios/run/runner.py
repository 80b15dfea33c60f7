"""Run scenarios against a target: a bounded asyncio pool, scoring as results arrive.

``concurrency`` workers pull the next scenario as soon as they finish the last one (the
seed's "batches of 3" without the batch barrier), so at most ``concurrency`` target or judge
calls are ever in flight. Each scenario's latency is measured around its own call; a target
failure becomes that scenario's ``error`` and the rest continue. A cancel signal stops new
scenarios and cancels the ones in flight; the run returns with them marked as errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pe_eval_core.paths import home_path
from pe_eval_core.scenarios.agent.protocol import Target
from pe_eval_core.scenarios.loading import write_recorded
from pe_eval_core.scenarios.models import (
    ERROR_KINDS,
    TRANSPORT_ERROR_KINDS,
    RecordedResponse,
    Scenario,
    ScenarioResult,
    ScenarioRun,
    TargetResponse,
)
from pe_eval_core.scenarios.options import DEFAULTS, RunOptions, run_options
from pe_eval_core.scenarios.run.cost_guard import (
    LIVE_CONFIRM_THRESHOLD,
    check_confirmed,
    count_paid_calls,
    count_paid_calls_sync,
    run_sync,
)
from pe_eval_core.scenarios.run.costs import PaidCalls, run_cost_usd
from pe_eval_core.scenarios.run.manifest import build_manifest, scenarios_digest
from pe_eval_core.scenarios.run.notices import toolbox_notices, writes_ran_notices
from pe_eval_core.scenarios.run.outcome import (
    CANCELLED,
    NOT_RUN,
    cancelled_result,
    infrastructure_error,
    not_run_result,
    run_warnings,
    stopped_result,
)
from pe_eval_core.scenarios.scoring.judge import Judge
from pe_eval_core.scenarios.scoring.judge.chain import recorded_verdicts
from pe_eval_core.scenarios.scoring.score import ascore_response

if TYPE_CHECKING:
    from pe_eval_core.scenarios.llm.batches import MessageBatcher

__all__ = [
    "CANCELLED",
    "LIVE_CONFIRM_THRESHOLD",
    "NOT_RUN",
    "STOP_AFTER_TRANSPORT_ERRORS",
    "CancelSignal",
    "ProgressCallback",
    "count_paid_calls",
    "count_paid_calls_sync",
    "infrastructure_error",
    "run_scenarios",
    "run_scenarios_sync",
    "run_warnings",
]

STOP_AFTER_TRANSPORT_ERRORS = DEFAULTS.stop_after_transport_errors
"""Consecutive transport errors (target unreachable, authentication refused) that stop a run:
the rest would fail the same way, and an outage is not the agent's quality."""

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
    options: RunOptions | None = None,
    progress: ProgressCallback | None = None,
    confirm_live: bool = False,
    cancel: CancelSignal | None = None,
    scenarios_path: str | os.PathLike[str] | None = None,
    scenarios_sha256: str | None = None,
    save_responses: bool | str | os.PathLike[str] = True,
    clock: Callable[[], datetime] | None = None,
    run_id: str | None = None,
    on_ready: Callable[[], object] | None = None,
    paid_calls: PaidCalls | None = None,
    batcher: MessageBatcher | None = None,
    concurrency: int | None = None,
    repeat: int | None = None,
    enforce_latency: bool | None = None,
    max_cost_usd: float | None = None,
    stop_after_transport_errors: int | None = None,
) -> ScenarioRun:
    """Run every scenario against ``target`` and score it; results keep the file's order.

    ``options``: the run's :class:`~pe_eval_core.scenarios.options.RunOptions` (built once by
    the surface with ``run_options``); ``concurrency``, ``repeat``, ``enforce_latency``,
    ``max_cost_usd`` and ``stop_after_transport_errors`` given here override it (scripts).
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
    ``batcher`` (made here when ``options.batch`` and none is given): plain target calls and
    judge calls go through the Message Batches API; every scenario's call is then let wait in
    the same batch; it is closed with the run.
    """
    opts = run_options(
        options,
        concurrency=concurrency,
        repeat=repeat,
        enforce_latency=enforce_latency,
        max_cost_usd=max_cost_usd,
        stop_after_transport_errors=stop_after_transport_errors,
    )
    repeat, concurrency = opts.repeat, opts.concurrency
    if not confirm_live:
        paid = paid_calls or await count_paid_calls(scenarios, target, judge, options=opts)
        check_confirmed(paid)
    if batcher is None and opts.batch:
        from pe_eval_core.scenarios.llm.batches import MessageBatcher

        batcher = MessageBatcher()
    live = target.live
    now = clock or (lambda: datetime.now(UTC))
    started = now()
    run_id = run_id or f"{started:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    pool = _ScenarioPool(
        scenarios,
        target,
        judge,
        repeat=repeat,
        progress=progress,
        enforce_latency=opts.enforce_latency,
        cancel=cancel,
        max_cost_usd=opts.max_cost_usd,
        keep_responses=save_responses is not False,
        stop_after=opts.stop_after_transport_errors,
    )
    total = pool.total
    results, recorded, watch = pool.results, pool.recorded, pool.watch

    async with contextlib.AsyncExitStack() as stack:
        await _open_resources(stack, target, judge)
        manifest = build_manifest(
            target,
            judge,
            target_label=target.label,
            scenarios_sha256=scenarios_sha256 or scenarios_digest(scenarios, scenarios_path),
            repeats=repeat,
        )
        notices = toolbox_notices(scenarios, target)  # the servers' tools are known now
        batched: list[str] = []
        if batcher is not None:
            await stack.enter_async_context(batcher)
            batched = attach(batcher, target, judge)
        if on_ready is not None:
            on_ready()
        size = total if _waits_in_batch(batched, target) else min(concurrency, total)
        workers = [asyncio.create_task(pool.worker()) for _ in range(size)]
        watcher = (
            asyncio.create_task(_watch(cancel, workers)) if cancel is not None and workers else None
        )
        await _pool(workers, watcher)
    cancelled = cancel is not None and cancel.is_set()

    final = [
        r if r is not None else cancelled_result(j // repeat, scenarios[j // repeat], j % repeat)
        for j, r in enumerate(results)
    ]
    tokens_in = sum(r.tokens_in for r in final)
    tokens_out = sum(r.tokens_out for r in final)
    judge_in = sum(r.judge_tokens_in for r in final)
    judge_out = sum(r.judge_tokens_out for r in final)
    target_model = target.model
    cost = run_cost_usd(
        final,
        live=live,
        target_model=target_model,
        judge_model=judge.model if judge is not None else None,
        batched=batched,
    )
    as_of = getattr(target, "as_of", None)

    run = ScenarioRun(
        run_id=run_id,
        started_at=started,
        finished_at=now(),
        scenarios_path=str(scenarios_path) if scenarios_path is not None else None,
        scenarios_sha256=scenarios_sha256,
        target=target.name,
        target_label=target.label,
        manifest=manifest,
        repeats=repeat,
        warnings=[*run_warnings(scenarios, judge), *notices, *writes_ran_notices(final)],
        stopped=watch.stopped,
        model=target_model,
        as_of=as_of.iso if as_of is not None else None,
        as_of_source=as_of.source if as_of is not None else None,
        judge=judge.model if judge is not None else None,
        judge_prompt_version=judge.prompt_version if judge is not None else None,
        concurrency=concurrency,
        enforce_latency=opts.enforce_latency,
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
        self.live = target.live
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
        saved = self.recorded[j]
        if saved is not None and response.text is not None and result.judge_verdicts:
            # the judge's verdicts travel with the response: a re-score reproduces them
            saved.verdicts = recorded_verdicts(response.text, result.judge_verdicts)
        self._finish(j, _tag(result, response, k))

    async def worker(self) -> None:
        for j in self.queue:  # one shared iterator: each worker takes the next run when free
            if self.cancel is not None and self.cancel.is_set():
                return
            i, k = divmod(j, self.repeat)
            if self.watch.stopped is not None:
                self._set(j, stopped_result(i, k, self.scenarios[i], self.watch.streak[-1]))
            elif self.max_cost_usd is not None and self.spent >= self.max_cost_usd:
                spent, limit = self.spent, self.max_cost_usd
                self._set(j, not_run_result(i, self.scenarios[i], limit, spent, k))
            else:
                await self.one(j)


async def _open_resources(
    stack: contextlib.AsyncExitStack, target: Target, judge: Judge | None
) -> None:
    """The target's MCP toolbox first (an unreachable server stops the run before any
    scenario), then the target's and the judge's clients, all closed with ``stack``."""
    if target.toolbox is not None:
        await stack.enter_async_context(target.toolbox)
    await stack.enter_async_context(target)
    if judge is not None:
        await stack.enter_async_context(judge)


def attach(batcher: MessageBatcher, target: Target, judge: Judge | None) -> list[str]:
    """Route the target's and the judge's calls through ``batcher`` where the Batches API can
    carry them (``batchable``: a plain Anthropic target, the live judge); what was attached
    (``["target", "judge"]``, possibly empty)."""
    attached = []
    for name, party in (("target", target), ("judge", judge)):
        if party is not None and party.batchable:
            party.use_batcher(batcher)
            attached.append(name)
    return attached


async def _respond(target: Target, scenario: Scenario) -> tuple[TargetResponse, float]:
    """The target's response and its latency (the target's own figure, else measured here)."""
    t0 = time.perf_counter()
    try:
        response = await target.respond(scenario)
    except Exception as exc:  # a target bug must not stop the other scenarios
        response = TargetResponse(error=f"target raised {type(exc).__name__}: {exc}")
    measured = (time.perf_counter() - t0) * 1000.0
    return response, response.latency_ms if response.latency_ms is not None else measured


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


def _waits_in_batch(batched: Sequence[str], target: Target) -> bool:
    """Whether every scenario should be in flight at once, so all their batched calls wait in
    one batch: something is batched, and the target is not a live agent called directly (an
    HTTP agent keeps the run's concurrency: only its judge calls are batched)."""
    return bool(batched) and ("target" in batched or not target.live)


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


def _responses_path(save_responses: bool | str | os.PathLike[str], run_id: str) -> Path:
    """Where to save the run's responses: a given path, else under ``$PE_EVAL_HOME/runs``."""
    if isinstance(save_responses, bool):
        return home_path("runs", run_id, "responses.json")
    return Path(save_responses)


def run_scenarios_sync(scenarios: Sequence[Scenario], target: Target, **kwargs: Any) -> ScenarioRun:
    """``run_scenarios`` for synchronous callers (the dashboard, scripts).

    Runs on a fresh event loop; if this thread already runs one, on a helper thread.
    """
    return run_sync(lambda: run_scenarios(scenarios, target, **kwargs))
