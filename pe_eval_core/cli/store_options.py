"""The history options every recording or reading command shares, defined once.

``--db FILE`` (a SQLite file) or ``--database-url URL`` (``postgresql://...`` for a team
store); neither: ``$PE_EVAL_DATABASE_URL``, else the default file (see
``pe_eval_core.history.store``). Importing this module imports no database code.
"""

from __future__ import annotations

import argparse


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--db`` / ``--database-url`` (one or the other) to ``parser``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--db",
        default=None,
        help="history database file (default: $PE_EVAL_DATABASE_URL, else "
        "$PE_EVAL_HOME/history.sqlite or ./.pe_eval/history.sqlite)",
    )
    group.add_argument(
        "--database-url",
        default=None,
        metavar="URL",
        help="history database URL, e.g. postgresql://user:pw@host:5432/pe_eval for a team "
        "store shared by every machine (default: $PE_EVAL_DATABASE_URL)",
    )


def store_target(args: argparse.Namespace) -> str | None:
    """What ``RunStore(...)`` / ``record_or_warn(db=...)`` should open for these arguments."""
    return getattr(args, "database_url", None) or getattr(args, "db", None)
