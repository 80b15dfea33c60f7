"""What a document's evaluation says in words: each finding kind's label, the weakest
dimension in one sentence (the verdict is ``documents.verdict``). Every surface (CLI, HTML,
dashboard, MCP) calls these, so they agree."""

from __future__ import annotations

from collections.abc import Mapping

from pe_eval_core.documents.results import (
    KIND_TITLES,
    DocFindingKind,
    DocumentEvaluation,
)
from pe_eval_core.memo.plain import shown_raw
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, badness, fmt_pct

KIND_LABELS: Mapping[DocFindingKind, str] = {
    DocFindingKind.FIELD_CONTRADICTS_SOURCE: "Field contradicts the source",
    DocFindingKind.UNGROUNDED_FIGURE: "Figure not in the source",
    DocFindingKind.WRONG_QUANTITY: "Figure of another quantity",
    DocFindingKind.SIGN_MISMATCH: "Figure with the wrong sign",
    DocFindingKind.MISATTRIBUTED_FIGURE: "Figure from another item",
    DocFindingKind.BROKEN_DERIVATION: "Derived value does not follow",
    DocFindingKind.WRONG_AGGREGATE: "Figure equal to no aggregate",
    DocFindingKind.MISSING_VALUE: "Quoted value missing or altered",
    DocFindingKind.EXCERPT_NOT_FOUND: "Excerpt not in the filing",
    DocFindingKind.EXCERPT_MISPLACED: "Excerpt at another place",
    DocFindingKind.FIGURE_NOT_IN_FILING: "Figure not in the filing",
    DocFindingKind.UNGROUNDED_ENTITY: "Name not in the source",
    DocFindingKind.MISATTRIBUTED_ENTITY: "Name from another item",
    DocFindingKind.HALLUCINATED_ARTIFACT: "Artifact that does not exist",
    DocFindingKind.WRONG_FLAG_TYPE: "Flag of the wrong type",
    DocFindingKind.HALLUCINATED_FLAG: "Flag not in the filing",
    DocFindingKind.PHANTOM_ITEM: "Claim not in the source",
    DocFindingKind.DROPPED_ITEM: "Opportunity left out",
    DocFindingKind.UNCITED_ANSWER: "Answer without a citation",
    DocFindingKind.UNCOVERED_DISCLOSURE: "Disclosure no flag covers",
    DocFindingKind.HEADLINE_MISMATCH: "Headline disagrees",
    DocFindingKind.COUNT_MISMATCH: "Stated count disagrees",
    DocFindingKind.SEVERITY_RULE: "Severity breaks the rule",
    DocFindingKind.INCONSISTENT_QUANTITY: "Quantity stated two ways",
    DocFindingKind.TEMPLATE_EXEMPT: "Stated parameter (not counted)",
    DocFindingKind.UNREADABLE_SIBLING: "Other document unreadable (not counted)",
}


def lowest_dimension(ev: DocumentEvaluation) -> tuple[str, str]:
    """The weakest dimension and one sentence on it ("none" when all four are perfect)."""
    scores = ev.scores.model_dump()
    worst = max(DIMENSIONS, key=lambda d: (badness(d, scores[d]), -DIMENSIONS.index(d)))
    title = KIND_TITLES[ev.kind]
    if badness(worst, scores[worst]) <= 0:
        return "none", (
            f"All four dimensions are perfect: this {title.lower()} traces to its source, "
            "covers it and agrees with itself."
        )
    shown = [f for f in ev.counted_findings() if f.dimension == worst][:3]
    quoted = "; ".join(
        f"{_quote(f.raw or f.item_id or '')} ({f.item_id or f.field or ''})" for f in shown
    )
    return worst, (
        f"{DIMENSION_LABELS[worst]} is {fmt_pct(scores[worst])} ({ev.score_context(worst)})"
        + (f"; first: {quoted}." if quoted else ".")
    )


def _quote(raw: str, limit: int = 80) -> str:
    """A finding's text in a lead sentence: a money sign where a reader writes it, a long
    excerpt cut at a word (the findings table holds it whole).

    >>> _quote("$-990.9M"), _quote("word " * 30)[-11:]
    ('−$990.9M', 'word word …')
    """
    text = shown_raw(raw.strip())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def score_lines(ev: DocumentEvaluation) -> list[str]:
    """The four scores with their n/total, then the weakest dimension in one sentence (the
    lines ``pe-eval doc`` prints and the MCP tool returns as text, as the memo's
    ``memo.explain.score_lines``); whether it may circulate is the verdict's to say."""
    scores = ev.scores.model_dump()
    lines = [
        f"  {DIMENSION_LABELS[d] + ':':<20} {fmt_pct(scores[d]):>7}  ({ev.score_context(d)})"
        for d in DIMENSIONS
    ]
    return [*lines, lowest_dimension(ev)[1]]
