"""Document scorecard page: pick any document of the data folder (exit proof pack, DDQ
response, red flags, or a memo, which opens the memo scorecard) and read its grading.

Everything shown comes from the core's ``DocumentEvaluation`` (``pe_eval_core.documents``):
verdict, the four scores with n/total, the weakest dimension, findings with where they are and
what the source says, the consistency comparisons and the per-item table, with downloads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from pe_eval_core.documents import (
    KIND_LABELS,
    KIND_TITLES,
    DocumentEvaluation,
    DocumentKind,
    document_verdict,
    evaluation_to_json,
    find_documents,
    grade_document,
    lowest_dimension,
    with_verdict,
    write_document_outputs,
)
from pe_eval_core.memo.plain import shown_raw
from pe_eval_core.memo.verdict import VerdictThresholds
from pe_eval_core.wording import (
    DIMENSION_LABELS,
    DIMENSIONS,
    fmt_number,
    fmt_usd,
)
from ui import links, state
from ui.columns import as_points, dimension_columns
from ui.data import Fingerprint, folder_fingerprint
from ui.errors import guarded, md_code, md_escape
from ui.responsive import table_with_detail

K = state.Documents
DOC_PATTERNS = ("*.json", "*.htm", "*.html")


@st.cache_data(show_spinner=False, max_entries=32)
def _documents(folder: str, fingerprint: Fingerprint) -> list[tuple[str, str]]:
    return [(k.value, str(p)) for k, p in find_documents(Path(folder))]


def documents(folder: Path) -> list[tuple[str, str]]:
    """Every gradable document of the folder as (kind, path), cached on the folder's files."""
    return _documents(str(folder), folder_fingerprint(folder, DOC_PATTERNS))


@st.cache_data(show_spinner="Grading document…", max_entries=64)
def _graded(path: str, fingerprint: Fingerprint) -> str:
    return grade_document(path).model_dump_json()


def graded(path: Path) -> DocumentEvaluation:
    """A document's evaluation, cached on its folder's files (sources sit beside it)."""
    raw = _graded(str(path), folder_fingerprint(path.parent, DOC_PATTERNS))
    return DocumentEvaluation.model_validate_json(raw)


def label(kind: str, path: str) -> str:
    """How the picker names a document.

    >>> label("ddq_response", "/x/ddq_response_Fund.json")
    'DDQ response · ddq_response_Fund.json'
    """
    return f"{KIND_TITLES[DocumentKind(kind)]} · {Path(path).name}"


def expected_text(raw: str, expected: object) -> str:
    """What the source holds, in the format of the document's figure; blank when nothing.

    >>> expected_text("$-990.9M", -1544319724.47), expected_text("0.81", 1.0)
    ('−$1.54B', '1')
    >>> expected_text("customer_concentration", None), expected_text("x", "geographic")
    ('', 'geographic')
    """
    if expected is None:
        return ""
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return fmt_usd(float(expected)) if "$" in raw else fmt_number(expected)
    return str(expected)


def findings_frame(ev: DocumentEvaluation) -> pd.DataFrame:
    """One row per counted finding: what, where, the text, why, and the source value."""
    return pd.DataFrame(
        [
            {
                "what": KIND_LABELS[f.kind],
                "dimension": DIMENSION_LABELS.get(f.dimension, f.dimension),
                "item": f.item_id or "",
                "where": f.field or "",
                "text": shown_raw(f.raw),
                "why": f.message,
                "expected": expected_text(f.raw, f.expected),
                "source": f.expected_path or "",
            }
            for f in ev.counted_findings()
        ],
        columns=["what", "dimension", "item", "where", "text", "why", "expected", "source"],
    )


def _memo(path: Path) -> None:
    """A memo has its own scorecard: link to it."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    portco, audience = str(data.get("portco_id", "")), str(data.get("audience", ""))
    st.info(f"{md_code(path.name)} is an explainer memo: it has its own scorecard.")
    if st.button("Open the memo scorecard", key=K.OPEN_MEMO, icon=":material/open_in_new:"):
        links.go("scorecard", portco=portco, audience=audience)


def render_evaluation(ev: DocumentEvaluation) -> None:
    """Verdict, score tiles, weakest dimension, findings, consistency, items, downloads; the
    colours the core's rule (``pe_eval_core.tone``), as on the memo scorecard."""
    from ui.views.scorecard import biggest_finding, score_tiles, show_verdict, verdict_thresholds

    thresholds = verdict_thresholds(K.VERDICT_SPEC)
    show_verdict(document_verdict(ev, thresholds), K.VERDICT_SPEC)
    scores = ev.scores.model_dump()
    score_tiles(scores, ev.score_context, thresholds)
    biggest_finding(*lowest_dimension(ev), scores, thresholds)
    st.markdown(f"##### Findings ({len(ev.counted_findings())})")
    if ev.counted_findings():
        table_with_detail(findings_frame(ev), K.FINDINGS)  # a cut cell's full text, one click
    else:
        st.caption("No findings: every figure, name and citation traces to the source.")
    st.markdown("##### Consistency")
    st.caption(md_escape(ev.consistency_note))
    rows = [
        {
            "compared": r.what,
            "stated": fmt_number(r.stated),
            "expected": fmt_number(r.expected),
            "source": r.expected_path or "",
            "verdict": "not compared"
            if r.agrees is None
            else ("agrees" if r.agrees else "disagrees"),
        }
        for r in ev.consistency_rows
    ]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", placeholder="")
    st.markdown("##### Items")
    items = pd.DataFrame([r.model_dump() for r in ev.items])
    st.dataframe(items, hide_index=True, width="stretch", placeholder="")  # blanks, not None
    from pe_eval_core.documents.scorecard import render_document_html

    html = render_document_html(ev, thresholds)
    stem = Path(ev.document_path).stem
    c1, c2, c3 = st.columns(3)
    c1.download_button(
        "Scorecard HTML", html, f"eval_{stem}.html", "text/html", key=K.DOWNLOAD_HTML
    )
    c2.download_button(
        "Scorecard data (JSON)",
        evaluation_to_json(with_verdict(ev, thresholds)),
        f"eval_{stem}.json",
        "application/json",
        key=K.DOWNLOAD_JSON,
    )
    if c3.button("Write next to the document", key=K.WRITE, icon=":material/save:"):
        with guarded(stop=False):
            html_path, json_path = write_document_outputs(ev, thresholds=thresholds)
            st.toast(f"Wrote {html_path.name} and {json_path.name}.")


def render() -> None:
    """The whole page."""
    st.title("Document scorecard")
    folder = state.data_dir()
    st.caption(
        f"Reading the data folder {md_code(folder)}: exit proof packs, DDQ responses, red "
        "flags and memos."
    )
    docs = documents(folder) if folder.is_dir() else []
    if not docs:
        st.warning("No documents in this folder. Change the data folder in the sidebar.")
        return
    names = [Path(p).name for _, p in docs]
    labels = [label(*d) for d in docs]
    wanted = links.current().get("doc")
    if wanted in names and links.is_new("documents"):
        st.session_state[K.PICK] = labels[names.index(wanted)]
    choice = st.selectbox("Document", labels, key=K.PICK)
    kind, path = docs[labels.index(choice)]
    links.sync("documents", doc=Path(path).name)
    if kind == DocumentKind.MEMO.value:
        _memo(Path(path))
        return
    with guarded():
        ev = graded(Path(path))
    render_evaluation(ev)


def document_rows(
    folder: Path, thresholds: VerdictThresholds | None = None
) -> list[dict[str, Any]]:
    """One Portfolio row per non-memo document: kind, id, its verdict under ``thresholds``
    (None: the pass band), the four scores, findings."""
    rows: list[dict[str, Any]] = []
    for kind, path in documents(folder):
        if kind == DocumentKind.MEMO.value:
            continue
        row: dict[str, Any] = {"kind": KIND_TITLES[DocumentKind(kind)], "document": Path(path).name}
        try:
            ev = graded(Path(path))
        except Exception as exc:  # a document that cannot be graded is a row, not a crash
            from pe_eval_core.errors import PeEvalError

            if not isinstance(exc, PeEvalError):
                raise
            rows.append(row | {"error": exc.message})
            continue
        verdict = document_verdict(ev, thresholds)
        row |= {"verdict": verdict.headline, "ready": verdict.ready}
        row |= {d: getattr(ev.scores, d) for d in DIMENSIONS}
        row |= {"findings": len(ev.counted_findings()), "biggest_finding": lowest_dimension(ev)[1]}
        rows.append(row)
    return rows


def render_portfolio_documents(folder: Path, thresholds: VerdictThresholds | None = None) -> None:
    """The Portfolio's table of every other document kind, a row per document with its
    verdict under the page's thresholds; a click opens its document scorecard."""
    rows = document_rows(folder, thresholds) if folder.is_dir() else []
    if not rows:
        return
    st.markdown("##### Other documents (exit proof packs, DDQ responses, red flags)")
    st.caption("Click a row to open that document's scorecard.")
    columns = ["kind", "document", "verdict", *DIMENSIONS, "findings", "biggest_finding", "error"]
    frame = as_points(pd.DataFrame(rows).reindex(columns=columns), DIMENSIONS)
    event = st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        placeholder="",  # blanks, not None
        key=K.OPEN,
        on_select="rerun",
        selection_mode="single-row",
        column_config=dimension_columns(),
    )
    selected = event.selection.rows if event is not None else []
    if selected:
        links.go("documents", doc=str(frame.iloc[selected[0]]["document"]))
