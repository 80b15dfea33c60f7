"""The agent loop against the real ``mimic host`` stack, with a scripted model (no API key).

The model reads a mimic-database table and a mimic-stripe list, tries ``create_refund``
(refused: the eval is read-only, and Mimic's in-memory Stripe is left untouched), then answers
from what the tools returned. Skipped, with the reason, when Node/PostgreSQL/node_modules are
missing.
"""

from __future__ import annotations

import asyncio
import json

import anthropic
import httpx2
import pytest

from scripts.mimic_stack import MimicStack, missing_prerequisites
from tests.helpers.scenario_helpers import MockAnthropic

pytestmark = pytest.mark.timeout(180)

_reason = missing_prerequisites()
if _reason:
    pytest.skip(f"Mimic stack unavailable: {_reason}", allow_module_level=True)

from pe_eval_core.scenarios.agent.loop import McpToolbox, check_servers, run_agent  # noqa: E402
from pe_eval_core.scenarios.agent.mcp_config import load_mcp_config  # noqa: E402


@pytest.fixture(scope="module")
def mcp_config(tmp_path_factory):
    mcp_json = tmp_path_factory.mktemp("agent_stack") / ".mcp.json"
    with MimicStack(mcp_json=mcp_json, install=False):
        yield load_mcp_config(mcp_json)


def _use(name, tool_input, id):
    return {"type": "tool_use", "id": id, "name": name, "input": tool_input}


def _reply(*content, stop="tool_use"):
    return {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": list(content),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class AnsweringModel(MockAnthropic):
    """Scripted turns; the last one answers from the tool results it was sent."""

    def handler(self, request):
        response = super().handler(request)
        if len(self.requests) == 3:  # build the answer from what the tools returned
            results = [
                b["content"]
                for m in self.requests[-1]["messages"]
                if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"]
                if b["type"] == "tool_result" and not b["is_error"]
            ]
            (orchard,) = json.loads(results[0])
            quill = "in_quill_apr" if "in_quill_apr" in results[1] else "no invoice"
            text = f"{orchard['name']} is {orchard['status']} at ${orchard['mrr_cents'] / 100:,.2f}"
            text += f"; Quill Studio invoice {quill}."
            return httpx2.Response(
                200, json=_reply({"type": "text", "text": text}, stop="end_turn")
            )
        return response


def test_scripted_agent_reads_both_servers_and_is_refused_the_refund(mcp_config):
    assert set(mcp_config.servers) == {"mimic-database", "mimic-stripe"}
    counts = asyncio.run(check_servers(mcp_config))
    assert counts["mimic-database"] == 12 and counts["mimic-stripe"] >= 20

    api = AnsweringModel(
        _reply(
            _use("mimic-database__get_customers", {"stripe_customer_id": "cus_GL072"}, "a"),
            _use("mimic-stripe__list_invoices", {"customer": "cus_GL078"}, "b"),
        ),
        _reply(_use("mimic-stripe__create_refund", {"charge": "ch_quill_b"}, "c")),
        _reply({"type": "text", "text": "placeholder"}, stop="end_turn"),
    )

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        async with McpToolbox(mcp_config) as box:
            return await run_agent(client, "claude-sonnet-4-5", "skill", "Why?", box)

    text, trace, stop = asyncio.run(go())
    assert stop == "end_turn"
    assert text == "Orchard & Pike is active at $299.00; Quill Studio invoice in_quill_apr."
    assert [(c.server, c.tool) for c in trace.calls] == [
        ("mimic-database", "get_customers"),
        ("mimic-stripe", "list_invoices"),
        ("mimic-stripe", "create_refund"),
    ]
    assert not trace.calls[0].is_error and not trace.calls[1].is_error
    refund = trace.calls[2]
    assert refund.refused and refund.write_attempt and trace.write_attempts == 1
    tool_names = {t["name"] for t in api.requests[0]["tools"]}
    assert {"mimic-database__get_payments", "mimic-stripe__create_refund"} <= tool_names
