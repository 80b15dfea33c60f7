"""The typed result of grading one PE document (exit proof pack, DDQ response, red flags).

Every grader turns its document into :class:`Check` units (one figure, one entity, one
disclosure, one comparison each) and :class:`DocFinding` records; the shared core
(``documents.core``) computes the four scores, their n/total and the seed's return shape from
those, so no kind can compute a score its own way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pe_eval_core.memo.result import Scores, VerdictSummary
from pe_eval_core.wording import DIMENSIONS


class DocumentKind(StrEnum):
    """The document kinds pe-eval grades (the memo's own grader is ``pe_eval_core.memo``)."""

    MEMO = "memo"
    EXIT_PROOF_PACK = "exit_proof_pack"
    DDQ_RESPONSE = "ddq_response"
    CIM_REDFLAGS = "cim_redflags"


KIND_TITLES = {
    DocumentKind.MEMO: "Explainer memo",
    DocumentKind.EXIT_PROOF_PACK: "Exit proof pack",
    DocumentKind.DDQ_RESPONSE: "DDQ response",
    DocumentKind.CIM_REDFLAGS: "10-K/CIM red flags",
}

Dimension = Literal["citation_accuracy", "hallucination_rate", "coverage", "consistency", "info"]


class DocFindingKind(StrEnum):
    """What a document finding is about; each belongs to one dimension (``FINDING_DIMENSION``)."""

    FIELD_CONTRADICTS_SOURCE = "field_contradicts_source"
    """A structured field whose value differs from the source field of its role."""
    UNGROUNDED_FIGURE = "ungrounded_figure"
    """A prose figure that no source field of its role supports within tolerance."""
    WRONG_QUANTITY = "wrong_quantity"
    """A figure equal only to a field of another role (a projected outcome called a loss)."""
    SIGN_MISMATCH = "sign_mismatch"
    """A figure whose magnitude matches but whose sign contradicts the source."""
    MISATTRIBUTED_FIGURE = "misattributed_figure"
    """A figure supported only by another item's field (still cited)."""
    BROKEN_DERIVATION = "broken_derivation"
    """A value the document derives (sensitivity cell, total, rule flag) that its inputs do
    not give."""
    WRONG_AGGREGATE = "wrong_aggregate"
    """A DDQ figure equal to no aggregate of its cited artifacts (the nearest is reported)."""
    MISSING_VALUE = "missing_value"
    """A quoted source string left empty or altered (an empty action where the map has one)."""
    EXCERPT_NOT_FOUND = "excerpt_not_found"
    """A red-flag excerpt that is not verbatim anywhere in the filing."""
    EXCERPT_MISPLACED = "excerpt_misplaced"
    """A red-flag excerpt found verbatim, but not at its stated item and paragraph."""
    FIGURE_NOT_IN_FILING = "figure_not_in_filing"
    """A figure of a red flag's excerpt or rationale that the filing does not state."""
    UNGROUNDED_ENTITY = "ungrounded_entity"
    """A name, label, id or value the source does not hold."""
    MISATTRIBUTED_ENTITY = "misattributed_entity"
    """A name that belongs to another item of the source (still grounded)."""
    HALLUCINATED_ARTIFACT = "hallucinated_artifact"
    """A cited or named artifact file that the knowledge base does not hold."""
    WRONG_FLAG_TYPE = "wrong_flag_type"
    """A red flag whose type's defining fact is not in its excerpt (e.g. a geographic share
    labelled customer concentration)."""
    HALLUCINATED_FLAG = "hallucinated_flag"
    """A red flag whose excerpt or figures are not in the filing."""
    DROPPED_ITEM = "dropped_item"
    """A source opportunity the document does not document."""
    PHANTOM_ITEM = "phantom_item"
    """A document item (claim) with no source counterpart."""
    UNCITED_ANSWER = "uncited_answer"
    """A DDQ question answered with no existing citation (or not answered)."""
    UNCOVERED_DISCLOSURE = "uncovered_disclosure"
    """A filing disclosure of a flag family that no flag covers."""
    HEADLINE_MISMATCH = "headline_mismatch"
    """A headline that disagrees with its source total, a derived total or a sibling."""
    COUNT_MISMATCH = "count_mismatch"
    """A stated count (claims documented, summary counts) that differs from the list."""
    SEVERITY_RULE = "severity_rule"
    """A red flag whose severity breaks the producer's stated severity rule."""
    INCONSISTENT_QUANTITY = "inconsistent_quantity"
    """The same quantity stated with different values in two places."""
    TEMPLATE_EXEMPT = "template_exempt"
    """A stated parameter (threshold, band, scale), not a citation: shown, not counted."""
    UNREADABLE_SIBLING = "unreadable_sibling"
    """A sibling document that could not be read; named, not counted."""


_DIMENSION_KINDS: dict[Dimension, tuple[DocFindingKind, ...]] = {
    "citation_accuracy": (
        DocFindingKind.FIELD_CONTRADICTS_SOURCE,
        DocFindingKind.UNGROUNDED_FIGURE,
        DocFindingKind.WRONG_QUANTITY,
        DocFindingKind.SIGN_MISMATCH,
        DocFindingKind.MISATTRIBUTED_FIGURE,
        DocFindingKind.BROKEN_DERIVATION,
        DocFindingKind.WRONG_AGGREGATE,
        DocFindingKind.MISSING_VALUE,
        DocFindingKind.EXCERPT_NOT_FOUND,
        DocFindingKind.EXCERPT_MISPLACED,
        DocFindingKind.FIGURE_NOT_IN_FILING,
    ),
    "hallucination_rate": (
        DocFindingKind.UNGROUNDED_ENTITY,
        DocFindingKind.MISATTRIBUTED_ENTITY,
        DocFindingKind.HALLUCINATED_ARTIFACT,
        DocFindingKind.WRONG_FLAG_TYPE,
        DocFindingKind.HALLUCINATED_FLAG,
        DocFindingKind.PHANTOM_ITEM,
    ),
    "coverage": (
        DocFindingKind.DROPPED_ITEM,
        DocFindingKind.UNCITED_ANSWER,
        DocFindingKind.UNCOVERED_DISCLOSURE,
    ),
    "consistency": (
        DocFindingKind.HEADLINE_MISMATCH,
        DocFindingKind.COUNT_MISMATCH,
        DocFindingKind.SEVERITY_RULE,
        DocFindingKind.INCONSISTENT_QUANTITY,
    ),
    "info": (DocFindingKind.TEMPLATE_EXEMPT, DocFindingKind.UNREADABLE_SIBLING),
}

FINDING_DIMENSION: dict[DocFindingKind, Dimension] = {
    kind: dim for dim, kinds in _DIMENSION_KINDS.items() for kind in kinds
}
"""The dimension each finding kind counts against (``info``: shown, never counted)."""

STILL_COUNTED_OK = frozenset(
    {DocFindingKind.MISATTRIBUTED_FIGURE, DocFindingKind.MISATTRIBUTED_ENTITY}
)
"""Findings whose unit still counts as good (as in the memo grader: cited, but reported)."""


class DocFinding(BaseModel):
    """One thing a human should look at, located in the document, with the source behind it."""

    model_config = ConfigDict(frozen=True)

    kind: DocFindingKind
    dimension: Dimension
    item_id: str | None = None
    """The claim, question or flag the finding is in (None for document-level findings)."""
    field: str | None = None
    """JSON path of the field in the document (``provenance_ledger[0].methodology_note``)."""
    start: int | None = None
    """Character span in that field's text (``text[start:end] == raw``) for prose figures."""
    end: int | None = None
    raw: str = ""
    """The offending text, exactly as the document has it."""
    message: str
    expected: float | str | None = None
    """The source value the document should have stated (nearest of its role)."""
    expected_path: str | None = None
    """Where that value is: ``<file>: <json path>`` or an aggregate's description."""
    other_item_id: str | None = None
    """For mis-attributions: the item the value really belongs to."""


CheckWhat = Literal[
    "figure",
    "field",
    "derivation",
    "aggregate",
    "quote",
    "excerpt",
    "entity",
    "artifact",
    "flag",
    "item",
    "question",
    "disclosure",
    "comparison",
]


@dataclass(frozen=True, slots=True)
class Check:
    """One unit a score counts: a figure, an entity, a disclosure or a comparison, with its
    verdict and the source value behind it. Kept as a slots dataclass (thousands per DDQ)."""

    dimension: Dimension
    what: CheckWhat
    ok: bool
    item_id: str | None
    field: str
    raw: str
    role: str = ""
    """The quantity a figure claims (``current_outcome``, ``impact`` ...) or the entity's
    category (``segment value``, ``evidence row id`` ...)."""
    source_path: str | None = None
    source_value: float | str | None = None
    start: int | None = None
    end: int | None = None

    def model_dump(self, mode: str = "python", **_: object) -> dict[str, Any]:
        """The fields as a dict (JSON-native values), like the pydantic models."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class ItemRow(BaseModel):
    """One line of the per-item table: a claim, a question or a flag."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str = ""
    in_source: bool = True
    checked: int = 0
    ok: int = 0
    findings: int = 0


class ConsistencyRow(BaseModel):
    """One consistency comparison: what was compared, the two values, the verdict."""

    model_config = ConfigDict(frozen=True)

    what: str
    stated: float | str | None = None
    expected: float | str | None = None
    expected_path: str | None = None
    agrees: bool | None = None
    """None when the other side could not be read (shown, not counted)."""


class SourceRef(BaseModel):
    """A file the document was graded against, with its digest."""

    model_config = ConfigDict(frozen=True)

    role: str
    """``opportunity_map``, ``bx_corpus``, ``knowledge_base``, ``filing``, ``pack_html`` ..."""
    path: str
    sha256: str | None = None


class DocumentEvaluation(BaseModel):
    """Everything the grader found about one document, in one serialisable object."""

    model_config = ConfigDict(frozen=True)

    kind: DocumentKind
    document_id: str
    """The portco, fund or filing the document is about (``MortgageCo``)."""
    document_path: str
    document_sha256: str
    sources: list[SourceRef] = Field(default_factory=list)
    grader_version: str
    evaluated_at: str
    scores: Scores
    totals: dict[str, int]
    """The seed's six totals (``figures_total`` ... ``opps_addressed``), then the kind's own."""
    items: list[ItemRow] = Field(default_factory=list)
    findings: list[DocFinding] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    consistency_note: str = ""
    consistency_rows: list[ConsistencyRow] = Field(default_factory=list)
    coverage_label: str = "items"
    """What coverage counts, in words (``opportunities``, ``questions``, ``disclosures``)."""
    report_path: str | None = None
    json_path: str | None = None
    html_sha256: str | None = None
    verdict: VerdictSummary | None = None
    """Set by ``write_document_outputs`` (and the dashboard's JSON download): the verdict
    (``documents.verdict.document_verdict``) under the thresholds the pair was written with."""

    def seed_dict(
        self, report_path: str | os.PathLike[str], json_path: str | os.PathLike[str]
    ) -> dict[str, Any]:
        """The seed's return shape (``report_path``, ``json_path``, ``scores``, ``totals``,
        ``consistency_note``) with the kind and document id, and the kind's totals added."""
        return {
            "report_path": str(report_path),
            "json_path": str(json_path),
            "kind": self.kind.value,
            "document_id": self.document_id,
            "scores": {name: float(getattr(self.scores, name)) for name in DIMENSIONS},
            "totals": dict(self.totals),
            "consistency_note": self.consistency_note,
        }

    def score_context(self, dimension: str) -> str:
        """The n/total behind a score, in words."""
        t = self.totals
        if dimension == "citation_accuracy":
            return f"{t['figures_cited']}/{t['figures_total']} figures and citations traced"
        if dimension == "hallucination_rate":
            bad = t["entities_total"] - t["entities_grounded"]
            return f"{bad}/{t['entities_total']} names ungrounded"
        if dimension == "coverage":
            return f"{t['opps_addressed']}/{t['opps_in_source']} {self.coverage_label} covered"
        if dimension == "consistency":
            agree = t.get("comparisons_agreeing", 0)
            return f"{agree}/{t.get('comparisons', 0)} comparisons agree"
        raise ValueError(f"unknown dimension {dimension!r}")

    def counted_findings(self) -> list[DocFinding]:
        """Findings that count against a score (not the informational ones)."""
        return [f for f in self.findings if f.dimension != "info"]
