"""First paint compared across checkouts (before/after a change) in a real browser: each
dashboard page's first visible content, title and settled page, on a fresh server (cold) and
on a revisit (warm), in Chromium at 1440x900.

What a user waits for, measured in the page itself (``performance.now()`` from the navigation
start, recorded by a MutationObserver the moment each condition first holds):

- ``html``: the page's HTML and scripts loaded (DOMContentLoaded: Streamlit's own bundle);
- ``progress``: anything visible in the main area (a title, a spinner, a progress bar, text);
  a blank main area with Streamlit's corner "Running..." only is no progress;
- ``title``: the page's own heading (``h1``) is on screen;
- ``settled``: the page's key content is on screen and the script run is over.

"cold" is the first page load a fresh server sees (``streamlit run`` just started: every import
and every cache cold; the process is restarted for each repeat); "first visit" is a page's
first load on a server that has served another page (imports paid, this page's caches cold);
"warm" is the same page loaded again in a new tab of the same browser (a new session; the
server's caches and the browser's HTTP cache warm). The history
holds the demo scenario run and the demo memos, so every page has something to show.

Run: ``python3 benchmarks/bench_first_paint_trees.py [--repeat 3] [--root DIR ...]`` (needs
/usr/bin/chromium and playwright, like ``tests/ui/test_browser.py``). Each ``--root`` is a
checkout whose ``app.py`` is served (default: this one); several roots are measured in turns,
repeat by repeat, so before and after share the machine's load. Targets from issue 21: warm
``title`` and ``progress`` under 1.5 s; cold ``progress`` visible while the page loads.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_first_paint import CHROMIUM, CHROMIUM_ARGS, Server  # noqa: E402

PAGES = (
    # (label, path, a text the settled page shows; alternatives split by "|")
    ("memo scorecard", "/", "Biggest finding"),
    ("portfolio", "/portfolio", "Weakest memo"),
    # before issue 21 the page opened on its run form, after it on the latest run
    ("scenario evaluation", "/scenario_eval", "Run evaluation|Not passing"),
    ("history", "/run_history", "Compare two runs"),
)

OBSERVER = """
(() => {
  window.__pe = {};
  const mark = (k) => { if (!(k in window.__pe)) window.__pe[k] = performance.now(); };
  const visible = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top < innerHeight; };
  const check = () => {
    const main = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (main) {
      const shown = [...main.querySelectorAll(
        'h1, p, [data-testid="stSpinner"], [data-testid="stProgress"], [data-testid="stStatus"],' +
        ' [data-testid="stAlert"], [data-testid="stSkeleton"]')].some(visible);
      if (shown) mark('progress');
      if ([...main.querySelectorAll('h1')].some(visible)) mark('title');
      const key = window.__pe_key;
      const busy = document.querySelector('[data-testid="stStatusWidget"]');
      const text = main.innerText;
      if (key && !busy && key.split('|').some(k => text.includes(k))) mark('settled');
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true,
                                                 attributes: true, characterData: true});
  setInterval(check, 50);
})();
"""


def record_history(home: Path) -> None:
    """The demo memos and the demo scenario run, recorded in ``home``'s history."""
    os.environ["PE_EVAL_HOME"] = str(home)
    from benchmarks.bench_dashboard import record_history as record

    record()


def load(context: Any, url: str, key: str) -> dict[str, float]:
    """One page load in a new tab of ``context`` (a new Streamlit session); its marks in s."""
    page = context.new_page()
    page.add_init_script(f"window.__pe_key = {key!r};" + OBSERVER)
    page.set_default_timeout(120_000)
    try:
        page.goto(url)
        page.wait_for_function("() => window.__pe && 'settled' in window.__pe", timeout=120_000)
        marks = page.evaluate("() => window.__pe")
        marks["dom"] = page.evaluate(
            "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
        )
    finally:
        page.close()
    return {k: float(v) / 1000 for k, v in marks.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh servers (median)")
    parser.add_argument(
        "--root", action="append", type=Path, help="a checkout to serve (repeatable)"
    )
    args = parser.parse_args(argv)
    roots: list[Path] = args.root or [ROOT]
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("skipped: the playwright package is not installed")
        return 0
    if not Path(CHROMIUM).exists():
        print(f"skipped: no Chromium at {CHROMIUM} (apt-get install chromium)")
        return 0

    results: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-paint-") as tmp, sync_playwright() as pw:
        home = Path(tmp) / "home"
        record_history(home)
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for _ in range(args.repeat):
                for root in roots:
                    measure(browser, home, root, results)
        finally:
            browser.close()

    print(f"median of {args.repeat}, seconds from navigation start (Chromium, 1440x900)")
    print(
        f"{'tree':<12}{'page':<22}{'load':<13}{'html':>7}{'progress':>9}{'title':>7}{'settled':>9}"
    )
    for (tree, label, kind), runs in sorted(results.items(), key=_order):
        cells = [
            statistics.median(r.get(m, float("nan")) for r in runs)
            for m in ("dom", "progress", "title", "settled")
        ]
        print(f"{tree[:11]:<12}{label:<22}{kind:<13}" + "".join(f"{c:>8.2f}" for c in cells))
    return 0


def _order(item: tuple[tuple[str, str, str], Any]) -> tuple[int, str, int]:
    (tree, label, kind), _ = item
    return ([p[0] for p in PAGES].index(label), tree, kind == "warm")


def measure(
    browser: Any, home: Path, root: Path, results: dict[tuple[str, str, str], list[Any]]
) -> None:
    """One fresh server of ``root``: every page's first load, then its warm load."""
    server = Server(home, root=root)
    # one browser profile per server: its HTTP cache is cold on the first load
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    tree = root.name
    try:
        for i, (label, path, key) in enumerate(PAGES):
            first = "cold" if i == 0 else "first visit"
            results.setdefault((tree, label, first), []).append(
                load(context, server.url + path, key)
            )
            results.setdefault((tree, label, "warm"), []).append(
                load(context, server.url + path, key)
            )
    finally:
        context.close()
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
