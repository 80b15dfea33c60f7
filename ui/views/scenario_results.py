"""The scenario page's results: the view of a run kept in session state, the metrics, the
tier table and chart, the filterable table (cards on a phone) and the exports. The History
page reopens a recorded run through :func:`render_results` too."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from pe_eval_core.rates import rate_text, tally_text
from pe_eval_core.scenarios.run.outcome import CANCELLED
from pe_eval_core.wording import fmt_interval
from ui import charts, data, state
from ui.errors import md_code, md_escape
from ui.responsive import MAX_CARDS, Card, table_or_cards, text
from ui.views.scenario_failure import failure_reasons, render_failure
from ui.views.scenario_lead import render_lead, run_link

if TYPE_CHECKING:
    from pe_eval_core.scenarios import ScenarioResult, ScenarioRun

K = state.Scenarios


TABLE_COLUMNS = (
    "#",
    "Scenario",
    "Tier",
    "Strict",
    "Paraphrase",
    "Numeric",
    "Result",
    "Excludes hit",
    "Behaviour",
    "Latency (ms)",
    "Latency warning",
    "Platform",
    "Fact",
)


def build_view(model: ScenarioRun, run_json: str) -> dict[str, Any]:
    """What the results section shows, derived once from a ScenarioRun, kept in session state.

    Compact and picklable: table columns as plain lists, each non-passing scenario as its own
    JSON text (parsed only when drilled into), so a rerun never re-parses or re-validates the
    whole run, however many scenarios it holds.
    """
    columns: dict[str, list[Any]] = {c: [] for c in TABLE_COLUMNS}
    failing: dict[str, str] = {}
    for r in model.results:
        numeric = r.numeric
        for column, value in zip(
            TABLE_COLUMNS,
            (
                r.index,
                r.name,
                r.tier,
                f"{r.strict_satisfied}/{len(r.expectations)}",
                f"{r.paraphrase_satisfied}/{len(r.candidate_misses)}",
                "—" if numeric is None else ("✓" if numeric.satisfied else "✗"),
                r.status,
                ", ".join(r.excluded_hits),
                behaviour_cell(r),
                r.latency_ms,
                r.latency_warning,
                r.platform or "",
                r.source_fact or "",
            ),
            strict=True,
        ):
            columns[column].append(value)
        if r.status != "pass":
            failing[failing_key(r.name, r.repeat, model.repeats)] = r.model_dump_json()
    stats = model.scenario_stats()
    flaky = [x.name for x in stats if x.flaky]
    if model.repeats > 1:  # which of the K runs a row is, and whether its scenario is flaky
        columns["Run"] = [r.repeat for r in model.results]
        columns["Flaky"] = [r.name in flaky for r in model.results]
    return {
        "key": view_key(run_json),
        "run_id": model.run_id,
        "cancelled": model.cancelled,
        "finished": sum(1 for r in model.results if r.error != CANCELLED),
        "total": model.total,
        "passed": model.passed,
        "failed": model.failed,
        "errors": model.errors,
        "pass_rate": model.pass_rate,
        "ran": model.ran,
        "repeats": model.repeats,
        "warnings": list(model.warnings),
        "error_summary": model.error_summary(),
        "tiers": tier_rows(model),
        "flaky": flaky,
        "scenario_stats": scenario_stat_rows(model) if model.repeats > 1 else [],
        "conclusion": model.conclusion(plain=True),
        "started": model.started_at.isoformat() if model.started_at else "",
        "first_error": next((r.error for r in model.results if r.error), None),
        "target": model.target,
        "judge": model.judge,
        "table": columns,
        "failing": failing,
    }


def failing_key(name: str, repeat: int, repeats: int) -> str:
    """A non-passing result's drill-down key: the scenario's name, plus which run when it
    repeats (each of the K runs is its own result).

    >>> failing_key("a", 1, 1), failing_key("a", 2, 3)
    ('a', 'a · run 2')
    """
    return name if repeats <= 1 else f"{name} · run {repeat}"


def row_key(row: dict[str, Any]) -> str:
    """:func:`failing_key` of a table row (the ``Run`` column exists only with repeats)."""
    run = row.get("Run")
    return str(row["Scenario"]) if run is None else f"{row['Scenario']} · run {run}"


def behaviour_cell(r: ScenarioResult) -> str:
    """The table's behaviour column: checks met of checks asked ("—": none asked).

    >>> from pe_eval_core.scenarios.models import BehaviourResult, ScenarioResult
    >>> r = ScenarioResult(index=1, name="a", tier="smoke", status="fail", behaviour=[
    ...     BehaviourResult(check="tools_called", label="tools_called", satisfied=False)])
    >>> behaviour_cell(r)
    '0/1'
    """
    if not r.behaviour:
        return "—"
    return f"{sum(1 for b in r.behaviour if b.satisfied)}/{len(r.behaviour)}"


def scenario_stat_rows(model: ScenarioRun) -> list[dict[str, Any]]:
    """Per scenario over its K runs (``run.statistics_summary()``): passes of the runs with a
    verdict, pass@k, pass^k, errors and the outcome (pass, fail, flaky, error)."""
    return [
        {
            "Name": row["name"],
            "Tier": row["tier"],
            "Passed": f"{row['passes']}/{row['runs']}",
            "pass@k": "—" if "pass_at_k" not in row else f"{row['pass_at_k']:.0%}",
            "pass^k": "—" if "pass_hat_k" not in row else f"{row['pass_hat_k']:.0%}",
            "Errors": row["errors"],
            "Outcome": row["outcome"],
        }
        for row in model.statistics_summary()["scenarios"]
    ]


def tier_rows(model: ScenarioRun) -> list[dict[str, Any]]:
    """Per tier: passes of the runs that produced a verdict (errors left out), the pass rate,
    its 95% interval and how it was computed (``run.tier_stats()``), and the errors apart."""
    errors = {t.tier: t.errors for t in model.by_tier()}
    return [
        {
            "tier": t.tier,
            "passed": t.passes,
            "total": t.runs,
            "rate": t.rate if t.runs else None,
            "low": t.low if t.runs else None,
            "high": t.high if t.runs else None,
            "method": t.method,
            "errors": errors.get(t.tier, 0),
        }
        for t in model.tier_stats()
    ]


def current_view() -> dict[str, Any] | None:
    """The last run's view; derived from its JSON once if only the JSON is in the session."""
    from pe_eval_core.scenarios import ScenarioRun

    run_json = st.session_state.get(K.RESULT)
    if not run_json:
        return None
    v = st.session_state.get(K.RESULT_VIEW)
    if v is None or v.get("key") != view_key(run_json):
        with st.spinner("Preparing the run's tables…"):
            v = build_view(ScenarioRun.model_validate_json(run_json), run_json)
        st.session_state[K.RESULT_VIEW] = v
    return v


def view_key(run_json: str) -> str:
    """Ties a view to its run cheaply: the JSON opens with the unique run id, plus its length."""
    return f"{run_json[:96]}|{len(run_json)}"


def render_results(
    v: dict[str, Any],
    run_json: str,
    source: str,
    keys: Any = K,
    history_id: int | None = None,
    *,
    page: str = "scenarios",
    scroll_to: str | None = None,
    after_lead: Callable[[], None] | None = None,
) -> str | None:
    """The run's first screen (verdict, failing scenarios, link: :mod:`scenario_lead`), then
    metrics, the tier chart, the filterable table, the failure drill-down and downloads.

    ``keys``: the widget keys (``state.Scenarios`` here, ``state.RunView`` for a run reopened
    on the History page); ``page``: the page whose links the run's links are; ``scroll_to``:
    a scenario a link asked for, its drill-down scrolled into view; ``after_lead``: drawn
    right under the first screen (the scenario page's run form). Returns the scenario
    drilled into when one was asked for (for the page's link).
    """
    verdict = data.scenario_verdict(history_id) if history_id is not None else None
    render_lead(v, history_id, page=page, verdict=verdict, source=source)
    if after_lead is not None:
        after_lead()
    for warning in v.get("warnings") or []:
        st.warning(md_escape(warning), icon=":material/warning:")
    ran = v.get("ran", v["passed"] + v["failed"])
    repeats = int(v.get("repeats") or 1)
    cols = st.container(key="tiles-scenario").columns(4)
    cols[0].metric(
        "Scenario runs" if repeats > 1 else "Scenarios",
        v["total"],
        help=f"Every scenario ran {repeats} times." if repeats > 1 else None,
        border=True,
    )
    cols[1].metric("Passed", v["passed"], border=True)
    cols[2].metric(
        "Failed",
        v["failed"],
        delta=(f"+{v['errors']} error" + ("s" if v["errors"] != 1 else ""))
        if v["errors"]
        else None,
        delta_color="off",
        delta_arrow="off",
        border=True,
    )
    cols[3].metric(
        "Pass rate",
        rate_text(v["passed"], ran),
        help=f"Passed of the {ran} scenario runs with a verdict (pass or fail); errors "
        "are left out.",
        border=True,
    )
    if v.get("cancelled"):
        st.warning(
            f"**Stopped.** {v['finished']} of {v['total']} scenarios finished before the stop; "
            "their results are below, the rest are marked cancelled. A stopped run is not "
            "recorded in the history.",
            icon=":material/stop_circle:",
        )
    if v.get("error_summary"):
        st.warning(
            f"**{md_escape(v['error_summary'])}.** An error is no verdict: it is left out of "
            f"every pass rate here, which counts the {ran} scenario runs that passed or failed.",
            icon=":material/error:",
        )
    st.info(f"**Conclusion.** {md_escape(v['conclusion'])}", icon=":material/flag:")
    st.markdown("##### Pass rate by tier")
    charts.show(charts.tier_chart, v["tiers"], width="stretch")
    render_tier_table(v["tiers"], repeats, v.get("flaky") or [])
    if v.get("scenario_stats"):
        with st.expander(f"Each scenario over its {repeats} runs (pass@k, pass^k)"):
            st.caption(
                f"pass@k: the chance at least one of k={repeats} runs passes; pass^k: the "
                "chance all of them do (from the runs that produced a verdict)."
            )
            st.table(pd.DataFrame(v["scenario_stats"]).set_index("Name"))
    shown, clicked = render_table(
        pd.DataFrame(v["table"]), keys, v["failing"], history_id, page=page
    )
    with st.container(key=f"drilldown-{keys.FAILURE.replace('.', '-')}"):
        picked = render_failure(v["failing"], keys, shown=shown, clicked=clicked)
    if scroll_to is not None and picked is not None:
        scroll_into_view(f"drilldown-{keys.FAILURE.replace('.', '-')}")
    render_downloads(v["run_id"], run_json, keys)
    return picked


SCROLL_JS = """<script>
(() => {
  const target = () => document.querySelector(".st-key-%(key)s");
  let stop = false;
  const quit = () => { stop = true; };
  for (const e of ["wheel", "touchstart", "keydown", "mousedown"]) {
    window.addEventListener(e, quit, {once: true, passive: true});
  }
  const started = Date.now();
  const tick = () => {
    const el = target();
    if (stop || Date.now() - started > 6000) return;
    if (el) {
      el.style.scrollMarginTop = "64px";  // clear of Streamlit's header bar
      const top = el.getBoundingClientRect().top;
      if (Math.abs(top - 64) > 8) el.scrollIntoView({block: "start"});
    }
    setTimeout(tick, 200);
  };
  tick();
})();
</script>"""
"""Brings a keyed block to the top of the window, again while the charts above it settle
(they grow after they draw), until the user scrolls or clicks."""


def scroll_into_view(key: str) -> None:
    """Scroll the element keyed ``key`` into view once (a link asked for it)."""
    st.html(SCROLL_JS % {"key": key}, unsafe_allow_javascript=True)


def render_tier_table(tiers: list[dict[str, Any]], repeats: int, flaky: list[str]) -> None:
    """Per tier: pass rate with its 95% interval (and which method), runs, errors apart; then
    the flaky scenarios (passed in some repeats, failed in others)."""
    if not tiers:
        return
    rows = [
        {
            "Tier": t["tier"],
            "Pass rate": tally_text(t["passed"], t["total"]),  # total: runs with a verdict
            "95% interval": "—" if t.get("low") is None else fmt_interval(t["low"], t["high"]),
            "Errors (left out)": t.get("errors", 0),
            "Method": t.get("method") or "",
        }
        for t in tiers
    ]
    st.table(pd.DataFrame(rows).set_index("Tier"))
    if repeats > 1:
        if flaky:
            st.warning(
                f"**{len(flaky)} flaky** (passed in some of the {repeats} runs and failed in "
                "others): " + ", ".join(md_code(n) for n in flaky),
                icon=":material/shuffle:",
            )
        else:
            st.caption(f"No flaky scenario: each gave the same verdict in all {repeats} runs.")


def scenario_card(
    row: dict[str, Any], failing: dict[str, str], run: int | None, page: str = "history"
) -> Card:
    """A scenario row on a phone: its name, why it did not pass (or that it passed), then its
    checks; for a recorded run, a link to its drill-down."""
    name = row_key(row)
    latency = row["Latency (ms)"]
    why = failure_reasons(json.loads(failing[name])) if name in failing else "passed"
    return Card(
        title=f"{name} · {row['Result']}" + (" · flaky" if row.get("Flaky") else ""),
        lead=why,
        details=[
            ("tier", str(row["Tier"])),
            ("expected phrases found", str(row["Strict"])),
            ("paraphrases accepted", str(row["Paraphrase"])),
            ("number in range", str(row["Numeric"])),
            ("behaviour checks met", str(row.get("Behaviour", "—"))),
            ("latency", f"{float(latency):.0f} ms" if text(latency) else ""),
        ],
        href=None if name not in failing else run_link(run, page, str(row["Scenario"])),
        tone="pass" if row["Result"] == "pass" else "fail",
    )


def render_table(
    table: pd.DataFrame,
    keys: Any = K,
    failing: dict[str, str] | None = None,
    run: int | None = None,
    *,
    page: str = "history",
) -> tuple[list[str], str | None]:
    """The per-scenario table, filterable by tier, result, platform and source fact (cards on
    a phone, the scenarios that did not pass first; ``run``: the history id whose links the
    cards carry, on ``page``).

    Returns the names the filters leave (the drill-down offers only those) and the scenario
    whose row was clicked, if any.
    """
    st.markdown("##### Scenarios")
    cols = st.columns(4)
    filters = [
        (cols[0], "Tier", keys.F_TIER),
        (cols[1], "Result", keys.F_RESULT),
        (cols[2], "Platform", keys.F_PLATFORM),
        (cols[3], "Fact", keys.F_FACT),
    ]
    mask = pd.Series(True, index=table.index)
    for col, name, key in filters:
        options = sorted(x for x in table[name].unique() if x)
        chosen = col.multiselect(name, options, key=key, placeholder="All")
        if chosen:
            mask &= table[name].isin(chosen)
    shown = table[mask].reset_index(drop=True)
    st.caption(f"{len(shown)} of {len(table)} scenarios · click a row to drill into it")
    event = table_or_cards(
        f"scenarios-{keys.TABLE}",
        lambda: st.dataframe(
            shown,
            hide_index=True,
            placeholder="",
            key=keys.TABLE,
            on_select="rerun",
            selection_mode="single-row",
            column_config={
                "Latency (ms)": st.column_config.NumberColumn(format="%.0f"),
                "Latency warning": st.column_config.CheckboxColumn("Over budget"),
                "Behaviour": st.column_config.TextColumn(
                    help="Behaviour checks met of those asked (tools_called, "
                    "confirms_before_action, no_hallucination, response_accurate, custom)"
                ),
            },
        ),
        [
            scenario_card(r, failing or {}, run, page)
            for r in failing_first(shown).head(MAX_CARDS).to_dict("records")
        ],
        total=len(shown),
    )
    rows = event.selection.rows if event is not None else []
    records = shown.to_dict("records")
    clicked = row_key(records[rows[0]]) if rows and rows[0] < len(records) else None
    return [row_key(r) for r in records], clicked


def failing_first(table: pd.DataFrame) -> pd.DataFrame:
    """The rows that did not pass first (failures, then errors), each group in table order:
    the phone's cards lead with what needs a look.

    >>> t = pd.DataFrame({"Scenario": ["a", "b", "c"], "Result": ["pass", "error", "fail"]})
    >>> list(failing_first(t)["Scenario"])
    ['c', 'b', 'a']
    """
    rank = table["Result"].map({"fail": 0, "pass": 2}).fillna(1)
    return table.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")


def render_downloads(run_id: str, run_json: str, keys: Any = K) -> None:
    """Markdown report, JSON, CSV and JUnit XML, all through the core's report writers."""
    from pe_eval_core.scenarios import (
        ScenarioRun,
        render_markdown_report,
        run_to_csv,
        run_to_json,
        run_to_junit_xml,
    )

    def model() -> ScenarioRun:
        return ScenarioRun.model_validate_json(run_json)

    stem = f"scenario-run-{run_id}"
    st.markdown("##### Export")
    cols = st.columns(4)
    for col, (label, fn, ext, mime) in zip(
        cols,
        [
            ("Markdown report", render_markdown_report, "md", "text/markdown"),
            ("JSON", run_to_json, "json", "application/json"),
            ("CSV", run_to_csv, "csv", "text/csv"),
            ("JUnit XML", run_to_junit_xml, "xml", "application/xml"),
        ],
        strict=True,
    ):
        col.download_button(
            label,
            data=partial(_serialised, fn, model),
            file_name=f"{stem}.{ext}",
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
            key=f"{keys.DOWNLOADS}.{ext}",
        )


def _serialised(fn: Callable[[ScenarioRun], str], model: Callable[[], ScenarioRun]) -> str:
    """A download's bytes, made when the button is clicked (``on_click="ignore"``)."""
    return fn(model())
