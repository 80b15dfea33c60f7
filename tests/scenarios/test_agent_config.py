"""``.mcp.json`` loading and overrides, the read-only tool policy, HTTP toolCalls as a trace."""

from __future__ import annotations

import json

import pytest

from pe_eval_core.errors import McpConfigError
from pe_eval_core.scenarios.agent.mcp_config import (
    load_mcp_config,
    resolve_platforms,
    select_servers,
    with_overrides,
)
from pe_eval_core.scenarios.agent.tool_policy import ToolPolicy
from pe_eval_core.scenarios.llm.pricing import call_cost_usd, price
from pe_eval_core.scenarios.trace import TokenUsage, trace_from_tool_calls


def write(tmp_path, doc) -> str:
    path = tmp_path / ".mcp.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_loads_http_and_stdio_with_env_expansion(tmp_path):
    write(
        tmp_path,
        {
            "mcpServers": {
                "mimic-postgres": {"type": "http", "url": "http://localhost:${PORT:-4201}/mcp"},
                "local": {"command": "python3", "args": ["srv.py"], "env": {"KEY": "${KEY}"}},
            }
        },
    )
    # a folder holding .mcp.json; ${KEY} expands because the user named it
    config = load_mcp_config(tmp_path, env={"KEY": "s3cret"}, expand=["KEY"])
    http, stdio = config.servers.values()
    assert (http.type, http.url) == ("http", "http://localhost:4201/mcp")
    assert (stdio.type, stdio.command, stdio.args, stdio.env) == (
        "stdio",
        "python3",
        ["srv.py"],
        {"KEY": "s3cret"},
    )
    r = resolve_platforms(config, ["database", "stripe", "cross-platform"])
    assert r.by_platform == {"database": "mimic-postgres"} and r.missing == ["stripe"]
    assert r.attached == ["mimic-postgres", "local"]  # every configured server by default
    over = with_overrides(
        config, ["mimic-postgres=http://127.0.0.1:9/mcp", "mimic-stripe=http://h/mcp"]
    )
    assert over.servers["mimic-postgres"].url == "http://127.0.0.1:9/mcp"
    assert over.names() == ["mimic-postgres", "local", "mimic-stripe"]
    assert select_servers(over, ["local"]).names() == ["local"]
    with pytest.raises(McpConfigError, match="no MCP server named 'nope'"):
        select_servers(over, ["nope"])


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{not json", "malformed JSON at line 1, column 2"),
        ({"servers": {}}, 'no "mcpServers" object'),
        (
            {"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}},
            "type 'sse' is not supported",
        ),
        ({"mcpServers": {"a": {"type": "http"}}}, "mcpServers.a.url: Field required"),
        ({"mcpServers": {"a": {"url": "ftp://h"}}}, "is not an http(s) URL"),
        ({"mcpServers": {"a": {"args": []}}}, "cannot tell the transport"),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": "${UNSET_VAR}"}}}}, "UNSET_VAR"),
    ],
)
def test_config_errors_name_the_field(tmp_path, doc, message):
    with pytest.raises(McpConfigError) as err:
        load_mcp_config(write(tmp_path, doc), env={}, expand=["UNSET_VAR"])
    assert message in str(err.value)


def test_missing_named_config_and_no_default(tmp_path, monkeypatch):
    with pytest.raises(McpConfigError, match="does not exist"):
        load_mcp_config(tmp_path / "nope.json")
    monkeypatch.chdir(tmp_path)
    assert load_mcp_config().servers == {}


@pytest.mark.parametrize(
    "tool",
    [
        "create_refund",
        "update_subscription",
        "delete_customer",
        "cancel_subscription",
        "confirm_payment_intent",
        "capture_payment_intent",
        "finalize_invoice",
        "send_invoice",
        "post_message",
    ],
)
def test_write_named_tools_are_refused_by_default(tool):
    decision = ToolPolicy().decide("mimic-stripe", tool)
    assert not decision.allowed and decision.write_attempt
    assert "read-only evaluation" in decision.refusal_text(tool)
    assert ToolPolicy(allow_writes=True).decide("mimic-stripe", tool).allowed


def test_policy_exact_names_and_annotations():
    policy = ToolPolicy(allow=("mimic-stripe/create_refund",), deny=("get_support_notes",))
    assert policy.decide("mimic-stripe", "create_refund").allowed
    assert not policy.decide("other", "create_refund").allowed
    denied = policy.decide("mimic-database", "get_support_notes")
    assert not denied.allowed and not denied.write_attempt
    assert ToolPolicy(allow=("create_*",)).decide("s", "create_x").write_attempt  # no globs
    # a hint cannot widen: a read-looking tool on no allow-list stays refused ...
    assert not ToolPolicy().decide("s", "list_invoices", {"readOnlyHint": True}).allowed
    # ... and can narrow: a listed read tool annotated as destructive is refused
    assert (
        ToolPolicy()
        .decide("mimic-stripe", "list_invoices", {"destructiveHint": True})
        .write_attempt
    )
    assert "read allow-list" in ToolPolicy().describe()


def test_http_tool_calls_become_a_trace():
    trace = trace_from_tool_calls(
        [
            {"name": "get_customers", "arguments": {"status": "active"}, "result": [{"id": 1}]},
            {"name": "list_invoices", "arguments": "not json"},
        ]
    )
    assert trace.stop == "external" and trace.error is None
    assert trace.calls[0].result_excerpt == '[{"id": 1}]'
    assert trace.calls[1].arguments == {"_raw": "not json"}
    assert type(trace).model_validate_json(trace.model_dump_json()) == trace


def test_no_prefix_guessing_in_prices():
    assert price("claude-sonnet-4-5-20250929") == price("claude-sonnet-4-5")
    assert price("claude-sonnet-5-7") is None  # not listed: unknown, not a family guess
    assert call_cost_usd("claude-sonnet-5-7", TokenUsage(input=10)) is None
    assert price("claude-haiku-5-5") is None  # two price bands by prompt: not one price
