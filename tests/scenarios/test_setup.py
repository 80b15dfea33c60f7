"""``scenarios.setup``: the one judge policy and target construction, and every surface using it.

Pins two drifts that existed while the CLI and the dashboard each chose the judge: the
dashboard ignored ``PE_EVAL_JUDGE_MODEL``, and the CLI's ``--model`` (the target's model)
became the judge's model, contrary to its help.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pe_eval_core.cli import scenarios as cli_scenarios
from pe_eval_core.cli.main import build_parser
from pe_eval_core.errors import TargetConfigError
from pe_eval_core.scenarios import (
    CachedJudge,
    HttpTarget,
    RecordedJudge,
    RecordedTarget,
    UnavailableJudge,
)
from pe_eval_core.scenarios.options import run_options
from pe_eval_core.scenarios.run.setup import choose_judge, make_target
from pe_eval_core.scenarios.scoring.judge.chain import ChainJudge

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("PE_EVAL_JUDGE_MODEL", raising=False)
    monkeypatch.delenv("PE_EVAL_MODEL", raising=False)


@pytest.fixture
def key(no_key: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")


# --- the policy ------------------------------------------------------------------------------


def test_no_judge_wins_over_everything(key: None) -> None:
    assert choose_judge(scenarios_path=DEMO, use_judge=False, verdicts=Path("x")) is None


def test_recorded_verdicts_beside_the_scenarios_for_recorded_responses(key: None) -> None:
    judge = choose_judge(scenarios_path=DEMO)
    assert isinstance(judge, ChainJudge) and isinstance(judge.recorded, RecordedJudge)
    assert judge.recorded.path == DEMO.parent / "judge-verdicts.json"
    assert judge.model == "recorded:claude-sonnet-4-5"
    # phrases the file does not answer go to the judge the policy would otherwise use
    assert isinstance(judge.fallback, CachedJudge)


def test_live_target_or_live_judge_skips_the_verdicts_beside(key: None) -> None:
    for judge in (
        choose_judge(scenarios_path=DEMO, recorded_target=False),
        choose_judge(scenarios_path=DEMO, live_judge=True),
    ):
        assert isinstance(judge, CachedJudge)


def test_no_key_means_unavailable_not_silently_missed(no_key: None, tmp_path: Path) -> None:
    judge = choose_judge(scenarios_path=tmp_path / "s.json")
    assert isinstance(judge, UnavailableJudge)
    assert "ANTHROPIC_API_KEY" in judge.reason


def test_judge_model_env_then_explicit(key: None, monkeypatch, tmp_path: Path) -> None:
    s = tmp_path / "s.json"
    monkeypatch.setenv("PE_EVAL_MODEL", "target-model")
    judge = choose_judge(scenarios_path=s)
    # the judge's own default, never the target's model
    assert judge is not None and judge.model == "claude-opus-5-5"
    monkeypatch.setenv("PE_EVAL_JUDGE_MODEL", "judge-from-env")
    judge = choose_judge(scenarios_path=s)
    assert judge is not None and judge.model == "judge-from-env"
    judge = choose_judge(scenarios_path=s, options=run_options(judge_model="judge-explicit"))
    assert judge is not None and judge.model == "judge-explicit"


def test_cache_path_is_passed_through(key: None, tmp_path: Path) -> None:
    judge = choose_judge(scenarios_path=tmp_path / "s.json", cache=tmp_path / "c.sqlite3")
    assert isinstance(judge, CachedJudge) and judge.db_path == tmp_path / "c.sqlite3"


def test_make_target_kinds(no_key: None, tmp_path: Path) -> None:
    recorded = make_target("recorded", scenarios_path=DEMO)
    assert isinstance(recorded, RecordedTarget)
    assert recorded.path == DEMO.parent / "recorded-responses.json"
    http = make_target("http", scenarios_path=DEMO, agent_url="http://127.0.0.1:9/agent")
    assert isinstance(http, HttpTarget)
    with pytest.raises(TargetConfigError):
        make_target("http", scenarios_path=DEMO)


# --- the CLI ---------------------------------------------------------------------------------


def _cli_args(*argv: str):
    return build_parser().parse_args(["scenarios", *argv])


def test_cli_target_model_does_not_become_the_judge_model(key: None, monkeypatch) -> None:
    args = _cli_args(
        "run", "--target", "http", "--agent-url", "http://127.0.0.1:9/a", "--model", "target-x"
    )
    judge = cli_scenarios._judge(args)
    assert isinstance(judge, CachedJudge)
    assert judge.model != "target-x"
    monkeypatch.setenv("PE_EVAL_JUDGE_MODEL", "judge-from-env")
    assert cli_scenarios._judge(args).model == "judge-from-env"  # type: ignore[union-attr]
    args = _cli_args(
        "run",
        "--target",
        "http",
        "--agent-url",
        "http://127.0.0.1:9/a",
        "--model",
        "target-x",
        "--judge-model",
        "judge-y",
    )
    assert cli_scenarios._judge(args).model == "judge-y"  # type: ignore[union-attr]


def test_cli_score_uses_the_verdicts_beside(key: None) -> None:
    judge = cli_scenarios._judge(_cli_args("score", "--scenarios", str(DEMO)))
    assert isinstance(judge, ChainJudge) and isinstance(judge.recorded, RecordedJudge)


# --- the dashboard ---------------------------------------------------------------------------


def _dashboard_judge(is_live: bool, key: str | None) -> None:
    """Runs inside AppTest: the page's judge chooser, its choice written to session state."""
    import streamlit as st

    from ui.views.scenarios import build_judge

    judge = build_judge(is_live, key)
    st.session_state["chosen"] = None if judge is None else (type(judge).__name__, judge.model)


def _run_dashboard_judge(is_live: bool, key: str | None) -> object:
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    at = AppTest.from_function(_dashboard_judge, args=(is_live, key), default_timeout=60)
    at.run()
    assert not at.exception
    return at.session_state["chosen"]


def test_dashboard_honours_the_judge_model_env(no_key: None, monkeypatch) -> None:
    monkeypatch.setenv("PE_EVAL_MODEL", "target-model")
    monkeypatch.setenv("PE_EVAL_JUDGE_MODEL", "judge-from-env")
    assert _run_dashboard_judge(True, "sk-test-not-used") == ("CachedJudge", "judge-from-env")


def test_dashboard_without_key_is_unavailable_like_the_cli(no_key: None) -> None:
    # an UnavailableJudge that still answers from the verdict cache (the judge's own model)
    assert _run_dashboard_judge(True, None) == ("CacheOnlyJudge", "claude-opus-5-5")
