"""The memo pages' records: the findings CSV names portco, audience, memo file and history run
id (every cell escaped); the scorecard and Portfolio record their gradings in one transaction,
and a reload (even a cold one) adds no run."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import streamlit as st

from pe_eval_core.history.store import RunStore
from pe_eval_core.memo import findings_to_csv, grade_memo
from pe_eval_core.memo.outputs import FINDING_COLUMNS
from ui import data, state
from ui.views.scorecard import CSV_CONTEXT, findings_csv

DEMO_DATA = Path(__file__).resolve().parents[2] / "finance_output"
PORTFOLIO = "app_pages/portfolio.py"
DEFECTIVE = ("southeast_lender", "board")


def _grade(portco: str, audience: str):
    return grade_memo(
        DEMO_DATA / f"explain_{portco}_{audience}.json", DEMO_DATA / f"dx_report_{portco}.json"
    )


def test_findings_csv_leads_with_portco_audience_memo_file_and_run_id():
    ev = _grade(*DEFECTIVE)
    assert ev.findings  # the demo's planted defects
    rows = list(csv.reader(io.StringIO(findings_csv(ev, 42))))
    assert rows[0] == [*CSV_CONTEXT, *FINDING_COLUMNS]
    assert len(rows) == 1 + len(ev.findings)
    for row in rows[1:]:
        assert row[:4] == ["southeast_lender", "board", "explain_southeast_lender_board.json", "42"]
    # the core columns are the core CSV's, cell for cell
    core = list(csv.reader(io.StringIO(findings_to_csv(ev))))
    assert [r[4:] for r in rows] == core
    # no server path anywhere; an unrecorded grading has an empty run id
    assert str(DEMO_DATA) not in findings_csv(ev, None)
    assert {r[3] for r in csv.reader(io.StringIO(findings_csv(ev, None)))} == {"run_id", ""}


def test_findings_csv_escapes_every_cell_including_the_context():
    ev = _grade(*DEFECTIVE)
    bad = "-2+3+cmd|' /C calc'!A0"
    hostile = ev.model_copy(
        update={
            "audience": "=HYPERLINK(1)",
            "memo_path": "/x/@SUM(1).json",
            "findings": [ev.findings[0].model_copy(update={"raw": bad})],
        }
    )
    rows = list(csv.reader(io.StringIO(findings_csv(hostile, 1))))
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["raw"] == "'" + bad
    assert row["audience"] == "'=HYPERLINK(1)"
    assert row["memo_file"] == "'@SUM(1).json"


def _runs() -> list[int]:
    return sorted(r.id for r in RunStore().list_runs())


def test_scorecard_records_once_and_names_its_run(app):
    st.cache_data.clear()
    at = app(**{state.Scorecard.PORTCO: DEFECTIVE[0], state.Scorecard.AUDIENCE: DEFECTIVE[1]})
    assert not at.exception
    runs = _runs()
    assert len(runs) == 1
    caption = next(c.value for c in at.caption if "Recorded in the history as run" in c.value)
    assert re.search(rf"run #{runs[0]}\b", caption) and f"?run={runs[0]}" in caption
    # a cold reload (the sidebar's reload button empties the caches) grades again: same run
    st.cache_data.clear()
    again = app(**{state.Scorecard.PORTCO: DEFECTIVE[0], state.Scorecard.AUDIENCE: DEFECTIVE[1]})
    assert not again.exception
    assert _runs() == runs
    assert any(f"run #{runs[0]} " in c.value for c in again.caption)


def test_portfolio_records_every_pair_once_and_a_reload_adds_none(app, monkeypatch):
    from pe_eval_core.history import recording

    calls: list[int] = []
    real = recording.record_memo_rows  # every batch of memo gradings is one call (one transaction)

    def spy(batch, **kw):
        batch = list(batch)
        calls.append(len(batch))
        return real(batch, **kw)

    monkeypatch.setattr(recording, "record_memo_rows", spy)
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")  # the landing scorecard records nothing
    at = app()
    monkeypatch.delenv("PE_EVAL_NO_HISTORY")
    data.clear_caches()
    at.switch_page(PORTFOLIO)
    at.run()
    assert not at.exception
    pairs = len(list(Path(DEMO_DATA).glob("explain_*.json")))
    assert calls == [pairs]  # one transaction for the whole folder
    runs = _runs()
    assert len(runs) == pairs
    data.clear_caches()  # a cold reload grades every pair again
    at.run()
    assert not at.exception
    assert calls == [pairs, pairs] and _runs() == runs
