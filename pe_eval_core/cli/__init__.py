"""The command line, outside the library: one argparse tree (``main``), one module per command.

Every command shares :class:`ExitCode`; this module also holds the one helper every command's
help text uses.
"""

from __future__ import annotations

import re
from enum import IntEnum


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
