"""Tool names as agents and eval engineers write them: ``tool``, ``server/tool``,
``server__tool`` and Claude Code's ``mcp__server__tool``.

An expectation ``tools_called: ["mcp__mimic-database__get_payments"]`` and a trace call
``get_payments`` on server ``mimic-database`` name the same call; so do an HTTP agent's
reported ``mimic-stripe__list_invoices`` and an expected ``list_invoices``. The rule
(``same_tool``):

1. Each side is split into an optional server and a tool (``split_tool_name``).
2. The tools must be equal (case-sensitive: MCP tool names are).
3. The servers must be equal when both sides name one, unless the trace holds no call on the
   expected server at all: a scenario written against ``mimic-database`` still matches a run
   whose ``.mcp.json`` names that server ``mimic-postgres`` (Mimic's own example does).

``unknown_tool_warnings`` makes a load warning, naming the scenario, for each expected tool
no attached server offers (when the servers' tool lists are known).

>>> split_tool_name("mcp__mimic-database__get_payments")
('mimic-database', 'get_payments')
>>> split_tool_name("mimic-stripe/list_invoices"), split_tool_name("list_invoices")
(('mimic-stripe', 'list_invoices'), (None, 'list_invoices'))
>>> same_tool("mcp__mimic-stripe__create_refund", "mimic-stripe", "create_refund")
True
>>> same_tool("get_payments", None, "mimic-database__get_payments")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = ["display_name", "same_tool", "split_tool_name", "unknown_tool_warnings"]


def split_tool_name(name: str) -> tuple[str | None, str]:
    """``(server or None, tool)`` of a name in any of the four forms.

    >>> split_tool_name("stripe__list__things"), split_tool_name("mcp__db__get_rows")
    (('stripe', 'list__things'), ('db', 'get_rows'))
    >>> split_tool_name("/oddly/named"), split_tool_name("mcp__alone")
    ((None, '/oddly/named'), ('mcp', 'alone'))
    """
    if name.startswith("mcp__"):
        parts = name.split("__", 2)
        if len(parts) == 3 and parts[1] and parts[2]:
            return parts[1], parts[2]
    if "__" in name:
        server, _, tool = name.partition("__")
        if server and tool:
            return server, tool
    if "/" in name:
        server, _, tool = name.partition("/")
        if server and tool:
            return server, tool
    return None, name


def _call_parts(server: str | None, tool: str) -> tuple[str | None, str]:
    """A trace call's server and tool; a tool reported in a prefixed form is split."""
    named_server, bare = split_tool_name(tool)
    return (server or named_server), bare


def same_tool(
    expected: str,
    server: str | None,
    tool: str,
    trace_servers: Iterable[str | None] = (),
) -> bool:
    """Whether a trace call (``server``, ``tool``) is the ``expected`` tool (rules 1-3).

    ``trace_servers``: the servers of every call in the trace (rule 3's exception).

    >>> same_tool("mimic-database/get_payments", "mimic-postgres", "get_payments",
    ...           ["mimic-postgres", "mimic-stripe"])
    True
    >>> same_tool("mimic-database/get_payments", "mimic-postgres", "get_payments",
    ...           ["mimic-postgres", "mimic-database"])
    False
    >>> same_tool("get_payments", "db", "get_payment")
    False
    """
    want_server, want_tool = split_tool_name(expected)
    have_server, have_tool = _call_parts(server, tool)
    if want_tool != have_tool:
        return False
    if want_server is None or have_server is None or want_server == have_server:
        return True
    return want_server not in set(trace_servers)


def display_name(server: str | None, tool: str) -> str:
    """``server/tool``, or the tool alone when no server is known.

    >>> display_name("mimic-stripe", "list_invoices"), display_name(None, "mcp__db__get_rows")
    ('mimic-stripe/list_invoices', 'db/get_rows')
    """
    s, t = _call_parts(server, tool)
    return f"{s}/{t}" if s else t


def unknown_tool_warnings(
    expected: Iterable[tuple[str, Sequence[str]]], catalog: Mapping[str, Iterable[str]]
) -> list[str]:
    """A warning per expected tool no attached server offers.

    ``expected``: ``(scenario name, its tools_called names)``; ``catalog``: each attached
    server's tool names. An empty catalog (tools unknown) warns about nothing.

    >>> [w] = unknown_tool_warnings([("refund-check", ["create_refund", "mcp__stripe__refund_x"])],
    ...                             {"stripe": ["create_refund", "list_invoices"]})
    >>> w.split(", which")[0]
    "scenario 'refund-check': tools_called names 'mcp__stripe__refund_x'"
    """
    offered = {server: set(tools) for server, tools in catalog.items()}
    if not offered:
        return []
    every = set().union(*offered.values())
    out = []
    for scenario, names in expected:
        for name in names:
            server, tool = split_tool_name(name)
            known = tool in offered.get(server, set()) if server in offered else tool in every
            if not known:
                out.append(
                    f"scenario {scenario!r}: tools_called names {name!r}, which no attached "
                    f"server offers (servers: {', '.join(sorted(offered))}): it can never be "
                    "called"
                )
    return out
