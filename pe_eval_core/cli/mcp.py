"""`pe-eval mcp`: serve the grader and the scenario scorer as MCP tools over stdio."""

from __future__ import annotations

import argparse

from pe_eval_core import mcp_server
from pe_eval_core.cli import ExitCode, Subparsers, plain_doc
from pe_eval_core.cli.store_options import add_store_options, store_target


def register(subparsers: Subparsers) -> None:
    """Add ``mcp``: serve the tools over stdio."""
    parser = subparsers.add_parser(
        "mcp",
        help="serve eval_pe_output, eval_document, list_memo_pairs and score_scenarios over "
        "MCP (stdio)",
        description=plain_doc(mcp_server.__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--allow-root",
        action="append",
        metavar="DIR",
        help="folder the tools may read (repeatable; default "
        f"${mcp_server.ALLOWED_ROOTS_ENV} or the cwd)",
    )
    add_store_options(parser)
    parser.add_argument("--no-record", action="store_true", help="do not record runs in history")
    parser.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    roots = mcp_server.allowed_roots(args.allow_root)
    server = mcp_server.build_server(roots, db=store_target(args), record=not args.no_record)
    server.run("stdio")
    return ExitCode.OK
