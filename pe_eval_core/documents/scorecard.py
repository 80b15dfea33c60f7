"""A document's scorecard as one self-contained HTML page (no external assets, no script),
in the memo scorecard's look. Rendered by jinja2 with autoescape on: every string from a
document or source reaches the page escaped."""

from __future__ import annotations

from pathlib import Path

from pe_eval_core.documents.results import KIND_TITLES, DocumentEvaluation
from pe_eval_core.documents.summary import KIND_LABELS, lowest_dimension
from pe_eval_core.documents.verdict import VerdictThresholds, document_verdict
from pe_eval_core.grading.scorecard import template_environment
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, band


def render_document_html(
    ev: DocumentEvaluation, thresholds: VerdictThresholds | None = None
) -> str:
    """Verdict (under ``thresholds``, None: the pass band), four score tiles with n/total,
    the weakest dimension, the per-item table, the findings (each with the nearest source
    value and where it is), the consistency table and the kind's own totals."""
    scores = ev.scores.model_dump()
    tiles = [
        {
            "name": d,
            "label": DIMENSION_LABELS[d],
            "value": scores[d],
            "band": band(d, scores[d]).value,
            "context": ev.score_context(d),
            "lower_is_better": d == "hallucination_rate",
        }
        for d in DIMENSIONS
    ]
    lowest_name, lowest_sentence = lowest_dimension(ev)
    verdict = document_verdict(ev, thresholds)
    return (
        template_environment("pe_eval_core.documents")
        .get_template("document.html.j2")
        .render(
            ev=ev,
            title=KIND_TITLES[ev.kind],
            tiles=tiles,
            lowest_name=lowest_name,
            lowest_sentence=lowest_sentence,
            verdict=verdict,
            kind_labels=KIND_LABELS,
            document_file=Path(ev.document_path).name,
            counted=ev.counted_findings(),
            info=[f for f in ev.findings if f.dimension == "info"],
        )
    )
