"""The CI regression gate: thresholds over memo scores and scenario pass rates, one verdict.

The verdict (:class:`GateVerdict`): *passed* when every check passed; *below threshold* when
quality is below a threshold (or a scenario regressed against the baseline run); *cannot
evaluate* when something could not be evaluated (missing or malformed inputs, bad thresholds,
nothing to check). "Cannot evaluate" wins over "below threshold": a gate that could not see
everything must not look like an ordinary failure. The CLI maps the verdict to its exit code.

Thresholds are read by :mod:`pe_eval_core.thresholds` (the same parser the memo command uses).
A memo is checked by its verdict (:func:`pe_eval_core.memo.verdict.memo_verdict`, the one rule
every surface shows), and so is each exit proof pack, DDQ response and red-flag file of the
folder (:func:`pe_eval_core.documents.verdict.document_verdict`, the same rule): the memo
thresholds given, the pass band for each dimension they leave out, at most
``max_misattributed`` (default 0) mis-attributed figures or names. One check line per
dimension and one for mis-attributions say which bound a memo missed; each memo's (and
document's) verdict headline (``Not ready: 3 issues``) is listed after the checks.
A scenario pass rate is passes / runs that produced a verdict (errors are left out, never
counted as failures); ``on="lower"`` checks the lower bound of the tier's 95% interval
instead of the rate (Wilson; clustered by ``source_fact`` when scenarios repeat, see
:mod:`pe_eval_core.scenarios.statistics`). A run that could not reach its target, a tier where
no scenario produced a verdict, or scenarios left without a judge verdict make the gate
"cannot evaluate".
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, Field

from pe_eval_core.errors import GateConfigError, PeEvalError
from pe_eval_core.history.gate_result import (
    EPS,
    GateCheck,
    GatedRun,
    GateProblem,
    GateResult,
    GateVerdict,
    MemoGateVerdict,
)
from pe_eval_core.history.gate_scenarios import (
    OVERALL,
    PassRateBound,
    gate_scenario_request,
    gate_scenarios,
    load_scenario_record,
    record_tier_stats,
    run_recorded_scenarios,
)
from pe_eval_core.history.records import MEMO_DIMENSIONS
from pe_eval_core.history.store import RunStore

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation, Scores
    from pe_eval_core.memo.verdict import Verdict

    class Scored(Protocol):
        """A graded memo or document: its scores and the n/total behind each."""

        @property
        def scores(self) -> Scores: ...

        def score_context(self, dimension: str) -> str: ...


__all__ = [
    "EPS",
    "OVERALL",
    "GateCheck",
    "GateProblem",
    "GateRequest",
    "GateResult",
    "GateVerdict",
    "GatedRun",
    "MemoGateVerdict",
    "PassRateBound",
    "evaluate_gate",
    "gate_memos",
    "gate_scenarios",
    "load_scenario_record",
    "record_tier_stats",
    "run_recorded_scenarios",
]


def _memo_checks(subject: str, evaluation: Scored, verdict: Verdict) -> list[GateCheck]:
    """The verdict's rule (a memo's or another document's) as check lines: each dimension
    against its bound, then the mis-attributions; a check fails exactly when the verdict names
    that bound as missed."""
    t = verdict.thresholds
    checks = [
        GateCheck(
            subject=subject,
            metric=dim,
            value=float(getattr(evaluation.scores, dim)),
            threshold=t.bound(dim),
            op="<=" if dim == "hallucination_rate" else ">=",
            passed=dim not in verdict.failed_dimensions,
            detail=f"({evaluation.score_context(dim)})",
        )
        for dim in MEMO_DIMENSIONS
    ]
    raws = verdict.misattributed
    checks.append(
        GateCheck(
            subject=subject,
            metric="misattributed",
            value=float(len(raws)),
            threshold=float(t.max_misattributed),
            op="<=",
            passed=not verdict.misattributed_over,
            detail=f"({', '.join(raws)})" if raws else "",
        )
    )
    return checks


def gate_memos(
    result: GateResult,
    data_dir: str | os.PathLike[str],
    thresholds: dict[str, float],
    *,
    max_misattributed: int | None = None,
    store: RunStore | None = None,
    write_reports: bool = False,
    jobs: int | None = None,
) -> None:
    """Grade every memo pair in ``data_dir`` and check each by its verdict under ``thresholds``
    (dimension -> bound; ``hallucination_rate`` is a maximum, the others minimums, the pass band
    for the dimensions left out). ``max_misattributed`` bounds the mis-attributed figures and
    entities per memo (None: the verdict's default, none): they count as cited / grounded, so
    no score threshold can catch a number quoted under the wrong opportunity. ``jobs``
    processes grade the pairs (default: the core count; see ``pe_eval_core.memo.batch``)."""
    from pe_eval_core.memo import write_outputs
    from pe_eval_core.memo.batch import grade_pairs
    from pe_eval_core.memo.folder_index import FolderIndex
    from pe_eval_core.memo.pairs import scan_memo_pairs
    from pe_eval_core.memo.verdict import VerdictThresholds, memo_verdict

    bounds = VerdictThresholds.from_bounds(thresholds, max_misattributed)

    subject = str(data_dir)
    try:
        pairs, skipped = scan_memo_pairs(data_dir)
        for s in skipped:  # named, never fatal: the rest of the folder is still graded
            print(f"gate: skipped {s.path.name!a}: {s.reason}", file=sys.stderr)
    except PeEvalError as err:
        result.add_problem(subject, err)
        return
    from pe_eval_core.history.gate_documents import gate_documents

    if not pairs:
        if gate_documents(result, data_dir, bounds, store=store, write_reports=write_reports):
            return  # a folder of other documents only: they are what the gate checks
        result.add_problem(
            subject,
            GateConfigError(
                f"no explain_<portco>_<audience>.json memos in {data_dir}",
                diagnosis="The data folder holds no memo sidecars or other documents to grade",
                fix="Point the data folder at the one holding explain_*.json and dx_report_*.json.",
                input="data_dir",
            ),
        )
        return
    items = grade_pairs(pairs, FolderIndex.scan(data_dir), jobs=jobs)
    graded: list[MemoEvaluation] = []
    for item in items:
        pair = item.pair
        name = f"{pair.portco_id}/{pair.audience}"
        try:
            if item.error is not None:
                raise item.error
            evaluation = item.evaluation
            assert evaluation is not None
            if write_reports:
                write_outputs(evaluation, thresholds=bounds)
        except PeEvalError as err:
            result.add_problem(name, err)
            continue
        graded.append(evaluation)
        verdict = memo_verdict(evaluation, bounds)
        result.checks += _memo_checks(name, evaluation, verdict)
        result.memos.append(MemoGateVerdict.of(name, verdict.summary(evaluation)))

    if store is not None and graded:  # the whole batch in one transaction
        result.recorded_run_ids += store.record_memo_evaluations(graded, origin="gate")
    gate_documents(result, data_dir, bounds, store=store, write_reports=write_reports)


class GateRequest(BaseModel):
    """What the gate should check; each surface builds one from its own inputs.

    Field names are the input keys errors name (``pe_eval_core.errors.INPUT_LABELS``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: str | None = None
    """Folder of explain_*.json memos and their dx_report_*.json sources."""
    memo_thresholds: dict[str, float] = Field(default_factory=dict)
    """Memo dimension -> bound (``hallucination_rate`` a maximum, the others minimums)."""
    max_misattributed: int | None = None
    """Most mis-attributed figures/entities allowed per memo."""
    scenario_run: str | None = None
    """A recorded run (id, ``latest``, uid) or a scenario run JSON file."""
    scenarios: str | None = None
    """A scenarios file to score against ``responses`` (with it, instead of ``scenario_run``)."""
    responses: str | None = None
    judge_verdicts: str | None = None
    """Recorded judge verdicts for ``scenarios`` (no network)."""
    judge_cache: str | None = None
    """The judge verdict cache (a file or a database URL; None: the default cache)."""
    min_pass_rate: dict[str, float] = Field(default_factory=dict)
    """Tier (or ``overall``) -> minimum pass rate."""
    baseline: str | None = None
    """A recorded run: any scenario that passed there and fails now fails the gate."""
    allow_unlike: bool = False
    """Check against a baseline made with another setup (its manifest differs) instead of
    refusing it (the check's detail then says first what differs)."""
    on: PassRateBound = "rate"
    """Compare ``min_pass_rate`` with the rate, or with its 95% interval's lower bound."""
    confirm: bool = False
    """Confirm more than 20 paid judge calls (the cost guard)."""
    record: bool = True
    """Record the memo evaluations and the scenario run in the history."""
    write_reports: bool = False
    """Also write the eval_* scorecards beside the memos."""
    jobs: int | None = None
    """Processes grading the memos (None: the core count)."""

    @property
    def has_scenarios(self) -> bool:
        return bool(self.scenario_run or self.scenarios)

    @property
    def has_memo_checks(self) -> bool:
        return bool(self.memo_thresholds) or self.max_misattributed is not None

    def problems(self) -> list[GateConfigError]:
        """Inputs that do not fit together (the gate evaluates nothing when there are any)."""
        rules: list[tuple[bool, str, str]] = [
            (
                bool(self.scenarios) != bool(self.responses),
                "a scenarios file and a recorded responses file go together",
                "responses",
            ),
            (
                bool(self.judge_verdicts) and not self.scenarios,
                "recorded judge verdicts need a scenarios file",
                "judge_verdicts",
            ),
            (
                bool(self.scenario_run and self.scenarios),
                "give either a scenario run or a scenarios file, not both",
                "scenario_run",
            ),
            (
                self.max_misattributed is not None and self.max_misattributed < 0,
                "the maximum mis-attributed count must be 0 or more",
                "max_misattributed",
            ),
            (
                self.data_dir is None and self.has_memo_checks,
                "memo thresholds given without a data folder",
                "data_dir",
            ),
            (
                self.data_dir is not None and not self.has_memo_checks,
                "a data folder given without memo thresholds",
                "memo_thresholds",
            ),
            (
                not self.has_scenarios and bool(self.min_pass_rate or self.baseline),
                "pass-rate thresholds given without a run",
                "scenario_run",
            ),
            (
                self.has_scenarios and not (self.min_pass_rate or self.baseline),
                "a scenario run given without pass-rate thresholds or a baseline",
                "min_pass_rate",
            ),
            (not self.data_dir and not self.has_scenarios, "nothing to check", ""),
        ]
        return [GateConfigError(msg, input=key or None) for bad, msg, key in rules if bad]


def evaluate_gate(request: GateRequest, store: RunStore | None = None) -> GateResult:
    """Run every requested check; never raises for input problems (they become problems,
    and the verdict "cannot evaluate")."""
    result = GateResult()
    for err in request.problems():
        result.add_problem("gate", err)
    if result.problems:
        return result
    store = store or RunStore()
    if request.data_dir is not None:
        gate_memos(
            result,
            request.data_dir,
            request.memo_thresholds,
            max_misattributed=request.max_misattributed,
            store=store if request.record else None,
            write_reports=request.write_reports,
            jobs=request.jobs,
        )
    if request.has_scenarios:
        gate_scenario_request(result, request, store)
    return result
