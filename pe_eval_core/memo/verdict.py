"""The verdict on one graded memo: can it be circulated, and if not, what to fix first.

*Ready to circulate* only when every dimension meets its threshold, nothing is
mis-attributed (a number quoted under the wrong opportunity counts as cited, so no score
catches it) and no template slot is left empty. Otherwise *Not ready: N issues*, each issue a
plain sentence a deal-team member can act on. The thresholds are the gate's
(:class:`VerdictThresholds`, read from the same spec as ``pe-eval gate --memo-thresholds``);
the default is the *pass* band: perfect scores.

Every surface (CLI text and ``--json``, ``memo --all``, the HTML scorecard, the JSON sidecar,
the gate, the MCP server, the dashboard's scorecard, downloads and Portfolio) calls
:func:`memo_verdict`, so they agree. The rule itself is :func:`decide_verdict`, which the
other document kinds' verdict (``pe_eval_core.documents.verdict.document_verdict``) calls
too, with the same thresholds; thresholds a surface is given (``--fail-under``,
``--max-hallucination``, the gate's ``--memo-thresholds``) go into :class:`VerdictThresholds`
and nowhere else. The exit status of ``pe-eval memo`` is 1 exactly when the verdict is *not
ready*. Template constants and unreadable siblings are shown elsewhere but never counted here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pe_eval_core.memo.plain import (
    Cohorts,
    cohort_names,
    nearest_text,
    opportunity_name,
    shown_raw,
)
from pe_eval_core.memo.result import Finding, FindingKind, Scores, VerdictSummary
from pe_eval_core.thresholds import MEMO_BOUNDS, parse_thresholds
from pe_eval_core.wording import (
    DIMENSION_LABELS,
    DIMENSIONS,
    LOWER_IS_BETTER,
    count_of,
    fmt_number,
    fmt_pct,
    fmt_usd,
)

if TYPE_CHECKING:
    from pe_eval_core.memo.result import MemoEvaluation


class Scored(Protocol):
    """Anything graded on the four dimensions (a memo's or another document's evaluation)."""

    @property
    def scores(self) -> Scores: ...


READY = "Ready to circulate"
EPS = 1e-12

KIND_LABELS: Mapping[str, str] = {
    FindingKind.UNGROUNDED_FIGURE: "Figure not in the source",
    FindingKind.MISATTRIBUTED_FIGURE: "Figure from another opportunity",
    FindingKind.SIGN_MISMATCH: "Figure with the wrong sign",
    FindingKind.UNGROUNDED_ENTITY: "Name not in the source",
    FindingKind.MISATTRIBUTED_ENTITY: "Name from another opportunity",
    FindingKind.TEMPLATE_EXEMPT: "Template wording (not counted)",
    FindingKind.PHANTOM_OPPORTUNITY: "Opportunity not in the source",
    FindingKind.DROPPED_OPPORTUNITY: "Opportunity left out",
    FindingKind.HEADLINE_MISMATCH: "Headline disagrees",
    FindingKind.UNREADABLE_SIBLING: "Other memo unreadable (not counted)",
    FindingKind.PORTCO_MISMATCH: "Wrong source company",
    FindingKind.FILE_NAME_MISMATCH: "Memo file named for another company",
    FindingKind.ID_CASE_MISMATCH: "Opportunity id in the wrong case",
    FindingKind.DUPLICATE_OPPORTUNITY: "Opportunity explained twice",
    FindingKind.WRONG_QUANTITY: "Figure of another quantity",
    FindingKind.EMPTY_PLACEHOLDER: "Empty value in the prose",
    FindingKind.HEADER_MISMATCH: "Memo header disagrees with the source",
    FindingKind.UNREADABLE_FIGURE: "Figure too long to read",
}
"""What each finding kind is called on every human-facing surface."""

NOT_COUNTED = frozenset({FindingKind.TEMPLATE_EXEMPT, FindingKind.UNREADABLE_SIBLING})
"""Findings shown for information, never counted against a score or the verdict."""

MISATTRIBUTED = frozenset({FindingKind.MISATTRIBUTED_FIGURE, FindingKind.MISATTRIBUTED_ENTITY})

ALWAYS_BLOCKING = frozenset(
    {FindingKind.EMPTY_PLACEHOLDER, FindingKind.HEADER_MISMATCH, FindingKind.UNREADABLE_FIGURE}
)
"""Findings that keep a memo from circulating whatever the thresholds: an empty template slot
(``the action — __ —``) or a header figure that disagrees with the source (the EBITDA
baseline) scores in no dimension, and a figure too long to read can be checked by no one (it
lowers citation accuracy too); no reader should receive any of them."""

DIMENSION_KINDS: Mapping[str, frozenset[FindingKind]] = {
    "citation_accuracy": frozenset(
        {
            FindingKind.UNGROUNDED_FIGURE,
            FindingKind.SIGN_MISMATCH,
            FindingKind.WRONG_QUANTITY,
            FindingKind.UNREADABLE_FIGURE,
        }
    ),
    "hallucination_rate": frozenset({FindingKind.UNGROUNDED_ENTITY}),
    "coverage": frozenset({FindingKind.DROPPED_OPPORTUNITY}),
    "consistency": frozenset({FindingKind.HEADLINE_MISMATCH}),
}
"""The findings that lower each dimension (what to fix when it misses its threshold)."""

FIELD_LABELS: Mapping[str, str] = {
    "projected_impact_usd_annual": "projected impact",
    "total_projected_impact_usd_annual": "total projected impact",
    "outcome_total_usd_annual": "annual outcome",
    "outcome_mean_usd": "average outcome per account",
    "ebitda_baseline_usd": "EBITDA baseline",
    "default_rate": "default rate",
    "persistence_score": "persistence score",
    "persistence_quarters_out_of_total": "persistent quarters",
    "difficulty_score_1_to_5": "difficulty score",
    "n": "number of accounts",
    "risk_of_inaction": "risk of inaction",
    "counterfactual": "counterfactual",
    "rollout": "rollout",
    "narrative": "narrative",
}
"""Source and memo field names as a reader would say them."""

_INDEXED = re.compile(r"^opportunities\[(\d+)\]\.")


def field_label(path: str | None) -> str:
    """A source field path in words.

    >>> field_label("opportunities[1].projected_impact_usd_annual")
    'projected impact'
    >>> field_label("segment.grade"), field_label(None)
    ('segment grade', 'source field')
    """
    if not path:
        return "source field"
    leaf = _INDEXED.sub("", path.rsplit(":", 1)[-1])
    if leaf in FIELD_LABELS:
        return FIELD_LABELS[leaf]
    words = re.sub(r"\[\d+\]", "", leaf).replace(".", " ").replace("_", " ")
    return re.sub(r"\b(usd|annual)\b", "", words).strip() or leaf


@dataclass(frozen=True)
class VerdictThresholds:
    """The bound on each dimension (hallucination a maximum, the rest minimums) and the most
    mis-attributed figures/entities allowed. Default: the pass band (perfect) and none."""

    minimums: Mapping[str, float] = field(
        default_factory=lambda: {"citation_accuracy": 1.0, "coverage": 1.0, "consistency": 1.0}
    )
    max_hallucination: float = 0.0
    max_misattributed: int = 0

    @classmethod
    def from_spec(cls, spec: str | None, max_misattributed: int = 0) -> VerdictThresholds:
        """The gate's spec (``"citation=1.0,coverage=90%,hallucination=0.05"``) over the
        defaults: dimensions it does not name keep their pass-band bound.

        >>> t = VerdictThresholds.from_spec("coverage=90%, hallucination=0.05")
        >>> t.minimums["coverage"], t.minimums["citation_accuracy"], t.max_hallucination
        (0.9, 1.0, 0.05)
        """
        given = parse_thresholds(spec, names=MEMO_BOUNDS, input="memo_thresholds")
        return cls.from_bounds(given, max_misattributed)

    @classmethod
    def from_bounds(
        cls, bounds: Mapping[str, float], max_misattributed: int | None = None
    ) -> VerdictThresholds:
        """Bounds by dimension (``hallucination_rate`` a maximum, the rest minimums) over the
        pass band; ``None`` mis-attributions means the default, none allowed. The one place a
        surface's thresholds (``--fail-under``, ``--max-hallucination``, the gate's) become
        the verdict's.

        >>> t = VerdictThresholds.from_bounds({"coverage": 0.5, "hallucination_rate": 0.1})
        >>> t.bound("coverage"), t.bound("consistency"), t.bound("hallucination_rate")
        (0.5, 1.0, 0.1)
        """
        base = cls()
        mins = dict(base.minimums)
        mins.update((d, v) for d, v in bounds.items() if d not in LOWER_IS_BETTER)
        return cls(
            minimums=mins,
            max_hallucination=bounds.get("hallucination_rate", base.max_hallucination),
            max_misattributed=base.max_misattributed
            if max_misattributed is None
            else max_misattributed,
        )

    def bound(self, dim: str) -> float:
        return self.max_hallucination if dim in LOWER_IS_BETTER else self.minimums.get(dim, 0.0)

    def meets(self, dim: str, value: float) -> bool:
        if dim in LOWER_IS_BETTER:
            return value <= self.max_hallucination + EPS
        return value >= self.bound(dim) - EPS

    def describe(self) -> list[str]:
        """Each threshold in words, in dimension order, then the mis-attribution bound.

        >>> VerdictThresholds().describe()[:2]
        ['Citation accuracy at least 100%', 'Hallucination rate at most 0%']
        """
        out = []
        for dim in DIMENSIONS:
            op = "at most" if dim in LOWER_IS_BETTER else "at least"
            out.append(f"{DIMENSION_LABELS[dim]} {op} {fmt_pct(self.bound(dim))}")
        out.append(f"Mis-attributed figures or names: at most {self.max_misattributed}")
        return out


@dataclass(frozen=True)
class Verdict:
    """The answer every surface shows: ready or not, the issues to fix, and each bound missed."""

    ready: bool
    issues: list[str]
    thresholds: VerdictThresholds
    failed_dimensions: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """One line per bound missed (``Coverage 75% is below the required 100%``)."""
    misattributed: list[str] = field(default_factory=list)
    """The raw text of each mis-attributed figure or name (counted against the bound)."""

    @property
    def headline(self) -> str:
        """``Ready to circulate`` or ``Not ready: 3 issues``."""
        if self.ready:
            return READY
        return f"Not ready: {count_of(len(self.issues), 'issue')}"

    @property
    def misattributed_over(self) -> bool:
        """More mis-attributed figures or names than the thresholds allow."""
        return len(self.misattributed) > self.thresholds.max_misattributed

    def summary(self, ev: Scored) -> VerdictSummary:
        """The verdict as data (the JSON sidecar's, ``memo --json``'s and the gate's), with the
        four scores as every surface prints them."""
        scores = ev.scores.model_dump()
        return VerdictSummary(
            ready=self.ready,
            headline=self.headline,
            issue_count=len(self.issues),
            issues=list(self.issues),
            failures=list(self.failures),
            thresholds=self.thresholds.describe(),
            scores={d: fmt_pct(scores[d]) for d in DIMENSIONS},
        )


def _owner(path: str | None, opp: str, source_ids: list[str], cohorts: Cohorts) -> str:
    """``its`` when the source field belongs to ``opp``; else that opportunity by name."""
    m = _INDEXED.match(path or "")
    if m and int(m.group(1)) < len(source_ids) and source_ids[int(m.group(1))] != opp:
        return f"the {{label}} of {opportunity_name(source_ids[int(m.group(1))], cohorts)}"
    return "its {label}"


def issue_sentence(
    f: Finding, source_ids: list[str] | None = None, cohorts: Cohorts | None = None
) -> str:
    """One finding as a plain sentence: what is wrong, where (the cohort, its id second), and
    the nearest source value in the figure's own format (``plain.nearest_text``).

    >>> from pe_eval_core.memo.result import Finding
    >>> print(issue_sentence(Finding(kind="ungrounded_figure", opportunity_id="opp_02", raw="$6.8M",
    ...     message="", nearest_value=4236000.0,
    ...     nearest_path="opportunities[1].projected_impact_usd_annual"),
    ...     ["opp_01", "opp_02"], {"opp_02": "C × 60 months"}))
    $6.8M in C × 60 months (opp_02) matches no source figure; the nearest is its projected
    impact, $4.2M.
    >>> print(issue_sentence(Finding(kind="misattributed_figure", opportunity_id="opp_01",
    ...     raw="$-7.9M", message="", nearest_value=-7912000.0, other_opportunity_id="opp_02",
    ...     nearest_path="opportunities[1].outcome_total_usd_annual"), ["opp_01", "opp_02"],
    ...     {"opp_01": "GA × Branch", "opp_02": "C × 60 months"}))
    −$7.9M in GA × Branch (opp_01) is the annual outcome of C × 60 months (opp_02), −$7.9M,
    not of GA × Branch.
    """
    names = cohorts or {}
    kind = f.kind
    if kind is FindingKind.HEADER_MISMATCH or kind is FindingKind.HEADLINE_MISMATCH:
        return _header_sentence(f, field_label(f.nearest_path))
    if kind in (FindingKind.MISATTRIBUTED_FIGURE, FindingKind.MISATTRIBUTED_ENTITY):
        return _misattributed_sentence(f, names)
    place = opportunity_name(f.opportunity_id, names)
    raw = shown_raw(f.raw)
    near = nearest_text(f)
    label = field_label(f.nearest_path)
    if kind is FindingKind.UNGROUNDED_FIGURE:
        opp = f.opportunity_id or "the memo"
        owner = _owner(f.nearest_path, opp, source_ids or [], names).format(label=label)
        tail = f"; the nearest is {owner}, {near}" if near else ""
        return f"{raw} in {place} matches no source figure{tail}."
    if kind is FindingKind.WRONG_QUANTITY:
        return _wrong_quantity_sentence(f, raw, place)
    if kind is FindingKind.EMPTY_PLACEHOLDER:
        where = f"The {f.field} of {place}" if f.field else place
        return f"{where} has an empty value where the prose expects one: '{f.raw}'."
    if kind is FindingKind.SIGN_MISMATCH:
        return f"{raw} in {place} has the wrong sign: the source's {label} is {near}."
    if kind is FindingKind.UNGROUNDED_ENTITY:
        column = (f.nearest_path or "").rsplit(".", 1)[-1].replace("_", " ") or label
        tail = f"; the source's {column} for this cohort is {near}" if near else ""
        return f"'{f.raw}' in {place} names nothing in the source{tail}."
    if kind is FindingKind.DROPPED_OPPORTUNITY:
        return f"{place} is in the source but the memo leaves it out."
    return f.message


def _wrong_quantity_sentence(f: Finding, raw: str, place: str) -> str:
    """A figure that is the source's value of another quantity than its wording claims."""
    label = field_label(f.nearest_path)
    stated = f"{raw} in {place} names another quantity: it is the source's {label}, "
    stated += nearest_text(f)
    if not f.expected_path:
        return f"{stated}, and the source has no field of the quantity its wording claims."
    claimed = f.model_copy(
        update={"nearest_value": f.expected_value, "nearest_path": f.expected_path}
    )
    own = nearest_text(claimed)  # the claimed quantity's value, in the figure's own format
    return f"{stated}, while the {field_label(f.expected_path)} its wording claims is {own}."


def _misattributed_sentence(f: Finding, names: Cohorts) -> str:
    """A figure or name that belongs to another opportunity, both named by their cohort."""
    opp = f.opportunity_id or "the memo"
    place, own = opportunity_name(f.opportunity_id, names), names.get(opp, opp)
    other = "another opportunity"
    if f.other_opportunity_id:
        other = opportunity_name(f.other_opportunity_id, names)
    if f.kind is FindingKind.MISATTRIBUTED_ENTITY:
        return f"'{f.raw}' in {place} belongs to {other}, not to {own}."
    label = field_label(f.nearest_path)
    return (
        f"{shown_raw(f.raw)} in {place} is the {label} of {other}, {nearest_text(f)}, not of {own}."
    )


def _money(value: float | str | None) -> str:
    return fmt_usd(value) if isinstance(value, int | float) else fmt_number(value)


def _header_sentence(f: Finding, label: str) -> str:
    """A memo-level figure (the headline, a restated header field) that disagrees."""
    raw = shown_raw(f.raw)
    if f.kind is FindingKind.HEADER_MISMATCH:
        return f"The memo's {label} is {raw}; its source states {_money(f.nearest_value)}."
    path = f.nearest_path or ""
    if ".json:" in path:
        sibling = path.split(":", 1)[0]
        return (
            f"The headline {raw} disagrees with the other memo {sibling}, "
            f"which states {_money(f.nearest_value)}."
        )
    return f"The headline {raw} disagrees with the source total, {_money(f.nearest_value)}."


def verdict_lines(verdict: Verdict) -> list[str]:
    """The verdict as text lines: the headline, each issue, the thresholds (CLI and MCP)."""
    return [
        f"Verdict: {verdict.headline}",
        *(f"  - {issue}" for issue in verdict.issues),
        f"  (thresholds: {'; '.join(verdict.thresholds.describe())})",
    ]


def decide_verdict(
    scores: Mapping[str, float],
    behind: Callable[[str], list[str]],
    misattributed: Sequence[tuple[str, str]],
    thresholds: VerdictThresholds | None = None,
    blocking: Sequence[str] = (),
) -> Verdict:
    """The one verdict rule, for a memo and for every other document kind: ready only when
    every dimension meets its threshold and mis-attributions are within bound. ``behind(dim)``
    gives the issue sentences of the counted findings that lower ``dim``; ``misattributed``
    is (raw text, issue sentence) per mis-attributed figure or name; ``blocking`` the issue
    sentences of findings that block whatever the thresholds (a memo's ``ALWAYS_BLOCKING``).
    The issues are the findings behind each failing dimension, then the mis-attributions,
    then the blocking ones (a failing dimension with no finding behind it is its own issue).

    >>> v = decide_verdict({"citation_accuracy": 0.5, "hallucination_rate": 0.0,
    ...     "coverage": 1.0, "consistency": 1.0}, lambda d: ["$2M is wrong."], [])
    >>> v.headline, v.failures
    ('Not ready: 1 issue', ['Citation accuracy 50% is below the required 100%'])
    """
    t = thresholds or VerdictThresholds()
    issues: list[str] = []
    failed: list[str] = []
    failures: list[str] = []
    for dim in DIMENSIONS:
        if t.meets(dim, scores[dim]):
            continue
        failed.append(dim)
        op = "above the allowed" if dim in LOWER_IS_BETTER else "below the required"
        value, bound = fmt_pct(scores[dim]), fmt_pct(t.bound(dim))
        failures.append(f"{DIMENSION_LABELS[dim]} {value} is {op} {bound}")
        issues.extend(behind(dim) or [f"{DIMENSION_LABELS[dim]} is {value}, {op} {bound}."])
    if len(misattributed) > t.max_misattributed:
        failures.append(
            f"Mis-attributed figures or names {len(misattributed)} is above the allowed "
            f"{t.max_misattributed}"
        )
        issues.extend(sentence for _, sentence in misattributed)
    issues.extend(s for s in blocking if s not in issues)  # listed once, under its dimension
    return Verdict(
        ready=not issues,
        issues=issues,
        thresholds=t,
        failed_dimensions=failed,
        failures=failures,
        misattributed=[raw for raw, _ in misattributed],
    )


def memo_verdict(ev: MemoEvaluation, thresholds: VerdictThresholds | None = None) -> Verdict:
    """A memo's verdict by :func:`decide_verdict`: the findings behind a dimension are those of
    its kinds (``DIMENSION_KINDS``), mis-attributions are counted against their own bound."""
    counted = [f for f in ev.findings if f.kind not in NOT_COUNTED]
    ids = [o.id for o in ev.opportunities if o.in_source]
    names = cohort_names(ev)  # every sentence names an opportunity by its cohort, id second

    def said(f: Finding) -> str:
        return issue_sentence(f, ids, names)

    return decide_verdict(
        ev.scores.model_dump(),
        lambda dim: [said(f) for f in counted if f.kind in DIMENSION_KINDS[dim]],
        [(f.raw, said(f)) for f in counted if f.kind in MISATTRIBUTED],
        thresholds,
        [said(f) for f in counted if f.kind in ALWAYS_BLOCKING],
    )
