"""Which MCP tools the agent under test may call: read-only by default, as the seed requires.

The seed's critical rule: "the skill never writes, posts, sends or otherwise mutates anything".
A :class:`ToolPolicy` decides per tool, in this order:

1. a ``deny`` pattern matches -> refused;
2. an ``allow`` pattern matches -> allowed (an explicit allow beats the write defaults);
3. the tool looks like a write (its name matches :data:`WRITE_PATTERNS`, or its MCP
   annotations say ``readOnlyHint: false`` or ``destructiveHint: true``) -> refused as a
   *write attempt*, unless ``allow_writes``;
4. otherwise allowed.

Patterns are shell globs (``fnmatch``, case-sensitive) matched against the bare tool name
(``list_invoices``) and the server-qualified name (``mimic-stripe/list_invoices``).
A refusal goes back to the model as an error tool result (:meth:`ToolDecision.refusal_text`)
and into the trace as a refused call; a write attempt fails the scenario unless writes are
allowed or the scenario expects one (the scorer's business, not this module's).

>>> p = ToolPolicy()
>>> p.decide("mimic-stripe", "create_refund").write_attempt
True
>>> p.decide("mimic-stripe", "list_invoices").allowed
True
>>> ToolPolicy(allow=("create_draft",)).decide("s", "create_draft").allowed
True
>>> ToolPolicy(deny=("mimic-stripe/*",)).decide("mimic-stripe", "list_invoices").reason
"denied by pattern 'mimic-stripe/*'"
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

WRITE_PATTERNS: tuple[str, ...] = (
    "create_*",
    "update_*",
    "delete_*",
    "cancel_*",
    "confirm_*",
    "capture_*",
    "finalize_*",
    "send_*",
    "post_*",
)
"""Tool names that say they write (the issue's list)."""


@dataclass(frozen=True, slots=True)
class ToolDecision:
    """The policy's answer for one tool."""

    allowed: bool
    reason: str
    """Why, in words: ``"read tool"``, ``"name matches 'create_*'"``, ..."""
    write_attempt: bool = False
    """True when refused because the tool writes (recorded on the scenario)."""

    def refusal_text(self, tool: str) -> str:
        """The error result the model receives instead of calling the tool."""
        if self.write_attempt:
            return (
                f"Tool {tool!r} was not run: this is a read-only evaluation and the tool "
                f"writes ({self.reason}). Do not retry it; answer from read tools only and "
                "describe the action you would recommend instead."
            )
        return f"Tool {tool!r} was not run: it is not allowed in this evaluation ({self.reason})."


def _hint(annotations: Any, field: str, alias: str) -> bool | None:
    if annotations is None:
        return None
    if isinstance(annotations, dict):
        value = annotations.get(alias, annotations.get(field))
    else:
        value = getattr(annotations, field, None)
    return value if isinstance(value, bool) else None


def write_reason(tool: str, annotations: Any = None) -> str | None:
    """Why ``tool`` counts as a write, or None for a read.

    ``annotations`` is an ``mcp.types.ToolAnnotations`` or its JSON dict (camelCase).

    >>> write_reason("cancel_subscription"), write_reason("get_invoices")
    ("name matches 'cancel_*'", None)
    >>> write_reason("archive", {"readOnlyHint": False})
    'annotated readOnlyHint: false'
    >>> write_reason("purge", {"destructiveHint": True})
    'annotated destructiveHint: true'
    """
    for pattern in WRITE_PATTERNS:
        if fnmatchcase(tool, pattern):
            return f"name matches {pattern!r}"
    if _hint(annotations, "read_only_hint", "readOnlyHint") is False:
        return "annotated readOnlyHint: false"
    if _hint(annotations, "destructive_hint", "destructiveHint") is True:
        return "annotated destructiveHint: true"
    return None


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """Allow/deny globs plus the read-only default (see the module docstring)."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    allow_writes: bool = False

    def decide(self, server: str, tool: str, annotations: Any = None) -> ToolDecision:
        names = (tool, f"{server}/{tool}")
        for pattern in self.deny:
            if any(fnmatchcase(n, pattern) for n in names):
                return ToolDecision(False, f"denied by pattern {pattern!r}")
        for pattern in self.allow:
            if any(fnmatchcase(n, pattern) for n in names):
                return ToolDecision(True, f"allowed by pattern {pattern!r}")
        why = write_reason(tool, annotations)
        if why is None:
            return ToolDecision(True, "read tool")
        if self.allow_writes:
            return ToolDecision(True, f"write allowed ({why})")
        return ToolDecision(False, why, write_attempt=True)

    def describe(self) -> str:
        """One line for a run header or the dashboard's target panel."""
        parts = [
            "writes allowed (they persist on the server for later scenarios)"
            if self.allow_writes
            else "read-only (writes refused)"
        ]
        if self.allow:
            parts.append("allow " + ", ".join(self.allow))
        if self.deny:
            parts.append("deny " + ", ".join(self.deny))
        return "; ".join(parts)
