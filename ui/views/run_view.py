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
from pe_eval_core.history.rebuild import memo_from_record, scenario_run_from_record
from ui import links, state
from ui.errors import md_code, md_escape
from ui.views.scenario_failure import choose

if TYPE_CHECKING:
    from pe_eval_core.history.records import RunRecord

K = state.History


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
    from ui.views import scenario_results as scenarios

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
            choose(state.RunView, opened)
        else:
            known = any(r.name == scenario for r in run.results)
            st.info(
                f"Scenario {md_code(scenario)} "
                + ("passed in this run: nothing to drill into." if known else "is not in this run.")
            )
    source = Path(record.summary.scenarios_path or "?").name
    return scenarios.render_results(
        view,
        run_json,
        source,
        keys=state.RunView,
        history_id=record.summary.id,
        page="history",
        scroll_to=scenario,
    )
