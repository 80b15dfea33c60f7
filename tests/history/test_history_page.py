"""The dashboard's History page under AppTest: runs list, filters, trends, compare."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import streamlit as st

from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import (
    ROOT,
    make_memo_evaluation,
    make_result,
    make_scenario_run,
)

PAGE = "app_pages/run_history.py"
T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Factory: AppTest of app.py switched to the History page."""
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()  # the other pages record only on a cache miss

    def make(*, record_default_page: bool = False) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        if not record_default_page:  # the app opens on the memo scorecard, which records
            monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
        at.run()
        monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
        at.switch_page(PAGE)
        at.run()
        assert not at.exception, at.exception
        return at

    return make


def _fill(home: Path) -> RunStore:
    store = RunStore(home / "history.sqlite")
    for day, (cov, halluc) in enumerate([(0.75, 0.1), (1.0, 0.0)]):
        store.record_memo_evaluation(
            make_memo_evaluation(
                scores=(1.0, halluc, cov, 1.0),
                findings=[{"kind": "ungrounded_entity", "raw": "**FL**"}] if halluc else [],
                when=T0 + timedelta(days=day),
            )
        )
    for day, status in ((2, "pass"), (3, "fail")):
        store.record_scenario_run(
            make_scenario_run(
                [
                    make_result(
                        "<b>smoke</b>-headline",
                        "smoke",
                        status,
                        expectations=[("$4,820", status == "pass", "strict")],
                    ),
                    make_result("functional-plan", "functional", "pass"),
                ],
                when=T0 + timedelta(days=day),
            )
        )
    return store


def test_empty_history_explains_how_runs_get_here(page: Any) -> None:
    at = page()
    assert at.title[0].value == "History"
    assert any("No runs recorded yet" in i.value for i in at.info)


def test_an_evaluation_on_another_page_shows_up_in_history(page: Any) -> None:
    at = page(record_default_page=True)
    table = at.dataframe[0].value
    assert list(table["from"]) == ["dashboard"]
    assert list(table["kind"]) == ["memo"]


def _runs_table(at: Any) -> Any:
    return next(df.value for df in at.dataframe if {"id", "kind", "from"} <= set(df.value.columns))


def test_runs_trends_and_default_comparison_shows_the_regression(
    page: Any, _isolated_home: Path
) -> None:
    _fill(_isolated_home)
    at = page()
    table = _runs_table(at)
    assert list(table["id"]) == [4, 3, 2, 1]
    assert list(table["kind"]) == ["scenarios", "scenarios", "memo", "memo"]
    # default comparison: newest run (#4) against the previous run of the same subject (#3)
    assert at.selectbox(key="history.run_a").value.startswith("#3 · ")
    assert at.selectbox(key="history.run_b").value.startswith("#4 · ")
    assert [m.label for m in at.metric][:2] == ["Regressions", "Fixes"]
    assert at.metric[0].value == "1"
    # the comparison leads with the CLI's verdict, red (issue 21); the details under it
    assert "1 regression vs baseline" in at.error[0].value and "smoke" in at.error[0].value
    assert "Significance: exact McNemar" in at.error[0].value
    regressions = next(df.value for df in at.dataframe if "what changed" in df.value.columns)
    assert list(regressions["scenario"]) == ["<b>smoke</b>-headline"]
    assert "expectation '$4,820': satisfied (strict) -> missed" in regressions["what changed"][0]
    assert len(at.tabs) == 2


def test_filters_and_memo_comparison(page: Any, _isolated_home: Path) -> None:
    _fill(_isolated_home)
    at = page()
    at.selectbox(key="history.filter_kind").set_value("memo").run()
    assert not at.exception
    assert list(_runs_table(at)["kind"]) == ["memo", "memo"]
    assert at.selectbox(key="history.filter_portco").options == ["All", "MortgageCo"]
    run_a, run_b = at.selectbox(key="history.run_a"), at.selectbox(key="history.run_b")
    assert run_a.value.startswith("#1 · ") and run_b.value.startswith("#2 · ")
    # led by the CLI's memo comparison verdict, green
    assert any("No regression: no dimension got worse" in s.value for s in at.success)
    # swap: going from the clean run back to the defective one is a regression
    run_a.set_value(run_b.value)
    run_b.set_value(run_a.options[-1]).run()
    assert not at.exception
    assert "Hallucination" in at.error[0].value and "Coverage" in at.error[0].value
    new_findings = next(df.value for df in at.dataframe if "raw" in df.value.columns)
    assert list(new_findings["raw"]) == ["**FL**"]


def test_chart_builders_shape_the_sql_rows() -> None:
    from ui.views import history as module

    default_pair = module.default_pair
    memo_trend_chart, tier_trend_chart = module.memo_trend_chart, module.tier_trend_chart

    rows = [
        {
            "id": 1,
            "created_at": T0.isoformat(),
            "portco_id": "P",
            "audience": "board",
            "citation_accuracy": 1.0,
            "hallucination_rate": 0.0,
            "coverage": 0.5,
            "consistency": None,
        }
    ]
    spec = memo_trend_chart(rows).to_dict()
    values = next(iter(spec["datasets"].values()))
    labels = {v["dimension"] for v in values}  # the core's names (wording.DIMENSION_LABELS)
    assert labels == {"Citation accuracy", "Hallucination rate", "Coverage"}
    tiers = tier_trend_chart(
        [
            {
                "id": 1,
                "created_at": T0.isoformat(),
                "tier": "smoke",
                "passed": 1,
                "total": 2,
                "pass_rate": 0.5,
                "target": "t",
            }
        ]
    ).to_dict()
    assert json.dumps(tiers).count('"pass_rate": 0.5') == 1
    assert default_pair([]) == (None, None)
    # trends colour categories (dimensions, tiers), never as verdicts: no pass/watch/fail ink,
    # so a tier at 100% is never drawn red (issue 21)
    from pe_eval_core.tone import CATEGORY_COLOURS, INK

    for chart in (spec, tiers):
        text = json.dumps(chart)
        assert all(c in text for c in CATEGORY_COLOURS)
        assert not any(ink in text for ink in INK.values())
