"""An HTTP transport for the agent's MCP sessions that stops reading a reply past a size.

A tool result of 300 MB was read whole before the loop's 20,000-character cap cut it (3.4 GB
of memory). With :func:`capped_client`, a JSON reply is streamed and abandoned at
``PE_EVAL_MAX_TOOL_RESULT_BYTES`` (``limits.TOOL_RESULT_BYTES``): the MCP SDK turns the
stream error into a JSON-RPC error for that request alone, so the call becomes an error
result naming the limit and its variable, and the session lives on. Server-sent events are
bounded by the SDK's own ``max_sse_event_size``, given the same number.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx2

from pe_eval_core.limits import TOOL_RESULT_BYTES


class ToolResultTooLarge(httpx2.StreamError):
    """A reply grew past the tool result size limit; it was not read further."""


class _Capped(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, cap: int):
        self._inner = inner
        self._cap = cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self._inner:
            size += len(chunk)
            if size > self._cap:
                raise ToolResultTooLarge(
                    f"the tool result is over the {TOOL_RESULT_BYTES.what} limit of "
                    f"{self._cap:,} bytes; not read further (raise it with {TOOL_RESULT_BYTES.env})"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """Wraps a transport: every reply that is not an event stream is cut at ``cap`` bytes."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, cap: int):
        self._inner = inner
        self.cap = cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.stream = _Capped(response.stream, self.cap)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def capped_client(*, headers: Mapping[str, str] | None, timeout_s: float) -> httpx2.AsyncClient:
    """The HTTP client for one MCP server, its replies capped (``limits.TOOL_RESULT_BYTES``)."""
    return httpx2.AsyncClient(
        headers=dict(headers) if headers else None,
        timeout=httpx2.Timeout(timeout_s, read=300.0),
        transport=CappedTransport(httpx2.AsyncHTTPTransport(), TOOL_RESULT_BYTES.value()),
    )
