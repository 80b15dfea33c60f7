"""Realistic work through the real commands, whole process, for one or more checkouts side by side.

Three workloads, each the median of ``--repeat`` runs (default 5) of a fresh process:

- ``memo``: ``python -m pe_eval_core memo MortgageCo`` on the bundled demo (one memo, end to end);
- ``gate``: ``python -m pe_eval_core gate --data-dir D`` on a folder of 200 memo/source pairs
  (3-5 opportunities each, the demo's producers);
- ``score``: ``python -m pe_eval_core scenarios score`` of 10,000 recorded responses (the demo's
  19 scenarios repeated, each response made unique), no judge.

Pass several checkouts (``--checkout OLD --checkout NEW``) to compare a change in one run on one
machine; the last column is the ratio to the first checkout. Every process gets its own empty
``PE_EVAL_HOME``, so history and caches never carry over between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bench_runner import write_offline_files  # noqa: E402
from benchmarks.synthetic_memos import synthetic_memo, synthetic_source  # noqa: E402


def build_folder(folder: Path, pairs: int) -> Path:
    """``pairs`` memo/source pairs of 3-5 opportunities, deterministic, one portco each."""
    folder.mkdir(parents=True)
    for i in range(pairs):
        source = synthetic_source(3 + i % 3, seed=i)
        source["portco_id"] = portco = f"fund{i:04d}"
        memo = synthetic_memo(source)
        memo["source_opportunity_map"] = f"dx_report_{portco}.json"
        (folder / f"dx_report_{portco}.json").write_text(json.dumps(source), encoding="utf-8")
        (folder / f"explain_{portco}_board.json").write_text(json.dumps(memo), encoding="utf-8")
    return folder


def run_once(cmd: list[str], cwd: Path, ok: set[int]) -> float:
    """Wall time of one fresh process; a failing command aborts the benchmark."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PE_EVAL_HOME": home}
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} in {cwd} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return elapsed


def timed(cmd: list[str], checkouts: list[Path], repeat: int, ok: set[int]) -> list[float]:
    """Median per checkout; runs alternate between checkouts so load hits them alike."""
    times: list[list[float]] = [[] for _ in checkouts]
    for _ in range(repeat):
        for i, checkout in enumerate(checkouts):
            times[i].append(run_once(cmd, checkout, ok))
    return [statistics.median(t) for t in times]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", type=Path, help="repo root (repeatable)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--responses", type=int, default=10_000)
    args = parser.parse_args(argv)
    checkouts = [c.resolve() for c in (args.checkout or [HERE.parent])]
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_folder(Path(tmp) / "fund", args.pairs)
        scen, resp = write_offline_files(args.responses, Path(tmp))
        cli = [py, "-m", "pe_eval_core"]
        gate = ["gate", "--data-dir", str(folder), "--memo-thresholds", "citation=1.0"]
        score = ["scenarios", "score", "--scenarios", str(scen), "--responses", str(resp)]
        workloads = {
            "memo MortgageCo (1 memo)": ([*cli, "memo", "MortgageCo"], {0}),
            f"gate ({args.pairs} pairs)": ([*cli, *gate, "--no-record"], {0, 1}),
            f"scenarios score ({args.responses:,})": (
                [*cli, *score, "--no-judge", "--out", str(Path(tmp) / "out")],
                {0, 1},
            ),
        }
        print(f"median of {args.repeat} whole-process runs, seconds")
        print(f"{'workload':<32}" + "".join(f"{c.name:>14}" for c in checkouts) + "   ratio")
        for label, (cmd, ok) in workloads.items():
            row = timed(cmd, checkouts, args.repeat, ok)
            ratio = f"{row[-1] / row[0]:.2f}x" if len(row) > 1 else ""
            print(f"{label:<32}" + "".join(f"{t:>14.3f}" for t in row) + f"   {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
