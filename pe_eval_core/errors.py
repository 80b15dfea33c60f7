"""Every failure pe-eval reports on purpose: one exception type each, with a diagnosis and fix.

The diagnosis/fix pairs for the memo grader come from the seed specification's failure table,
so the CLI, the dashboard and the MCP server all show the user the same advice. A hint says
what is wrong and what to do in product terms and never names a CLI flag: ``input`` names the
input at fault (a key of :data:`INPUT_LABELS`), and each surface adds its own words for it
(the CLI its option, the MCP server its tool argument, the dashboard its field).

The hierarchy::

    Exception
    ├── JudgeError                      recorded on the scenario, never shown as an error
    └── PeEvalError                     a problem with the user's inputs or configuration
        ├── InputNotFoundError          a named file does not exist
        │   ├── MemoNotFoundError
        │   │   └── PairNotFoundError
        │   ├── SourceNotFoundError
        │   ├── ScenariosNotFoundError
        │   ├── RecordedResponsesNotFoundError
        │   ├── JudgeVerdictsNotFoundError
        │   └── SkillNotFoundError
        ├── MalformedJSONError          not valid JSON (line and column)
        │   ├── MalformedMemoError
        │   ├── MalformedSourceError
        │   ├── MalformedScenariosError
        │   ├── MalformedRecordedError
        │   └── MalformedJudgeVerdictsError
        ├── SchemaMismatchError         valid JSON of the wrong shape (names the field)
        │   ├── InputLimitError         over a size or count limit (pe_eval_core.limits)
        │   ├── MemoSchemaError
        │   ├── SourceSchemaError
        │   ├── ScenarioSchemaError
        │   │   └── DuplicateScenarioError
        │   ├── RecordedSchemaError
        │   └── JudgeVerdictsSchemaError
        ├── LimitConfigError            a limit's environment variable is not usable
        ├── InvalidNameError            a name that could walk a path
        ├── PathOutsideRootError        a path outside the allowed folders
        ├── EmptyMemoError
        ├── DocumentError               a PE document (exit pack, DDQ, red flags) to grade
        │   ├── DocumentNotFoundError
        │   ├── MalformedDocumentError
        │   ├── DocumentSchemaError
        │   ├── DocumentSourceError     the source a document names is missing or unusable
        │   └── DocumentKindError       a file that is no gradable document kind
        ├── ThresholdSpecError          a threshold spec that cannot be read
        ├── UsageError                  memo options that do not fit together
        ├── OutputWriteError            the scorecard could not be written
        ├── EmptyScenariosError
        │   └── ScenariosNotExportedError   a mimic.json with no test.scenarios
        ├── LiveRunNotConfirmedError
        ├── TargetConfigError
        ├── AllowedRootError            the MCP server's allowed folders
        ├── AccessDeniedError           a dashboard action kept for its operator
        ├── McpConfigError              the agent's MCP servers (.mcp.json)
        │   ├── McpConfigNotTrustedError    a found .mcp.json would start a command
        │   └── McpServerUnreachableError
        ├── KindMismatchError           comparing a memo run with a scenario run
        ├── UnlikeRunsError             comparing scenario runs made with different setups
        ├── PriceFileError              the $PE_EVAL_PRICES price file
        ├── GateConfigError             the gate's thresholds or inputs
        └── HistoryError                the run-history database
            ├── HistorySchemaTooNewError
            ├── HistoryLockedError      another process held the lock too long
            └── RunNotFoundError
                └── RunReferenceError   a reference that is no id, latest~N or uid
"""

from __future__ import annotations

INPUT_LABELS: dict[str, str] = {
    "memo": "memo file",
    "source": "source file (OpportunityMap)",
    "data_dir": "data folder",
    "portco": "portco name",
    "audience": "audience",
    "out_dir": "scorecard folder",
    "fail_under": "minimum memo scores",
    "max_hallucination": "maximum hallucination rate",
    "memo_thresholds": "memo thresholds",
    "max_misattributed": "maximum mis-attributed figures",
    "min_pass_rate": "minimum pass rate",
    "scenarios": "scenarios file",
    "responses": "recorded responses file",
    "judge_verdicts": "recorded judge verdicts file",
    "scenario_run": "scenario run",
    "baseline": "baseline run",
    "target": "target agent",
    "skill": "skill file",
    "agent_url": "agent URL",
    "concurrency": "concurrency",
    "repeat": "repeat count",
    "confirm": "live-run confirmation",
    "out": "report folder",
    "db": "history database",
    "run": "run reference",
    "kind": "run kind",
    "allowed_roots": "allowed folders",
    "mcp_config": "MCP server configuration (.mcp.json)",
    "mcp_trust": "confirmation of the working folder's MCP configuration (its sha256)",
    "mcp_env": "variables the MCP configuration may read",
    "agent_header": "agent request header",
    "allow_tool": "tools allowed by name",
    "agent_bounds": "agent limits (turns, tool calls, tokens)",
    "document": "document file",
    "document_kind": "document kind",
    "as_of": "analysis date",
    "allow_unlike": "comparison of runs made with different setups",
    "timeout": "call timeout",
    "max_cost": "cost limit",
}
"""The inputs an error can name, by key, with the words a surface without its own may use."""


class PeEvalError(Exception):
    """Base class: a problem with the user's inputs or configuration, never a bug.

    ``diagnosis`` says what is wrong, ``fix`` says what to do about it, ``input`` (a key of
    :data:`INPUT_LABELS`, or None) names the input at fault. ``str(err)`` joins the specific
    message with diagnosis and fix, so any surface can print it as is.
    """

    diagnosis: str = "pe-eval could not complete the request"
    fix: str = "Check the inputs named in the message."
    input: str | None = None

    def __init__(
        self,
        message: str,
        *,
        diagnosis: str | None = None,
        fix: str | None = None,
        input: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        if diagnosis is not None:
            self.diagnosis = diagnosis
        if fix is not None:
            self.fix = fix
        if input is not None:
            self.input = input

    def __str__(self) -> str:
        return f"{self.message} ({self.diagnosis}). Fix: {self.fix}"

    def as_dict(self) -> dict[str, str | None]:
        """The error as data, for JSON output and MCP tool errors."""
        return {
            "error": type(self).__name__,
            "message": self.message,
            "diagnosis": self.diagnosis,
            "fix": self.fix,
            "input": self.input,
        }


def input_of(err: PeEvalError) -> str | None:
    """The key of the input an error is about (see :data:`INPUT_LABELS`), for a surface to
    name in its own words: the CLI's option, the MCP tool's argument, the dashboard's field.

    >>> input_of(ScenariosNotFoundError("x.json does not exist"))
    'scenarios'
    >>> input_of(PeEvalError("boom")) is None
    True
    """
    return err.input


def input_label(err: PeEvalError) -> str | None:
    """The plain-words name of the input at fault (``"scenarios file"``), or None.

    >>> input_label(SkillNotFoundError("SKILL.md does not exist"))
    'skill file'
    """
    return INPUT_LABELS.get(err.input) if err.input else None


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
        self.detail = detail


class InputLimitError(SchemaMismatchError):
    """An input over one of the limits in :mod:`pe_eval_core.limits` (file size, figures,
    findings, prose length, scenarios, response length); names the field and the limit."""

    diagnosis = "The input is larger than pe-eval's limit for it"
    fix = "Split the input, or raise the limit (see pe_eval_core.limits)."


class LimitConfigError(PeEvalError):
    """A limit's environment variable (``PE_EVAL_MAX_*``) is not a positive whole number."""

    diagnosis = "A size or count limit is set to something that is not a positive number"
    fix = "Set the variable to a positive whole number, or unset it for the default."


class InvalidNameError(PeEvalError):
    """A portco/audience name that could escape the data folder or is not a plain name."""

    diagnosis = "Names used to build file paths may contain only letters, digits, '_', '.', '-'"
    fix = "Use the portco id exactly as in the data folder (listing the memo pairs shows them)."
    input = "portco"


class PathOutsideRootError(PeEvalError):
    """A path that resolves outside the folders pe-eval is allowed to read."""

    diagnosis = "The path resolves outside the allowed folders"
    fix = "Pass a path inside the allowed roots, or widen the allowed roots explicitly."


class UploadArchiveError(PeEvalError):
    """An uploaded zip that is not one, or holds an entry that could leave its folder (``..``,
    an absolute name, a symlink), an encrypted entry or two files of one name."""

    diagnosis = "The uploaded zip cannot be unpacked safely"
    fix = (
        "Zip the folder itself (its memo and source files, no links), without a password, "
        "and upload that."
    )
    input = "memo"


# --- memo grader (the seed's failure table) -----------------------------------------------


class MemoNotFoundError(InputNotFoundError):
    diagnosis = "Memo JSON not found: the path passed doesn't exist"
    fix = "Run explain_decision first to produce the memo sidecar."
    input = "memo"


class SourceNotFoundError(InputNotFoundError):
    diagnosis = "Source JSON not found: the DX OpportunityMap is missing"
    fix = "Run diagnose_decisions to produce the source."
    input = "source"


class MalformedMemoError(MalformedJSONError):
    diagnosis = "Memo JSON is malformed: the sidecar got corrupted"
    fix = "Regenerate with explain_decision."
    input = "memo"


class MalformedSourceError(MalformedJSONError):
    diagnosis = "Source JSON is malformed: the OpportunityMap got corrupted"
    fix = "Regenerate with diagnose_decisions."
    input = "source"


class MemoSchemaError(SchemaMismatchError):
    diagnosis = "Memo JSON does not match the explain_* sidecar schema"
    fix = "Regenerate with explain_decision."
    input = "memo"


class SourceSchemaError(SchemaMismatchError):
    diagnosis = "Source JSON does not match the OpportunityMap schema"
    fix = "Regenerate with diagnose_decisions."
    input = "source"


class EmptyMemoError(PeEvalError):
    diagnosis = "zero opportunities_explained: the memo is empty"
    fix = "Memo generator failed silently — re-run upstream tool."
    input = "memo"


# --- memo grader: usage, thresholds, outputs -----------------------------------------------


class ThresholdSpecError(PeEvalError):
    """A threshold (minimum scores, maximum hallucination, pass rates) that cannot be read."""

    diagnosis = "The threshold specification is not valid"
    fix = (
        "Use NAME=VALUE pairs with values in 0..1 or 0%..100%, e.g. citation=1.0,coverage=1.0 "
        "for memo scores or smoke=1.0,functional=0.9 for pass rates; the hallucination rate "
        "is a maximum (e.g. 0.0)."
    )


class UsageError(PeEvalError):
    """Options that do not go together."""

    diagnosis = "The memo command's options do not fit together"
    fix = (
        "Name a portco (e.g. MortgageCo), or give a memo file (and its source file if the "
        "memo names no source_opportunity_map), or list the memo pairs."
    )


class OutputWriteError(PeEvalError):
    """The scorecard files could not be written (permissions, full disk, missing folder)."""

    diagnosis = "The scorecard could not be written next to the memo"
    fix = "Make the folder writable, or write the scorecard to another folder."
    input = "out_dir"


class PairNotFoundError(MemoNotFoundError):
    """A named portco/audience with no memo in a data folder that does hold other memos: a
    typo or the wrong audience, not a missing explain_decision run."""

    diagnosis = "No memo for that portco and audience in the data folder"
    fix = "Check the spelling against the memo pairs in the data folder, or pick the audience."
    input = "portco"


# --- scenario evaluation -------------------------------------------------------------------


class ScenariosNotFoundError(InputNotFoundError):
    diagnosis = "The scenarios file doesn't exist"
    fix = "Name an existing scenarios file, or run `mimic test --export mimic` to create it."
    input = "scenarios"


class MalformedScenariosError(MalformedJSONError):
    diagnosis = "The scenarios file is not valid JSON"
    fix = "Re-export it with `mimic test --export mimic`, or fix the JSON at the position shown."
    input = "scenarios"


class ScenarioSchemaError(SchemaMismatchError):
    """One scenario (or the file's top level) does not have the Mimic scenario shape."""

    diagnosis = "A scenario does not match Mimic's scenario schema"
    fix = "Fix the named field of that scenario, or re-export the file with Mimic."
    input = "scenarios"

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
    input = "scenarios"


class ScenariosNotExportedError(EmptyScenariosError):
    diagnosis = "The file is a Mimic config (mimic.json) that lists no scenarios"
    fix = (
        "Export the scenarios Mimic generates with `mimic test --export mimic` and load "
        "`.mimic/exports/mimic-scenarios.json`, or list them under test.scenarios."
    )
    input = "scenarios"


class RecordedResponsesNotFoundError(InputNotFoundError):
    diagnosis = "The recorded responses file doesn't exist"
    fix = "Name a recorded responses file a previous run saved, or run a live target first."
    input = "responses"


class MalformedRecordedError(MalformedJSONError):
    diagnosis = "The recorded responses file is not valid JSON or JSON Lines"
    fix = "Use the file a previous pe-eval run saved, or fix the JSON at the position shown."
    input = "responses"


class RecordedSchemaError(SchemaMismatchError):
    diagnosis = "The recorded responses file does not have the {name, response} shape"
    fix = "Each entry needs `name` and `response` (or `error`); optional `latency_ms`."
    input = "responses"


class JudgeVerdictsNotFoundError(InputNotFoundError):
    diagnosis = "The recorded judge verdicts file doesn't exist"
    fix = (
        "Name an existing recorded judge verdicts file, run without the judge, or set "
        "ANTHROPIC_API_KEY for a live judge."
    )
    input = "judge_verdicts"


class MalformedJudgeVerdictsError(MalformedJSONError):
    diagnosis = "The recorded judge verdicts file is not valid JSON"
    fix = "Fix the JSON at the position shown, or regenerate the verdicts."
    input = "judge_verdicts"


class JudgeVerdictsSchemaError(SchemaMismatchError):
    diagnosis = "The recorded judge verdicts file does not have the expected shape"
    fix = (
        'Use {"label", "model", "prompt_version", '
        '"verdicts": [{scenario, expected, verdict, evidence}]}.'
    )
    input = "judge_verdicts"


class LiveRunNotConfirmedError(PeEvalError):
    diagnosis = "More than 20 scenarios against a live (paid) target need explicit confirmation"
    fix = "Confirm the live run, or run fewer scenarios."
    input = "confirm"


class TargetConfigError(PeEvalError):
    diagnosis = "The target agent is not configured"
    fix = (
        "Check the target agent and what it needs: a skill file and ANTHROPIC_API_KEY for "
        "the anthropic target, the agent URL for the http target."
    )
    input = "target"


class TargetUnreachableError(PeEvalError):
    """The target could not be reached or refused authentication: the run says nothing about
    the agent's quality (exit 2, earlier reports kept)."""

    diagnosis = "The agent under test could not be reached, or it refused our credentials"
    fix = (
        "Check that the agent is running at that address and that its API key or token is "
        "valid, then run again; earlier reports were left as they were."
    )
    input = "target"


class SkillNotFoundError(InputNotFoundError):
    diagnosis = "The target skill file doesn't exist"
    fix = "Name an existing skill file (default skills/revenue-recovery/SKILL.md)."
    input = "skill"


class JudgeError(Exception):
    """The judge could not give a verdict. Recorded on the scenario as `judge error`, never raised
    to the user: a scenario whose judgement failed must not pass (or crash the run)."""


# --- MCP server ----------------------------------------------------------------------------


class AllowedRootError(PeEvalError):
    diagnosis = "An allowed root for the MCP server is not an existing folder"
    fix = "Allow only existing folders (check PE_EVAL_ALLOWED_ROOTS too)."
    input = "allowed_roots"


# --- run history, comparison and the gate --------------------------------------------------


class AccessDeniedError(PeEvalError):
    """The dashboard keeps this action for its operator (``pe_eval_core.access``)."""

    diagnosis = "This dashboard keeps that action for its operator"
    fix = "Ask the operator, or log in with the operator token."


class PriceFileError(PeEvalError):
    diagnosis = "The price file cannot be read as prices in USD per million tokens"
    fix = (
        'Fix the file the message names ({"models": {"<model id>": {"input": 2, "output": '
        "10}}}), or unset PE_EVAL_PRICES to use the built-in prices."
    )


class UnlikeRunsError(PeEvalError):
    """Scenario runs made with different setups (their manifests differ), not compared."""

    diagnosis = (
        "The runs were made with different setups, so their differences are not the effect "
        "of one change"
    )
    fix = (
        "Compare runs made with the same setup (the history lists runs by skill and model), "
        "or ask for the comparison anyway: it then says first what differs."
    )
    input = "allow_unlike"


class KindMismatchError(PeEvalError):
    diagnosis = (
        "Only runs of the same kind can be compared (memo with memo, scenarios with scenarios)"
    )
    fix = (
        "Pick two runs of the same kind (e.g. the latest two scenario runs); listing the runs "
        "of one kind shows them."
    )
    input = "kind"


class GateConfigError(PeEvalError):
    diagnosis = "The gate's thresholds or inputs are not usable"
    fix = (
        "Give memo thresholds with a data folder and/or pass-rate thresholds (or a baseline) "
        "with a scenario run; thresholds are NAME=VALUE pairs with values in 0..1, e.g. "
        "citation=1.0,coverage=1.0 or smoke=1.0,functional=0.9."
    )


class HistoryError(PeEvalError):
    """The history database could not be opened, read or written."""

    diagnosis = "The run-history database could not be used"
    fix = (
        "Check the history database path (or PE_EVAL_HOME) points to a writable folder, or "
        "delete the file."
    )
    input = "db"


class HistorySchemaTooNewError(HistoryError):
    diagnosis = (
        "The history database was written by a newer pe-eval (its schema is ahead of this one)"
    )
    fix = "Upgrade pe-eval, or use a different history database file (or PE_EVAL_HOME)."


class HistoryLockedError(HistoryError):
    diagnosis = "The history database stayed locked by another process for too long"
    fix = (
        "Wait for the other pe-eval process named in the message to finish and retry, or set "
        "PE_EVAL_LOCK_TIMEOUT (seconds) higher; the file is not damaged, do not delete it."
    )


class RunNotFoundError(HistoryError):
    diagnosis = "No run in the history matches that reference"
    fix = "List the recorded runs and use an id from the first column."
    input = "run"


class RunReferenceError(RunNotFoundError):
    diagnosis = "That is not a run reference"
    fix = (
        "Use a run id (a whole number from 1, as listed), 'latest', 'latest~N' (N runs "
        "before the latest) or at least 6 characters of a run's uid."
    )


# --- agent tools (MCP servers for the agent under test, its tool-use loop) -----------------


class McpConfigError(PeEvalError):
    """The MCP server configuration (``.mcp.json``, ``--mcp-server NAME=URL``) is not usable."""

    diagnosis = "The MCP server configuration for the agent under test is not usable"
    fix = (
        'Give .mcp.json as {"mcpServers": {"<name>": {"type": "http", "url": "http://..."}}} '
        '(or {"command": ..., "args": [...], "env": {...}} for stdio), or name a server as '
        "NAME=URL."
    )
    input = "mcp_config"


class McpConfigNotTrustedError(McpConfigError):
    """A ``.mcp.json`` found in the working folder would start a command nobody confirmed."""

    diagnosis = (
        "A configuration file found in the working folder would start a program, and you "
        "neither passed it nor confirmed it"
    )
    fix = "Pass the configuration file explicitly, or confirm its content by its sha256."
    input = "mcp_trust"


class McpServerUnreachableError(McpConfigError):
    """An MCP server could not be connected to (or listed) before any scenario ran."""

    diagnosis = "An MCP server for the agent under test could not be reached"
    fix = (
        "Start the server (for Mimic: `python3 scripts/mimic_stack.py start`), or correct its "
        "URL in .mcp.json or the NAME=URL server override."
    )

    def __init__(self, name: str, where: str, reason: str, **kwargs: str):
        super().__init__(f"MCP server {name!r} at {where} is unreachable: {reason}", **kwargs)
        self.name = name
        self.where = where
        self.reason = reason


class AgentBoundsError(PeEvalError):
    """A bound of the agent's tool-use loop (turns, tool calls, timeout, sizes) is invalid."""

    diagnosis = "A bound of the agent's tool-use loop is not a positive number"
    fix = "Use positive whole numbers for the turn, tool-call and token limits."
    input = "agent_bounds"


# --- other PE documents (exit proof packs, DDQ responses, red flags) -------------------------


class DocumentError(PeEvalError):
    """A PE document pe-eval was asked to grade could not be graded."""

    diagnosis = "The document could not be graded"
    fix = "Check the document named in the message."
    input = "document"


class DocumentNotFoundError(InputNotFoundError, DocumentError):
    diagnosis = "Document JSON not found: the path passed doesn't exist"
    fix = "Check the path, or list the documents in the folder."
    input = "document"


class MalformedDocumentError(MalformedJSONError, DocumentError):
    diagnosis = "Document JSON is malformed: the file got corrupted"
    fix = "Regenerate the document with the tool that produced it."
    input = "document"


class DocumentSchemaError(SchemaMismatchError, DocumentError):
    diagnosis = "Document JSON does not match its kind's schema"
    fix = "Regenerate the document with the tool that produced it, or fix the named field."
    input = "document"


class DocumentSourceError(InputNotFoundError, DocumentError):
    diagnosis = "The source the document was drawn from is missing or unusable"
    fix = (
        "Put the source file (OpportunityMap, knowledge-base folder or filing) where the "
        "document names it, beside the document, or name it explicitly."
    )
    input = "source"


class DocumentKindError(DocumentError):
    diagnosis = "The file is not a document kind pe-eval grades"
    fix = (
        "Pass an explain_*, exit_proof_pack_*, ddq_response_* or cim_redflags_* JSON file, "
        "or name its kind."
    )
    input = "document_kind"
