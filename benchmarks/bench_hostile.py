"""Hostile-size memos before and after the limits (issue 14): time, peak memory, output bytes.

Generates (never commits) memos whose prose is ``"1% "`` repeated, from the MortgageCo demo
memo, and grades each in a fresh interpreter (``grade_memo`` + ``write_outputs``), printing
wall time, the child's peak RSS (``getrusage`` in the child) and the bytes written:

* ``one block``: all of it in one narrative (refused by the prose-length limit);
* ``spread``: the same bytes over 50,000-character blocks (each under the prose limit; refused
  by the figures limit while parsing);
* ``within``: 45,000 characters, under every limit (graded: the cost of the densest memo
  the limits let through, 15,000 figures, all ungrounded).

"before" runs with every limit raised out of reach (``PE_EVAL_MAX_*`` set to 10**12), which
is the grader without limits; a before run is capped at ``--before-mem`` GB of address space
and ``--timeout`` seconds, so a runaway ends as MemoryError/timeout instead of swapping.

    python benchmarks/bench_hostile.py [--sizes 2,10] [--skip-before] [--before-mem 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "finance_output"
MEMO = "explain_MortgageCo_board.json"
SOURCE = "dx_report_MortgageCo.json"
UNLIMITED = {
    name: str(10**12)
    for name in (
        "PE_EVAL_MAX_INPUT_BYTES",
        "PE_EVAL_MAX_FIGURES",
        "PE_EVAL_MAX_FINDINGS",
        "PE_EVAL_MAX_PROSE_CHARS",
    )
}
CHILD = """
import resource, sys
from pe_eval_core.errors import PeEvalError
from pe_eval_core.memo import grade_memo, write_outputs
try:
    write_outputs(grade_memo(sys.argv[1], sys.argv[2]))
    outcome = "graded"
except PeEvalError as err:
    outcome = f"{type(err).__name__}: {err.message.split(': ', 1)[1][:100]}"
except MemoryError:
    outcome = "MemoryError"
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
print(outcome)
"""


def make_case(folder: Path, chars: int, block: int | None) -> Path:
    """A copy of the demo pair whose first opportunity carries ``chars`` of ``"1% "``, in one
    narrative (``block`` None) or in extra blocks of ``block`` characters."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / SOURCE, folder / SOURCE)
    memo = json.loads((DATA / MEMO).read_text())
    text = "1% " * (chars // 3)
    opps = memo["opportunities_explained"]
    if block is None:
        opps[0]["narrative"] = text
    else:
        template = opps[0]
        chunks = [text[i : i + block] for i in range(0, len(text), block)]
        memo["opportunities_explained"] = [
            {**template, "narrative": c, "counterfactual": "", "rollout": ""} for c in chunks
        ]
    (folder / MEMO).write_text(json.dumps(memo))
    return folder


def run(folder: Path, env: dict[str, str], mem_gb: float | None, timeout: float) -> dict:
    def cap() -> None:
        if mem_gb:
            limit = int(mem_gb * 1024**3)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    for p in folder.glob("eval_*"):
        p.unlink()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder / MEMO), str(folder / SOURCE)],
        cwd=ROOT,
        env={**os.environ, **env, "PE_EVAL_NO_HISTORY": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=cap,
    )
    rss = float("nan")
    try:
        out, _ = proc.communicate(timeout=timeout)
        lines = out.decode().strip().splitlines()
        outcome = lines[-1] if lines else f"crashed (exit {proc.returncode})"
        if len(lines) >= 2:
            rss = int(lines[-2]) / 1024
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        outcome = f"timeout after {timeout:.0f} s"
    wall = time.perf_counter() - start
    written = sum(p.stat().st_size for p in folder.glob("eval_*"))
    return {"wall": wall, "rss_mb": rss, "written": written, "outcome": outcome}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2,10", help="MB of '1% ' per case (default 2,10)")
    ap.add_argument("--skip-before", action="store_true", help="only the limited grader")
    ap.add_argument("--before-mem", type=float, default=3.0, help="GB cap for before runs")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    cases = [("within", 45_000, None)]
    for mb in (float(x) for x in args.sizes.split(",")):
        n = int(mb * 1_000_000)
        cases += [(f"{mb:g} MB one block", n, None), (f"{mb:g} MB spread", n, 50_000)]
    print(f"{'case':<20} {'run':<7} {'wall s':>7} {'peak MB':>8} {'written MB':>10}  outcome")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, chars, block) in enumerate(cases):
            folder = make_case(Path(tmp) / f"case{i}", chars, block)
            runs = [("after", {}, None)]
            if not args.skip_before:
                runs.insert(0, ("before", UNLIMITED, args.before_mem))
            for name, env, mem in runs:
                r = run(folder, env, mem, args.timeout)
                print(
                    f"{label:<20} {name:<7} {r['wall']:>7.2f} {r['rss_mb']:>8.0f} "
                    f"{r['written'] / 1e6:>10.2f}  {r['outcome']}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
