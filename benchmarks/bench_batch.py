"""Batch grading at fund scale: per-memo time vs folder size, serial and on --jobs, the gate,
and CLI start-up against ``python -c pass``.

    python benchmarks/bench_batch.py [--sizes 100 500 1000] [--before /path/to/old/checkout]

Folders hold board + operator memos per portco (3-5 opportunities each). Prints tables.
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

from benchmarks.synthetic_memos import synthetic_memo, synthetic_source  # noqa: E402
from pe_eval_core.memo.batch import grade_folder  # noqa: E402


def build_folder(folder: Path, pairs: int) -> Path:
    """``pairs`` memos: board and operator per portco (pairs/2 portcos), deterministic."""
    folder.mkdir(parents=True)
    for i in range((pairs + 1) // 2):
        source = synthetic_source(3 + i % 3, seed=i)
        source["portco_id"] = portco = f"fund{i:04d}"
        (folder / f"dx_report_{portco}.json").write_text(json.dumps(source), encoding="utf-8")
        for audience in ("board", "operator")[: min(2, pairs - 2 * i)]:
            memo = synthetic_memo(source)
            memo["audience"] = audience
            memo["source_opportunity_map"] = f"dx_report_{portco}.json"
            name = f"explain_{portco}_{audience}.json"
            (folder / name).write_text(json.dumps(memo), encoding="utf-8")
    return folder


def timed(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(cmd: list[str], cwd: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "PE_EVAL_HOME": home, "PYTHONPATH": str(cwd)}
            start = time.perf_counter()
            done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return statistics.median(times)


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n{title}")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="an older checkout for the start-up ratio")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folders = {n: build_folder(Path(tmp) / f"f{n}", n) for n in args.sizes}
        per_memo: dict[tuple[int, int], float] = {}
        for n, folder in folders.items():
            for jobs in (1, 2):
                wall = timed(lambda f=folder, j=jobs: grade_folder(f, jobs=j), args.repeat)
                per_memo[(n, jobs)] = wall / n
        small, big = min(args.sizes), max(args.sizes)
        rows = []
        for jobs in (1, 2):
            cells = [f"--jobs {jobs}"]
            cells += [f"{per_memo[(n, jobs)] * 1000:.2f} ms" for n in args.sizes]
            cells.append(f"{per_memo[(big, jobs)] / per_memo[(small, jobs)]:.2f}x")
            rows.append(cells)
        table(
            f"Per-memo grading time (grade_folder, median of {args.repeat})",
            ["", *[f"{n} memos" for n in args.sizes], f"{big} vs {small}"],
            rows,
        )
        repo = HERE.parent
        gate_rows = []
        for n in (big,):
            for extra in ([], ["--no-record"]):
                cmd = [sys.executable, "-m", "pe_eval_core", "gate", "--data-dir", str(folders[n])]
                cmd += ["--memo-thresholds", "citation=0.0", *extra]
                wall = run(cmd, repo, 1)
                gate_rows.append([f"{n} memos", " ".join(extra) or "(recording)", f"{wall:.2f} s"])
        table(
            f"gate wall time ({os.cpu_count()} cores, default --jobs)",
            ["folder", "", "wall"],
            gate_rows,
        )
        checkouts = [("after", repo)] + ([("before", args.before)] if args.before else [])
        base = run([sys.executable, "-c", "pass"], repo, 5)
        rows = []
        for label, checkout in checkouts:
            for words in (["memo", "--help"], ["memo", "MortgageCo"]):
                cmd = [sys.executable, "-m", "pe_eval_core", *words]
                if words[-1] == "MortgageCo":
                    cmd += ["--data-dir", str(repo / "finance_output"), "--out-dir", tmp]
                wall = run(cmd, checkout, 5)
                rows.append(
                    [label, " ".join(words), f"{wall * 1000:.0f} ms", f"{wall / base:.1f}x"]
                )
        table(
            f"CLI start-up (python -c pass: {base * 1000:.0f} ms)",
            ["checkout", "command", "wall", "vs python -c pass"],
            rows,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
