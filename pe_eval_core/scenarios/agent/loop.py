"""The agent under test with its MCP tools: a toolbox of MCP sessions and a bounded tool-use loop.

:class:`McpToolbox` opens one official-``mcp``-SDK client session per configured server
(Streamable HTTP or stdio), lists each server's tools once, offers them to the Messages API
under server-prefixed names (``mimic-stripe__list_invoices``), and runs calls with a timeout,
a result-size cap and the read-only :class:`ToolPolicy`, recording each in the trace.

:func:`run_agent` is the loop: ``messages.create`` with the skill as a cached system prompt
and the tools (the last definition cached too, so the whole prefix is cached), every
``tool_use`` executed and answered with a ``tool_result`` (``is_error`` on failure), until
``end_turn`` or a bound. Each bound ends the scenario with its own status, never a hang.

Why a hand-written loop and not ``client.beta.messages.tool_runner`` (anthropic 2.15)? The
runner fits the happy path, but the eval needs what it hides: a status per bound (its
``max_iterations`` just stops iterating), a tool-call budget across turns, ``max_tokens``
recognised as a truncated answer, per-turn usage including cache tokens, and the plain
``/v1/messages`` endpoint (the runner is a beta surface with beta types). The loop is 60
lines; the MCP side uses the SDK directly rather than ``async_mcp_tool`` so that the policy,
the timeout, the cap and the trace sit in one place (:meth:`McpToolbox.call`).

Sessions are **pooled per run**, not opened per scenario: ``async with McpToolbox(...)``
around the whole run, scenarios (in parallel, as the runner does) share it. Why:
- the issue asks for each server's tools to be listed once per run, and 19 handshakes (and
  for stdio, 19 subprocesses) buy nothing;
- an MCP ``ClientSession`` multiplexes concurrent requests by JSON-RPC id, so sharing is safe;
  a per-server semaphore (``max_concurrent_calls``) keeps a burst from swamping a server;
- per-scenario sessions would not isolate scenarios anyway: Mimic keeps writes in the
  server's memory, not the session's (and writes are refused by default);
- the sessions' context managers must be entered and exited in one task (anyio), which is
  the run's task; scenario tasks only send requests.
A session that dies mid-run turns every later call on it into an error tool result (with
the reason) for the scenarios that use it; it is not reopened silently.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Iterable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pe_eval_core.errors import AgentBoundsError, McpServerUnreachableError
from pe_eval_core.limits import TOOL_CALLS, over_limit_text
from pe_eval_core.redact import redact
from pe_eval_core.scenarios.agent.mcp_config import McpConfig, ServerConfig
from pe_eval_core.scenarios.agent.sessions import check_servers as check_servers  # re-exported
from pe_eval_core.scenarios.agent.sessions import (
    close_quietly,
    list_all_tools,
    open_session,
    reason_of,
    servers_of,
)
from pe_eval_core.scenarios.agent.tool_policy import ToolPolicy
from pe_eval_core.scenarios.llm.pricing import call_cost_usd
from pe_eval_core.scenarios.llm.sampling import sampling
from pe_eval_core.scenarios.options import DEFAULTS
from pe_eval_core.scenarios.trace import (
    StopStatus,
    TokenUsage,
    ToolTrace,
    TraceCall,
    bounded,
)

EPHEMERAL = {"type": "ephemeral"}
TOOL_NAME_MAX = 64
_TOOL_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]")
SEPARATOR = "__"


def api_tool_name(server: str, tool: str, taken: Iterable[str] = ()) -> str:
    """``server__tool`` within the Messages API's tool-name rule ``^[A-Za-z0-9_-]{1,64}$``.

    Other characters become ``_``; a name too long, or already taken, is cut and given a short
    hash of the original so it stays unique and stable.

    >>> api_tool_name("mimic-stripe", "list_invoices")
    'mimic-stripe__list_invoices'
    >>> api_tool_name("my server", "get.rows")
    'my_server__get_rows'
    >>> len(api_tool_name("s" * 50, "t" * 50))
    64
    """
    name = _TOOL_NAME_BAD.sub("_", f"{server}{SEPARATOR}{tool}")
    taken = set(taken)
    if len(name) <= TOOL_NAME_MAX and name not in taken:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: TOOL_NAME_MAX - 9]}_{digest}"


@dataclass(frozen=True, slots=True)
class AgentBounds:
    """Every limit of one scenario's loop; each exceeded limit is a status, not a hang."""

    max_turns: int = DEFAULTS.max_turns
    """Messages API calls per scenario."""
    max_tool_calls: int | None = DEFAULTS.max_tool_calls
    """Tool calls per scenario (refused ones count); None: no limit."""
    tool_timeout_s: float = DEFAULTS.tool_timeout_s
    """Per tool call; a timed-out call is an error result the model sees."""
    result_cap_chars: int = 20_000
    """Longest tool result sent back to the model; the cut is stated to it."""
    max_tokens: int = DEFAULTS.max_tokens
    """Per model reply; a reply cut there is a scenario error ("response truncated")."""
    excerpt_chars: int | None = None
    """Result kept in the trace; None: as much as the model is sent (``result_cap_chars``),
    so ``no_hallucination`` checks the response against every figure the agent could read,
    and a re-score from the recorded trace decides the same way."""
    cache: bool = True
    """``cache_control`` on the system prompt and the last tool definition."""

    def __post_init__(self) -> None:
        for name in ("max_turns", "max_tokens", "result_cap_chars", "excerpt_chars"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise AgentBoundsError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.max_tool_calls is not None and self.max_tool_calls < 0:
            raise AgentBoundsError(f"max_tool_calls must be >= 0, not {self.max_tool_calls}")
        if self.tool_timeout_s <= 0:
            raise AgentBoundsError(f"tool_timeout_s must be positive, not {self.tool_timeout_s}")

    @property
    def kept_chars(self) -> int:
        """How much of each tool result the trace keeps."""
        return self.result_cap_chars if self.excerpt_chars is None else self.excerpt_chars


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One MCP tool as offered to the model."""

    server: str
    name: str
    """The tool's name on its server."""
    api_name: str
    """The prefixed name the model calls."""
    description: str
    input_schema: dict[str, Any]
    annotations: Any = None

    def definition(self) -> dict[str, Any]:
        """The Messages API tool definition."""
        return {
            "name": self.api_name,
            "description": f"[{self.server}] {self.description}".strip(),
            "input_schema": self.input_schema or {"type": "object", "properties": {}},
        }


class ToolOutcome(NamedTuple):
    """What one call gives the model (``content``, ``is_error``) and the trace (``call``)."""

    content: str
    is_error: bool
    call: TraceCall


def _result_text(result: Any) -> str:
    """An MCP ``CallToolResult`` as text: text blocks joined; else structured content as JSON."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            parts.append(getattr(resource, "text", None) or f"[resource {resource.uri} omitted]")
        else:
            parts.append(f"[{kind} content omitted]")
    if not parts and getattr(result, "structured_content", None) is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    return "\n".join(parts)


def cap_result(text: str, cap: int) -> tuple[str, bool]:
    """``text`` cut to ``cap`` characters with a note the model can act on.

    >>> text, cut = cap_result("abcdef", 4)
    >>> cut, text.splitlines()[1][:48]
    (True, '[truncated: the result was 6 characters; only th')
    """
    if len(text) <= cap:
        return text, False
    note = (
        f"\n[truncated: the result was {len(text)} characters; only the first {cap} are shown. "
        "Narrow the request (filters, limit, offset) to see the rest.]"
    )
    return text[:cap] + note, True


_SSE_TOO_BIG = re.compile(r"exceeded the \d+ byte limit")


def _failure_text(tool: str, exc: BaseException) -> str:
    """A failed call as the model and the trace see it; a result over the size limit says
    which limit and which variable (the SDK's event-size words do not)."""
    from pe_eval_core.limits import TOOL_RESULT_BYTES

    reason = reason_of(exc)
    if _SSE_TOO_BIG.search(reason) or TOOL_RESULT_BYTES.env in reason:
        return (
            f"Tool {tool!r} returned more than the {TOOL_RESULT_BYTES.what} limit of "
            f"{TOOL_RESULT_BYTES.value():,} bytes; it was not read further (raise it with "
            f"{TOOL_RESULT_BYTES.env}). Narrow the request (filters, limit, offset)."
        )
    return f"Tool {tool!r} failed: {reason}"


class McpToolbox:
    """The MCP servers' tools for one run (see the module docstring on pooling).

    ``async with McpToolbox(config, policy) as box`` connects to every server and lists its
    tools (an unreachable server raises :class:`McpServerUnreachableError` before anything
    runs); ``box.tool_definitions()`` is what the model is offered; ``await box.call(...)``
    runs one call. Enter and exit it in the same task.
    """

    def __init__(
        self,
        config: McpConfig | Sequence[ServerConfig],
        policy: ToolPolicy | None = None,
        *,
        connect_timeout_s: float = 10.0,
        max_concurrent_calls: int = 8,
    ):
        self.servers = servers_of(config)
        self.policy = policy or ToolPolicy()
        self.connect_timeout_s = connect_timeout_s
        self._max_concurrent = max_concurrent_calls
        self._stack: AsyncExitStack | None = None
        self._sessions: dict[str, Any] = {}
        self._limits: dict[str, asyncio.Semaphore] = {}
        self.tools: dict[str, ToolSpec] = {}
        """api_name -> spec, in server then listing order."""

    @property
    def server_names(self) -> list[str]:
        return [s.name for s in self.servers]

    async def _enter_server(self, server: ServerConfig) -> tuple[AsyncExitStack, Any, list[Any]]:
        """One server's open session and tool listing, on a stack of its own.

        A transport that fails (connection refused) cancels its task group, which reaches us
        as a cancellation; closing the server's stack turns that back into the real error.
        """
        own = AsyncExitStack()
        try:
            session = await open_session(own, server, self.connect_timeout_s)
            return own, session, await list_all_tools(session)
        except BaseException as first:
            try:
                await own.aclose()
            except Exception as second:
                raise McpServerUnreachableError(
                    server.name, server.where, reason_of(second)
                ) from None
            if isinstance(first, Exception):
                where, why = server.where, reason_of(first)
                raise McpServerUnreachableError(server.name, where, why) from None
            raise

    async def __aenter__(self) -> McpToolbox:
        self.tools.clear()  # re-entered for a second run: list afresh, same names
        stack = AsyncExitStack()
        try:
            for server in self.servers:
                own, session, listed = await self._enter_server(server)
                stack.push_async_exit(own)
                self._sessions[server.name] = session
                self._limits[server.name] = asyncio.Semaphore(self._max_concurrent)
                for tool in listed:
                    api = api_tool_name(server.name, tool.name, self.tools)
                    self.tools[api] = ToolSpec(
                        server=server.name,
                        name=tool.name,
                        api_name=api,
                        description=tool.description or "",
                        input_schema=dict(tool.input_schema or {}),
                        annotations=tool.annotations,
                    )
        except BaseException:
            self._sessions.clear()
            self.tools.clear()
            await close_quietly(stack)
            raise
        self._stack = stack
        return self

    async def __aexit__(self, *exc: object) -> None:
        stack, self._stack = self._stack, None
        self._sessions.clear()
        if stack is not None:
            await stack.aclose()

    def tool_definitions(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """The tools for ``messages.create``; with ``cache`` the last carries ``cache_control``
        (the API caches everything up to and including the marked block)."""
        defs = [spec.definition() for spec in self.tools.values()]
        if cache and defs:
            defs[-1] = {**defs[-1], "cache_control": EPHEMERAL}
        return defs

    def instruction(self) -> str:
        """The seed's line naming the agent's MCP servers, for the system prompt."""
        if not self.servers:
            return "You have no tools in this run."
        names = ", ".join(f"`{n}`" for n in self.server_names)
        return (
            f"You have access to MCP tools for {names} — fan out across them per the skill's "
            "instructions."
        )

    async def call(
        self,
        api_name: str,
        arguments: Any,
        *,
        turn: int,
        bounds: AgentBounds,
        allow: Iterable[str] = (),
    ) -> ToolOutcome:
        """Run one ``tool_use``; every failure (unknown tool, refusal, timeout, tool error,
        dead session) is an error result, never an exception. ``allow``: tool names the
        scenario allows by exact name, on top of the policy's."""
        args = arguments if isinstance(arguments, dict) else {"_raw": arguments}
        spec = self.tools.get(api_name)
        if spec is None:
            text = f"Unknown tool {api_name!r}. Available: {', '.join(self.tools) or 'none'}."
            call = TraceCall(tool=api_name, arguments=args, is_error=True, turn=turn)
            return ToolOutcome(text, True, call.model_copy(update={"result_excerpt": text}))
        decision = self.policy.decide(
            spec.server, spec.name, spec.annotations, spec.input_schema, allow=allow
        )
        if not decision.allowed:
            text = decision.refusal_text(spec.name)
            call = TraceCall(
                server=spec.server,
                tool=spec.name,
                arguments=args,
                result_excerpt=bounded(text, bounds.kept_chars),
                is_error=True,
                latency_ms=0.0,
                turn=turn,
                refused=True,
                write_attempt=decision.write_attempt,
            )
            return ToolOutcome(text, True, call)
        session = self._sessions.get(spec.server)
        started = time.perf_counter()
        timed_out = False
        if session is None:
            text, is_error = f"MCP server {spec.server!r} is not connected.", True
        else:
            try:
                async with self._limits[spec.server]:
                    result = await asyncio.wait_for(
                        session.call_tool(
                            spec.name, args, read_timeout_seconds=bounds.tool_timeout_s
                        ),
                        timeout=bounds.tool_timeout_s + 5.0,  # a net under the SDK's own
                    )
                text, is_error = _result_text(result), bool(result.is_error)
            except Exception as exc:
                is_error = True
                timed_out = isinstance(exc, TimeoutError) or "timed out" in str(exc)
                if timed_out:
                    text = (
                        f"Tool {spec.name!r} timed out after {bounds.tool_timeout_s:g}s "
                        "(the eval's per-call limit)."
                    )
                else:
                    text = _failure_text(spec.name, exc)
        latency_ms = round((time.perf_counter() - started) * 1000, 1)
        text = redact(text)  # a configured header or a bearer token echoed by the tool
        sent, truncated = cap_result(text, bounds.result_cap_chars)
        call = TraceCall(
            server=spec.server,
            tool=spec.name,
            arguments=args,
            result_excerpt=bounded(text, bounds.kept_chars),
            is_error=is_error,
            latency_ms=latency_ms,
            turn=turn,
            allowed_by_name=decision.by_name,
            truncated=truncated,
            timed_out=timed_out,
        )
        return ToolOutcome(sent, is_error, call)


class AgentResult(NamedTuple):
    """``(text, trace, stop)``: the final answer (None when there is none), the trace, and
    the stop status (also ``trace.stop``); ``trace.error`` is the scenario error, if any."""

    text: str | None
    trace: ToolTrace
    stop: StopStatus


def _assistant_content(content: Sequence[Any]) -> list[dict[str, Any]]:
    """A reply's content blocks as request params for the next turn."""
    out: list[dict[str, Any]] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append({"type": "text", "text": block.text})
        elif kind == "tool_use":
            out.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
        else:
            out.append(block.model_dump(mode="json", exclude_none=True))
    return out


def _tool_plan(uses: list[Any], bounds: AgentBounds, used: int) -> tuple[list[Any], str | None]:
    """The tool uses of one reply to run now, and why the loop stops after them (None: it
    goes on). A reply over the tool-calls-per-reply limit runs none of them (a flood is never
    run, traced or stored call by call); past the scenario's budget, the rest are not run."""
    flood = over_limit_text(TOOL_CALLS, len(uses), "the model's reply")
    if flood is not None:
        return [], flood
    budget = None if bounds.max_tool_calls is None else bounds.max_tool_calls - used
    run_now = uses if budget is None else uses[: max(budget, 0)]
    if len(run_now) < len(uses):
        return run_now, (
            f"the agent asked for more than max_tool_calls {bounds.max_tool_calls} tool calls"
        )
    return run_now, None


@dataclass
class _Loop:
    calls: list[TraceCall] = field(default_factory=list)
    tokens: TokenUsage = field(default_factory=TokenUsage)
    turns: int = 0
    model: str | None = None


async def run_agent(
    client: Any,
    model: str,
    system: str,
    user_input: str,
    toolbox: McpToolbox,
    bounds: AgentBounds | None = None,
    *,
    allow: Iterable[str] = (),
) -> AgentResult:
    """One scenario's tool-use loop on ``client`` (an ``AsyncAnthropic``); never raises for
    API or tool failures: they come back as the stop status and ``trace.error``. ``allow``:
    the scenario's own exact tool names (``metadata.allow_tools``) for the tool policy."""
    import anthropic

    bounds = bounds or AgentBounds()
    allowed = tuple(allow)
    tools = toolbox.tool_definitions(cache=bounds.cache)
    system_block: dict[str, Any] = {"type": "text", "text": system}
    if bounds.cache:
        system_block["cache_control"] = EPHEMERAL
    messages: list[dict[str, Any]] = [{"role": "user", "content": user_input}]
    loop = _Loop(model=model)

    def done(text: str | None, stop: StopStatus, detail: str | None = None) -> AgentResult:
        trace = ToolTrace(
            calls=loop.calls,
            turns=loop.turns,
            tokens=loop.tokens,
            cost_usd=call_cost_usd(loop.model, loop.tokens),
            model=loop.model,
            servers=toolbox.server_names,
            stop=stop,
            stop_detail=detail,
        )
        return AgentResult(text, trace, stop)

    while True:
        if loop.turns >= bounds.max_turns:
            return done(None, "max_turns", f"no final answer within max_turns {bounds.max_turns}")
        loop.turns += 1
        request: dict[str, Any] = {
            "model": model,
            "max_tokens": bounds.max_tokens,
            "system": [system_block],
            "messages": messages,
            # The 2.x SDK has no ``temperature`` keyword; the API still takes the field
            # (only before the 5 generation: later models refuse it, ``llm.sampling``).
            "extra_body": sampling(model),
        }
        if tools:
            request["tools"] = tools
        try:
            reply = await client.messages.create(**request)
        except anthropic.APIStatusError as exc:
            body = exc.response.text if exc.response is not None else str(exc.message)
            return done(
                None, "api_error", f"HTTP {exc.status_code} from Anthropic: {bounded(body, 300)}"
            )
        except anthropic.APIError as exc:
            return done(None, "api_error", f"Anthropic call failed: {reason_of(exc)}")
        loop.tokens = loop.tokens + TokenUsage.from_api(reply.usage)
        loop.model = reply.model or loop.model
        text = "".join(b.text for b in reply.content if getattr(b, "type", None) == "text")
        uses = [b for b in reply.content if getattr(b, "type", None) == "tool_use"]
        if reply.stop_reason == "max_tokens":
            return done(
                text or None, "max_tokens", f"response truncated (max_tokens {bounds.max_tokens})"
            )
        if reply.stop_reason != "tool_use" or not uses:
            if reply.stop_reason in ("end_turn", "tool_use", None):
                return done(text, "end_turn")
            return done(text or None, "model_stop", f"stop_reason {reply.stop_reason}")
        run_now, stop = _tool_plan(uses, bounds, len(loop.calls))
        outcomes = await asyncio.gather(
            *(
                toolbox.call(u.name, u.input, turn=loop.turns, bounds=bounds, allow=allowed)
                for u in run_now
            )
        )
        loop.calls.extend(o.call for o in outcomes)
        if stop is not None:
            return done(None, "max_tool_calls", stop)
        messages.append({"role": "assistant", "content": _assistant_content(reply.content)})
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": u.id,
                        "content": o.content,
                        "is_error": o.is_error,
                    }
                    for u, o in zip(uses, outcomes, strict=True)
                ],
            }
        )
