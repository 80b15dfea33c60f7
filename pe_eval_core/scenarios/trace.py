"""What the agent under test did: its tool calls, turns, tokens, cost and why it stopped.

One :class:`ToolTrace` per scenario result (DESIGN.md section 2). Plain pydantic data that
round-trips through JSON, so a saved response carries its trace and a recorded target can
replay it. The HTTP agent's ``toolCalls`` map onto the same shape without results
(:func:`trace_from_tool_calls`).
"""

from __future__ import annotations

import json
import re
from itertools import pairwise
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

from pe_eval_core.redact import redact, redact_data

EXCERPT_CHARS = 20_000
"""Default bound on a call's result kept in the trace: as much as the agent loop sends the
model by default (``AgentBounds.result_cap_chars``), so ``no_hallucination`` can ground a
figure anywhere in what the agent read; longer results are kept cut, and then it defers."""

StopStatus = Literal[
    "end_turn",  # the model finished
    "max_turns",  # bound: model turns
    "max_tool_calls",  # bound: tool calls in the scenario
    "max_tokens",  # the reply was cut at max_tokens: "response truncated"
    "api_error",  # the Messages API failed (after the SDK's retries)
    "model_stop",  # another stop_reason (refusal, stop_sequence, ...): see detail
    "external",  # an HTTP agent ran its own loop; only its toolCalls are known
]
ERROR_STOPS: frozenset[str] = frozenset({"max_turns", "max_tool_calls", "max_tokens", "api_error"})
"""Stops that make the scenario an error: its answer is missing or incomplete."""


def bounded(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how much was dropped.

    >>> bounded("abcdef", 3)
    'abc… [3 more chars]'
    """
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more chars]"


class TokenUsage(BaseModel):
    """Tokens billed, summed over every Messages API call of a scenario (or a run)."""

    model_config = ConfigDict(frozen=True)

    input: int = 0
    """Uncached input tokens."""
    output: int = 0
    cache_read: int = 0
    """``cache_read_input_tokens``: prefix tokens served from the prompt cache."""
    cache_write: int = 0
    """``cache_creation_input_tokens``: prefix tokens written to the prompt cache."""

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
        )

    @classmethod
    def from_api(cls, usage: Any) -> TokenUsage:
        """From a Messages API ``usage`` object (missing or null fields count 0)."""

        def n(field: str) -> int:
            value = getattr(usage, field, None)
            return value if isinstance(value, int) else 0

        return cls(
            input=n("input_tokens"),
            output=n("output_tokens"),
            cache_read=n("cache_read_input_tokens"),
            cache_write=n("cache_creation_input_tokens"),
        )


class TraceCall(BaseModel):
    """One tool call the agent made (or tried to make)."""

    model_config = ConfigDict(frozen=True)

    server: str | None = None
    """The MCP server's configured name; None when the agent did not say (HTTP toolCalls)."""
    tool: str
    """The tool's own name on its server (not the prefixed API name)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    result_excerpt: str | None = None
    """The start of what came back, bounded (None when unknown)."""
    is_error: bool = False
    """The tool failed, timed out or was refused."""
    latency_ms: float | None = None
    turn: int | None = None
    """The model turn (1-based) whose ``tool_use`` asked for it."""
    refused: bool = False
    """The tool policy refused it; the tool never ran."""
    write_attempt: bool = False
    """Refused because the tool is not known to read (not on the read allow-list, or its
    server annotates it as a write): it fails a read-only scenario that does not expect it."""
    allowed_by_name: bool = False
    """The operator (``--allow-tool``) or the scenario (``metadata.allow_tools``) allowed this
    tool by exact name: it ran on purpose, so even a write does not fail the scenario."""
    truncated: bool = False
    """The result sent back to the model was cut at the size cap."""
    timed_out: bool = False

    # The redaction choke point for traces (tool results and errors may echo a bearer token
    # or a configured header): every trace, live or loaded, is scrubbed once, here.
    _redact_text = field_validator("result_excerpt")(redact)
    _redact_arguments = field_validator("arguments")(redact_data)


class ToolTrace(BaseModel):
    """Everything the agent did in one scenario."""

    model_config = ConfigDict(frozen=True)

    calls: list[TraceCall] = Field(default_factory=list)
    turns: int = 0
    """Messages API calls made (model turns)."""
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: float | None = None
    """At list price; None when the model is not in the price table (never guessed)."""
    model: str | None = None
    servers: list[str] = Field(default_factory=list)
    """The MCP servers the agent had."""
    stop: StopStatus = "end_turn"
    stop_detail: str | None = None
    """Words for a bound or error stop, e.g. ``response truncated (max_tokens 2048)``."""

    _redact_detail = field_validator("stop_detail")(redact)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def write_attempts(self) -> int:
        """Refused write calls: a write attempt fails the scenario unless writes are allowed."""
        return sum(1 for c in self.calls if c.write_attempt)

    @property
    def error(self) -> str | None:
        """The scenario error this stop means, or None."""
        if self.stop in ERROR_STOPS:
            return self.stop_detail or self.stop
        return None

    def tool_names(self) -> list[str]:
        """``server/tool`` per call, in order (for CSV and compact report lines)."""
        return [f"{c.server}/{c.tool}" if c.server else c.tool for c in self.calls]

    def compact(self, limit: int = 6) -> str:
        """One line for a failed scenario in the markdown report.

        >>> ToolTrace(calls=[TraceCall(server="s", tool="a"), TraceCall(tool="b", is_error=True),
        ...                  TraceCall(server="s", tool="create_x", refused=True,
        ...                            write_attempt=True, is_error=True)], turns=3).compact()
        '3 turns, 3 tool calls: s/a, b (error), s/create_x (refused write); 1 write attempt'
        """
        shown = []
        for call, name in zip(self.calls[:limit], self.tool_names(), strict=False):
            mark = " (refused write)" if call.write_attempt else " (error)" if call.is_error else ""
            shown.append(name + mark)
        more = f", +{len(self.calls) - limit} more" if len(self.calls) > limit else ""
        line = f"{self.turns} turns, {len(self.calls)} tool calls"
        if shown:
            line += ": " + ", ".join(shown) + more
        if self.write_attempts:
            s = "" if self.write_attempts == 1 else "s"
            line += f"; {self.write_attempts} write attempt{s}"
        if self.error:
            line += f"; stopped: {self.error}"
        return line


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return {"_raw": value}
        return parsed if isinstance(parsed, dict) else {"_raw": parsed}
    return {} if value is None else {"_raw": value}


def trace_from_tool_calls(
    tool_calls: list[Any], *, excerpt_chars: int = EXCERPT_CHARS
) -> ToolTrace:
    """The HTTP agent's ``toolCalls`` (``[{"name", "arguments"}, ...]``) as a trace.

    Arguments given as a JSON string are parsed; optional ``server``, ``result``/``output``,
    ``isError``/``is_error`` and ``latencyMs``/``latency_ms`` keys are kept when present.
    An entry without a name is kept as tool ``"?"`` rather than dropped.

    >>> t = trace_from_tool_calls([{"name": "list_invoices", "arguments": '{"customer": "c1"}'},
    ...                            "get_customers"])
    >>> [(c.tool, c.arguments) for c in t.calls], t.stop
    ([('list_invoices', {'customer': 'c1'}), ('get_customers', {})], 'external')
    """
    calls = []
    for item in tool_calls:
        if isinstance(item, str):
            calls.append(TraceCall(tool=item))
            continue
        if not isinstance(item, dict):
            calls.append(TraceCall(tool="?", arguments={"_raw": item}))
            continue
        result = item.get("result", item.get("output"))
        if result is not None and not isinstance(result, str):
            result = json.dumps(result, ensure_ascii=False, default=str)
        latency = item.get("latencyMs", item.get("latency_ms"))
        server = item.get("server")
        calls.append(
            TraceCall(
                server=server if isinstance(server, str) else None,
                tool=str(item.get("name") or item.get("tool") or "?"),
                arguments=_arguments(item.get("arguments", item.get("input"))),
                result_excerpt=None if result is None else bounded(result, excerpt_chars),
                is_error=bool(item.get("isError", item.get("is_error", False))),
                latency_ms=float(latency) if isinstance(latency, int | float) else None,
            )
        )
    return ToolTrace(calls=calls, stop="external")


# --- what a tool call is: a read or a write --------------------------------------------------
#
# The one write rule for calls pe-eval did not decide itself (an HTTP agent's reported
# ``toolCalls``, a run with ``--allow-writes``, a trace's calls counted by a behaviour check).
# It never *allows* anything: the tool policy (``agent.tool_policy``) runs a tool only when it
# is on the read allow-list or allowed by exact name, whatever this rule says.

_VERBS = """
    add apply approve archive assign attach cancel capture confirm create deactivate delete
    deploy destroy detach disable drop edit enable erase exec execute finalize insert invite
    kill modify move mutate pay post publish purge put redeem refund reject remove rename
    replace reset restore revoke send set submit suspend terminate truncate update upload
    upsert void wipe write
"""
WRITE_VERBS = frozenset(_VERBS.split())
"""Words that make a tool name say it acts (``create``, ``refund``, ``post``, ...)."""

READ_VERBS = frozenset(
    [
        "check",
        "count",
        "describe",
        "fetch",
        "find",
        "get",
        "inspect",
        "list",
        "lookup",
        "query",
        "read",
        "retrieve",
        "search",
        "show",
        "view",
    ]
)
"""Words that make a tool name say it reads, when the name starts with one (``get_refund``
reads a refund: a write verb after a read verb is a noun unless joined by and/then/or)."""

_JOINS = frozenset({"and", "then", "or"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def name_words(tool: str) -> list[str]:
    """The lower-case words of a tool name, split on ``_ - . /`` and camelCase.

    >>> name_words("createRefund"), name_words("slack_post-message"), name_words("getHTTPLog")
    (['create', 'refund'], ['slack', 'post', 'message'], ['get', 'http', 'log'])
    """
    return [w.lower() for w in _WORD.findall(tool)]


def write_verb(name: str) -> str | None:
    """The first write verb among the words of ``name``, wherever it stands, or None (for
    narrowing only: a database table whose name holds one is no generated read).

    >>> write_verb("and_delete_customer"), write_verb("refund"), write_verb("invoices")
    ('delete', 'refund', None)
    """
    return next((w for w in name_words(name) if w in WRITE_VERBS), None)


def acting_verb(tool: str) -> str | None:
    """The write verb that makes ``tool`` act, or None: its first word, or any later word
    unless the name starts with a read verb (then only a verb joined by and/then/or).

    >>> [acting_verb(t) for t in ("create_refund", "createRefund", "refund_payment",
    ...  "slack_post_message", "get_and_delete_customer", "customer_delete")]
    ['create', 'create', 'refund', 'post', 'delete', 'delete']
    >>> [acting_verb(t) for t in ("get_refund", "list_post_comments", "get_invoices", "x")]
    [None, None, None, None]
    """
    words = name_words(tool)
    if not words:
        return None
    if words[0] in WRITE_VERBS:
        return words[0]
    reads = words[0] in READ_VERBS
    for before, word in pairwise(words):
        if word in WRITE_VERBS and (not reads or before in _JOINS):
            return word
    return None


def _hint(annotations: Any, field: str, alias: str) -> bool | None:
    if annotations is None:
        return None
    if isinstance(annotations, dict):
        value = annotations.get(alias, annotations.get(field))
    else:
        value = getattr(annotations, field, None)
    return value if isinstance(value, bool) else None


def hint_says_write(annotations: Any) -> str | None:
    """Why the server's own annotations say the tool writes, or None (a hint only narrows).

    ``annotations`` is an ``mcp.types.ToolAnnotations`` or its JSON dict (camelCase).

    >>> hint_says_write({"readOnlyHint": False}), hint_says_write({"destructiveHint": True})
    ('annotated readOnlyHint: false', 'annotated destructiveHint: true')
    >>> hint_says_write({"readOnlyHint": True}) is None
    True
    """
    if _hint(annotations, "read_only_hint", "readOnlyHint") is False:
        return "annotated readOnlyHint: false"
    if _hint(annotations, "destructive_hint", "destructiveHint") is True:
        return "annotated destructiveHint: true"
    return None


def write_reason(tool: str, annotations: Any = None) -> str | None:
    """Why ``tool`` counts as a write, or None for a read: its name acts
    (:func:`acting_verb`) or its annotations say so (:func:`hint_says_write`).

    >>> write_reason("cancel_subscription"), write_reason("get_invoices")
    ("name says it acts ('cancel')", None)
    >>> write_reason("archive", {"readOnlyHint": False})
    "name says it acts ('archive')"
    >>> write_reason("x", {"destructiveHint": True})
    'annotated destructiveHint: true'
    """
    verb = acting_verb(tool)
    if verb is not None:
        return f"name says it acts ({verb!r})"
    return hint_says_write(annotations)


def executed_write(call: TraceCall) -> bool:
    """Whether ``call`` is a write tool that ran (not refused), by its bare tool name (the
    tool of ``mcp__server__tool`` too): a change that stays on the server.

    >>> executed_write(TraceCall(tool="mcp__stripe__create_refund")), executed_write(
    ...     TraceCall(tool="create_refund", refused=True, write_attempt=True))
    (True, False)
    """
    from pe_eval_core.scenarios.tool_names import split_tool_name

    return (
        not call.refused
        and not call.write_attempt
        and write_reason(split_tool_name(call.tool)[1]) is not None
    )
