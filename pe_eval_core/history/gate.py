"""The CI regression gate: thresholds over memo scores and scenario pass rates, one verdict.

Exit code contract (shared with the CLI): 0 every check passed; 1 quality below a threshold
(or a regression against the baseline run); 2 something could not be evaluated (missing or
malformed inputs, bad thresholds, nothing to check). "Could not evaluate" wins over "below
threshold": a gate that could not see everything must not look like an ordinary failure.

>>> parse_thresholds("citation=1.0, coverage=0.95")
{'citation_accuracy': 1.0, 'coverage': 0.95}
>>> parse_thresholds("smoke=1,functional=90%", tiers=True)
{'smoke': 1.0, 'functional': 0.9}
>>> parse_thresholds("citation")
Traceback (most recent call last):
...
pe_eval_core.errors.GateConfigError: threshold 'citation' is not NAME=VALUE ...
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from pe_eval_core.errors import GateConfigError, PeEvalError
from pe_eval_core.history.store import MEMO_DIMENSIONS, RunRecord, RunStore, TierCount

EXIT_OK, EXIT_BELOW, EXIT_CANNOT = 0, 1, 2
EPS = 1e-9
DIMENSION_ALIASES = {
    "citation": "citation_accuracy",
    "citation_accuracy": "citation_accuracy",
    "hallucination": "hallucination_rate",
    "hallucination_rate": "hallucination_rate",
    "coverage": "coverage",
    "consistency": "consistency",
}
OVERALL = "overall"


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
    """Something the gate could not evaluate (turns the verdict into exit 2)."""

    subject: str
    message: str
    diagnosis: str
    fix: str


class GateResult(BaseModel):
    checks: list[GateCheck] = Field(default_factory=list)
    problems: list[GateProblem] = Field(default_factory=list)
    recorded_run_ids: list[int] = Field(default_factory=list)

    @property
    def failed(self) -> list[GateCheck]:
        return [c for c in self.checks if not c.passed]

    @property
    def exit_code(self) -> int:
        if self.problems or not self.checks:
            return EXIT_CANNOT
        return EXIT_BELOW if self.failed else EXIT_OK

    def add_problem(self, subject: str, err: PeEvalError) -> None:
        self.problems.append(
            GateProblem(subject=subject, message=err.message, diagnosis=err.diagnosis, fix=err.fix)
        )

    def render_text(self) -> str:
        lines = []
        for c in self.checks:
            mark = "PASS" if c.passed else "FAIL"
            value = "-" if c.value is None else f"{c.value:.4g}"
            if c.op == "no regressions":
                lines.append(f"{mark}  {c.subject}: {c.metric} {c.detail}".rstrip())
            else:
                lines.append(
                    f"{mark}  {c.subject}: {c.metric} = {value} (needs {c.op} {c.threshold:g})"
                    + (f" {c.detail}" if c.detail else "")
                )
        for p in self.problems:
            lines.append(f"ERROR {p.subject}: {p.message}")
            lines.append(f"        diagnosis: {p.diagnosis}")
            lines.append(f"        fix: {p.fix}")
        verdict = {
            EXIT_OK: "gate passed",
            EXIT_BELOW: f"gate FAILED: {len(self.failed)} check(s) below threshold",
            EXIT_CANNOT: "gate could not evaluate everything (exit 2)",
        }[self.exit_code]
        if not self.checks and not self.problems:
            verdict = "gate had nothing to check (exit 2)"
        lines.append(verdict)
        return "\n".join(lines) + "\n"


MISATTRIBUTED_KINDS = frozenset({"misattributed_figure", "misattributed_entity"})
"""Finding kinds for a value quoted under the wrong opportunity (cited, but misleading)."""


def parse_thresholds(text: str | None, *, tiers: bool = False) -> dict[str, float]:
    """``"a=1.0,b=0.9"`` -> dict. Memo names accept short aliases; values are 0..1 or ``90%``."""
    out: dict[str, float] = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, raw = part.partition("=")
        name, raw = name.strip().lower(), raw.strip()
        if not sep or not name or not raw:
            raise GateConfigError(f"threshold {part!r} is not NAME=VALUE")
        try:
            value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError as exc:
            raise GateConfigError(f"threshold {part!r}: {raw!r} is not a number") from exc
        if not 0.0 <= value <= 1.0:
            raise GateConfigError(f"threshold {part!r}: {value:g} is outside 0..1")
        if not tiers:
            if name not in DIMENSION_ALIASES:
                known = ", ".join(sorted({"citation", "hallucination", "coverage", "consistency"}))
                raise GateConfigError(f"unknown memo dimension {name!r} (known: {known})")
            name = DIMENSION_ALIASES[name]
        out[name] = value
    return out


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
) -> None:
    """Grade every memo pair in ``data_dir`` and apply ``thresholds`` (dimension -> bound;
    ``hallucination_rate`` is a maximum, the others minimums). ``max_misattributed`` bounds the
    mis-attributed figures and entities per memo: they count as cited / grounded, so no score
    threshold can catch a number quoted under the wrong opportunity."""
    from pe_eval_core.memo import find_memo_pairs, grade_memo, write_outputs

    subject = str(data_dir)
    try:
        pairs = find_memo_pairs(data_dir)
    except PeEvalError as err:
        result.add_problem(subject, err)
        return
    if not pairs:
        result.add_problem(
            subject,
            GateConfigError(
                f"no explain_<portco>_<audience>.json memos in {data_dir}",
                diagnosis="The data folder holds no memo sidecars to grade",
                fix="Point --data-dir at the folder holding explain_*.json and dx_report_*.json.",
            ),
        )
        return
    for pair in pairs:
        name = f"{pair.portco_id}/{pair.audience}"
        try:
            evaluation = grade_memo(pair.memo_path, pair.source_path)
            if write_reports:
                write_outputs(evaluation)
        except PeEvalError as err:
            result.add_problem(name, err)
            continue
        if store is not None:
            result.recorded_run_ids.append(store.record_memo_evaluation(evaluation, origin="gate"))
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


def load_scenario_record(ref: str, store: RunStore, *, record: bool) -> RunRecord:
    """A scenario run from a history reference (id, ``latest``, uid) or a run JSON file
    (``run_to_json`` output). A file is recorded in ``store`` when ``record`` is true;
    otherwise it goes through a throwaway store so the same SQL aggregates apply."""
    path = Path(ref)
    if path.suffix.lower() == ".json" or path.is_file():
        from pe_eval_core.files import read_json

        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise GateConfigError(
                f"{path} is not a scenario run JSON (no 'results' list)",
                diagnosis="The file is not the JSON a scenario run writes",
                fix="Pass the report.json written by "
                "`python -m pe_eval_core scenarios run --out DIR`, or a run id.",
            )
        if record:
            return store.get_run(store.record_scenario_run(data, origin="gate"))
        with tempfile.TemporaryDirectory(prefix="pe-eval-gate-") as tmp:
            scratch = RunStore(Path(tmp) / "scratch.sqlite")
            return scratch.get_run(scratch.record_scenario_run(data, origin="gate"))
    return store.get_run(store.resolve(ref, kind="scenarios"))


def gate_scenarios(
    result: GateResult,
    run: RunRecord,
    min_pass_rate: dict[str, float],
    *,
    baseline: RunRecord | None = None,
    subject: str | None = None,
) -> None:
    """Apply per-tier minimum pass rates (``overall`` for the whole run) and, given a
    baseline run, fail on any scenario that passed there and does not pass now."""
    subject = subject or f"run #{run.summary.id}"
    tiers: dict[str, TierCount] = {t.tier: t for t in run.tiers}
    total = sum(t.total for t in run.tiers)
    passed = sum(t.passed for t in run.tiers)
    if total:
        tiers.setdefault(
            OVERALL, TierCount(tier=OVERALL, total=total, passed=passed, pass_rate=passed / total)
        )
    for tier, threshold in min_pass_rate.items():
        counts = tiers.get(tier)
        if counts is None or counts.total == 0:
            known = ", ".join(sorted(tiers)) or "none"
            result.add_problem(
                subject,
                GateConfigError(
                    f"no scenarios in tier {tier!r} (tiers in this run: {known})",
                    diagnosis="A pass-rate threshold names a tier the run does not contain",
                    fix="Fix the tier name in --min-pass-rate or the scenarios' metadata.tier.",
                ),
            )
            continue
        result.checks.append(
            GateCheck(
                subject=subject,
                metric=f"{tier} pass rate",
                value=counts.pass_rate,
                threshold=threshold,
                op=">=",
                passed=counts.pass_rate >= threshold - EPS,
                detail=f"({counts.passed}/{counts.total})",
            )
        )
    if baseline is not None and baseline.summary.uid == run.summary.uid:
        result.add_problem(
            subject,
            GateConfigError(
                f"the baseline is the run being gated (run {run.summary.uid})",
                diagnosis="Comparing a run with itself can never find a regression",
                fix="Pass the earlier run as --baseline (e.g. latest~1), or score fresh "
                "responses with --scenarios/--responses against --baseline latest.",
            ),
        )
    elif baseline is not None:
        from pe_eval_core.history.compare import compare_scenario_records

        cmp = compare_scenario_records(baseline, run)
        names = ", ".join(c.name for c in cmp.regressions)
        result.checks.append(
            GateCheck(
                subject=subject,
                metric=f"vs baseline run #{baseline.summary.id}",
                value=float(len(cmp.regressions)),
                threshold=0.0,
                op="no regressions",
                passed=not cmp.regressions,
                detail=f"{len(cmp.regressions)} regression(s)" + (f": {names}" if names else ""),
            )
        )


def run_recorded_scenarios(
    scenarios_path: str, responses_path: str, verdicts_path: str | None = None
) -> Any:
    """Score a scenarios file against recorded responses (and, optionally, recorded judge
    verdicts): no network, so it suits CI."""
    from pe_eval_core.scenarios import (
        RecordedJudge,
        RecordedTarget,
        load_scenarios,
        run_scenarios_sync,
    )

    judge = RecordedJudge(verdicts_path) if verdicts_path else None
    return run_scenarios_sync(
        load_scenarios(scenarios_path),
        RecordedTarget(responses_path),
        judge=judge,
        scenarios_path=scenarios_path,
        save_responses=False,  # they are already on disk
    )


def evaluate_gate(
    *,
    data_dir: str | None = None,
    memo_thresholds: dict[str, float] | None = None,
    max_misattributed: int | None = None,
    scenario_run: str | None = None,
    scenarios_path: str | None = None,
    responses_path: str | None = None,
    verdicts_path: str | None = None,
    min_pass_rate: dict[str, float] | None = None,
    baseline: str | None = None,
    store: RunStore | None = None,
    record: bool = True,
    write_reports: bool = False,
) -> GateResult:
    """Run every requested check; never raises for input problems (they become exit 2)."""
    result = GateResult()
    store = store or RunStore()
    memo_thresholds = memo_thresholds or {}
    min_pass_rate = min_pass_rate or {}
    has_scenarios = bool(scenario_run or scenarios_path)
    if bool(scenarios_path) != bool(responses_path):
        result.add_problem("gate", GateConfigError("--scenarios and --responses go together"))
    if verdicts_path and not scenarios_path:
        result.add_problem("gate", GateConfigError("--judge-verdicts needs --scenarios"))
    if scenario_run and scenarios_path:
        result.add_problem(
            "gate", GateConfigError("give either --scenario-run or --scenarios, not both")
        )
    if max_misattributed is not None and max_misattributed < 0:
        result.add_problem("gate", GateConfigError("--max-misattributed must be 0 or more"))
    memo_checks = bool(memo_thresholds) or max_misattributed is not None
    if data_dir is None and memo_checks:
        result.add_problem("gate", GateConfigError("memo thresholds given without --data-dir"))
    if data_dir is not None and not memo_checks:
        result.add_problem("gate", GateConfigError("--data-dir given without memo thresholds"))
    if not has_scenarios and (min_pass_rate or baseline):
        result.add_problem("gate", GateConfigError("pass-rate thresholds given without a run"))
    if has_scenarios and not (min_pass_rate or baseline):
        result.add_problem(
            "gate", GateConfigError("a scenario run given without --min-pass-rate or --baseline")
        )
    if not data_dir and not has_scenarios:
        result.add_problem("gate", GateConfigError("nothing to check"))
    if result.problems:
        return result

    if data_dir is not None:
        gate_memos(
            result,
            data_dir,
            memo_thresholds,
            max_misattributed=max_misattributed,
            store=store if record else None,
            write_reports=write_reports,
        )
    if has_scenarios:
        subject = scenario_run or scenarios_path or "scenarios"
        try:
            # Resolve the baseline first, so `latest` means the run before this gate's own.
            base = store.get_run(store.resolve(baseline, kind="scenarios")) if baseline else None
            if scenarios_path and responses_path:
                run = run_recorded_scenarios(scenarios_path, responses_path, verdicts_path)
                if record:
                    rid = store.record_scenario_run(run, origin="gate")
                    result.recorded_run_ids.append(rid)
                    current = store.get_run(rid)
                else:
                    with tempfile.TemporaryDirectory(prefix="pe-eval-gate-") as tmp:
                        scratch = RunStore(Path(tmp) / "scratch.sqlite")
                        current = scratch.get_run(scratch.record_scenario_run(run, origin="gate"))
            else:
                current = load_scenario_record(str(scenario_run), store, record=record)
        except PeEvalError as err:
            result.add_problem(subject, err)
            return result
        ref = Path(str(scenario_run or ""))
        from_file = bool(scenarios_path) or ref.suffix.lower() == ".json" or ref.is_file()
        label = f"run {current.summary.uid} (not recorded)" if from_file and not record else None
        gate_scenarios(result, current, min_pass_rate, baseline=base, subject=label)
    return result
