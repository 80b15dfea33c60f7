"""The memo CLI names the offending figures and entities, not just the lowest dimension."""

from __future__ import annotations

import shutil
from pathlib import Path

from pe_eval_core.cli import main

DEMO = Path(__file__).resolve().parents[2] / "finance_output"


def _copy_demo(tmp_path: Path) -> Path:
    data = tmp_path / "finance_output"
    shutil.copytree(DEMO, data, ignore=shutil.ignore_patterns("eval_*"))
    return data


def test_findings_name_the_fabricated_and_misattributed_figures(tmp_path, capsys):
    data = _copy_demo(tmp_path)
    assert main(["memo", "southeast_lender", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Findings (4):" in out
    assert "  - ungrounded_figure [opp_02/counterfactual]: $6.8M in opp_02" in out
    assert "  - misattributed_figure [opp_01/risk_of_inaction]: $-7.9M in opp_01" in out


def test_clean_memo_prints_no_findings_and_exempt_notes_stay_in_the_scorecard(tmp_path, capsys):
    data = _copy_demo(tmp_path)
    assert main(["memo", "MortgageCo", "--audience", "operator", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Findings" not in out
    assert "template_exempt" in (data / "eval_MortgageCo_operator.json").read_text()
