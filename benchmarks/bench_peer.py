"""Grading the real producer's memos in process, against the producer's own grader.

The peer is the public producer's grader (bolnet/private-equity, ``finance_mcp.eval``'s
``eval_pe_output``: grades a memo and writes its HTML and JSON, as its
``scripts/run_eval_corpus.py`` loop does). Point ``--peer`` at a checkout of it (none of its
code is part of pe-eval). On a copy of ``tests/corpus/producer_run/finance_output`` (16
sources, 32 memos), in one process, the loops alternate ``--repeat`` times:

* peer: ``eval_pe_output(memo, source)`` over every memo;
* pe-eval grading: ``pe_eval_core.memo.grade_memo(memo, source)`` (reads, grades, writes
  nothing);
* pe-eval in full: ``pe_eval_core.memo.eval_pe_output`` (grades and writes both files);

and prints the median CPU per memo of each and the ratios to the peer. Target: grading at
most 2x the peer's loop. Without ``--peer`` it says so and exits 0.

The loops after the first reuse what pe-eval keeps per content in a process (a source's
validated model by sha256, the folder's sibling index while no memo's stat changes, a clause's
claim, a prose block's reading by reader and text); they never reuse a grading. The first
pass pays for reading each once; the kept block readings make the repeated loops far cheaper
than a first pass (``memo.reading.read_kept``; the README gives both figures).

    python benchmarks/bench_peer.py --peer /path/to/private-equity [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "producer_run" / "finance_output"
TARGET = 2.0


def load_peer(checkout: Path) -> Callable[[str, str], object]:
    """The peer's ``eval_pe_output`` from its checkout (``fastmcp`` stubbed when absent: the
    grader imports only its ``ToolError``)."""
    try:
        import fastmcp.exceptions  # noqa: F401
    except ImportError:
        stub, exceptions = types.ModuleType("fastmcp"), types.ModuleType("fastmcp.exceptions")
        exceptions.ToolError = type("ToolError", (Exception,), {})  # type: ignore[attr-defined]
        sys.modules.update({"fastmcp": stub, "fastmcp.exceptions": exceptions})
    sys.path.insert(0, str(checkout / "src"))
    from finance_mcp.eval import eval_pe_output  # type: ignore[import-not-found]

    return eval_pe_output  # type: ignore[no-any-return]


def per_memo(fn: Callable[[str, str], object], pairs: list[tuple[str, str]]) -> float:
    started = time.process_time()
    for memo, source in pairs:
        fn(memo, source)
    return (time.process_time() - started) / len(pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", type=Path, help="a checkout of bolnet/private-equity")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    if args.peer is None or not (args.peer / "src" / "finance_mcp" / "eval").is_dir():
        print("skipped: give --peer, a checkout of bolnet/private-equity (see the docstring)")
        return 0
    sys.path.insert(0, str(ROOT))
    from pe_eval_core.memo import eval_pe_output, grade_memo

    peer = load_peer(args.peer)
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as tmp:
        folder = Path(tmp) / "finance_output"
        shutil.copytree(CORPUS, folder)
        pairs = []
        for memo in sorted(folder.glob("explain_*.json")):
            portco = memo.stem.removeprefix("explain_").rsplit("_", 1)[0]
            pairs.append((str(memo), str(folder / f"dx_report_{portco}.json")))
        loops = {"peer": peer, "grade_memo": grade_memo, "eval_pe_output": eval_pe_output}
        for fn in loops.values():  # warm: imports, compiled patterns, the folder read once
            per_memo(fn, pairs)
        times: dict[str, list[float]] = {name: [] for name in loops}
        for _ in range(args.repeat):
            for name, fn in loops.items():
                times[name].append(per_memo(fn, pairs))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"{len(pairs)} real producer memos, CPU per memo, median of {args.repeat} "
          f"alternating loops in one process")  # fmt: skip
    for name in loops:
        ratio = med[name] / med["peer"]
        print(f"  {name:<26} {med[name] * 1000:6.2f} ms   {ratio:5.2f}x the peer")
    ratio = med["grade_memo"] / med["peer"]
    print(f"grading vs the peer's loop: {ratio:.2f}x | target <= {TARGET:g}x: "
          f"{'OK' if ratio <= TARGET else 'MISSED'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
