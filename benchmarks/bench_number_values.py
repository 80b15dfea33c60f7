"""Speed of ``numbers.number_values`` (the values-only reader scoring uses), per response.

It is compared with reading the same values through match objects and named groups
(``[m.value for m in iter_numbers(t)]``, the path ``number_values`` took before it went back to
a ``findall`` over tuples), on the recorded demo responses repeated with a unique suffix each
(as ``bench_runner.py`` builds them). Both must give identical values; the script checks that
before timing. CPU time, best of ``--repeat``; it prints us/response and the ratio.

    python benchmarks/bench_number_values.py [--n 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pe_eval_core.numbers import iter_numbers, number_values  # noqa: E402

DEMO = ROOT / ".mimic" / "exports" / "recorded-responses.json"


def texts(n: int) -> list[str]:
    recorded = [r.get("response") or "" for r in json.loads(DEMO.read_text(encoding="utf-8"))]
    return [f"{recorded[i % len(recorded)]}\n\n(ref {i})" for i in range(n)]


def cpu(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rows = texts(args.n)
    for t in rows:  # identical results, or the timing means nothing
        assert number_values(t) == [m.value for m in iter_numbers(t)], t
    fast = cpu(lambda: [number_values(t) for t in rows], args.repeat)
    slow = cpu(lambda: [[m.value for m in iter_numbers(t)] for t in rows], args.repeat)
    print(f"{args.n:,} responses, CPU time, best of {args.repeat}")
    print(f"  number_values (findall tuples)        {fast / args.n * 1e6:7.1f} us/response")
    print(f"  iter_numbers values (match objects)   {slow / args.n * 1e6:7.1f} us/response")
    print(f"  ratio match objects / findall         {slow / fast:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
