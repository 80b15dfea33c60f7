"""Time the memo grader per memo, from a demo-sized memo up to a synthetic stress size.

For synthetic pairs of 10, 100, 1,000 and 10,000 opportunities (about five figures and three
entities each) it times, best of N:

* floor: ``json.loads`` of both files + one money/percent regex pass over all prose (context:
  the least any grader must do);
* scoring: ``pe_eval_core.memo.grade_memo`` (reads, grades, writes nothing);
* full: ``pe_eval_core.eval_pe_output`` (grades and writes the HTML and JSON scorecards);

and prints time per memo and per opportunity, and the peak memory of a fresh process running
the full call at the largest size. The 10-opportunity row is the realistic figure (the demo
memos have 5 to 10 opportunities); the larger sizes show how the grader scales. The ratio to
the floor is printed for context only: it is not a target (issue 8). Each size runs in a fresh
interpreter; the default clock is CPU time (the machine is shared, so wall time mostly
measures neighbours).

    python benchmarks/bench_memo.py [--sizes 10,100,1000,10000] [--repeat N] [--clock wall]
    python benchmarks/bench_memo.py --profile 10000     # where the grader's time goes
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import pstats
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.synthetic_memos import write_pair  # noqa: E402

SIZES = (10, 100, 1_000, 10_000)
PROSE_FIELDS = ("narrative", "counterfactual", "risk_of_inaction", "rollout")

# The floor's one regex pass: every money amount or percentage in the prose.
FLOOR_RE = re.compile(
    r"""
    \$-?\(?\d[\d,]*(?:\.\d+)?\)?[KMB]?   # $564.8M, $-1.2M, $12,340, $(5.2)M
    | \d+(?:\.\d+)?%                     # 12.3%
    """,
    re.VERBOSE,
)

# Peak RSS from /proc (VmHWM): unlike ru_maxrss it is not inherited from the forking parent.
MEMORY_PROBE = """
import json, re, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
def hwm_kb():
    with open("/proc/self/status") as fh:
        return int(re.search(r"VmHWM:\\s+(\\d+)", fh.read())[1])
from pe_eval_core.memo import eval_pe_output
before = hwm_kb()
eval_pe_output(sys.argv[2], sys.argv[3])
peak = hwm_kb()
tracemalloc.start()
eval_pe_output(sys.argv[2], sys.argv[3])
_, traced = tracemalloc.get_traced_memory()
print(json.dumps({"rss_after_import_kb": before, "rss_peak_kb": peak, "traced_peak_b": traced}))
"""


def floor(memo_path: Path, source_path: Path) -> int:
    """The least any grader must do: parse both files, scan the prose once."""
    memo = json.loads(memo_path.read_bytes())
    json.loads(source_path.read_bytes())
    prose = "\n".join(
        str(o.get(f, "")) for o in memo["opportunities_explained"] for f in PROSE_FIELDS
    )
    return len(FLOOR_RE.findall(prose))


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def best_of(
    fns: dict[str, Callable[[], Any]], repeat: int, clock: str = "cpu"
) -> tuple[dict[str, float], dict[str, Any]]:
    """Minimum time per function over ``repeat`` rounds, the functions interleaved in each
    round (so load drift on a shared machine hits all of them alike); one warm-up round."""
    tick = CLOCKS[clock]
    results = {name: fn() for name, fn in fns.items()}
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            start = tick()
            results[name] = fn()
            best[name] = min(best[name], tick() - start)
    return best, results


def default_repeat(size: int) -> int:
    return {10: 20, 100: 10, 1_000: 5}.get(size, 3)


@dataclass
class Row:
    size: int
    figures: str
    entities: str
    floor_s: float
    grade_s: float
    full_s: float

    @property
    def grade_ratio(self) -> float:
        return self.grade_s / self.floor_s

    @property
    def full_ratio(self) -> float:
        return self.full_s / self.floor_s

    def per_opp_us(self, seconds: float) -> float:
        return seconds / self.size * 1e6


def measure(size: int, folder: Path, repeat: int | None, clock: str) -> Row:
    """Time the three calls at ``size`` in this process (run it in a fresh one per size)."""
    from pe_eval_core.memo import eval_pe_output, grade_memo

    memo_path, source_path = write_pair(folder / f"n{size}", size)
    best, results = best_of(
        {
            "floor": lambda: floor(memo_path, source_path),
            "grade": lambda: grade_memo(memo_path, source_path),
            "full": lambda: eval_pe_output(str(memo_path), str(source_path)),
        },
        repeat or default_repeat(size),
        clock,
    )
    t = results["grade"].totals
    return Row(
        size,
        f"{t.figures_cited}/{t.figures_total}",
        f"{t.entities_grounded}/{t.entities_total}",
        best["floor"],
        best["grade"],
        best["full"],
    )


def measure_in_subprocess(size: int, folder: Path, repeat: int | None, clock: str) -> Row:
    """Each size in a fresh interpreter, so one size's heap never slows the next."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(size)]
    cmd += ["--folder", str(folder), "--clock", clock]
    if repeat:
        cmd += ["--repeat", str(repeat)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"benchmark worker for {size} failed:\n{out.stderr}")
    return Row(**json.loads(out.stdout.strip().splitlines()[-1]))


def memory(size: int, folder: Path) -> dict[str, float]:
    """Peak RSS (fresh process) and traced Python heap of one full call at ``size``."""
    memo_path, source_path = write_pair(folder / f"n{size}", size)
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(ROOT), str(memo_path), str(source_path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "rss_after_import_mb": data["rss_after_import_kb"] / 1024,
        "rss_peak_mb": data["rss_peak_kb"] / 1024,
        "traced_peak_mb": data["traced_peak_b"] / 2**20,
    }


def profile(size: int, folder: Path, top: int = 25) -> str:
    """cProfile of ``grade_memo`` and ``eval_pe_output`` at ``size``: top functions by own time."""
    from pe_eval_core.memo import eval_pe_output, grade_memo

    memo_path, source_path = write_pair(folder / f"n{size}", size)
    eval_pe_output(str(memo_path), str(source_path))  # warm caches and imports
    report = io.StringIO()
    for name, call in (
        ("grade_memo", lambda: grade_memo(memo_path, source_path)),
        ("eval_pe_output", lambda: eval_pe_output(str(memo_path), str(source_path))),
    ):
        prof = cProfile.Profile()
        prof.runcall(call)
        report.write(f"\n=== {name} at {size:,} opportunities ===\n")
        stats = pstats.Stats(prof, stream=report).strip_dirs()
        stats.sort_stats("tottime").print_stats(top)
        stats.sort_stats("cumulative").print_stats(top)
    return report.getvalue()


def report(rows: list[Row], mem: dict[str, float] | None) -> str:
    lines = [
        "| opps | figures cited | entities grounded | floor ms | scoring ms | full ms "
        "| scoring/floor | full/floor | scoring us/opp | full us/opp |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.size:,} | {r.figures} | {r.entities} | {r.floor_s * 1e3:.2f} "
            f"| {r.grade_s * 1e3:.2f} | {r.full_s * 1e3:.2f} | {r.grade_ratio:.1f}x "
            f"| {r.full_ratio:.1f}x | {r.per_opp_us(r.grade_s):.0f} "
            f"| {r.per_opp_us(r.full_s):.0f} |"
        )
    by_size = {r.size: r for r in rows}
    if 100 in by_size and 10_000 in by_size:
        lines.append("")
        small, big = by_size[100], by_size[10_000]
        for label, attr in (("scoring", "grade_s"), ("full", "full_s")):
            scale = big.per_opp_us(getattr(big, attr)) / small.per_opp_us(getattr(small, attr))
            lines.append(f"{label:7} per-opp time at 10,000 vs 100: {scale:.2f}x")
    if mem is not None:
        lines.append(
            f"peak memory at {max(by_size):,} (fresh process, full call): "
            f"{mem['rss_peak_mb']:.0f} MB RSS (of which {mem['rss_after_import_mb']:.0f} MB "
            f"after imports; traced Python heap peak {mem['traced_peak_mb']:.0f} MB)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=None, help="best of N (default by size)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory probe")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="cpu: process time, robust on a shared machine (default); wall",
    )
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--profile",
        type=int,
        default=None,
        metavar="SIZE",
        help="print a cProfile of both calls at SIZE and exit",
    )
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.worker:
        row = measure(args.worker, args.folder, args.repeat, args.clock)
        print(json.dumps(row.__dict__))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench_memo_") as tmp:
        folder = Path(tmp)
        if args.profile:
            print(profile(args.profile, folder))
            return 0
        rows = []
        for size in sizes:
            rows.append(measure_in_subprocess(size, folder, args.repeat, args.clock))
            print(f"measured {size:,} opportunities", file=sys.stderr, flush=True)
        mem = None if args.no_memory else memory(max(sizes), folder)
    print(
        f"clock: {args.clock} time, best of N per size, calls interleaved; fresh process per size"
    )
    print(report(rows, mem))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
