"""Memo-grader errors beyond the seed's table: CLI usage, thresholds, unwritable outputs.

The seed's own failures (memo/source not found, malformed, schema, empty memo) live in
``pe_eval_core.errors`` because every surface shares them.
"""

from __future__ import annotations

from pe_eval_core.errors import MemoNotFoundError, PeEvalError


class ThresholdSpecError(PeEvalError):
    """A --fail-under / --max-hallucination value that cannot be parsed."""

    diagnosis = "The threshold specification is not valid"
    fix = (
        "Use --fail-under citation=1.0,coverage=1.0,consistency=1.0 (values in 0..1) and "
        "--max-hallucination 0.0."
    )


class UsageError(PeEvalError):
    """Options that do not go together."""

    diagnosis = "The memo command's options do not fit together"
    fix = (
        "Name a portco (python -m pe_eval_core memo MortgageCo), or pass --memo (and --source "
        "if the memo names no source_opportunity_map), or --list."
    )


class OutputWriteError(PeEvalError):
    """The scorecard files could not be written (permissions, full disk, missing folder)."""

    diagnosis = "The scorecard could not be written next to the memo"
    fix = "Make the folder writable, or write elsewhere with --out-dir."


class PairNotFoundError(MemoNotFoundError):
    """A named portco/audience with no memo in a data folder that does hold other memos: a
    typo or the wrong audience, not a missing explain_decision run."""

    diagnosis = "No memo for that portco and audience in the data folder"
    fix = "Check the spelling against the memos listed (or run --list), or pass --audience."
