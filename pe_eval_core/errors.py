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


# --- memo grader: usage, thresholds, outputs -----------------------------------------------


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


# --- scenario evaluation -------------------------------------------------------------------


class ScenariosNotFoundError(InputNotFoundError):
    diagnosis = "The scenarios file doesn't exist"
    fix = "Pass --scenarios PATH, or run `mimic test --export mimic` to create it."


class MalformedScenariosError(MalformedJSONError):
    diagnosis = "The scenarios file is not valid JSON"
    fix = "Re-export it with `mimic test --export mimic`, or fix the JSON at the position shown."


class ScenarioSchemaError(SchemaMismatchError):
    """One scenario (or the file's top level) does not have the Mimic scenario shape."""

    diagnosis = "A scenario does not match Mimic's scenario schema"
    fix = "Fix the named field of that scenario, or re-export the file with Mimic."

    def __init__(
        self,
        path: str,
        field: str,
        detail: str,
        *,
        index: int | None = None,
        name: str | None = None,
        **kwargs: str,
    ):
        super().__init__(path, field, detail, **kwargs)
        self.index = index
        self.name = name
        if index is not None:
            who = f"scenario #{index + 1} (index {index}"
            who += f", name {name!r})" if name else ", no name)"
            self.message = f"{path}: {who}: field {field!r}: {detail}"
            self.args = (self.message,)


class DuplicateScenarioError(ScenarioSchemaError):
    diagnosis = "Two scenarios share a name, so their responses and results would be confused"
    fix = "Give every scenario a unique `name`."


class EmptyScenariosError(PeEvalError):
    diagnosis = "The scenarios file contains no scenarios"
    fix = "Re-export it with `mimic test --export mimic`; check the persona has facts."


class RecordedResponsesNotFoundError(InputNotFoundError):
    diagnosis = "The recorded responses file doesn't exist"
    fix = "Pass --responses PATH (a file a previous run saved), or run a live target first."


class MalformedRecordedError(MalformedJSONError):
    diagnosis = "The recorded responses file is not valid JSON or JSON Lines"
    fix = "Use the file a previous pe-eval run saved, or fix the JSON at the position shown."


class RecordedSchemaError(SchemaMismatchError):
    diagnosis = "The recorded responses file does not have the {name, response} shape"
    fix = "Each entry needs `name` and `response` (or `error`); optional `latency_ms`."


class JudgeVerdictsNotFoundError(InputNotFoundError):
    diagnosis = "The recorded judge verdicts file doesn't exist"
    fix = "Pass --judge-verdicts PATH, use --no-judge, or set ANTHROPIC_API_KEY for a live judge."


class MalformedJudgeVerdictsError(MalformedJSONError):
    diagnosis = "The recorded judge verdicts file is not valid JSON"
    fix = "Fix the JSON at the position shown, or regenerate the verdicts."


class JudgeVerdictsSchemaError(SchemaMismatchError):
    diagnosis = "The recorded judge verdicts file does not have the expected shape"
    fix = (
        'Use {"label", "model", "prompt_version", '
        '"verdicts": [{scenario, expected, verdict, evidence}]}.'
    )


class LiveRunNotConfirmedError(PeEvalError):
    diagnosis = "More than 20 scenarios against a live (paid) target need explicit confirmation"
    fix = (
        "Re-run with --yes (CLI) or tick the confirmation box (dashboard), or pass fewer scenarios."
    )


class TargetConfigError(PeEvalError):
    diagnosis = "The target agent is not configured"
    fix = "Check --target and the options it needs (--skill, --agent-url, ANTHROPIC_API_KEY)."


class SkillNotFoundError(InputNotFoundError):
    diagnosis = "The target skill file doesn't exist"
    fix = "Pass --skill PATH (default skills/revenue-recovery/SKILL.md)."


class JudgeError(Exception):
    """The judge could not give a verdict. Recorded on the scenario as `judge error`, never raised
    to the user: a scenario whose judgement failed must not pass (or crash the run)."""


# --- MCP server ----------------------------------------------------------------------------


class AllowedRootError(PeEvalError):
    diagnosis = "An allowed root for the MCP server is not an existing folder"
    fix = "Pass existing folders to --allow-root (or PE_EVAL_ALLOWED_ROOTS)."


# --- run history, comparison and the gate --------------------------------------------------


class KindMismatchError(PeEvalError):
    diagnosis = (
        "Only runs of the same kind can be compared (memo with memo, scenarios with scenarios)"
    )
    fix = (
        "Pick two runs of the same kind: `history compare latest~1 latest --kind scenarios` "
        "(or --kind memo); `history list --kind ...` shows them."
    )


class GateConfigError(PeEvalError):
    diagnosis = "The gate's thresholds or inputs are not usable"
    fix = (
        "Use NAME=VALUE pairs with values in 0..1 (e.g. --memo-thresholds citation=1.0,"
        "coverage=1.0 --min-pass-rate smoke=1.0,functional=0.9) and give a --data-dir and/or "
        "a scenario run."
    )


class HistoryError(PeEvalError):
    """The history database could not be opened, read or written."""

    diagnosis = "The run-history database could not be used"
    fix = "Check the --db path (or PE_EVAL_HOME) points to a writable folder, or delete the file."


class HistorySchemaTooNewError(HistoryError):
    diagnosis = (
        "The history database was written by a newer pe-eval (its schema is ahead of this one)"
    )
    fix = "Upgrade pe-eval, or point --db / PE_EVAL_HOME at a different history file."


class RunNotFoundError(HistoryError):
    diagnosis = "No run in the history matches that reference"
    fix = (
        "List runs with `python -m pe_eval_core history list` and use an id from the first column."
    )


# --- agent tools (MCP servers for the agent under test, its tool-use loop) -----------------


class McpConfigError(PeEvalError):
    """The MCP server configuration (``.mcp.json``, ``--mcp-server NAME=URL``) is not usable."""

    diagnosis = "The MCP server configuration for the agent under test is not usable"
    fix = (
        'Give .mcp.json as {"mcpServers": {"<name>": {"type": "http", "url": "http://..."}}} '
        '(or {"command": ..., "args": [...], "env": {...}} for stdio), or pass '
        "--mcp-server NAME=URL."
    )


class McpServerUnreachableError(McpConfigError):
    """An MCP server could not be connected to (or listed) before any scenario ran."""

    diagnosis = "An MCP server for the agent under test could not be reached"
    fix = (
        "Start the server (for Mimic: `python3 scripts/mimic_stack.py start`), or correct its "
        "URL in .mcp.json / --mcp-server NAME=URL."
    )

    def __init__(self, name: str, where: str, reason: str, **kwargs: str):
        super().__init__(f"MCP server {name!r} at {where} is unreachable: {reason}", **kwargs)
        self.name = name
        self.where = where
        self.reason = reason


class AgentBoundsError(PeEvalError):
    """A bound of the agent's tool-use loop (turns, tool calls, timeout, sizes) is invalid."""

    diagnosis = "A bound of the agent's tool-use loop is not a positive number"
    fix = "Use positive values for --max-turns, --max-tool-calls and --max-tokens."
