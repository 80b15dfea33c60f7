"""Run warnings about the agent's tools: expected tools no attached server offers, and writes
that persist on the servers for the rest of the run.

Both land in ``ScenarioRun.warnings``, which every surface shows (the CLI's run header and
summary, the markdown report's run details, the dashboard).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from pe_eval_core.scenarios.models import Scenario, ScenarioResult
from pe_eval_core.scenarios.tool_names import unknown_tool_warnings

__all__ = ["WRITES_PERSIST", "toolbox_notices", "writes_ran_notices"]

WRITES_PERSIST = (
    "--allow-writes: a write tool a scenario runs changes data on its MCP server, and the "
    "change persists for every later scenario of this run{mimic}; a scenario that writes "
    "fails unless it expects that tool"
)
_MIMIC = (
    " (Mimic keeps writes in memory until `mimic host` restarts and offers no reset between "
    "scenarios)"
)


def _is_mimic(toolbox: Any) -> bool:
    return any(
        "mimic" in f"{s.name} {getattr(s, 'where', '')}".lower()
        for s in getattr(toolbox, "servers", [])
    )


def toolbox_notices(scenarios: Sequence[Scenario], target: Any) -> list[str]:
    """Warnings once the target's MCP toolbox is open: a ``tools_called`` name no attached
    server offers (naming the scenario), and with ``--allow-writes`` that writes persist.

    A target without a toolbox (recorded, HTTP, no servers) has none: its tools are unknown.
    """
    toolbox = getattr(target, "toolbox", None)
    if toolbox is None:
        return []
    catalog: dict[str, list[str]] = {}
    for spec in toolbox.tools.values():
        catalog.setdefault(spec.server, []).append(spec.name)
    expected = {s.name: [t.name for t in s.expect.tools_called] for s in scenarios}
    out = unknown_tool_warnings(expected.items(), catalog)
    if toolbox.policy.allow_writes:
        out.append(WRITES_PERSIST.format(mimic=_MIMIC if _is_mimic(toolbox) else ""))
    return out


def writes_ran_notices(results: Sequence[ScenarioResult]) -> list[str]:
    """When scenarios ran write tools (an HTTP agent's own loop, or ``--allow-writes``): which,
    and that the servers keep the changes for the scenarios after them.

    >>> r = ScenarioResult(index=0, name="s", tier="smoke", status="fail",
    ...                    writes_executed=["s/create_refund"])
    >>> writes_ran_notices([r])[0].split(":")[0]
    "writes ran on the agent's servers in 1 scenario (s/create_refund x1)"
    """
    ran = [r for r in results if r.writes_executed]
    if not ran:
        return []
    tools = Counter(name for r in ran for name in r.writes_executed)
    listed = ", ".join(f"{name} x{n}" for name, n in tools.most_common())
    s = "" if len(ran) == 1 else "s"
    return [
        f"writes ran on the agent's servers in {len(ran)} scenario{s} ({listed}): the changes "
        "stay there for later scenarios and later runs until the servers are reset (a Mimic "
        "server: restarted)"
    ]
