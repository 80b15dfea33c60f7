"""The one ``AsyncAnthropic`` client lifecycle shared by the live target and the live judge.

A subclass holds its settings here; ``async with`` opens one client per run inside the running
event loop and closes it afterwards; a bare call (no ``async with``) opens and closes its own.
A caller-supplied ``http_client`` (tests' mock transports) is never closed by us. With a
``batcher`` attached (``--batch``), the one call goes through the Message Batches API instead
(:mod:`pe_eval_core.scenarios.llm.batches`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from pe_eval_core.scenarios.llm.batches import MessageBatcher


class AnthropicClientOwner:
    """Base for classes that call the Messages API: client settings, lifecycle, one call."""

    def __init__(
        self,
        api_key: str | None,
        http_client: Any,
        *,
        max_retries: int,
        timeout_s: float,
        max_tokens: int,
    ):
        self._api_key = api_key
        self._http_client = http_client
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self._client: Any = None
        self.batcher: MessageBatcher | None = None
        """The batcher its calls go through (``--batch``), or None: direct calls."""

    @property
    def batchable(self) -> bool:
        """Its one call is a plain ``messages.create``: the Batches API can carry it."""
        return True

    def use_batcher(self, batcher: MessageBatcher) -> None:
        """Send the calls through ``batcher``, which may create its client like ours."""
        self.batcher = batcher
        batcher.adopt_client_factory(self._new_client)

    def _new_client(self) -> Any:
        import anthropic  # imported on first use: importing the package stays cheap

        return anthropic.AsyncAnthropic(
            api_key=self._api_key,
            max_retries=self._max_retries,
            timeout=self._timeout_s,
            http_client=self._http_client,
        )

    async def __aenter__(self) -> Self:
        self._client = self._new_client()
        return self

    async def __aexit__(self, *exc: object) -> None:
        client, self._client = self._client, None
        if client is not None and self._http_client is None:
            await client.close()

    async def _create_message(self, request: dict[str, Any]) -> Any:
        """``messages.create(**request)`` on the open client, else on a client for this call.

        SDK exceptions propagate: each caller turns them into its own kind of failure.
        """
        if self.batcher is not None:
            return await self.batcher.create(request)
        client = self._client or self._new_client()
        try:
            return await client.messages.create(**request)
        finally:
            if client is not self._client and self._http_client is None:
                await client.close()
