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

from pe_eval_core.scenarios.trace import WRITE_PATTERNS, write_reason

__all__ = ["WRITE_PATTERNS", "ToolDecision", "ToolPolicy", "write_reason"]


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
