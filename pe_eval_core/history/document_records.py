"""Recording a graded document (exit proof pack, DDQ response, red flags) in the run history.

A document run is stored as a memo run (the same four dimensions, findings and per-item rows),
with the document's kind as its *audience* (``exit_proof_pack``) and its id as its *portco*,
so history, trends, comparison and the gate read it like any memo run.
"""

from __future__ import annotations

import hashlib
import uuid

from pe_eval_core.documents.results import DocumentEvaluation
from pe_eval_core.history.records import (
    UNRECORDED_ID,
    MemoFindingRow,
    MemoOpportunityRow,
    RunRecord,
    RunSummary,
    iso_utc,
    now_utc,
    resolved_path,
)


def document_record(ev: DocumentEvaluation, *, origin: str = "api") -> RunRecord:
    """A document evaluation as a history record (not stored: ``summary.id`` is 0)."""
    source = ev.sources[0] if ev.sources else None
    summary = RunSummary(
        id=UNRECORDED_ID,
        uid=uuid.uuid4().hex,
        kind="memo",
        created_at=iso_utc(ev.evaluated_at),
        recorded_at=now_utc(),
        origin=origin,
        portco_id=ev.document_id,
        audience=ev.kind.value,
        memo_path=resolved_path(ev.document_path),
        memo_sha256=ev.document_sha256,
        source_path=resolved_path(source.path) if source else None,
        source_sha256=source.sha256 if source else None,
        grader_version=f"documents-{ev.grader_version}",
        note=ev.consistency_note,
        config_digest=hashlib.sha256(ev.kind.value.encode()).hexdigest(),
        scores={"scores": ev.scores.model_dump(mode="json"), "totals": dict(ev.totals)},
        citation_accuracy=ev.scores.citation_accuracy,
        hallucination_rate=ev.scores.hallucination_rate,
        coverage=ev.scores.coverage,
        consistency=ev.scores.consistency,
    )
    findings = [
        MemoFindingRow(
            kind=f.kind.value,
            opportunity_id=f.item_id,
            field=f.field,
            start=f.start,
            end=f.end,
            raw=f.raw,
            message=f.message,
            nearest_value=f.expected,
            nearest_path=f.expected_path,
            other_opportunity_id=f.other_item_id,
        )
        for f in ev.findings
    ]
    items = [
        MemoOpportunityRow(
            opportunity_id=r.id,
            archetype=None,
            cohort=r.label,
            in_source=r.in_source,
            addressed=r.findings == 0,
            figures_total=r.checked,
            figures_cited=r.ok,
            entities_total=0,
            entities_grounded=0,
            n_findings=r.findings,
        )
        for r in ev.items
    ]
    return RunRecord(summary=summary, findings=findings, opportunities=items)
