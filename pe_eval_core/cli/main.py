"""`python -m pe_eval_core ...` / `pe-eval ...`: one argparse tree, one module per command.

Exit codes are shared by every subcommand: 0 success, 1 quality below the asked threshold,
2 the inputs or configuration could not be evaluated.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from pe_eval_core.cli import ExitCode, flag_for
from pe_eval_core.errors import PeEvalError, input_of

# Each module defines ``register(subparsers)``, which adds its parser(s) and sets
# ``func(args) -> int`` as the handler.
SUBCOMMAND_MODULES = (
    "pe_eval_core.cli.memo",
    "pe_eval_core.cli.scenarios",
    "pe_eval_core.cli.history",
    "pe_eval_core.cli.mcp",
)


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep that, it matches our 'input error'."""


def build_parser() -> argparse.ArgumentParser:
    # Name the command the way the user invoked it, so usage lines can be pasted back.
    invoked_as_module = sys.argv[0].endswith("__main__.py")
    parser = _Parser(
        prog="python -m pe_eval_core" if invoked_as_module else "pe-eval",
        description="Grade PE memos against their source and evaluate agents on scenarios.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        if importlib.util.find_spec(name) is None:  # a part not built in this checkout
            continue
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except PeEvalError as err:
        print_error(err)
        return ExitCode.CANNOT_EVALUATE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED


def print_error(err: PeEvalError) -> None:
    """An error on stderr: message, diagnosis, and the fix with the option at fault."""
    flag = flag_for(input_of(err))
    print(f"error: {err.message}", file=sys.stderr)
    print(f"  diagnosis: {err.diagnosis}", file=sys.stderr)
    print(f"  fix: {err.fix}" + (f" ({flag})" if flag else ""), file=sys.stderr)
