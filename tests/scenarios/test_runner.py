"""The runner: bounded concurrency without batch barriers, error isolation, progress,
cancellation, the live cost guard, tokens and cost, saved responses."""

from __future__ import annotations

import asyncio
import threading

import pytest

from pe_eval_core.errors import LiveRunNotConfirmedError, PeEvalError
from pe_eval_core.scenarios import (
    RecordedTarget,
    TargetResponse,
    load_recorded,
    run_scenarios,
    run_scenarios_sync,
)
from pe_eval_core.scenarios.agent.protocol import TargetBase
from pe_eval_core.scenarios.run.runner import CANCELLED
from tests.helpers.scenario_helpers import make_scenario


def scenarios(n: int) -> list:
    return [make_scenario(f"s{i}", response_contains=[f"fact {i}"]) for i in range(n)]


class FakeTarget(TargetBase):
    """Answers ``fact <i>`` after a delay; records how many calls were in flight at once."""

    name = "fake"
    model = "claude-sonnet-4-5"

    def __init__(self, delay: float = 0.01, live: bool = False, fail: set[str] = frozenset()):
        self.delay, self.live, self.fail = delay, live, fail
        self.in_flight = 0
        self.max_in_flight = 0
        self.started: list[str] = []

    async def respond(self, scenario) -> TargetResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.started.append(scenario.name)
        try:
            await asyncio.sleep(self.delay)
            if scenario.name in self.fail:
                raise RuntimeError("agent crashed")
            n = scenario.name[1:]
            return TargetResponse(text=f"fact {n}", tokens_in=1000, tokens_out=100)
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize("concurrency", [1, 3, 8])
def test_never_more_than_concurrency_in_flight(concurrency):
    target = FakeTarget()
    run = run_scenarios_sync(scenarios(20), target, concurrency=concurrency, save_responses=False)
    assert target.max_in_flight == concurrency
    assert run.passed == 20 and [r.index for r in run.results] == list(range(1, 21))


def test_no_batch_barrier_a_slow_call_does_not_hold_the_others():
    """With 2 workers, scenario 0 blocks until the other 9 have all finished: a batch-of-2
    runner would deadlock (the guard times out); a pool finishes."""
    release = asyncio.Event()

    class Blocking(FakeTarget):
        async def respond(self, scenario):
            if scenario.name == "s0":
                await asyncio.wait_for(release.wait(), timeout=5)
            return await super().respond(scenario)

    def progress(done, total, result):
        if done == total - 1:
            release.set()

    run = asyncio.run(
        run_scenarios(
            scenarios(10), Blocking(), concurrency=2, progress=progress, save_responses=False
        )
    )
    assert run.passed == 10


def test_one_failing_scenario_does_not_stop_the_others():
    target = FakeTarget(fail={"s2"})
    run = run_scenarios_sync(scenarios(6), target, save_responses=False)
    statuses = [r.status for r in run.results]
    assert statuses == ["pass", "pass", "error", "pass", "pass", "pass"]
    assert run.results[2].error == "target raised RuntimeError: agent crashed"


def test_latency_is_measured_per_scenario():
    run = run_scenarios_sync(scenarios(3), FakeTarget(delay=0.05), save_responses=False)
    assert all(40 <= r.latency_ms < 2000 for r in run.results)


def test_progress_reports_done_total_and_latest():
    seen = []
    run_scenarios_sync(
        scenarios(5),
        FakeTarget(),
        progress=lambda d, t, r: seen.append((d, t, r.name)),
        save_responses=False,
    )
    assert [d for d, _, _ in seen] == [1, 2, 3, 4, 5]
    assert {t for _, t, _ in seen} == {5}
    assert sorted(n for _, _, n in seen) == [f"s{i}" for i in range(5)]


def test_cancel_signal_stops_the_run_and_marks_the_rest():
    stop = threading.Event()
    target = FakeTarget(delay=0.02)
    run = run_scenarios_sync(
        scenarios(30),
        target,
        concurrency=2,
        progress=lambda d, t, r: stop.set() if d == 4 else None,
        cancel=stop,
        save_responses=False,
    )
    assert run.cancelled
    done = [r for r in run.results if r.status == "pass"]
    assert 4 <= len(done) <= 6 and len(target.started) < 10
    assert all(r.error == CANCELLED for r in run.results if r.status != "pass")
    assert len(run.results) == 30


def test_cancel_interrupts_calls_in_flight():
    stop = threading.Event()
    target = FakeTarget(delay=30)  # would hang the test if not interrupted
    threading.Timer(0.2, stop.set).start()
    run = run_scenarios_sync(scenarios(3), target, cancel=stop, save_responses=False)
    assert run.cancelled and {r.error for r in run.results} == {CANCELLED}


def test_task_cancellation_propagates_and_cleans_up():
    target = FakeTarget(delay=30)

    async def main():
        task = asyncio.create_task(run_scenarios(scenarios(4), target, save_responses=False))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert target.in_flight == 0

    asyncio.run(main())


def test_cost_guard_for_live_targets():
    with pytest.raises(LiveRunNotConfirmedError, match="21 target"):
        run_scenarios_sync(scenarios(21), FakeTarget(live=True), save_responses=False)
    live = FakeTarget(live=True)
    assert run_scenarios_sync(scenarios(20), live, save_responses=False).total == 20
    run = run_scenarios_sync(scenarios(21), live, confirm_live=True, save_responses=False)
    assert run.total == 21
    assert run_scenarios_sync(scenarios(21), FakeTarget(), save_responses=False).total == 21


def test_tokens_and_estimated_cost():
    run = run_scenarios_sync(scenarios(4), FakeTarget(live=True), save_responses=False)
    assert (run.tokens_in, run.tokens_out) == (4000, 400)
    assert run.estimated_cost_usd == pytest.approx((4000 * 3 + 400 * 15) / 1e6)


def test_bad_concurrency():
    with pytest.raises(PeEvalError, match="concurrency"):
        run_scenarios_sync(scenarios(2), FakeTarget(), concurrency=0)


def test_every_run_saves_a_rescorable_recorded_file(_isolated_home):
    target = FakeTarget(fail={"s1"})
    run = run_scenarios_sync(scenarios(3), target)
    assert run.responses_path.startswith(str(_isolated_home / "runs" / run.run_id))
    saved = load_recorded(run.responses_path)
    assert saved["s0"].response == "fact 0" and saved["s1"].error.startswith("target raised")
    again = run_scenarios_sync(
        scenarios(3), RecordedTarget(run.responses_path), save_responses=False
    )
    assert [r.status for r in again.results] == [r.status for r in run.results]
    assert [r.latency_ms for r in again.results] == [
        pytest.approx(r.latency_ms, abs=0.01) for r in run.results
    ]


def test_run_inside_a_running_loop_uses_a_helper_thread():
    async def main():
        return run_scenarios_sync(scenarios(2), FakeTarget(), save_responses=False)

    assert asyncio.run(main()).passed == 2


def test_recorded_target_missing_response_is_a_scenario_error(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('[{"name": "s0", "response": "fact 0"}]')
    run = run_scenarios_sync(scenarios(2), RecordedTarget(path), save_responses=False)
    assert [r.status for r in run.results] == ["pass", "error"]
    assert "no recorded response for scenario 's1'" in run.results[1].error


def test_conclusion_when_every_scenario_errored_names_the_target_not_a_tier():
    target = FakeTarget(fail={f"s{i}" for i in range(4)})
    run = run_scenarios_sync(scenarios(4), target, save_responses=False)
    assert run.errors == 4
    conclusion = run.conclusion()
    assert conclusion.startswith("Every scenario errored (4/4)")
    assert "agent crashed" in conclusion and "Worst tier" not in conclusion
