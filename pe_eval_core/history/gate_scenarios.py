"""The gate's scenario checks: per-tier minimum pass rates (or their 95% lower bounds) and
no regression against a baseline run, over a recorded run, a run JSON file, or recorded
responses scored on the spot."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError

from pe_eval_core.errors import (
    GateConfigError,
    PeEvalError,
    TargetUnreachableError,
    UnlikeRunsError,
)
from pe_eval_core.history.gate_result import EPS, GateCheck, GatedRun, GateResult
from pe_eval_core.history.records import UNRECORDED_ID, RunRecord, scenario_record
from pe_eval_core.history.store import RunStore
from pe_eval_core.scenarios import statistics
from pe_eval_core.scenarios.statistics import TierStats
from pe_eval_core.wording import tier_order

if TYPE_CHECKING:
    from pe_eval_core.history.gate import GateRequest
    from pe_eval_core.scenarios.models import ScenarioRun

OVERALL = "overall"
PassRateBound = Literal["rate", "lower"]
"""What a minimum pass rate is compared with: the rate, or its 95% interval's lower bound."""


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
    allow_unlike: bool = False,
) -> None:
    """Apply per-tier minimum pass rates (``overall`` for the whole run) to the rate or, with
    ``on="lower"``, to its interval's lower bound, and, given a baseline run, fail on any
    scenario that passed there and fails now (a baseline made with another setup is a
    problem, "cannot evaluate", unless ``allow_unlike``)."""
    subject = subject or f"run #{run.summary.id}"
    result.runs.append(gated_run(run, subject))
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
        _check_baseline(result, run, baseline, subject, allow_unlike=allow_unlike)


def gated_run(run: RunRecord, subject: str) -> GatedRun:
    """The run's pass rate and tier tallies by the one rate rule (``pe_eval_core.rates``)."""
    s = run.summary
    by_tier = {t.tier: t for t in run.tiers}
    return GatedRun(
        subject=subject,
        pass_rate_text=s.rate_text,
        tally_text=s.tally_text,
        tiers={name: by_tier[name].tally_text for name in tier_order(by_tier)},
        errors=s.n_errors or 0,
    )


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


def _check_baseline(
    result: GateResult,
    run: RunRecord,
    baseline: RunRecord,
    subject: str,
    *,
    allow_unlike: bool = False,
) -> None:
    """Fail on every scenario that passed in ``baseline`` and does not pass in ``run``; a
    baseline made with another setup cannot be checked against (unless ``allow_unlike``)."""
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
    from pe_eval_core.history.compare_scenarios import (
        check_like_for_like,
        compare_scenario_records,
        scenario_verdict,
    )

    try:
        check_like_for_like(baseline, run, allow_unlike=allow_unlike)
    except UnlikeRunsError as err:
        result.add_problem(subject, err)
        return
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
    repeat: int | None = None,
    confirm: bool = False,
    judge_cache: str | None = None,
) -> ScenarioRun:
    """Score a scenarios file against recorded responses. The judge is the one every surface
    chooses (:func:`pe_eval_core.scenarios.run.setup.choose_judge`): the recorded verdicts given,
    else those saved with the responses and those beside the scenarios (for the responses
    they were recorded for), else the cached live judge when a key is set; more than 20 paid
    judge calls need ``confirm`` (the cost guard)."""
    from pe_eval_core.scenarios import RecordedTarget, load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.options import run_options
    from pe_eval_core.scenarios.run.setup import choose_judge

    options = run_options(repeat=repeat)
    target = RecordedTarget(responses_path)
    judge = choose_judge(
        scenarios_path=scenarios_path,
        verdicts=verdicts_path,
        cache=judge_cache,
        options=options,
        target=target,
    )
    return run_scenarios_sync(
        load_scenarios(scenarios_path),
        target,
        judge=judge,
        options=options,
        scenarios_path=scenarios_path,
        save_responses=False,  # they are already on disk
        confirm_live=confirm,
    )


def gate_scenario_request(result: GateResult, request: GateRequest, store: RunStore) -> None:
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
        result,
        current,
        request.min_pass_rate,
        baseline=base,
        subject=label,
        on=request.on,
        allow_unlike=request.allow_unlike,
    )
