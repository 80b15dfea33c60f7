"""The CI gate's exit codes: 0 all checks pass, 1 quality below threshold, 2 could not evaluate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import ThresholdSpecError
from pe_eval_core.history.gate import GateRequest, GateVerdict, evaluate_gate
from pe_eval_core.history.store import RunFilters, RunStore
from pe_eval_core.thresholds import MEMO_BOUNDS, parse_thresholds
from tests.helpers.history_builders import (
    DEMO_DATA,
    DEMO_RESPONSES,
    DEMO_SCENARIOS,
    DEMO_VERDICTS,
    run_demo,
)

STRICT_MEMO = ["--memo-thresholds", "citation=1.0,coverage=1.0", "--max-hallucination", "0.0"]


def _clean_data(tmp_path: Path) -> Path:
    """The two demo portcos the README calls clean on all four dimensions."""
    folder = tmp_path / "data"
    folder.mkdir()
    for portco in ("MortgageCo", "HMDA_GA"):
        for f in DEMO_DATA.glob(f"*_{portco}*.json"):
            shutil.copy(f, folder / f.name)
    return folder


def _gate(*args: str, db: Path) -> int:
    return main(["gate", *args, "--db", str(db)])


def test_clean_memos_pass_the_gate_and_are_recorded(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _clean_data(tmp_path)
    code = _gate(
        "--data-dir",
        str(data),
        *STRICT_MEMO,
        "--memo-thresholds",
        "citation=1,coverage=1,consistency=1",
        "--max-hallucination",
        "0",
        db=db,
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASS  MortgageCo/board: citation_accuracy = 1 (needs >= 1)" in out
    assert "PASS  HMDA_GA/operator: hallucination_rate = 0 (needs <= 0)" in out
    assert out.rstrip().endswith("gate passed")
    runs = RunStore(db).list_runs(RunFilters(kind="memo"))
    assert len(runs) == 4 and {r.origin for r in runs} == {"gate"}


def test_the_planted_defects_fail_the_gate_with_exit_1(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _gate("--data-dir", str(DEMO_DATA), *STRICT_MEMO, "--no-record", db=db)
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  southeast_lender/board: citation_accuracy" in out
    assert "FAIL  southeast_lender/operator: coverage = 0.75 (needs >= 1) (3/4 opportunities" in out
    assert "FAIL  southeast_lender/operator: hallucination_rate" in out
    assert "PASS  MortgageCo/board: coverage" in out
    # The memo verdict's rule: dimensions the thresholds leave out (consistency) must be
    # perfect and no figure may be mis-attributed, so those bounds fail too.
    assert "FAIL  southeast_lender/board: consistency = 0 (needs >= 1)" in out
    assert "FAIL  southeast_lender/board: misattributed = 1 (needs <= 0) ($-7.9M)" in out
    assert "FAIL  southeast_lender/operator: consistency = 0.5 (needs >= 1)" in out
    assert "gate FAILED: 6 check(s) below threshold" in out
    # each memo's verdict, as `pe-eval memo` and the scorecard state it
    assert "MEMO  southeast_lender/board: Not ready: 4 issues" in out
    assert "MEMO  southeast_lender/operator: Not ready: 3 issues" in out
    assert "MEMO  MortgageCo/board: Ready to circulate" in out
    assert RunStore(db).count_runs() == 0  # --no-record


def test_inputs_that_cannot_be_evaluated_exit_2(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _clean_data(tmp_path)
    (data / "explain_MortgageCo_board.json").write_text('{"portco_id": "MortgageCo",', "utf-8")
    code = _gate("--data-dir", str(data), *STRICT_MEMO, "--json", db=db)
    verdict = json.loads(capsys.readouterr().out)
    assert code == 2 and verdict["exit_code"] == 2
    [problem] = verdict["problems"]
    assert problem["subject"] == "MortgageCo/board"
    assert problem["fix"] == "Regenerate with explain_decision."
    # the other memos were still checked
    assert {c["subject"] for c in verdict["checks"]} == {
        "MortgageCo/operator",
        "HMDA_GA/board",
        "HMDA_GA/operator",
    }

    assert _gate("--data-dir", str(tmp_path / "missing"), *STRICT_MEMO, db=db) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _gate("--data-dir", str(empty), *STRICT_MEMO, db=db) == 2
    assert "no explain_<portco>_<audience>.json memos" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["--memo-thresholds", "citation=1.5"],
        ["--memo-thresholds", "citation"],
        ["--memo-thresholds", "loyalty=1.0"],
        ["--min-pass-rate", "smoke=abc"],
    ],
)
def test_bad_thresholds_exit_2_with_a_fix(
    args: list[str], db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _gate("--data-dir", str(DEMO_DATA), *args, db=db) == 2
    assert "fix: Use NAME=VALUE pairs" in capsys.readouterr().err


def test_nothing_to_check_or_mismatched_options_exit_2(db: Path) -> None:
    assert _gate(db=db) == 2
    assert _gate("--data-dir", str(DEMO_DATA), db=db) == 2  # no thresholds
    assert _gate("--min-pass-rate", "smoke=1", db=db) == 2  # no run
    assert _gate("--scenarios", str(DEMO_SCENARIOS), "--min-pass-rate", "smoke=1", db=db) == 2


def test_scenario_pass_rates_from_recorded_responses(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [
        "--scenarios",
        str(DEMO_SCENARIOS),
        "--responses",
        str(DEMO_RESPONSES),
        "--judge-verdicts",
        str(DEMO_VERDICTS),
    ]
    # demo: smoke 6/6, functional 6/7 (+1 agent error, left out), adversarial 3/5
    assert _gate(*base, "--min-pass-rate", "smoke=1.0,functional=0.85", db=db) == 0
    out = capsys.readouterr().out
    assert "PASS  run #1: smoke pass rate = 1 (needs >= 1) (6/6)" in out
    assert _gate(*base, "--min-pass-rate", "smoke=1.0,functional=0.9", db=db) == 1
    # the same responses re-scored are the same run: recorded once (issue 21)
    assert "FAIL  run #1: functional pass rate = 0.8571 (needs >= 0.9) (6/7)" in (
        capsys.readouterr().out
    )
    assert _gate(*base, "--min-pass-rate", "overall=0.83", db=db) == 0  # 15/18 = 0.833..
    assert _gate(*base, "--min-pass-rate", "overall=0.84", db=db) == 1
    # --on lower: smoke 6/6 has the Wilson lower bound 6 / (6 + 1.96^2) = 0.6097
    assert _gate(*base, "--min-pass-rate", "smoke=0.6", "--on", "lower", db=db) == 0
    capsys.readouterr()
    assert _gate(*base, "--min-pass-rate", "smoke=0.7", "--on", "lower", db=db) == 1
    assert (
        ": smoke pass rate (95% lower bound) = 0.6097 (needs >= 0.7) (6/6, rate 1, "
        "interval [0.6097, 1], wilson)"
    ) in capsys.readouterr().out
    assert _gate(*base, "--min-pass-rate", "nightly=1.0", db=db) == 2
    assert "no scenarios in tier 'nightly'" in capsys.readouterr().out
    runs_before = RunStore(db).count_runs()
    assert _gate(*base, "--min-pass-rate", "smoke=1", "--no-record", db=db) == 0
    assert "(not recorded): smoke pass rate = 1" in capsys.readouterr().out
    assert RunStore(db).count_runs() == runs_before
    # without --judge-verdicts the gate chooses its judge as every surface does: the demo's
    # verdicts beside the scenarios file
    assert _gate(*base[:4], "--min-pass-rate", "smoke=1.0", db=db) == 0


def test_scenario_run_from_history_or_json_and_the_baseline_regression(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = RunStore(db)
    good = store.record_scenario_run(run_demo())
    data = json.loads(DEMO_RESPONSES.read_text(encoding="utf-8"))
    for item in data:
        if item["name"] == "smoke-enterprise-downgrades":
            item["response"] = item["response"].replace("$2,100", "$2,010")
    worse_responses = tmp_path / "responses.json"
    worse_responses.write_text(json.dumps(data), encoding="utf-8")
    worse = run_demo(worse_responses)
    run_json = tmp_path / "run.json"
    run_json.write_text(worse.model_dump_json(), encoding="utf-8")

    assert _gate("--scenario-run", str(good), "--min-pass-rate", "smoke=1", db=db) == 0
    assert _gate("--scenario-run", "latest", "--min-pass-rate", "smoke=1", db=db) == 0
    # the JSON run: smoke fell to 5/6, and it regressed against the good baseline
    # another responses file is another agent: refused as a baseline unless asked for
    code = _gate("--scenario-run", str(run_json), "--baseline", str(good), db=db)
    out = capsys.readouterr().out
    assert code == 2
    assert (
        "Not like for like: target recorded:recorded-responses.json vs recorded:responses.json"
    ) in out
    code = _gate("--scenario-run", str(run_json), "--baseline", str(good), "--allow-unlike", db=db)
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  run #2: vs baseline run #1 Not like for like: target recorded:" in out
    assert (
        "1 regression vs baseline: smoke-enterprise-downgrades "
        "(not significant at 5%: exact McNemar p = 1 on 1 worse vs 0 better)"
    ) in out
    assert store.count_runs() == 2  # the JSON run was recorded once, though gated twice
    # a run gated against itself could never regress: refused, not a silent pass
    assert _gate("--scenario-run", "latest", "--baseline", "latest", db=db) == 2
    assert "the baseline is the run being gated" in capsys.readouterr().out
    assert _gate("--scenario-run", str(tmp_path / "nope.json"), "--baseline", "1", db=db) == 2
    not_a_run = tmp_path / "other.json"
    not_a_run.write_text("[1, 2]", encoding="utf-8")
    assert _gate("--scenario-run", str(not_a_run), "--min-pass-rate", "smoke=1", db=db) == 2
    assert _gate("--scenario-run", "99", "--min-pass-rate", "smoke=1", db=db) == 2


def test_library_api_without_the_cli(tmp_path: Path) -> None:
    request = GateRequest(
        data_dir=str(_clean_data(tmp_path)),
        memo_thresholds=parse_thresholds("coverage=1", names=MEMO_BOUNDS, input="memo"),
        record=False,
    )
    result = evaluate_gate(request, RunStore(tmp_path / "unused.sqlite"))
    # four dimensions and the mis-attribution bound per memo (the verdict's rule), four memos
    assert result.verdict is GateVerdict.PASSED and len(result.checks) == 4 * 5
    assert [m.headline for m in result.memos] == ["Ready to circulate"] * 4
    assert not (tmp_path / "unused.sqlite").exists()
    with pytest.raises(ThresholdSpecError) as err:
        parse_thresholds("coverage=2", names=MEMO_BOUNDS, input="memo_thresholds")
    assert err.value.input == "memo_thresholds" and "outside 0..1" in err.value.message


def test_unrecorded_scenario_gate_writes_no_database_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The counts of a run the gate does not record come from the run itself: no store, no
    # throwaway SQLite file in a temp folder.
    import sqlite3

    opened: list[str] = []
    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3,
        "connect",
        lambda path, *a, **k: opened.append(str(path)) or real_connect(path, *a, **k),
    )
    request = GateRequest(
        scenarios=str(DEMO_SCENARIOS),
        responses=str(DEMO_RESPONSES),
        judge_verdicts=str(DEMO_VERDICTS),
        min_pass_rate={"smoke": 1.0, "overall": 0.5},
        record=False,
    )
    result = evaluate_gate(request, RunStore(tmp_path / "unused.sqlite"))
    assert result.verdict is GateVerdict.PASSED, result.render_text()
    smoke, overall = result.checks
    assert smoke.detail == "(6/6)" and overall.metric == "overall pass rate"
    assert "(not recorded)" in smoke.subject
    assert not [p for p in opened if "judge_cache" not in p], opened


def test_gate_problems_name_the_input_and_the_cli_adds_its_option(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = evaluate_gate(GateRequest(scenarios=str(DEMO_SCENARIOS), min_pass_rate={"smoke": 1}))
    assert [p.input for p in result.problems] == ["responses"]
    assert "--" not in result.problems[0].fix and "--" not in result.problems[0].message
    assert _gate("--scenarios", str(DEMO_SCENARIOS), "--min-pass-rate", "smoke=1", db=db) == 2
    assert "(option --responses)" in capsys.readouterr().out


def test_max_misattributed_catches_a_figure_under_the_wrong_opportunity(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # southeast_lender/board quotes opp_02's $-7.9M in opp_01: cited, so citation is not 0,
    # and only the mis-attribution check can fail the gate on it.
    assert _gate("--data-dir", str(DEMO_DATA), "--max-misattributed", "0", "--no-record",
                 db=db) == 1  # fmt: skip
    out = capsys.readouterr().out
    assert "FAIL  southeast_lender/board: misattributed = 1 (needs <= 0) ($-7.9M)" in out
    assert "PASS  MortgageCo/board: misattributed = 0 (needs <= 0)" in out
    assert _gate("--data-dir", str(_clean_data(tmp_path)), "--max-misattributed", "0",
                 "--no-record", db=db) == 0  # fmt: skip
    assert _gate("--data-dir", str(DEMO_DATA), "--max-misattributed", "-1", db=db) == 2


def test_without_any_judge_the_gate_cannot_evaluate_instead_of_passing(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No verdicts given or beside the scenarios and no API key: the scenarios that need the
    judge are undecided, so the gate says it cannot evaluate (exit 2), never a pass."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    scenarios = tmp_path / "mimic-scenarios.json"
    shutil.copy(DEMO_SCENARIOS, scenarios)
    args = ["--scenarios", str(scenarios), "--responses", str(DEMO_RESPONSES)]
    assert _gate(*args, "--min-pass-rate", "overall=0.1", db=db) == 2
    assert "have no judge verdict" in capsys.readouterr().out


def test_a_run_that_stopped_on_an_unreachable_target_cannot_be_gated(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_demo()
    run.stopped = "agent unreachable: 3 transport errors in a row"
    run_json = tmp_path / "run.json"
    run_json.write_text(run.model_dump_json(), encoding="utf-8")
    assert _gate("--scenario-run", str(run_json), "--min-pass-rate", "smoke=1", db=db) == 2
    out = capsys.readouterr().out
    assert "the run stopped: agent unreachable" in out and "(option --target)" in out


def test_the_gate_honours_judge_cache(
    tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pe_eval_core.scenarios.run import setup

    seen: list[object] = []
    real = setup.choose_judge

    def spy(**kwargs: object) -> object:
        seen.append(kwargs.get("cache"))
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(setup, "choose_judge", spy)
    cache = tmp_path / "verdicts.sqlite3"
    args = ("--scenarios", str(DEMO_SCENARIOS), "--responses", str(DEMO_RESPONSES))
    assert _gate(*args, "--min-pass-rate", "smoke=1", "--judge-cache", str(cache), db=db) == 0
    assert seen == [str(cache)]
