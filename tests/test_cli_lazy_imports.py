"""`python -m pe_eval_core memo ...` imports only what the memo command needs.

With history on (the default), grading a memo records it in SQLite through the standard
library's sqlite3 (``pe_eval_core.db.lite``): no SQLAlchemy, no history models, no scenario,
MCP, Anthropic or dashboard stack. Each module named here costs more CPU to import than the
memo command's whole budget (2x importing pydantic and jinja2; benchmarks/bench_startup.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_FOR_MEMO = (
    "pe_eval_core.scenarios",
    "pe_eval_core.cli.scenarios",
    "pe_eval_core.cli.mcp",
    "pe_eval_core.mcp_server",
    "pe_eval_core.history.store",
    "pe_eval_core.history.records",
    "pe_eval_core.db.engine",
    "pe_eval_core.db.schema",
    "anthropic",
    "mcp",
    "streamlit",
    "sqlalchemy",
    "psycopg",
    "httpx",
    "httpx2",
    "pandas",
    "numpy",
    "altair",
    "opentelemetry",
)

RUN_CLI = """
import contextlib, io, json, sys
from pe_eval_core.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
"""
PROBE = RUN_CLI + "print(json.dumps(sorted(sys.modules)))\n"


def _probe(probe: str, *argv: str, cwd: Path) -> Any:
    """What ``probe`` prints as JSON on its last line, after the CLI ran ``argv`` in a fresh
    interpreter (history in ``cwd/home``)."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PE_EVAL_HOME": str(cwd / "home"), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _modules(*argv: str, cwd: Path) -> list[str]:
    return _probe(PROBE, *argv, cwd=cwd)


def _heavy(loaded: list[str]) -> list[str]:
    return [m for m in loaded if any(m == p or m.startswith(p + ".") for p in NOT_FOR_MEMO)]


@pytest.mark.parametrize(
    "argv",
    [
        ("memo", "--help"),
        ("memo", "MortgageCo", "--data-dir", str(ROOT / "finance_output"), "--out-dir", "out"),
        ("memo", "--all", "--data-dir", str(ROOT / "finance_output"), "--out-dir", "out"),
    ],
)
def test_memo_with_history_on_imports_nothing_heavy(argv, tmp_path):
    loaded = _modules(*argv, cwd=tmp_path)
    assert "pe_eval_core.cli.memo" in loaded
    assert _heavy(loaded) == []
    if "--help" not in argv:  # the run was recorded, so the recording path was measured
        assert "pe_eval_core.history.recording" in loaded
        assert (tmp_path / "home" / "history.sqlite").stat().st_size > 0


LAZY_PROBE = (
    RUN_CLI
    + """
from pe_eval_core import redact
from pe_eval_core.memo import models, result
print(json.dumps({
    "redact_patterns": redact._compiled.cache_info().currsize,
    "built": {m.__name__: m.__pydantic_complete__ for m in (
        models.SourceOpportunity, models.ExplainedOpportunity, result.Finding)},
}))
"""
)


def test_a_clean_memo_run_compiles_no_redaction_pattern_and_builds_no_nested_model(tmp_path):
    """Start-up: the redaction passes compile on first use (no printed text here holds a
    cue), and the models a memo run validates only inside their parent (opportunities) or
    not at all (findings of a clean memo) build their own validator on first direct use."""
    argv = ["memo", "MortgageCo", "--data-dir", str(ROOT / "finance_output"), "--out-dir", "out"]
    seen = _probe(LAZY_PROBE, *argv, cwd=tmp_path)
    assert (tmp_path / "out" / "eval_MortgageCo_board.json").is_file()  # it graded and wrote
    assert seen == {
        "redact_patterns": 0,
        "built": {"SourceOpportunity": False, "ExplainedOpportunity": False, "Finding": False},
    }


def test_deferred_models_still_validate_on_first_use():
    from pe_eval_core.memo.models import SourceOpportunity
    from pe_eval_core.memo.result import Finding, FindingKind

    assert SourceOpportunity.model_validate({"id": 7}).id == "7"
    with pytest.raises(ValueError, match="n"):
        SourceOpportunity.model_validate({"id": "a", "n": "many"})
    finding = Finding(kind=FindingKind.UNGROUNDED_FIGURE, message="m")
    assert finding.kind is FindingKind.UNGROUNDED_FIGURE
    with pytest.raises(ValueError):
        Finding(kind="no such kind", message="m")


def test_redaction_compiles_a_pass_when_its_cue_appears():
    from pe_eval_core import redact

    assert redact.redact("Authorization: Bearer abcdefgh123") == "Authorization: [redacted]"
    assert redact._compiled.cache_info().currsize >= 1


def test_memo_help_loads_no_grader(tmp_path):
    loaded = _modules("memo", "--help", cwd=tmp_path)
    assert not any(m.startswith("pe_eval_core.memo.") for m in loaded)
    assert "pydantic" not in loaded and "jinja2" not in loaded


def test_top_level_help_lists_every_command_without_importing_them(tmp_path):
    loaded = _modules("--help", cwd=tmp_path)
    assert not any(
        m.startswith("pe_eval_core.cli.") and m != "pe_eval_core.cli.main" for m in loaded
    )
    out = subprocess.run(
        [sys.executable, "-m", "pe_eval_core", "--help"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    for command in ("memo", "scenarios", "history", "gate", "mcp"):
        assert f"    {command}" in out


def test_the_light_table_matches_the_registered_parsers():
    from pe_eval_core.cli.main import COMMANDS, build_parser

    full = build_parser()
    sub = next(a for a in full._actions if a.dest == "command")
    assert set(sub.choices) == set(COMMANDS)
    for name, (_module, help_text) in COMMANDS.items():
        helps = {a.dest: a.help for a in sub._choices_actions}
        assert helps[name] == help_text, name
        lone = build_parser([name])
        lone_sub = next(a for a in lone._actions if a.dest == "command")
        assert lone_sub.choices[name].format_help() == sub.choices[name].format_help()


NO_CALL_STACKS = ("anthropic", "httpx", "httpx2", "mcp", "streamlit", "pandas")
"""What a scenarios command that makes no model or tool call never imports: the Anthropic SDK
(and its HTTP client), the MCP client, the dashboard."""


@pytest.mark.parametrize("judge", [("--no-judge",), ()])  # (): the shipped recorded verdicts
def test_scoring_recorded_responses_imports_no_sdk(judge, tmp_path):
    exports = ROOT / ".mimic" / "exports"
    loaded = _modules(
        "scenarios",
        "score",
        "--scenarios",
        str(exports / "mimic-scenarios.json"),
        "--responses",
        str(exports / "recorded-responses.json"),
        "--out",
        str(tmp_path / "out"),
        *judge,
        cwd=tmp_path,
    )
    assert "pe_eval_core.scenarios.scoring.score" in loaded
    assert (tmp_path / "out" / "report.json").is_file()  # it ran, and wrote its reports
    bad = [m for m in loaded if m.split(".")[0] in NO_CALL_STACKS]
    assert bad == []
