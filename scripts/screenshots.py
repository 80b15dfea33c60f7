"""Refresh the README's screenshots: each page's first screen at 1440x900 and 390x844, and the
memo scorecard, Portfolio and scenario page full length at 1440, on the bundled demo.

The history is a team's morning in a temporary ``PE_EVAL_HOME``: the demo memos graded, the
demo scenario run (recorded judge), then the same setup on answers of which three that passed
got worse, so the scenario page and History show a verdict with regressions. The server runs on
a free port and is stopped at the end; nothing is written outside ``docs/screenshots/``.

Run: ``python3 scripts/screenshots.py [--out docs/screenshots]`` (needs /usr/bin/chromium and
playwright, like ``tests/ui/test_browser.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCENARIOS = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"

PAGES = (
    # (file stem, path, a text the settled page shows)
    ("scorecard", "/?page=scorecard&portco=southeast_lender&audience=board", "Biggest finding"),
    ("portfolio", "/portfolio", "Weakest memo"),
    ("scenarios", "/scenario_eval", "Not passing"),
    ("history", "/run_history", "Compare two runs"),
)
WIDTHS = ((1440, 900), (390, 844))
FULL_LENGTH = ("scorecard", "portfolio", "scenarios")


def record_morning(home: Path) -> None:
    """The demo memos, the demo run, and a like-for-like run with three regressions."""
    os.environ["PE_EVAL_HOME"] = str(home)
    from pe_eval_core.history.store import RunStore
    from pe_eval_core.memo import find_memo_pairs, grade_memo
    from pe_eval_core.scenarios import load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.run.setup import choose_judge, make_target

    store = RunStore()
    for pair in find_memo_pairs(ROOT / "finance_output"):
        store.record_memo_evaluation(grade_memo(pair.memo_path, pair.source_path))
    scenarios = load_scenarios(SCENARIOS)
    judge = choose_judge(scenarios_path=SCENARIOS, recorded_target=True)
    target = make_target("recorded", scenarios_path=SCENARIOS)
    before = run_scenarios_sync(scenarios, target, judge=judge, scenarios_path=str(SCENARIOS))
    store.record_scenario_run(before, origin="cli")
    passed = [r.name for r in before.results if r.status == "pass"]
    answers = json.loads((SCENARIOS.parent / "recorded-responses.json").read_text())
    for a in answers:
        if a["name"] in passed[:3]:
            a["response"] = "I could not find that in the data."
    edited = home / "answers" / "recorded-responses.json"  # same name: the same setup
    edited.parent.mkdir(parents=True)
    edited.write_text(json.dumps(answers), encoding="utf-8")
    worse = make_target("recorded", scenarios_path=SCENARIOS, responses=edited)
    after = run_scenarios_sync(scenarios, worse, judge=judge, scenarios_path=str(SCENARIOS))
    store.record_scenario_run(after, origin="cli")


def settle(page: Any, text: str) -> None:
    page.get_by_text(text, exact=False).first.wait_for()
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")
    page.wait_for_timeout(1500)  # charts draw after the script run


def full_length(page: Any, path: Path) -> None:
    """Streamlit scrolls inside its main block: grow the window to the page's height."""
    height = page.evaluate(
        '() => Math.max(...[...document.querySelectorAll(\'[data-testid="stMain"], '
        '[data-testid="stMainBlockContainer"]\')].map(e => e.scrollHeight), 800)'
    )
    page.set_viewport_size({"width": 1440, "height": min(int(height) + 80, 7000)})
    page.wait_for_timeout(1500)
    page.screenshot(path=str(path), full_page=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_first_paint import CHROMIUM, CHROMIUM_ARGS, Server

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pe-eval-shots-") as tmp:
        home = Path(tmp) / "home"
        record_morning(home)
        server = Server(home)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
                )
                for stem, path, text in PAGES:
                    for width, height in WIDTHS:
                        context = browser.new_context(viewport={"width": width, "height": height})
                        page = context.new_page()
                        page.set_default_timeout(120_000)
                        page.goto(server.url + path)
                        settle(page, text)
                        page.screenshot(path=str(args.out / f"{stem}_{width}.png"))
                        print(f"{stem}_{width}.png")
                        if width == 1440 and stem in FULL_LENGTH:
                            full_length(page, args.out / f"{stem}.png")
                            print(f"{stem}.png")
                        context.close()
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
