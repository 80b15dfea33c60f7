"""`pe-eval history list|show`: tables, JSON, filters, and the history location rules."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import make_memo_evaluation, make_result, make_scenario_run

T0 = datetime(2026, 4, 1, 9, 30, tzinfo=UTC)


def _fill(db: Path) -> None:
    store = RunStore(db)
    store.record_memo_evaluation(make_memo_evaluation(scores=(0.5, 0.25, 0.75, 1.0), when=T0))
    store.record_memo_evaluation(
        make_memo_evaluation(portco="HMDA_GA", audience="operator", when=T0 + timedelta(1))
    )
    store.record_scenario_run(
        make_scenario_run(
            [
                make_result("s1", "smoke", "pass"),
                make_result("f1", "functional", "error", error="HTTP 502"),
            ],
            when=T0 + timedelta(2),
            model="claude-sonnet-4-5",
        )
    )


def test_list_prints_newest_first_with_headline_numbers(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(db)
    assert main(["history", "list", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ID", "CREATED", "(UTC)", "KIND", "SUBJECT", "RESULT"]
    assert lines[1].startswith("3 ") and "mimic-scenarios.json @ recorded responses " in lines[1]
    # the rate as every surface writes it (pe_eval_core.rates.rate_text), errors left out
    assert "1/1 passed (100%; 1 error apart)  model claude-sonnet-4-5" in lines[1]
    assert "HMDA_GA/operator" in lines[2]
    assert lines[3].startswith("1 ") and "2026-04-01 09:30:00" in lines[3]
    assert "citation 50%  halluc 25%  coverage 75%  consistency 100%" in lines[3]


def test_list_filters_limits_and_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(db)
    assert main(["history", "list", "--kind", "memo", "--portco", "HMDA_GA", "--json",
                 "--db", str(db)]) == 0  # fmt: skip
    [run] = json.loads(capsys.readouterr().out)
    assert (run["portco_id"], run["audience"], run["kind"]) == ("HMDA_GA", "operator", "memo")
    assert main(["history", "list", "--limit", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "(1 of 3 runs shown; use --limit)" in out
    assert main(["history", "list", "--model", "nope", "--db", str(db)]) == 0
    assert "no runs recorded" in capsys.readouterr().out


def test_show_prints_detail_and_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(db)
    assert main(["history", "show", "latest", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "run #3 (scenarios" in out
    # the errored run is not in the tier's denominator (it read "0/1 (0.0%)" before)
    assert "functional: 0/0 (n/a), 1 error apart" in out
    assert "- f1 (functional): error: HTTP 502" in out
    assert main(["history", "show", "1", "--json", "--db", str(db)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["citation_accuracy"] == 0.5
    assert len(data["opportunities"]) == 3
    assert main(["history", "show", "nopenope", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "fix: List the recorded runs and use an id" in err and err.rstrip().endswith(
        "(argument RUN)"
    )
    bad_refs = (
        "nope",
        "abc",
        "1e3",
        "-1",
        "0",
        "\u00b2",
        "9" * 23,
        "latest~1e3",
        "latest~" + "9" * 30,
    )
    for bad in bad_refs:
        assert main(["history", "show", bad, "--db", str(db)]) == 2, bad
        err = capsys.readouterr().err
        assert "bad run reference" in err and "Traceback" not in err, bad
        assert err.rstrip().endswith("(argument RUN)"), bad


def test_reading_a_missing_history_does_not_create_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "none" / "history.sqlite"
    assert main(["history", "list", "--db", str(db)]) == 0
    assert "no runs recorded" in capsys.readouterr().out
    assert main(["history", "show", "latest", "--db", str(db)]) == 2
    assert main(["history", "compare", "1", "2", "--db", str(db)]) == 2
    assert "nothing recorded yet" in capsys.readouterr().err
    assert not db.parent.exists()


def test_without_db_the_history_lives_in_pe_eval_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "somewhere"
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    _fill(home / "history.sqlite")
    assert main(["history", "list", "--kind", "scenarios"]) == 0
    assert "mimic-scenarios.json" in capsys.readouterr().out


def test_compare_kind_scopes_latest_references(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(db)  # memo, memo, scenarios: the two latest runs are of different kinds
    assert main(["history", "compare", "latest~1", "latest", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "Pick two runs of the same kind" in err and "(option --kind)" in err
    assert (
        main(["history", "compare", "latest~1", "latest", "--kind", "memo", "--db", str(db)]) == 0
    )
    out = capsys.readouterr().out
    assert "#1" in out and "#2" in out


def test_latest_is_the_run_recorded_last_whatever_its_timestamp(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backdated run (``--timestamp``) recorded after another is still ``latest``. (The
    second is scored without the judge: the same responses scored the same way are the same
    run, recorded once whatever its timestamp.)"""
    for stamp, extra in (("2030-01-01T00:00:00Z", []), ("2020-01-01T00:00:00Z", ["--no-judge"])):
        code = main(["scenarios", "score", "--timestamp", stamp, "--db", str(db), *extra])
        assert code == 1  # the demo has failures
    capsys.readouterr()
    store = RunStore(db)
    first, second = sorted(r.id for r in store.list_runs())
    assert store.resolve("latest") == second
    assert store.resolve("latest~1", kind="scenarios") == first
    assert store.get_run("latest").summary.created_at.startswith("2020-01-01")
    assert main(["history", "show", "latest", "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["id"] == second
