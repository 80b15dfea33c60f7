"""The verdict: ready only when every dimension meets its threshold and nothing is
mis-attributed; the same verdict in the core, the HTML scorecard and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pe_eval_core.errors import ThresholdSpecError
from pe_eval_core.memo import find_memo_pairs, grade_memo, render_scorecard_html
from pe_eval_core.memo.verdict import READY, VerdictThresholds, memo_verdict

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "finance_output"


def _graded(portco: str, audience: str):
    pair = next(p for p in find_memo_pairs(DEMO) if (p.portco_id, p.audience) == (portco, audience))
    return grade_memo(pair.memo_path, pair.source_path)


def test_clean_memo_is_ready_and_exempt_items_are_not_counted():
    ev = _graded("MortgageCo", "operator")
    assert any(f.kind == "template_exempt" for f in ev.findings)
    verdict = memo_verdict(ev)
    assert verdict.ready and verdict.headline == READY and verdict.issues == []


def test_flawed_memo_lists_plain_sentence_issues():
    verdict = memo_verdict(_graded("southeast_lender", "board"))
    assert not verdict.ready
    assert verdict.headline == f"Not ready: {len(verdict.issues)} issues"
    # the cohort first, its id second; the mis-attributed loss with its sign before the $
    assert any(
        i.startswith("$6.8M in C × 60 months (opp_02) matches no source figure")
        for i in verdict.issues
    )
    assert any("the annual outcome of C × 60 months (opp_02), −$7.9M" in i for i in verdict.issues)
    assert all("$-" not in i for i in verdict.issues)
    assert all("_usd_annual" not in i and "opportunities[" not in i for i in verdict.issues)


def test_misattribution_blocks_even_when_scores_pass_the_thresholds():
    ev = _graded("southeast_lender", "board")
    loose = VerdictThresholds.from_spec("citation=0.5,consistency=0")
    verdict = memo_verdict(ev, loose)
    assert (
        not verdict.ready and len(verdict.issues) == 1 and "not of GA × Branch" in verdict.issues[0]
    )
    assert memo_verdict(ev, VerdictThresholds.from_spec("citation=0.5,consistency=0", 1)).ready


def test_thresholds_use_the_gate_spec_and_are_described():
    t = VerdictThresholds.from_spec("coverage=75%,hallucination=5%")
    assert t.describe()[1:3] == ["Hallucination rate at most 5%", "Coverage at least 75%"]
    with pytest.raises(ThresholdSpecError):
        VerdictThresholds.from_spec("coverage")


def test_html_scorecard_states_the_verdict_with_file_names_not_paths():
    ev = _graded("southeast_lender", "board")
    page = render_scorecard_html(ev)
    assert 'id="verdict"' in page and "Not ready: 4 issues" in page
    assert "Thresholds: Citation accuracy at least 100%" in page
    assert str(DEMO.resolve()) not in page and str(ROOT) not in page
    assert "hover a mark" not in page.lower()
    assert "@media print" in page and "attr(title)" in page  # source field printed


def test_cli_memo_prints_the_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    args = [sys.executable, "-m", "pe_eval_core", "memo", "southeast_lender"]
    args += ["--data-dir", str(DEMO), "--out-dir", str(tmp_path)]
    out = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=False).stdout
    assert "Verdict: Not ready: 4 issues" in out and "(thresholds: Citation accuracy" in out
    data = json.loads(
        subprocess.run([*args, "--json"], capture_output=True, text=True, cwd=ROOT).stdout
    )
    assert data["verdict"]["ready"] is False and len(data["verdict"]["issues"]) == 4
    clean = [*args[:4], "MortgageCo", *args[5:]]
    out = subprocess.run(clean, capture_output=True, text=True, cwd=ROOT, check=False).stdout
    assert "Verdict: Ready to circulate" in out


def test_memo_all_prints_each_verdict_and_counts_only_ready_memos_as_passed(
    tmp_path, capsys, monkeypatch
):
    """``memo --all``: each line ends with the memo's verdict (never "ok"), the summary counts
    the ready ones, and the exit status is 1 because two memos are not ready."""
    from pe_eval_core.cli.main import main

    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    data = tmp_path / "data"
    data.mkdir()
    for p in DEMO.glob("*.json"):
        if not p.name.startswith("eval_"):
            (data / p.name).write_bytes(p.read_bytes())
    args = ["memo", "--all", "--jobs", "1", "--data-dir", str(data)]
    assert main(args) == 1
    lines = capsys.readouterr().out.splitlines()
    by_memo = {line.split()[0]: line for line in lines[:-1]}
    for portco, audience in [(p.portco_id, p.audience) for p in find_memo_pairs(DEMO)]:
        headline = memo_verdict(_graded(portco, audience)).headline
        assert by_memo[f"{portco}/{audience}"].endswith(f"  {headline}")
    assert not any(line.rstrip().endswith(" ok") for line in lines)
    assert "6 graded, 4 ready to circulate, 2 not ready, 0 could not be graded" in lines[-1]
    # bounds every demo score meets leave one memo not ready: its mis-attributed $-7.9M
    loose = ["--fail-under", "citation=0.9,coverage=0.5,consistency=0"]
    loose += ["--max-hallucination", "0.1"]
    assert main([*args, *loose]) == 1
    capsys.readouterr()
    assert main([*args, "--json", *loose]) == 1
    rows = json.loads(capsys.readouterr().out)["memos"]
    not_ready = {r["memo"]: r["verdict"]["headline"] for r in rows if not r["verdict"]["ready"]}
    assert not_ready == {"southeast_lender/board": "Not ready: 1 issue"}


PRODUCER = ROOT / "tests" / "corpus" / "producer_run" / "finance_output"


def test_an_empty_template_slot_blocks_circulation_whatever_the_thresholds():
    """The producer's shape-B board memos print an empty action (``— __ —``); it scores in no
    dimension, yet no reader should receive the memo, even under thresholds that pass it."""
    ev = grade_memo(
        PRODUCER / "explain_eTeleQuote_board.json", PRODUCER / "dx_report_eTeleQuote.json"
    )
    loose = VerdictThresholds.from_bounds(
        {"citation_accuracy": 0.0, "coverage": 0.0, "consistency": 0.0, "hallucination_rate": 1.0}
    )
    verdict = memo_verdict(ev, loose)
    assert not verdict.ready
    slots = [i for i in verdict.issues if "empty value" in i]
    assert len(slots) == sum(1 for f in ev.findings if f.kind == "empty_placeholder") > 0
    # the opportunity by its cohort, the id second (issue 21's plain words)
    assert slots[0].startswith("The narrative of ") and "'__'" in slots[0]
    assert "(opp_01) has an empty value" in slots[0]


def test_a_wrong_quantity_issue_names_both_quantities(tmp_path):
    """The EBITDA baseline stated as the cohort's annual leakage: the sentence names the field
    the value is and the field the wording claims, with its value."""
    memo = json.loads((PRODUCER / "explain_HMDA_GA_board.json").read_text(encoding="utf-8"))
    swapped = 0
    for opp in memo["opportunities_explained"]:
        text = opp.get("risk_of_inaction", "")
        if "Carrying $6.2M of annual leakage" in text:
            opp["risk_of_inaction"] = text.replace("$6.2M of annual", "$14.5M of annual")
            swapped += 1
    assert swapped == 1
    (tmp_path / "explain_HMDA_GA_board.json").write_text(json.dumps(memo), encoding="utf-8")
    source = tmp_path / "dx_report_HMDA_GA.json"
    source.write_bytes((PRODUCER / "dx_report_HMDA_GA.json").read_bytes())
    verdict = memo_verdict(grade_memo(tmp_path / "explain_HMDA_GA_board.json", source))
    assert verdict.headline == "Not ready: 1 issue"
    (issue,) = verdict.issues
    assert issue.startswith(
        "$14.5M in B × 360 months (opp_01) names another quantity: it is the source's EBITDA"
    )
    assert "annual outcome its wording claims is \u2212$6.2M" in issue
