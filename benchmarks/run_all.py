"""Run every benchmark script with a tiny size and fail if any of them fails (CI: .ci/run).

A benchmark prints ratios against its targets and exits 0 when it ran, whether a target was
met or not (a tiny size on a shared runner says nothing about a ratio; ``--check`` makes a
script exit 1 on a missed target); it exits non-zero when it could not run or found wrong
results. A script whose prerequisite is missing (Chromium, the Mimic stack, PostgreSQL)
says so and exits 0. Every ``bench_*.py`` must have an entry in :data:`TINY`.

    python benchmarks/run_all.py [--only bench_memo bench_batch ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TINY: dict[str, list[str]] = {
    "bench_agent_stack": ["--repeat", "1"],
    "bench_agreement": ["--quiet"],
    "bench_batch": ["--sizes", "10", "20"],
    "bench_dashboard": ["--repeat", "1", "--scenarios", "40"],
    "bench_derivations": ["--repeat", "1", "--sizes", "2000", "--chance-n", "20"],
    "bench_documents": ["--skip-planted"],
    "bench_first_paint": ["--repeat", "1", "--pages", "minimal app", "scorecard"],
    "bench_first_paint_trees": ["--repeat", "1"],  # this checkout only
    "bench_freeform": [],
    "bench_history": ["--sizes", "20,40", "--repeat", "1", "--record-n", "200"],
    "bench_hostile": ["--sizes", "0.05", "--skip-before"],
    "bench_memo": ["--sizes", "10,50", "--repeat", "1", "--no-memory"],
    "bench_number_values": ["--n", "200", "--repeat", "1"],
    "bench_peer": ["--repeat", "1"],  # without --peer (no checkout of the producer): skips
    "bench_portfolio": ["--pairs", "6", "12", "--repeat", "1"],
    "bench_runner": ["--scenarios", "8", "--offline", "200", "--repeat", "1", "--cli-repeat", "1"],
    "bench_startup": ["--repeat", "1", "--tree-repeat", "1", "--top", "2"],
    "bench_store_backends": ["--runs", "40", "--repeat", "1"],
    "bench_surfaces": ["--repeat", "1", "--pairs", "4", "--responses", "100"],
}
"""Each script and the arguments of its tiny run."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(TINY))
    args = parser.parse_args(argv)
    scripts = sorted(p.stem for p in HERE.glob("bench_*.py"))
    missing = [s for s in scripts if s not in TINY]
    if missing:
        print(f"no tiny arguments for {', '.join(missing)}: add them to TINY", file=sys.stderr)
        return 2
    failed = []
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    for name in args.only or scripts:
        cmd = [sys.executable, str(HERE / f"{name}.py"), *TINY[name]]
        started = time.perf_counter()
        done = subprocess.run(cmd, cwd=HERE.parent, env=env, capture_output=True, text=True)
        took = time.perf_counter() - started
        status = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
        print(f"{name:<22} {took:7.1f} s  {status}", flush=True)
        if done.returncode != 0:
            failed.append(name)
            print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
    print(f"{len(failed)} of {len(args.only or scripts)} benchmark scripts failed" if failed
          else "every benchmark script ran")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
