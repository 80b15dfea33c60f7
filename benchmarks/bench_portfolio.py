"""Portfolio page at fund scale under AppTest: cold and warm first render of a folder of
100 and 500 memo pairs (board + operator, 3-5 opportunities each).

Targets (issue 13), printed, never asserted in unit tests: cold at 500 pairs <= 3 s, warm
<= 0.1 s. "Cold" = a fresh session after ``st.cache_data.clear()`` on a folder never graded
before (every memo graded on the process pool and recorded); "warm" = the same session
rerun (the folder digest unchanged).
History goes to a scratch PE_EVAL_HOME, so the user's own history is untouched.
Run: ``python3 benchmarks/bench_portfolio.py [--pairs 100 500] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_batch import build_folder  # noqa: E402

TIMEOUT = 600


def render(folder: Path, home: Path) -> tuple[float, float]:
    """(cold, warm) seconds for the Portfolio page on ``folder``."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["PE_EVAL_DATA_DIR"] = str(folder)
    os.environ["PE_EVAL_HOME"] = str(home)
    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("app_pages/portfolio.py")
    t0 = time.perf_counter()
    at.run()
    cold = time.perf_counter() - t0
    if at.exception:
        raise SystemExit(f"the page raised: {at.exception[0].value}")
    t0 = time.perf_counter()
    at.run()
    warm = time.perf_counter() - t0
    return cold, warm


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (median)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        render(ROOT / "finance_output", Path(tmp) / "warmup")  # imports paid once, not counted
        print(f"{'pairs':>6} {'cold s':>8} {'warm s':>8} {'warm/cold':>10}")
        for pairs in args.pairs:
            # a new folder each time: the grading digest cache outlives st.cache_data.clear()
            runs = [
                render(build_folder(Path(tmp) / f"f{pairs}_{i}", pairs), Path(tmp) / f"h{i}")
                for i in range(args.repeat)
            ]
            cold = statistics.median(c for c, _ in runs)
            warm = statistics.median(w for _, w in runs)
            print(f"{pairs:>6} {cold:>8.2f} {warm:>8.3f} {warm / cold:>10.3f}")
    print("targets: cold at 500 pairs <= 3 s, warm <= 0.1 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
