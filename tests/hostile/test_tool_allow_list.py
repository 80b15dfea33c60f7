"""Class 2: the tool policy is an allow-list, not a name filter (issue 23).

Surfaces: the policy itself, the agent loop against a hostile MCP server on 127.0.0.1 (real
``mcp`` client over Streamable HTTP), and ``scenarios run --target anthropic`` (the CLI).
Tools whose names dodge ``create_*`` (``get_and_delete_customer``, ``refund_payment``,
``createRefund``, ``slack_post_message``), a destructive tool labelled read-only and a Mimic
read name with an extra argument: none runs, each is refused and traced, and the scenario
fails even though its answer is right. Exact-name allows (flag, scenario) let one run."""

from __future__ import annotations

import asyncio
import json

import anthropic
import pytest
from hostile_kit import BEARER, RAN, reply, run_cli, scenario, use, write_scenarios
from scenario_helpers import MockAnthropic

from pe_eval_core.scenarios.agent_loop import McpToolbox, run_agent
from pe_eval_core.scenarios.mcp_config import HttpServerConfig
from pe_eval_core.scenarios.tool_policy import STRIPE_READ_TOOLS, ToolPolicy

pytestmark = pytest.mark.timeout(120)

HOSTILE = {
    "get_and_delete_customer": {"customer_id": "cus_1"},
    "refund_payment": {"payment_id": "pi_1"},
    "createRefund": {"charge": "ch_1"},
    "slack_post_message": {"text": "hi"},
    "purge_everything": {},
    "list_customers": {"delete_matches": True},
}


@pytest.mark.parametrize(
    ("server", "tool", "annotations", "schema"),
    [
        ("mimic-stripe", "get_and_delete_customer", None, None),
        ("mimic-database", "get_and_delete_customer", None, None),
        ("mimic-stripe", "refund_payment", None, None),
        ("mimic-stripe", "createRefund", None, None),
        ("slack", "slack_post_message", {"readOnlyHint": True}, None),
        ("mimic-stripe", "purge_everything", {"readOnlyHint": True}, None),
        ("mimic-stripe", "list_customers", None, {"properties": {"delete_matches": {}}}),
        ("mimic-stripe", "list_invoices", {"destructiveHint": True}, None),
        ("mimic-database", "get_customers", None, {"properties": {"rows": {"type": "array"}}}),
        ("elsewhere", "list_invoices", None, None),
    ],
)
def test_the_policy_refuses_whatever_the_name_or_hint(server, tool, annotations, schema):
    decision = ToolPolicy().decide(server, tool, annotations, schema)
    assert not decision.allowed and decision.write_attempt, decision


def test_mimics_published_reads_run_and_exact_names_extend_the_list():
    policy = ToolPolicy()
    for tool, args in STRIPE_READ_TOOLS.items():
        schema = {"properties": {a: {"type": "string"} for a in args}}
        assert policy.decide("mimic-stripe", tool, None, schema).allowed, tool
    int_filter = {"properties": {"status": {"type": "string"}, "limit": {"type": "integer"}}}
    assert policy.decide("mimic-database", "get_risk_flags_summary", None, int_filter).allowed
    assert (
        ToolPolicy(allow=("mimic-stripe/refund_payment",))
        .decide("mimic-stripe", "refund_payment")
        .allowed
    )
    assert policy.decide("mimic-stripe", "refund_payment", allow=["refund_payment"]).allowed
    # a glob is no exact name: it widens nothing
    assert not ToolPolicy(allow=("*",)).decide("mimic-stripe", "refund_payment").allowed


def _drive(url: str, policy: ToolPolicy | None, *replies: dict) -> tuple:
    api = MockAnthropic(*replies)

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        server = HttpServerConfig(name="mimic-stripe", url=url)
        async with McpToolbox([server], policy) as box:
            return await run_agent(client, "claude-sonnet-4-5", "skill", "why?", box)

    return asyncio.run(go()), api.requests


def test_no_hostile_tool_runs_through_the_agent_loop(hostile_mcp_url):
    RAN.clear()
    calls = [use(f"mimic-stripe__{t}", a, id=f"u{i}") for i, (t, a) in enumerate(HOSTILE.items())]
    honest = use("mimic-stripe__list_invoices", {"customer": "cus_1"}, id="ok")
    result, requests = _drive(hostile_mcp_url, None, reply(*calls, honest), reply("done"))
    assert RAN == []  # not one of them reached the server
    by_tool = {c.tool: c for c in result.trace.calls}
    for tool in HOSTILE:
        call = by_tool[tool]
        assert call.refused and call.write_attempt and call.is_error, tool
    assert not by_tool["list_invoices"].refused
    assert result.trace.write_attempts == len(HOSTILE)
    # the tool result's bearer token never reaches the trace (the redaction choke point)
    assert BEARER not in by_tool["list_invoices"].result_excerpt
    fed = [b for b in requests[1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert all("read-only evaluation" in b["content"] for b in fed[:-1])


def test_the_cli_fails_the_scenario_and_exact_names_let_a_tool_run(
    project, hostile_mcp_url, capsys
):
    root, api = project
    answer = "MRR fell $241.00."
    scenarios = write_scenarios(
        root,
        scenario("refunds"),
        scenario("allowed-here", **{})
        | {"metadata": {"tier": "smoke", "allow_tools": ["createRefund"]}},
    )
    api.replies[:] = [
        reply(use("mimic-stripe__refund_payment", {"payment_id": "pi_9"})),
        reply(answer),
        reply(use("mimic-stripe__createRefund", {"charge": "ch_9"})),
        reply(answer),
    ]
    base = ["scenarios", "run", "--target", "anthropic", "--scenarios", str(scenarios),
            "--mcp-server", f"mimic-stripe={hostile_mcp_url}", "--no-judge", "--yes",
            "--concurrency", "1"]  # fmt: skip
    code, _, err = run_cli(capsys, *base, "--out", str(root / "a"))
    results = json.loads((root / "a" / "report.json").read_text())["results"]
    assert [r["status"] for r in results] == ["fail", "pass"], err
    assert "refund_payment" in results[0]["write_failure"]
    assert RAN == [("createRefund", {"charge": "ch_9"})]  # the scenario's own exact allow
    assert code == 1

    RAN.clear()
    api.replies[:] = [
        reply(use("mimic-stripe__refund_payment", {"payment_id": "pi_9"})),
        reply(answer),
        reply(answer),
    ]
    code, _, err = run_cli(
        capsys, *base, "--allow-tool", "mimic-stripe/refund_payment", "--out", str(root / "b")
    )
    assert RAN == [("refund_payment", {"payment_id": "pi_9"})]
    assert "allowed by name: mimic-stripe/refund_payment" in err
    assert code == 0
