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

from pe_eval_core.scenarios.agent.loop import McpToolbox, run_agent
from pe_eval_core.scenarios.agent.mcp_config import HttpServerConfig
from pe_eval_core.scenarios.agent.tool_policy import STRIPE_READ_TOOLS, ToolPolicy
from tests.helpers.hostile_kit import BEARER, RAN, reply, run_cli, scenario, use, write_scenarios
from tests.helpers.scenario_helpers import MockAnthropic

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


# --- the one write rule for calls the policy did not decide (reported, or --allow-writes) ---


@pytest.mark.parametrize(
    ("tool", "writes"),
    [
        *[(name, True) for name in HOSTILE if name != "list_customers"],
        ("mcp__mimic-stripe__create_refund", True),
        ("customer_delete", True),
        ("get_refund", False),  # a read of a refund: the write verb is its object
        ("list_post_comments", False),
        ("get_invoices", False),
        ("search_stripe_resources", False),
    ],
)
def test_one_write_rule_decides_reported_calls(tool, writes):
    from pe_eval_core.scenarios.agent import tool_policy
    from pe_eval_core.scenarios.scoring.checks import executed_writes
    from pe_eval_core.scenarios.tool_names import split_tool_name
    from pe_eval_core.scenarios.trace import trace_from_tool_calls, write_reason

    assert tool_policy.write_reason is write_reason  # the policy narrows with the same rule
    assert (write_reason(split_tool_name(tool)[1]) is not None) is writes, tool
    assert bool(executed_writes(trace_from_tool_calls([tool]))) is writes, tool


def test_an_exact_allow_fails_nothing_but_allow_writes_still_does():
    """A tool allowed by exact name ran on purpose; ``--allow-writes`` only turns the list
    off: a write that ran without being expected or named still fails the scenario."""
    from pe_eval_core.scenarios.models import Scenario, TargetResponse
    from pe_eval_core.scenarios.scoring.checks import write_fields
    from pe_eval_core.scenarios.scoring.score import score_response
    from pe_eval_core.scenarios.trace import ToolTrace, TraceCall

    ran = TraceCall(server="mimic-stripe", tool="refund_payment")
    named = ran.model_copy(update={"allowed_by_name": True})
    assert write_fields(ToolTrace(calls=[ran]), [])["write_failure"] is not None
    fields = write_fields(ToolTrace(calls=[named]), [])
    assert fields["write_failure"] is None
    assert fields["writes_executed"] == ["mimic-stripe/refund_payment"]  # still listed

    # an HTTP agent's reported call: the scenario's metadata.allow_tools names it
    base = scenario("s") | {"name": "s"}
    reported = TargetResponse(text="MRR fell $241.00.", tool_calls=["refund_payment"])
    assert score_response(Scenario.model_validate(base), reported).status == "fail"
    allowed = base | {"metadata": {**base["metadata"], "allow_tools": ["refund_payment"]}}
    assert score_response(Scenario.model_validate(allowed), reported).status == "pass"
