"""`python -m pe_eval_core ...` / `pe-eval ...`: one argparse tree, one module per command.

Exit codes are shared by every subcommand: 0 success, 1 quality below the asked threshold,
2 the inputs or configuration could not be evaluated.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence

from pe_eval_core.cli import ExitCode, flag_for
from pe_eval_core.errors import PeEvalError, input_of
from pe_eval_core.redact import redact
from pe_eval_core.terminal import term

# Each module defines ``register(subparsers)``, which adds its parser(s) and sets
# ``func(args) -> int`` as the handler.
SUBCOMMAND_MODULES = (
    "pe_eval_core.cli.memo",
    "pe_eval_core.cli.doc",
    "pe_eval_core.cli.scenarios",
    "pe_eval_core.cli.history",
    "pe_eval_core.cli.mcp",
)

COMMANDS: dict[str, tuple[str, str]] = {
    "memo": ("pe_eval_core.cli.memo", "grade a memo sidecar against its OpportunityMap"),
    "doc": (
        "pe_eval_core.cli.doc",
        "grade an exit proof pack, DDQ response, red-flag file or memo against its source",
    ),
    "scenarios": (
        "pe_eval_core.cli.scenarios",
        "run Mimic scenarios against an agent and score them",
    ),
    "history": ("pe_eval_core.cli.history", "list, show and compare recorded runs"),
    "gate": (
        "pe_eval_core.cli.history",
        "CI gate: fail when memo scores or scenario pass rates fall below thresholds",
    ),
    "mcp": (
        "pe_eval_core.cli.mcp",
        "serve eval_pe_output, eval_document, list_memo_pairs and score_scenarios over MCP (stdio)",
    ),
}
"""The light table: command -> (module registering it, one-line help). Only the module of the
command being run is imported; the others appear in ``--help`` from this table alone."""


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep that, it matches our 'input error'."""


def command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first word that is not an option (None: no command).

    >>> command_of(["memo", "MortgageCo"]), command_of(["--help"]), command_of(["gate", "-h"])
    ('memo', None, 'gate')
    """
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argparse tree; with ``argv``, only the command it runs is imported and registered
    in full (the others get a stub from ``COMMANDS``); without, every command is."""
    # Name the command the way the user invoked it, so usage lines can be pasted back.
    invoked_as_module = sys.argv[0].endswith("__main__.py")
    parser = _Parser(
        prog="python -m pe_eval_core" if invoked_as_module else "pe-eval",
        description="Grade PE memos against their source and evaluate agents on scenarios.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = command_of(argv) if argv is not None else None
    if argv is None or wanted not in COMMANDS:
        modules: tuple[str, ...] = SUBCOMMAND_MODULES if argv is None else ()
    else:
        modules = (COMMANDS[wanted][0],)
    registered: set[str] = set()
    for name in modules:
        if importlib.util.find_spec(name) is None:  # a part not built in this checkout
            continue
        before = set(sub.choices)
        importlib.import_module(name).register(sub)
        registered |= set(sub.choices) - before
    for command, (module, help_text) in COMMANDS.items():
        if command not in registered and module not in modules:
            sub.add_parser(command, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
    try:
        return int(args.func(args))
    except PeEvalError as err:
        print_error(err)
        return ExitCode.CANNOT_EVALUATE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except OSError as exc:  # a file-system fault no typed error caught: name the path
        if os.environ.get(DEBUG_ENV):
            raise
        print_os_error(exc)
        return ExitCode.CANNOT_EVALUATE
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        print_unexpected(exc)
        return ExitCode.CANNOT_EVALUATE


DEBUG_ENV = "PE_EVAL_DEBUG"
"""Set to re-raise an unexpected error with its traceback (for a bug report)."""


def print_os_error(exc: OSError) -> None:
    """A read or write the file system refused (read-only, full, not a folder), naming the
    path, with exit 2: the inputs or the machine, never the quality."""
    where = term(redact(str(exc.filename))) if exc.filename else "a file"
    print(f"error: cannot use {where}: {term(exc.strerror or str(exc))}", file=sys.stderr)
    print("  diagnosis: A file or folder could not be read or written", file=sys.stderr)
    print(
        "  fix: Check that the folder exists, is a folder and is writable, and that the disk "
        "has space, then run again.",
        file=sys.stderr,
    )


def print_unexpected(exc: BaseException) -> None:
    """A failure no typed error describes (a bug, or a fault of the machine such as a full
    disk): one line naming it, no traceback, exit 2 (never 1, which means quality)."""
    detail = term(redact(str(exc)))[:300]
    print(f"error: unexpected {type(exc).__name__}: {detail}", file=sys.stderr)
    print("  diagnosis: pe-eval hit a failure it has no specific advice for", file=sys.stderr)
    print(
        f"  fix: Check the inputs and free disk space; set {DEBUG_ENV}=1 to see the "
        "traceback for a bug report.",
        file=sys.stderr,
    )


def print_error(err: PeEvalError) -> None:
    """An error on stderr: message, diagnosis, and the fix with the option at fault."""
    flag = flag_for(input_of(err))
    print(f"error: {term(err.message)}", file=sys.stderr)
    print(f"  diagnosis: {term(err.diagnosis)}", file=sys.stderr)
    print(f"  fix: {term(err.fix)}" + (f" ({flag})" if flag else ""), file=sys.stderr)
