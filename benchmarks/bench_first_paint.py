"""The dashboard's first paint in a real browser (``streamlit run app.py`` + headless Chromium).

For each page, cold (the first visit to a freshly started server: nothing imported, no cache)
and warm (a new browser session on the same server: modules imported, ``st.cache_data``
filled), the time from navigation start until:

* frame: the sidebar's page navigation and, in the main area, the page's title or a
  progress state (a spinner) are on screen;
* title: the page's title heading is on screen;
* settled: the script run has finished (Streamlit's running indicator is gone).

Target: the frame in under 1.5 s warm. Median of ``--repeat`` visits for warm (cold is one
visit per fresh server). A minimal Streamlit app (a sidebar navigation of two pages and a
title) is measured the same way, in the same run, as the floor: what Streamlit and the
browser cost before any of pe-eval's code. Needs Chromium at /usr/bin/chromium and the
playwright package; without them it says so and exits 0.

    python benchmarks/bench_first_paint.py [--repeat 3] [--pages scorecard portfolio ...]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
MINIMAL_APP = """
import streamlit as st

def page():
    st.title("Minimal")

pages = [st.Page(page, title="Minimal", default=True), st.Page(page, title="Other", url_path="o")]
nav = st.navigation(pages)
nav.run()
"""
PAGES = {
    "minimal app": "",
    "scorecard": "",
    "portfolio": "portfolio",
    "documents": "document_scorecard",
    "scenarios": "scenario_eval",
    "history": "run_history",
}
TARGET_WARM_FRAME_S = 1.5
TIMEOUT_MS = 180_000
FRAME_JS = """() => {
  const nav = document.querySelector('[data-testid="stSidebarNav"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = main && main.querySelector('h1, [data-testid="stSpinner"]');
  return nav && shown ? performance.now() : null;
}"""
TITLE_JS = """() => {
  const h1 = document.querySelector('[data-testid="stMain"] h1');
  return h1 ? performance.now() : null;
}"""
SETTLED_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"] h1');
  const running = document.querySelector('[data-testid="stStatusWidget"]');
  return main && !running ? performance.now() : null;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One ``streamlit run app.py`` on a free port, with its own empty ``PE_EVAL_HOME``
    (``app``: another app file, run from the same folder; ``root``: another checkout)."""

    def __init__(self, home: Path, app: Path | None = None, root: Path = ROOT):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PE_EVAL_HOME=str(home))
        for name in ("ANTHROPIC_API_KEY", "PE_EVAL_DATA_DIR", "PE_EVAL_SCENARIOS"):
            env.pop(name, None)
        home.mkdir(parents=True, exist_ok=True)
        self.log = open(home / "streamlit.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(app or "app.py"),
             "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1",
             "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
            cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"streamlit exited: {(home / 'streamlit.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("streamlit did not start within 120 s")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def visit(browser: Any, url: str) -> tuple[float, float, float]:
    """(frame, title, settled) seconds after navigation start, in a new browser session."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(url, wait_until="commit")
        marks = []
        for js in (FRAME_JS, TITLE_JS, SETTLED_JS):
            marks.append(page.wait_for_function(js, polling="raf").json_value() / 1000)
        if page.locator('[data-testid="stException"]').count():
            raise SystemExit(f"{url}: the page raised an exception")
        return marks[0], marks[1], marks[2]
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm visits per page (median)")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES))
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("skipped: the playwright package is not installed")
        return 0
    if not CHROMIUM.exists():
        print(f"skipped: no Chromium at {CHROMIUM}")
        return 0
    rows = []
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="bench-paint-") as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            minimal = Path(tmp) / "minimal_app.py"
            minimal.write_text(MINIMAL_APP, encoding="utf-8")
            for name in args.pages:
                app = minimal if name == "minimal app" else None
                server = Server(Path(tmp) / f"home-{name.replace(' ', '-')}", app)
                try:
                    url = f"{server.url}/{PAGES[name]}"
                    cold = visit(browser, url)
                    warm = [visit(browser, url) for _ in range(args.repeat)]
                finally:
                    server.stop()
                w = [statistics.median(v[i] for v in warm) for i in range(3)]
                if app is None:
                    worst = max(worst, w[0])
                rows.append((name, cold, w))
        finally:
            browser.close()
    print(f"first paint in Chromium, seconds from navigation start (warm: median of "
          f"{args.repeat} new sessions)")  # fmt: skip
    print(f"{'page':<14}{'cold frame':>12}{'title':>8}{'settled':>9}"
          f"{'warm frame':>12}{'title':>8}{'settled':>9}")  # fmt: skip
    for name, c, w in rows:
        print(f"{name:<14}{c[0]:>12.2f}{c[1]:>8.2f}{c[2]:>9.2f}{w[0]:>12.2f}{w[1]:>8.2f}"
              f"{w[2]:>9.2f}")  # fmt: skip
    ok = worst <= TARGET_WARM_FRAME_S
    print(f"slowest warm frame {worst:.2f} s | target <= {TARGET_WARM_FRAME_S} s: "
          f"{'OK' if ok else 'MISSED'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
