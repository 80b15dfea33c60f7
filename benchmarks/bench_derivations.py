"""Speed of ``no_hallucination`` with derived figures, by size of the result set it reads.

A payments table (JSON rows: id, customer, amount in cents, decline reason, timestamp) is
cut to each size; a response of 12 figures (sums per reason, counts, a mean, a share, days
between timestamps, an invented amount) is checked against it. CPU time, best of
``--repeat``: building the candidate values (``derivations.Grounds``) and the whole check.

Then the price of derivations: how often a *random invented* figure is grounded by chance
on the trace of ``tests/scenarios/test_derivations.py`` (8 payments, 3 downgrades, an MRR
summary), by kind of figure, next to the recall on that file's derived figures.

    python benchmarks/bench_derivations.py [--repeat 5]
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

from pe_eval_core.scenarios.models import Scenario  # noqa: E402
from pe_eval_core.scenarios.scoring.behaviour import hallucination_check  # noqa: E402
from pe_eval_core.scenarios.scoring.derivations import Grounds  # noqa: E402
from pe_eval_core.scenarios.trace import ToolTrace, TraceCall  # noqa: E402

REASONS = ["expired_card", "insufficient_funds", "lost_card", "do_not_honor"]
ANSWER = (
    "Expired cards cost $8,326.00, insufficient funds $8,363.00; 400 charges failed across "
    "40 customers, 25% of them expired cards, averaging $83.63. The failures span 27 days. "
    "Lost cards came to $8,400.00 and do-not-honor $8,437.00; $1,234 is invented."
)


def result_of(chars: int) -> str:
    rows = [
        {
            "id": i,
            "customer": f"Customer {i % 40}",
            "amount_cents": 1000 + 37 * i,
            "reason": REASONS[i % 4],
            "created_at": f"2026-04-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
        }
        for i in range(2000)
    ]
    out = []
    for row in rows:
        out.append(row)
        if len(json.dumps(out)) >= chars:
            break
    return json.dumps(out)


def cpu(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    scenario = Scenario(name="s", input="Why did charges fail?", expect={"no_hallucination": True})
    head = ("result chars", "rows", "candidates", "Grounds ms", "check ms")
    print("  ".join(f"{h:>12}" for h in head))
    for chars in (2_000, 5_000, 10_000, 20_000, 40_000):
        text = result_of(chars)
        trace = ToolTrace(calls=[TraceCall(server="db", tool="get_payments", result_excerpt=text)])
        g = Grounds([("db/get_payments", text)])
        size = len(g.plain) + len(g.percent) + len(g.counts) + sum(map(len, g.elapsed.values()))
        build = cpu(lambda t=text: Grounds([("db/get_payments", t)]), args.repeat)
        check = cpu(lambda t=trace: hallucination_check(ANSWER, t, scenario), args.repeat)
        rows = len(json.loads(text))
        print(
            f"{len(text):>12}  {rows:>5}  {size:>10}  {build * 1000:>10.1f}  {check * 1000:>8.1f}"
        )


def chance_grounding(n: int = 400) -> None:
    import random

    from tests.scenarios import test_derivations as t

    rnd = random.Random(7)
    kinds = [
        ("whole dollars $100-$5,000", lambda v: f"${v:,}", 100, 5000),
        ("cents $1.00-$999.00", lambda v: f"${v / 100:,.2f}", 100, 99900),
        ("whole percent 1-99%", lambda v: f"{v}%", 1, 99),
        ("percent with a decimal", lambda v: f"{v / 10:.1f}%", 10, 999),
        ("counts 1-30", lambda v: f"{v} charges", 1, 30),
        ("about $100-$5,000 (hundreds)", lambda v: f"about ${v * 100:,}", 1, 50),
    ]
    print("\nrandom invented figures grounded by chance (false grounding):")
    for name, fmt, lo, hi in kinds:
        hits = sum(
            hallucination_check(
                f"It came to {fmt(rnd.randint(lo, hi))}.", t.TRACE, t.SCENARIO
            ).satisfied
            for _ in range(n)
        )
        print(f"  {name:<30} {hits / n:6.1%}")
    found = sum(hallucination_check(x, t.TRACE, t.SCENARIO).satisfied for x, _ in t.GROUNDED)
    kept = sum(not hallucination_check(x, t.TRACE, t.SCENARIO).satisfied for x in t.UNGROUNDED)
    print(
        f"  derived figures grounded: {found}/{len(t.GROUNDED)}; invented ones left"
        f" ungrounded: {kept}/{len(t.UNGROUNDED)}"
    )


if __name__ == "__main__":
    main()
    chance_grounding()
