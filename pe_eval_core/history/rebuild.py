"""A recorded run rebuilt as the model it was recorded from, so a surface can show a stored run
with the same code that shows a fresh one (the dashboard's History page reopens runs this way).

A memo run comes back as a ``MemoEvaluation`` without its marks and prose (not stored); a
scenario run as a ``ScenarioRun`` with every result's expectations, checks, response and tool
trace as recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pe_eval_core.history.records import RunRecord
    from pe_eval_core.memo import MemoEvaluation
    from pe_eval_core.scenarios import ScenarioRun


def memo_from_record(record: RunRecord) -> MemoEvaluation:
    """The evaluation as graded, from its stored record: scores, totals, opportunities and
    findings as recorded. The marked prose is not stored, so ``marks`` and ``prose`` are
    empty; the consistency note is the recorded one."""
    from pe_eval_core.memo.result import (
        ConsistencyDetail,
        Finding,
        MemoEvaluation,
        OpportunityRow,
        Scores,
        Totals,
    )

    s = record.summary
    stored = s.scores or {}
    return MemoEvaluation(
        portco_id=s.portco_id or "?",
        audience=s.audience or "?",
        memo_path=s.memo_path or "",
        source_path=s.source_path or "",
        memo_sha256=s.memo_sha256 or "",
        source_sha256=s.source_sha256 or "",
        grader_version=s.grader_version or "?",
        evaluated_at=s.created_at,
        scores=Scores.model_validate(stored.get("scores") or {}),
        totals=Totals.model_validate(stored.get("totals") or {}),
        opportunities=[
            OpportunityRow(
                id=o.opportunity_id,
                archetype=o.archetype,
                cohort=o.cohort or "",
                in_source=bool(o.in_source),
                addressed=bool(o.addressed),
                figures_total=o.figures_total or 0,
                figures_cited=o.figures_cited or 0,
                entities_total=o.entities_total or 0,
                entities_grounded=o.entities_grounded or 0,
                findings=o.n_findings or 0,
            )
            for o in record.opportunities
        ],
        findings=[Finding.model_validate(f.model_dump()) for f in record.findings],
        marks=[],
        consistency=ConsistencyDetail(note=s.note or ""),
        prose=[],
    )


def scenario_run_from_record(record: RunRecord) -> ScenarioRun:
    """The scenario run from its stored record: every result with its expectations, numeric
    checks, excluded phrases, response and tool trace as recorded."""
    from pe_eval_core.history.records import recorded_judge
    from pe_eval_core.scenarios import ScenarioRun
    from pe_eval_core.scenarios.models import ScenarioResult

    s = record.summary
    judge, judge_prompt = recorded_judge(s, record.results)
    results = [
        ScenarioResult.model_validate(
            {
                **r.detail,
                "name": r.name,
                "tier": r.tier or "untiered",
                "platform": r.platform,
                "source_fact": r.source_fact,
                "status": r.status,
                "latency_ms": r.latency_ms,
                "error": r.error,
                "response": r.response,
            }
        )
        for r in record.results
    ]
    # pydantic reads the recorded ISO timestamps, as it did when the run was first loaded
    return ScenarioRun.model_validate(
        {
            "run_id": s.uid,
            "started_at": s.created_at,
            "finished_at": s.recorded_at,
            "scenarios_path": s.scenarios_path,
            "scenarios_sha256": s.scenarios_sha256,
            "target": s.target or "unknown target",
            # the statistics summary recorded with the run: repeats and the stable target label
            "target_label": s.scores.get("target_label"),
            "repeats": int(s.scores.get("repeats") or 1),
            "model": s.model,
            "judge": judge,
            "judge_prompt_version": judge_prompt,
            "as_of": s.scores.get("as_of"),
            "as_of_source": s.scores.get("as_of_source"),
            "manifest": s.scores.get("manifest"),
            "results": results,
            "tokens_in": s.tokens_in or 0,
            "tokens_out": s.tokens_out or 0,
            "estimated_cost_usd": s.cost_usd,
        }
    )
