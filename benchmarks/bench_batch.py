"""A fund's folder at scale: per-memo CPU of ``memo --all`` from 100 to 10,000 memos, serial
and on two jobs, what the fsyncs cost, and the gate.

1. In process: ``memo.batch.grade_and_write`` (grade, render, write the scorecard pair, take
   the verdict and history rows: ``memo --all``'s whole job per memo), ``--jobs 1``, CPU and
   wall per memo at each size. Target: per-memo CPU at the largest size within 1.3x of the
   smallest (the folder is linear).
2. Whole process: ``python -m pe_eval_core memo --all`` (history recorded) at each size with
   ``--jobs 1`` and ``--jobs 2``: CPU (the command and its workers) and wall per memo.
3. The fsync policy (every scorecard and sidecar is fsynced before it replaces the previous
   one; see ``memo.outputs._write_temp``): the in-process run at the middle size again with
   ``os.fsync`` a no-op, so the difference is what durability costs.
4. ``gate --data-dir`` wall time at the smallest size, recording and not.

Folders hold board + operator memos per portco (3-5 opportunities each), deterministic.

    python benchmarks/bench_batch.py [--sizes 100 1000 10000] [--repeat 1]
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
from collections.abc import Callable
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.synthetic_memos import synthetic_memo, synthetic_source  # noqa: E402
from pe_eval_core.memo.batch import grade_and_write  # noqa: E402
from pe_eval_core.memo.folder_index import FolderIndex  # noqa: E402
from pe_eval_core.memo.pairs import scan_memo_pairs  # noqa: E402

TARGET_LINEAR = 1.3


def build_folder(folder: Path, pairs: int) -> Path:
    """``pairs`` memos: board and operator per portco (pairs/2 portcos), deterministic."""
    folder.mkdir(parents=True)
    for i in range((pairs + 1) // 2):
        source = synthetic_source(3 + i % 3, seed=i)
        source["portco_id"] = portco = f"fund{i:05d}"
        (folder / f"dx_report_{portco}.json").write_text(json.dumps(source), encoding="utf-8")
        for audience in ("board", "operator")[: min(2, pairs - 2 * i)]:
            memo = synthetic_memo(source)
            memo["audience"] = audience
            memo["source_opportunity_map"] = f"dx_report_{portco}.json"
            name = f"explain_{portco}_{audience}.json"
            (folder / name).write_text(json.dumps(memo), encoding="utf-8")
    return folder


def in_process(folder: Path, out: Path) -> tuple[float, float]:
    """CPU and wall seconds of ``memo --all``'s work on ``folder``, serial, in this process."""
    cpu, wall = time.process_time(), time.perf_counter()
    pairs, _ = scan_memo_pairs(folder)
    done = grade_and_write(pairs, FolderIndex.scan(folder), jobs=1, out_dir=out)
    assert len(done) == len(pairs) and all(item.error is None for item in done)
    return time.process_time() - cpu, time.perf_counter() - wall


def whole_process(cmd: list[str], home: Path) -> tuple[float, float]:
    """CPU (the process and the workers it reaped) and wall seconds of one command."""
    env = {**os.environ, "PE_EVAL_HOME": str(home), "PYTHONPATH": str(HERE.parent)}
    env.pop("PE_EVAL_NO_HISTORY", None)
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{err.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, wall


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n{title}")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def ms(seconds: float, n: int) -> str:
    return f"{seconds / n * 1000:.2f} ms"


def bench_linear(
    sizes: list[int], folders: dict[int, Path], out_dir: Callable[[], Path], repeat: int
) -> bool:
    """1. memo --all's work in process, serial: per-memo CPU by folder size."""
    in_proc: dict[int, tuple[float, float]] = {}
    for n in sizes:
        results = [in_process(folders[n], out_dir()) for _ in range(repeat)]
        in_proc[n] = (
            statistics.median(c for c, _ in results),
            statistics.median(w for _, w in results),
        )
    small, big = sizes[0], sizes[-1]
    ratio = (in_proc[big][0] / big) / (in_proc[small][0] / small)
    ok = ratio <= TARGET_LINEAR
    table(
        f"1. memo --all's work in process, --jobs 1 (median of {repeat})",
        ["memos", "CPU per memo", "wall per memo"],
        [[f"{n:,}", ms(in_proc[n][0], n), ms(in_proc[n][1], n)] for n in sizes],
    )
    print(f"per-memo CPU at {big:,} vs {small:,}: {ratio:.2f}x | target <= "
          f"{TARGET_LINEAR}: {'OK' if ok else 'MISSED'}")  # fmt: skip
    return ok


def bench_cli(
    sizes: list[int], folders: dict[int, Path], out_dir: Callable[[], Path], root: Path
) -> None:
    """2. the whole command, serial and on two jobs."""
    rows = []
    for n in sizes:
        for jobs in (1, 2):
            cmd = [sys.executable, "-m", "pe_eval_core", "memo", "--all", "--data-dir"]
            cmd += [str(folders[n]), "--jobs", str(jobs), "--out-dir", str(out_dir())]
            cpu, wall = whole_process(cmd, root / f"home{n}-{jobs}")
            rows.append([f"{n:,}", f"--jobs {jobs}", ms(cpu, n), ms(wall, n)])
    table(
        f"2. python -m pe_eval_core memo --all, history on ({os.cpu_count()} cores)",
        ["memos", "", "CPU per memo (with workers)", "wall per memo"],
        rows,
    )


def bench_fsync(n: int, folders: dict[int, Path], out_dir: Callable[[], Path]) -> None:
    """3. the fsync policy, with and without the fsyncs."""
    with mock.patch("os.fsync", lambda fd: None):
        no_sync = in_process(folders[n], out_dir())
    synced = in_process(folders[n], out_dir())
    table(
        f"3. what the fsyncs cost ({n:,} memos, two fsynced files each, in process)",
        ["", "CPU per memo", "wall per memo"],
        [
            ["fsync before each rename (the policy)", ms(synced[0], n), ms(synced[1], n)],
            ["os.fsync a no-op", ms(no_sync[0], n), ms(no_sync[1], n)],
        ],
    )


def bench_gate(n: int, folders: dict[int, Path], root: Path) -> None:
    """4. the gate's wall time, recording and not."""
    rows = []
    for extra in ([], ["--no-record"]):
        cmd = [sys.executable, "-m", "pe_eval_core", "gate", "--data-dir", str(folders[n])]
        cmd += ["--memo-thresholds", "citation=0.0", *extra]
        _, wall = whole_process(cmd, root / f"gate-home{len(extra)}")
        rows.append([f"{n:,} memos", " ".join(extra) or "(recording)", f"{wall:.2f} s"])
    table("4. gate wall time (default --jobs)", ["folder", "", "wall"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000])
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    parser.add_argument("--only", choices=("linear", "cli", "fsync", "gate"))
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a target is missed (default: report)"
    )
    args = parser.parse_args(argv)
    run = {args.only} if args.only else {"linear", "cli", "fsync", "gate"}
    sizes = sorted(args.sizes)
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        root = Path(tmp)
        folders = {n: build_folder(root / f"f{n}", n) for n in sizes}
        count = iter(range(10**6))

        def out_dir() -> Path:
            return root / f"out{next(count)}"

        ok = True
        if "linear" in run:
            ok = bench_linear(sizes, folders, out_dir, args.repeat)
        if "cli" in run:
            bench_cli(sizes, folders, out_dir, root)
        if "fsync" in run:
            bench_fsync(sizes[len(sizes) // 2], folders, out_dir)
        if "gate" in run:
            bench_gate(sizes[0], folders, root)
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
