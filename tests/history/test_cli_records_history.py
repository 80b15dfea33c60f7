"""The memo and scenario CLIs record every run in history (PE_EVAL_HOME is a temp dir here)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunStore

REPO = Path(__file__).resolve().parents[2]


def test_memo_cli_records_its_evaluation(tmp_path, capsys):
    data = tmp_path / "finance_output"
    shutil.copytree(REPO / "finance_output", data, ignore=shutil.ignore_patterns("eval_*"))
    # not ready: exit 1, and still recorded
    assert main(["memo", "southeast_lender", "--data-dir", str(data)]) == 1
    assert "Recorded in history as run 1" in capsys.readouterr().out
    (run,) = RunStore().list_runs()
    assert (run.kind, run.portco_id, run.audience) == ("memo", "southeast_lender", "board")
    assert run.consistency == 0.0


def test_scenarios_cli_records_its_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code = main(
        [
            "scenarios",
            "run",
            "--target",
            "recorded",
            "--scenarios",
            ".mimic/exports/mimic-scenarios.json",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 1  # the demo has failures on purpose
    assert "Recorded in history as run 1" in capsys.readouterr().err
    (run,) = RunStore().list_runs()
    assert (run.kind, run.n_total, run.n_passed, run.n_errors) == ("scenarios", 19, 15, 1)


def test_no_history_env_turns_recording_off(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    data = tmp_path / "finance_output"
    shutil.copytree(REPO / "finance_output", data, ignore=shutil.ignore_patterns("eval_*"))
    assert main(["memo", "MortgageCo", "--data-dir", str(data)]) == 0
    assert "Recorded in history" not in capsys.readouterr().out
    assert RunStore().list_runs() == []
