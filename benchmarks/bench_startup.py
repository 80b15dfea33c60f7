"""What a command costs before it does its work: import-time trees, and one memo's CPU.

1. The import-time tree (``python -X importtime``) of four things users start: ``memo``
   (one demo memo, history on), ``scenarios score`` (the 19 demo responses, no judge),
   ``history list``, and the dashboard's first script run (``app.py`` under Streamlit's
   AppTest, counting only what is imported after Streamlit itself). Self time is summed per
   package (``pe_eval_core`` per subpackage), the median over ``--repeat`` runs, and the
   heaviest modules of each package are listed under it.
2. The CPU (user + system) of one memo through the CLI, history on (its store already made),
   against ``python -c "import pydantic, jinja2, json"``: the two commands alternate, so both
   see the same load, and the ratio of each pair is reported (median, and every pair).
   Target: <= 2x. A third command in each run, the same imports plus one pydantic model built
   and validated (``PYDANTIC_FLOOR``), shows what any program that validates with pydantic
   pays before its own work (``import pydantic`` alone loads none of the model machinery).

Bytecode is cached as an installed package's would be (``PYTHONDONTWRITEBYTECODE`` is unset
for the children and each command runs once before it is measured).

    python benchmarks/bench_startup.py [--repeat 7] [--tree-repeat 3] [--top 6]
    python benchmarks/bench_startup.py --only ratio      # the CPU ratio alone
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / ".mimic" / "exports"
TARGET_RATIO = 2.0
BASELINE = [sys.executable, "-c", "import pydantic, jinja2, json"]
PYDANTIC_FLOOR = [
    sys.executable,
    "-c",
    "import pydantic, jinja2, json\n"
    "from pydantic import BaseModel\n"
    "class One(BaseModel):\n    x: int = 0\n"
    "One.model_validate({'x': 1})",
]
"""The least a program that validates with one pydantic model pays: ``import pydantic`` is
lazy (it loads none of the model machinery), so the first model's class and validator build
import most of pydantic and its dependencies. Printed beside the ratio so the share of the
memo's CPU that is pe-eval's own work can be read off."""
HEAVY = ("sqlalchemy", "anthropic", "mcp", "httpx", "pandas", "numpy", "altair", "psycopg")
"""Packages named in the tree's verdict line when a command imports them."""

APP_PROBE = """
import sys
import streamlit
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
print("import time: 0 | 0 | @@FIRST_RUN@@", file=sys.stderr, flush=True)
at.run()
if at.exception:
    raise SystemExit(f"app.py raised {at.exception[0].value}")
"""
FIRST_RUN = "@@FIRST_RUN@@"
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def child_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PE_EVAL_HOME=str(home), PYTHONPATH=str(ROOT))
    env.pop("PE_EVAL_NO_HISTORY", None)
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def cpu_of(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU seconds of one child process (and nothing else)."""
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{err.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def commands(work: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "pe_eval_core"]
    return {
        "memo": [
            *cli,
            "memo",
            "MortgageCo",
            "--data-dir",
            str(ROOT / "finance_output"),
            "--out-dir",
            str(work / "memo-out"),
        ],
        "scenarios score": [
            *cli,
            "scenarios",
            "score",
            "--scenarios",
            str(DEMO / "mimic-scenarios.json"),
            "--responses",
            str(DEMO / "recorded-responses.json"),
            "--no-judge",
            "--out",
            str(work / "scenarios-out"),
        ],
        "history list": [*cli, "history", "list"],
        "dashboard first run": [sys.executable, "-c", APP_PROBE, str(ROOT / "app.py")],
    }


def import_times(cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, int]:
    """Self import time (microseconds) per module of one run; for the dashboard probe, only
    the modules imported after the first-run marker."""
    done = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], cwd=cwd, env=env, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    lines = done.stderr.splitlines()
    if any(FIRST_RUN in line for line in lines):
        lines = lines[next(i for i, line in enumerate(lines) if FIRST_RUN in line) + 1 :]
    out: dict[str, int] = {}
    for line in lines:
        m = _LINE.match(line)
        if m:
            out[m[4]] = out.get(m[4], 0) + int(m[1])
    return out


def group_of(module: str) -> str:
    """The package a module is counted under (``pe_eval_core`` by subpackage)."""
    parts = module.split(".")
    if parts[0] == "pe_eval_core" and len(parts) > 1:
        return ".".join(parts[:2])
    return parts[0]


def print_tree(label: str, runs: list[dict[str, int]], top: int) -> None:
    modules = {m for r in runs for m in r}
    median = {m: statistics.median(r.get(m, 0) for r in runs) for m in modules}
    groups: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for m, t in median.items():
        groups[group_of(m)].append((t, m))
    totals = sorted(((sum(t for t, _ in g), name) for name, g in groups.items()), reverse=True)
    total = sum(t for t, _ in totals)
    heavy = sorted(name for name in groups if name in HEAVY)
    print(f"\n{label}: {total / 1000:.0f} ms of imports, {len(modules)} modules")
    print(f"  heavy packages imported: {', '.join(heavy) if heavy else 'none'}")
    for t, name in totals[:top]:
        print(f"  {t / 1000:7.1f} ms  {name} ({len(groups[name])} modules)")
        for mt, m in sorted(groups[name], reverse=True)[:3]:
            if m != name and mt >= 1000:
                print(f"  {'':>10}  {mt / 1000:6.1f} ms  {m}")
    rest = sum(t for t, _ in totals[top:])
    print(f"  {rest / 1000:7.1f} ms  ({len(totals) - top} other packages)")


def bench_trees(repeat: int, top: int, env: dict[str, str], work: Path) -> None:
    print(f"1. import-time trees (self time per package, median of {repeat} runs)")
    for label, cmd in commands(work).items():
        import_times(cmd, env, ROOT)  # bytecode written, history made
        runs = [import_times(cmd, env, ROOT) for _ in range(repeat)]
        print_tree(label, runs, top)


def bench_ratio(repeat: int, env: dict[str, str], work: Path) -> bool:
    memo = commands(work)["memo"]
    cpu_of(memo, env, ROOT)  # the store exists from here on, as for a user's second memo
    cpu_of(BASELINE, env, ROOT)
    cpu_of(PYDANTIC_FLOOR, env, ROOT)
    runs = []
    for _ in range(repeat):
        runs.append(
            (
                cpu_of(memo, env, ROOT),
                cpu_of(BASELINE, env, ROOT),
                cpu_of(PYDANTIC_FLOOR, env, ROOT),
            )
        )
    ratios = [m / b for m, b, _ in runs]
    floors = [f / b for _, b, f in runs]
    m_med = statistics.median(m for m, _, _ in runs)
    b_med = statistics.median(b for _, b, _ in runs)
    f_med = statistics.median(f for _, _, f in runs)
    ratio = statistics.median(ratios)
    ok = ratio <= TARGET_RATIO
    print(f"\n2. one memo through the CLI (history on) vs {BASELINE[-1]!r}, CPU seconds, "
          f"{repeat} alternating runs")  # fmt: skip
    print(f"   memo {m_med:.3f} s | baseline {b_med:.3f} s | ratio (median of pairs) "
          f"{ratio:.2f}x | target <= {TARGET_RATIO:g}x: {'OK' if ok else 'MISSED'}")  # fmt: skip
    print(f"   pairs: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"   floor: the same imports plus one pydantic model built and validated "
          f"{f_med:.3f} s = {statistics.median(floors):.2f}x the baseline; the memo's own "
          f"work above it {m_med - f_med:.3f} s")  # fmt: skip
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="CPU pairs (median)")
    parser.add_argument("--tree-repeat", type=int, default=3, help="runs per import tree")
    parser.add_argument("--top", type=int, default=6, help="packages shown per tree")
    parser.add_argument("--only", choices=("trees", "ratio"))
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the ratio misses its target"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        work = Path(tmp)
        env = child_env(work / "home")
        if args.only != "ratio":
            bench_trees(args.tree_repeat, args.top, env, work)
        ok = True
        if args.only != "trees":
            ok = bench_ratio(args.repeat, env, work)
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
