"""`python -m pe_eval_core memo ...` imports only what the memo command needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_FOR_MEMO = (
    "pe_eval_core.scenarios",
    "pe_eval_core.cli.scenarios",
    "pe_eval_core.cli.mcp",
    "pe_eval_core.mcp_server",
    "anthropic",
    "mcp",
    "streamlit",
)

PROBE = """
import contextlib, io, json, sys
from pe_eval_core.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def _modules(*argv: str, cwd: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PE_EVAL_HOME": str(cwd / "home"), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [("memo", "--help"), ("memo", "MortgageCo", "--data-dir", str(ROOT / "finance_output"))],
)
def test_memo_imports_no_scenarios_anthropic_or_mcp(argv, tmp_path):
    loaded = _modules(*argv, cwd=tmp_path)
    assert "pe_eval_core.cli.memo" in loaded
    bad = [m for m in loaded if any(m == p or m.startswith(p + ".") for p in NOT_FOR_MEMO)]
    assert bad == []


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
