"""Builders for scenario tests: scenarios, Messages API replies, a recording mock Anthropic API
served through the real SDK's HTTP transport (httpx2.MockTransport)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from pe_eval_core.scenarios.models import Scenario

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / ".mimic" / "exports"


def make_scenario(name: str = "s1", **expect: Any) -> Scenario:
    """A scenario with the given ``expect`` fields (tier smoke, fact_001)."""
    meta = expect.pop("metadata", {"tier": "smoke", "source_fact": "fact_001"})
    return Scenario.model_validate(
        {"name": name, "input": f"question for {name}", "expect": expect, "metadata": meta}
    )


def message_json(
    *,
    text: str | None = None,
    tool_input: dict[str, Any] | None = None,
    model: str = "claude-test-model",
    tokens: tuple[int, int] = (120, 40),
) -> dict[str, Any]:
    """A Messages API reply body: a text block, or a forced tool call."""
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append(
            {"type": "tool_use", "id": "toolu_1", "name": "record_verdicts", "input": tool_input}
        )
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if tool_input is not None else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
    }


class MockAnthropic:
    """Records every request the SDK sends; replies come from a queue (the last one repeats)."""

    def __init__(self, *replies: httpx2.Response | dict[str, Any]):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.host == "api.anthropic.com"
        assert request.url.path == "/v1/messages"
        self.requests.append(json.loads(request.content))
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply if isinstance(reply, httpx2.Response) else httpx2.Response(200, json=reply)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handler))
