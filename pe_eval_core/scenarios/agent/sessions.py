"""Opening the agent's MCP sessions: one official-SDK client session per server, over
Streamable HTTP (``capped_http``: replies streamed and capped) or stdio (behind
``stdio_cap``, the relay that discards a reply past the same limit), and the pre-flight
:func:`check_servers`. Kept apart from ``loop.py`` (the toolbox and the tool-use loop),
which re-exports :func:`check_servers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack, suppress
from typing import Any

from pe_eval_core.errors import McpServerUnreachableError
from pe_eval_core.scenarios.agent.mcp_config import HttpServerConfig, McpConfig, ServerConfig


def reason_of(exc: BaseException) -> str:
    """The innermost useful message of an exception (task groups wrap them in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def open_session(stack: AsyncExitStack, server: ServerConfig, timeout_s: float) -> Any:
    from mcp import ClientSession

    if isinstance(server, HttpServerConfig):
        from mcp.client.streamable_http import streamable_http_client

        from pe_eval_core.limits import TOOL_RESULT_BYTES
        from pe_eval_core.scenarios.agent.capped_http import capped_client

        # replies streamed and abandoned past the tool result size limit, never read whole
        http = await stack.enter_async_context(
            capped_client(headers=server.headers, timeout_s=timeout_s)
        )
        read, write = await stack.enter_async_context(
            streamable_http_client(
                server.url, http_client=http, max_sse_event_size=TOOL_RESULT_BYTES.value()
            )
        )
    else:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        from pe_eval_core.scenarios.agent.stdio_cap import relay_command

        # behind a relay that discards a reply past the tool result size limit as it streams
        command, args = relay_command(server.command, server.args, server.cwd)
        params = StdioServerParameters(
            command=command, args=args, env=server.env or None, cwd=server.cwd
        )
        read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(
        ClientSession(read, write, read_timeout_seconds=timeout_s)
    )
    await session.initialize()
    return session


async def list_all_tools(session: Any) -> list[Any]:
    from mcp import types

    tools: list[Any] = []
    cursor = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


async def close_quietly(stack: AsyncExitStack) -> None:
    """Close what was opened so far; the transports re-raise the failure already reported."""
    with suppress(Exception):
        await stack.aclose()


def servers_of(config: McpConfig | Sequence[ServerConfig]) -> list[ServerConfig]:
    return list(config.servers.values()) if isinstance(config, McpConfig) else list(config)


async def check_servers(
    config: McpConfig | Sequence[ServerConfig], *, timeout_s: float = 10.0
) -> dict[str, int]:
    """Connect to each server, list its tools and disconnect: ``{name: tool count}``.

    The first server that cannot be reached raises :class:`McpServerUnreachableError` (its
    URL or command, and the reason) within about ``timeout_s``: call this before any scenario.
    """
    import anyio

    counts: dict[str, int] = {}
    for server in servers_of(config):
        try:
            with anyio.fail_after(timeout_s):
                async with AsyncExitStack() as stack:
                    session = await open_session(stack, server, timeout_s)
                    counts[server.name] = len(await list_all_tools(session))
        except TimeoutError:
            raise McpServerUnreachableError(
                server.name, server.where, f"no MCP answer within {timeout_s:g}s"
            ) from None
        except Exception as exc:
            raise McpServerUnreachableError(server.name, server.where, reason_of(exc)) from None
    return counts
