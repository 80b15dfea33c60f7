"""Benchmark the run history: SQL aggregates against loading every row, so the History page's
cost shows up as a ratio as the database grows.

For histories of N scenario runs (19 verdicts each, the demo's size) plus N memo evaluations,
it times, best of R:

* record: one ``record_scenario_run`` (a write transaction with its SQL-computed summary);
* list: ``list_runs(limit=500)`` (the runs table);
* trend: ``tier_trend()`` (pass rate per tier per run, GROUP BY in SQLite);
* naive: the same tier trend computed in pandas after loading every verdict row, the approach
  TruLens' leaderboard moved away from;

and prints the naive/trend ratio and the growth of ``list`` from the smallest to the largest
size. Targets: trend at least 2x faster than naive at the largest size; ``list`` stays within
3x of its smallest-size time (it reads one indexed page of summary rows, not the detail; the
smallest size should already hold a full page of 500).

Then the cost of recording one large run: ``--record-n`` (default 10,000) recorded responses
(``bench_runner``'s offline files: the demo's responses, each made unique) are scored, and the
run is recorded into a fresh history; scoring and recording alternate ``--repeat`` times and
the medians give recording / scoring (target <= 0.2) and the bytes the run adds to the file
(target <= 5 MB), next to the size of the responses themselves.

    python benchmarks/bench_history.py [--sizes 300,1000,5000] [--repeat 3] [--record-n 10000]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache, partial
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pe_eval_core.history.store import RunStore  # noqa: E402
from pe_eval_core.memo import MemoEvaluation, grade_memo  # noqa: E402
from pe_eval_core.scenarios import ScenarioRun  # noqa: E402

TIERS = ["smoke"] * 6 + ["functional"] * 8 + ["adversarial"] * 5
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def scenario_run(i: int) -> ScenarioRun:
    start = T0 + timedelta(minutes=i)
    return ScenarioRun.model_validate(
        {
            "run_id": f"bench-{i}",
            "started_at": start,
            "finished_at": start + timedelta(seconds=3),
            "scenarios_path": "/bench/mimic-scenarios.json",
            "target": "recorded:/bench/responses.json",
            "results": [
                {
                    "name": f"scenario-{j}",
                    "tier": tier,
                    "status": "pass" if (i + j) % 5 else "fail",
                    "expectations": [{"text": "$4,820", "satisfied": True, "method": "strict"}],
                    "numbers": [4820.0, 15.0, 100.0],
                    "response": "x" * 1500,
                }
                for j, tier in enumerate(TIERS)
            ],
        }
    )


_DEMO = ROOT / "finance_output"


@cache
def _demo_memo() -> MemoEvaluation:
    return grade_memo(_DEMO / "explain_MortgageCo_board.json", _DEMO / "dx_report_MortgageCo.json")


def memo_eval(i: int) -> MemoEvaluation:
    """The demo MortgageCo board evaluation, re-dated and re-named per run."""
    when = (T0 + timedelta(minutes=i)).isoformat()
    return _demo_memo().model_copy(update={"portco_id": f"P{i % 3}", "evaluated_at": when})


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def naive_tier_trend(db: Path) -> pd.DataFrame:
    with sqlite3.connect(db) as conn:
        frame = pd.read_sql_query(
            "SELECT r.id, r.created_at, s.tier, s.status, s.response, s.detail_json "
            "FROM runs r JOIN scenario_results s ON s.run_id = r.id",
            conn,
        )
    frame["passed"] = frame["status"] == "pass"
    return frame.groupby(["id", "created_at", "tier"])["passed"].agg(["sum", "count", "mean"])


def file_bytes(db: Path) -> int:
    """The database's size with its WAL folded in."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.stat().st_size


def bench_recording(n: int, repeat: int) -> bool:
    import asyncio
    import statistics

    from bench_runner import write_offline_files

    from pe_eval_core.scenarios import RecordedTarget, load_scenarios, run_scenarios

    score_t, record_t, added = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        sp, rp = write_offline_files(n, Path(tmp))
        for i in range(repeat):
            start = time.perf_counter()
            run = asyncio.run(
                run_scenarios(
                    load_scenarios(sp), RecordedTarget(rp), concurrency=8, save_responses=False
                )
            )
            score_t.append(time.perf_counter() - start)
            db = Path(tmp) / f"r{i}.sqlite"
            store = RunStore(db)
            store.count_runs()  # created and migrated: not part of recording a run
            before = file_bytes(db)
            start = time.perf_counter()
            store.record_scenario_run(run)
            record_t.append(time.perf_counter() - start)
            added.append(file_bytes(db) - before)
        text_bytes = sum(len((r.response or "").encode()) for r in run.results)
    score, record = statistics.median(score_t), statistics.median(record_t)
    ratio, size = record / score, statistics.median(added)
    print(
        f"record a {n:,}-scenario run: scoring {score:.2f} s, recording {record:.2f} s "
        f"(runs: {', '.join(f'{t:.2f}' for t in record_t)}) = {ratio:.3f} of scoring "
        f"(target <= 0.2); adds {size / 1e6:.2f} MB to the file (target <= 5 MB; the "
        f"responses alone are {text_bytes / 1e6:.1f} MB)"
    )
    return ratio <= 0.2 and size <= 5e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="300,1000,5000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--record-n", type=int, default=10_000)
    ap.add_argument("--only-record", action="store_true", help="only the recording section")
    ap.add_argument(
        "--check", action="store_true", help="exit 1 when a target is missed (default: report)"
    )
    args = ap.parse_args()
    if args.only_record:
        return 0 if bench_recording(args.record_n, args.repeat) or not args.check else 1
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            db = Path(tmp) / f"h{n}.sqlite"
            store = RunStore(db)
            t = time.perf_counter()
            for i in range(n):
                store.record_scenario_run(scenario_run(i))
                store.record_memo_evaluation(memo_eval(i))
            fill = time.perf_counter() - t
            record = best(partial(store.record_scenario_run, scenario_run(n)), args.repeat)
            listing = best(partial(store.list_runs, limit=500), args.repeat)
            trend = best(store.tier_trend, args.repeat)
            naive = best(partial(naive_tier_trend, db), args.repeat)
            assert len(store.tier_trend()) == len(naive_tier_trend(db))
            rows.append((n, fill / (2 * n), record, listing, trend, naive))
            print(
                f"n={n:>6} runs x2: write {fill / (2 * n) * 1e3:6.2f} ms/run  "
                f"record {record * 1e3:6.2f} ms  list {listing * 1e3:7.2f} ms  "
                f"trend {trend * 1e3:8.2f} ms  naive {naive * 1e3:8.2f} ms  "
                f"naive/trend {naive / trend:5.1f}x"
            )
    n_small, *_, list_small = rows[0][:4]
    n_big, _, _, list_big, trend_big, naive_big = rows[-1]
    growth = list_big / list_small
    speedup = naive_big / trend_big
    print(f"list growth {n_small}->{n_big}: {growth:.2f}x (target <= 3x)")
    print(f"SQL trend vs pandas over every row at n={n_big}: {speedup:.1f}x (target >= 2x)")
    ok = growth <= 3 and speedup >= 2
    ok = bench_recording(args.record_n, args.repeat) and ok
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
