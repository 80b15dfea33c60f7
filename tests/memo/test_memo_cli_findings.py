"""The memo CLI names the offending figures and entities, not just the lowest dimension."""

from __future__ import annotations

import shutil
from pathlib import Path

from pe_eval_core.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "finance_output"


def _copy_demo(tmp_path: Path) -> Path:
    data = tmp_path / "finance_output"
    shutil.copytree(DEMO, data, ignore=shutil.ignore_patterns("eval_*"))
    return data


def test_findings_name_the_fabricated_and_misattributed_figures(tmp_path, capsys):
    data = _copy_demo(tmp_path)
    assert main(["memo", "southeast_lender", "--data-dir", str(data)]) == 1  # not ready
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


def test_memo_alone_is_graded_against_the_source_it_names(tmp_path, capsys):
    data = _copy_demo(tmp_path)
    memo = data / "explain_southeast_lender_operator.json"
    assert main(["memo", "--memo", str(memo)]) == 1  # not ready: 3 issues
    out = capsys.readouterr().out
    assert "Coverage:                75%  (3/4 opportunities addressed)" in out
    assert (data / "eval_southeast_lender_operator.json").is_file()


def test_memo_naming_no_source_needs_source(tmp_path, capsys):
    import json

    data = _copy_demo(tmp_path)
    memo = data / "explain_MortgageCo_board.json"
    doc = json.loads(memo.read_text())
    del doc["source_opportunity_map"]
    memo.write_text(json.dumps(doc))
    assert main(["memo", "--memo", str(memo)]) == 2
    assert "names no source_opportunity_map" in capsys.readouterr().err
    assert main(["memo", "--source", str(data / "dx_report_MortgageCo.json")]) == 2
    assert "--source needs --memo" in capsys.readouterr().err
