"""The memo scorecard (the deal team's landing page): one memo graded against its source.

Thin by design: pick the inputs, call ui.data (cached core calls), render. No grading here,
and no format or rule of its own: scores, money and bands are ``pe_eval_core.wording``'s, the
marked prose is the HTML scorecard's own renderer (``pe_eval_core.memo.scorecard``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from pe_eval_core.errors import PeEvalError
from pe_eval_core.memo.explain import lowest_dimension
from pe_eval_core.memo.plain import cohort_names, nearest_text
from pe_eval_core.memo.scorecard import mark_css, mark_legend_html, marked_prose_html
from pe_eval_core.memo.verdict import (
    KIND_LABELS,
    NOT_COUNTED,
    Verdict,
    VerdictThresholds,
    field_label,
    issue_sentence,
    memo_verdict,
)
from pe_eval_core.tone import INK, Tone, dimension_tone, memo_tone
from pe_eval_core.wording import (
    DIMENSION_LABELS,
    LOWER_IS_BETTER,
    count_of,
    fmt_number,
    fmt_pct,
    fmt_usd,
)
from ui import charts, data, glossary, links, state, tones
from ui.columns import as_points, score_column
from ui.errors import guarded, md_code, md_escape, show_error
from ui.responsive import PHONE_PX, Card, table_or_cards, table_with_detail

if TYPE_CHECKING:
    from pe_eval_core.memo import Mark, MemoEvaluation, ProseBlock

K = state.Scorecard
FOLDER, UPLOAD = "Data folder", "Upload"
PROBLEM_STATUSES = ("ungrounded", "misattributed")
TILE_KEY = "scorecard-tile-{field}-{band}"
"""Each tile's container key: Streamlit turns it into the class ``st-key-...`` the tone CSS
(:func:`tile_style`) targets, so a tile's border and value take its verdict's colour (the
core's :func:`pe_eval_core.tone.dimension_tone`: a dimension that misses its threshold is red,
never amber)."""


def tile_style() -> str:
    """Tone colours for the score tiles (``pe_eval_core.tone.INK``, as everywhere), and the
    row: four across at a desk (1440px), two by two on a laptop and a phone."""
    rules = [
        f'[class*="st-key-scorecard-tile-"][class*="-{t.value}"] [data-testid="stMetric"]'
        f" {{ border-color: {INK[t]} !important; border-width: 2px !important; }}\n"
        f'[class*="st-key-scorecard-tile-"][class*="-{t.value}"] [data-testid="stMetricValue"]'
        f" {{ color: {INK[t]}; }}"
        for t in Tone
    ]
    # Each tile a quarter of the row with a floor: four fit a desk's main column, two a
    # laptop's; on a phone two by two, the captions free to wrap.
    rules.append(
        '[class*="st-key-scorecard-tile-"] { flex: 1 1 calc(25% - 1rem) !important; '
        "min-width: 215px; }\n"
        # a caption too long for its tile wraps, never cut
        '[class*="st-key-scorecard-tile-"] [data-testid="stMetricDelta"] * '
        "{ white-space: normal !important; overflow: visible !important; }\n"
        f"@media (max-width: {PHONE_PX}px) {{ "
        '[class*="st-key-scorecard-tile-"] { flex: 1 1 calc(50% - 0.5rem) !important; '
        "min-width: 0 !important; } "
        '[class*="st-key-scorecard-tile-"] [data-testid="stMetricDelta"] * '
        "{ white-space: normal !important; overflow: visible !important; } }"
    )
    return "<style>\n" + "\n".join(rules) + "\n</style>"


def kind_label(kind: str) -> str:
    """A finding kind in words (``Figure not in the source``), the raw name if unknown."""
    return KIND_LABELS.get(kind, kind)


def verdict_spec(spec_key: str = K.VERDICT_SPEC) -> str:
    """The thresholds spec typed on this page (its input's ``spec_key``: each scorecard page
    has its own, a widget key shared by two pages loses its value on the switch); kept under a
    plain key too, so Portfolio, the other scorecard page and a later visit use it after
    Streamlit drops the input's own state."""
    ss = st.session_state
    return str(ss.get(spec_key, ss.get(K.VERDICT_SPEC_KEPT, "")) or "")


def verdict_thresholds(spec_key: str = K.VERDICT_SPEC) -> VerdictThresholds:
    """The thresholds the user set (the gate's spec), else the pass band: the verdict on the
    page, in its downloads, in the files it writes and on Portfolio."""
    try:
        return VerdictThresholds.from_spec(verdict_spec(spec_key))
    except PeEvalError as err:
        show_error(err)
        return VerdictThresholds()


def render_verdict(ev: MemoEvaluation, *, with_thresholds: bool = True) -> Verdict:
    """Can this memo be circulated? The verdict, its issues in plain sentences, the thresholds
    (``with_thresholds`` False: the page draws them later, under the tiles)."""
    return show_verdict(memo_verdict(ev, verdict_thresholds()), with_thresholds=with_thresholds)


def show_verdict(
    verdict: Verdict, spec_key: str = K.VERDICT_SPEC, *, with_thresholds: bool = True
) -> Verdict:
    """A verdict (a memo's or another document's) as the scorecard pages show it, in the
    core's colour (``tone.memo_tone``): headline, issues, then the thresholds and the box to
    change them (the input ``spec_key``, its value kept across pages)."""
    box = st.container(key="scorecard-verdict-" + ("ready" if verdict.ready else "notready"))
    issues = "\n".join(f"- {md_escape(i)}" for i in verdict.issues)
    draw = getattr(box, tones.BOX[memo_tone(verdict.ready)])  # the core's colour rule
    if verdict.ready:
        draw(f"**{verdict.headline}.**", icon=":material/check_circle:")
    else:
        draw(f"**{verdict.headline}**\n\n{issues}", icon=":material/block:")
    if with_thresholds:
        render_thresholds(verdict, box, spec_key)
    return verdict


def render_thresholds(verdict: Verdict, box: Any = None, spec_key: str = K.VERDICT_SPEC) -> None:
    """The thresholds in force, and the box to change them (the gate's spec)."""
    box = box or st.container()
    box.caption("Thresholds: " + "; ".join(verdict.thresholds.describe()) + ".")
    with box.expander("Change the thresholds"):
        kept = st.session_state.get(K.VERDICT_SPEC_KEPT, "")
        if spec_key not in st.session_state:  # seed a dropped input from the kept spec
            st.session_state[spec_key] = kept
        st.session_state[K.VERDICT_SPEC_KEPT] = st.text_input(
            "Thresholds (the gate's spec)",
            key=spec_key,
            placeholder="citation=1.0,coverage=90%,hallucination=0.05",
            help="Same syntax as `pe-eval gate --memo-thresholds`. Blank: every dimension "
            "must be perfect (the green band). Also used by the downloads, the written files "
            "and the Portfolio page.",
        )


def prose_style() -> str:
    """The scorecard's own mark colours (scoped to the page's prose) and the prose layout."""
    return (
        "<style>\n"
        + mark_css(".pe-prose ")
        + "\n.pe-prose { line-height: 1.65; font-size: 0.95rem; }"
        "\n.pe-prose .field { font-size: 0.75rem; text-transform: uppercase;"
        " letter-spacing: 0.04em; color: #5a6472; }"
        "\n.pe-prose .text { white-space: pre-wrap; margin: 0 0 0.8rem 0; }"
        "\n.pe-prose .legend { margin-bottom: 0.5rem; font-size: 0.85rem; }"
        "\n.pe-prose .legend span { margin-right: 10px; }\n</style>"
    )


def apply_link() -> None:
    """Honour a link (``?page=scorecard&portco=X&audience=Y``: pasted, or a click-through from
    another page) before the widgets exist; a link already applied is left alone."""
    if not links.is_new("scorecard"):
        return
    params = links.current()
    if params.get("portco"):
        st.session_state[K.MODE] = FOLDER
        st.session_state[K.PORTCO] = params["portco"]
        if params.get("audience"):
            st.session_state[K.AUDIENCE] = params["audience"]
        else:
            st.session_state.pop(K.AUDIENCE, None)


def pick_from_folder() -> data.Graded | None:
    """Portco and audience pickers over the pairs found in the data folder."""
    folder = state.data_dir()
    with guarded():
        pairs = data.memo_pairs(folder)
        skipped = data.skipped_memos(folder)
    if skipped:  # named, never fatal: the rest of the folder is listed
        from ui.views.portfolio import skipped_text

        st.warning(skipped_text(skipped), icon=":material/block:")
    if not pairs:
        st.warning(
            f"No memo pairs ({md_code('explain_<portco>_<audience>.json')} with "
            f"{md_code('dx_report_<portco>.json')}) in {md_code(folder)}. "
            "Change the data folder in the sidebar or upload a memo."
        )
        return None
    portcos = sorted({p["portco_id"] for p in pairs})
    asked = st.session_state.get(K.PORTCO)
    if asked not in portcos:
        if asked is not None:
            st.warning(
                f"No memo for {md_code(asked)} in {md_code(folder)}: showing "
                f"{md_code(portcos[0])} instead. Pick another portfolio company below.",
                icon=":material/link_off:",
            )
        st.session_state[K.PORTCO] = portcos[0]
    left, right = st.columns([2, 3])
    portco = left.selectbox("Portfolio company", portcos, key=K.PORTCO)
    audiences = sorted({p["audience"] for p in pairs if p["portco_id"] == portco})
    if st.session_state.get(K.AUDIENCE) not in audiences:
        st.session_state[K.AUDIENCE] = "board" if "board" in audiences else audiences[0]
    audience = right.radio("Audience", audiences, key=K.AUDIENCE, horizontal=True)
    st.caption(
        f"Reading the data folder {md_code(folder)} ({count_of(len(pairs), 'memo pair')}); "
        "change it in the sidebar."
    )
    links.sync("scorecard", portco=portco, audience=audience)
    pair = next(p for p in pairs if p["portco_id"] == portco and p["audience"] == audience)
    with guarded():
        return data.grade_pair(pair)


def pick_from_zip(upload: Any) -> data.Graded | None:
    """A zip of a folder: every pair graded with its siblings; pick the memo to show."""
    try:
        result = data.grade_zip_upload(upload.getvalue(), upload.name)
    except PeEvalError as err:
        show_error(err)
        st.stop()
    if result["skipped"]:
        st.warning(
            f"{len(result['skipped'])} file(s) in {md_code(upload.name)} not graded:\n"
            + "\n".join(
                f"- {md_code(s['file'])}: {md_escape(s['reason'])}" for s in result["skipped"]
            ),
            icon=":material/block:",
        )
    for e in result["errors"]:
        st.error(
            f"**{md_escape(e['portco'])} · {md_escape(e['audience'])}:** {md_escape(e['error'])}"
        )
    graded = result["graded"]
    if not graded:
        st.warning(
            f"No memo pairs ({md_code('explain_<portco>_<audience>.json')} with "
            f"{md_code('dx_report_<portco>.json')}) could be graded in {md_code(upload.name)}."
        )
        return None
    labels = [f"{ev.portco_id} · {ev.audience}" for ev, _ in graded]
    if st.session_state.get(K.ZIP_PICK) not in labels:
        st.session_state[K.ZIP_PICK] = labels[0]
    picked = st.selectbox(f"Memo ({len(graded)} graded from {upload.name})", labels, key=K.ZIP_PICK)
    return graded[labels.index(picked)]


def pick_from_upload() -> data.Graded | None:
    """Two uploads, the memo sidecar and its OpportunityMap (and optional sibling memos); or a
    zip of a whole folder."""
    limit = data.upload_limit_mb()
    bundle = st.file_uploader(
        "A zip of a folder (memos and their sources: every memo graded, siblings compared)",
        type=["zip"],
        key=K.ZIP_UPLOAD,
        max_upload_size=limit,
        help=data.upload_help(),
    )
    if bundle is not None:
        return pick_from_zip(bundle)
    # one per row: a chip names its whole file
    memo = st.file_uploader(
        "Memo file (explain_*.json)",
        type=["json"],
        key=K.MEMO_UPLOAD,
        max_upload_size=limit,
        help=data.upload_help(),
    )
    source = st.file_uploader(
        "Source (dx_report_*.json)",
        type=["json"],
        key=K.SOURCE_UPLOAD,
        max_upload_size=limit,
        help=data.upload_help(),
    )
    others = st.file_uploader(
        "Other memos on the same company (optional: their headlines are checked for "
        "consistency, as in a data folder)",
        type=["json"],
        accept_multiple_files=True,
        key=K.SIBLING_UPLOADS,
        max_upload_size=limit,
        help=data.upload_help(),
    )
    if memo is None or source is None:
        st.info(
            "Upload a zip of a folder, or both the memo file and the source file (the "
            "opportunity map) it was written from."
        )
        return None
    siblings = tuple((f.name, f.getvalue()) for f in others or [] if f.name != memo.name)
    try:
        return data.grade_upload(
            memo.getvalue(), memo.name, source.getvalue(), source.name, siblings
        )
    except PeEvalError as err:
        show_error(err)
        if looks_swapped(memo.getvalue(), source.getvalue()):
            st.info(
                f"{md_code(memo.name)} looks like an OpportunityMap and {md_code(source.name)} "
                "like a memo file: did you swap the two uploads?",
                icon=":material/swap_horiz:",
            )
        st.stop()


def looks_swapped(memo: bytes, source: bytes) -> bool:
    """True when the 'memo' upload is shaped like a source and the 'source' like a memo.

    >>> looks_swapped(b'{"opportunities": []}', b'{"opportunities_explained": []}')
    True
    >>> looks_swapped(b'{"opportunities_explained": []}', b'{"opportunities": []}')
    False
    >>> looks_swapped(b'not json', b'{}')
    False
    >>> looks_swapped(b'[' * 100_000, b'{}')
    False
    """

    def keys(raw: bytes) -> set[str]:
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python parses
            return set()
        return set(doc) if isinstance(doc, dict) else set()

    m, src = keys(memo), keys(source)
    return (
        "opportunities_explained" in src
        and "opportunities" in m
        and ("opportunities_explained" not in m)
    )


def render_tiles(ev: MemoEvaluation, thresholds: VerdictThresholds | None = None) -> None:
    """The four scores with n/total, coloured by the verdict (``tone.dimension_tone`` under
    the page's thresholds), then the biggest finding in one sentence."""
    bounds = thresholds or verdict_thresholds()
    score_tiles(ev.scores.model_dump(), ev.score_context, bounds)
    biggest_finding(*lowest_dimension(ev), ev.scores.model_dump(), bounds)


def score_tiles(
    scores: dict[str, float], context: Callable[[str], str], bounds: VerdictThresholds
) -> None:
    """Four score tiles in the verdict's colours (a memo's or another document's): one row
    at a desk, two by two on a phone; ``context(dim)`` is the n/total under each score."""
    # A wrapping row, not st.columns(4): on a narrow window the tiles flow onto two rows
    # instead of truncating their labels and n/total captions.
    st.html(tile_style())
    tiles = st.container(horizontal=True, wrap=True, key="scorecard.tiles")
    for field, label in DIMENSION_LABELS.items():
        score = scores[field]
        tone = dimension_tone(field, score, bounds)
        tile = tiles.container(key=TILE_KEY.format(field=field, band=tone.value))
        meets = "meets" if bounds.meets(field, score) else "misses"
        op = "at most" if field in LOWER_IS_BETTER else "at least"
        tile.metric(
            label,
            fmt_pct(score),
            delta=context(field),
            delta_color="off",
            delta_arrow="off",
            border=True,
            width="stretch",
            help=f"{label} {meets} its threshold ({op} {fmt_pct(bounds.bound(field))})"
            + (" (lower is better)" if field in LOWER_IS_BETTER else ""),
        )
    st.caption(TONE_LEGEND)


def biggest_finding(
    dim: str, sentence: str, scores: dict[str, float], bounds: VerdictThresholds
) -> None:
    """The weakest dimension's sentence, in that dimension's verdict colour."""
    tone = dimension_tone(dim, scores[dim], bounds) if dim in DIMENSION_LABELS else Tone.GOOD
    tones.banner(
        tone, f"**Biggest finding.** {md_escape(sentence)}", key="biggest", icon=":material/search:"
    )


TONE_LEGEND = (
    "Colours follow the verdict: **red** misses its threshold (the memo is not ready), "
    "**amber** meets a threshold set below perfect, **green** is perfect."
)


def render_charts(ev: MemoEvaluation) -> None:
    """Dimensions against pass bands; per-opportunity cited/uncited, grounded/ungrounded."""
    rows = [
        {
            "dimension": label,
            "score": getattr(ev.scores, field),
            "text": f"{fmt_pct(getattr(ev.scores, field))} ({ev.score_context(field).split()[0]})",
        }
        for field, label in DIMENSION_LABELS.items()
    ]
    bands = charts.band_rows([(label, field) for field, label in DIMENSION_LABELS.items()])
    left, right = st.columns(2)
    with left:
        st.markdown("##### Scores against the colour bands")
        charts.show(charts.dimension_chart, rows, bands, width="stretch")
    opp_rows: list[dict[str, Any]] = []
    for o in ev.opportunities:
        for measure, good, bad, n_good, n_total in (
            ("Figures", "cited", "uncited", o.figures_cited, o.figures_total),
            ("Entities", "grounded", "ungrounded", o.entities_grounded, o.entities_total),
        ):
            opp_rows.append(
                {"opportunity": o.id, "measure": measure, "status": good, "count": n_good}
            )
            opp_rows.append(
                {"opportunity": o.id, "measure": measure, "status": bad, "count": n_total - n_good}
            )
    with right:
        st.markdown("##### Per opportunity")
        if opp_rows:
            charts.show(charts.opportunity_chart, opp_rows)
        else:
            st.caption("No opportunities to chart.")


def render_opportunity_table(ev: MemoEvaluation) -> None:
    """Per-opportunity rows with progress-bar columns."""
    rows = []
    for o in ev.opportunities:
        rows.append(
            {
                "opportunity": o.id,
                "archetype": o.archetype,
                "cohort": o.cohort,
                "in source": o.in_source,
                "addressed": o.addressed,
                "figures": f"{o.figures_cited}/{o.figures_total}",
                "cited": o.figures_cited / o.figures_total if o.figures_total else 1.0,
                "entities": f"{o.entities_grounded}/{o.entities_total}",
                "grounded": o.entities_grounded / o.entities_total if o.entities_total else 1.0,
                "findings": o.findings,
            }
        )
    cards = [
        Card(
            title=f"{o.id}" + (f" · {o.archetype}" if o.archetype else ""),
            lead=(
                "Not in the source."
                if not o.in_source
                else ("Left out of the memo." if not o.addressed else o.cohort)
            ),
            details=[
                ("figures cited", f"{o.figures_cited}/{o.figures_total}"),
                ("entities grounded", f"{o.entities_grounded}/{o.entities_total}"),
                ("findings", str(o.findings)),
            ],
            tone="fail" if o.findings or not o.in_source or not o.addressed else "pass",
        )
        for o in ev.opportunities
    ]
    table_or_cards(
        "opportunities",
        lambda: st.dataframe(
            as_points(pd.DataFrame(rows), ("cited", "grounded")),
            hide_index=True,
            placeholder="",
            column_config={
                "cited": score_column("figures cited"),
                "grounded": score_column("entities grounded"),
                "in source": st.column_config.CheckboxColumn(),
                "addressed": st.column_config.CheckboxColumn(),
            },
        ),
        cards,
    )


def finding_rows(ev: MemoEvaluation) -> list[dict[str, Any]]:
    """One row per finding in reading order: what is wrong in plain words (the verdict's own
    sentence), the offending text and the nearest source value, then where it sits."""
    ids = [o.id for o in ev.opportunities if o.in_source]
    names = cohort_names(ev)
    return [
        {
            "kind": str(f.kind),
            "what": kind_label(str(f.kind)),
            "raw": f.raw,
            "why": issue_sentence(f, ids, names),
            "nearest_value": nearest_text(f),  # in the figure's own format
            "source_field": field_label(f.nearest_path) if f.nearest_path else "",
            "nearest_path": f.nearest_path or "",
            "other_opportunity_id": f.other_opportunity_id or "",
            "opportunity_id": f.opportunity_id or "(memo)",
            "field": f.field or "",
            "counted": f.kind not in NOT_COUNTED,
        }
        for f in ev.findings
    ]


FINDING_COLUMNS: dict[str, ColumnConfig | str | None] = {
    # column: its header (the table's reading order: the why and the nearest value first)
    # the first six widths (px) sum to the table's width at 1440 px (980), so "why", "source
    # field" and "belongs to" are on screen without scrolling sideways
    "what": st.column_config.TextColumn("what", width=180),
    "raw": st.column_config.TextColumn("offending text", width=85),
    "why": st.column_config.TextColumn("why", width=385),
    "nearest_value": st.column_config.TextColumn("nearest value", width=90),
    "source_field": st.column_config.TextColumn("source field", width=150),
    "other_opportunity_id": st.column_config.TextColumn("belongs to", width=90),
    "opportunity_id": "opportunity",
    "nearest_path": st.column_config.TextColumn("source field path", width="small"),
    "field": "memo field",
}


def render_findings(ev: MemoEvaluation) -> None:
    """Every finding, filterable by kind and opportunity; cards on a phone."""
    rows = finding_rows(ev)
    if not rows:
        st.success("No findings: every figure and entity traces to the source.")
        return
    frame = pd.DataFrame(rows)
    kinds = sorted(frame["kind"].unique())
    opps = sorted(frame["opportunity_id"].unique())
    left, right = st.columns(2)
    chosen_kinds = left.multiselect(
        "Kind",
        kinds,
        key=K.FINDING_KINDS,
        placeholder="All kinds",
        format_func=kind_label,
    )
    chosen_opps = right.multiselect(
        "Opportunity", opps, key=K.FINDING_OPPS, placeholder="All opportunities"
    )
    mask = pd.Series(True, index=frame.index)
    if chosen_kinds:
        mask &= frame["kind"].isin(chosen_kinds)
    if chosen_opps:
        mask &= frame["opportunity_id"].isin(chosen_opps)
    shown = frame[mask]
    st.caption(
        f"{len(shown)} of {len(frame)} findings shown; {int(frame['counted'].sum())} count "
        "against the memo (template wording and unreadable other memos are shown, never "
        "counted)."
    )
    cards = [
        Card(
            title=f"{r['opportunity_id']} · {r['what']}",
            lead=r["why"],
            details=[
                ("nearest source value", r["nearest_value"]),
                ("source field", r["source_field"]),
                ("belongs to", r["other_opportunity_id"]),
                ("memo field", r["field"]),
            ],
            tone="fail" if r["counted"] else "",
        )
        for r in shown.to_dict("records")
    ]
    table_or_cards(
        "findings",
        lambda: table_with_detail(
            shown[list(FINDING_COLUMNS)].reset_index(drop=True),
            K.FINDINGS_TABLE,
            column_config=FINDING_COLUMNS,
        ),
        cards,
    )


def render_prose(ev: MemoEvaluation) -> None:
    """Memo prose of one opportunity, every figure and entity marked, source fields alongside."""
    opp_ids = list(dict.fromkeys(b.opportunity_id for b in ev.prose))
    if not opp_ids:
        st.caption("The memo has no prose blocks.")
        return
    memo_id = f"{ev.portco_id}/{ev.audience}/{ev.memo_sha256}"
    if st.session_state.get(K.PROSE_FOR) != memo_id:  # another memo: start over
        st.session_state[K.PROSE_FOR] = memo_id
        st.session_state.pop(K.PROSE_OPP, None)
    if st.session_state.get(K.PROSE_OPP) not in opp_ids:
        # Open on the first opportunity with a problem: that is what the reader came to see.
        flagged = [m.opportunity_id for m in ev.marks if m.status in PROBLEM_STATUSES]
        st.session_state[K.PROSE_OPP] = next((o for o in opp_ids if o in flagged), opp_ids[0])
    opp = st.selectbox("Opportunity", opp_ids, key=K.PROSE_OPP)
    blocks = [b for b in ev.prose if b.opportunity_id == opp]
    marks = [m for m in ev.marks if m.opportunity_id == opp]
    left, right = st.columns([3, 2])
    with left:
        st.html(prose_style())  # style only: Streamlit applies it without taking up space
        st.html(prose_html(blocks, marks))
    with right:
        st.caption("Marks and the source field each traces to")
        table = pd.DataFrame([m.model_dump(mode="json") for m in marks])
        if table.empty:
            st.caption("No figures or entities in this opportunity's prose.")
        else:
            cols = [
                c
                for c in ("field", "raw", "status", "source_value", "source_path", "what")
                if c in table
            ]
            if "source_value" in table:
                table["source_value"] = table["source_value"].map(fmt_number)
            st.dataframe(
                table[cols],
                hide_index=True,
                placeholder="",
                column_config={"source_path": "source field", "source_value": "source value"},
            )


def prose_html(blocks: list[ProseBlock], marks: list[Mark]) -> str:
    """The legend, then each prose block under its field name, marked by the core renderer."""
    parts = [f'<div class="pe-prose">{mark_legend_html()}']
    for block in blocks:
        mine = [m for m in marks if m.field == block.field]
        parts.append(
            f'<div class="field">{html.escape(block.field)}</div>'
            f'<div class="text">{marked_prose_html(block.text or "", mine)}</div>'
        )
    parts.append("</div>")
    return "".join(parts)


def render_consistency(ev: MemoEvaluation) -> None:
    """This memo's headline, its source's total and every sibling's headline, side by side."""
    c = ev.consistency
    st.markdown(md_escape(c.note))
    heads = st.container(horizontal=True, wrap=True, key="scorecard.headlines")
    heads.metric("This memo's headline", fmt_usd(c.memo_headline), border=True)
    heads.metric(
        "Source total",
        fmt_usd(c.source_total),
        delta="agrees" if c.agrees_with_source else "disagrees",
        delta_color="normal" if c.agrees_with_source else "inverse",
        delta_arrow="off",
        border=True,
    )
    with st.container():
        siblings = pd.DataFrame([s.model_dump(mode="json") for s in c.siblings])
        if siblings.empty:
            st.caption("No sibling memos for this portco in the folder.")
        else:
            if "path" in siblings:
                siblings["path"] = siblings["path"].map(lambda p: Path(str(p)).name)
            if "headline" in siblings:
                siblings["headline"] = [None if v != v else fmt_usd(v) for v in siblings.headline]
            siblings = siblings.astype(object).where(siblings.notna(), "")  # blanks, not None
            st.dataframe(
                siblings,
                hide_index=True,
                placeholder="",
                column_config={
                    "agrees": st.column_config.CheckboxColumn(),
                },
            )


CSV_CONTEXT = ("portco", "audience", "memo_file", "run_id")
"""The findings CSV's leading columns: which memo and which recorded run each finding is from,
so CSVs of several memos can be concatenated and still be told apart."""


def findings_csv(ev: MemoEvaluation, run_id: int | None) -> str:
    """Every finding as one CSV row, led by portco, audience, memo file (its name, never a
    server path) and history run id; then the core's finding columns. Every cell goes through
    ``pe_eval_core.files.csv_cell`` (the one escaper of every CSV pe-eval writes)."""
    from pe_eval_core.files import csv_text
    from pe_eval_core.memo.outputs import FINDING_COLUMNS as CORE_COLUMNS

    context = [ev.portco_id, ev.audience, Path(ev.memo_path).name, run_id]
    rows = (f.model_dump(mode="json") for f in ev.findings)
    return csv_text(
        [[*CSV_CONTEXT, *CORE_COLUMNS], *([*context, *(r[c] for c in CORE_COLUMNS)] for r in rows)]
    )


def scorecard_html(ev: MemoEvaluation, thresholds: VerdictThresholds) -> str:
    """The HTML download: the core's scorecard, its verdict under the page's thresholds."""
    from pe_eval_core.memo import render_scorecard_html

    return render_scorecard_html(ev, thresholds)


def scorecard_json(ev: MemoEvaluation, thresholds: VerdictThresholds) -> str:
    """The JSON download: the sidecar ``write_outputs`` writes, with the same verdict."""
    from pe_eval_core.memo import evaluation_to_json, with_verdict

    return evaluation_to_json(with_verdict(ev, thresholds))


def render_downloads(ev: MemoEvaluation, uploaded: bool, run_id: int | None = None) -> None:
    """HTML / JSON / CSV through the core serializers, and a button writing files by the memo;
    the HTML and JSON state the verdict under the page's thresholds, as the page does."""
    from pe_eval_core.memo import write_outputs

    stem = f"eval_{ev.portco_id}_{ev.audience}"
    cols = st.columns(4)
    thresholds = verdict_thresholds()
    downloads: tuple[tuple[str, Callable[[], str], str, str], ...] = (
        ("Scorecard HTML", partial(scorecard_html, ev, thresholds), f"{stem}.html", "text/html"),
        (
            "Scorecard data (JSON)",
            partial(scorecard_json, ev, thresholds),
            f"{stem}.json",
            "application/json",
        ),
        ("Findings CSV", partial(findings_csv, ev, run_id), f"{stem}_findings.csv", "text/csv"),
    )
    for col, (label, serialise, file_name, mime) in zip(cols, downloads, strict=False):
        col.download_button(
            label,
            data=serialise,
            file_name=file_name,
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
        )
    target = Path(ev.memo_path).parent
    if cols[3].button(
        "Write eval files next to the memo",
        key=K.WRITE,
        icon=":material/save:",
        disabled=uploaded,
        help="Uploads have no folder to write next to; download the files instead."
        if uploaded
        else f"Writes {stem}.html and {stem}.json into {target}",
    ):
        try:
            paths = write_outputs(ev, thresholds=thresholds)
        except PeEvalError as err:
            show_error(err)
        except OSError as err:
            st.error(f"Could not write into {target}: {err.strerror}")
        else:
            st.session_state[K.WRITTEN] = [str(p) for p in paths]
    if run_id is not None:
        st.caption(
            f"Recorded in the history as run #{run_id} (the findings CSV's run_id): "
            f"[open it]({links.link(run=run_id)})."
        )
    written = st.session_state.get(K.WRITTEN)
    if written and Path(written[0]).parent == target:
        st.success("Written: " + ", ".join(f"`{p}`" for p in written))


def render() -> None:
    """The whole page."""
    apply_link()
    st.title("Memo scorecard")
    st.caption(
        "An AI-written memo graded against the OpportunityMap it was drawn from: every figure "
        "traced to a source field, every named cohort checked, every opportunity accounted for."
    )
    glossary.render("scorecard")
    mode = st.radio("Memo from", [FOLDER, UPLOAD], key=K.MODE, horizontal=True)
    if mode == FOLDER:
        graded = pick_from_folder()
    else:
        links.sync("scorecard")  # an upload has no link: nobody else can open it
        graded = pick_from_upload()
    if graded is None:
        return
    ev, run_id = graded
    st.subheader(f"{md_escape(ev.portco_id)} · {md_escape(ev.audience)}")
    verdict = render_verdict(ev, with_thresholds=False)
    render_tiles(ev)
    render_thresholds(verdict)
    render_charts(ev)
    st.markdown("#### Opportunities")
    render_opportunity_table(ev)
    st.markdown("#### Findings")
    render_findings(ev)
    st.markdown("#### Memo prose, marked")
    render_prose(ev)
    st.markdown("#### Consistency")
    render_consistency(ev)
    st.markdown("#### Export")
    render_downloads(ev, uploaded=mode == UPLOAD, run_id=run_id)
