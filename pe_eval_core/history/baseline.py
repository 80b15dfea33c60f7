"""Which recorded run a scenario run is compared with when the user names none: like for like.

The pinned scenarios baseline when it was made with the same setup (its manifest's identity
equals the run's); otherwise the run recorded last before this one with the same identity.
A pinned baseline of another setup is skipped, and :attr:`BaselineChoice.skipped` says in one
line what differs. Runs recorded before manifests fall back to the previous run on the same
target, as before. The dashboard's verdict line uses this; ``history compare`` and the gate
compare the runs they are given and refuse unlike ones instead (``UnlikeRunsError``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pe_eval_core.history.records import RunFilters, RunSummary, recorded_manifest
from pe_eval_core.history.store import RunStore
from pe_eval_core.scenarios.models.manifest import unlike_line

PINNED = "the pinned baseline"
PREVIOUS_LIKE = "the previous run with the same setup"
PREVIOUS_TARGET = "the previous run on this target"


@dataclass(frozen=True, slots=True)
class BaselineChoice:
    """The baseline chosen for a run (None: nothing comparable recorded) and how."""

    run_id: int | None
    how: str
    skipped: str | None = None
    """Why the pinned baseline was not used (``run #3 is not like for like: ...``)."""


def automatic_baseline(store: RunStore, run: RunSummary) -> BaselineChoice:
    """The baseline a run is compared with when none is named (see the module docstring)."""
    skipped = None
    pinned = store.pinned_baseline("scenarios")
    if pinned is not None and pinned != run.id:
        line = unlike_line(recorded_manifest(store.get_run(pinned).summary), recorded_manifest(run))
        if line is None:
            return BaselineChoice(pinned, PINNED)
        skipped = f"The pinned baseline, run #{pinned}, was not used. {line}"
    if run.identity:
        filters = RunFilters(kind="scenarios", identity=run.identity, infra_error=False)
        how = PREVIOUS_LIKE
    else:
        filters = RunFilters(kind="scenarios", target=run.target, infra_error=False)
        how = PREVIOUS_TARGET
    # recorded before this one (ids are recording order; a --timestamp can backdate a run)
    earlier = max((r.id for r in store.list_runs(filters) if r.id < run.id), default=None)
    return BaselineChoice(earlier, how, skipped)
