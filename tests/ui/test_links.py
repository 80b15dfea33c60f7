"""Shareable links and reopened runs (issue 12, item 4), driven headlessly with AppTest.

Every view has a URL (``?page=scorecard&portco=X&audience=board``, ``?run=ID``,
``?run=ID&scenario=NAME``) that opens it on a fresh session and follows the user as they
navigate; a History row, a heatmap cell and a table row are clickable.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from pe_eval_core.wording import fmt_pct
from ui import links, state

ROOT = Path(__file__).resolve().parents[2]
DEMO_DATA = ROOT / "finance_output"
DEMO_SCENARIOS = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"
TIMEOUT = 120
SC, H, RV, SN = state.Scorecard, state.History, state.RunView, state.Scenarios


def open_link(**params: str):
    """A fresh session opened on a link (as a pasted URL is)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def params(at) -> dict[str, str]:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in dict(at.query_params).items()}


def unescape(text: str) -> str:
    return text.replace("\\", "")


def select_row(at, key: str, row: int):
    """Click a row of an ``on_select`` dataframe (its widget state, as the browser sends it)."""
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


def grade(portco: str, audience: str):
    from pe_eval_core.memo import grade_memo, resolve_pair

    pair = resolve_pair(DEMO_DATA, portco, audience)
    return grade_memo(pair.memo_path, pair.source_path)


def recorded_demo_run(repeat: int = 1):
    """The demo scenario run (recorded responses and verdicts, no network)."""
    from pe_eval_core.scenarios import load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.run.setup import choose_judge, make_target

    target = make_target("recorded", scenarios_path=DEMO_SCENARIOS)
    judge = choose_judge(scenarios_path=DEMO_SCENARIOS, recorded_target=True)
    return run_scenarios_sync(
        load_scenarios(DEMO_SCENARIOS),
        target,
        judge=judge,
        scenarios_path=str(DEMO_SCENARIOS),
        repeat=repeat,
    )


@pytest.fixture
def store(_isolated_home):
    from pe_eval_core.history.store import RunStore

    return RunStore(_isolated_home / "history.sqlite")


# --- reading and writing links --------------------------------------------------------------


def test_links_doctests():
    assert doctest.testmod(links).failed == 0


def test_scorecard_link_opens_that_memo_on_a_fresh_session():
    ev = grade("southeast_lender", "operator")
    at = open_link(page="scorecard", portco="southeast_lender", audience="operator")
    assert not at.exception
    assert unescape(at.subheader[0].value) == "southeast_lender · operator"
    assert {m.label: m.value for m in at.metric}["Coverage"] == fmt_pct(ev.scores.coverage)
    assert params(at) == {"page": "scorecard", "portco": "southeast_lender", "audience": "operator"}


def test_link_follows_the_user_and_a_stale_link_never_resets_a_widget():
    at = open_link(page="scorecard", portco="southeast_lender", audience="operator")
    at.radio(key=SC.AUDIENCE).set_value("board").run()
    assert not at.exception
    assert unescape(at.subheader[0].value) == "southeast_lender · board"
    assert params(at)["audience"] == "board"
    at.run()  # a plain rerun must not re-apply the old link
    assert at.radio(key=SC.AUDIENCE).value == "board"


def test_plain_landing_page_gets_its_own_link():
    at = open_link()
    assert not at.exception
    p = params(at)
    assert p["page"] == "scorecard"
    assert p["portco"] == at.selectbox(key=SC.PORTCO).value


def test_link_to_an_unknown_portco_says_so_and_shows_another():
    at = open_link(page="scorecard", portco="NoSuchCo", audience="board")
    assert not at.exception
    warned = " ".join(unescape(w.value) for w in at.warning)
    assert "No memo for `NoSuchCo`" in warned
    assert params(at)["portco"] != "NoSuchCo"


@pytest.mark.parametrize(
    ("page", "title"),
    [("portfolio", "Portfolio"), ("scenarios", "Scenario evaluation"), ("history", "History")],
)
def test_page_link_opens_that_page(page, title):
    at = open_link(page=page)
    assert not at.exception
    assert at.title[0].value == title
    assert params(at)["page"] == page


def test_unknown_page_in_a_link_lands_on_the_scorecard():
    at = open_link(page="settings")
    assert not at.exception
    assert at.title[0].value == "Memo scorecard"


# --- click-throughs ---------------------------------------------------------------------


def test_portfolio_row_click_opens_that_scorecard_with_its_link():
    at = open_link(page="portfolio")
    frame = at.dataframe[0].value
    row = int(
        frame.index[(frame["portco"] == "southeast_lender") & (frame["audience"] == "operator")][0]
    )
    at = select_row(at, state.Portfolio.TABLE, row)
    assert not at.exception
    assert at.title[0].value == "Memo scorecard"
    assert unescape(at.subheader[0].value) == "southeast_lender · operator"
    assert params(at) == {"page": "scorecard", "portco": "southeast_lender", "audience": "operator"}


def test_heatmap_cell_click_opens_that_scorecard():
    at = open_link(page="portfolio")
    at.session_state[state.Portfolio.HEATMAP] = {
        "selection": {"cell": [{"portco": "HMDA_GA", "audience": "operator"}]}
    }
    at.run()
    assert not at.exception
    assert at.title[0].value == "Memo scorecard"
    assert unescape(at.subheader[0].value) == "HMDA_GA · operator"


def test_heatmap_spec_defines_the_click_selection():
    from ui import charts

    rows = [
        {
            "portco": "A",
            "audience": "board",
            "dimension": "Coverage",
            "score": 1.0,
            "band_label": next(iter(charts.band_labels().values())),
            "text": "100%",
            "context": "1/1",
        }
    ]
    spec = charts.portfolio_heatmap(rows).to_dict()
    (param,) = spec["params"]
    assert param["name"] == charts.HEATMAP_SELECTION
    assert param["select"]["fields"] == ["portco", "audience"]
    assert param["views"] == [spec["spec"]["layer"][0]["name"]], "the cells carry the click"


# --- reopening runs ---------------------------------------------------------------------


def test_history_row_click_reopens_a_memo_run_as_graded(store):
    ev = grade("southeast_lender", "board")
    rid = store.record_memo_evaluation(ev, origin="test")
    at = open_link(page="history")
    runs = at.dataframe[0].value
    at = select_row(at, H.RUNS, int(runs.index[runs["id"] == rid][0]))
    assert not at.exception
    assert params(at) == {"run": str(rid)}
    shown = {m.label: m.value for m in at.metric}
    for label, field in (
        ("Citation accuracy", "citation_accuracy"),
        ("Consistency", "consistency"),
    ):
        assert shown[label] == fmt_pct(getattr(ev.scores, field))
    assert any("Not ready" in e.value for e in at.error), "the stored verdict is shown"
    findings = [
        d.value
        for d in at.dataframe
        if "offending text" in d.value.columns or "raw" in d.value.columns
    ]
    assert findings and len(findings[0]) == len(ev.findings)
    at.button(key=H.BACK).click().run()
    assert not at.exception
    assert params(at) == {"page": "history"}
    assert at.dataframe[0].value["id"].tolist()[0] == rid


def test_memo_record_rebuilds_the_evaluation_exactly(store):
    from pe_eval_core.history.rebuild import memo_from_record

    ev = grade("southeast_lender", "board")
    rebuilt = memo_from_record(store.get_run(store.record_memo_evaluation(ev)))
    assert rebuilt.scores == ev.scores
    assert rebuilt.totals == ev.totals
    assert rebuilt.findings == ev.findings
    assert [o.model_dump() for o in rebuilt.opportunities] == [
        o.model_dump() for o in ev.opportunities
    ]


def test_scenario_record_rebuilds_the_run_view_exactly(store):
    from pe_eval_core.history.rebuild import scenario_run_from_record
    from ui.views import scenario_results as scenarios

    run = recorded_demo_run()
    rebuilt = scenario_run_from_record(store.get_run(store.record_scenario_run(run)))
    fresh = scenarios.build_view(run, run.model_dump_json())
    again = scenarios.build_view(rebuilt, rebuilt.model_dump_json())
    assert again["table"] == fresh["table"]
    assert again["tiers"] == fresh["tiers"]
    assert again["conclusion"] == fresh["conclusion"]
    assert set(again["failing"]) == set(fresh["failing"])


def test_run_link_with_a_scenario_opens_its_drill_down(store):
    run = recorded_demo_run()
    rid = store.record_scenario_run(run)
    failing = [r.name for r in run.results if r.status != "pass"]
    assert len(failing) >= 2
    at = open_link(run=str(rid), scenario=failing[1])
    assert not at.exception
    assert at.title[0].value == "History"
    assert at.selectbox(key=RV.FAILURE).value == failing[1]
    assert params(at) == {"run": str(rid), "scenario": failing[1]}
    assert len(at.dataframe[0].value) == run.total
    # Picking another scenario updates the link.
    at.selectbox(key=RV.FAILURE).set_value(failing[0]).run()
    assert params(at)["scenario"] == failing[0]


def test_run_link_to_a_repeated_scenario_opens_its_first_failing_run(store):
    run = recorded_demo_run(repeat=2)
    rid = store.record_scenario_run(run)
    from pe_eval_core.history.rebuild import scenario_run_from_record

    assert scenario_run_from_record(store.get_run(rid)).repeats == 2  # restored from the record
    name = next(r.name for r in run.results if r.status != "pass")
    at = open_link(run=str(rid), scenario=name)
    assert not at.exception
    assert not any("passed in this run" in unescape(i.value) for i in at.info)
    assert at.selectbox(key=RV.FAILURE).value == f"{name} · run 1"


def test_run_link_to_a_passing_scenario_says_so(store):
    run = recorded_demo_run()
    rid = store.record_scenario_run(run)
    passing = next(r.name for r in run.results if r.status == "pass")
    at = open_link(run=str(rid), scenario=passing)
    assert not at.exception
    assert any("passed in this run" in unescape(i.value) for i in at.info)


def test_run_link_accepts_latest(store):
    rid = store.record_scenario_run(recorded_demo_run())
    at = open_link(run="latest")
    assert not at.exception
    assert params(at)["run"] == str(rid)


def test_link_to_a_missing_run_is_an_error_not_a_traceback(store):
    store.record_scenario_run(recorded_demo_run())
    at = open_link(run="999")
    assert not at.exception
    assert "999" in unescape(at.error[0].value)
    assert at.button(key=H.BACK)


# --- the scenario table drives the drill-down -----------------------------------------------


def recorded_run_session():
    at = open_link(page="scenarios")
    at.button(key=SN.RUN).click().run()
    assert not at.exception
    return at


def test_scenario_row_click_drills_into_that_scenario():
    at = recorded_run_session()
    table = at.dataframe(key=SN.TABLE).value
    failing = table[table["Result"] != "pass"]
    last = int(failing.index[-1])
    at = select_row(at, SN.TABLE, last)
    assert not at.exception
    assert at.selectbox(key=SN.FAILURE).value == table["Scenario"][last]


def test_drill_down_honours_the_table_filters():
    at = recorded_run_session()
    table = at.dataframe(key=SN.TABLE).value
    failing = table[table["Result"] != "pass"]
    tier = str(failing["Tier"].iloc[-1])
    at.multiselect(key=SN.F_TIER).set_value([tier]).run()
    assert not at.exception
    offered = at.selectbox(key=SN.FAILURE).options
    expected = failing[failing["Tier"] == tier]["Scenario"].tolist()
    assert offered == expected


def test_a_cli_recorded_run_shows_its_judge(store, _isolated_home, capsys):
    """The CLI records the judge with the run; the reopened run names it (was: not recorded)."""
    from pe_eval_core.cli.main import main

    assert main(["scenarios", "score", "--db", str(_isolated_home / "history.sqlite")]) == 1
    capsys.readouterr()
    recorded = store.get_run("latest")
    assert recorded.summary.scores["judge"] == "recorded:claude-sonnet-4-5"
    at = open_link(run="latest")
    assert not at.exception
    caption = next(unescape(c.value) for c in at.caption if "Target " in c.value)
    assert "judge recorded:claude-sonnet-4-5" in caption and "not recorded" not in caption
    # a run recorded before the judge was kept: read from its verdicts
    scores = {k: v for k, v in recorded.summary.scores.items() if k != "judge"}
    old = recorded.model_copy(
        update={"summary": recorded.summary.model_copy(update={"scores": scores})}
    )
    from pe_eval_core.history.rebuild import scenario_run_from_record

    assert scenario_run_from_record(old).judge == (
        "recorded:claude-sonnet-4-5 (from the recorded verdicts)"
    )
