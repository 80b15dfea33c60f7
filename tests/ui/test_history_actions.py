"""History page actions under AppTest: delete (with its confirm step), pin / unpin a baseline
(the same pin the CLI gate reads), infrastructure-error runs marked and kept out of trends,
memo trends grouped by file, and corrupt rows shown as warnings instead of breaking the page."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import streamlit as st

from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import (
    make_memo_evaluation,
    make_result,
    make_scenario_run,
)

ROOT = Path(__file__).resolve().parents[2]
from ui.state import History as K  # noqa: E402

PAGE = "app_pages/run_history.py"
T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


def _store(home: Path) -> RunStore:
    return RunStore(home / "history.sqlite")


def _fill(home: Path) -> dict[str, int]:
    """Two memo gradings, a scenario run that ran and one where every scenario errored."""
    store = _store(home)
    ids = {
        "memo1": store.record_memo_evaluation(
            make_memo_evaluation(scores=(1.0, 0.1, 0.75, 1.0), when=T0, memo_sha="1" * 64)
        ),
        "memo2": store.record_memo_evaluation(
            make_memo_evaluation(when=T0 + timedelta(days=1), memo_sha="2" * 64)
        ),
        "ran": store.record_scenario_run(
            make_scenario_run(
                [make_result("a", "smoke", "pass"), make_result("b", "smoke", "fail")],
                when=T0 + timedelta(days=2),
            )
        ),
        "infra": store.record_scenario_run(
            make_scenario_run(
                [
                    make_result("a", "smoke", "error", error="connection refused"),
                    make_result("b", "smoke", "error", error="connection refused"),
                ],
                when=T0 + timedelta(days=3),
            )
        ),
    }
    return ids


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Factory: AppTest of app.py switched to the History page (the landing page records
    nothing, so the history holds only what the test put there)."""
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()

    def make(**state: object) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
        at.run()
        monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
        for key, value in state.items():
            at.session_state[key] = value
        at.switch_page(PAGE)
        at.run()
        assert not at.exception, at.exception
        return at

    return make


def _runs_table(at: Any) -> Any:
    return next(d.value for d in at.dataframe if "created (UTC)" in d.value.columns)


def _manage(at: Any, run_id: int) -> None:
    box = at.selectbox(key=K.MANAGE)
    box.set_value(next(o for o in box.options if o.startswith(f"#{run_id} · "))).run()
    assert not at.exception, at.exception


def _mark(at: Any, run_id: int) -> str:
    table = _runs_table(at)
    return str(table.loc[table["id"] == run_id, "mark"].iloc[0])


def _chart_frames(at: Any) -> list[Any]:
    """The data of every chart on the page (Streamlit sends it as Arrow IPC)."""
    import pyarrow as pa

    return [
        pa.ipc.open_stream(d.data.data).read_all().to_pandas()
        for chart in at.get("vega_lite_chart")
        for d in chart.proto.datasets
    ]


def test_delete_asks_first_then_removes_the_row(page, _isolated_home):
    ids = _fill(_isolated_home)
    at = page()
    assert ids["memo1"] in set(_runs_table(at)["id"])
    _manage(at, ids["memo1"])
    at.button(key=f"history.delete.{ids['memo1']}").click().run()
    # the confirm step: nothing deleted yet
    assert any(f"Delete run #{ids['memo1']}" in w.value for w in at.warning)
    assert _store(_isolated_home).count_runs() == 4
    at.button(key=f"history.delete_no.{ids['memo1']}").click().run()
    assert not any("cannot be undone" in w.value for w in at.warning)
    assert _store(_isolated_home).count_runs() == 4
    # again, and confirm
    at.button(key=f"history.delete.{ids['memo1']}").click().run()
    at.button(key=f"history.delete_yes.{ids['memo1']}").click().run()
    assert not at.exception, at.exception
    assert any(f"Run #{ids['memo1']} deleted" in s.value for s in at.success)
    assert ids["memo1"] not in set(_runs_table(at)["id"])
    assert {r.id for r in _store(_isolated_home).list_runs()} == {
        ids["memo2"],
        ids["ran"],
        ids["infra"],
    }


def test_pin_marks_the_row_and_is_the_pin_the_gate_reads(page, _isolated_home):
    ids = _fill(_isolated_home)
    at = page()
    assert _mark(at, ids["ran"]) == ""
    _manage(at, ids["ran"])
    at.button(key=f"history.pin.{ids['ran']}").click().run()
    assert not at.exception, at.exception
    assert _mark(at, ids["ran"]) == "baseline"
    assert _mark(at, ids["memo2"]) == ""
    # the gate defaults to RunStore.pinned_baseline("scenarios"): the same store, the same pin
    assert _store(_isolated_home).pinned_baseline("scenarios") == ids["ran"]
    assert _store(_isolated_home).pinned_baseline("memo") is None
    # pinning a memo run makes it run A of the comparison, against the newest memo run
    _manage(at, ids["memo1"])
    at.button(key=f"history.pin.{ids['memo1']}").click().run()
    assert at.selectbox(key=K.RUN_A).value.startswith(f"#{ids['memo1']} · ")
    assert at.selectbox(key=K.RUN_B).value.startswith(f"#{ids['memo2']} · ")
    assert _mark(at, ids["memo1"]) == "baseline" and _mark(at, ids["ran"]) == "baseline"
    _manage(at, ids["ran"])
    at.button(key=f"history.unpin.{ids['ran']}").click().run()
    assert _mark(at, ids["ran"]) == ""
    assert _store(_isolated_home).pinned_baseline("scenarios") is None


def test_comparison_defaults_to_the_pinned_memo_baseline(page, _isolated_home):
    ids = _fill(_isolated_home)
    newest = _store(_isolated_home).record_memo_evaluation(
        make_memo_evaluation(when=T0 + timedelta(days=5), memo_sha="3" * 64)
    )
    _store(_isolated_home).pin_baseline(ids["memo1"])
    at = page()
    # newest run first; A is the pin (#memo1), not the run just before (#memo2)
    assert at.selectbox(key=K.RUN_A).value.startswith(f"#{ids['memo1']} · ")
    assert at.selectbox(key=K.RUN_B).value.startswith(f"#{newest} · ")


def test_infrastructure_error_run_is_marked_cannot_be_pinned_and_stays_out_of_trends(
    page, _isolated_home
):
    ids = _fill(_isolated_home)
    at = page()
    assert _mark(at, ids["infra"]) == "infrastructure error"
    assert _mark(at, ids["ran"]) == ""
    _manage(at, ids["infra"])
    assert not [b for b in at.button if b.key == f"history.pin.{ids['infra']}"]
    assert any("cannot be a baseline" in c.value for c in at.caption)
    # the comparison never defaults to it: the one scenario run that ran has no partner, so
    # the memo runs are paired
    assert at.selectbox(key=K.RUN_B).value.startswith(f"#{ids['memo2']} · ")
    tier_runs = {int(i) for frame in _chart_frames(at) if "pass_rate" in frame for i in frame["id"]}
    assert tier_runs == {ids["ran"]}


def test_reopened_run_can_be_pinned_and_deleted(page, _isolated_home):
    ids = _fill(_isolated_home)
    at = page(**{K.OPEN: str(ids["memo2"])})
    assert any(f"Run #{ids['memo2']}" in m.value for m in at.markdown)
    assert [b.proto.label for b in at.get("download_button")] == ["Findings CSV"]
    at.button(key=f"history.pin.{ids['memo2']}").click().run()
    assert not at.exception, at.exception
    assert _store(_isolated_home).pinned_baseline("memo") == ids["memo2"]
    assert any(
        f"Run #{ids['memo2']} · memo" in m.value and "baseline" in m.value for m in at.markdown
    )
    at.button(key=f"history.delete.{ids['memo2']}").click().run()
    at.button(key=f"history.delete_yes.{ids['memo2']}").click().run()
    assert not at.exception, at.exception
    # back on the list, the run (and its pin) gone
    assert ids["memo2"] not in set(_runs_table(at)["id"])
    assert _store(_isolated_home).pinned_baseline("memo") is None


def test_memo_trend_lines_are_files_not_portco_names(_isolated_home):
    from ui.views.history import memo_trend_chart

    store = _store(_isolated_home)
    for i, folder in enumerate(("fund_a", "fund_b")):
        ev = make_memo_evaluation(when=T0 + timedelta(days=i), memo_sha=str(i) * 64)
        store.record_memo_evaluation(
            ev.model_copy(update={"memo_path": f"/data/{folder}/explain_MortgageCo_board.json"})
        )
    spec = memo_trend_chart(store.memo_trend()).to_dict()
    values = next(iter(spec["datasets"].values()))
    assert {v["memo"] for v in values} == {
        "fund_a/explain_MortgageCo_board.json",
        "fund_b/explain_MortgageCo_board.json",
    }


def test_corrupt_row_is_a_warning_and_the_rest_still_list(page, _isolated_home):
    ids = _fill(_isolated_home)
    with sqlite3.connect(_isolated_home / "history.sqlite") as conn:
        conn.execute("UPDATE runs SET scores_json = '{not json' WHERE id = ?", (ids["memo1"],))
    at = page()
    assert not at.exception
    assert any(f"skipped run {ids['memo1']}" in w.value for w in at.warning)
    assert set(_runs_table(at)["id"]) == {ids["memo2"], ids["ran"], ids["infra"]}


@pytest.mark.parametrize(
    "total,passed,errors,tone",
    [(19, 19, 0, "pass"), (19, 12, 0, "fail"), (19, 18, 1, "watch"), (19, 0, 19, "fail")],
)
def test_a_run_card_is_coloured_by_its_run_verdict(total, passed, errors, tone):
    """A phone's run card takes the run's tone from pe_eval_core.tone: every scenario errored
    is a failure, never green; errors without a failure are watch."""
    from pe_eval_core.history.records import RunSummary
    from ui.views.history import run_card

    summary = RunSummary(
        id=1,
        uid="u1",
        kind="scenarios",
        created_at="2026-04-01T09:00:00+00:00",
        recorded_at="2026-04-01T09:00:00+00:00",
        origin="cli",
        scenarios_path="mimic-scenarios.json",
        target="mimic",
        n_total=total,
        n_passed=passed,
        n_errors=errors,
    )
    assert run_card(summary).tone == tone
