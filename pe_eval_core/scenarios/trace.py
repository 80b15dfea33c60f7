"""What the agent under test did: its tool calls, turns, tokens, cost and why it stopped.

One :class:`ToolTrace` per scenario result (DESIGN.md section 2). Plain pydantic data that
round-trips through JSON, so a saved response carries its trace and a recorded target can
replay it. The HTTP agent's ``toolCalls`` map onto the same shape without results
(:func:`trace_from_tool_calls`).
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

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
    """Refused because the tool writes (read-only eval)."""
    truncated: bool = False
    """The result sent back to the model was cut at the size cap."""
    timed_out: bool = False


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
        except json.JSONDecodeError:
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

WRITE_PATTERNS: tuple[str, ...] = (
    "create_*",
    "update_*",
    "delete_*",
    "cancel_*",
    "confirm_*",
    "capture_*",
    "finalize_*",
    "send_*",
    "post_*",
)
"""Tool names that say they write (the issue's list)."""


def _hint(annotations: Any, field: str, alias: str) -> bool | None:
    if annotations is None:
        return None
    if isinstance(annotations, dict):
        value = annotations.get(alias, annotations.get(field))
    else:
        value = getattr(annotations, field, None)
    return value if isinstance(value, bool) else None


def write_reason(tool: str, annotations: Any = None) -> str | None:
    """Why ``tool`` counts as a write, or None for a read.

    ``annotations`` is an ``mcp.types.ToolAnnotations`` or its JSON dict (camelCase).

    >>> write_reason("cancel_subscription"), write_reason("get_invoices")
    ("name matches 'cancel_*'", None)
    >>> write_reason("archive", {"readOnlyHint": False})
    'annotated readOnlyHint: false'
    >>> write_reason("purge", {"destructiveHint": True})
    'annotated destructiveHint: true'
    """
    for pattern in WRITE_PATTERNS:
        if fnmatchcase(tool, pattern):
            return f"name matches {pattern!r}"
    if _hint(annotations, "read_only_hint", "readOnlyHint") is False:
        return "annotated readOnlyHint: false"
    if _hint(annotations, "destructive_hint", "destructiveHint") is True:
        return "annotated destructiveHint: true"
    return None


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
