"""Tool names in every form agents write them, and brackets that negate only in accounts."""

from __future__ import annotations

import pytest

from pe_eval_core.scenarios import TargetResponse, score_response
from pe_eval_core.scenarios.scoring.range_reader import Range, accounting_brackets, read_range
from pe_eval_core.scenarios.tool_names import same_tool, unknown_tool_warnings
from pe_eval_core.scenarios.trace import ToolTrace, TraceCall
from tests.helpers.scenario_helpers import make_scenario

# (expected name, call server, call tool, trace servers, same tool?)
NAMES = [
    ("get_payments", "mimic-database", "get_payments", (), True),
    ("mimic-database/get_payments", "mimic-database", "get_payments", (), True),
    ("mimic-database__get_payments", "mimic-database", "get_payments", (), True),
    ("mcp__mimic-database__get_payments", "mimic-database", "get_payments", (), True),
    ("get_payments", None, "mcp__mimic-database__get_payments", (), True),
    ("mimic-database/get_payments", None, "mcp__mimic-database__get_payments", (), True),
    ("mcp__mimic-database__get_payments", None, "mimic-database__get_payments", (), True),
    ("list_invoices", None, "list_invoices", (), True),
    # a scenario written for another server name, run where that server is absent: same tool
    ("mcp__mimic-database__get_payments", "mimic-postgres", "get_payments", ("mimic-postgres",),
     True),
    # not the same tool
    ("get_payments", "mimic-database", "get_payments_summary", (), False),
    ("mcp__mimic-stripe__list_invoices", "mimic-database", "list_invoices",
     ("mimic-database", "mimic-stripe"), False),
    ("create_refund", None, "mcp__mimic-stripe__list_refunds", (), False),
    ("Get_Payments", "mimic-database", "get_payments", (), False),
]  # fmt: skip


@pytest.mark.parametrize(("expected", "server", "tool", "servers", "same"), NAMES)
def test_tool_name_forms(expected, server, tool, servers, same) -> None:
    assert same_tool(expected, server, tool, servers) is same


@pytest.mark.parametrize(
    ("wanted", "reported"),
    [
        ("mcp__mimic-database__get_payments", "get_payments"),
        ("get_payments", "mcp__mimic-database__get_payments"),
        ("mimic-database/get_payments", "mimic-database__get_payments"),
    ],
)
def test_tools_called_through_the_scorer(wanted: str, reported: str) -> None:
    s = make_scenario(tools_called=[wanted], response_contains=["payments"])
    r = score_response(s, TargetResponse(text="8 payments failed.", tool_calls=[reported]))
    [b] = r.behaviour
    assert (r.status, b.satisfied) == ("pass", True), b.detail


def test_a_write_reported_in_claude_code_form_is_still_a_write() -> None:
    s = make_scenario(confirms_before_action=True)
    t = ToolTrace(calls=[TraceCall(tool="mcp__mimic-stripe__create_refund")])
    r = score_response(s, TargetResponse(text="Done.", trace=t))
    [b] = r.behaviour
    assert not b.satisfied and b.findings == ["mimic-stripe/create_refund"]


def test_unknown_tool_names_are_load_warnings_naming_the_scenario() -> None:
    catalog = {
        "mimic-database": ["get_payments", "get_customers"],
        "mimic-stripe": ["list_invoices", "create_refund"],
    }
    warnings = unknown_tool_warnings(
        [
            ("refund-check", ["mcp__mimic-stripe__create_refund", "issue_refund"]),
            ("payments", ["mimic-database/get_payments", "mimic-postgres/get_customers"]),
            ("typo", ["mimic-database/get_payment"]),
        ],
        catalog,
    )
    assert len(warnings) == 2
    assert warnings[0].startswith("scenario 'refund-check': tools_called names 'issue_refund'")
    assert warnings[1].startswith("scenario 'typo': tools_called names 'mimic-database/get_pay")
    assert unknown_tool_warnings([("x", ["anything"])], {}) == []  # tools unknown: silent


# (text, bracketed figure, accounting?): rule 6 of range_reader
BRACKETS = [
    ("| Refunds | ($920) |", "($920)", True),
    ("| Refunds | **($920)** |", "($920)", True),
    ("Net change: ($920)", "($920)", True),
    ("Net change = ($920).", "($920)", True),
    ("Refunds\t($920)", "($920)", True),
    ("Refunds .......... ($920)", "($920)", True),
    ("($920)", "($920)", True),
    ("- (1,200)", "(1,200)", True),
    ("We refunded the duplicate ($920) on Friday.", "($920)", False),
    ("Expired cards cost the most ($920).", "($920)", False),
    ("| Expired cards | cost the most ($920) |", "($920)", False),
    ("Net change: ($920) after refunds", "($920)", False),
    ("The three refunds ($920 in all) landed together.", "($920", False),
]


@pytest.mark.parametrize(("text", "figure", "accounting"), BRACKETS)
def test_brackets_negate_only_in_accounting_context(text, figure, accounting) -> None:
    start = text.index(figure)
    if figure.endswith(")"):
        assert accounting_brackets(text, start, start + len(figure)) is accounting
    net = Range(field="net_refund_change", min=880, max=960)  # a signed field: no magnitude
    assert read_range(text, net).satisfied is (not accounting)


def test_prose_brackets_pass_a_signed_range_through_the_scorer() -> None:
    s = make_scenario(numeric_range={"field": "net_refunds", "min": 900, "max": 940})
    prose = "Refunds this week ($920) were all for duplicate charges."
    assert score_response(s, TargetResponse(text=prose)).status == "pass"
    table = "| Week | Net refunds |\n|---|---|\n| 17 | ($920) |"
    assert score_response(s, TargetResponse(text=table)).status == "fail"


def test_the_run_warns_about_unknown_tools_and_persisting_writes_once_servers_are_open() -> None:
    from types import SimpleNamespace

    from pe_eval_core.scenarios.agent.tool_policy import ToolPolicy
    from pe_eval_core.scenarios.run.notices import toolbox_notices

    specs = {
        "a": SimpleNamespace(server="mimic-stripe", name="create_refund"),
        "b": SimpleNamespace(server="mimic-database", name="get_payments"),
    }
    toolbox = SimpleNamespace(
        tools=specs,
        servers=[SimpleNamespace(name="mimic-stripe", where="http://127.0.0.1:4202/mcp")],
        policy=ToolPolicy(allow_writes=True),
    )
    scenarios = [
        make_scenario("ok", tools_called=["mcp__mimic-database__get_payments"]),
        make_scenario("typo", tools_called=["get_payment"]),
    ]
    notices = toolbox_notices(scenarios, SimpleNamespace(toolbox=toolbox))
    assert notices[0].startswith("scenario 'typo': tools_called names 'get_payment'")
    assert "persists for every later scenario" in notices[1] and "Mimic" in notices[1]
    read_only = SimpleNamespace(**{**vars(toolbox), "policy": ToolPolicy()})
    assert len(toolbox_notices(scenarios, SimpleNamespace(toolbox=read_only))) == 1
    assert toolbox_notices(scenarios, SimpleNamespace()) == []  # no toolbox: tools unknown
