"""The CI regression gate: thresholds over memo scores and scenario pass rates, one verdict.

The verdict (:class:`GateVerdict`): *passed* when every check passed; *below threshold* when
quality is below a threshold (or a scenario regressed against the baseline run); *cannot
evaluate* when something could not be evaluated (missing or malformed inputs, bad thresholds,
nothing to check). "Cannot evaluate" wins over "below threshold": a gate that could not see
everything must not look like an ordinary failure. The CLI maps the verdict to its exit code.

Thresholds are read by :mod:`pe_eval_core.thresholds` (the same parser the memo command uses).
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
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pe_eval_core.errors import GateConfigError, PeEvalError, TargetUnreachableError
from pe_eval_core.history.records import (
    MEMO_DIMENSIONS,
    UNRECORDED_ID,
    RunRecord,
    scenario_record,
)
from pe_eval_core.history.store import RunStore
from pe_eval_core.scenarios import statistics
from pe_eval_core.scenarios.statistics import TierStats

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun

EPS = 1e-9
OVERALL = "overall"
PassRateBound = Literal["rate", "lower"]
"""What a minimum pass rate is compared with: the rate, or its 95% interval's lower bound."""


class GateVerdict(StrEnum):
    """The gate's one answer."""

    PASSED = "passed"
    BELOW_THRESHOLD = "below threshold"
    CANNOT_EVALUATE = "cannot evaluate"


class GateCheck(BaseModel):
    """One threshold applied to one subject."""

    subject: str
    """``MortgageCo/board`` or ``run #12`` ..."""
    metric: str
    value: float | None
    threshold: float
    op: Literal[">=", "<=", "no regressions"]
    passed: bool
    detail: str = ""


class GateProblem(BaseModel):
    """Something the gate could not evaluate (turns the verdict into "cannot evaluate")."""

    subject: str
    message: str
    diagnosis: str
    fix: str
    input: str | None = None
    """The input at fault (a key of ``pe_eval_core.errors.INPUT_LABELS``), if one is."""


class GateResult(BaseModel):
    checks: list[GateCheck] = Field(default_factory=list)
    problems: list[GateProblem] = Field(default_factory=list)
    recorded_run_ids: list[int] = Field(default_factory=list)

    @property
    def failed(self) -> list[GateCheck]:
        return [c for c in self.checks if not c.passed]

    @property
    def verdict(self) -> GateVerdict:
        if self.problems or not self.checks:
            return GateVerdict.CANNOT_EVALUATE
        return GateVerdict.BELOW_THRESHOLD if self.failed else GateVerdict.PASSED

    def add_problem(self, subject: str, err: PeEvalError) -> None:
        self.problems.append(
            GateProblem(
                subject=subject,
                message=err.message,
                diagnosis=err.diagnosis,
                fix=err.fix,
                input=err.input,
            )
        )

    def render_text(
        self, name_input: Callable[[str], str | None] | None = None, cannot_note: str = ""
    ) -> str:
        """The verdict as lines of text. A surface adds its own words: ``name_input`` names a
        problem's input (the CLI's option, appended to the fix), ``cannot_note`` follows the
        verdict line when the gate could not evaluate everything (the CLI's exit code)."""
        lines = [_check_line(c) for c in self.checks]
        for p in self.problems:
            where = name_input(p.input) if name_input and p.input else None
            lines.append(f"ERROR {p.subject}: {p.message}")
            lines.append(f"        diagnosis: {p.diagnosis}")
            lines.append(f"        fix: {p.fix}" + (f" ({where})" if where else ""))
        verdict = self._verdict_line()
        if cannot_note and self.verdict is GateVerdict.CANNOT_EVALUATE:
            verdict += f" {cannot_note}"
        lines.append(verdict)
        return "\n".join(lines) + "\n"

    def _verdict_line(self) -> str:
        if not self.checks and not self.problems:
            return "gate had nothing to check"
        return {
            GateVerdict.PASSED: "gate passed",
            GateVerdict.BELOW_THRESHOLD: f"gate FAILED: {len(self.failed)} check(s) below "
            "threshold",
            GateVerdict.CANNOT_EVALUATE: "gate could not evaluate everything",
        }[self.verdict]


def _check_line(c: GateCheck) -> str:
    mark = "PASS" if c.passed else "FAIL"
    if c.op == "no regressions":
        return f"{mark}  {c.subject}: {c.metric} {c.detail}".rstrip()
    value = "-" if c.value is None else f"{c.value:.4g}"
    return f"{mark}  {c.subject}: {c.metric} = {value} (needs {c.op} {c.threshold:g})" + (
        f" {c.detail}" if c.detail else ""
    )


MISATTRIBUTED_KINDS = frozenset({"misattributed_figure", "misattributed_entity"})
"""Finding kinds for a value quoted under the wrong opportunity (cited, but misleading)."""


def _memo_check(subject: str, dim: str, value: float, threshold: float) -> GateCheck:
    if dim == "hallucination_rate":
        return GateCheck(
            subject=subject,
            metric=dim,
            value=value,
            threshold=threshold,
            op="<=",
            passed=value <= threshold + EPS,
        )
    return GateCheck(
        subject=subject,
        metric=dim,
        value=value,
        threshold=threshold,
        op=">=",
        passed=value >= threshold - EPS,
    )


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
    """Grade every memo pair in ``data_dir`` and apply ``thresholds`` (dimension -> bound;
    ``hallucination_rate`` is a maximum, the others minimums). ``max_misattributed`` bounds the
    mis-attributed figures and entities per memo: they count as cited / grounded, so no score
    threshold can catch a number quoted under the wrong opportunity. ``jobs`` processes grade
    the pairs (default: the core count; see ``pe_eval_core.memo.batch``)."""
    from pe_eval_core.memo import write_outputs
    from pe_eval_core.memo.batch import grade_pairs
    from pe_eval_core.memo.folder_index import FolderIndex
    from pe_eval_core.memo.pairs import scan_memo_pairs

    subject = str(data_dir)
    try:
        pairs, skipped = scan_memo_pairs(data_dir)
        for s in skipped:  # named, never fatal: the rest of the folder is still graded
            print(f"gate: skipped {s.path.name!a}: {s.reason}", file=sys.stderr)
    except PeEvalError as err:
        result.add_problem(subject, err)
        return
    if not pairs:
        result.add_problem(
            subject,
            GateConfigError(
                f"no explain_<portco>_<audience>.json memos in {data_dir}",
                diagnosis="The data folder holds no memo sidecars to grade",
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
                write_outputs(evaluation)
        except PeEvalError as err:
            result.add_problem(name, err)
            continue
        graded.append(evaluation)
        for dim in MEMO_DIMENSIONS:
            if dim in thresholds:
                value = float(getattr(evaluation.scores, dim))
                check = _memo_check(name, dim, value, thresholds[dim])
                check.detail = f"({evaluation.score_context(dim)})"
                result.checks.append(check)
        if max_misattributed is not None:
            raws = [f.raw for f in evaluation.findings if f.kind in MISATTRIBUTED_KINDS]
            result.checks.append(
                GateCheck(
                    subject=name,
                    metric="misattributed",
                    value=float(len(raws)),
                    threshold=float(max_misattributed),
                    op="<=",
                    passed=len(raws) <= max_misattributed,
                    detail=f"({', '.join(raws)})" if raws else "",
                )
            )

    if store is not None and graded:  # the whole batch in one transaction
        result.recorded_run_ids += store.record_memo_evaluations(graded, origin="gate")
    from pe_eval_core.history.gate_documents import gate_documents

    gate_documents(result, data_dir, thresholds, store=store, write_reports=write_reports)


def load_scenario_record(ref: str, store: RunStore, *, record: bool) -> RunRecord:
    """A scenario run from a history reference (id, ``latest``, uid) or a run JSON file
    (``run_to_json`` output). A file is recorded in ``store`` when ``record`` is true;
    otherwise it is checked as read, with the counts the run itself gives."""
    path = Path(ref)
    if not _is_run_file(ref):
        return store.get_run(store.resolve(ref, kind="scenarios"))
    from pe_eval_core.files import read_json
    from pe_eval_core.scenarios.models import ScenarioRun

    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise GateConfigError(
            f"{path} is not a scenario run JSON (no 'results' list)",
            diagnosis="The file is not the JSON a scenario run writes",
            fix="Use the report.json a scenario run writes to its report folder, or a run id.",
            input="scenario_run",
        )
    try:
        run = ScenarioRun.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise GateConfigError(
            f"{path}: field {field!r}: {first['msg']}",
            diagnosis="The file is not the JSON a scenario run writes",
            fix="Use the report.json a scenario run writes to its report folder, or a run id.",
            input="scenario_run",
        ) from None
    return _current_record(run, store, record=record)


def _is_run_file(ref: str) -> bool:
    path = Path(ref)
    return path.suffix.lower() == ".json" or path.is_file()


def _current_record(run: ScenarioRun, store: RunStore, *, record: bool) -> RunRecord:
    """The record the gate checks for a fresh run: stored when ``record``, else in memory."""
    if record:
        return store.get_run(store.record(scenario_record(run, origin="gate")))
    return scenario_record(run, origin="gate")


def record_tier_stats(run: RunRecord) -> dict[str, TierStats]:
    """Each tier's (and ``overall``'s) pass rate and 95% interval from a record's rows: a
    scenario's repeats pooled, errors left out (the same rule as the run's report)."""
    rows: dict[str, list[str]] = {}
    meta: dict[str, tuple[str, str | None]] = {}
    for r in run.results:
        rows.setdefault(r.name, []).append(r.status)
        meta.setdefault(r.name, (r.tier or "untiered", r.source_fact))
    scen = [statistics.scenario_stats(n, *meta[n], statuses) for n, statuses in rows.items()]
    out = {
        tier: statistics.tier_stats(tier, [s for s in scen if s.tier == tier])
        for tier in dict.fromkeys(s.tier for s in scen)
    }
    if scen:
        out[OVERALL] = statistics.tier_stats(OVERALL, scen)
    return out


def gate_scenarios(
    result: GateResult,
    run: RunRecord,
    min_pass_rate: dict[str, float],
    *,
    baseline: RunRecord | None = None,
    subject: str | None = None,
    on: PassRateBound = "rate",
) -> None:
    """Apply per-tier minimum pass rates (``overall`` for the whole run) to the rate or, with
    ``on="lower"``, to its interval's lower bound, and, given a baseline run, fail on any
    scenario that passed there and fails now."""
    subject = subject or f"run #{run.summary.id}"
    if _unjudgeable(result, run, subject):
        return
    tiers = record_tier_stats(run)
    for tier, threshold in min_pass_rate.items():
        st = tiers.get(tier)
        if st is None or st.runs == 0:
            known = ", ".join(sorted(t for t, v in tiers.items() if v.runs)) or "none"
            why = "no scenarios in" if st is None else "no scenario produced a verdict in"
            result.add_problem(
                subject,
                GateConfigError(
                    f"{why} tier {tier!r} (tiers with verdicts in this run: {known})",
                    diagnosis="A pass-rate threshold names a tier the run has no verdict for",
                    fix="Fix the tier name in the pass-rate thresholds or the scenarios' "
                    "metadata.tier, or rerun once the agent answers.",
                    input="min_pass_rate",
                ),
            )
            continue
        value = st.low if on == "lower" else st.rate
        metric = f"{tier} pass rate" + (" (95% lower bound)" if on == "lower" else "")
        detail = f"({st.passes}/{st.runs}"
        if on == "lower":
            detail += f", rate {st.rate:.4g}, interval [{st.low:.4g}, {st.high:.4g}], {st.method}"
        result.checks.append(
            GateCheck(
                subject=subject,
                metric=metric,
                value=value,
                threshold=threshold,
                op=">=",
                passed=value >= threshold - EPS,
                detail=detail + ")",
            )
        )
    if baseline is not None:
        _check_baseline(result, run, baseline, subject)


def _unjudgeable(result: GateResult, run: RunRecord, subject: str) -> bool:
    """Add a problem when the run says nothing about quality (its target was unreachable) or
    left scenarios without a judge verdict; True when nothing more can be checked."""
    scores = run.summary.scores if isinstance(run.summary.scores, dict) else {}
    if scores.get("stopped"):
        result.add_problem(subject, TargetUnreachableError(f"the run stopped: {scores['stopped']}"))
        return True
    judged = [r.name for r in run.results if r.status == "judge error"]
    if judged:
        shown = ", ".join(dict.fromkeys(judged))
        result.add_problem(
            subject,
            GateConfigError(
                f"{len(judged)} scenario run(s) have no judge verdict: {shown}",
                diagnosis="Scenarios that need the paraphrase judge were left undecided",
                fix="Give recorded judge verdicts for these scenarios, or set ANTHROPIC_API_KEY "
                "for the live judge.",
                input="judge_verdicts",
            ),
        )
    return False


def _check_baseline(result: GateResult, run: RunRecord, baseline: RunRecord, subject: str) -> None:
    """Fail on every scenario that passed in ``baseline`` and does not pass in ``run``."""
    if baseline.summary.uid == run.summary.uid:
        result.add_problem(
            subject,
            GateConfigError(
                f"the baseline is the run being gated (run {run.summary.uid})",
                diagnosis="Comparing a run with itself can never find a regression",
                fix="Use the earlier run as the baseline (e.g. latest~1), or score fresh "
                "responses against the latest run.",
                input="baseline",
            ),
        )
        return
    from pe_eval_core.history.compare import compare_scenario_records, scenario_verdict

    cmp = compare_scenario_records(baseline, run)
    result.checks.append(
        GateCheck(
            subject=subject,
            metric=f"vs baseline run #{baseline.summary.id}",
            value=float(len(cmp.regressions)),
            threshold=0.0,
            op="no regressions",
            passed=not cmp.regressions,
            detail=scenario_verdict(cmp),
        )
    )


def run_recorded_scenarios(
    scenarios_path: str,
    responses_path: str,
    verdicts_path: str | None = None,
    *,
    repeat: int = 1,
    confirm: bool = False,
    judge_cache: str | None = None,
) -> ScenarioRun:
    """Score a scenarios file against recorded responses. The judge is the one every surface
    chooses (:func:`pe_eval_core.scenarios.setup.choose_judge`): the recorded verdicts given
    or beside the scenarios, else the cached live judge when a key is set; more than 20 paid
    judge calls need ``confirm`` (the cost guard)."""
    from pe_eval_core.scenarios import RecordedTarget, load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.setup import choose_judge

    judge = choose_judge(scenarios_path=scenarios_path, verdicts=verdicts_path, cache=judge_cache)
    return run_scenarios_sync(
        load_scenarios(scenarios_path),
        RecordedTarget(responses_path),
        judge=judge,
        scenarios_path=scenarios_path,
        save_responses=False,  # they are already on disk
        repeat=repeat,
        confirm_live=confirm,
    )


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
        _gate_scenario_request(result, request, store)
    return result


def _gate_scenario_request(result: GateResult, request: GateRequest, store: RunStore) -> None:
    subject = request.scenario_run or request.scenarios or "scenarios"
    try:
        # Resolve the baseline first, so `latest` means the run before this gate's own.
        base = None
        baseline = request.baseline or store.pinned_baseline("scenarios")  # pinned: default
        if baseline:
            base = store.get_run(store.resolve(baseline, kind="scenarios"))
        if request.scenarios and request.responses:
            run = run_recorded_scenarios(
                request.scenarios,
                request.responses,
                request.judge_verdicts,
                confirm=request.confirm,
                judge_cache=request.judge_cache,
            )
            current = _current_record(run, store, record=request.record)
        else:
            current = load_scenario_record(str(request.scenario_run), store, record=request.record)
    except PeEvalError as err:
        result.add_problem(subject, err)
        return
    if request.scenarios and current.summary.id != UNRECORDED_ID:
        result.recorded_run_ids.append(current.summary.id)
    if current.summary.infra_error:  # nothing ran: neither a pass nor a quality failure
        result.add_problem(
            subject,
            GateConfigError(
                f"every one of the {current.summary.n_total} scenarios errored "
                "(an infrastructure error, not a quality result)",
                diagnosis="The agent or its network failed on every scenario",
                fix="Check the agent is reachable and configured, then run the scenarios again.",
                input="scenario_run",
            ),
        )
        return
    from_file = bool(request.scenarios) or _is_run_file(str(request.scenario_run or ""))
    label = None
    if from_file and not request.record:
        label = f"run {current.summary.uid} (not recorded)"
    gate_scenarios(
        result, current, request.min_pass_rate, baseline=base, subject=label, on=request.on
    )
