"""Agreement of scenario verdicts with the specification, on the corpus in
``tests/scenarios/agreement/`` (issue 24): pe-eval without a judge, with a careful scripted
judge, and for reference the seed's own procedure and Mimic's ``mimic test`` runner.

``--package-root DIR`` scores with the ``pe_eval_core`` found in DIR instead (for a before /
after comparison: ``git worktree add /tmp/base <commit>`` or ``git archive <commit>
pe_eval_core | tar -x -C /tmp/base``). Prints the totals, the figures per class and every
disagreement.

    python benchmarks/bench_agreement.py [--package-root DIR] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package-root", type=Path, default=ROOT)
    ap.add_argument("--quiet", action="store_true", help="totals only")
    args = ap.parse_args()
    sys.path[:0] = [str(args.package_root.resolve()), str(ROOT)]

    import pe_eval_core
    from tests.scenarios.agreement import ALL_CASES, HOLDOUT_CASES
    from tests.scenarios.agreement.harness import CLASSES, by_class, measure

    print(f"pe_eval_core from {Path(pe_eval_core.__file__).parent.parent}")
    print(f"{len(ALL_CASES)} cases")
    rows = measure(ALL_CASES)
    for row in rows:
        print(row.line())
    print("\nper class (agree/total)   no judge   careful judge")
    plain, judged = by_class(ALL_CASES, False), by_class(ALL_CASES, True)
    for klass in CLASSES:
        a, t = plain.get(klass, (0, 0))
        b, _ = judged.get(klass, (0, 0))
        print(f"  {klass:<22} {a:>3}/{t:<5}  {b:>3}/{t}")
    print(f"\nheld-out cases ({len(HOLDOUT_CASES)}, written after the rules were settled):")
    held = measure(HOLDOUT_CASES)
    for row in held:
        print(row.line())
    if not args.quiet:
        for row in rows + held:
            if row.wrong:
                print(f"\n{row.name}:")
                for line in row.wrong:
                    print(f"  {line}")


if __name__ == "__main__":
    main()
