"""Every failure pe-eval reports on purpose: one exception type each, with a diagnosis and fix.

The diagnosis/fix pairs for the memo grader come from the seed specification's failure table,
so the CLI, the dashboard and the MCP server all show the user the same advice.
"""

from __future__ import annotations


class PeEvalError(Exception):
    """Base class: a problem with the user's inputs or configuration, never a bug.

    ``diagnosis`` says what is wrong, ``fix`` says what to do about it. ``str(err)`` joins the
    specific message with both, so any surface can print it as is.
    """

    diagnosis: str = "pe-eval could not complete the request"
    fix: str = "Check the inputs named in the message."

    def __init__(self, message: str, *, diagnosis: str | None = None, fix: str | None = None):
        super().__init__(message)
        self.message = message
        if diagnosis is not None:
            self.diagnosis = diagnosis
        if fix is not None:
            self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} ({self.diagnosis}). Fix: {self.fix}"

    def as_dict(self) -> dict[str, str]:
        """The error as data, for JSON output and MCP tool errors."""
        return {
            "error": type(self).__name__,
            "message": self.message,
            "diagnosis": self.diagnosis,
            "fix": self.fix,
        }


class InputNotFoundError(PeEvalError):
    """A file the user named does not exist."""

    diagnosis = "The path passed doesn't exist"
    fix = "Check the path, or list what exists."


class MalformedJSONError(PeEvalError):
    """A file exists but is not valid JSON; carries the line and column of the first error."""

    diagnosis = "The file is not valid JSON"
    fix = "Regenerate the file with the tool that produced it."

    def __init__(self, path: str, line: int, column: int, detail: str, **kwargs: str):
        super().__init__(
            f"{path} is malformed JSON at line {line}, column {column}: {detail}", **kwargs
        )
        self.path = path
        self.line = line
        self.column = column


class SchemaMismatchError(PeEvalError):
    """Valid JSON that does not have the shape we need; names the offending field."""

    diagnosis = "The file does not match the expected schema"
    fix = "Regenerate the file with the tool that produced it, or fix the named field."

    def __init__(self, path: str, field: str, detail: str, **kwargs: str):
        super().__init__(f"{path}: field {field!r}: {detail}", **kwargs)
        self.path = path
        self.field = field


class InvalidNameError(PeEvalError):
    """A portco/audience name that could escape the data folder or is not a plain name."""

    diagnosis = "Names used to build file paths may contain only letters, digits, '_', '.', '-'"
    fix = "Use the portco id exactly as in the data folder (see --list)."


class PathOutsideRootError(PeEvalError):
    """A path that resolves outside the folders pe-eval is allowed to read."""

    diagnosis = "The path resolves outside the allowed folders"
    fix = "Pass a path inside the allowed roots, or widen the allowed roots explicitly."


# --- memo grader (the seed's failure table) -----------------------------------------------


class MemoNotFoundError(InputNotFoundError):
    diagnosis = "Memo JSON not found: the path passed doesn't exist"
    fix = "Run explain_decision first to produce the memo sidecar."


class SourceNotFoundError(InputNotFoundError):
    diagnosis = "Source JSON not found: the DX OpportunityMap is missing"
    fix = "Run diagnose_decisions to produce the source."


class MalformedMemoError(MalformedJSONError):
    diagnosis = "Memo JSON is malformed: the sidecar got corrupted"
    fix = "Regenerate with explain_decision."


class MalformedSourceError(MalformedJSONError):
    diagnosis = "Source JSON is malformed: the OpportunityMap got corrupted"
    fix = "Regenerate with diagnose_decisions."


class MemoSchemaError(SchemaMismatchError):
    diagnosis = "Memo JSON does not match the explain_* sidecar schema"
    fix = "Regenerate with explain_decision."


class SourceSchemaError(SchemaMismatchError):
    diagnosis = "Source JSON does not match the OpportunityMap schema"
    fix = "Regenerate with diagnose_decisions."


class EmptyMemoError(PeEvalError):
    diagnosis = "zero opportunities_explained: the memo is empty"
    fix = "Memo generator failed silently — re-run upstream tool."
