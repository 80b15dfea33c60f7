"""Class 11: ``history gc`` racing recording on a real PostgreSQL (issue 23).

A run is recorded and deleted, so its response and verdict-detail blobs are stored but no
longer referenced. A second run with the same texts is then recorded by another process: it
finds the blobs stored and reuses them, and before it commits, ``gc`` runs (the test holds
the recorder in that window and starts ``gc`` from it). Without a common lock ``gc`` deletes
the blobs the uncommitted run is about to reference (in the issue's race 25 of 30 runs lost
their verdict details); with the writers' advisory lock (shared for recording, exclusive for
``gc``) it waits, and the run reads back whole. The same sequence runs on SQLite, and a free
for all (three recorders, a collector deleting everything) ends with every run whole."""

from __future__ import annotations

import multiprocessing
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from pe_eval_core.history.store import RunStore

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[2]
RESPONSE = "The cohort's loss is $4,820 per month across 15 accounts. " * 30


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PE_EVAL_LOCK_TIMEOUT", "120")  # the waits below are long on purpose
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite")
    import psycopg

    server = request.getfixturevalue("postgres")
    name = f"pe_eval_race_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.url.rsplit("/", 1)[0] + "/" + name


def _run() -> Any:
    from tests.helpers.history_builders import make_result, make_scenario_run

    results = [make_result(f"s{i}", "smoke", "pass", response=RESPONSE + str(i)) for i in range(3)]
    return make_scenario_run(results, run_id=uuid.uuid4().hex)


def _slow_recorder(target: str, in_window: Any, hold_s: float) -> None:
    """Record one run, stopping for ``hold_s`` after its response blobs are found or stored
    and before it commits (``in_window`` set then)."""
    from pe_eval_core.history import writing

    real = writing.put_blobs

    def slow(conn: Any, *args: Any, **kwargs: Any) -> Any:
        out = real(conn, *args, **kwargs)
        if kwargs.get("shared_dictionary"):  # the responses: the blobs a recorder reuses
            in_window.set()
            time.sleep(hold_s)
        return out

    writing.put_blobs = slow  # type: ignore[assignment]  # this child process only
    RunStore(target).record_scenario_run(_run())


def _whole(store: RunStore, rid: int) -> bool:
    record = store.get_run(rid)
    return (
        [r.response for r in record.results] == [RESPONSE + str(i) for i in range(3)]
        and all(r.detail for r in record.results)
        and not store.warnings
    )


def test_gc_waits_for_a_recorder_that_reuses_unreferenced_blobs(target):
    store = RunStore(target)
    ctx = multiprocessing.get_context("fork")
    for _ in range(3):
        store.delete_run(store.record_scenario_run(_run()))  # blobs stored, unreferenced
        in_window = ctx.Event()
        proc = ctx.Process(target=_slow_recorder, args=(target, in_window, 1.5))
        proc.start()
        assert in_window.wait(60)
        started = time.monotonic()
        RunStore(target).gc()  # while the recorder holds its blobs uncommitted
        waited = time.monotonic() - started
        proc.join(60)
        assert proc.exitcode == 0
        (latest,) = store.list_runs(limit=1)
        assert _whole(RunStore(target), latest.id), "gc deleted the blobs of a run being recorded"
        assert waited > 0.5  # it waited for the recorder's commit
        store.delete_run(latest.id)


def _recorder(target: str, start: Any, n: int) -> None:
    store = RunStore(target)
    start.wait(10)
    for _ in range(n):
        store.record_scenario_run(_run())


def _collector(target: str, start: Any, stop: Any) -> None:
    store = RunStore(target)
    start.wait(10)
    while not stop.is_set():
        for r in store.list_runs(limit=1000):
            store.delete_run(r.id)
        store.gc()


def test_a_free_for_all_leaves_every_run_whole(target):
    RunStore(target).record_scenario_run(_run())
    ctx = multiprocessing.get_context("fork")
    start, stop = ctx.Event(), ctx.Event()
    recorders = [ctx.Process(target=_recorder, args=(target, start, 15)) for _ in range(3)]
    collector = ctx.Process(target=_collector, args=(target, start, stop))
    for p in (*recorders, collector):
        p.start()
    start.set()
    for p in recorders:
        p.join(240)
        assert p.exitcode == 0
    time.sleep(0.5)
    stop.set()
    collector.join(120)
    assert collector.exitcode == 0
    store = RunStore(target)
    for _ in range(3):
        store.record_scenario_run(_run())
    assert all(_whole(store, r.id) for r in store.list_runs(limit=1000))
