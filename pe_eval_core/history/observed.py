"""What an earlier run of the same setup used: the cost estimate's observed turns and tokens.

The last recorded run whose manifest matches the coming run's in everything that decides how
the agent runs (skill, model, bounds, tools, scenarios, analysis date: ``agent_fields``;
the judge and the repeat count do not matter) and whose scenario runs carry tool traces. Its
traces' turns and tokens, summed, are what ``estimate_run_cost`` scales to the new run.
"""

from __future__ import annotations

from pe_eval_core.history.records import RunFilters, recorded_manifest
from pe_eval_core.history.store import RunStore
from pe_eval_core.scenarios.models.manifest import RunManifest
from pe_eval_core.scenarios.run.costs import ObservedUsage
from pe_eval_core.scenarios.trace import TokenUsage

RECENT = 50
"""Recorded runs of the same model and skill looked through, newest first."""


def observed_usage(store: RunStore, manifest: RunManifest) -> ObservedUsage | None:
    """The usage of the last recorded run of the same agent setup, or None (none recorded,
    none with traces, or the history cannot be read)."""
    if not store.exists():
        return None
    wanted = manifest.agent_fields()
    filters = RunFilters(
        kind="scenarios", model=manifest.model, skill_path=manifest.skill_path, infra_error=False
    )
    for summary in store.list_runs(filters, limit=RECENT):
        recorded = recorded_manifest(summary)
        if recorded is None or recorded.agent_fields() != wanted:
            continue
        usage = _usage(store, summary.id)
        if usage is not None:
            return usage
    return None


def _usage(store: RunStore, run_id: int) -> ObservedUsage | None:
    runs = turns = 0
    total = TokenUsage()
    for row in store.get_run(run_id).results:
        trace = row.detail.get("trace") if isinstance(row.detail, dict) else None
        if not isinstance(trace, dict) or not trace.get("turns"):
            continue
        runs += 1
        turns += int(trace["turns"])
        total = total + TokenUsage.model_validate(trace.get("tokens") or {})
    return ObservedUsage(run_id, runs, turns, total) if runs else None
