"""What changed between two recorded runs: the entry points over both kinds of run.

Scenario runs: :mod:`pe_eval_core.history.compare_scenarios`; memo evaluations:
:mod:`pe_eval_core.history.compare_memos`. This module picks by kind and renders.
"""

from __future__ import annotations

from typing import Any

from pe_eval_core.errors import KindMismatchError
from pe_eval_core.history.compare_memos import (
    LOWER_IS_BETTER,
    MemoComparison,
    ScoreDelta,
    compare_memo_records,
    memo_comparison_verdict,
    render_memo_comparison,
)
from pe_eval_core.history.compare_scenarios import (
    ExpectationChange,
    NumericChange,
    PairedTest,
    ScenarioChange,
    ScenarioComparison,
    TierDelta,
    check_like_for_like,
    compare_scenario_records,
    not_like_for_like,
    render_scenario_comparison,
    run_differences,
    scenario_verdict,
    significance_sentence,
    target_label,
)
from pe_eval_core.history.records import RunRecord
from pe_eval_core.history.store import RunStore

__all__ = [
    "LOWER_IS_BETTER",
    "Comparison",
    "ExpectationChange",
    "KindMismatchError",
    "MemoComparison",
    "NumericChange",
    "PairedTest",
    "ScenarioChange",
    "ScenarioComparison",
    "ScoreDelta",
    "TierDelta",
    "check_like_for_like",
    "compare_memo_records",
    "compare_records",
    "compare_runs",
    "compare_scenario_records",
    "comparison_to_dict",
    "memo_comparison_verdict",
    "not_like_for_like",
    "render_comparison_markdown",
    "run_differences",
    "scenario_verdict",
    "significance_sentence",
    "target_label",
]

Comparison = ScenarioComparison | MemoComparison


def compare_records(a: RunRecord, b: RunRecord) -> Comparison:
    if a.summary.kind != b.summary.kind:
        raise KindMismatchError(
            f"run {a.summary.id} is a {a.summary.kind} run and run {b.summary.id} is a "
            f"{b.summary.kind} run"
        )
    if a.summary.kind == "memo":
        return compare_memo_records(a, b)
    return compare_scenario_records(a, b)


def compare_runs(
    store: RunStore, ref_a: int | str, ref_b: int | str, *, allow_unlike: bool = False
) -> Comparison:
    """Compare run ``ref_a`` (before) with run ``ref_b`` (after) from ``store``. Scenario runs
    made with different setups (their manifests differ) raise ``UnlikeRunsError`` unless
    ``allow_unlike``; then the comparison says first what differs."""
    a, b = store.get_run(ref_a), store.get_run(ref_b)
    if a.summary.kind == b.summary.kind == "scenarios":
        check_like_for_like(a, b, allow_unlike=allow_unlike)
    return compare_records(a, b)


def render_comparison_markdown(cmp: Comparison) -> str:
    """A markdown report with regressions first."""
    if isinstance(cmp, MemoComparison):
        return render_memo_comparison(cmp)
    return render_scenario_comparison(cmp)


def comparison_to_dict(cmp: Comparison) -> dict[str, Any]:
    """JSON-ready form, including the derived fields (rates, deltas, directions, reasons)."""
    data = cmp.model_dump(mode="json")
    data["has_regressions"] = cmp.has_regressions
    if isinstance(cmp, ScenarioComparison):
        data["a"]["pass_rate_text"], data["b"]["pass_rate_text"] = cmp.a.rate_text, cmp.b.rate_text
        data["verdict"] = scenario_verdict(cmp)
        for t, td in zip(data["tiers"], cmp.tiers, strict=True):
            t.update(
                a_rate=td.a_rate,
                b_rate=td.b_rate,
                delta=td.delta,
                a_tally_text=td.a_tally,
                b_tally_text=td.b_tally,
            )
        for group in (
            "regressions",
            "fixes",
            "flaky",
            "errored",
            "still_failing",
            "new",
            "removed",
        ):
            for d, ch in zip(data[group], getattr(cmp, group), strict=True):
                d["reasons"] = ch.reasons()
    else:
        data["verdict"] = memo_comparison_verdict(cmp)
        for s, sd in zip(data["scores"], cmp.scores, strict=True):
            s.update(delta=sd.delta, direction=sd.direction)
    return data
