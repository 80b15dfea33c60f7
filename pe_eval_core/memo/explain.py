"""The one-sentence explanation of an evaluation: its weakest dimension and what it means.

Shared by the CLI, the HTML scorecard, the dashboard and the MCP server so they all say the same
thing; the formats come from ``pe_eval_core.wording``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pe_eval_core.memo.plain import cohort_names, opportunity_name, shown_raw
from pe_eval_core.memo.result import FindingKind
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, badness, fmt_pct

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation


def _quote(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def lowest_dimension(ev: MemoEvaluation) -> tuple[str, str]:
    """The weakest of the four dimensions and one sentence saying what it means (each
    opportunity by its cohort, the id second)."""
    names = cohort_names(ev)
    scores = ev.scores.model_dump()
    worst = max(DIMENSIONS, key=lambda d: (badness(d, scores[d]), -DIMENSIONS.index(d)))
    if badness(worst, scores[worst]) <= 0:
        return "none", (
            "All four dimensions are perfect: every figure and entity traces to the source, "
            "every opportunity is addressed and the headline agrees."
        )
    t = ev.totals
    pct = fmt_pct(scores[worst])
    if worst == "citation_accuracy":
        bad = [
            f"{shown_raw(f.raw)} ({opportunity_name(f.opportunity_id, names)}, {f.field})"
            for f in ev.findings_of(FindingKind.UNGROUNDED_FIGURE, FindingKind.SIGN_MISMATCH)
        ]
        return worst, (
            f"Citation accuracy is {pct} — {t.figures_cited} of {t.figures_total} figures "
            f"trace to the source; not traced: {_quote(bad)}."
        )
    if worst == "hallucination_rate":
        bad = [
            f"'{f.raw}' ({opportunity_name(f.opportunity_id, names)})"
            for f in ev.findings_of(FindingKind.UNGROUNDED_ENTITY)
        ]
        n_bad = t.entities_total - t.entities_grounded
        return worst, (
            f"Hallucination rate is {pct} — {n_bad} of {t.entities_total} named entities "
            f"are not in the source: {_quote(bad)}."
        )
    if worst == "coverage":
        dropped = [
            opportunity_name(f.opportunity_id, names) if f.opportunity_id else "?"
            for f in ev.findings_of(FindingKind.DROPPED_OPPORTUNITY)
        ]
        verb = "is" if len(dropped) == 1 else "are"
        return worst, (
            f"Coverage is {pct} — memo addresses {t.opps_addressed} of {t.opps_in_source} "
            f"opportunities; {_quote(dropped)} {verb} silently dropped."
        )
    note = ev.consistency.note
    return worst, f"Consistency is {pct} — the {note[:1].lower()}{note[1:]}"


def score_lines(ev: MemoEvaluation) -> list[str]:
    """The four scores with their n/total, then the weakest dimension in one sentence: the
    lines ``pe-eval memo`` prints and the MCP tool returns as text.

    Whether the memo may be circulated is the verdict's to say
    (``pe_eval_core.memo.verdict.verdict_lines``), not this sentence's.
    """
    scores = ev.scores.model_dump()
    lines = [
        f"  {DIMENSION_LABELS[d] + ':':<20} {fmt_pct(scores[d]):>7}  ({ev.score_context(d)})"
        for d in DIMENSIONS
    ]
    return [*lines, lowest_dimension(ev)[1]]
