"""The command line, outside the library: one argparse tree (``main``), one module per command.

Every command shares :class:`ExitCode`; this module also holds the one helper every command's
help text uses, and the CLI's words for the inputs errors name (:func:`flag_for`).
"""

from __future__ import annotations

import argparse
import re
from enum import IntEnum
from typing import TypeAlias

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``register(subparsers)`` receives (argparse does not export the type)."""

CLI_FLAGS: dict[str, str] = {
    "memo": "--memo",
    "source": "--source",
    "data_dir": "--data-dir",
    "portco": "PORTCO",
    "audience": "--audience",
    "out_dir": "--out-dir",
    "fail_under": "--fail-under",
    "max_hallucination": "--max-hallucination",
    "memo_thresholds": "--memo-thresholds",
    "max_misattributed": "--max-misattributed",
    "min_pass_rate": "--min-pass-rate",
    "scenarios": "--scenarios",
    "responses": "--responses",
    "judge_verdicts": "--judge-verdicts",
    "scenario_run": "--scenario-run",
    "baseline": "--baseline",
    "target": "--target",
    "skill": "--skill",
    "agent_url": "--agent-url",
    "concurrency": "--concurrency",
    "repeat": "--repeat",
    "confirm": "--yes",
    "out": "--out",
    "db": "--db / --database-url",
    "run": "RUN",
    "kind": "--kind",
    "allowed_roots": "--allow-root",
    "mcp_config": "--mcp-config / --mcp-server",
    "mcp_trust": "--mcp-config PATH / --trust-mcp-config SHA256",
    "mcp_env": "--mcp-env NAME",
    "agent_header": "--agent-header NAME=VALUE",
    "allow_tool": "--allow-tool NAME",
    "agent_bounds": "--max-turns / --max-tool-calls / --max-tokens",
    "document": "PATH",
    "document_kind": "--kind",
    "as_of": "--as-of",
    "allow_unlike": "--allow-unlike",
    "timeout": "--timeout / --judge-timeout",
    "max_cost": "--max-cost",
}
"""Each input an error can name (``pe_eval_core.errors.INPUT_LABELS``) as the CLI spells it."""


def flag_for(input_key: str | None) -> str | None:
    """The CLI's words for an error's input, appended to its fix.

    >>> flag_for("scenarios")
    'option --scenarios'
    >>> flag_for("portco")
    'argument PORTCO'
    >>> flag_for(None) is None
    True
    """
    flag = CLI_FLAGS.get(input_key or "")
    if flag is None:
        return None
    return f"option {flag}" if flag.startswith("--") else f"argument {flag}"


class ExitCode(IntEnum):
    """What a command's exit status means, the same for every command (CI reads it)."""

    OK = 0
    BELOW_THRESHOLD = 1  # the inputs were evaluated and quality is below the asked threshold
    CANNOT_EVALUATE = 2  # the inputs or the configuration could not be evaluated
    INTERRUPTED = 130


def plain_doc(doc: str | None) -> str:
    """A module docstring as --help text: reStructuredText literals shown as plain text.

    >>> plain_doc("Exit ``0`` when `pe-eval gate` passes.")
    'Exit 0 when pe-eval gate passes.'
    """
    return re.sub(r"``?([^`]+)``?", r"\1", doc or "").strip()


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1")
    return value


def add_jobs(parser: argparse.ArgumentParser) -> None:
    """``--jobs N``: processes grading memos (default: the core count)."""
    parser.add_argument(
        "--jobs",
        type=positive_int,
        metavar="N",
        help="processes grading memos in parallel (default: the number of cores)",
    )
