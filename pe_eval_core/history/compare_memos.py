"""Comparing two memo evaluations: the four scores and the findings new or resolved, keyed by
``(kind, opportunity, raw text)``."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from pe_eval_core.history.records import MEMO_DIMENSIONS, MemoFindingRow, RunRecord, RunSummary
from pe_eval_core.wording import DIMENSION_LABELS

EPS = 1e-9
LOWER_IS_BETTER = frozenset({"hallucination_rate"})
# Findings that record a decision rather than a defect never count as regressions.
INFORMATIONAL_FINDINGS = frozenset({"template_exempt", "unreadable_sibling"})


class ScoreDelta(BaseModel):
    dimension: str
    a: float | None
    b: float | None

    @property
    def delta(self) -> float | None:
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def direction(self) -> Literal["better", "worse", "same", "n/a"]:
        d = self.delta
        if d is None:
            return "n/a"
        if abs(d) <= EPS:
            return "same"
        improved = d < 0 if self.dimension in LOWER_IS_BETTER else d > 0
        return "better" if improved else "worse"


class MemoComparison(BaseModel):
    kind: Literal["memo"] = "memo"
    a: RunSummary
    b: RunSummary
    scores: list[ScoreDelta]
    totals: dict[str, tuple[int | None, int | None]] = Field(default_factory=dict)
    new_findings: list[MemoFindingRow] = Field(default_factory=list)
    resolved_findings: list[MemoFindingRow] = Field(default_factory=list)

    @property
    def same_pair(self) -> bool:
        return (self.a.portco_id, self.a.audience) == (self.b.portco_id, self.b.audience)

    @property
    def memo_changed(self) -> bool:
        return self.a.memo_sha256 != self.b.memo_sha256

    @property
    def source_changed(self) -> bool:
        return self.a.source_sha256 != self.b.source_sha256

    @property
    def has_regressions(self) -> bool:
        worse = any(s.direction == "worse" for s in self.scores)
        new = any(f.kind not in INFORMATIONAL_FINDINGS for f in self.new_findings)
        return worse or new


def compare_memo_records(a: RunRecord, b: RunRecord) -> MemoComparison:
    """Score deltas plus findings new in B and resolved since A (multiset diff by key)."""
    scores = [
        ScoreDelta(dimension=d, a=getattr(a.summary, d), b=getattr(b.summary, d))
        for d in MEMO_DIMENSIONS
    ]
    ta = a.summary.scores.get("totals") or {}
    tb = b.summary.scores.get("totals") or {}
    totals = {k: (ta.get(k), tb.get(k)) for k in [*ta, *(k for k in tb if k not in ta)]}
    return MemoComparison(
        a=a.summary,
        b=b.summary,
        scores=scores,
        totals=totals,
        new_findings=_finding_diff(b.findings, a.findings),
        resolved_findings=_finding_diff(a.findings, b.findings),
    )


def _finding_diff(xs: list[MemoFindingRow], ys: list[MemoFindingRow]) -> list[MemoFindingRow]:
    """Findings in ``xs`` not matched by one in ``ys`` with the same key (counts respected)."""
    budget = Counter(f.key for f in ys)
    out = []
    for f in xs:
        if budget[f.key]:
            budget[f.key] -= 1
        else:
            out.append(f)
    return out


def memo_comparison_verdict(c: MemoComparison) -> str:
    """The one-sentence memo comparison verdict every surface shows (the CLI's ``Verdict:``
    line, the dashboard's lead): regressed or not, what got worse, the new findings; runs of
    different memo pairs are not like for like, and say so first.

    >>> from pe_eval_core.history.records import RunSummary
    >>> s = RunSummary(id=1, uid="u", kind="memo", created_at="", recorded_at="", origin="api",
    ...                portco_id="A", audience="board")
    >>> memo_comparison_verdict(MemoComparison(a=s, b=s, scores=[]))
    'No regression: no dimension got worse and no new findings.'
    >>> other = s.model_copy(update={"portco_id": "B"})
    >>> print(memo_comparison_verdict(MemoComparison(a=s, b=other, scores=[
    ...     ScoreDelta(dimension="coverage", a=1.0, b=0.75)])))
    Not like for like: the runs grade different memos (A/board, B/board). Regressed: worse on
    Coverage; 0 new findings.
    """
    lead = (
        ""
        if c.same_pair
        else f"Not like for like: the runs grade different memos ({c.a.subject}, {c.b.subject}). "
    )
    new = [f for f in c.new_findings if f.kind not in INFORMATIONAL_FINDINGS]
    if not c.has_regressions:
        return lead + "No regression: no dimension got worse and no new findings."
    worse = ", ".join(
        DIMENSION_LABELS.get(s.dimension, s.dimension) for s in c.scores if s.direction == "worse"
    )
    noun = "finding" if len(new) == 1 else "findings"
    return lead + f"Regressed: worse on {worse or 'no dimension'}; {len(new)} new {noun}."


def render_memo_comparison(c: MemoComparison) -> str:
    lines = [
        f"## Memo evaluation comparison: #{c.a.id} -> #{c.b.id}",
        "",
        f"- A: #{c.a.id} {c.a.created_at} {c.a.subject}",
        f"- B: #{c.b.id} {c.b.created_at} {c.b.subject}",
    ]
    if not c.same_pair:
        lines.append("- note: the runs grade different memo pairs")
    lines.append(
        f"- memo {'changed' if c.memo_changed else 'unchanged'}, "
        f"source {'changed' if c.source_changed else 'unchanged'}"
    )
    lines += ["", f"**Verdict:** {memo_comparison_verdict(c)}"]
    lines += ["", "| Dimension | A | B | Delta | |", "|---|---|---|---|---|"]
    for s in c.scores:
        delta = "" if s.delta is None else f"{s.delta * 100:+.1f} pts"
        lines.append(f"| {s.dimension} | {_rate(s.a)} | {_rate(s.b)} | {delta} | {s.direction} |")
    for title, group in (("New findings", c.new_findings), ("Resolved", c.resolved_findings)):
        lines += ["", f"### {title} ({len(group)})", ""]
        lines += [
            f"- {f.kind} [{f.opportunity_id or 'memo'}{'.' + f.field if f.field else ''}] "
            f"{f.raw!r}: {f.message or ''}".rstrip()
            for f in group
        ] or ["- none"]
    return "\n".join(lines) + "\n"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"
