"""The agent's tool-use loop against real MCP servers (in-process Streamable HTTP and stdio),
with the Messages API scripted through the SDK's mock transport. No network, no API key."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
from pathlib import Path

import anthropic
import pytest
import uvicorn

from pe_eval_core.errors import AgentBoundsError, McpServerUnreachableError
from pe_eval_core.scenarios.agent.loop import (
    AgentBounds,
    McpToolbox,
    api_tool_name,
    check_servers,
    run_agent,
)
from pe_eval_core.scenarios.agent.mcp_config import HttpServerConfig, StdioServerConfig
from pe_eval_core.scenarios.agent.tool_policy import ToolPolicy
from pe_eval_core.scenarios.trace import ToolTrace
from tests.helpers.mimic_like_server import WRITES, build_server
from tests.helpers.scenario_helpers import MockAnthropic

pytestmark = pytest.mark.timeout(120)

SERVER_SCRIPT = Path(__file__).parents[1] / "helpers" / "mimic_like_server.py"
SYSTEM = "# Revenue recovery\nReport MRR lost by cause."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def http_url():
    """The Mimic-like server over Streamable HTTP on 127.0.0.1, in this process."""
    port = free_port()
    config = uvicorn.Config(
        build_server("mimic-stripe").streamable_http_app(),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def servers(http_url):
    WRITES.clear()
    return [
        StdioServerConfig(
            name="mimic-database", command=sys.executable, args=[str(SERVER_SCRIPT), "db"]
        ),
        HttpServerConfig(name="mimic-stripe", url=http_url),
    ]


# --- scripted model ---------------------------------------------------------------------------


def use(name: str, tool_input: dict | None = None, id: str | None = None) -> dict:
    return {
        "type": "tool_use",
        "id": id or f"toolu_{name}",
        "name": name,
        "input": tool_input or {},
    }


def reply(
    *blocks: dict | str,
    stop: str | None = None,
    usage: tuple[int, int, int, int] = (100, 20, 0, 0),
    model: str = "claude-sonnet-4-5",
) -> dict:
    content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
    has_use = any(b["type"] == "tool_use" for b in content)
    return {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop or ("tool_use" if has_use else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage[0],
            "output_tokens": usage[1],
            "cache_read_input_tokens": usage[2],
            "cache_creation_input_tokens": usage[3],
        },
    }


TEST_READS = ToolPolicy(allow=("broken_read", "dump_payments", "slow_report"))
"""The test server's own read tools, which are not Mimic's: allowed by exact name."""


def drive(servers, *replies, bounds=None, policy=TEST_READS, user="Why did MRR drop?"):
    api = MockAnthropic(*replies)

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        async with McpToolbox(servers, policy) as box:
            return await run_agent(client, "claude-sonnet-4-5", SYSTEM, user, box, bounds), box

    (result, box) = asyncio.run(go())
    return result, api.requests, box


def tool_results(request: dict) -> list[dict]:
    return [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]


# --- the loop ---------------------------------------------------------------------------------


def test_fans_out_over_both_servers_refuses_the_write_and_answers(servers):
    result, requests, _ = drive(
        servers,
        reply(
            "Looking at both sources.",
            use("mimic-database__get_customers", {"status": "active"}, "t1"),
            use("mimic-stripe__list_invoices", {"customer": "cus_GL078"}, "t2"),
            usage=(2000, 80, 0, 1800),
        ),
        reply(
            use("mimic-stripe__create_refund", {"charge": "ch_quill_b"}, "t3"),
            usage=(300, 30, 1800, 0),
        ),
        reply("Quill Studio was double-charged on in_quill_apr.", usage=(400, 60, 1800, 0)),
    )
    text, trace, stop = result
    assert (text, stop, trace.error) == (
        "Quill Studio was double-charged on in_quill_apr.",
        "end_turn",
        None,
    )

    # request shape: prefixed tools from both servers, the prefix cached, temperature 0
    first = requests[0]
    names = [t["name"] for t in first["tools"]]
    assert "mimic-database__get_customers" in names and "mimic-stripe__list_invoices" in names
    assert "mimic-stripe__create_refund" in names  # offered; refused when called
    assert [t.get("cache_control") for t in first["tools"]][-1] == {"type": "ephemeral"}
    assert all("cache_control" not in t for t in first["tools"][:-1])
    assert first["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
    ]
    assert first["temperature"] == 0 and first["max_tokens"] == 4096
    assert first["messages"] == [{"role": "user", "content": "Why did MRR drop?"}]
    assert all(r["tools"] == first["tools"] for r in requests)  # same prefix every turn

    # results fed back, matched by tool_use id, with is_error
    second = requests[1]
    assert second["messages"][1]["role"] == "assistant"
    assert [b["type"] for b in second["messages"][1]["content"]] == ["text", "tool_use", "tool_use"]
    r1, r2 = tool_results(second)
    assert (r1["tool_use_id"], r1["is_error"]) == ("t1", False)
    assert "Orchard & Pike" in r1["content"] and "Lantern Labs" not in r1["content"]
    assert (r2["tool_use_id"], r2["is_error"]) == ("t2", False)
    assert "in_quill_apr" in r2["content"]
    (r3,) = tool_results(requests[2])
    assert r3["is_error"] is True and "read-only evaluation" in r3["content"]
    assert WRITES == []  # the write never reached the server

    # the trace
    assert trace.turns == 3 and trace.stop == "end_turn"
    assert [(c.server, c.tool, c.turn) for c in trace.calls] == [
        ("mimic-database", "get_customers", 1),
        ("mimic-stripe", "list_invoices", 1),
        ("mimic-stripe", "create_refund", 2),
    ]
    assert trace.calls[0].arguments == {"status": "active"}
    assert "Orchard & Pike" in trace.calls[0].result_excerpt
    assert all(c.latency_ms is not None and c.latency_ms >= 0 for c in trace.calls)
    refund = trace.calls[2]
    assert (refund.refused, refund.write_attempt, refund.is_error) == (True, True, True)
    assert trace.write_attempts == 1
    assert trace.tokens.model_dump() == {
        "input": 2700,
        "output": 170,
        "cache_read": 3600,
        "cache_write": 1800,
    }
    # 2700*3 + 170*15 + 3600*0.3 + 1800*3.75 per million
    assert trace.cost_usd == pytest.approx(0.01848)
    assert trace.servers == ["mimic-database", "mimic-stripe"]
    assert ToolTrace.model_validate_json(trace.model_dump_json()) == trace
    assert "1 write attempt" in trace.compact()


def test_tool_errors_and_unknown_tools_go_back_as_error_results(servers):
    result, requests, _ = drive(
        servers,
        reply(use("mimic-stripe__broken_read", id="a"), use("mimic-stripe__nope", id="b")),
        reply("Sources partly unavailable."),
    )
    ra, rb = tool_results(requests[1])
    assert ra["is_error"] and "risk_flags is locked" in ra["content"]
    assert rb["is_error"] and rb["content"].startswith("Unknown tool 'mimic-stripe__nope'")
    assert result.stop == "end_turn" and [c.is_error for c in result.trace.calls] == [True, True]


def test_annotated_writes_are_refused_and_allow_writes_lets_them_run(servers):
    result, _, _ = drive(
        servers,
        reply(use("mimic-stripe__archive_customer", {"customer_id": 81})),
        reply("done"),
    )
    (call,) = result.trace.calls
    assert call.write_attempt and "readOnlyHint" in call.result_excerpt
    assert WRITES == []
    result, _, _ = drive(
        servers,
        reply(use("mimic-stripe__create_refund", {"charge": "ch_1"})),
        reply("refunded"),
        policy=ToolPolicy(allow_writes=True),
    )
    assert result.trace.write_attempts == 0 and not result.trace.calls[0].is_error
    assert WRITES == [("create_refund", {"charge": "ch_1", "amount": None})]


# --- every bound is a status ------------------------------------------------------------------


def test_max_turns(servers):
    result, requests, _ = drive(
        servers,
        reply(use("mimic-database__get_customers")),  # repeats: the model never stops
        bounds=AgentBounds(max_turns=3),
    )
    assert (result.stop, result.text, len(requests)) == ("max_turns", None, 3)
    assert result.trace.error == "no final answer within max_turns 3"
    assert result.trace.turns == 3 and len(result.trace.calls) == 3


def test_max_tool_calls(servers):
    result, requests, _ = drive(
        servers,
        reply(*(use("mimic-database__get_customers", id=f"u{i}") for i in range(3))),
        bounds=AgentBounds(max_tool_calls=2),
    )
    assert result.stop == "max_tool_calls" and len(requests) == 1
    assert len(result.trace.calls) == 2
    assert "max_tool_calls 2" in result.trace.error


def test_per_call_timeout_is_an_error_result_and_the_loop_goes_on(servers):
    started = time.perf_counter()
    result, requests, _ = drive(
        servers,
        reply(use("mimic-stripe__slow_report", {"seconds": 3})),
        reply("Could not get the report."),
        bounds=AgentBounds(tool_timeout_s=0.3),
    )
    assert time.perf_counter() - started < 8  # stdio start-up included
    (r,) = tool_results(requests[1])
    assert r["is_error"] and "timed out after 0.3s" in r["content"]
    (call,) = result.trace.calls
    assert call.timed_out and call.latency_ms < 2000
    assert result.stop == "end_turn"


def test_result_cap_truncates_and_tells_the_model(servers):
    result, requests, _ = drive(
        servers,
        reply(use("mimic-stripe__dump_payments")),
        reply("Too much data."),
        bounds=AgentBounds(result_cap_chars=1000, excerpt_chars=50),
    )
    (r,) = tool_results(requests[1])
    assert r["content"].startswith("ch_00000")
    assert "[truncated: the result was 60000 characters; only the first 1000" in r["content"]
    assert len(r["content"]) < 1200
    (call,) = result.trace.calls
    assert call.truncated and len(call.result_excerpt) < 100


def test_max_tokens_is_a_truncated_response(servers):
    result, requests, _ = drive(
        servers, reply("The MRR lost is $4,", stop="max_tokens"), bounds=AgentBounds(max_tokens=64)
    )
    assert result.stop == "max_tokens" and requests[0]["max_tokens"] == 64
    assert result.trace.error == "response truncated (max_tokens 64)"
    assert result.text == "The MRR lost is $4,"


def test_api_error_is_a_status():
    import httpx2

    api = MockAnthropic(
        httpx2.Response(
            400,
            json={
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "tools.0.name: bad"},
            },
        )
    )

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        async with McpToolbox([]) as box:
            return await run_agent(client, "m", SYSTEM, "q", box)

    result = asyncio.run(go())
    assert result.stop == "api_error" and "HTTP 400" in result.trace.error
    assert "tools" not in api.requests[0]  # no servers: no tools field


def test_bounds_are_validated():
    with pytest.raises(AgentBoundsError, match="max_turns"):
        AgentBounds(max_turns=0)
    with pytest.raises(AgentBoundsError, match="tool_timeout_s"):
        AgentBounds(tool_timeout_s=0)


# --- reachability -----------------------------------------------------------------------------


def test_unreachable_http_server_fails_fast_with_url_and_reason():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    dead = [HttpServerConfig(name="mimic-stripe", url=url)]
    started = time.perf_counter()
    with pytest.raises(McpServerUnreachableError) as err:
        asyncio.run(check_servers(dead, timeout_s=5))
    assert time.perf_counter() - started < 5
    assert url in str(err.value) and err.value.name == "mimic-stripe"
    assert "connect" in err.value.reason.lower()

    async def open_box():
        async with McpToolbox(dead, connect_timeout_s=5):
            pass

    with pytest.raises(McpServerUnreachableError, match="unreachable"):
        asyncio.run(open_box())


def test_unstartable_stdio_server_is_unreachable():
    bad = [StdioServerConfig(name="db", command="/nonexistent/mcp-server")]
    with pytest.raises(McpServerUnreachableError, match="/nonexistent/mcp-server"):
        asyncio.run(check_servers(bad, timeout_s=5))


def test_check_servers_counts_tools(servers):
    assert asyncio.run(check_servers(servers)) == {"mimic-database": 7, "mimic-stripe": 7}


def test_tool_names_are_prefixed_and_unique(servers):
    async def go():
        async with McpToolbox(servers) as box:
            return list(box.tools), box.instruction()

    names, instruction = asyncio.run(go())
    assert len(names) == len(set(names)) == 14
    assert all(n.startswith(("mimic-database__", "mimic-stripe__")) for n in names)
    assert "`mimic-database`, `mimic-stripe`" in instruction
    assert api_tool_name("a", "b", taken={"a__b"}) != "a__b"


def test_the_trace_keeps_what_the_model_saw_so_no_hallucination_decides(servers):
    from pe_eval_core.scenarios.scoring.behaviour import hallucination_check

    bounds = AgentBounds(result_cap_chars=70_000)
    assert (
        bounds.kept_chars == 70_000 and AgentBounds().kept_chars == AgentBounds().result_cap_chars
    )
    result, _, _ = drive(
        servers,
        reply(use("mimic-stripe__dump_payments")),
        reply("Payment ch_01999, the last one, was 100.00 USD and succeeded."),
        bounds=bounds,
    )
    (call,) = result.trace.calls
    assert not call.truncated and len(call.result_excerpt) == 60_000  # the whole result
    from tests.helpers.scenario_helpers import make_scenario

    check = hallucination_check(result.text, result.trace, make_scenario(no_hallucination=True))
    assert check.method == "trace" and check.satisfied, check.detail
    invented = hallucination_check(
        "Payments totalled 123.45 USD.", result.trace, make_scenario(no_hallucination=True)
    )
    assert invented.method == "trace" and not invented.satisfied
    assert [f.split(": in no tool result")[0] for f in invented.findings] == ["123.45 USD"]
