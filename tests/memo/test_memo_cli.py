"""`pe-eval memo`: what it prints, the files it writes, and its exit codes."""

from __future__ import annotations

import json

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.memo import find_memo_pairs, resolve_pair
from tests.helpers.memo_builders import SHAPE_A_SOURCE, board_prose, make_memo, write_json


@pytest.fixture
def data_dir(tmp_path, shape_a):
    d = tmp_path / "data"
    d.mkdir()
    write_json(d / "dx_report_TestCo.json", shape_a)
    write_json(d / "explain_TestCo_board.json", make_memo(shape_a))
    prose = board_prose()
    del prose["opp_03"]
    prose["opp_01"]["rollout"] = "worth $9.9M to **FL**."
    write_json(d / "explain_TestCo_operator.json", make_memo(shape_a, "operator", prose))
    return d


def test_grades_a_named_portco_board_by_default(data_dir, capsys):
    assert main(["memo", "TestCo", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"Eval scorecard: {(data_dir / 'eval_TestCo_board.html').resolve()}"
    assert "Citation accuracy" in out[1] and "(22/22 figures cited)" in out[1]
    assert "(0/11 entities ungrounded)" in out[2]
    assert "(3/3 opportunities addressed)" in out[3]
    assert "(2/2 headline comparisons agree)" in out[4]
    assert out[5].startswith("All four dimensions are perfect")
    assert (data_dir / "eval_TestCo_board.json").is_file()


def test_operator_audience_and_lowest_dimension(data_dir, capsys):
    # not ready (a dropped opportunity, a fabricated figure, an invented name): exit 1
    assert main(["memo", "TestCo", "--audience", "operator", "--data-dir", str(data_dir)]) == 1
    out = capsys.readouterr().out
    assert "eval_TestCo_operator.html" in out
    assert "Coverage is 66.7% — memo addresses 2 of 3 opportunities; broker × 620 (opp_03)" in out
    assert "Verdict: Not ready: 3 issues" in out


def test_explicit_paths_and_out_dir(data_dir, tmp_path, capsys):
    memo, src = data_dir / "explain_TestCo_board.json", data_dir / "dx_report_TestCo.json"
    argv = ["memo", "--memo", str(memo), "--source", str(src), "--out-dir", str(tmp_path / "o")]
    assert main(argv) == 0
    assert (tmp_path / "o" / "eval_TestCo_board.html").is_file()
    assert not (data_dir / "eval_TestCo_board.html").exists()


def test_json_output(data_dir, capsys):
    assert (
        main(["memo", "TestCo", "--audience", "operator", "--data-dir", str(data_dir), "--json"])
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert data["portco_id"] == "TestCo" and data["scores"]["coverage"] == pytest.approx(2 / 3)
    assert data["lowest_dimension"]["name"] == "coverage"
    assert data["threshold_failures"] == [
        "Citation accuracy 93.8% is below the required 100%",
        "Hallucination rate 14.3% is above the allowed 0%",
        "Coverage 66.7% is below the required 100%",
    ]
    assert data["verdict"]["headline"] == "Not ready: 3 issues"
    assert data["verdict"]["issue_count"] == 3 and data["verdict"]["scores"]["coverage"] == "66.7%"
    argv = ["memo", "TestCo", "--data-dir", str(data_dir), "--json"]
    assert main(argv) == 0
    clean = json.loads(capsys.readouterr().out)
    assert clean["threshold_failures"] == [] and clean["verdict"]["ready"] is True


LOOSE = ["--fail-under", "citation=0.9,coverage=0.6", "--max-hallucination", "0.2"]
"""Bounds the operator memo (citation 93.8%, hallucination 14.3%, coverage 66.7%) meets."""


@pytest.mark.parametrize(
    ("flags", "code"),
    [
        # The verdict's rule: the bounds given, every dimension left out perfect; exit 1
        # exactly when the verdict is not ready.
        ([], 1),
        (["--fail-under", "citation=1.0,coverage=1.0"], 1),
        (["--fail-under", "coverage=0.6"], 1),  # citation and hallucination must be perfect
        (["--fail-under", "citation=0.9"], 1),
        (["--max-hallucination", "0.2"], 1),
        (["--fail-under", "consistency=1.0"], 1),
        (LOOSE, 0),
        ([*LOOSE, "--fail-under", "citation=0.95,coverage=0.6"], 1),
        ([*LOOSE, "--max-hallucination", "0.1"], 1),
        ([*LOOSE, "--fail-under", "citation=0.9,coverage=0.7"], 1),
    ],
)
def test_thresholds_exit_1_when_the_memo_falls_short(data_dir, capsys, flags, code):
    argv = ["memo", "TestCo", "--audience", "operator", "--data-dir", str(data_dir), *flags]
    assert main(argv) == code
    out = capsys.readouterr().out
    assert ("FAIL:" in out) is (code == 1)
    assert ("Verdict: Ready to circulate" in out) is (code == 0)
    html = (data_dir / "eval_TestCo_operator.html").read_text(encoding="utf-8")
    headline = out.split("Verdict: ", 1)[1].splitlines()[0]
    assert f'<div class="head">{headline}</div>' in html  # the scorecard states the same


def test_clean_memo_passes_strict_thresholds(data_dir):
    argv = [
        "memo",
        "TestCo",
        "--data-dir",
        str(data_dir),
        "--fail-under",
        "citation=1.0,coverage=1.0,consistency=1.0",
        "--max-hallucination",
        "0",
    ]
    assert main(argv) == 0


@pytest.mark.parametrize(
    "flags",
    [
        ["--fail-under", "citation"],
        ["--fail-under", "recall=0.5"],
        ["--fail-under", "hallucination=0.1"],
        ["--fail-under", "citation=1.5"],
        ["--fail-under", "citation=high"],
        ["--max-hallucination", "2"],
    ],
)
def test_bad_thresholds_exit_2(data_dir, capsys, flags):
    assert main(["memo", "TestCo", "--data-dir", str(data_dir), *flags]) == 2
    assert "fix:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["memo", "Nope"],
        ["memo", "../TestCo"],
        ["memo", "TestCo", "--audience", "ic"],
        ["memo", "--memo", "x.json"],
        ["memo", "TestCo", "--memo", "x.json", "--source", "y.json"],
    ],
)
def test_input_errors_exit_2(data_dir, capsys, argv):
    assert main([*argv, "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "fix:" in err


def test_missing_data_dir_exits_2(tmp_path, capsys):
    assert main(["memo", "--list", "--data-dir", str(tmp_path / "none")]) == 2


def test_list_and_default_listing(data_dir, capsys):
    assert main(["memo", "--list", "--data-dir", str(data_dir)]) == 0
    listed = capsys.readouterr().out
    assert "TestCo" in listed and "board" in listed and "operator" in listed
    assert main(["memo", "--data-dir", str(data_dir)]) == 0  # no portco: list, like the seed
    assert capsys.readouterr().out == listed
    assert main(["memo", "--list", "--json", "--data-dir", str(data_dir)]) == 0
    pairs = json.loads(capsys.readouterr().out)
    assert [(p["portco_id"], p["audience"], p["source_exists"]) for p in pairs] == [
        ("TestCo", "board", True),
        ("TestCo", "operator", True),
    ]


def test_find_memo_pairs_reads_ids_from_content_and_flags_missing_sources(tmp_path):
    other = dict(SHAPE_A_SOURCE, portco_id="southeast_lender")
    write_json(tmp_path / "explain_southeast_lender_board.json", make_memo(other))
    (tmp_path / "explain_broken_file_x.json").write_text("{", encoding="utf-8")
    pairs = find_memo_pairs(tmp_path)
    assert [(p.portco_id, p.audience, p.source_exists) for p in pairs] == [
        ("broken_file", "x", False),
        ("southeast_lender", "board", False),
    ]


def test_resolve_pair(data_dir):
    pair = resolve_pair(data_dir, "TestCo", "operator")
    assert pair.memo_path == (data_dir / "explain_TestCo_operator.json").resolve()
    assert pair.source_path == (data_dir / "dx_report_TestCo.json").resolve()
