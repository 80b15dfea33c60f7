"""``--batch``: Messages API calls sent through the Message Batches API, at half the price.

A :class:`MessageBatcher` stands in for ``messages.create`` (``AnthropicClientOwner`` routes
its one call through it when one is attached): every request made while the batcher gathers
(``gather_s`` without a new request, or ``max_requests`` pending) goes into one batch
(``messages.batches.create``), each with its own ``custom_id``. The batcher polls
``messages.batches.retrieve`` every ``poll_s`` seconds, reporting a progress line, until the
batch has ended, then reads ``messages.batches.results`` and hands each caller the message
matched by its ``custom_id``. A request that errored, was canceled or expired, or has no result
fails alone (:class:`BatchRequestError`, an ``anthropic.APIError``: the target reports that
scenario's error, the judge a judge error); the others stand.

Only plain (non-tool) target calls and judge calls are batched; a tool-use loop needs each
reply before its next turn and keeps calling ``messages.create``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2

DEFAULT_GATHER_S = 2.0
DEFAULT_POLL_S = 10.0
MAX_REQUESTS_PER_BATCH = 10_000

BatchProgress = Callable[[str], object]
"""``progress(line)``: one line per poll, e.g. ``batch msgbatch_01 (19 requests): 12 done``."""


class BatchRequestError(anthropic.APIError):
    """One batched request produced no message (errored, canceled, expired, missing)."""

    def __init__(self, message: str, custom_id: str, body: object = None):
        super().__init__(
            message,
            httpx2.Request("POST", "https://api.anthropic.com/v1/messages/batches"),
            body=body,
        )
        self.custom_id = custom_id


def batch_params(request: dict[str, Any]) -> dict[str, Any]:
    """``messages.create`` keyword arguments as a batch request's ``params``: the SDK's
    ``extra_body`` fields (e.g. ``temperature``) merged in.

    >>> batch_params({"model": "m", "max_tokens": 5, "extra_body": {"temperature": 0}})
    {'model': 'm', 'max_tokens': 5, 'temperature': 0}
    """
    params = {k: v for k, v in request.items() if k != "extra_body"}
    params.update(request.get("extra_body") or {})
    return params


@dataclass
class _Pending:
    custom_id: str
    params: dict[str, Any]
    future: asyncio.Future[Any] = field(repr=False)


class MessageBatcher:
    """Gathers concurrent ``messages.create`` requests into Message Batches (see module doc).

    ``client_factory()`` returns an ``anthropic.AsyncAnthropic``; the batcher opens one on
    first use and closes it in :meth:`aclose` (``async with`` does both).
    """

    def __init__(
        self,
        client_factory: Callable[[], Any] | None = None,
        *,
        gather_s: float = DEFAULT_GATHER_S,
        poll_s: float = DEFAULT_POLL_S,
        max_requests: int = MAX_REQUESTS_PER_BATCH,
        progress: BatchProgress | None = None,
        close_client: bool = True,
    ):
        self._client_factory = client_factory
        self._client: Any = None
        self._close_client = close_client
        self.gather_s, self.poll_s, self.max_requests = gather_s, poll_s, max_requests
        self.progress = progress
        self._pending: list[_Pending] = []
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._counter = 0
        self.batch_ids: list[str] = []
        """Every batch this batcher created, in order."""

    def adopt_client_factory(self, factory: Callable[[], Any]) -> None:
        """Use ``factory`` for the batch client unless one was given (the first caller's)."""
        if self._client_factory is None:
            self._client_factory = factory

    async def __aenter__(self) -> MessageBatcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        client, self._client = self._client, None
        if client is not None and self._close_client:
            await client.close()

    async def create(self, request: dict[str, Any]) -> Any:
        """The message for one ``messages.create`` request, answered through a batch."""
        loop = asyncio.get_running_loop()
        self._counter += 1
        item = _Pending(f"req-{self._counter}", batch_params(request), loop.create_future())
        self._pending.append(item)
        if len(self._pending) >= self.max_requests:
            self._flush()
        else:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_later(self.gather_s, self._flush)
        return await item.future

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        if not batch:
            return
        task = asyncio.get_running_loop().create_task(self._run(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, batch: list[_Pending]) -> None:
        """Create, poll, collect; a failure of the batch as a whole fails each request."""
        try:
            await self._run_batch(batch)
        except Exception as exc:  # the batch itself failed: every request in it fails
            for item in batch:
                if not item.future.done():
                    item.future.set_exception(
                        exc
                        if isinstance(exc, anthropic.APIError)
                        else BatchRequestError(
                            f"message batch failed: {type(exc).__name__}: {exc}", item.custom_id
                        )
                    )
        except asyncio.CancelledError:
            for item in batch:
                if not item.future.done():
                    item.future.cancel()
            raise

    async def _run_batch(self, batch: list[_Pending]) -> None:
        if self._client is None:
            if self._client_factory is None:
                raise RuntimeError("no Messages API client: nothing attached to this batcher")
            self._client = self._client_factory()
        batches = self._client.messages.batches
        created = await batches.create(
            requests=[{"custom_id": item.custom_id, "params": item.params} for item in batch]
        )
        self.batch_ids.append(created.id)
        status = created
        while status.processing_status != "ended":
            self._report(status, len(batch))
            await asyncio.sleep(self.poll_s)
            status = await batches.retrieve(created.id)
        self._report(status, len(batch))
        by_id = {item.custom_id: item for item in batch}
        results = await batches.results(created.id)
        async for entry in results:
            item = by_id.get(entry.custom_id)
            if item is None or item.future.done():
                continue
            result = entry.result
            if result.type == "succeeded":
                item.future.set_result(result.message)
            else:
                item.future.set_exception(
                    BatchRequestError(_failure(entry.custom_id, result), entry.custom_id)
                )
        for item in batch:
            if not item.future.done():
                item.future.set_exception(
                    BatchRequestError(
                        f"batch {created.id} returned no result for {item.custom_id}",
                        item.custom_id,
                    )
                )

    def _report(self, status: Any, size: int) -> None:
        if self.progress is None:
            return
        c = status.request_counts
        done = c.succeeded + c.errored + c.canceled + c.expired
        failed = c.errored + c.canceled + c.expired
        line = (
            f"batch {status.id} ({size} requests): {done}/{size} done"
            + (f", {failed} failed" if failed else "")
            + f", {status.processing_status}"
        )
        with contextlib.suppress(Exception):  # a broken progress sink must not stop the batch
            self.progress(line)


def _failure(custom_id: str, result: Any) -> str:
    """Why one batched request has no message, in one line."""
    if result.type == "errored":
        err = getattr(result, "error", None)
        inner = getattr(err, "error", None)
        kind = getattr(inner, "type", None) or "error"
        message = getattr(inner, "message", None) or ""
        return f"batched request {custom_id} errored: {kind}: {message}".rstrip(": ")
    return f"batched request {custom_id} {result.type}"
