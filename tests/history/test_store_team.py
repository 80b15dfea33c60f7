"""The team-scale store on SQLite and on a real PostgreSQL server (see conftest): gradings
recorded once, infrastructure errors kept out, trends by file, delete / pin / gc,
content-addressed responses, bounded locks, corrupt rows, lone surrogates, and the judge's
verdict cache in the same database."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

from pe_eval_core.errors import HistoryError, HistoryLockedError, RunNotFoundError
from pe_eval_core.history.records import RunFilters
from pe_eval_core.history.store import RunStore, database_url
from pe_eval_core.scenarios.scoring.judge import JudgeBase
from tests.helpers.history_builders import make_memo_evaluation, make_result, make_scenario_run

T0 = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(store_target: str) -> RunStore:
    return RunStore(store_target)


def raw_sql(store: RunStore, sql: str, **params: Any) -> list[Any]:
    engine = create_engine(store.url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(sql), params)
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


def errored_run(when: datetime, n: int = 3) -> Any:
    return make_scenario_run(
        [make_result(f"s{i}", "smoke", "error", error="connection refused") for i in range(n)],
        when=when,
    )


# --- recorded once ---------------------------------------------------------------------------


def test_a_memo_grading_is_recorded_once(store: RunStore) -> None:
    first = store.record_memo_evaluation(make_memo_evaluation(when=T0))
    again = store.record_memo_evaluation(make_memo_evaluation(when=T0 + timedelta(hours=1)))
    assert again == first and store.count_runs() == 1
    # a different memo content, or a different result, is a new grading
    changed = store.record_memo_evaluation(make_memo_evaluation(memo_sha="c" * 64))
    rescored = store.record_memo_evaluation(make_memo_evaluation(scores=(0.5, 0.0, 1.0, 1.0)))
    assert len({first, changed, rescored}) == 3 and store.count_runs() == 3


def test_a_different_grader_config_is_a_new_grading(store: RunStore) -> None:
    from pe_eval_core.memo.config import GraderConfig

    ev = make_memo_evaluation()
    strict = ev.model_copy(update={"config": GraderConfig(strict_derivations=True)})
    assert store.record_memo_evaluation(ev) != store.record_memo_evaluation(strict)


def test_a_batch_is_recorded_in_order_in_one_call(store: RunStore) -> None:
    evs = [make_memo_evaluation(portco=f"P{i}", when=T0 + timedelta(minutes=i)) for i in range(5)]
    ids = store.record_memo_evaluations([*evs, evs[0]])
    assert ids[:5] == sorted(ids[:5]) and len(set(ids[:5])) == 5
    assert ids[5] == ids[0]  # the repeat inside the batch is the same grading
    assert [store.get_run(i).summary.portco_id for i in ids[:5]] == [f"P{i}" for i in range(5)]
    # a later batch mixing recorded and new gradings: old ids kept, new ones appended
    new = make_memo_evaluation(portco="P9", when=T0)
    later = store.record_memo_evaluations([evs[3], new, evs[1]])
    assert later[0] == ids[3] and later[2] == ids[1] and later[1] > max(ids)
    assert len(store.get_run(later[1]).opportunities) == 3 and store.count_runs() == 6


# --- infrastructure errors -----------------------------------------------------------------


def test_a_run_where_every_scenario_errored_is_flagged_and_kept_out(store: RunStore) -> None:
    good = store.record_scenario_run(
        make_scenario_run([make_result("s0", "smoke", "pass")], when=T0)
    )
    partly = store.record_scenario_run(
        make_scenario_run(
            [make_result("s0", "smoke", "error", error="x"), make_result("s1", "smoke", "pass")],
            when=T0 + timedelta(minutes=1),
        )
    )
    down = store.record_scenario_run(errored_run(T0 + timedelta(minutes=2)))
    summaries = {r.id: r for r in store.list_runs()}
    assert summaries[down].infra_error and summaries[down].n_errors == 3
    assert not summaries[good].infra_error and not summaries[partly].infra_error
    assert {row["id"] for row in store.tier_trend()} == {good, partly}
    assert store.resolve("latest", kind="scenarios") == partly  # runs that ran
    assert store.resolve("latest") == down  # `history show latest` still finds it
    assert [r.id for r in store.list_runs(RunFilters(infra_error=True))] == [down]
    with pytest.raises(HistoryError, match="infrastructure error") as info:
        store.pin_baseline(down)
    assert info.value.input == "run"


def test_an_empty_run_is_not_an_infrastructure_error(store: RunStore) -> None:
    rid = store.record_scenario_run(make_scenario_run([], when=T0))
    assert store.get_run(rid).summary.infra_error is False


# --- trends by file ------------------------------------------------------------------------


def test_memo_trends_group_by_file_not_by_portco_name(store: RunStore) -> None:
    a = make_memo_evaluation(when=T0)
    b = make_memo_evaluation(when=T0 + timedelta(1), scores=(0.5, 0.0, 1.0, 1.0))
    b = b.model_copy(update={"memo_path": "/other_fund/explain_MortgageCo_board.json"})
    store.record_memo_evaluation(a)
    store.record_memo_evaluation(b)
    rows = store.memo_trend("MortgageCo", "board")
    assert [r["series"] for r in rows] == [
        "data/explain_MortgageCo_board.json",
        "other_fund/explain_MortgageCo_board.json",
    ]
    only = store.memo_trend(memo_path="/other_fund/explain_MortgageCo_board.json")
    assert [r["citation_accuracy"] for r in only] == [0.5]
    assert "/other_fund/explain_MortgageCo_board.json" in store.filter_options()["memo_path"]


# --- delete, pin, gc -------------------------------------------------------------------------


def test_delete_pin_unpin(store: RunStore) -> None:
    s1 = store.record_scenario_run(make_scenario_run([make_result("a", "smoke", "pass")]))
    s2 = store.record_scenario_run(make_scenario_run([make_result("a", "smoke", "fail")]))
    m = store.record_memo_evaluation(make_memo_evaluation())
    assert store.pinned_baseline("scenarios") is None
    assert store.pin_baseline(s1) == s1 and store.pin_baseline(str(m)) == m
    assert store.pinned_baseline("scenarios") == s1 and store.pinned_baseline("memo") == m
    assert store.pin_baseline(s2) == s2  # one pin per kind: it moves
    assert store.pinned_baseline("scenarios") == s2
    assert store.unpin_baseline("scenarios") == s2 and store.pinned_baseline("scenarios") is None
    assert store.unpin_baseline("scenarios") is None
    assert store.delete_run(m) == m
    assert store.pinned_baseline("memo") is None  # deleting the pinned run drops the pin
    with pytest.raises(RunNotFoundError):
        store.get_run(m)
    assert raw_sql(store, "SELECT COUNT(*) FROM memo_findings WHERE run_id = :m", m=m)[0][0] == 0
    assert store.count_runs() == 2


def test_responses_are_stored_once_and_gc_removes_the_unreferenced(store: RunStore) -> None:
    long = "The cohort's loss is $4,820 per month across 15 accounts. " * 40
    results = [make_result(f"s{i}", "smoke", "pass", response=long + str(i % 2)) for i in range(6)]
    r1 = store.record_scenario_run(make_scenario_run(results, when=T0))
    results = [{**r, "numbers": [1.0]} for r in results]  # another verdict detail, same texts
    r2 = store.record_scenario_run(make_scenario_run(results, when=T0 + timedelta(1)))
    # the same content recorded again is the same run (issue 21): nothing added
    assert store.record_scenario_run(make_scenario_run(results, when=T0 + timedelta(2))) == r2
    blobs = raw_sql(store, "SELECT size, LENGTH(data) FROM blobs")
    # two distinct responses plus two distinct verdict details
    assert len(blobs) == 4
    assert all(stored < size / 5 for size, stored in blobs if size > 1000)
    assert [r.response for r in store.get_run(r2).results] == [r["response"] for r in results]
    assert store.gc().blobs_removed == 0
    store.delete_run(r1)
    done = store.gc()
    assert done.blobs_removed == 1 and done.bytes_removed > 0  # only r1's detail blob
    assert [r.response for r in store.get_run(r2).results] == [r["response"] for r in results]
    store.delete_run(r2)
    assert store.gc().blobs_removed == 3
    assert raw_sql(store, "SELECT COUNT(*) FROM blobs")[0][0] == 0


def test_lone_surrogates_never_crash_the_insert(store: RunStore) -> None:
    bad = "bad \ud800 text"
    run = make_scenario_run(
        [make_result(bad, "tier\udfff", "fail", response=bad, error=bad)], when=T0
    )
    rid = store.record_scenario_run(run)
    got = store.get_run(rid).results[0]
    assert got.response == bad  # the response round-trips exactly (stored as bytes)
    assert got.name == "bad \ufffd text"  # a column: made valid UTF-8
    assert got.error == bad  # in the detail blob: JSON-escaped, so it round-trips
    memo = make_memo_evaluation(findings=[{"kind": "ungrounded_entity", "raw": bad}])
    mid = store.record_memo_evaluation(memo.model_copy(update={"portco_id": bad}))
    record = store.get_run(mid)
    assert record.findings[0].raw == "bad \ufffd text"
    assert record.summary.portco_id == "bad \ufffd text"


# --- faults --------------------------------------------------------------------------------


def test_corrupt_rows_are_skipped_with_a_warning(store: RunStore) -> None:
    keep = store.record_memo_evaluation(make_memo_evaluation(when=T0))
    bad = store.record_memo_evaluation(make_memo_evaluation(memo_sha="d" * 64, when=T0))
    s = store.record_scenario_run(
        make_scenario_run([make_result("a", "smoke", "pass"), make_result("b", "smoke", "fail")])
    )
    raw_sql(store, "UPDATE runs SET scores_json = '{not json' WHERE id = :i", i=bad)
    raw_sql(
        store,
        "UPDATE scenario_results SET response_sha256 = 'gone' WHERE run_id = :i AND seq = 1",
        i=s,
    )
    assert {r.id for r in store.list_runs()} == {keep, s}
    assert any(f"skipped run {bad}" in w for w in store.warnings)
    with pytest.raises(HistoryError, match="is corrupt") as info:
        store.get_run(bad)
    assert info.value.input == "run"
    assert [r.name for r in store.get_run(s).results] == ["a"]
    assert any("scenario 1 of run" in w for w in store.warnings)
    if store.is_sqlite:  # a typeless column: wrong types are possible only here
        raw_sql(store, "UPDATE runs SET citation_accuracy = 'high' WHERE id = :i", i=keep)
        raw_sql(store, "UPDATE memo_findings SET start = 'x' WHERE run_id = :i", i=s)
        assert {r.id for r in store.list_runs()} == {s}
        assert any("citation_accuracy" in w for w in store.warnings)


def test_a_lock_held_elsewhere_gives_a_typed_error_within_the_timeout(
    store: RunStore, store_target: str
) -> None:
    store.count_runs()  # created and migrated
    if store.is_sqlite:
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sqlite3, sys, time\n"
                f"c = sqlite3.connect({store_target!r}, isolation_level=None)\n"
                "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(60)\n",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
    else:
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import psycopg, sys, time\n"
                f"c = psycopg.connect({str(store_target)!r})\n"
                "c.execute('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE')\n"
                "print('locked', flush=True); time.sleep(60)\n",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        short = RunStore(store_target, lock_timeout=0.5)
        started = time.monotonic()
        with pytest.raises(HistoryLockedError) as info:
            short.record_memo_evaluation(make_memo_evaluation())
        assert time.monotonic() - started < 5
        assert "stayed locked for 0.5 s" in info.value.message or "0.5 s" in info.value.message
        if store.is_sqlite:
            assert f"pid {holder.pid}" in info.value.message  # who holds it
        assert "do not delete it" in info.value.fix
    finally:
        holder.kill()
        holder.wait()
    assert store.record_memo_evaluation(make_memo_evaluation()) > 0  # fine once released


def test_the_lock_timeout_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PE_EVAL_LOCK_TIMEOUT", "2.5")
    assert RunStore("/tmp/x.sqlite").lock_timeout == 2.5
    monkeypatch.setenv("PE_EVAL_LOCK_TIMEOUT", "soon")
    with pytest.raises(HistoryError, match="PE_EVAL_LOCK_TIMEOUT"):
        RunStore("/tmp/x.sqlite")


def test_database_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert database_url("postgres://u:p@h/db").drivername == "postgresql+psycopg"
    monkeypatch.setenv("PE_EVAL_DATABASE_URL", "postgresql://u:pw@h:5/team")
    assert RunStore().location == "postgresql+psycopg://u:***@h:5/team"
    assert RunStore(tmp_path / "f.sqlite").path == tmp_path / "f.sqlite"  # explicit wins
    for bad in ("mysql://u@h/db", "postgresql://u:secret@h:notaport/db"):
        with pytest.raises(HistoryError) as info:
            RunStore(bad)
        assert "secret" not in str(info.value)


def test_an_unreachable_server_is_a_typed_error(free_port: int) -> None:
    store = RunStore(f"postgresql://u:secret@127.0.0.1:{free_port}/none", lock_timeout=1)
    with pytest.raises(HistoryError) as info:
        store.list_runs()
    assert "cannot connect" in info.value.message and "secret" not in str(info.value)


@pytest.fixture
def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- one schema ----------------------------------------------------------------------------


def test_an_upgraded_file_has_exactly_the_fresh_schema(tmp_path: Path) -> None:
    import sqlite3

    from tests.history.test_history_store import V1_DDL

    old, fresh = tmp_path / "old.sqlite", tmp_path / "fresh.sqlite"
    with sqlite3.connect(old) as conn:
        conn.executescript(V1_DDL)
    RunStore(old).list_runs()
    RunStore(fresh).list_runs()

    def shape(path: Path) -> dict[str, Any]:
        engine = create_engine(f"sqlite:///{path}")
        try:
            insp = inspect(engine)
            return {
                t: (
                    sorted(c["name"] for c in insp.get_columns(t)),
                    sorted(i["name"] for i in insp.get_indexes(t)),
                )
                for t in insp.get_table_names()
                if t != "sqlite_sequence"
            }
        finally:
            engine.dispose()

    assert shape(old) == shape(fresh)
    # the upgraded file still takes and returns the new features
    store = RunStore(old)
    rid = store.record_scenario_run(errored_run(T0))
    assert store.get_run(rid).summary.infra_error
    assert store.get_run("old-scen").results[2].error == "HTTP 502"  # v1 rows, inline columns


# --- the judge cache in the same database ---------------------------------------------------


class CountingJudge(JudgeBase):
    model = "judge-model"
    prompt_version = "judge-v2"
    live = True

    def __init__(self) -> None:
        self.calls = 0

    async def judge(self, scenario: str, response: str, expected: Any, *, context: Any = None):
        from pe_eval_core.scenarios.models import JudgeOutcome, JudgeVerdict

        self.calls += 1
        return JudgeOutcome(
            verdicts=[
                JudgeVerdict(
                    expected=e,
                    verdict="paraphrase",
                    evidence="four thousand",
                    model=self.model,
                    prompt_version=self.prompt_version,
                    reason="same amount",
                )
                for e in expected
            ],
            model=self.model,
            prompt_version=self.prompt_version,
            calls=1,
        )


def test_the_judge_cache_lives_in_the_team_store(store_target: str, tmp_path: Path) -> None:
    from pe_eval_core.scenarios.scoring.judge.cache import CachedJudge

    url = store_target if "://" in store_target else f"sqlite:///{store_target}"
    response = "about four thousand dollars \ud800"
    first = CountingJudge()
    out = asyncio.run(CachedJudge(first, url).judge("s", response, ["roughly four thousand"]))
    assert first.calls == 1 and out.verdicts[0].verdict == "paraphrase"
    second = CountingJudge()  # another process or machine, the same database
    again = asyncio.run(CachedJudge(second, url).judge("s", response, ["roughly four thousand"]))
    assert second.calls == 0 and again.verdicts[0].cached and again.calls == 0
    assert not (tmp_path / "pe_eval_home" / "judge_cache.sqlite3").exists()
    assert CachedJudge(first, url).location == RunStore(url).location


def test_the_judge_cache_follows_the_database_url_variable(
    store_target: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pe_eval_core.scenarios.scoring.judge.cache import CachedJudge

    url = store_target if "://" in store_target else f"sqlite:///{store_target}"
    monkeypatch.setenv("PE_EVAL_DATABASE_URL", url)
    asyncio.run(CachedJudge(CountingJudge()).judge("s", "r", ["x"]))
    assert raw_sql(RunStore(url), "SELECT COUNT(*) FROM judge_verdicts")[0][0] == 1
    monkeypatch.delenv("PE_EVAL_DATABASE_URL")
    file_judge = CachedJudge(CountingJudge(), tmp_path / "cache.sqlite3")  # unchanged default
    asyncio.run(file_judge.judge("s", "r", ["x"]))
    assert (tmp_path / "cache.sqlite3").is_file() and file_judge.location.endswith("cache.sqlite3")


def _same_uid_writer(target: str, start: Any) -> None:
    store = RunStore(target)
    start.wait(10)
    for i in range(10):
        latency = float(os.getpid() * 100 + i)  # each run its own measurement, one run id
        store.record_scenario_run(
            make_scenario_run(
                [make_result("a", "smoke", "pass", latency_ms=latency)], run_id="shared-run-id"
            )
        )


def test_writers_racing_for_one_uid_lose_nothing(store_target: str) -> None:
    import multiprocessing

    RunStore(store_target).count_runs()  # migrated before the race
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [ctx.Process(target=_same_uid_writer, args=(store_target, start)) for _ in range(3)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    runs = RunStore(store_target).list_runs(limit=100)
    assert len(runs) == 30 and len({r.uid for r in runs}) == 30
    assert sum(r.uid == "shared-run-id" for r in runs) == 1


def test_a_history_file_deleted_in_a_long_lived_process_is_recreated(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    RunStore(db).record_memo_evaluation(make_memo_evaluation())
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)  # no connection kept it open
    store = RunStore(db)
    assert store.count_runs() == 0
    assert store.record_memo_evaluation(make_memo_evaluation()) == 1
