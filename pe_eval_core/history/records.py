"""The run history's typed records, and the builders that turn a result into one.

A :class:`RunRecord` is what the store writes and what it reads back: a :class:`RunSummary`
plus the detail rows of its kind. :func:`memo_record` and :func:`scenario_record` build one
from a ``MemoEvaluation`` or a ``ScenarioRun`` without touching a database, so the gate can
check a run it does not record with the same numbers the store would give.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, field_validator

from pe_eval_core import rates
from pe_eval_core.history.memo_rows import (
    MemoRows,
    grading_key_of,
    iso_utc,
    memo_rows,
    now_utc,
    resolved_path,
    sha_if_file,
)
from pe_eval_core.redact import redact, redact_data
from pe_eval_core.wording import DIMENSIONS, target_words

__all__ = [
    "MEMO_DIMENSIONS",
    "SCENARIO_DETAIL_KEYS",
    "MemoFindingRow",
    "MemoOpportunityRow",
    "RunFilters",
    "RunKind",
    "RunRecord",
    "RunSummary",
    "ScenarioResultRow",
    "ScenarioRowData",
    "TierCount",
    "grading_key",
    "iso_utc",
    "memo_record",
    "memo_record_from_rows",
    "now_utc",
    "resolved_path",
    "scenario_record",
    "scenario_row_data",
    "scenario_summary",
    "scores_json",
]

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation
    from pe_eval_core.scenarios.models import ScenarioRun
    from pe_eval_core.scenarios.models.manifest import RunManifest

RunKind = Literal["memo", "scenarios"]
MEMO_DIMENSIONS = DIMENSIONS
PASS = "pass"
"""The status of a scenario that passed."""
UNRECORDED_ID = 0
"""``RunSummary.id`` of a record built in memory and not (yet) stored."""

SCENARIO_DETAIL_KEYS = (
    "index",
    "repeat",
    "error_kind",
    "expectations",
    "numeric_checks",
    "excludes",
    "excluded_hits",
    "numbers",
    "max_latency_ms",
    "latency_warning",
    "tokens_in",
    "tokens_out",
    "trace",
    "write_failure",
)
"""The parts of a scenario result kept in ``ScenarioResultRow.detail``."""
_DETAIL_FIELDS = set(SCENARIO_DETAIL_KEYS)


class RunFilters(BaseModel):
    """Which runs to list; every field left ``None`` matches everything."""

    kind: RunKind | None = None
    portco_id: str | None = None
    audience: str | None = None
    scenarios_path: str | None = None
    target: str | None = None
    model: str | None = None
    skill_path: str | None = None
    """The skill file (any spelling of its path): the scenario runs of that skill only."""
    identity: str | None = None
    """A run identity (``RunManifest.identity``): the runs made with the same setup only."""
    memo_path: str | None = None
    """The memo file (any spelling of its path): its runs only."""
    infra_error: bool | None = None
    """True: only infrastructure-error runs (every scenario errored); False: none of them."""
    since: str | None = None
    """ISO timestamp; runs created at or after it."""
    until: str | None = None
    """ISO timestamp; runs created before it."""


class RunSummary(BaseModel):
    """One row of the runs list: what was evaluated, when, and the headline numbers."""

    id: int
    """The row id; :data:`UNRECORDED_ID` for a record that was never stored."""
    uid: str
    kind: RunKind
    created_at: str
    recorded_at: str
    origin: str
    portco_id: str | None = None
    audience: str | None = None
    memo_path: str | None = None
    memo_sha256: str | None = None
    source_path: str | None = None
    source_sha256: str | None = None
    grader_version: str | None = None
    scenarios_path: str | None = None
    scenarios_sha256: str | None = None
    target: str | None = None
    model: str | None = None
    citation_accuracy: float | None = None
    hallucination_rate: float | None = None
    coverage: float | None = None
    consistency: float | None = None
    n_total: int | None = None
    n_passed: int | None = None
    n_errors: int | None = None
    pass_rate: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    note: str | None = None
    config_digest: str | None = None
    """sha256 of the grader configuration a memo was graded with."""
    skill_path: str | None = None
    """The skill file a live target followed (resolved path); None for other targets."""
    skill_sha256: str | None = None
    identity: str | None = None
    """sha256 of what produced a scenario run (``RunManifest.identity``): runs are compared
    like for like by it; None for memo runs and runs recorded before manifests."""
    infra_error: bool = False
    """Every scenario of the run errored (the agent or the network was down): nothing was
    measured, so trends, comparisons and the gate leave the run out."""
    scores: dict[str, Any] = Field(default_factory=dict)
    """The run's full scores/totals as recorded (memo: ``scores`` and ``totals``)."""

    # Read back through the redaction choke point: a run recorded before credentials were
    # redacted (an agent URL with ``user:password@``, a token query) never shows them.
    _redact = field_validator("target", "note", "scenarios_path", "model")(redact)

    @property
    def subject(self) -> str:
        """A short label: ``MortgageCo/board`` or ``mimic-scenarios.json @ target``."""
        if self.kind == "memo":
            return f"{self.portco_id}/{self.audience}"
        name = Path(self.scenarios_path or "?").name
        return f"{name} @ {target_words(self.target)}"

    @property
    def ran(self) -> int:
        """Scenario runs that produced a verdict: the pass rate's denominator."""
        return (self.n_total or 0) - (self.n_errors or 0)

    @property
    def rate_text(self) -> str:
        """A scenario run's pass rate as every surface shows it (``83.3%``, ``n/a``)."""
        return rates.rate_text(self.n_passed or 0, self.ran)

    @property
    def tally_text(self) -> str:
        """``15/18 (83.3%)``: passes of the runs with a verdict, and the rate."""
        return rates.tally_text(self.n_passed or 0, self.ran)


class MemoFindingRow(BaseModel):
    """A memo finding as stored: the identity used to diff two runs is (kind, opportunity, raw)."""

    kind: str
    opportunity_id: str | None = None
    field: str | None = None
    start: int | None = None
    end: int | None = None
    raw: str | None = None
    message: str | None = None
    nearest_value: float | str | None = None
    nearest_path: str | None = None
    other_opportunity_id: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.opportunity_id or "", self.raw or "")


class MemoOpportunityRow(BaseModel):
    opportunity_id: str
    archetype: str | None = None
    cohort: str | None = None
    in_source: bool | None = None
    addressed: bool | None = None
    figures_total: int | None = None
    figures_cited: int | None = None
    entities_total: int | None = None
    entities_grounded: int | None = None
    n_findings: int | None = None


class ScenarioResultRow(BaseModel):
    """A scenario verdict as stored; ``detail`` keeps expectations, numeric check and numbers."""

    name: str
    tier: str | None = None
    platform: str | None = None
    source_fact: str | None = None
    status: str
    latency_ms: float | None = None
    error: str | None = None
    response: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)

    _redact = field_validator("error", "response")(redact)
    _redact_detail = field_validator("detail")(redact_data)


@dataclass(slots=True)
class ScenarioRowData:
    """A scenario verdict on its way into the store: a plain row, so recording 10,000 of
    them validates nothing twice (the run was validated when it was built)."""

    name: str
    tier: str | None
    platform: str | None
    source_fact: str | None
    status: str
    latency_ms: float | None
    error: str | None
    response: str | None
    detail: dict[str, Any] = field(default_factory=dict)


class TierCount(BaseModel):
    """One tier of a recorded scenario run: its runs, those with a verdict, those passed."""

    tier: str
    total: int
    """Every run of the tier, errors included."""
    passed: int
    pass_rate: float
    """``passed / ran`` (:func:`pe_eval_core.rates.pass_rate`); 0.0 when ``ran`` is 0."""
    ran: int = 0
    """Runs that produced a verdict (pass or fail): the pass rate's denominator."""

    @property
    def tally_text(self) -> str:
        """``6/7 (85.7%)``, as every surface shows a tier (``rates.tally_text``)."""
        return rates.tally_text(self.passed, self.ran)


class RunRecord(BaseModel):
    """A run with all of its detail rows."""

    summary: RunSummary
    opportunities: list[MemoOpportunityRow] = Field(default_factory=list)
    findings: list[MemoFindingRow] = Field(default_factory=list)
    results: list[ScenarioResultRow] = Field(default_factory=list)
    tiers: list[TierCount] = Field(default_factory=list)


# --- builders ---------------------------------------------------------------------------


def memo_record(evaluation: MemoEvaluation, *, origin: str = "api") -> RunRecord:
    """A memo evaluation as a history record (not stored: ``summary.id`` is 0); its values are
    :func:`~pe_eval_core.history.memo_rows.memo_rows`'s, the rows a memo command writes."""
    return memo_record_from_rows(memo_rows(evaluation, origin=origin))


def memo_record_from_rows(rows: MemoRows) -> RunRecord:
    """The record of a memo grading's rows (``history.memo_rows.MemoRows``)."""
    return RunRecord(
        summary=RunSummary(id=UNRECORDED_ID, **rows.summary),
        findings=[MemoFindingRow(**f) for f in rows.findings],
        opportunities=[MemoOpportunityRow(**o) for o in rows.opportunities],
    )


def scenario_row_data(run: ScenarioRun) -> list[ScenarioRowData]:
    """The run's verdicts as plain rows (one serialiser call for every result's detail)."""
    details = run.model_dump(mode="json", include={"results": {"__all__": _DETAIL_FIELDS}})
    return [
        ScenarioRowData(
            name=r.name,
            tier=r.tier,
            platform=r.platform,
            source_fact=r.source_fact,
            status=r.status,
            latency_ms=r.latency_ms,
            error=r.error,
            response=r.response,
            detail={k: dumped[k] for k in SCENARIO_DETAIL_KEYS if k in dumped},
        )
        for r, dumped in zip(run.results, details["results"], strict=True)
    ]


def scenario_summary(run: ScenarioRun, *, origin: str = "api") -> RunSummary:
    """A scenario run's summary row (not stored: ``id`` is 0)."""
    n_errors = sum(1 for r in run.results if r.status not in ("pass", "fail"))
    manifest = run.manifest
    return RunSummary(
        id=UNRECORDED_ID,
        uid=run.run_id or uuid.uuid4().hex,
        kind="scenarios",
        created_at=iso_utc(run.started_at),
        recorded_at=now_utc(),
        origin=origin,
        scenarios_path=resolved_path(run.scenarios_path),
        scenarios_sha256=run.scenarios_sha256 or sha_if_file(run.scenarios_path),
        target=run.target,
        model=run.model,
        n_total=run.total,
        n_passed=run.passed,
        n_errors=n_errors,
        pass_rate=rates.pass_rate(run.passed, run.ran),  # errors left out, None: no verdict
        tokens_in=run.tokens_in,
        tokens_out=run.tokens_out,
        cost_usd=run.estimated_cost_usd,
        note=run.conclusion(),
        skill_path=manifest.skill_path if manifest else None,
        skill_sha256=manifest.skill_sha256 if manifest else None,
        identity=manifest.identity if manifest else None,
        # repeats, intervals, flaky, errors, target label; the judge, the analysis date and
        # the manifest (what produced the run)
        scores={**run.statistics_summary(), **run_settings(run)},
        infra_error=bool(run.total) and n_errors == run.total,
    )


RUN_SETTING_KEYS = ("judge", "judge_prompt_version", "as_of", "as_of_source")
"""What a scenario run was configured with, kept in ``RunSummary.scores`` (no column)."""


def run_settings(run: ScenarioRun) -> dict[str, Any]:
    """The judge, analysis date and manifest of ``run``, as recorded with it."""
    out: dict[str, Any] = {key: getattr(run, key) for key in RUN_SETTING_KEYS}
    if run.manifest is not None:
        out["manifest"] = run.manifest.model_dump(mode="json")
    return out


def recorded_manifest(summary: RunSummary) -> RunManifest | None:
    """The manifest recorded with a scenario run; None before manifests (or unreadable)."""
    from pe_eval_core.scenarios.models.manifest import RunManifest

    data = summary.scores.get("manifest") if isinstance(summary.scores, dict) else None
    if not isinstance(data, dict):
        return None
    try:
        return RunManifest.model_validate(data)
    except ValueError:
        return None


def recorded_judge(
    summary: RunSummary, results: list[ScenarioResultRow]
) -> tuple[str | None, str | None]:
    """(judge, prompt version) of a recorded scenario run: as recorded with it, else (runs
    recorded before the judge was kept) read from the verdicts its results carry.

    >>> s = RunSummary(id=1, uid="u", kind="scenarios", created_at="", recorded_at="",
    ...                origin="cli", scores={"judge": "claude-opus-5-5"})
    >>> recorded_judge(s, [])
    ('claude-opus-5-5', None)
    >>> row = ScenarioResultRow(name="a", status="pass", detail={"expectations": [
    ...     {"text": "x", "judge_model": "m1", "judge_prompt_version": "judge-v2-ab"}]})
    >>> recorded_judge(s.model_copy(update={"scores": {}}), [row])
    ('m1 (from the recorded verdicts)', 'judge-v2-ab')
    """
    scores = summary.scores if isinstance(summary.scores, dict) else {}
    if scores.get("judge"):
        return str(scores["judge"]), scores.get("judge_prompt_version")
    seen: dict[str, str | None] = {}
    for row in results:
        for e in row.detail.get("expectations") or []:
            if isinstance(e, dict) and e.get("judge_model"):
                seen.setdefault(str(e["judge_model"]), e.get("judge_prompt_version"))
    if not seen:
        return None, None
    models = ", ".join(sorted(seen))
    versions = {v for v in seen.values() if v}
    return f"{models} (from the recorded verdicts)", versions.pop() if len(versions) == 1 else None


def scenario_record(run: ScenarioRun, *, origin: str = "api") -> RunRecord:
    """A scenario run as a history record (not stored: ``summary.id`` is 0).

    Counts and per-tier pass rates come from the run itself (``ScenarioRun.by_tier``), the
    same figures the store computes in SQL once the record is written.
    """
    results = [
        ScenarioResultRow(
            name=r.name,
            tier=r.tier,
            platform=r.platform,
            source_fact=r.source_fact,
            status=r.status,
            latency_ms=r.latency_ms,
            error=r.error,
            response=r.response,
            detail=r.detail,
        )
        for r in scenario_row_data(run)
    ]
    tiers = sorted(
        (
            TierCount(
                tier=t.tier,
                total=t.total,
                passed=t.passed,
                ran=t.ran,
                pass_rate=rates.pass_rate(t.passed, t.ran) or 0.0,  # errors left out
            )
            for t in run.by_tier()
            if t.total
        ),
        key=lambda t: t.tier,
    )
    return RunRecord(summary=scenario_summary(run, origin=origin), results=results, tiers=tiers)


def grading_key(record: RunRecord) -> str | None:
    """What makes two memo gradings the same (``memo_rows.grading_key_of``): memo file and
    content, source content, grader version and configuration, scores and findings.

    >>> s = RunSummary(id=0, uid="u", kind="memo", created_at="t", recorded_at="t",
    ...                origin="cli", memo_sha256="a", source_sha256="b")
    >>> later = s.model_copy(update={"uid": "v", "created_at": "t2"})
    >>> grading_key(RunRecord(summary=s)) == grading_key(RunRecord(summary=later))
    True
    """
    summary = record.summary.model_dump()
    return grading_key_of(summary, [f.model_dump() for f in record.findings])


def scenario_run_key(
    summary: RunSummary,
    statuses: Sequence[tuple[str, str]],
    detail_sha256: str,
    response_sha256s: Sequence[str | None],
) -> str:
    """What makes two scenario runs the same run: the scenarios file's content, the target and
    model, the run's statistics (repeats, the target's label, the judge), and every verdict
    with its response and detail (checks, judge verdicts, numbers, trace, latency), never the
    run's id or times. A re-score of the same responses, or the same recorded run recorded
    again, has the same key; a live re-run measures new latencies, so it is a new run.

    >>> s = RunSummary(id=0, uid="u", kind="scenarios", created_at="t", recorded_at="t",
    ...                origin="cli", scenarios_sha256="abc", target="recorded:r.json")
    >>> later = s.model_copy(update={"uid": "v", "created_at": "t2", "origin": "dashboard"})
    >>> k = scenario_run_key(s, [("a", "pass")], "d", ["r"])
    >>> k == scenario_run_key(later, [("a", "pass")], "d", ["r"])
    True
    >>> k == scenario_run_key(s, [("a", "fail")], "d", ["r"])
    False
    """
    parts = [
        "scenarios",
        summary.scenarios_sha256,
        summary.target,
        summary.model,
        summary.scores,
        list(statuses),
        detail_sha256,
        list(response_sha256s),
    ]
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def scores_json(summary: RunSummary) -> str:
    """The summary's ``scores`` as stored in ``runs.scores_json``."""
    return json.dumps(summary.scores)
