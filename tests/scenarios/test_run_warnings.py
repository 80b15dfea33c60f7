"""What the loader and the judge could not check reaches the run, its report and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from pe_eval_core.cli.main import main
from pe_eval_core.scenarios import RecordedJudge, load_scenarios, render_markdown_report
from pe_eval_core.scenarios.agent.targets import RecordedTarget
from pe_eval_core.scenarios.run.runner import run_scenarios_sync, run_warnings

SCENARIO = {
    "name": "mrr",
    "input": "How much MRR did we lose?",
    "expect": {"response_contains": ["$4,820"], "tone_score": 3},
    "metadata": {"tier": "smoke"},
}
GOAL_ONLY = {"name": "goal-only", "goal": "Agent names the churn driver",
             "expect": {"response_contains": ["card"]}}  # fmt: skip


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(json.dumps([SCENARIO, GOAL_ONLY]))
    responses = tmp_path / "recorded-responses.json"
    responses.write_text(
        json.dumps(
            [
                {"name": "mrr", "response": "We lost $4,820 of MRR."},
                {"name": "goal-only", "response": "Expired payment methods drive churn."},
            ]
        )
    )
    verdicts = tmp_path / "judge-verdicts.json"
    verdicts.write_text(
        json.dumps(
            {
                "label": "l",
                "model": "m",
                "prompt_version": "x",
                "verdicts": [
                    {
                        "scenario": "goal-only",
                        "expected": "card",
                        "verdict": "paraphrase",
                        "evidence": "Expired payment methods",
                        "response_sha256": "0" * 64,
                    },
                ],
            }
        )
    )
    return scenarios, responses, verdicts


def test_loader_and_judge_warnings_are_on_the_run_and_in_the_report(tmp_path):
    scenarios_path, responses, verdicts = _files(tmp_path)
    scenarios = load_scenarios(scenarios_path)
    judge = RecordedJudge(verdicts)
    run = run_scenarios_sync(
        scenarios, RecordedTarget(responses), judge=judge, save_responses=False
    )
    assert any("'tone_score'" in w for w in run.warnings)
    assert any("goal" in w and "goal-only" in w for w in run.warnings)
    assert any("ignored" in w for w in judge.warnings)  # the verdict of another prompt
    assert set(judge.warnings) <= set(run.warnings)
    report = render_markdown_report(run)
    for w in run.warnings[:2]:
        assert w.split(":")[0] in report
    assert report.count("- Warning: ") == len(run.warnings)
    assert json.loads(run.model_dump_json())["warnings"] == run.warnings


def test_run_warnings_lists_each_once_and_a_clean_run_has_none(tmp_path):
    scenarios_path, _, _ = _files(tmp_path)
    loaded = load_scenarios(scenarios_path)
    assert run_warnings(loaded, None) == loaded.warnings
    assert run_warnings([], None) == []


def test_cli_prints_the_loader_warnings_in_the_run_header(tmp_path, capsys):
    scenarios_path, responses, _ = _files(tmp_path)
    code = main(
        [
            "scenarios",
            "run",
            "--target",
            "recorded",
            "--scenarios",
            str(scenarios_path),
            "--responses",
            str(responses),
            "--no-judge",
        ]
    )
    err = capsys.readouterr().err
    assert code in (0, 1)
    assert "warning: scenario 'mrr': expectation key 'tone_score'" in err
