"""History page: every recorded run, trends over time, and "what changed" between two runs.

Runs come from the run-history database (``pe_eval_core.history.store``: ``$PE_EVAL_HOME`` or
``./.pe_eval``). Lists, filter options and trends are SQL queries; this page only shapes them.
Names, order and number formats are ``pe_eval_core.wording``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from pe_eval_core.errors import PeEvalError
from pe_eval_core.history.compare import (
    MemoComparison,
    ScenarioChange,
    ScenarioComparison,
    compare_runs,
    memo_comparison_verdict,
    render_comparison_markdown,
    scenario_verdict,
    significance_sentence,
)
from pe_eval_core.history.store import RunFilters, RunStore, RunSummary, memo_series
from pe_eval_core.rates import tally_text
from pe_eval_core.redact import redact, redact_data
from pe_eval_core.tone import CATEGORY_COLOURS, Tone, comparison_tone, run_tone
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, count_of, fmt_pct, tier_order
from ui import access, glossary, links, tones
from ui.columns import as_points, score_column
from ui.errors import guarded, md_escape, show_error
from ui.responsive import MAX_CARDS, Card, table_or_cards, table_with_detail
from ui.state import History as Keys

ALL = "All"
RUN_SCORES = {"citation_accuracy": "citation", "hallucination_rate": "hallucination"}
"""Runs-table column names of the dimensions (short: the table is wide); others as they are."""
BASELINE_MARK = "baseline"
INFRA_MARK = "infrastructure error"
INFRA_HELP = "every scenario errored: nothing ran, so it is left out of trends and comparisons"


FILTERS = (
    # (key, store column, label)
    (Keys.KIND, "kind", "Kind"),
    (Keys.PORTCO, "portco_id", "Portco"),
    (Keys.AUDIENCE, "audience", "Audience"),
    (Keys.SCENARIOS, "scenarios_path", "Scenarios file"),
    (Keys.TARGET, "target", "Target"),
    (Keys.MODEL, "model", "Model"),
)


# --- pure helpers (tested without Streamlit) ----------------------------------------------


def run_mark(r: RunSummary, pinned: frozenset[int] = frozenset()) -> str:
    """What sets a run apart in the list: the pinned baseline, an infrastructure error."""
    marks = [BASELINE_MARK] * (r.id in pinned) + [INFRA_MARK] * r.infra_error
    return ", ".join(marks)


def runs_frame(runs: list[RunSummary], pinned: frozenset[int] = frozenset()) -> pd.DataFrame:
    """One row per run for the runs table (``pinned``: the ids pinned as baselines)."""
    return pd.DataFrame(
        [
            {
                "id": r.id,
                "mark": run_mark(r, pinned),
                "created (UTC)": r.created_at[:19].replace("T", " "),
                "kind": r.kind,
                "subject": r.subject,
                **{RUN_SCORES.get(d, d): getattr(r, d) for d in DIMENSIONS},
                "pass rate": r.pass_rate,
                "passed": None if r.n_total is None else f"{r.n_passed}/{r.ran}",
                "errors": "" if r.n_errors is None else str(r.n_errors),
                "model": r.model or "",
                "from": r.origin,
            }
            for r in runs
        ]
    ).fillna({"mark": "", "passed": ""})


TIME_AXIS = alt.Axis(format="%b %d %H:%M", labelAngle=0, labelOverlap=True, tickCount=5)
"""Run times as the runs table shows them (UTC, 24-hour), not the browser's 12-hour default."""


def memo_trend_chart(
    rows: list[dict[str, Any]], columns: int = 2, width: int = 210, legend_columns: int = 4
) -> alt.FacetChart:
    """The four memo dimensions over time, one panel per portco/audience (``columns`` panels
    a row: two at a desk, one on a phone, with the legend on two lines)."""
    long = [
        {
            "run": r["id"],
            "when": r["created_at"],
            # the file with its folder: a same-named memo in another folder is another line
            "memo": r.get("series")
            or memo_series(r.get("memo_path"), r["portco_id"], r["audience"]),
            "dimension": DIMENSION_LABELS[d],
            "score": r[d],
            "text": fmt_pct(r[d]),
        }
        for r in rows
        for d in DIMENSIONS
        if r[d] is not None
    ]
    frame = pd.DataFrame(long, columns=["run", "when", "memo", "dimension", "score", "text"])
    frame["when"] = pd.to_datetime(frame["when"], utc=True)
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("when:T", title=None, scale=alt.Scale(type="utc"), axis=TIME_AXIS),
            y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
            color=alt.Color(
                "dimension:N",
                sort=list(DIMENSION_LABELS.values()),
                # categories, not verdicts: no red, amber or green (``tone.CATEGORY_COLOURS``)
                scale=alt.Scale(range=list(CATEGORY_COLOURS)),
                legend=alt.Legend(orient="bottom", title=None, columns=legend_columns),
            ),
            tooltip=["run:Q", "memo:N", "dimension:N", alt.Tooltip("text:N", title="score")],
        )
        .properties(width=width, height=160)
        .facet(facet=alt.Facet("memo:N", title=None), columns=columns)
    )


def tier_trend_chart(rows: list[dict[str, Any]]) -> alt.Chart:
    """Pass rate by tier over time (one point per scenario run and tier)."""
    frame = pd.DataFrame(
        rows, columns=["id", "created_at", "tier", "passed", "total", "pass_rate", "target"]
    )
    frame["when"] = pd.to_datetime(frame["created_at"], utc=True)
    frame["label"] = [  # "total": the runs of the tier with a verdict (errors left out)
        tally_text(int(p), int(t)) for p, t in zip(frame["passed"], frame["total"], strict=True)
    ]
    tiers = tier_order(frame["tier"])
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("when:T", title=None, scale=alt.Scale(type="utc"), axis=TIME_AXIS),
            y=alt.Y(
                "pass_rate:Q",
                title="pass rate",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
            ),
            color=alt.Color("tier:N", sort=tiers, scale=alt.Scale(range=list(CATEGORY_COLOURS))),
            tooltip=[
                alt.Tooltip("id:Q", title="run"),
                "tier:N",
                alt.Tooltip("label:N", title="passed"),
                "target:N",
            ],
        )
        .properties(height=260)
    )


def run_label(r: RunSummary) -> str:
    return f"#{r.id} · {r.created_at[:16].replace('T', ' ')} · {r.kind} · {r.subject}"


def default_pair(
    runs: list[RunSummary], pinned: dict[str, int] | None = None
) -> tuple[int | None, int | None]:
    """(A, B): the newest run that has an earlier run of its kind, and as A the baseline pinned
    for that kind (``pinned``: kind -> run id) when it is another listed run, else that earlier
    run. Like for like first: the newest run with an earlier run of the same subject (the same
    memo, the same scenarios and target) wins over a newer one without. Infrastructure-error
    runs are never picked: nothing in them ran. (None, None) when no kind has two runs."""
    ran = [r for r in runs if not r.infra_error]
    listed = {r.id for r in ran}
    for i, b in enumerate(ran):
        base = (pinned or {}).get(b.kind)
        if base is not None and base != b.id and base in listed:
            return base, b.id
        same = [r for r in ran[i + 1 :] if r.kind == b.kind and r.subject == b.subject]
        if same:
            return same[0].id, b.id
    for i, b in enumerate(ran):
        base = (pinned or {}).get(b.kind)
        if base is not None and base != b.id and base in listed:
            return base, b.id
        same_kind = [r for r in ran[i + 1 :] if r.kind == b.kind]
        if same_kind:
            same_subject = [r for r in same_kind if r.subject == b.subject]
            return (same_subject or same_kind)[0].id, b.id
    return None, None


def change_rows(changes: Sequence[ScenarioChange]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "scenario": c.name,
                "tier": c.tier,
                "fact": c.source_fact,
                "before": c.before or "-",
                "after": c.after or "-",
                "what changed": "; ".join(c.reasons()) or "-",
            }
            for c in changes
        ],
        columns=["scenario", "tier", "fact", "before", "after", "what changed"],
    )


# --- rendering ----------------------------------------------------------------------------


def filters_label() -> str:
    """The filters in force in words, said under the closed panel."""
    on = [
        f"{label.lower()} {st.session_state[key]}"
        for key, _, label in FILTERS
        if st.session_state.get(key) not in (None, ALL)
    ]
    return "Filtered: " + ", ".join(on) if on else "All runs shown"


def render_filters(store: RunStore) -> RunFilters:
    """The run filters, in a panel closed by default (on a phone they would fill the first
    screen); its title names the filters in force."""
    options = store.filter_options()
    values: dict[str, str | None] = {}
    # closed by default (a phone's first screen), its title constant so it stays as the user
    # left it; the filters in force are said under it
    with st.expander("Filter the runs", icon=":material/filter_list:"):
        cols = st.columns(3)
        for i, (key, column, label) in enumerate(FILTERS):
            choices = [ALL, *options.get(column, [])]
            if st.session_state.get(key) not in choices:
                st.session_state[key] = ALL
            # shown redacted (a run recorded with credentials in its target URL); the raw
            # value stays the filter's key, so the query still matches it
            picked = cols[i % 3].selectbox(label, choices, key=key, format_func=redact)
            values[column] = None if picked == ALL else picked
    st.caption(filters_label())
    return RunFilters.model_validate(values)  # the kind column's values are RunKind names


def run_card(r: RunSummary, pinned: frozenset[int] = frozenset()) -> Card:
    """A run on a phone: what, when, the headline numbers; a link that reopens it."""
    if r.kind == "memo":
        lead = " · ".join(
            f"{DIMENSION_LABELS[d]} {fmt_pct(getattr(r, d))}"
            for d in DIMENSIONS
            if getattr(r, d) is not None
        )
    else:
        lead = (f"{r.tally_text} passed" if r.n_total else "no scenarios scored") + (
            f", {r.n_errors} errored (not in the rate)" if r.n_errors else ""
        )
    mark = run_mark(r, pinned)
    tone = ""
    if r.kind == "scenarios" and r.n_total is not None:  # a scenario run's verdict colour
        errors = r.n_errors or 0
        failed = r.n_total - (r.n_passed or 0) - errors
        tone = run_tone(total=r.n_total, failed=failed, errors=errors).value
    return Card(
        title=f"#{r.id} · {r.kind} · {r.subject}" + (f" · {mark}" if mark else ""),
        lead=lead,
        details=[
            ("created (UTC)", r.created_at[:16].replace("T", " ")),
            ("model", r.model or ""),
            ("from", r.origin),
        ],
        href=links.link(run=r.id),
        tone=tone,
    )


def render_runs(
    runs: list[RunSummary], total: int, pinned: frozenset[int] = frozenset()
) -> int | None:
    """The runs table; returns the id of the run whose row was clicked."""
    scores = [RUN_SCORES.get(d, d) for d in DIMENSIONS] + ["pass rate"]
    st.caption("Click a run to reopen it: a memo run's scorecard, a scenario run's results.")
    event = table_or_cards(
        "runs",
        lambda: st.dataframe(
            as_points(runs_frame(runs, pinned), scores),
            hide_index=True,
            placeholder="",
            width="stretch",
            key=Keys.RUNS,
            on_select="rerun",
            selection_mode="single-row",
            column_config={
                "id": st.column_config.NumberColumn("id", format="%d"),
                "mark": st.column_config.TextColumn(
                    "mark", help=f"{BASELINE_MARK}: the pinned baseline; {INFRA_MARK}: {INFRA_HELP}"
                ),
                **{column: score_column(column, bar=False) for column in scores},
            },
        ),
        [run_card(r, pinned) for r in runs[:MAX_CARDS]],
        total=len(runs),
    )
    if total > len(runs):
        st.caption(f"Showing the newest {len(runs)} of {total} matching runs.")
    rows = event.selection.rows if event is not None else []
    return runs[rows[0]].id if rows and rows[0] < len(runs) else None


def render_trends(store: RunStore, filters: RunFilters) -> None:
    memo_tab, scen_tab = st.tabs(["Memo dimensions", "Pass rate by tier"])
    with memo_tab:
        if filters.kind == "scenarios":
            st.caption("The kind filter is set to scenarios.")
        else:
            rows = store.memo_trend(filters.portco_id, filters.audience)
            if rows:
                with st.container(key="wide-memo-trend"):
                    st.altair_chart(memo_trend_chart(rows))
                with st.container(key="cards-memo-trend"):
                    st.altair_chart(memo_trend_chart(rows, columns=1, width=280, legend_columns=2))
            else:
                st.info("No memo evaluations recorded for these filters.")
    with scen_tab:
        if filters.kind == "memo":
            st.caption("The kind filter is set to memo.")
        else:
            rows = redact_data(store.tier_trend(filters))
            if rows:
                st.altair_chart(tier_trend_chart(rows), width="stretch")
            else:
                st.info("No scenario runs recorded for these filters.")


def pinned_runs(store: RunStore) -> dict[str, int]:
    """The pinned baseline of each kind (kind -> run id), as the CLI gate reads them."""
    pins = {kind: store.pinned_baseline(kind) for kind in ("memo", "scenarios")}
    return {kind: rid for kind, rid in pins.items() if rid is not None}


def render_compare(store: RunStore, runs: list[RunSummary], pinned: dict[str, int]) -> None:
    st.subheader("Compare two runs")
    a_default, b_default = default_pair(runs, pinned)
    if a_default is None or b_default is None:
        st.info(
            "Record at least two runs of the same kind (two memo evaluations, or two scenario "
            "runs) to compare them."
        )
        return
    # Options are label strings (session state must stay picklable: no format_func lambdas).
    labels = {run_label(r): r.id for r in runs}
    label_of = {v: k for k, v in labels.items()}
    kind_of = {r.id: r.kind for r in runs}
    if st.session_state.get(Keys.RUN_B) not in labels:
        st.session_state[Keys.RUN_B] = label_of[b_default]
    if st.session_state.get(Keys.RUN_A) not in labels:
        st.session_state[Keys.RUN_A] = label_of[a_default]
    left, right = st.columns(2)
    a = labels[left.selectbox("Run A (before)", list(labels), key=Keys.RUN_A)]
    b = labels[right.selectbox("Run B (after)", list(labels), key=Keys.RUN_B)]
    if kind_of[a] != kind_of[b]:
        st.info(
            f"Run A is a {kind_of[a]} run and run B a {kind_of[b]} run: only runs of the same "
            "kind can be compared. Pick two memo runs or two scenario runs."
        )
        return
    if a == b:
        st.info("Pick two different runs.")
        return
    with guarded(stop=False):
        # both runs picked by hand: compared even when made with different setups, and
        # the verdict says so first
        cmp = compare_runs(store, a, b, allow_unlike=True)
        render_comparison_verdict(cmp)
        with st.expander(changes_label(cmp), icon=":material/difference:"):
            if isinstance(cmp, ScenarioComparison):
                render_scenario_comparison(cmp)
            else:
                render_memo_comparison(cmp)
        st.download_button(
            "Download comparison (markdown)",
            data=render_comparison_markdown(cmp),
            file_name=f"compare_{a}_{b}.md",
            mime="text/markdown",
            on_click="ignore",
            key="history.download_compare",
        )


def comparison_lead(cmp: ScenarioComparison | MemoComparison) -> tuple[Tone, list[str]]:
    """The comparison's colour and its lines as ``history compare`` prints them: the notes on
    infrastructure errors, the verdict sentence (not like for like first), the significance."""
    if isinstance(cmp, MemoComparison):
        unlike = not cmp.same_pair
        return (
            comparison_tone(regressions=int(cmp.has_regressions), unlike=unlike),
            [memo_comparison_verdict(cmp)],
        )
    infra = [
        f"Run #{r.id} is an infrastructure error (every scenario errored): its failures are "
        "not regressions, and its passes say nothing."
        for r in (cmp.a, cmp.b)
        if r.infra_error
    ]
    lines = [*infra, scenario_verdict(cmp)]
    if cmp.paired is not None:
        lines.append(significance_sentence(cmp.paired))
    tone = comparison_tone(
        regressions=len(cmp.regressions),
        infra_error=bool(infra),
        unlike=bool(cmp.unlike or cmp.differences),
    )
    return tone, lines


def render_comparison_verdict(cmp: ScenarioComparison | MemoComparison) -> None:
    """The CLI's verdict on the two runs, first and in its tone's colour."""
    tone, lines = comparison_lead(cmp)
    head, *rest = lines
    body = f"**{md_escape(head)}**" + "".join(f"  \n{md_escape(x)}" for x in rest)
    icon = ":material/trending_down:" if tone is Tone.BAD else ":material/compare_arrows:"
    tones.banner(tone, body, key="history-compare-verdict", icon=icon)


def changes_label(cmp: ScenarioComparison | MemoComparison) -> str:
    """The details panel's title: what changed, counted."""
    if isinstance(cmp, MemoComparison):
        return (
            f"What changed: {count_of(len(cmp.new_findings), 'new finding')}, "
            f"{len(cmp.resolved_findings)} resolved, the four scores"
        )
    return (
        f"What changed: {count_of(len(cmp.regressions), 'regression')}, "
        f"{count_of(len(cmp.fixes), 'fix', 'fixes')}, {len(cmp.still_failing)} still failing, "
        "pass rate by tier"
    )


def render_scenario_comparison(cmp: ScenarioComparison) -> None:
    cols = st.columns(5)
    for col, (label, n) in zip(
        cols,
        [
            ("Regressions", len(cmp.regressions)),
            ("Fixes", len(cmp.fixes)),
            ("Still failing", len(cmp.still_failing)),
            ("New", len(cmp.new)),
            ("Removed", len(cmp.removed)),
        ],
        strict=True,
    ):
        col.metric(label, n)
    for title, group in (
        ("Regressions (pass → not pass)", cmp.regressions),
        ("Fixes (not pass → pass)", cmp.fixes),
        ("Still failing", cmp.still_failing),
        ("New in B", cmp.new),
        ("Removed since A", cmp.removed),
    ):
        if group:
            st.markdown(f"**{title}**")
            table_with_detail(change_rows(group), f"history.changes.{title.split()[0].lower()}")
    st.markdown("**Pass rate by tier**")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "tier": t.tier,
                    "A": t.a_tally,
                    "B": t.b_tally,
                    "A rate": t.a_rate,
                    "B rate": t.b_rate,
                    "delta (pts)": None if t.delta is None else round(t.delta * 100, 1),
                }
                for t in cmp.tiers
            ],
            columns=["tier", "A", "B", "A rate", "B rate", "delta (pts)"],
        ).pipe(as_points, ("A rate", "B rate")),
        hide_index=True,
        placeholder="",
        column_config={
            "A rate": score_column("A rate", bar=False),
            "B rate": score_column("B rate", bar=False),
        },
    )


def render_memo_comparison(cmp: MemoComparison) -> None:
    st.caption(
        f"Memo {'changed' if cmp.memo_changed else 'unchanged'} · "
        f"source {'changed' if cmp.source_changed else 'unchanged'} between the runs."
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "dimension": DIMENSION_LABELS[s.dimension],
                    "A": s.a,
                    "B": s.b,
                    "delta (pts)": None if s.delta is None else round(s.delta * 100, 1),
                    "": s.direction,
                }
                for s in cmp.scores
            ],
            columns=["dimension", "A", "B", "delta (pts)", ""],
        ).pipe(as_points, ("A", "B")),
        hide_index=True,
        placeholder="",
        column_config={
            "A": score_column("A", bar=False),
            "B": score_column("B", bar=False),
        },
    )
    cols = ["kind", "opportunity_id", "field", "raw", "message"]
    for title, group in (
        (f"New findings ({len(cmp.new_findings)})", cmp.new_findings),
        (f"Resolved findings ({len(cmp.resolved_findings)})", cmp.resolved_findings),
    ):
        st.markdown(f"**{title}**")
        if group:
            frame = pd.DataFrame([f.model_dump() for f in group], columns=cols)
            frame = frame.astype(object).where(frame.notna(), "")  # blanks, not None
            table_with_detail(frame, f"history.findings.{title.split()[0].lower()}")
        else:
            st.caption("None.")


# --- deleting and pinning ---------------------------------------------------------------


def render_flash() -> None:
    """What the last delete / pin / unpin did (it reran the page, so it is said here)."""
    flash = st.session_state.pop(Keys.FLASH, None)
    if flash:
        st.success(flash, icon=":material/check:")


def render_store_warnings(store: RunStore) -> None:
    """Rows the store skipped as corrupt (the page shows the rest)."""
    for message in dict.fromkeys(store.warnings):
        st.warning(
            f"Skipped a corrupt history row: {md_escape(message)}", icon=":material/warning:"
        )


def render_run_actions(store: RunStore, r: RunSummary, pinned: dict[str, int]) -> None:
    """Pin as baseline / Unpin, and Delete behind a confirm step, for one run. The pin is the
    store's (``RunStore.pin_baseline``): the CI gate and the comparison default to it. Both
    are the operator's (a member of a shared dashboard sees the pin, not the buttons)."""
    is_pinned = pinned.get(r.kind) == r.id
    if not access.is_operator():
        st.caption(
            (f"Run #{r.id} is the pinned {r.kind} baseline. " if is_pinned else "")
            + "Only the operator can pin or delete runs."
        )
        return
    row = st.container(horizontal=True, key=f"history-actions-{r.id}")
    if is_pinned:
        st.caption(f"Run #{r.id} is the pinned {r.kind} baseline: the gate compares against it.")
        if row.button("Unpin baseline", key=f"history.unpin.{r.id}", icon=":material/keep_off:"):
            with guarded(stop=False):
                store.unpin_baseline(r.kind)
                st.session_state[Keys.FLASH] = f"Run #{r.id} is no longer the {r.kind} baseline."
                st.rerun()
    elif r.infra_error:
        st.caption(f"Run #{r.id} is an {INFRA_MARK} ({INFRA_HELP}): it cannot be a baseline.")
    elif row.button("Pin as baseline", key=f"history.pin.{r.id}", icon=":material/keep:"):
        with guarded(stop=False):
            access.require_operator("pin a baseline")
            store.pin_baseline(r.id)
            for key in (Keys.RUN_A, Keys.RUN_B):  # the comparison starts again from the pin
                st.session_state.pop(key, None)
            st.session_state[Keys.FLASH] = (
                f"Run #{r.id} is now the {r.kind} baseline: the gate and the comparison use it."
            )
            st.rerun()
    if st.session_state.get(Keys.CONFIRM_DELETE) != r.id:
        if row.button("Delete run", key=f"history.delete.{r.id}", icon=":material/delete:"):
            st.session_state[Keys.CONFIRM_DELETE] = r.id
            st.rerun()
        return
    st.warning(
        f"Delete run #{r.id} ({md_escape(r.kind)} · {md_escape(r.subject)}) from the history? "
        "This cannot be undone." + (" It is the pinned baseline." if is_pinned else ""),
        icon=":material/delete:",
    )
    yes, no = st.columns(2)
    if yes.button(f"Yes, delete run #{r.id}", key=f"history.delete_yes.{r.id}", type="primary"):
        st.session_state[Keys.CONFIRM_DELETE] = None
        with guarded(stop=False):
            access.require_operator("delete a run")
            store.delete_run(r.id)
            if st.session_state.get(Keys.OPEN) is not None:
                st.session_state[Keys.OPEN] = None
                links.sync("history")
            st.session_state[Keys.FLASH] = f"Run #{r.id} deleted."
            st.rerun()
    if no.button("Cancel", key=f"history.delete_no.{r.id}"):
        st.session_state[Keys.CONFIRM_DELETE] = None
        st.rerun()


def render_manage(store: RunStore, runs: list[RunSummary], pinned: dict[str, int]) -> None:
    """Pick a listed run to pin as baseline, unpin or delete."""
    with st.expander("Delete or pin a run", icon=":material/keep:"):
        ids = frozenset(pinned.values())
        labels = {" · ".join(filter(None, (run_label(r), run_mark(r, ids)))): r for r in runs}
        if st.session_state.get(Keys.MANAGE) not in labels:
            st.session_state[Keys.MANAGE] = next(iter(labels))
        picked = labels[st.selectbox("Run", list(labels), key=Keys.MANAGE)]
        render_run_actions(store, picked, pinned)


def opened_run() -> tuple[str | None, str | None]:
    """(run reference, scenario) to open: a new link's (``?run=..&scenario=..``), else the run
    opened earlier in this session (None: the list)."""
    if links.is_new("history"):
        params = links.current()
        st.session_state[Keys.OPEN] = links.run_ref(params)
        return st.session_state[Keys.OPEN], params.get("scenario")
    return st.session_state.get(Keys.OPEN), None


def render_open_run(store: RunStore, ref: str, scenario: str | None) -> None:
    """One recorded run's full view, with the way back to the list."""
    from ui.views import run_view

    if st.button("All runs", key=Keys.BACK, icon=":material/arrow_back:"):
        st.session_state[Keys.OPEN] = None
        links.sync("history")
        st.rerun()
    try:
        record = store.get_run(ref)
    except PeEvalError as err:
        show_error(
            err,
            fix="Open a run from the list (All runs above); the link may name a "
            "run recorded in another history database.",
        )
        links.sync("history", run=ref)
        return
    s = record.summary
    pinned = pinned_runs(store)
    mark = run_mark(s, frozenset(pinned.values()))
    st.markdown(
        f"### Run #{s.id} · {md_escape(s.kind)} · {md_escape(s.subject)}"
        + (f" · {mark}" if mark else "")
    )
    render_store_warnings(store)
    render_run_actions(store, s, pinned)
    if s.kind == "memo":
        run_view.render_memo_run(record)
        links.sync("history", run=s.id)
    else:
        picked = run_view.render_scenario_run(record, scenario)
        links.sync("history", run=s.id, scenario=picked)


def render() -> None:
    """The comparison's verdict first ("real or noise?"), then every run, then the trends."""
    st.title("History")
    store = RunStore()
    render_flash()
    ref, scenario = opened_run()
    if ref is not None and store.exists():
        render_open_run(store, ref, scenario)
        return
    links.sync("history")
    with guarded():
        if not store.exists() or store.count_runs() == 0:  # reading never creates it
            st.info(
                "No runs recorded yet. Every memo evaluation and scenario run from the other "
                "pages, the CLI (`python -m pe_eval_core ...`) or the MCP server is recorded "
                "here.",
                icon=":material/history:",
            )
            st.caption(f"Run history: {md_escape(store.location)}")
            return
        filters = render_filters(store)
        runs = store.list_runs(filters, limit=500)
        render_store_warnings(store)
        pinned = pinned_runs(store)
        if runs:
            render_compare(store, runs, pinned)
        st.subheader("Every run")
        clicked = render_runs(runs, store.count_runs(filters), frozenset(pinned.values()))
        if clicked is not None:
            st.session_state[Keys.OPEN] = str(clicked)
            links.sync("history", run=clicked)
            st.rerun()
        if not runs:
            st.info("No runs match these filters.")
            return
        render_manage(store, runs, pinned)
        render_trends(store, filters)
    glossary.render("history")
    st.caption(f"Run history: {md_escape(store.location)}")
