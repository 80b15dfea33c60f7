"""PostgreSQL against SQLite behind the same ``RunStore``: history list, show, compare and
trend at 10,000 runs, as ratios.

Both stores get the same N runs (half scenario runs of 19 verdicts, half memo gradings), then
each operation runs ``--repeat`` times, alternating backend on every repetition (other
engineers load the CPU; alternating spreads that load over both), and the medians are
printed with the PostgreSQL / SQLite ratio. PostgreSQL is a throwaway local server
(``scripts/local_postgres.py``) on 127.0.0.1, so the ratio includes its TCP round trips.

    python benchmarks/bench_store_backends.py [--runs 10000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_history import memo_eval, scenario_run  # noqa: E402
from local_postgres import LocalPostgres  # noqa: E402

from pe_eval_core.history.compare import compare_runs  # noqa: E402
from pe_eval_core.history.store import RunStore  # noqa: E402


def fill(store: RunStore, runs: int) -> float:
    start = time.perf_counter()
    batch = []
    for i in range(runs // 2):
        store.record_scenario_run(scenario_run(i))
        batch.append(memo_eval(i).model_copy(update={"memo_sha256": f"{i:064x}"}))
        if len(batch) == 200:
            store.record_memo_evaluations(batch)
            batch = []
    if batch:
        store.record_memo_evaluations(batch)
    return time.perf_counter() - start


def operations(store: RunStore) -> dict[str, Callable[[], object]]:
    latest = store.resolve("latest", kind="scenarios")
    before = store.resolve("latest~1", kind="scenarios")
    return {
        "list (500 newest)": lambda: store.list_runs(limit=500),
        "show (19 verdicts)": lambda: store.get_run(latest),
        "compare (2 runs)": lambda: compare_runs(store, before, latest),
        "trend (tiers, all runs)": store.tier_trend,
        "trend (memo, all runs)": store.memo_trend,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalPostgres() as pg:
        stores = {"sqlite": RunStore(Path(tmp) / "h.sqlite"), "postgresql": RunStore(pg.url)}
        for name, store in stores.items():
            took = fill(store, args.runs)
            print(f"filled {name} with {store.count_runs():,} runs in {took:.1f} s")
        ops = {name: operations(store) for name, store in stores.items()}
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for backend in stores:  # alternate backends on every repetition
                for op, fn in ops[backend].items():
                    start = time.perf_counter()
                    fn()
                    times.setdefault((backend, op), []).append(time.perf_counter() - start)
        print(f"\nmedian of {args.repeat}, {args.runs:,} runs, backends alternated")
        print("| operation | SQLite | PostgreSQL | PG / SQLite |")
        print("|---|---|---|---|")
        for op in ops["sqlite"]:
            lite = statistics.median(times[("sqlite", op)])
            post = statistics.median(times[("postgresql", op)])
            print(f"| {op} | {lite * 1e3:.1f} ms | {post * 1e3:.1f} ms | {post / lite:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
