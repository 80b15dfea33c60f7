"""The agents a run evaluates: recorded responses, an Anthropic model with a skill, an HTTP agent.

Every target answers ``respond(scenario) -> TargetResponse`` and reports failures as data
(``TargetResponse.error``) so one broken scenario never stops a run. Targets that hold a
network client open it in ``__aenter__`` (inside the running event loop, once per run) and
close it in ``__aexit__``; called without that, they open and close a client per call.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from pe_eval_core.errors import SkillNotFoundError, TargetConfigError
from pe_eval_core.limits import RESPONSE_CHARS, TOOL_CALLS, over_limit_text
from pe_eval_core.redact import redact, register_secret, register_url_secrets
from pe_eval_core.scenarios.agent.protocol import Target, TargetBase
from pe_eval_core.scenarios.llm.client import AnthropicClientOwner
from pe_eval_core.scenarios.llm.sampling import sampling
from pe_eval_core.scenarios.loading import load_recorded
from pe_eval_core.scenarios.models import RecordedResponse, Scenario, TargetResponse
from pe_eval_core.scenarios.options import DEFAULTS
from pe_eval_core.scenarios.trace import trace_from_tool_calls

if TYPE_CHECKING:
    from pe_eval_core.access import AgentUrl
    from pe_eval_core.scenarios.agent.as_of import AsOf
    from pe_eval_core.scenarios.agent.loop import AgentBounds, McpToolbox

DEFAULT_MODEL = "claude-sonnet-5-5"
MODEL_ENV = "PE_EVAL_MODEL"
DEFAULT_SKILL = Path("skills/revenue-recovery/SKILL.md")

# The seed's sub-agent instructions, minus the MCP tools our direct call cannot offer.
AGENT_INSTRUCTION = """\
You are the agent under test in a Mimic eval. Produce a response exactly as the \
`{skill}` skill above prescribes.

Output ONLY the rendered response text (no preamble, no explanation, no tool-call narration). \
The eval grader will read the response verbatim."""

EXCERPT_CHARS = 300


def default_model() -> str:
    """``$PE_EVAL_MODEL`` if set, else the current Sonnet (``claude-sonnet-5-5``)."""
    return os.environ.get(MODEL_ENV) or DEFAULT_MODEL


REPLY_BYTES_PER_CHAR = 8
"""Bytes of an HTTP agent's JSON reply allowed per character of the response length limit:
room for UTF-8, JSON escapes and the ``toolCalls`` it reports alongside the text."""


def reply_byte_cap() -> int:
    """The most an HTTP agent's reply is read before it is refused (never read in full).

    >>> reply_byte_cap() == REPLY_BYTES_PER_CHAR * RESPONSE_CHARS.value()
    True
    """
    return REPLY_BYTES_PER_CHAR * RESPONSE_CHARS.value()


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """One line, at most ``limit`` characters, for error messages.

    >>> excerpt("a\\n  b" + "x" * 400, 10)
    'a bxxxxxx…'
    """
    text = " ".join(redact(text).split())  # the targets' one choke point for secrets
    return text if len(text) <= limit else text[: limit - 1] + "…"


AUTH_STATUSES = frozenset({401, 403, 407})
GATEWAY_STATUSES = frozenset({502, 503, 504})


def transport_error_kind(status: int) -> str | None:
    """An HTTP status that says the agent was not reached (``unreachable``: a gateway error)
    or refused us (``auth``), rather than answering; None for any other status.

    >>> transport_error_kind(401), transport_error_kind(503), transport_error_kind(500)
    ('auth', 'unreachable', None)
    """
    if status in AUTH_STATUSES:
        return "auth"
    return "unreachable" if status in GATEWAY_STATUSES else None


__all__ = ["AnthropicTarget", "HttpTarget", "RecordedTarget", "Target", "default_model"]


class RecordedTarget(TargetBase):
    """Replays a recorded-responses file (or mapping): offline, free, reproducible."""

    def __init__(self, source: str | os.PathLike[str] | Mapping[str, RecordedResponse]):
        if isinstance(source, Mapping):
            self.records = dict(source)
            self.path: Path | None = None
            self.name = "recorded"
        else:
            self.path = Path(source)
            self.records = load_recorded(self.path)
            self.name = f"recorded:{self.path}"
        models = {r.model for r in self.records.values() if r.model}
        self.model = models.pop() if len(models) == 1 else None

    @property
    def label(self) -> str:
        """``recorded:<file name>`` (the same on any machine and from any folder)."""
        return f"recorded:{self.path.name}" if self.path is not None else self.name

    async def respond(self, scenario: Scenario) -> TargetResponse:
        rec = self.records.get(scenario.name)
        if rec is None:
            return TargetResponse(
                error=f"no recorded response for scenario {scenario.name!r}{self._where()}"
            )
        if rec.error:
            return TargetResponse(
                error=redact(rec.error), latency_ms=rec.latency_ms, text=rec.response
            )
        if rec.response is None:
            return TargetResponse(
                error=f"recorded entry for {scenario.name!r}{self._where()} has neither "
                "response nor error"
            )
        return TargetResponse(
            text=rec.response,
            latency_ms=rec.latency_ms,
            tokens_in=rec.tokens_in,
            tokens_out=rec.tokens_out,
            tool_calls=list(rec.tool_calls),
            model=rec.model,
            trace=rec.trace,
        )

    def _where(self) -> str:
        return f" in {self.path}" if self.path else ""


class AnthropicTarget(AnthropicClientOwner, TargetBase):
    """A Claude model following a skill file: the skill plus the seed's output instruction as the
    system prompt, the scenario input as the user message, temperature 0, the SDK's retries.

    With a ``toolbox`` (the run's MCP servers) each scenario is a bounded tool-use loop
    (:func:`~pe_eval_core.scenarios.agent.loop.run_agent`) and the system prompt carries the
    seed's Step 2 line naming the tools; the runner opens the toolbox once per run. Without
    one, a single call with no tools, as before. ``as_of`` (the analysis date, see
    :mod:`~pe_eval_core.scenarios.agent.as_of`) is stated after the skill, so "last week" does not
    depend on the model's clock.
    """

    live = True
    model: str

    def __init__(
        self,
        skill_path: str | os.PathLike[str] = DEFAULT_SKILL,
        model: str | None = None,
        api_key: str | None = None,
        http_client: Any = None,
        *,
        max_retries: int = 3,
        timeout_s: float = DEFAULTS.timeout_s,
        max_tokens: int = DEFAULTS.max_tokens,
        toolbox: McpToolbox | None = None,
        bounds: AgentBounds | None = None,
        as_of: AsOf | None = None,
    ):
        self.toolbox = toolbox
        self.as_of = as_of
        self.bounds = bounds
        if bounds is not None:
            max_tokens = bounds.max_tokens
        self.skill_path = Path(skill_path)
        if not self.skill_path.is_file():
            raise SkillNotFoundError(f"{self.skill_path} does not exist")
        self.skill = self.skill_path.read_text(encoding="utf-8")
        if not self.skill.strip():
            raise TargetConfigError(
                f"{self.skill_path} is empty",
                diagnosis="The skill file has no instructions",
                fix="Name the SKILL.md the agent should follow.",
                input="skill",
            )
        if api_key is None and not (
            os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")
        ):
            raise TargetConfigError(
                "no Anthropic API key for the anthropic target",
                diagnosis="ANTHROPIC_API_KEY is not set",
                fix="Set ANTHROPIC_API_KEY, or use the recorded or http target.",
            )
        self.model = model or default_model()
        self.name = f"anthropic:{self.model}"
        self.system_prompt = (
            self.skill.rstrip()
            + "\n\n---\n\n"
            + AGENT_INSTRUCTION.format(skill=_skill_name(self.skill_path))
        )
        if as_of is not None:
            self.system_prompt += "\n\n" + as_of.prompt_line()
        if toolbox is not None:
            self.system_prompt += "\n\n" + toolbox.instruction()
        super().__init__(
            api_key,
            http_client,
            max_retries=max_retries,
            timeout_s=timeout_s,
            max_tokens=max_tokens,
        )

    @property
    def batchable(self) -> bool:
        """A plain call only: a tool-use loop needs each reply before its next turn."""
        return self.toolbox is None

    def request(self, scenario: Scenario) -> dict[str, Any]:
        """The exact ``messages.create`` arguments for a scenario."""
        return {
            "model": self.model,
            "max_tokens": self._max_tokens,
            "system": self.system_prompt,
            "messages": [{"role": "user", "content": scenario.input}],
            # The 2.x SDK has no ``temperature`` keyword; the API still takes the field
            # (only before the 5 generation: later models refuse it, ``llm.sampling``).
            "extra_body": sampling(self.model),
        }

    async def respond(self, scenario: Scenario) -> TargetResponse:
        if self.toolbox is not None:
            return await self._respond_with_tools(scenario, self.toolbox)
        import anthropic

        try:
            message = await self._create_message(self.request(scenario))
        except anthropic.APIStatusError as exc:
            body = exc.response.text if exc.response is not None else str(exc.message)
            return TargetResponse(
                error=f"HTTP {exc.status_code} from Anthropic: {excerpt(body)}",
                error_kind=transport_error_kind(exc.status_code),
            )
        except anthropic.APITimeoutError:
            return TargetResponse(error=f"Anthropic call timed out after {self._timeout_s:g}s")
        except anthropic.APIConnectionError as exc:
            return TargetResponse(
                error=f"could not reach Anthropic: {type(exc).__name__}: {excerpt(str(exc))}",
                error_kind="unreachable",
            )
        except anthropic.APIError as exc:
            return TargetResponse(
                error=f"Anthropic call failed: {type(exc).__name__}: {excerpt(str(exc))}"
            )
        text = "".join(b.text for b in message.content if getattr(b, "type", None) == "text")
        return TargetResponse(
            text=text,
            tokens_in=message.usage.input_tokens,
            tokens_out=message.usage.output_tokens,
            model=message.model or self.model,
        )

    async def _respond_with_tools(self, scenario: Scenario, toolbox: McpToolbox) -> TargetResponse:
        """One scenario's tool-use loop; a bound or API failure is the scenario's error."""
        from pe_eval_core.scenarios.agent.loop import AgentBounds, run_agent

        bounds = self.bounds or AgentBounds(max_tokens=self._max_tokens)
        client = self._client or self._new_client()
        try:
            result = await run_agent(
                client,
                self.model,
                self.system_prompt,
                scenario.input,
                toolbox,
                bounds,
                allow=scenario.metadata.allowed_tools(),
            )
        finally:
            if client is not self._client and self._http_client is None:
                await client.close()
        trace = result.trace
        tokens = trace.tokens
        return TargetResponse(
            text=result.text,
            error=trace.error,
            error_kind=_loop_transport_kind(trace.stop, trace.stop_detail),
            tokens_in=tokens.input + tokens.cache_read + tokens.cache_write,
            tokens_out=tokens.output,
            tool_calls=[{"name": c.tool, "arguments": c.arguments} for c in trace.calls],
            model=trace.model or self.model,
            trace=trace,
        )


_LOOP_STATUS = re.compile(r"^HTTP (\d{3}) from Anthropic")


def _loop_transport_kind(stop: str, detail: str | None) -> str | None:
    """A tool-use loop that stopped on the Messages API refusing us or being unreachable.

    >>> _loop_transport_kind("api_error", "HTTP 401 from Anthropic: invalid x-api-key")
    'auth'
    >>> _loop_transport_kind("api_error", "Anthropic call failed: APIConnectionError: refused")
    'unreachable'
    >>> _loop_transport_kind("api_error", "HTTP 400 from Anthropic: bad request") is None
    True
    """
    if stop != "api_error" or not detail:
        return None
    m = _LOOP_STATUS.match(detail)
    if m:
        return transport_error_kind(int(m.group(1)))
    return "unreachable" if "APIConnectionError" in detail else None


def _skill_name(path: Path) -> str:
    """``skills/revenue-recovery/SKILL.md`` -> ``revenue-recovery``."""
    return path.parent.name if path.name.upper() == "SKILL.MD" and path.parent.name else path.stem


def _without_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (httpx would send it as Basic auth).

    >>> _without_userinfo("http://u:p@h:8/x?q=1")
    'http://h:8/x?q=1'
    """
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


class HttpTarget(TargetBase):
    """An agent behind Mimic's HTTP contract: ``POST {"message"}`` -> ``{"text", "toolCalls"}``."""

    live = True

    def __init__(
        self,
        url: str,
        timeout_s: float = DEFAULTS.timeout_s,
        *,
        headers: Mapping[str, str] | None = None,
        max_connections: int = 64,
        connect: AgentUrl | None = None,
    ):
        """``headers``: sent with every request (credentials: redacted everywhere);
        ``connect``: where to connect instead of resolving ``url`` again (the address a
        member's URL was checked and pinned to, ``access.check_agent_url``)."""
        parsed = urlparse(url or "")
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise TargetConfigError(
                f"agent URL {url!r} is not an http(s) URL",
                diagnosis="The http target needs the agent's endpoint",
                fix="Give Mimic's test.agent URL (http://host:port/path).",
                input="agent_url",
            )
        self.url = url
        self.timeout_s = timeout_s
        self.headers = dict(headers or {})
        register_url_secrets(url)
        for value in self.headers.values():
            register_secret(value)
        self.shown_url = redact(url)
        """The URL as every message, report and record shows it (credentials redacted)."""
        self.name = f"http:{self.shown_url}"
        self._connect_url = connect.connect_url if connect is not None else url
        if any(k.lower() == "authorization" for k in self.headers):
            self._connect_url = _without_userinfo(self._connect_url)  # the header wins
        self._request_headers = (
            {"Host": connect.host_header} if connect is not None and connect.host_header else {}
        )
        self._extensions = (
            {"sni_hostname": connect.sni} if connect is not None and connect.sni else None
        )
        self._max_connections = max_connections
        self._client: Any = None

    def _new_client(self) -> Any:
        import httpx2

        return httpx2.AsyncClient(
            timeout=self.timeout_s,
            headers=self.headers,
            limits=httpx2.Limits(
                max_connections=self._max_connections,
                max_keepalive_connections=self._max_connections,
            ),
        )

    async def __aenter__(self) -> HttpTarget:
        self._client = self._new_client()
        return self

    async def __aexit__(self, *exc: object) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def _read(self, client: Any, scenario: Scenario, cap: int) -> tuple[Any, bytes] | str:
        """The reply and its body, read in chunks up to ``cap`` bytes (else the refusal)."""
        async with client.stream(
            "POST",
            self._connect_url,
            json={"message": scenario.input},
            headers=self._request_headers or None,
            extensions=self._extensions,
        ) as reply:
            chunks: list[bytes] = []
            size = 0
            async for chunk in reply.aiter_bytes():
                size += len(chunk)
                if size > cap:  # stop reading: a reply this size can only be refused
                    return (
                        f"the reply of agent at {self.shown_url} is over {cap:,} bytes, "
                        f"{REPLY_BYTES_PER_CHAR} per character of the {RESPONSE_CHARS.what} "
                        f"limit; not read further (raise it with {RESPONSE_CHARS.env})"
                    )
                chunks.append(chunk)
            return reply, b"".join(chunks)

    async def respond(self, scenario: Scenario) -> TargetResponse:
        """One POST, with ``timeout_s`` as the deadline of the whole call (connect, send and
        every byte of the reply): an agent trickling a byte a second cannot outlast it."""
        import httpx2

        client = self._client or self._new_client()
        cap = reply_byte_cap()
        try:
            async with asyncio.timeout(self.timeout_s):
                got = await self._read(client, scenario, cap)
        except (TimeoutError, httpx2.TimeoutException):
            return TargetResponse(
                error=f"agent at {self.shown_url} timed out after {self.timeout_s:g}s"
            )
        except httpx2.HTTPError as exc:
            return TargetResponse(
                error=f"could not reach agent at {self.shown_url}: {type(exc).__name__}: "
                f"{excerpt(str(exc))}",
                error_kind="unreachable" if isinstance(exc, httpx2.TransportError) else None,
            )
        finally:
            if client is not self._client:
                await client.aclose()
        if isinstance(got, str):
            return TargetResponse(error=got)
        reply, raw = got
        body = raw.decode(reply.encoding or "utf-8", errors="replace")
        if not 200 <= reply.status_code < 300:
            return TargetResponse(
                error=f"HTTP {reply.status_code} from agent at {self.shown_url}: {excerpt(body)}",
                error_kind=transport_error_kind(reply.status_code),
            )
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep
            return TargetResponse(
                error=f"agent at {self.shown_url} replied HTTP {reply.status_code} with a body "
                f"that is not JSON: {excerpt(body)}"
            )
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return TargetResponse(
                error=f'agent at {self.shown_url} replied JSON without a string "text" field: '
                f"{excerpt(body)}"
            )
        calls = data.get("toolCalls")
        calls = calls if isinstance(calls, list) else []
        flood = over_limit_text(TOOL_CALLS, len(calls), f"the reply of agent at {self.shown_url}")
        if flood is not None:  # never traced, stored or reported call by call
            return TargetResponse(error=flood)
        return TargetResponse(
            text=data["text"],
            tool_calls=calls,
            trace=trace_from_tool_calls(calls) if calls else None,
        )
