"""Which MCP tools the agent under test may run: an allow-list of reads, as the seed requires.

The seed's critical rule: "the skill never writes, posts, sends or otherwise mutates anything".
A name filter cannot keep that promise (``get_and_delete_customer``, ``refund_payment``,
``createRefund`` and ``slack_post_message`` all slip past ``create_*``), and neither can a
server's own ``readOnlyHint`` (a server may say anything). So a tool runs only when it is
*known* to read. :meth:`ToolPolicy.decide` answers, in this order:

1. a ``deny`` glob matches (bare or ``server/tool``) -> refused;
2. the user allowed it **by exact name** (``allow``: ``tool`` or ``server/tool``; the flag
   ``--allow-tool``, or a scenario's ``metadata.allow_tools``) -> runs;
3. ``allow_writes`` (``--allow-writes``: the operator turned the allow-list off) -> runs;
4. the server's annotations say ``readOnlyHint: false`` or ``destructiveHint: true`` ->
   refused (a hint can narrow the allow-list, never widen it);
5. it is on the read allow-list for its server (:func:`known_read`) -> runs;
6. anything else -> refused, whatever its name: the trace records the refusal as a write
   attempt (the tool is not known to be a read), which fails a read-only scenario unless the
   scenario expects that tool.

The read allow-list (:func:`known_read`) is Mimic's published read tools:

* on the Stripe server (``mimic-stripe`` / ``stripe``): the 13 read tools of
  ``@mimicai/adapter-stripe`` by exact name (:data:`STRIPE_READ_TOOLS`), each only while its
  arguments stay within the published ones (a listed name with other arguments is refused);
* on the database server (``mimic-database`` / ``mimic-postgres`` / ``database`` /
  ``primary``): the tools ``@mimicai/core`` generates per table, ``get_<table>`` and
  ``get_<table>_summary``, when every argument is a scalar filter (string, number, integer or
  boolean, as the generator emits) and no word of ``<table>`` is a write verb
  (``get_and_delete_customer`` is refused; a table really named like that is allowed by
  exact name).

A tool on any other server runs only when allowed by exact name. A refusal goes back to the
model as an error tool result (:meth:`ToolDecision.refusal_text`) and into the trace.

>>> p = ToolPolicy()
>>> p.decide("mimic-stripe", "create_refund").write_attempt
True
>>> p.decide("mimic-stripe", "list_invoices").allowed
True
>>> p.decide("mimic-stripe", "refund_payment").reason
"not on the read allow-list of server 'mimic-stripe'"
>>> ToolPolicy(allow=("create_draft",)).decide("s", "create_draft").allowed
True
>>> ToolPolicy(deny=("mimic-stripe/*",)).decide("mimic-stripe", "list_invoices").reason
"denied by pattern 'mimic-stripe/*'"
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from pe_eval_core.scenarios.trace import hint_says_write, write_reason, write_verb

__all__ = ["STRIPE_READ_TOOLS", "ToolDecision", "ToolPolicy", "known_read", "write_reason"]

STRIPE_READ_TOOLS: Mapping[str, frozenset[str]] = {
    # tool -> its published arguments (@mimicai/adapter-stripe, registerStripeTools)
    "fetch_stripe_resources": frozenset({"resource_type", "resource_id"}),
    "get_stripe_account_info": frozenset(),
    "list_coupons": frozenset(),
    "list_customers": frozenset({"email", "limit"}),
    "list_disputes": frozenset(),
    "list_invoices": frozenset({"customer", "status"}),
    "list_payment_intents": frozenset({"customer", "limit"}),
    "list_prices": frozenset({"product"}),
    "list_products": frozenset(),
    "list_subscriptions": frozenset({"customer", "status"}),
    "retrieve_balance": frozenset(),
    "search_stripe_documentation": frozenset({"query"}),
    "search_stripe_resources": frozenset({"query", "resource"}),
}
"""Mimic's Stripe read tools and their arguments. Its writes (``create_refund``,
``cancel_subscription``, ``update_dispute``, ``finalize_invoice``, ...) are not here."""

STRIPE_SERVERS = ("mimic-stripe", "stripe")
DATABASE_SERVERS = ("mimic-database", "mimic-postgres", "database", "primary")
"""Server names of Mimic's two servers (the seed's, the example ``.mcp.json``'s and
``mimic host``'s own), as in ``mcp_config.PLATFORM_ALIASES``."""

_SCALAR = frozenset({"string", "integer", "number", "boolean"})
_DB_READ = re.compile(r"get_(?P<table>[A-Za-z0-9_]+?)(?:_summary)?")


@dataclass(frozen=True, slots=True)
class ToolDecision:
    """The policy's answer for one tool."""

    allowed: bool
    reason: str
    """Why, in words: ``"Mimic read tool"``, ``"allowed by name 'create_refund'"``, ..."""
    write_attempt: bool = False
    """True when refused because the tool is not known to read (fails a read-only scenario)."""
    by_name: bool = False
    """Allowed by exact name (the operator's ``--allow-tool`` or the scenario's
    ``metadata.allow_tools``): it runs on purpose and fails no read-only rule."""

    def refusal_text(self, tool: str) -> str:
        """The error result the model receives instead of calling the tool."""
        if self.write_attempt:
            return (
                f"Tool {tool!r} was not run: this is a read-only evaluation and only known "
                f"read tools run ({self.reason}). Do not retry it; answer from read tools only "
                "and describe the action you would recommend instead."
            )
        return f"Tool {tool!r} was not run: it is not allowed in this evaluation ({self.reason})."


def _properties(input_schema: Any) -> dict[str, Any] | None:
    """The schema's ``properties`` (empty when it has none), or None when it is no object."""
    if input_schema is None:
        return {}
    if not isinstance(input_schema, Mapping):
        return None
    props = input_schema.get("properties") or {}
    return dict(props) if isinstance(props, Mapping) else None


def _scalar(prop: Any) -> bool:
    """A scalar filter: ``{"type": "string"}``, ``{"type": ["integer", "null"]}`` or an
    ``anyOf`` / ``oneOf`` of such (how JSON Schema writers spell an optional scalar).

    >>> _scalar({"anyOf": [{"type": "string"}, {"type": "null"}]}), _scalar({"type": "object"})
    (True, False)
    """
    if not isinstance(prop, Mapping):
        return False
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list) and options and "type" not in prop:
        kinds = [o.get("type") if isinstance(o, Mapping) else None for o in options]
    else:
        kind = prop.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
    return all(k in _SCALAR or k == "null" for k in kinds) and any(k in _SCALAR for k in kinds)


def known_read(server: str, tool: str, input_schema: Any = None) -> str | None:
    """Why ``tool`` on ``server`` is on the read allow-list, or None when it is not.

    >>> known_read("mimic-stripe", "list_customers", {"properties": {"email": {}}})
    'Mimic Stripe read tool'
    >>> known_read("mimic-stripe", "list_customers", {"properties": {"delete": {}}}) is None
    True
    >>> int_limit = {"properties": {"limit": {"type": "integer"}}}
    >>> known_read("primary", "get_customers_summary", int_limit)
    'Mimic database read tool (table customers)'
    >>> known_read("primary", "get_and_delete_customer") is None, known_read("x", "list_prices")
    (True, None)
    """
    props = _properties(input_schema)
    if props is None:
        return None
    if server in STRIPE_SERVERS:
        published = STRIPE_READ_TOOLS.get(tool)
        if published is not None and set(props) <= published:
            return "Mimic Stripe read tool"
        return None
    if server in DATABASE_SERVERS:
        m = _DB_READ.fullmatch(tool)
        if m is None or write_verb(m["table"]) is not None:
            return None
        if all(_scalar(p) for p in props.values()):
            return f"Mimic database read tool (table {m['table']})"
    return None


def _matches(names: Iterable[str], wanted: Iterable[str]) -> str | None:
    wanted = set(wanted)
    return next((n for n in names if n in wanted), None)


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """The read allow-list, the user's exact-name allows and glob denies (module docstring)."""

    allow: tuple[str, ...] = ()
    """Tools allowed by exact name, bare (``create_refund``) or ``server/tool``."""
    deny: tuple[str, ...] = ()
    """Globs refused first, bare or ``server/tool`` (``mimic-stripe/*``)."""
    allow_writes: bool = False
    """The allow-list off: every tool runs (``--allow-writes``, the operator's choice)."""

    def decide(
        self,
        server: str,
        tool: str,
        annotations: Any = None,
        input_schema: Any = None,
        *,
        allow: Iterable[str] = (),
    ) -> ToolDecision:
        """The decision for one tool; ``allow``: more exact names (a scenario's own)."""
        names = (tool, f"{server}/{tool}")
        for pattern in self.deny:
            if any(fnmatchcase(n, pattern) for n in names):
                return ToolDecision(False, f"denied by pattern {pattern!r}")
        named = _matches(names, (*self.allow, *allow))
        if named is not None:
            return ToolDecision(True, f"allowed by name {named!r}", by_name=True)
        if self.allow_writes:
            return ToolDecision(True, "the allow-list is off (writes allowed)")
        hint = hint_says_write(annotations)
        if hint is not None:
            return ToolDecision(False, hint, write_attempt=True)
        why = known_read(server, tool, input_schema)
        if why is not None:
            return ToolDecision(True, why)
        return ToolDecision(
            False, f"not on the read allow-list of server {server!r}", write_attempt=True
        )

    def describe(self) -> str:
        """One line for a run header or the dashboard's target panel."""
        parts = [
            "every tool runs (--allow-writes: writes persist on the server for later scenarios)"
            if self.allow_writes
            else "read allow-list (Mimic's read tools; anything else refused)"
        ]
        if self.allow:
            parts.append("allowed by name: " + ", ".join(self.allow))
        if self.deny:
            parts.append("deny " + ", ".join(self.deny))
        return "; ".join(parts)
