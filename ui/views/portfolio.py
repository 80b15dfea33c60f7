"""Portfolio page (IC demos): every memo pair in the data folder scored, at a glance.

Find the weakest memo in the heatmap or the sortable table, then open its scorecard.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from pe_eval_core.memo.verdict import VerdictThresholds
from pe_eval_core.tone import dimension_tone, memo_tone
from pe_eval_core.wording import (
    DIMENSION_LABELS,
    DIMENSIONS,
    fmt_pct,
    quality,
)
from ui import charts, data, glossary, links, state, tones
from ui.columns import as_points, dimension_columns
from ui.errors import guarded, md_code, md_escape
from ui.responsive import Card, table_or_cards

K = state.Portfolio


def heatmap_rows(
    rows: list[dict[str, Any]], thresholds: VerdictThresholds | None = None
) -> list[dict[str, Any]]:
    """Long-form cells for the heatmap: one per (portco, audience, dimension), coloured by
    the verdict's tone under ``thresholds`` (a dimension that misses its bound is red)."""
    bounds = thresholds or VerdictThresholds()
    cells = []
    for row in rows:
        if row.get("error"):
            continue
        for field, label in DIMENSION_LABELS.items():
            score = row[field]
            tone = dimension_tone(field, score, bounds)
            cells.append(
                {
                    "portco": row["portco"],
                    "audience": row["audience"],
                    "dimension": label,
                    "score": score,
                    "quality": quality(field, score),
                    "tone_label": f"{tone.value}: {charts.TONE_LABELS[tone]}",
                    "text": fmt_pct(score),
                    "context": row[f"{field}_context"],
                }
            )
    return cells


def weakest(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The memo with the lowest worst-dimension quality (ties: more findings first)."""
    scored = [r for r in rows if not r.get("error")]
    if not scored:
        return None

    def worst(r: dict[str, Any]) -> float:
        return min(quality(f, r[f]) for f in DIMENSIONS)

    return min(scored, key=lambda r: (worst(r), -r["findings"]))


def open_scorecard(portco: str, audience: str) -> None:
    """Go to the pair's scorecard by its link (``?page=scorecard&portco=..&audience=..``)."""
    links.go("scorecard", portco=portco, audience=audience)


def render() -> None:
    """The whole page."""
    st.title("Portfolio")
    links.sync("portfolio")
    folder = state.data_dir()
    st.caption(f"Every memo pair in {md_code(folder)}, graded against its source.")
    glossary.render("portfolio")
    from ui.views.scorecard import verdict_thresholds

    thresholds = verdict_thresholds()
    with guarded():
        rows, skipped = data.portfolio_and_skipped(folder, thresholds)
    render_skipped(skipped)
    from ui.views.documents import render_portfolio_documents

    if not rows:
        st.warning("No memo pairs in this folder. Change the data folder in the sidebar.")
        render_portfolio_documents(folder, thresholds)
        return
    failed = [r for r in rows if r.get("error")]
    scored = [r for r in rows if not r.get("error")]
    worst = weakest(rows)
    cols = st.container(key="tiles-portfolio").columns(3)
    cols[0].metric("Memos scored", f"{len(scored)}/{len(rows)}", border=True)
    cols[1].metric(
        "Ready to circulate",
        sum(1 for r in scored if r["ready"]),
        border=True,
        help="Memos whose verdict is ready under: " + "; ".join(thresholds.describe()) + ". "
        "Change the thresholds on the scorecard page.",
    )
    cols[2].metric("Findings", sum(r["findings"] for r in scored), border=True)
    if worst is not None:
        tones.banner(
            memo_tone(bool(worst["ready"])),
            f"**Weakest memo: {md_escape(worst['portco'])} · {md_escape(worst['audience'])}"
            f" ({md_escape(worst['verdict'])}).** {md_escape(worst['biggest_finding'])}",
            key="portfolio-weakest",
            icon=":material/trending_down:",
        )
        if st.button(
            f"Open {worst['portco']} · {worst['audience']} scorecard",
            key=f"{K.OPEN}.weakest",
            icon=":material/open_in_new:",
        ):
            open_scorecard(worst["portco"], worst["audience"])
    for r in failed:
        st.error(
            f"**{md_escape(r['portco'])} · {md_escape(r['audience'])}:** {md_escape(r['error'])}"
        )
    if scored:
        st.markdown("##### Portco × audience × dimension")
        st.caption("Click a cell to open that memo's scorecard.")
        cells = heatmap_rows(scored, thresholds)
        with st.container(key="wide-heatmap"):
            event = charts.show(charts.portfolio_heatmap, cells, key=K.HEATMAP)
        with st.container(key="cards-heatmap"):
            phone = charts.show(charts.portfolio_heatmap_phone, cells, key=K.HEATMAP_PHONE)
        cell = charts.selected_point(event, charts.HEATMAP_SELECTION) or charts.selected_point(
            phone, charts.HEATMAP_SELECTION
        )
        if cell and cell.get("portco") and cell.get("audience"):
            open_scorecard(str(cell["portco"]), str(cell["audience"]))
    render_table(rows)
    render_portfolio_documents(folder, thresholds)


def skipped_text(skipped: list[dict[str, str]]) -> str:
    """The files that look like memos but were not graded, each with its reason (markdown).

    >>> skipped_text([{"file": "explain_My Co_board.json", "reason": "invalid portco"}])
    '1 file skipped (not graded):\\n- `explain_My Co_board.json`: invalid portco'
    """
    n = len(skipped)
    head = f"{n} file{'s' if n != 1 else ''} skipped (not graded):"
    return "\n".join(
        [head, *(f"- {md_code(s['file'])}: {md_escape(s['reason'])}" for s in skipped)]
    )


def render_skipped(skipped: list[dict[str, str]]) -> None:
    if skipped:
        st.warning(skipped_text(skipped), icon=":material/block:")


def memo_card(row: dict[str, Any]) -> Card:
    """A portfolio row on a phone: the memo, its biggest finding, its scores; a link to it;
    its edge in the verdict's colour."""
    scored = not row.get("error")
    return Card(
        title=f"{row['portco']} · {row['audience']}",
        lead=str(row.get("error") or row.get("biggest_finding") or ""),
        details=([("verdict", str(row["verdict"]))] if scored else [])
        + [
            (DIMENSION_LABELS[f], fmt_pct(row[f]))
            for f in DIMENSIONS
            if scored and row.get(f) is not None
        ]
        + ([("findings", str(row["findings"]))] if scored else []),
        href=links.link(page="scorecard", portco=row["portco"], audience=row["audience"]),
        tone=memo_tone(bool(row.get("ready"))).value,
    )


def render_table(rows: list[dict[str, Any]]) -> None:
    """The sortable table; clicking a row opens its scorecard (a card's link on a phone)."""
    st.markdown("##### All memos")
    st.caption("Click a column header to sort; click a row to open its scorecard.")
    frame = pd.DataFrame(rows)
    columns = [
        "portco",
        "audience",
        "verdict",
        "biggest_finding",
        *DIMENSIONS,
        "findings",
        "figures",
        "entities",
        "opportunities",
        "error",
    ]
    frame = as_points(frame.reindex(columns=columns), DIMENSIONS)
    scores = dimension_columns()
    event = table_or_cards(
        "portfolio",
        lambda: st.dataframe(
            frame,
            hide_index=True,
            placeholder="",
            width="stretch",
            key=K.TABLE,
            on_select="rerun",
            selection_mode="single-row",
            column_config={
                **scores,
                "verdict": st.column_config.TextColumn(
                    "verdict", help="Ready to circulate, or not ready and how many issues"
                ),
                "biggest_finding": st.column_config.TextColumn("biggest finding", width="large"),
            },
        ),
        [memo_card(r) for r in rows],
    )
    selected = event.selection.rows if event is not None else []
    if selected:
        row = frame.iloc[selected[0]]
        open_scorecard(str(row["portco"]), str(row["audience"]))
