"""Human wording of an evaluation: money formatting and the one-sentence weakest dimension.

Shared by the CLI, the HTML scorecard and the MCP server so they all say the same thing.

>>> fmt_usd(1_390_000_000), fmt_usd(564_800_000), fmt_usd(-450_000), fmt_usd(12_340)
('$1.39B', '$564.8M', '$-450K', '$12,340')
>>> fmt_pct(0.6667), fmt_pct(1.0)
('66.7%', '100%')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pe_eval_core.memo.result import DIMENSIONS, FindingKind

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation

DIMENSION_LABELS = {
    "citation_accuracy": "Citation accuracy",
    "hallucination_rate": "Hallucination rate",
    "coverage": "Coverage",
    "consistency": "Consistency",
}


def fmt_usd(value: float | None) -> str:
    """Money the way the producers print it ($1.39B, $564.8M, $450K, $12,340)."""
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    a = abs(value)
    if a >= 1e9:
        body = f"{a / 1e9:.2f}B"
    elif a >= 1e6:
        body = f"{a / 1e6:.1f}M"
    elif a >= 1e5:
        body = f"{a / 1e3:.0f}K"
    else:
        body = f"{a:,.0f}"
    return f"${sign}{body}"


def fmt_pct(score: float) -> str:
    """A 0..1 score as a percentage, without a useless ``.0``."""
    text = f"{score * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def badness(dimension: str, value: float) -> float:
    """How far a score is from perfect (hallucination is lower-is-better)."""
    return value if dimension == "hallucination_rate" else 1.0 - value


def _quote(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def lowest_dimension(ev: MemoEvaluation) -> tuple[str, str]:
    """The weakest of the four dimensions and one sentence saying what it means."""
    scores = ev.scores.model_dump()
    worst = max(DIMENSIONS, key=lambda d: (badness(d, scores[d]), -DIMENSIONS.index(d)))
    if badness(worst, scores[worst]) <= 0:
        return "none", (
            "All four dimensions are perfect: every figure and entity traces to the source, "
            "every opportunity is addressed and the headline agrees; safe to circulate."
        )
    t = ev.totals
    pct = fmt_pct(scores[worst])
    if worst == "citation_accuracy":
        bad = [
            f"{f.raw} ({f.opportunity_id} {f.field})"
            for f in ev.findings_of(FindingKind.UNGROUNDED_FIGURE, FindingKind.SIGN_MISMATCH)
        ]
        return worst, (
            f"Citation accuracy is {pct} — {t.figures_cited} of {t.figures_total} figures "
            f"trace to the source; not traced: {_quote(bad)}."
        )
    if worst == "hallucination_rate":
        bad = [
            f"'{f.raw}' ({f.opportunity_id})" for f in ev.findings_of(FindingKind.UNGROUNDED_ENTITY)
        ]
        n_bad = t.entities_total - t.entities_grounded
        return worst, (
            f"Hallucination rate is {pct} — {n_bad} of {t.entities_total} named entities "
            f"are not in the source: {_quote(bad)}."
        )
    if worst == "coverage":
        dropped = [f.opportunity_id or "?" for f in ev.findings_of(FindingKind.DROPPED_OPPORTUNITY)]
        verb = "is" if len(dropped) == 1 else "are"
        return worst, (
            f"Coverage is {pct} — memo addresses {t.opps_addressed} of {t.opps_in_source} "
            f"opportunities; {_quote(dropped)} {verb} silently dropped."
        )
    note = ev.consistency.note
    return worst, f"Consistency is {pct} — the {note[:1].lower()}{note[1:]}"
