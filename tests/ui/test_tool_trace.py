"""The failure drill-down's tool-trace table (issue 9), rendered headlessly with AppTest."""

from __future__ import annotations

TIMEOUT = 120  # seconds, as tests/ui/conftest.py


def _page() -> None:
    from ui.views.scenario_failure import render_tool_trace

    render_tool_trace(
        {
            "turns": 2,
            "stop": "end_turn",
            "cost_usd": 0.0123,
            "calls": [
                {"server": "mimic-stripe", "tool": "list_invoices", "turn": 1,
                 "arguments": {"customer": "cus_GL078"}, "result_excerpt": "paid twice"},
                {"server": "mimic-stripe", "tool": "create_refund", "turn": 2, "arguments": {},
                 "is_error": True, "write_attempt": True, "result_excerpt": "read-only"},
            ],
        }
    )  # fmt: skip
    render_tool_trace(None)  # no trace: nothing shown


def test_tool_trace_table_lists_turn_tool_arguments_result_and_error():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert r"2 tool calls · stop end\_turn · \$0.0123" in at.markdown[0].value
    table = at.dataframe[0].value
    assert list(table.columns) == ["Turn", "Tool", "Arguments", "Result excerpt", "Error"]
    assert table["Tool"].tolist() == ["mimic-stripe/list_invoices", "mimic-stripe/create_refund"]
    assert table["Error"].tolist() == ["", "refused write"]
    assert table["Arguments"][0] == '{"customer": "cus_GL078"}'
