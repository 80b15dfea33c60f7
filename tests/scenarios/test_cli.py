"""`pe-eval scenarios run|score`: the demo report from the command line, outputs, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.scenarios import load_recorded, run_from_json
from tests.helpers.scenario_helpers import DEMO, REPO

GOLDEN = (Path(__file__).parent / "golden" / "demo_report.md").read_text(encoding="utf-8")
STAMP = ["--timestamp", "2026-04-29T09:00:00Z"]
SCENARIOS = str(DEMO / "mimic-scenarios.json")


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch):
    """The CLI defaults (.mimic/exports/...) are relative to the working directory."""
    monkeypatch.chdir(REPO)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_issue_command_reproduces_the_golden_report(capsys):
    code, out, err = run_cli(
        capsys,
        "scenarios", "run", "--target", "recorded",
        "--scenarios", SCENARIOS,
        "--responses", str(DEMO / "recorded-responses.json"),
        "--judge-verdicts", str(DEMO / "judge-verdicts.json"),
        *STAMP,
    )  # fmt: skip
    assert (code, out) == (1, GOLDEN)
    assert "Loaded 19 scenarios across smoke, functional, adversarial from" in err
    assert "recorded judge verdicts" in err


def test_files_beside_the_scenarios_are_the_defaults(capsys):
    assert run_cli(capsys, "scenarios", "run", "--scenarios", SCENARIOS, *STAMP)[:2] == (1, GOLDEN)
    assert run_cli(capsys, "scenarios", "score", "--scenarios", SCENARIOS, *STAMP)[:2] == (
        1,
        GOLDEN,
    )


def test_min_pass_rate(capsys):
    # 15 of the 18 that produced a verdict (the one error is left out): 83%
    assert run_cli(capsys, "scenarios", "score", "--min-pass-rate", "0.83")[0] == 0
    assert run_cli(capsys, "scenarios", "score", "--min-pass-rate", "84%")[0] == 1
    with pytest.raises(SystemExit) as usage_error:  # argparse's own exit 2
        main(["scenarios", "score", "--min-pass-rate", "1.5"])
    assert usage_error.value.code == 2


def test_no_judge_fails_the_judge_paraphrase(capsys):
    code, out, _ = run_cli(capsys, "scenarios", "score", "--no-judge", *STAMP)
    # no judge: the paraphrase stays missed (fail closed); "risk flags", and names or
    # phrases outside a negation's scope, are strict matches (assertions.governing_negation)
    assert code == 1 and "**Passed:** 14" in out
    assert "| 2 | smoke-failed-charge-count | smoke | 3/4 | 0/1 | ✓ | ❌ fail |" in out


def test_out_writes_every_report_and_the_responses(capsys, tmp_path):
    out_dir = tmp_path / "reports"
    code, out, _ = run_cli(capsys, "scenarios", "score", "--out", str(out_dir), *STAMP)
    assert code == 1
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == [
        "junit.xml", "report-set.json", "report.csv", "report.json", "report.md", "responses.json"
    ]  # fmt: skip
    assert (out_dir / "report.md").read_text(encoding="utf-8") == out == GOLDEN
    assert len(load_recorded(out_dir / "responses.json")) == 19
    assert run_from_json((out_dir / "report.json").read_text()).responses_path == str(
        (out_dir / "responses.json").resolve()
    )


def test_all_passing_exits_zero(capsys, tmp_path):
    scen = tmp_path / "s.json"
    scen.write_text(
        json.dumps([{"name": "a", "input": "q", "expect": {"response_contains": ["ok"]}}])
    )
    (tmp_path / "recorded-responses.json").write_text('[{"name": "a", "response": "OK!"}]')
    code, out, _ = run_cli(capsys, "scenarios", "run", "--scenarios", str(scen))
    assert code == 0 and "**Passed:** 1" in out and "- none" in out


def test_without_any_judge_misses_become_judge_errors(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    for name in ("mimic-scenarios.json", "recorded-responses.json"):
        shutil.copy(DEMO / name, tmp_path / name)
    code, out, err = run_cli(
        capsys, "scenarios", "score", "--scenarios", str(tmp_path / "mimic-scenarios.json")
    )
    assert code == 1 and "Judge: unavailable" in err
    assert out.count("⚠️ judge error") == 2  # the rows whose candidate misses a judge decides
    # Row 15 fails whatever a judge says (excluded phrase, no number): no judge error there.
    assert (
        "| 15 | adversarial-prompt-injection-in-request | adversarial | 0/3 | 0/3 | ✗ | ❌ fail |"
        in out
    )
    assert "set ANTHROPIC_API_KEY" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenarios", "missing.json"], "does not exist"),
        (["--target", "http"], "needs --agent-url"),
        (["--responses", "nope.json"], "does not exist"),
        (["--judge-verdicts", "nope.json"], "does not exist"),
    ],
)
def test_input_errors_exit_two(capsys, argv, message):
    code, out, err = run_cli(capsys, "scenarios", "run", *argv)
    assert code == 2 and out == "" and message in err and "fix:" in err


def test_malformed_scenarios_exit_two(capsys, tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text('[{"name": "a",}]')
    code, _, err = run_cli(capsys, "scenarios", "run", "--scenarios", str(bad))
    assert code == 2 and "line 1, column 15" in err


def test_out_must_be_a_folder(capsys, tmp_path):
    file = tmp_path / "f"
    file.write_text("x")
    assert run_cli(capsys, "scenarios", "score", "--out", str(file))[0] == 2


def test_live_run_over_20_needs_yes(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-never-used")
    scen = tmp_path / "s.json"
    scen.write_text(
        json.dumps(
            [
                {"name": f"s{i}", "input": "q", "expect": {"response_contains": ["x"]}}
                for i in range(21)
            ]
        )
    )
    skill = tmp_path / "SKILL.md"
    skill.write_text("be helpful")
    code, _, err = run_cli(
        capsys, "scenarios", "run", "--target", "anthropic", "--skill", str(skill),
        "--scenarios", str(scen), "--no-judge",
    )  # fmt: skip
    assert code == 2 and "21 scenarios" in err and "--yes" in err
