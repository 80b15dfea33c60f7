"""A recorded run reopened on the History page (``?run=ID``, ``?run=ID&scenario=NAME``).

A memo run shows its scorecard as graded, from the stored record (verdict, tiles, the
opportunities and every finding); a scenario run shows the scenario page's results (metrics,
tiers, the filterable table, the failure drill-down with the tool traces, the exports). The
views are the pages' own render functions fed with models rebuilt from the record, so a
reopened run reads exactly like a fresh one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from pe_eval_core.files import sha256_file
from ui import links, state
from ui.errors import md_code, md_escape

if TYPE_CHECKING:
    from pe_eval_core.history.records import RunRecord
    from pe_eval_core.memo import MemoEvaluation
    from pe_eval_core.scenarios import ScenarioRun

K = state.History


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
    return ScenarioRun(
        run_id=s.uid,
        started_at=s.created_at,
        finished_at=s.recorded_at,
        scenarios_path=s.scenarios_path,
        scenarios_sha256=s.scenarios_sha256,
        target=s.target or "unknown target",
        # the statistics summary recorded with the run: repeats and the stable target label
        target_label=s.scores.get("target_label"),
        repeats=int(s.scores.get("repeats") or 1),
        model=s.model,
        judge=judge,
        judge_prompt_version=judge_prompt,
        as_of=s.scores.get("as_of"),
        as_of_source=s.scores.get("as_of_source"),
        results=results,
        tokens_in=s.tokens_in or 0,
        tokens_out=s.tokens_out or 0,
        estimated_cost_usd=s.cost_usd,
    )


def file_state(path: str | None, sha: str | None) -> str:
    """Whether a recorded input is still the file that was graded.

    >>> file_state(None, None)
    'not recorded'
    >>> file_state("/nonexistent/x.json", "ab")
    'no longer on disk'
    """
    if not path:
        return "not recorded"
    p = Path(path)
    if not p.is_file():
        return "no longer on disk"
    if not sha:
        return "on disk (no hash recorded)"
    try:
        same = sha256_file(p) == sha
    except OSError:
        return "unreadable now"
    return "unchanged since" if same else "changed since"


def render_memo_run(record: RunRecord) -> None:
    """The scorecard of a recorded memo evaluation, as graded."""
    from ui.views import scorecard

    ev = memo_from_record(record)
    s = record.summary
    st.subheader(f"{md_escape(ev.portco_id)} · {md_escape(ev.audience)}")
    memo_name = Path(s.memo_path or "?").name
    source_name = Path(s.source_path or "?").name
    st.caption(
        f"Graded {md_escape(s.created_at[:19].replace('T', ' '))} UTC by grader "
        f"{md_escape(ev.grader_version)} · memo {md_code(memo_name)} "
        f"({file_state(s.memo_path, s.memo_sha256)}) · source {md_code(source_name)} "
        f"({file_state(s.source_path, s.source_sha256)})"
    )
    scorecard.render_verdict(ev)
    scorecard.render_tiles(ev)
    st.markdown("#### Opportunities")
    scorecard.render_opportunity_table(ev)
    st.markdown("#### Findings")
    scorecard.render_findings(ev)
    st.download_button(
        "Findings CSV",
        data=lambda: scorecard.findings_csv(ev, s.id),  # led by portco, audience, file, run id
        file_name=f"eval_{ev.portco_id}_{ev.audience}_run{s.id}_findings.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key=f"{K.OPEN}.findings_csv",
    )
    if ev.consistency.note:
        st.markdown("#### Consistency")
        st.markdown(md_escape(ev.consistency.note))
    folder = Path(s.memo_path).parent if s.memo_path else None
    if folder is not None and folder == state.data_dir().resolve():
        if st.button(
            "Open this memo's current scorecard",
            key=f"{K.OPEN}.regrade",
            icon=":material/open_in_new:",
            help="Grades the memo as it is on disk now, with the marked prose.",
        ):
            links.go("scorecard", portco=ev.portco_id, audience=ev.audience)
    else:
        st.caption(
            "The marked prose is not kept in the history: open the memo on the scorecard page "
            "(data folder " + md_code(folder or "?") + ") to see it."
        )


def render_scenario_run(record: RunRecord, scenario: str | None) -> str | None:
    """The scenario page's results for a recorded run; returns the scenario drilled into."""
    from ui.views import scenarios

    run = scenario_run_from_record(record)
    run_json = run.model_dump_json()
    view = scenarios.build_view(run, run_json)
    view["judge"] = view["judge"] or "not recorded"
    if scenario:
        # with repeats a failing result is keyed "name · run k": a link names the scenario,
        # so it opens the first of its runs that did not pass
        keys = (
            [scenario]
            if scenario in view["failing"]
            else [
                scenarios.failing_key(scenario, r.repeat, run.repeats)
                for r in run.results
                if r.name == scenario
            ]
        )
        opened = next((k for k in keys if k in view["failing"]), None)
        if opened is not None:
            st.session_state[state.RunView.FAILURE] = opened
        else:
            known = any(r.name == scenario for r in run.results)
            st.info(
                f"Scenario {md_code(scenario)} "
                + ("passed in this run: nothing to drill into." if known else "is not in this run.")
            )
    source = Path(record.summary.scenarios_path or "?").name
    return scenarios.render_results(
        view, run_json, source, keys=state.RunView, history_id=record.summary.id
    )
