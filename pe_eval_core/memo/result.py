"""The typed result of grading one memo: scores, totals, findings, marks, consistency detail.

Every surface (seed dict, JSON sidecar, HTML scorecard, CLI, dashboard, MCP) serialises this one
model, so they can never disagree about what the grader found.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.wording import DIMENSIONS


class Scores(BaseModel):
    """The four headline scores, each in [0, 1]."""

    model_config = ConfigDict(frozen=True)

    citation_accuracy: float
    """Cited figures / figures (1.0 when the prose carries no counted figure)."""
    hallucination_rate: float
    """Ungrounded entities / entities (0.0 when the prose names no entity); lower is better."""
    coverage: float
    """Source opportunities addressed / source opportunities (1.0 for an empty source)."""
    consistency: float
    """Agreeing headline comparisons / comparisons (source total + readable siblings)."""


class Totals(BaseModel):
    """The counts behind the scores (the seed's ``totals`` block)."""

    model_config = ConfigDict(frozen=True)

    figures_total: int
    figures_cited: int
    entities_total: int
    entities_grounded: int
    opps_in_source: int
    opps_addressed: int


class FindingKind(StrEnum):
    """What a finding is about. Every finding is data; none is raised."""

    UNGROUNDED_FIGURE = "ungrounded_figure"
    """A figure no source field of its kind supports within tolerance (not cited)."""
    MISATTRIBUTED_FIGURE = "misattributed_figure"
    """A figure supported only by another opportunity's field (still cited)."""
    DERIVED_FIGURE = "derived_figure"
    """Strict mode only: a figure that only a derivation of source fields explains (uncited)."""
    SIGN_MISMATCH = "sign_mismatch"
    """An explicitly negative figure whose only matches are positive source values (not cited)."""
    UNGROUNDED_ENTITY = "ungrounded_entity"
    """A named entity absent from the source's entity universe (a hallucination)."""
    MISATTRIBUTED_ENTITY = "misattributed_entity"
    """An entity that belongs only to another opportunity (still grounded)."""
    TEMPLATE_EXEMPT = "template_exempt"
    """A figure inside a configured template constant: shown, not counted."""
    PHANTOM_OPPORTUNITY = "phantom_opportunity"
    """A memo opportunity id that the source does not contain."""
    DROPPED_OPPORTUNITY = "dropped_opportunity"
    """A source opportunity the memo omits or leaves with empty prose."""
    HEADLINE_MISMATCH = "headline_mismatch"
    """The memo's headline disagrees (beyond tolerance) with its source total or a sibling."""
    UNREADABLE_SIBLING = "unreadable_sibling"
    """A sibling memo that could not be read; named, not counted."""
    PORTCO_MISMATCH = "portco_mismatch"
    """The memo's ``portco_id`` differs from the source's: probably the wrong source file."""
    UNREADABLE_FIGURE = "unreadable_figure"
    """A figure written with more digits than any value holds (hundreds): no source field can
    ground it; counted as a figure not cited, never passed over."""
    FILE_NAME_MISMATCH = "file_name_mismatch"
    """The memo's ``portco_id`` differs from the company its file is named for
    (``explain_Zzz_board.json`` saying ``MortgageCo``): its outputs are named from the file."""
    ID_CASE_MISMATCH = "id_case_mismatch"
    """A memo id that matches one source id only when case is ignored (``OPP_01`` for
    ``opp_01``): graded as that opportunity, and reported."""
    WRONG_QUANTITY = "wrong_quantity"
    """A figure whose value is that of a field of another role than the one its wording
    claims ("$0 of annual loss" where only the projected outcome is 0 is not this: a zero is
    never matched across roles): not cited; ``nearest_path`` is the field it matches,
    ``expected_path`` the field of the role it claims."""
    EMPTY_PLACEHOLDER = "empty_placeholder"
    """The prose prints an empty value where its template expects one (``the action — __ —``,
    an unfilled ``{action}``, ``[TODO ...]``): a producer defect, located, in no score."""
    HEADER_MISMATCH = "header_mismatch"
    """A sidecar field that restates its source (``ebitda_baseline_usd``) disagrees with it
    beyond the headline tolerance: the memo was generated against a stale map or altered.
    In no score; keeps the memo from circulating."""
    DUPLICATE_OPPORTUNITY = "duplicate_opportunity"
    """The memo explains the same opportunity more than once: every entry is graded (its
    blocks are labelled ``narrative#2`` ...), and reported."""


class Finding(BaseModel):
    """One thing the grader wants a human to look at, located precisely."""

    # built on the first finding, not at import (a clean memo has none; the evaluation's
    # validator reads findings through its own inline schema): start-up
    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: FindingKind
    opportunity_id: str | None = None
    """The memo opportunity whose prose holds the finding (None for memo-level findings)."""
    field: str | None = None
    """The prose block (``narrative``, ``rollout`` ...) or the JSON field concerned."""
    start: int | None = None
    """Character span within that prose block (``text[start:end] == raw``)."""
    end: int | None = None
    raw: str = ""
    message: str
    nearest_value: float | str | None = None
    """The closest source value of the same kind (figures) or the matched value (entities)."""
    nearest_path: str | None = None
    """JSON path of ``nearest_value`` in the source, e.g. ``opportunities[1].n``."""
    other_opportunity_id: str | None = None
    """For mis-attributions: the opportunity the value really belongs to."""
    expected_path: str | None = None
    """For a wrong quantity: the field of the role the figure's wording claims."""
    expected_value: float | None = None
    """That field's value."""


MarkStatus = Literal["grounded", "derived", "ungrounded", "misattributed", "exempt"]


class _Lightweight:
    """A frozen slots dataclass that answers ``model_dump`` like the pydantic models.

    Used for the two result types a long memo has tens of thousands of (marks and prose
    blocks): a pydantic instance costs ~1.1 KB and ~2 us, a slots dataclass ~180 B and less
    than 1 us. Pydantic still serialises, validates (on load) and documents them as fields.
    """

    __slots__ = ()

    def model_dump(self, mode: str = "python", **_: object) -> dict[str, str | int | float | None]:
        """The fields as a dict (all values are JSON-native, so both modes agree)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Mark(_Lightweight):
    """One figure or entity in the prose, with its verdict and the source field behind it."""

    opportunity_id: str
    field: str
    start: int
    end: int
    raw: str
    what: Literal["figure", "entity"]
    status: MarkStatus
    kind: str = ""
    """Figure kind (``usd``, ``percent`` ...) or entity category (``segment value`` ...)."""
    source_path: str | None = None
    source_value: float | str | None = None


class OpportunityRow(BaseModel):
    """One line of the per-opportunity table: source opportunities first, then phantoms."""

    model_config = ConfigDict(frozen=True)

    id: str
    archetype: str | None = None
    cohort: str = ""
    """Segment values joined by `` × `` (from the source; from the memo for phantoms)."""
    in_source: bool
    addressed: bool
    figures_total: int = 0
    figures_cited: int = 0
    entities_total: int = 0
    entities_grounded: int = 0
    findings: int = 0
    """Number of findings located in this opportunity."""


class SiblingHeadline(BaseModel):
    """Another memo on the same portco and its headline, or why it could not be read."""

    model_config = ConfigDict(frozen=True)

    path: str
    audience: str | None = None
    headline: float | None = None
    agrees: bool | None = None
    """None when the sibling was unreadable (and so not counted)."""
    error: str | None = None


class ConsistencyDetail(BaseModel):
    """How the memo's headline compares with its own source total and its siblings."""

    model_config = ConfigDict(frozen=True)

    note: str
    memo_headline: float | None = None
    source_total: float | None = None
    source_total_path: str | None = None
    """Where ``source_total`` came from (the field, or the sum of opportunity impacts)."""
    agrees_with_source: bool | None = None
    siblings: list[SiblingHeadline] = Field(default_factory=list)
    comparisons: int = 0
    agreeing: int = 0


@dataclass(frozen=True, slots=True)
class ProseBlock(_Lightweight):
    """One prose block of the memo, kept so UIs can render it with its marks."""

    opportunity_id: str
    field: str
    text: str


class SeedResult(TypedDict):
    """What the seed's ``eval_pe_output`` returns (``MemoEvaluation.seed_dict``)."""

    report_path: str
    json_path: str
    portco_id: str
    audience: str
    scores: dict[str, float]
    """The four scores by name, in ``DIMENSIONS`` order."""
    totals: dict[str, int]
    """``Totals`` as a plain dict."""
    consistency_note: str


class VerdictSummary(BaseModel):
    """The verdict on a memo as data (``pe_eval_core.memo.verdict.Verdict.summary``): what the
    JSON sidecar, ``memo --json`` and the gate carry, so a reader of any of them sees the same
    headline, issues and score strings as the HTML and the dashboard."""

    model_config = ConfigDict(frozen=True)

    ready: bool
    headline: str
    """``Ready to circulate`` or ``Not ready: 3 issues``."""
    issue_count: int
    issues: list[str]
    """Each issue as a plain sentence, in the order every surface lists them."""
    failures: list[str]
    """One line per threshold missed."""
    thresholds: list[str]
    """The thresholds the verdict was given, in words."""
    scores: dict[str, str]
    """The four scores as every surface prints them (``87.5%``), by dimension."""


class MemoEvaluation(BaseModel):
    """Everything the grader found about one memo, in one serialisable object."""

    model_config = ConfigDict(frozen=True)

    portco_id: str
    audience: str
    memo_path: str
    source_path: str
    memo_sha256: str
    source_sha256: str
    grader_version: str
    evaluated_at: str
    """UTC timestamp, ISO 8601."""
    scores: Scores
    totals: Totals
    opportunities: list[OpportunityRow]
    findings: list[Finding]
    marks: list[Mark]
    consistency: ConsistencyDetail
    prose: list[ProseBlock]
    config: GraderConfig = Field(default_factory=GraderConfig)
    report_path: str | None = None
    """Set by ``write_outputs`` on the copy it serialises."""
    json_path: str | None = None
    html_sha256: str | None = None
    """The sha256 of the HTML written with this sidecar (the pair's commit record)."""
    verdict: VerdictSummary | None = None
    """Set by ``write_outputs`` (and the JSON download): the verdict under the thresholds the
    files were written with, the same as the HTML's."""

    def seed_dict(
        self, report_path: str | os.PathLike[str], json_path: str | os.PathLike[str]
    ) -> SeedResult:
        """The seed's exact return shape for ``eval_pe_output``."""
        return {
            "report_path": str(report_path),
            "json_path": str(json_path),
            "portco_id": self.portco_id,
            "audience": self.audience,
            "scores": {name: float(getattr(self.scores, name)) for name in DIMENSIONS},
            "totals": {k: int(v) for k, v in self.totals.model_dump().items()},
            "consistency_note": self.consistency.note,
        }

    def score_context(self, dimension: str) -> str:
        """The n/total behind a score, in words: ``"23/25 figures cited"``."""
        t = self.totals
        if dimension == "citation_accuracy":
            return f"{t.figures_cited}/{t.figures_total} figures cited"
        if dimension == "hallucination_rate":
            bad = t.entities_total - t.entities_grounded
            return f"{bad}/{t.entities_total} entities ungrounded"
        if dimension == "coverage":
            return f"{t.opps_addressed}/{t.opps_in_source} opportunities addressed"
        if dimension == "consistency":
            c = self.consistency
            return f"{c.agreeing}/{c.comparisons} headline comparisons agree"
        raise ValueError(f"unknown dimension {dimension!r}")

    def findings_of(self, *kinds: FindingKind) -> list[Finding]:
        """Findings of the given kinds, in report order."""
        wanted = set(kinds)
        return [f for f in self.findings if f.kind in wanted]
