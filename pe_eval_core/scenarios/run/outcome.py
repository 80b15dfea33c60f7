"""What a run says about itself besides its verdicts: scenarios that produced none (cancelled,
not run under the cost limit, not started after the run stopped), the typed error for a run
that says nothing about the agent, and the warnings it carries."""

from __future__ import annotations

from collections.abc import Sequence

from pe_eval_core.errors import TargetUnreachableError
from pe_eval_core.scenarios.loading import LoadedScenarios
from pe_eval_core.scenarios.models import (
    ERROR_KINDS,
    TRANSPORT_ERROR_KINDS,
    Scenario,
    ScenarioResult,
    ScenarioRun,
)
from pe_eval_core.scenarios.scoring.judge import Judge

CANCELLED = "cancelled before this scenario finished"
NOT_RUN = "not run"
"""The error text prefix of a scenario ``--max-cost`` kept from starting."""


def cancelled_result(i: int, s: Scenario, k: int = 0) -> ScenarioResult:
    """The result of scenario ``i`` (0-based), repeat ``k``, cancelled before it finished."""
    return ScenarioResult(
        index=i + 1,
        repeat=k + 1,
        error_kind="cancelled",
        name=s.name,
        tier=s.tier,
        platform=s.metadata.platform,
        source_fact=s.metadata.source_fact,
        status="error",
        error=CANCELLED,
        excludes=list(s.expect.response_excludes),
        max_latency_ms=s.expect.max_latency_ms,
    )


def not_run_result(i: int, s: Scenario, limit: float, spent: float, k: int = 0) -> ScenarioResult:
    """A scenario ``max_cost_usd`` kept from starting."""
    return cancelled_result(i, s, k).model_copy(
        update={
            "error_kind": "not_run",
            "error": f"{NOT_RUN}: the run had spent ${spent:.4f} of its --max-cost ${limit:g} "
            "before this scenario's turn",
        }
    )


def stopped_result(i: int, k: int, s: Scenario, last: ScenarioResult) -> ScenarioResult:
    """A scenario the run did not start after it stopped on transport errors."""
    return cancelled_result(i, s, k).model_copy(
        update={
            "error_kind": last.error_kind,
            "error": f"{NOT_RUN}: the run stopped on transport errors ({last.error})",
        }
    )


def infrastructure_error(run: ScenarioRun) -> TargetUnreachableError | None:
    """The typed error for a run that says nothing about the agent: it stopped on transport
    errors, or every scenario hit one (fewer than the stop count). None otherwise.

    Every surface calls this one rule (CLI exit 2, the dashboard's banner, the gate).
    """
    if run.stopped is not None:
        return TargetUnreachableError(f"the run against {run.label} stopped: {run.stopped}")
    kinds = [r.error_kind for r in run.results]
    if kinds and all(k in TRANSPORT_ERROR_KINDS for k in kinds):
        last = run.results[-1]
        reason = ERROR_KINDS[last.error_kind or "unreachable"]
        return TargetUnreachableError(
            f"every scenario against {run.label} failed to reach the agent ({reason}): {last.error}"
        )
    return None


def run_warnings(scenarios: Sequence[Scenario], judge: Judge | None) -> list[str]:
    """The loader's warnings (``LoadedScenarios.warnings``) then the judge's (a recorded
    verdict ignored or used unkeyed), each once, in order."""
    found: list[str] = list(scenarios.warnings) if isinstance(scenarios, LoadedScenarios) else []
    if judge is not None:
        found += judge.warnings
    return list(dict.fromkeys(found))
