"""Recording is idempotent, keyed by content (issue 21): a re-score of the same responses, a
memo graded again, the same record written twice add no run; a new measurement does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import DEMO_RESPONSES, DEMO_SCENARIOS, DEMO_VERDICTS

DEMO_DATA = Path(__file__).resolve().parents[2] / "finance_output"


def _score(db: Path, responses: Path, *extra: str) -> int:
    return main(
        [
            "scenarios",
            "score",
            "--scenarios",
            str(DEMO_SCENARIOS),
            "--responses",
            str(responses),
            "--judge-verdicts",
            str(DEMO_VERDICTS),
            "--db",
            str(db),
            *extra,
        ]
    )


def test_rescoring_the_same_responses_adds_no_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "h.sqlite"
    assert _score(db, DEMO_RESPONSES) in (0, 1)
    assert _score(db, DEMO_RESPONSES, "--timestamp", "2026-05-01T09:00:00Z") in (0, 1)
    err = capsys.readouterr().err
    assert err.count("Recorded in history as run 1") == 2  # the second names the same run
    assert RunStore(db).count_runs() == 1
    # one response changed: another run
    rows = json.loads(DEMO_RESPONSES.read_text(encoding="utf-8"))
    items = rows["responses"] if isinstance(rows, dict) else rows
    items[0]["response"] = "I cannot say."
    edited = tmp_path / "recorded-responses.json"
    edited.write_text(json.dumps(rows), encoding="utf-8")
    assert _score(db, edited) in (0, 1)
    assert RunStore(db).count_runs() == 2


def test_grading_the_same_memo_again_adds_no_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "h.sqlite"
    argv = ["memo", "MortgageCo", "--data-dir", str(DEMO_DATA), "--out-dir", str(tmp_path)]
    for _ in range(3):
        assert main([*argv, "--db", str(db)]) == 0
    capsys.readouterr()
    assert RunStore(db).count_runs() == 1
