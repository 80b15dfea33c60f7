"""Issue 21 in a real browser, at 1440x900 and 390x844: each user's answer on the first screen.

First-screen content is asserted by bounding box (inside the viewport), colours by computed
style, idempotent recording by counting the history's runs around a run and reloads, and the
link scroll by where the drill-down lands. Chromium and the server are the ones
``test_browser.py`` drives (its fixtures and helpers are reused).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.test_browser import (
    DEMO_DATA,
    ROOT,
    WAIT_MS,
    Server,
    _click_row,
    _serve,
    _settle,
)

pytestmark = pytest.mark.browser


WIDTHS = [(1440, 900), (390, 844)]
SCENARIOS = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"
FAIL_INK = "rgb(198, 40, 40)"  # pe_eval_core.tone.INK[Tone.BAD], #c62828
PASS_INK = "rgb(46, 125, 50)"  # INK[Tone.GOOD], #2e7d32


def _record(home: Path) -> dict[str, Any]:
    """The history of a team's morning: the demo run with the judge off (another setup), the
    demo run (recorded judge), then the same setup on answers of which three that passed got
    worse (regressions, compared like for like), then a memo grading."""
    import json

    from pe_eval_core.history.store import RunStore
    from pe_eval_core.memo import grade_memo, resolve_pair
    from pe_eval_core.scenarios import load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.run.setup import choose_judge, make_target

    home.mkdir(parents=True, exist_ok=True)
    store = RunStore(home / "history.sqlite")
    scenarios = load_scenarios(SCENARIOS)
    judge = choose_judge(scenarios_path=SCENARIOS, recorded_target=True)
    target = make_target("recorded", scenarios_path=SCENARIOS)
    # first, a run made another way (judge off): never the automatic baseline
    unjudged = run_scenarios_sync(scenarios, target, judge=None, scenarios_path=str(SCENARIOS))
    unlike = store.record_scenario_run(unjudged, origin="test")
    before = run_scenarios_sync(scenarios, target, judge=judge, scenarios_path=str(SCENARIOS))
    base = store.record_scenario_run(before, origin="test")
    passed_before = [r.name for r in before.results if r.status == "pass"]
    recorded = json.loads((SCENARIOS.parent / "recorded-responses.json").read_text())
    for r in recorded:
        if r["name"] in passed_before[:3]:
            r["response"] = "I could not find that in the data."
    edited = home / "answers" / "recorded-responses.json"  # same file name: the same setup
    edited.parent.mkdir()
    edited.write_text(json.dumps(recorded), encoding="utf-8")
    worse = make_target("recorded", scenarios_path=SCENARIOS, responses=edited)
    after = run_scenarios_sync(scenarios, worse, judge=judge, scenarios_path=str(SCENARIOS))
    latest = store.record_scenario_run(after, origin="test")
    pair = resolve_pair(DEMO_DATA, "southeast_lender", "board")
    store.record_memo_evaluation(grade_memo(pair.memo_path, pair.source_path))
    failing = [r.name for r in after.results if r.status != "pass"]
    return {
        "unlike": unlike,
        "base": base,
        "latest": latest,
        "failing": failing,
        "regressed": [n for n in failing if n in passed_before],
        "home": home,
    }


@pytest.fixture(scope="module")
def morning(browser, tmp_path_factory) -> Iterator[tuple[Server, dict[str, Any]]]:
    home = tmp_path_factory.mktemp("first-screen-home")
    facts = _record(home)
    for server in _serve(None, home):
        yield server, facts


def _page(browser: Any, width: int, height: int) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    return page


def _in_view(page: Any, locator: Any) -> bool:
    """The element is drawn whole inside the window (no scrolling needed)."""
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height + 1


def _red(css: str) -> bool:
    """Streamlit's error box (rgb(255, 241, 242)) or the fail ink, never green or amber."""
    r, g, b = (int(x) for x in re.findall(r"\d+", css)[:3])
    return css == FAIL_INK or (r >= 250 and g < r and abs(g - b) <= 4)


def _box_colour(locator: Any) -> str:
    return str(
        locator.locator("[data-testid='stAlertContainer']").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
    )


def _run_count(home: Path) -> int:
    from pe_eval_core.history.store import RunStore

    return RunStore(home / "history.sqlite").count_runs()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_scenario_page_opens_on_the_latest_run_answered_above_the_fold(
    browser, morning, width, height
):
    server, facts = morning
    page = _page(browser, width, height)
    try:
        page.goto(f"{server.url}/scenario_eval")
        page.get_by_text("Not passing", exact=False).wait_for()
        _settle(page)
        heading = page.get_by_role("heading", name=re.compile(rf"Run #{facts['latest']} "))
        assert _in_view(page, heading)
        verdict = page.locator(".st-key-scenario-verdict-fail")
        assert _in_view(page, verdict), "the verdict is on the first screen"
        text = verdict.inner_text()
        assert "vs baseline" in text and "regression" in text and "McNemar" in text
        assert f"run #{facts['base']}" in text  # compared with the run before
        assert _red(_box_colour(verdict)), "a regression is never green or amber"
        items = page.locator(".pe-failing li[data-scenario]")
        assert items.count() == min(len(facts["failing"]), 8)
        for i in range(items.count()):
            assert _in_view(page, items.nth(i)), items.nth(i).inner_text()
        listed = items.evaluate_all("els => els.map(e => e.dataset.scenario)")
        assert set(listed) <= set(facts["failing"])
        assert "regressed" in page.locator(".pe-failing").inner_text()
        # each name a real link to its drill-down; the run's full link, copyable
        first = items.first.locator("a")
        assert f"run={facts['latest']}" in first.get_attribute("href")
        link = page.locator(".pe-runlink a")
        assert re.match(
            rf"http://127\.0\.0\.1:\d+/.*run={facts['latest']}", link.get_attribute("href")
        )
        assert page.locator(".pe-runlink button").is_visible()
        # the run form one click away
        run_button = page.get_by_role("button", name="Run evaluation")
        assert not run_button.is_visible()
        page.get_by_text("Run an evaluation", exact=True).click()
        run_button.wait_for(state="visible")
        if width < 640:
            # the phone's cards lead with the scenarios that did not pass
            cards = page.locator("[class*='st-key-cards-scenarios'] .pe-cards .card")
            cards.first.wait_for(state="attached")
            tones = cards.evaluate_all("els => els.map(e => e.classList.contains('fail'))")
            n = sum(tones)
            assert n and tones[:n] == [True] * n, tones
    finally:
        page.context.close()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_a_link_to_a_scenario_scrolls_its_drill_down_into_view(browser, morning, width, height):
    server, facts = morning
    name = facts["failing"][-1]
    page = _page(browser, width, height)
    try:
        for path in (
            f"/?run={facts['latest']}&scenario={name}",
            f"/?page=scenarios&run={facts['latest']}&scenario={name}",
        ):
            page.goto(server.url + path)
            page.get_by_text("Failure drill-down").wait_for()
            _settle(page)
            page.wait_for_function(
                """() => { const e = document.querySelector('[class*="st-key-drilldown-"]');
                  if (!e) return false; const t = e.getBoundingClientRect().top;
                  return t >= 0 && t < innerHeight / 2; }""",
                timeout=WAIT_MS,
            )
            picked = page.locator("[class*='st-key-drilldown-']").get_by_test_id("stSelectbox")
            shown = picked.evaluate(
                "e => e.textContent + [...e.querySelectorAll('input')].map(i => i.value).join()"
            )
            assert name in shown, shown
            assert f"scenario={name}" in page.url
    finally:
        page.context.close()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_history_leads_with_the_cli_verdict_and_keeps_its_filters_closed(
    browser, morning, width, height
):
    from pe_eval_core.history.compare import compare_runs, scenario_verdict
    from pe_eval_core.history.store import RunStore

    server, facts = morning
    store = RunStore(facts["home"] / "history.sqlite")
    cli = scenario_verdict(compare_runs(store, facts["base"], facts["latest"]))
    page = _page(browser, width, height)
    try:
        page.goto(f"{server.url}/run_history")
        verdict = page.locator(".st-key-history-compare-verdict-fail")
        verdict.wait_for()
        _settle(page)
        assert _in_view(page, verdict), "real or noise, above the fold"
        text = " ".join(verdict.inner_text().split())
        assert " ".join(cli.split()) in text, (cli, text)  # the sentence the CLI prints
        assert "Significance: exact McNemar" in text
        assert _red(_box_colour(verdict))
        # two runs made different ways, picked by hand: "not like for like" leads the verdict,
        # still above the fold
        page.get_by_test_id("stSelectbox").filter(has_text="Run A (before)").click()
        page.get_by_role("option", name=re.compile(rf"^#{facts['unlike']} ")).click()
        _settle(page)
        unlike = page.locator("[class*='st-key-history-compare-verdict-']")
        unlike.get_by_text("Not like for like", exact=False).wait_for()
        assert _in_view(page, unlike), "not like for like, above the fold"
        cli = scenario_verdict(
            compare_runs(store, facts["unlike"], facts["latest"], allow_unlike=True)
        )
        assert cli.startswith("Not like for like: judge")
        assert " ".join(cli.split()) in " ".join(unlike.inner_text().split())
        # the filters: one closed panel naming what is in force
        assert page.get_by_text("Filter the runs").is_visible()
        assert page.get_by_text("All runs shown").is_visible()
        assert not page.get_by_test_id("stSelectbox").filter(has_text="Kind").is_visible()
        # blanks, not None, in the runs list (the phone's cards, the desk's grid)
        if width < 640:
            cards = page.locator("[class*='st-key-cards-runs'] .pe-cards").inner_text()
            assert "None" not in cards
    finally:
        page.context.close()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_colours_follow_the_verdict(browser, morning, width, height):
    server, _ = morning
    page = _page(browser, width, height)
    try:
        page.goto(f"{server.url}/?page=scorecard&portco=southeast_lender&audience=board")
        page.get_by_text("Biggest finding.").wait_for()
        _settle(page)
        verdict = page.locator(".st-key-scorecard-verdict-notready")
        headline = verdict.get_by_text("Not ready: 4 issues")
        assert _in_view(page, headline) and _red(_box_colour(verdict))
        # 97.6% citation misses the perfect bound of a not-ready memo: red, not amber
        tile = page.locator(
            "[class*='st-key-scorecard-tile-citation_accuracy-'] [data-testid='stMetric']"
        )
        assert tile.evaluate("e => getComputedStyle(e).borderTopColor") == FAIL_INK
        assert not page.locator("[class*='st-key-scorecard-tile-'][class*='-watch']").count()
        good = page.locator(
            "[class*='st-key-scorecard-tile-hallucination_rate-'] [data-testid='stMetric']"
        )
        assert good.evaluate("e => getComputedStyle(e).borderTopColor") == PASS_INK
        page.goto(f"{server.url}/portfolio")
        page.get_by_text("Weakest memo", exact=False).wait_for()
        _settle(page)
        weakest = page.locator("[class*='st-key-portfolio-weakest-']")
        assert _red(_box_colour(weakest)), "the weakest memo is not ready: red"
        chart = page.locator("[data-testid='stVegaLiteChart']").filter(has=page.locator("svg"))
        visible = [i for i in range(chart.count()) if chart.nth(i).is_visible()]
        heat = chart.nth(visible[0])
        page.wait_for_timeout(800)
        cells = heat.locator("path[aria-roledescription='rect mark']").evaluate_all(
            "els => els.map(e => [e.getAttribute('aria-label') || '', getComputedStyle(e).fill])"
        )
        citation = [
            fill
            for label, fill in cells
            if "portco: southeast_lender;" in label
            and "audience: board;" in label
            and "dimension: Citation accuracy;" in label
        ]
        assert citation == [FAIL_INK], cells[:4]
    finally:
        page.context.close()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_plain_words_and_layout_on_the_scorecard(browser, morning, width, height):
    server, _ = morning
    page = _page(browser, width, height)
    try:
        page.goto(f"{server.url}/?page=scorecard&portco=southeast_lender&audience=board")
        page.get_by_text("Biggest finding.").wait_for()
        _settle(page)
        verdict = page.locator(".st-key-scorecard-verdict-notready").inner_text()
        assert "\u2212$7.9M" in verdict and "$-7.9M" not in verdict
        assert "GA × Branch (opp_01)" in verdict and "C × 60 months (opp_02)" in verdict
        assert page.get_by_text("Reading the data folder", exact=False).is_visible()
        tiles = page.locator("[class*='st-key-scorecard-tile-'] [data-testid='stMetric']")
        page.wait_for_timeout(500)
        boxes = tiles.evaluate_all(  # read at one instant: the page may still be settling
            "els => els.map(e => { const r = e.getBoundingClientRect(); return {y: r.top}; })"
        )
        tops = sorted({round(b["y"]) for b in boxes})
        if width >= 1440:
            assert len(boxes) == 4 and len(tops) == 1, boxes  # four in one row
        else:
            assert len(tops) == 2 and all(
                sum(1 for b in boxes if round(b["y"]) == t) == 2 for t in tops
            ), boxes  # two by two
        cut = tiles.evaluate_all(
            """els => els.flatMap(el => [...el.querySelectorAll(
                '[data-testid="stMetricDelta"] *')].filter(e => e.scrollWidth > e.clientWidth + 1)
                .map(e => e.innerText))"""
        )
        assert cut == [], cut
        page.goto(f"{server.url}/?page=scorecard&portco=southeast_lender&audience=operator")
        page.get_by_role("heading", name="southeast_lender · operator").wait_for()
        _settle(page)
        text = page.locator(".st-key-scorecard-verdict-notready").inner_text()
        assert "the source's state for this cohort is AL" in text
        # upload limits are the core's (25 MB), not Streamlit's 200MB
        page.get_by_text("Upload", exact=True).click()
        page.get_by_test_id("stFileUploader").first.wait_for()
        limits = page.get_by_test_id("stFileUploader").first.inner_text()
        assert "25MB" in limits.replace(" ", "") and "200MB" not in limits.replace(" ", "")
    finally:
        page.context.close()


def test_a_cut_finding_is_one_click_from_its_full_text(browser, morning):
    server, _ = morning
    page = _page(browser, 1440, 900)
    try:
        page.goto(f"{server.url}/?page=scorecard&portco=southeast_lender&audience=board")
        page.get_by_text("Biggest finding.").wait_for()
        _settle(page)
        grid = page.locator("[class*='st-key-wide-findings'] [data-testid='stDataFrame']")
        _click_row(page, grid, 0)
        detail = page.locator("[class*='st-key-detail-scorecard-findings_table']")
        detail.wait_for()
        text = detail.inner_text()
        assert "why:" in text and "opp_01" in text and "belongs to:" in text
    finally:
        page.context.close()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_heatmap_labels_sit_on_top(browser, morning, width, height):
    server, _ = morning
    page = _page(browser, width, height)
    try:
        page.goto(f"{server.url}/portfolio")
        page.get_by_text("Weakest memo", exact=False).wait_for()
        _settle(page)
        chart = page.locator("[data-testid='stVegaLiteChart']")
        heat = next(chart.nth(i) for i in range(chart.count()) if chart.nth(i).is_visible())
        heat.locator("svg").wait_for()
        page.wait_for_timeout(800)
        top_cell = min(
            heat.locator("path[aria-roledescription='rect mark']").evaluate_all(
                "els => els.map(e => e.getBoundingClientRect().top)"
            )
        )
        label = heat.locator("text", has_text="Consistency").first
        box = label.bounding_box()
        assert box["y"] + box["height"] <= top_cell + 1, (box, top_cell)
        names = heat.locator("text").evaluate_all(
            "els => els.map(e => [e.textContent, e.getBoundingClientRect().toJSON()])"
        )
        dims = [r for t, r in names if t in ("Citation accuracy", "Hallucination rate")]
        if dims:  # slanted on a phone, whole and apart
            assert all(r["width"] > 0 for r in dims)
    finally:
        page.context.close()


@pytest.fixture
def fresh(browser, tmp_path) -> Iterator[tuple[Server, Path]]:
    home = tmp_path / "home"
    for server in _serve(None, home):
        yield server, home


@pytest.mark.parametrize("width,height", WIDTHS)
def test_a_run_names_itself_in_the_address_bar_and_recording_is_idempotent(
    browser, fresh, width, height
):
    server, home = fresh
    page = _page(browser, width, height)
    try:
        page.goto(f"{server.url}/scenario_eval")
        page.get_by_role("button", name="Run evaluation").click()
        page.get_by_text("Not passing", exact=False).wait_for()
        _settle(page)
        page.wait_for_function("() => location.search.includes('run=')")
        assert "page=scenarios" in page.url
        rid = int(re.search(r"run=(\d+)", page.url).group(1))
        assert page.get_by_role("heading", name=re.compile(rf"Run #{rid} ")).is_visible()
        after_run = _run_count(home)
        # a reload, and other views, add no run
        for path in ("", "/scenario_eval", "/?page=scorecard&portco=MortgageCo&audience=board"):
            page.goto(server.url + path if path else page.url)
            page.locator("h1").first.wait_for()
            _settle(page)
        seen = _run_count(home)
        for _ in range(2):  # reloads of pages seen already
            page.reload()
            page.locator("h1").first.wait_for()
            _settle(page)
        page.goto(f"{server.url}/scenario_eval")
        page.get_by_text("Not passing", exact=False).wait_for()
        _settle(page)
        assert _run_count(home) == seen
        # the same recorded responses run again: the same run, nothing added
        page.get_by_text("Run an evaluation", exact=True).click()
        page.get_by_role("button", name="Run evaluation").click()
        time.sleep(1)
        page.get_by_text("Not passing", exact=False).wait_for()
        _settle(page)
        assert _run_count(home) == seen and seen == after_run + 1  # + the memo graded once
        assert f"run={rid}" in page.url
    finally:
        page.context.close()


def test_a_fresh_server_shows_progress_before_its_first_page(browser, fresh):
    server, _ = fresh
    page = _page(browser, 1440, 900)
    page.add_init_script(
        # The notice can be added and replaced between two callbacks under load, so the
        # records' added nodes are read as well as what the document holds at callback time.
        """window.__seen = [];
        const ALERT = '[data-testid="stAlert"]';
        const note = (el) => {
          const t = el.textContent; if (t && !window.__seen.includes(t)) window.__seen.push(t);
        };
        new MutationObserver((records) => {
          for (const r of records) {
            for (const n of r.addedNodes) {
              if (n.nodeType !== 1) continue;
              if (n.matches(ALERT)) note(n);
              for (const a of n.querySelectorAll(ALERT)) note(a);
            }
          }
          for (const a of document.querySelectorAll(ALERT)) note(a);
        }).observe(document, {subtree: true, childList: true, characterData: true});"""
    )
    try:
        page.goto(server.url)
        page.get_by_text("Biggest finding.").wait_for()
        seen = page.evaluate("() => window.__seen")
        assert any("Starting pe-eval" in s or "Loading the" in s for s in seen), seen
    finally:
        page.context.close()


PRODUCER_RUN = ROOT / "tests" / "corpus" / "producer_run"


@pytest.fixture(scope="module")
def documents_server(browser, tmp_path_factory) -> Iterator[Server]:
    """The dashboard on a copy of the producer's folder (memos, exit packs, a DDQ, red flags)."""
    import shutil

    root = tmp_path_factory.mktemp("documents")
    shutil.copytree(PRODUCER_RUN, root / "run")
    yield from _serve(root / "run" / "finance_output", root / "home")


@pytest.mark.parametrize("width,height", WIDTHS)
def test_the_document_page_follows_the_colour_rule_and_plain_words(
    browser, documents_server, width, height
):
    """The Document page (issue 22) as the memo scorecard: its verdict and the tile of the
    dimension that misses its bound red by computed style, four tiles in a row (two by two on
    a phone), money with the minus before the dollar, the folder named, a finding's full text
    one click away."""
    page = _page(browser, width, height)
    try:
        doc = "ddq_response_Bolnet_Capital_Partners_I.json"
        page.goto(f"{documents_server.url}/?page=documents&doc={doc}")
        page.get_by_text("Biggest finding.").wait_for()
        _settle(page)
        verdict = page.locator(".st-key-scorecard-verdict-notready")
        headline = verdict.get_by_text("Not ready: 3 issues")
        assert _in_view(page, headline) and _red(_box_colour(verdict))
        text = verdict.inner_text()
        assert "\u2212$990.9M" in text and "$-" not in text, text
        tile = page.locator(
            "[class*='st-key-scorecard-tile-citation_accuracy-'] [data-testid='stMetric']"
        )
        assert tile.evaluate("e => getComputedStyle(e).borderTopColor") == FAIL_INK
        assert _red(_box_colour(page.locator("[class*='st-key-biggest-']")))
        assert "$-" not in page.locator("[class*='st-key-biggest-']").inner_text()
        assert page.get_by_text("Reading the data folder", exact=False).is_visible()
        tiles = page.locator("[class*='st-key-scorecard-tile-'] [data-testid='stMetric']")
        page.wait_for_timeout(500)
        tops = tiles.evaluate_all("els => els.map(e => Math.round(e.getBoundingClientRect().top))")
        rows = sorted(set(tops))
        if width >= 1440:
            assert len(tops) == 4 and len(rows) == 1, tops
            assert all(_in_view(page, tiles.nth(i)) for i in range(4))
        else:
            assert len(rows) == 2 and all(tops.count(t) == 2 for t in rows), tops
        if width >= 1440:
            grid = page.get_by_test_id("stDataFrame").first  # the findings come first
            _click_row(page, grid, 0)
            detail = page.locator("[class*='st-key-detail-documents-findings']")
            detail.wait_for()
            full = detail.inner_text()
            assert "why:" in full and "aggregates its wording allows" in full, full
    finally:
        page.context.close()
