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
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pe_eval_core.errors import LiveRunNotConfirmedError, PeEvalError
from pe_eval_core.paths import pe_eval_home
from pe_eval_core.scenarios.gc_batch import fewer_collections
from pe_eval_core.scenarios.judge import Judge
from pe_eval_core.scenarios.loading import write_recorded
from pe_eval_core.scenarios.models import (
    RecordedResponse,
    Scenario,
    ScenarioResult,
    ScenarioRun,
    TargetResponse,
)
from pe_eval_core.scenarios.pricing import estimate_cost_usd
from pe_eval_core.scenarios.scoring import ascore_response
from pe_eval_core.scenarios.targets import Target

LIVE_CONFIRM_THRESHOLD = 20
"""The seed's cost rule: more scenarios than this against a paid target need confirmation."""

CANCELLED = "cancelled before this scenario finished"

ProgressCallback = Callable[[int, int, ScenarioResult], Any]
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
) -> ScenarioRun:
    """Run every scenario against ``target`` and score it; results keep the file's order.

    ``save_responses``: True saves this run's responses as a recorded file under
    ``$PE_EVAL_HOME/runs/<run_id>/responses.json``; a path saves them there; False skips it.
    ``clock`` fixes the run timestamps (reproducible reports).
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise PeEvalError(
            f"concurrency must be a whole number >= 1, got {concurrency!r}",
            diagnosis="The worker pool needs at least one worker",
            fix="Use a concurrency of 1 or more (default 3).",
            input="concurrency",
        )
    live = bool(getattr(target, "live", False))
    if live and len(scenarios) > LIVE_CONFIRM_THRESHOLD and not confirm_live:
        raise LiveRunNotConfirmedError(
            f"{len(scenarios)} scenarios against the live target {target.name} "
            f"(more than {LIVE_CONFIRM_THRESHOLD}) were not confirmed"
        )
    now = clock or (lambda: datetime.now(UTC))
    started = now()
    run_id = run_id or f"{started:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    total = len(scenarios)
    results: list[ScenarioResult | None] = [None] * total
    recorded: list[RecordedResponse | None] = [None] * total
    done = 0
    cancelled = False
    queue = iter(range(total))

    async def one(i: int) -> None:
        nonlocal done
        scenario = scenarios[i]
        t0 = time.perf_counter()
        try:
            response = await target.respond(scenario)
        except Exception as exc:  # a target bug must not stop the other scenarios
            response = TargetResponse(error=f"target raised {type(exc).__name__}: {exc}")
        measured = (time.perf_counter() - t0) * 1000.0
        latency = response.latency_ms if response.latency_ms is not None else measured
        if save_responses is not False:
            recorded[i] = RecordedResponse(
                name=scenario.name,
                response=response.text,
                latency_ms=round(latency, 3),
                error=response.error,
                tokens_in=response.tokens_in,
                tokens_out=response.tokens_out,
                tool_calls=response.tool_calls,
                model=response.model,
            )
        result = await ascore_response(
            scenario,
            response,
            judge,
            enforce_latency=enforce_latency,
            index=i + 1,
            latency_ms=latency,
        )
        results[i] = result
        done += 1
        if progress is not None:
            progress(done, total, result)

    async def worker() -> None:
        for i in queue:  # one shared iterator: each worker takes the next scenario when free
            if cancel is not None and cancel.is_set():
                return
            await one(i)

    async def watch(tasks: list[asyncio.Task[None]]) -> None:
        nonlocal cancelled
        assert cancel is not None
        while not cancel.is_set():
            await asyncio.sleep(0.05)
        cancelled = True
        for task in tasks:
            task.cancel()

    async with contextlib.AsyncExitStack() as stack:
        stack.enter_context(fewer_collections())  # results pile up; none are garbage
        for resource in (target, judge):
            if resource is not None and hasattr(resource, "__aenter__"):
                await stack.enter_async_context(resource)  # type: ignore[arg-type]
        workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, total))]
        watcher = asyncio.create_task(watch(workers)) if cancel is not None and workers else None
        try:
            if workers:
                finished, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
                failed = [t for t in finished if not t.cancelled() and t.exception()]
                if failed:
                    raise failed[0].exception()  # type: ignore[misc]
        finally:
            for task in [*workers, *([watcher] if watcher else [])]:
                task.cancel()
            await asyncio.gather(*workers, *([watcher] if watcher else []), return_exceptions=True)
    if cancel is not None and cancel.is_set():
        cancelled = True

    final: list[ScenarioResult] = []
    for i, result in enumerate(results):
        if result is None:
            s = scenarios[i]
            result = ScenarioResult(
                index=i + 1,
                name=s.name,
                tier=s.tier,
                platform=s.metadata.platform,
                source_fact=s.metadata.source_fact,
                status="error",
                error=CANCELLED,
                excludes=list(s.expect.response_excludes),
                max_latency_ms=s.expect.max_latency_ms,
            )
        final.append(result)

    tokens_in = sum(r.tokens_in for r in final)
    tokens_out = sum(r.tokens_out for r in final)
    judge_in = sum(r.judge_tokens_in for r in final)
    judge_out = sum(r.judge_tokens_out for r in final)
    target_model = getattr(target, "model", None)
    target_cost = estimate_cost_usd(target_model, tokens_in, tokens_out) if live else 0.0
    judge_cost = estimate_cost_usd(judge.model if judge else None, judge_in, judge_out)
    cost = None if target_cost is None or judge_cost is None else round(target_cost + judge_cost, 6)

    run = ScenarioRun(
        run_id=run_id,
        started_at=started,
        finished_at=now(),
        scenarios_path=str(scenarios_path) if scenarios_path is not None else None,
        scenarios_sha256=scenarios_sha256,
        target=target.name,
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
        path = (
            pe_eval_home() / "runs" / run_id / "responses.json"
            if save_responses is True
            else Path(save_responses)
        )
        saved = write_recorded(path, [r for r in recorded if r is not None])
        run.responses_path = str(saved)
    return run


def run_scenarios_sync(scenarios: Sequence[Scenario], target: Target, **kwargs: Any) -> ScenarioRun:
    """``run_scenarios`` for synchronous callers (the dashboard, scripts).

    Runs on a fresh event loop; if this thread already runs one, on a helper thread.
    """
    coro_factory = lambda: run_scenarios(scenarios, target, **kwargs)  # noqa: E731
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
