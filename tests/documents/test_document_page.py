"""The dashboard: the document scorecard page picks any document of the folder, and the
Portfolio shows a row per document of every kind (AppTest, headless)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
RUN = ROOT / "tests" / "corpus" / "producer_run"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(RUN, tmp_path / "run")
    data = tmp_path / "run" / "finance_output"
    monkeypatch.setenv("PE_EVAL_DATA_DIR", str(data))
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    return data


def _app(page: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(page)
    at.run()
    return at


def test_document_page_grades_the_picked_document(folder: Path) -> None:
    at = _app("app_pages/document_scorecard.py")
    assert not at.exception
    options = at.selectbox[0].options
    assert any("DDQ response" in o for o in options) and any("memo" in o for o in options)
    pick = next(o for o in options if "cim_redflags" in o)
    at.selectbox[0].set_value(pick).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Coverage"] == "80%" and metrics["Hallucination rate"] == "12.5%"
    assert "Not ready: 2 issues" in at.error[0].value
    assert at.query_params["doc"] in (
        "cim_redflags_harbor_ridge_10k.json",
        ["cim_redflags_harbor_ridge_10k.json"],
    )


def test_portfolio_has_a_row_per_document(folder: Path) -> None:
    at = _app("app_pages/portfolio.py")
    assert not at.exception
    frames = [df.value for df in at.dataframe]
    docs = next(f for f in frames if "document" in f.columns)
    assert sorted(docs["document"]) == [
        "cim_redflags_harbor_ridge_10k.json",
        "ddq_response_Bolnet_Capital_Partners_I.json",
        "exit_proof_pack_HMDA_GA.json",
        "exit_proof_pack_MortgageCo.json",
        "exit_proof_pack_eTeleQuote.json",
    ]
