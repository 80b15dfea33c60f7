"""The team store on the CLI: `--database-url` / PE_EVAL_DATABASE_URL on the recording
commands, `history delete|pin|unpin|gc`, compare and gate defaulting to the pinned baseline,
infrastructure-error runs, and `history show|list` never crashing or leaking control codes."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import (
    DEMO_RESPONSES,
    DEMO_SCENARIOS,
    make_result,
    make_scenario_run,
)

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 4, 1, 9, 30, tzinfo=UTC)


def _demo_data(tmp_path: Path) -> Path:
    data = tmp_path / "finance_output"
    shutil.copytree(REPO / "finance_output", data, ignore=shutil.ignore_patterns("eval_*"))
    return data


def test_memo_all_and_gate_record_into_the_database_url(
    store_target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _demo_data(tmp_path)
    flag = ["--database-url", store_target] if "://" in store_target else ["--db", store_target]
    # southeast_lender's two memos are not ready: exit 1, every grading still recorded
    assert main(["memo", "--all", "--jobs", "1", "--data-dir", str(data), *flag]) == 1
    store = RunStore(store_target)
    n = store.count_runs()
    assert n >= 6
    # the gate grades the same unchanged folder: the gradings are already recorded
    # bounds every demo memo meets (southeast_lender's planted defects included)
    loose = "citation=0.9,coverage=0.5,consistency=0,hallucination=0.1"
    gate = ["gate", "--data-dir", str(data), "--memo-thresholds", loose, "--jobs", "1"]
    gate += ["--max-misattributed", "1"]
    assert main([*gate, "--json", *flag]) == 0
    out = json.loads(_last_json(capsys))
    assert store.count_runs() == n
    assert sorted(out["recorded_run_ids"]) == sorted(r.id for r in store.list_runs())


def _last_json(capsys: pytest.CaptureFixture[str]) -> str:
    text = capsys.readouterr().out
    return text[text.rindex("\n{") + 1 :] if "\n{" in text else text


def test_the_environment_variable_switches_every_command(
    store_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = store_target if "://" in store_target else f"sqlite:///{store_target}"
    monkeypatch.setenv("PE_EVAL_DATABASE_URL", url)
    data = _demo_data(tmp_path)
    assert main(["memo", "MortgageCo", "--data-dir", str(data)]) == 0
    assert "Recorded in history as run 1" in capsys.readouterr().out
    assert main(["history", "list", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)
    assert run["portco_id"] == "MortgageCo"
    assert not (tmp_path / "pe_eval_home" / "history.sqlite").exists()


def test_db_and_database_url_are_one_or_the_other(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main(["history", "list", "--db", "x.sqlite", "--database-url", "sqlite:///y"])
    assert info.value.code == 2


def _two_runs(db: str) -> tuple[int, int, int]:
    store = RunStore(db)
    good = store.record_scenario_run(
        make_scenario_run(
            [make_result("a", "smoke", "pass"), make_result("b", "smoke", "pass")], when=T0
        )
    )
    worse = store.record_scenario_run(
        make_scenario_run(
            [make_result("a", "smoke", "pass"), make_result("b", "smoke", "fail")],
            when=T0 + timedelta(1),
        )
    )
    down = store.record_scenario_run(
        make_scenario_run(
            [make_result(n, "smoke", "error", error="connection refused") for n in "ab"],
            when=T0 + timedelta(2),
        )
    )
    return good, worse, down


def test_pin_compare_and_gate_use_the_pinned_baseline(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, worse, down = _two_runs(str(db))
    opts = ["--db", str(db)]
    assert main(["history", "compare", *opts]) == 2  # nothing pinned: a typed error
    assert "no scenarios baseline is pinned" in capsys.readouterr().err
    assert main(["history", "pin", str(good), *opts]) == 0
    assert f"run #{good} is now the pinned scenarios baseline" in capsys.readouterr().out
    # no runs given: pinned baseline vs the latest run that ran (the errored one is skipped)
    assert main(["history", "compare", "--fail-on-regression", "--json", *opts]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["a"]["id"], data["b"]["id"]) == (good, worse)
    # one run given: it is compared with the pinned baseline; an infra error is no regression
    assert main(["history", "compare", str(down), "--fail-on-regression", *opts]) == 2
    out = capsys.readouterr().out
    assert f"note: run #{down} is an infrastructure error" in out
    # the gate uses the pinned baseline when none is given
    gate = ["gate", "--scenario-run", str(worse), "--min-pass-rate", "overall=0.0", *opts]
    assert main([*gate, "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert any("b" in json.dumps(c) and not c["passed"] for c in verdict["checks"])
    # an all-errored run cannot be gated: exit 2, not 1 (quality) and not 0
    assert main(["gate", "--scenario-run", str(down), "--min-pass-rate", "overall=0", *opts]) == 2
    assert "infrastructure error" in capsys.readouterr().out
    assert main(["history", "unpin", *opts]) == 0
    assert f"unpinned run #{good}" in capsys.readouterr().out
    assert main([*gate, "--json"]) == 0  # no baseline any more, and 50% >= 0%
    capsys.readouterr()


def test_history_list_marks_infrastructure_errors(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _two_runs(str(db))
    assert main(["history", "list", "--db", str(db)]) == 0
    first = capsys.readouterr().out.splitlines()[1]
    assert "infrastructure error: all 2 scenarios errored" in first


def test_delete_and_gc(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pe_eval_core.scenarios import RecordedTarget, load_scenarios, run_scenarios_sync

    run = run_scenarios_sync(
        load_scenarios(DEMO_SCENARIOS),
        RecordedTarget(DEMO_RESPONSES),
        scenarios_path=DEMO_SCENARIOS,
        save_responses=False,
    )
    store = RunStore(db)
    rid = store.record_scenario_run(run)
    assert main(["history", "delete", str(rid), "--db", str(db)]) == 0
    assert f"deleted run #{rid}" in capsys.readouterr().out
    assert main(["history", "show", str(rid), "--db", str(db)]) == 2
    capsys.readouterr()
    assert main(["history", "gc", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    n = int(out.split()[1])
    assert n >= 15 and "unreferenced blob(s)" in out  # the demo's distinct responses + detail
    assert main(["history", "gc", "--db", str(db)]) == 0
    assert "removed 0 unreferenced" in capsys.readouterr().out
    assert main(["history", "delete", "abc", "--db", str(db)]) == 2
    assert "bad run reference 'abc'" in capsys.readouterr().err


def test_show_and_list_escape_control_sequences(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "evil\x1b]0;pwned\x07\x1b[2J name"
    RunStore(db).record_scenario_run(
        make_scenario_run([make_result(hostile, "smoke", "fail", error=hostile)], when=T0)
    )
    for argv in (["history", "show", "latest"], ["history", "list"]):
        assert main([*argv, "--db", str(db)]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out
    assert main(["history", "show", "latest", "--db", str(db)]) == 0
    assert "evil\\x1b]0;pwned\\x07" in capsys.readouterr().out


def test_corrupt_rows_warn_and_never_crash_list_or_show(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    rid = RunStore(db).record_scenario_run(
        make_scenario_run([make_result("a", "smoke", "pass")], when=T0)
    )
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET pass_rate = 'lots', scores_json = '[' WHERE id = ?", (rid,))
    assert main(["history", "list", "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert f"warning: skipped run {rid}" in captured.err and "Traceback" not in captured.err
    assert main(["history", "show", str(rid), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert (
        "is corrupt" in err and "Traceback" not in err and err.rstrip().endswith("(argument RUN)")
    )


def test_scenarios_score_records_into_the_database_url(
    store_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    flag = ["--database-url", store_target] if "://" in store_target else ["--db", store_target]
    argv = ["scenarios", "score", "--scenarios", str(DEMO_SCENARIOS)]
    code = main([*argv, "--responses", str(DEMO_RESPONSES), "--no-judge", *flag])
    assert code in (0, 1)
    assert "Recorded in history as run 1" in capsys.readouterr().err
    (run,) = RunStore(store_target).list_runs()
    assert (run.kind, run.n_total) == ("scenarios", 19)
    record = RunStore(store_target).get_run(run.id)
    assert sum(bool(r.response) for r in record.results) >= 18  # responses read back
