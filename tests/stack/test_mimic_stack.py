"""The real Mimic stack (mimic host over a private PostgreSQL), read with the official MCP client.

One stack per module (about 10 s to start). Skipped, with the reason, when node/npm, the
PostgreSQL binaries or ``mimic_stack/node_modules`` (``npm ci`` in ``mimic_stack/``) are missing.
The assertions tie what the servers return to the demo facts of ``.mimic/exports/README.md``.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import anyio
import pytest

from scripts.mimic_stack import MimicStack, missing_prerequisites

pytestmark = pytest.mark.timeout(180)

_reason = missing_prerequisites()
if _reason:
    pytest.skip(f"Mimic stack unavailable: {_reason}", allow_module_level=True)

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    mcp_json = tmp_path_factory.mktemp("mimic_stack") / ".mcp.json"
    with MimicStack(mcp_json=mcp_json, install=False) as running:
        yield running


def call(url: str, tool: str | None = None, arguments: dict | None = None):
    """One MCP session: (tool names, text of the tool result or None)."""

    async def run():
        with anyio.fail_after(30):
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                names = [t.name for t in (await session.list_tools()).tools]
                if tool is None:
                    return names, None
                result = await session.call_tool(tool, arguments or {})
                assert not result.is_error, result
                return names, "".join(c.text for c in result.content if c.type == "text")

    return anyio.run(run)


def test_mcp_json_names_both_servers(stack):
    doc = json.loads(stack.mcp_json.read_text())
    servers = doc["mcpServers"]
    assert set(servers) == {"mimic-database", "mimic-stripe"}
    for entry in servers.values():
        assert entry["type"] == "http"
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", entry["url"])


def test_database_server_tools(stack):
    names, _ = call(stack.urls["mimic-database"])
    tables = ("customers", "subscriptions", "invoices", "payments", "risk_flags", "support_notes")
    expected = {f"get_{t}" for t in tables} | {f"get_{t}_summary" for t in tables}
    assert set(names) == expected


def test_stripe_server_tools(stack):
    names, _ = call(stack.urls["mimic-stripe"])
    reads = {"list_customers", "list_invoices", "list_subscriptions", "list_payment_intents"}
    writes = {"create_refund", "cancel_subscription", "update_subscription"}
    assert reads | writes | {"fetch_stripe_resources", "search_stripe_resources"} <= set(names)


def test_database_has_100_customers_and_the_mismatch(stack):
    url = stack.urls["mimic-database"]
    _, summary = call(url, "get_customers_summary")
    assert json.loads(summary)[0]["count"] == 100
    _, text = call(url, "get_customers", {"stripe_customer_id": "cus_GL072"})
    (orchard,) = json.loads(text)
    assert orchard["name"] == "Orchard & Pike"
    assert orchard["status"] == "active"  # active in the product ...
    assert orchard["mrr_cents"] == 29900
    _, text = call(url, "get_payments", {"customer_id": 78, "status": "succeeded"})
    quill = {p["stripe_payment_id"]: p for p in json.loads(text)}
    assert {"ch_quill_a", "ch_quill_b"} <= set(quill)
    assert quill["ch_quill_a"]["amount_cents"] == quill["ch_quill_b"]["amount_cents"] == 24100


def test_database_failed_charges_by_decline_code(stack):
    _, text = call(stack.urls["mimic-database"], "get_payments", {"status": "failed"})
    failed = json.loads(text)
    codes = sorted(p["failure_reason"] for p in failed)
    assert codes == ["expired_card"] * 4 + ["insufficient_funds"] * 2 + ["lost_card"] * 2
    assert sum(p["amount_cents"] for p in failed) == 164000


def test_stripe_double_charge_of_in_quill_apr(stack):
    url = stack.urls["mimic-stripe"]
    _, text = call(url, "list_invoices", {"customer": "cus_GL078"})
    assert "in_quill_apr" in text
    charges = []
    for ch in ("ch_quill_a", "ch_quill_b"):
        _, body = call(
            url, "fetch_stripe_resources", {"resource_type": "charges", "resource_id": ch}
        )
        charges.append(json.loads(body))
    assert {c["invoice"] for c in charges} == {"in_quill_apr"}
    assert {c["status"] for c in charges} == {"succeeded"}
    assert [c["amount"] for c in charges] == [24100, 24100]
    assert charges[1]["created"] - charges[0]["created"] == 41
    day = datetime.fromtimestamp(charges[0]["created"], UTC).date().isoformat()
    assert day == "2026-04-22"


def test_stripe_billing_side_of_the_mismatch(stack):
    _, body = call(
        stack.urls["mimic-stripe"],
        "fetch_stripe_resources",
        {"resource_type": "subscriptions", "resource_id": "sub_orchard"},
    )
    sub = json.loads(body)
    assert sub["customer"] == "cus_GL072"
    assert sub["status"] == "canceled"  # ... cancelled in billing on 2026-04-20
    assert datetime.fromtimestamp(sub["canceled_at"], UTC).date().isoformat() == "2026-04-20"
