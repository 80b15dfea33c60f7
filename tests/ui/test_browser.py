"""The dashboard in a real browser: `streamlit run app.py` headless, driven by Playwright/Chromium.

Loads every page on the demo data, asserts the key texts and saves screenshots (to
docs/screenshots/ for the README when PE_EVAL_UPDATE_SCREENSHOTS=1, else tests/artifacts/).
Opens a memo whose prose carries an <img onerror> and a <script> to prove nothing executes and
the text shows literally. Skips with the reason when Debian's Chromium or the playwright
package is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DEMO_DATA = ROOT / "finance_output"
# The README's screenshots are refreshed only on request, so a test run leaves the tree clean:
# PE_EVAL_UPDATE_SCREENSHOTS=1 python3 -m pytest tests/ui/test_browser.py
SHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("PE_EVAL_UPDATE_SCREENSHOTS") == "1"
    else ROOT / "tests" / "artifacts" / "screenshots"
)
HOSTILE_IMG = "<img src=x onerror=window.__xss=1>"
HOSTILE_SCRIPT = "<script>window.__xss=1</script>"
STARTUP_S = 90
WAIT_MS = 90_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `streamlit run app.py` subprocess on a free local port."""

    def __init__(self, data_dir: Path | None, home: Path):
        """``data_dir`` None: the app's own default (the bundled demo in finance_output)."""
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PE_EVAL_HOME=str(home))
        for name in ("ANTHROPIC_API_KEY", "PE_EVAL_DATA_DIR", "PE_EVAL_SCENARIOS"):
            env.pop(name, None)
        if data_dir is not None:
            env["PE_EVAL_DATA_DIR"] = str(data_dir)
        self.log = home / "streamlit.log"
        home.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.port",
                str(self.port),
                "--server.address",
                "127.0.0.1",
                "--server.fileWatcherType",
                "none",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"streamlit not ready after {STARTUP_S}s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self._log.close()


def _serve(data_dir: Path | None, home: Path) -> Iterator[Server]:
    server = Server(data_dir, home)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def demo_server(browser, tmp_path_factory) -> Iterator[Server]:
    yield from _serve(None, tmp_path_factory.mktemp("home"))


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    p = context.new_page()
    p.set_default_timeout(WAIT_MS)
    try:
        yield p
    finally:
        context.close()


def _settle(page) -> None:
    """Wait until Streamlit has finished the script run (no 'Running...' indicator)."""
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=WAIT_MS
    )


def _shot(page, name: str) -> None:
    """A full-length screenshot: Streamlit scrolls inside its main block, so grow the viewport."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate(
        '() => Math.max(...[...document.querySelectorAll(\'[data-testid="stMain"], '
        '[data-testid="stMainBlockContainer"]\')].map(e => e.scrollHeight), 800)'
    )
    page.set_viewport_size({"width": 1440, "height": min(int(height) + 80, 7000)})
    page.wait_for_timeout(1500)
    page.screenshot(path=str(SHOTS / name), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})


def _click_row(page, grid, row: int) -> None:
    """Click data row ``row`` (0-based) of a dataframe by its selection column (the grid is a
    canvas: rows are found by geometry, header one row high)."""
    grid.scroll_into_view_if_needed()
    _settle(page)
    box = grid.bounding_box()
    row_h = 35  # Streamlit's default row height, header included
    y = box["y"] + row_h * (row + 1.5)
    page.mouse.move(box["x"] + 14, y)
    page.mouse.click(box["x"] + 14, y)


def _open_run_form(page) -> None:
    """Open the scenario page's run form (closed when the page shows a recorded run)."""
    page.get_by_text("Run an evaluation", exact=True).wait_for()
    _settle(page)  # open or closed is decided by the finished run (open when nothing is recorded)
    button = page.get_by_role("button", name="Run evaluation")
    if not button.is_visible():
        page.get_by_text("Run an evaluation", exact=True).click()
        button.wait_for(state="visible")


def _filter_runs(page, label: str, option: str) -> None:
    """Pick ``option`` in the History filter ``label`` (in its closed panel: opened first; the
    dropdown is clicked again if it opened while the panel was still moving)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_test_id("stSelectbox").filter(has_text=label)
    if not box.is_visible():
        page.get_by_text("Filter the runs", exact=True).click()
        box.wait_for(state="visible")
        page.wait_for_timeout(500)
    for _ in range(3):
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"could not pick {option!r} in the {label!r} filter")


def _most_findings() -> tuple[str, str]:
    """The demo memo with the most findings (the informative one to screenshot)."""
    from pe_eval_core.memo import find_memo_pairs, grade_memo

    pairs = find_memo_pairs(DEMO_DATA)
    best = max(pairs, key=lambda p: len(grade_memo(p.memo_path, p.source_path).findings))
    return best.portco_id, best.audience


def test_scorecard_page_in_the_browser(page, demo_server):
    page.goto(demo_server.url)
    page.get_by_text("Biggest finding.").wait_for()
    page.locator(".pe-prose .m").first.wait_for()
    _settle(page)
    for text in ("Memo scorecard", "Citation accuracy", "Hallucination rate", "Coverage"):
        # (The closed glossary holds the same words, hidden: wait for a visible one.)
        page.locator(f"text={text} >> visible=true").first.wait_for()
    page.get_by_text("Scorecard HTML").wait_for(state="visible")
    portco, audience = _most_findings()
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=portco, exact=True).click()
    page.get_by_text(audience, exact=True).first.click()
    page.get_by_role("heading", name=f"{portco} · {audience}").wait_for()
    page.get_by_text(re.compile(r"\d+ of \d+ findings")).wait_for()
    _settle(page)
    marks = page.locator(".pe-prose .text .m")  # the HTML scorecard's own marks
    assert marks.count() > 0
    titles = marks.evaluate_all("els => els.map(e => e.title)")
    assert any(": opportunities[" in t for t in titles), "hover names the source field"
    bad = page.locator(".pe-prose .text .m.ungrounded, .pe-prose .text .m.misattributed")
    assert bad.count() > 0
    # Coloured by the scorecard's own rules (mark_css), not left unstyled.
    colour = bad.first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour in ("rgb(255, 214, 214)", "rgb(255, 231, 179)"), colour
    _shot(page, "scorecard.png")


def test_portfolio_page_in_the_browser(page, demo_server):
    page.goto(f"{demo_server.url}/portfolio")
    page.get_by_text("Weakest memo", exact=False).wait_for()
    _settle(page)
    page.get_by_text("Portco × audience × dimension").wait_for(state="visible")
    page.locator("[data-testid='stVegaLiteChart']").first.wait_for()
    page.get_by_test_id("stDataFrame").last.wait_for()
    _shot(page, "portfolio.png")
    # Click the last row of the table (its selection column): that scorecard opens, by link.
    from pe_eval_core.memo import find_memo_pairs

    last = find_memo_pairs(DEMO_DATA)[-1]
    _click_row(page, page.get_by_test_id("stDataFrame").last, len(find_memo_pairs(DEMO_DATA)) - 1)
    page.get_by_role("heading", name=f"{last.portco_id} · {last.audience}").wait_for()
    page.get_by_role("heading", name="Memo scorecard").wait_for(state="visible")
    assert f"portco={last.portco_id}" in page.url and f"audience={last.audience}" in page.url


def test_scenario_page_runs_the_recorded_demo(page, demo_server):
    page.goto(f"{demo_server.url}/scenario_eval")
    _open_run_form(page)
    page.get_by_text("Loaded 19 scenarios", exact=False).wait_for()
    page.get_by_role("button", name="Run evaluation").click()
    page.get_by_text("Pass rate by tier").wait_for()
    page.get_by_text("Conclusion.").wait_for()
    _settle(page)
    # The four tiles render one after another: wait for each rather than reading them at once.
    for label in ("Scenarios", "Passed", "Failed", "Pass rate"):
        page.get_by_test_id("stMetricLabel").filter(has_text=label).first.wait_for()
    page.get_by_text("Failure drill-down").wait_for(state="attached")
    _shot(page, "scenarios.png")


def _hostile_folder(tmp: Path) -> Path:
    """A copy of one demo pair whose prose carries an <img onerror> and a <script>."""
    folder = tmp / "hostile"
    folder.mkdir()
    memo_src = sorted(DEMO_DATA.glob("explain_*_board.json"))[0]
    memo = json.loads(memo_src.read_text(encoding="utf-8"))
    portco = memo["portco_id"]
    shutil.copy(DEMO_DATA / f"dx_report_{portco}.json", folder / f"dx_report_{portco}.json")
    opp = memo["opportunities_explained"][0]
    opp["narrative"] = f"{HOSTILE_IMG} and {HOSTILE_SCRIPT} then **{HOSTILE_IMG}**. " + (
        opp.get("narrative") or ""
    )
    (folder / memo_src.name).write_text(json.dumps(memo), encoding="utf-8")
    return folder


def test_hostile_prose_never_executes_and_shows_literally(browser, page, tmp_path):
    folder = _hostile_folder(tmp_path)
    for server in _serve(folder, tmp_path / "home"):
        page.goto(server.url)
        page.get_by_text("Biggest finding.").wait_for()
        _settle(page)
        prose = page.locator(".pe-prose").first
        prose.wait_for()
        text = prose.inner_text()
        assert HOSTILE_IMG in text
        assert HOSTILE_SCRIPT in text
        assert page.evaluate("() => typeof window.__xss") == "undefined"
        assert page.locator('img[src="x"]').count() == 0
        assert page.locator(".pe-prose script").count() == 0


def test_deep_link_on_a_fresh_server_gets_the_app_shell(page, tmp_path):
    """The first request to a new server, straight to a page URL, still runs app.py: our
    navigation and the shared sidebar, never Streamlit's pages-folder fallback."""
    for server in _serve(None, tmp_path / "home"):
        page.goto(f"{server.url}/run_history")
        page.get_by_role("heading", name="History").wait_for()
        _settle(page)
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Memo scorecard" in nav and "Scenario evaluation" in nav
        assert "run history" not in nav.lower()  # a file-name label from the fallback
        page.get_by_role("textbox", name="Data folder").wait_for()


def _overflows(page) -> list[str]:
    """Tiles whose label or caption is cut off, and charts wider than the main column."""
    return page.evaluate(
        """() => {
        const out = [];
        const main = document.querySelector('[data-testid="stMainBlockContainer"]');
        const pad = parseFloat(getComputedStyle(main).paddingRight) || 0;
        const right = main.getBoundingClientRect().right - pad + 1;
        for (const el of document.querySelectorAll(
            '[data-testid="stMetricLabel"], [data-testid="stMetricDelta"]')) {
            for (const e of [el, ...el.querySelectorAll('*')]) {
                if (e.scrollWidth > e.clientWidth + 1) { out.push('cut: ' + el.innerText); break; }
            }
        }
        for (const c of document.querySelectorAll('[data-testid="stVegaLiteChart"] svg')) {
            const r = c.getBoundingClientRect();
            if (r.right > right) out.push('chart overflows by ' + Math.round(r.right - right));
        }
        return out;
    }"""
    )


def test_narrow_window_truncates_no_tile_and_overflows_no_chart(browser, demo_server):
    """At 1024px (a laptop with the sidebar open) every score tile reads in full and every chart
    fits the main column: tiles wrap onto two rows, facet panels stack."""
    context = browser.new_context(viewport={"width": 1024, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        portco, audience = _most_findings()
        # By its link: a dropdown click can be closed by a rerun still in flight on a busy host.
        page.goto(f"{demo_server.url}/?page=scorecard&portco={portco}&audience={audience}")
        page.get_by_role("heading", name=f"{portco} · {audience}").wait_for()
        _settle(page)
        page.locator("[data-testid='stVegaLiteChart'] svg").nth(1).wait_for()
        page.wait_for_timeout(1000)
        assert _overflows(page) == []
        page.goto(f"{demo_server.url}/portfolio")
        page.get_by_text("Weakest memo", exact=False).wait_for()
        _settle(page)
        page.locator("[data-testid='stVegaLiteChart'] svg").first.wait_for()
        page.wait_for_timeout(1000)
        assert _overflows(page) == []
    finally:
        context.close()


def test_failing_tile_is_red_and_the_verdict_is_above_the_fold(page, demo_server):
    """The consistency 0% tile of the flawed demo memo is drawn in the fail band's colour."""
    page.goto(f"{demo_server.url}/")
    page.get_by_text("Biggest finding.").wait_for()
    _settle(page)
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="southeast_lender", exact=True).click()
    page.get_by_text("board", exact=True).first.click()
    page.get_by_role("heading", name="southeast_lender · board").wait_for()
    _settle(page)
    tile = page.locator(
        '[class*="st-key-scorecard-tile-consistency-fail"] [data-testid="stMetric"]'
    )
    tile.wait_for()
    colour = tile.evaluate("e => getComputedStyle(e).borderTopColor")
    assert colour == "rgb(198, 40, 40)", colour  # charts.BAND_INK[Band.FAIL], #c62828
    verdict = page.get_by_text("Not ready: 4 issues")
    verdict.wait_for(state="visible")
    assert verdict.bounding_box()["y"] < 900


@pytest.mark.parametrize("width,height", [(1440, 900), (390, 844)])
def test_html_scorecard_never_overflows_horizontally(browser, tmp_path, width, height):
    from pe_eval_core.memo import find_memo_pairs, grade_memo, render_scorecard_html

    pair = next(p for p in find_memo_pairs(DEMO_DATA) if p.portco_id == "southeast_lender")
    html_file = tmp_path / "scorecard.html"
    html_file.write_text(render_scorecard_html(grade_memo(pair.memo_path, pair.source_path)))
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(html_file.as_uri())
        sizes = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert sizes[0] <= sizes[1], sizes
        assert page.locator("#verdict").inner_text().startswith("Not ready")
    finally:
        context.close()


# --- issue 12: links, any screen, no network ---------------------------------------------------


PAGES = (
    # (path, a text the page shows once rendered)
    ("/?page=scorecard&portco=southeast_lender&audience=board", "Biggest finding."),
    ("/portfolio", "Weakest memo"),
    ("/scenario_eval", "Run an evaluation"),
    ("/run_history", "Compare two runs"),
)


def _record_demo_runs(home: Path) -> tuple[int, str, int]:
    """A recorded scenario run and a memo run in ``home``'s history: (scenario run id, a failing
    scenario's name, memo run id)."""
    from pe_eval_core.history.store import RunStore
    from pe_eval_core.memo import grade_memo, resolve_pair
    from pe_eval_core.scenarios import load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.run.setup import choose_judge, make_target

    scenarios = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"
    run = run_scenarios_sync(
        load_scenarios(scenarios),
        make_target("recorded", scenarios_path=scenarios),
        judge=choose_judge(scenarios_path=scenarios, recorded_target=True),
        scenarios_path=str(scenarios),
    )
    home.mkdir(parents=True, exist_ok=True)
    store = RunStore(home / "history.sqlite")
    rid = store.record_scenario_run(run, origin="test")
    failing = [r.name for r in run.results if r.status != "pass"]
    pair = resolve_pair(DEMO_DATA, "southeast_lender", "board")
    mid = store.record_memo_evaluation(grade_memo(pair.memo_path, pair.source_path))
    return rid, failing[-1], mid


@pytest.fixture(scope="module")
def history_server(browser, tmp_path_factory) -> Iterator[tuple[Server, int, str, int]]:
    """A fresh server whose history holds a scenario run and a memo run."""
    home = tmp_path_factory.mktemp("links-home")
    rid, failing, mid = _record_demo_runs(home)
    for server in _serve(None, home):
        yield server, rid, failing, mid


def test_deep_links_open_their_view_on_a_fresh_server(browser, history_server):
    server, rid, failing, _ = history_server
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        # The first request this server sees is a scenario drill-down link.
        page.goto(f"{server.url}/?run={rid}&scenario={failing}")
        page.get_by_role("heading", name=re.compile(rf"Run #{rid} ")).wait_for()
        page.get_by_text("Failure drill-down").wait_for()
        _settle(page)
        picked = page.get_by_test_id("stSelectbox").filter(has_text="Non-passing scenario")
        shown = picked.evaluate(
            "e => e.textContent + ' ' + [...e.querySelectorAll('input')].map(i => i.value).join()"
        )
        assert failing in shown, shown
        assert f"run={rid}" in page.url and f"scenario={failing}" in page.url
        # A memo scorecard link, in a new tab (a new session).
        other = context.new_page()
        other.set_default_timeout(WAIT_MS)
        other.goto(f"{server.url}/?page=scorecard&portco=southeast_lender&audience=operator")
        other.get_by_role("heading", name="southeast_lender · operator").wait_for()
        other.goto(f"{server.url}/?page=portfolio")
        other.get_by_text("Weakest memo", exact=False).wait_for()
        assert other.get_by_role("heading", name="Portfolio").is_visible()
    finally:
        context.close()


def test_history_row_reopens_a_run(browser, history_server):
    server, rid, _, _ = history_server
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(f"{server.url}/run_history")
        page.get_by_text("Compare two runs").wait_for()
        _settle(page)
        # Other tests' page visits record memo runs too: list the scenario runs only.
        _filter_runs(page, "Kind", "scenarios")
        _settle(page)
        _click_row(page, page.locator("[class*=st-key-wide-runs] [data-testid=stDataFrame]"), 0)
        page.get_by_role("heading", name=re.compile(rf"Run #{rid} ")).wait_for()
        page.get_by_text("Failure drill-down").wait_for()
        assert f"run={rid}" in page.url
        # Click once the run view has finished drawing: under load a click during the run's
        # last reruns (charts settling, the drill-down scroll) could land on a moving page.
        _settle(page)
        page.get_by_role("button", name="All runs").click()
        page.get_by_text("Compare two runs").wait_for()
        _settle(page)
        _filter_runs(page, "Kind", "memo")
        _settle(page)
        _click_row(page, page.locator("[class*=st-key-wide-runs] [data-testid=stDataFrame]"), 0)
        page.get_by_role("heading", name=re.compile(r"Run #\d+ · memo")).wait_for()
        page.get_by_role("heading", name="Findings").wait_for()
        page.get_by_test_id("stMetricLabel").filter(has_text="Citation accuracy").wait_for()
        assert "run=" in page.url
    finally:
        context.close()


def _sideways(page) -> list[int]:
    """[scrollWidth, clientWidth] of the document and of Streamlit's main block."""
    return page.evaluate(
        """() => { const m = document.querySelector('[data-testid="stMain"]');
        return [document.documentElement.scrollWidth, document.documentElement.clientWidth,
                m.scrollWidth, m.clientWidth]; }"""
    )


@pytest.mark.parametrize("width,height", [(1440, 900), (390, 844)])
def test_no_page_overflows_sideways(browser, history_server, width, height):
    server, rid, _, _ = history_server
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        for path, text in (*PAGES, (f"/?run={rid}", "Failure drill-down")):
            page.goto(server.url + path)
            page.get_by_text(text, exact=False).first.wait_for()
            _settle(page)
            page.wait_for_timeout(1200)  # charts size themselves after the run
            doc_w, doc_client, main_w, main_client = _sideways(page)
            assert doc_w <= doc_client, (path, width, doc_w, doc_client)
            assert main_w <= main_client, (path, width, main_w, main_client)
        if width < 640:
            # Tables are cards there, leading with the why.
            page.goto(server.url + PAGES[0][0])
            page.get_by_text("Biggest finding.").wait_for()
            _settle(page)
            cards = page.locator('[class*="st-key-cards-findings"] .pe-cards')
            cards.locator(".card .lead").first.wait_for(state="visible")
            assert "matches no source figure" in cards.inner_text()
            assert page.locator('[class*="st-key-wide-findings"]').is_hidden()
            assert page.locator('[class*="st-key-wide-opportunities"]').is_hidden()
    finally:
        context.close()


def test_failing_heatmap_cell_has_the_fail_band_colour(page, demo_server):
    page.goto(f"{demo_server.url}/portfolio")
    page.get_by_text("Weakest memo", exact=False).wait_for()
    _settle(page)
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.locator("svg").wait_for()
    page.wait_for_timeout(1000)
    cells = chart.locator("path[aria-roledescription='rect mark']")
    found = cells.evaluate_all(
        """els => els.map(e => [e.getAttribute('aria-label') || '', getComputedStyle(e).fill])"""
    )
    fail = [
        fill
        for label, fill in found
        if "portco: southeast_lender;" in label
        and "dimension: Consistency;" in label
        and "audience: board;" in label
    ]
    assert fail == ["rgb(198, 40, 40)"], found[:6]  # charts.BAND_INK[Band.FAIL], #c62828


def test_sidebar_closes_after_navigating_on_a_phone(browser, demo_server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(demo_server.url)
        page.get_by_text("Biggest finding.").wait_for()
        _settle(page)
        page.get_by_test_id("stExpandSidebarButton").click()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=\"stSidebar\"]')"
            ".getBoundingClientRect().right > 100"
        )
        page.get_by_test_id("stSidebarNav").get_by_text("Portfolio").click()
        page.get_by_text("Weakest memo", exact=False).wait_for()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=\"stSidebar\"]')"
            ".getBoundingClientRect().right <= 0"
        )  # off-screen: closed over the page the user asked for
        assert page.get_by_test_id("stExpandSidebarButton").is_visible()
    finally:
        context.close()


def test_no_request_leaves_localhost(browser, history_server):
    """Every request the pages make (fonts, icons, scripts, the websocket) goes to the local
    server: anything else is recorded and refused."""
    from urllib.parse import urlparse

    server, rid, _, _ = history_server
    outside: list[str] = []
    context = browser.new_context(viewport={"width": 1440, "height": 900})

    def guard(route) -> None:
        url = route.request.url
        if urlparse(url).hostname in ("127.0.0.1",) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        for path, text in (*PAGES, (f"/?run={rid}", "Failure drill-down")):
            page.goto(server.url + path)
            page.get_by_text(text, exact=False).first.wait_for()
            _settle(page)
        page.goto(server.url + "/scenario_eval")
        _open_run_form(page)
        page.get_by_role("button", name="Run evaluation").click()
        page.get_by_text("Conclusion.").wait_for()
        _settle(page)
        icons = page.evaluate(
            "() => [...document.querySelectorAll('link[rel*=icon]')].map(l => l.href)"
        )
        assert icons and all(urlparse(u).hostname == "127.0.0.1" for u in icons), icons
    finally:
        context.close()
    assert outside == []


@pytest.fixture
def slow_agent() -> Iterator[tuple[str, list[str]]]:
    """A local agent speaking Mimic's HTTP contract that takes two seconds per answer."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[str] = []

    class Agent(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body["message"])
            time.sleep(2.0)  # 19 scenarios, 3 at a time: about 14 s, time enough to press Stop
            reply = json.dumps({"text": "I cannot say.", "toolCalls": []}).encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the run was stopped: the dashboard hung up on this scenario

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/agent", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_stop_during_a_slow_live_run_keeps_the_finished_results(page, demo_server, slow_agent):
    url, seen = slow_agent
    page.goto(f"{demo_server.url}/scenario_eval")
    _open_run_form(page)
    page.get_by_text("Loaded 19 scenarios", exact=False).wait_for()
    _settle(page)
    page.get_by_text("HTTP agent", exact=True).click()
    box = page.get_by_role("textbox", name="Agent URL")
    box.fill(url)
    box.press("Enter")
    _settle(page)
    page.get_by_text("I confirm 19 calls", exact=False).click()  # every paid run, local too
    _settle(page)
    page.get_by_role("button", name="Run evaluation").click()
    # Our Stop (Streamlit's own header also has one while a script runs).
    stop = page.locator(".st-key-scenarios-stop button").first
    stop.wait_for()
    page.get_by_text(re.compile(r"\b[2-9]/19 scored")).wait_for()
    assert page.get_by_role("button", name="Run evaluation").is_disabled()
    stop.click()
    page.get_by_text("Stopped.", exact=False).wait_for()
    _settle(page)
    text = page.get_by_text("scenarios finished before the stop", exact=False).inner_text()
    finished = int(re.search(r"(\d+) of 19 scenarios finished", text).group(1))
    assert 2 <= finished < 19, text
    asked = len(seen)
    page.wait_for_timeout(2500)
    assert len(seen) == asked < 19, "the agent keeps being called after Stop"
    assert page.get_by_role("button", name="Run evaluation").is_enabled()
    assert page.locator(".st-key-scenarios-stop button").count() == 0
