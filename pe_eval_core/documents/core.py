"""The shared core every document grader fills: checks, findings and comparisons in, the four
scores, the seed's totals and the per-item table out.

A kind's grader never computes a score: it records what it checked (``Ledger.check``), what is
wrong (``Ledger.finding``) and what it compared (``Ledger.compare``); ``Ledger.evaluation``
turns that into a :class:`DocumentEvaluation` by one rule for every kind:

* citation accuracy = good citation checks / citation checks (1.0 when there are none);
* hallucination rate = bad entity checks / entity checks (0.0 when there are none);
* coverage = covered units / coverage units (1.0 when there are none);
* consistency = agreeing comparisons / comparisons (1.0 when there are none).

>>> led = Ledger()
>>> _ = led.check("citation_accuracy", "figure", True, "opp_01", "a", "$1M")
>>> _ = led.check("citation_accuracy", "figure", False, "opp_01", "b", "$2M")
>>> led.scores().citation_accuracy, led.scores().hallucination_rate
(0.5, 0.0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from pe_eval_core.documents.results import (
    FINDING_DIMENSION,
    Check,
    CheckWhat,
    ConsistencyRow,
    Dimension,
    DocFinding,
    DocFindingKind,
    DocumentEvaluation,
    DocumentKind,
    ItemRow,
    SourceRef,
)
from pe_eval_core.files import sha256_file
from pe_eval_core.memo.result import Scores

DOCUMENT_GRADER_VERSION = "1.0.0"
"""Bumped whenever a change could move a document's score on unchanged inputs."""


class Ledger:
    """What a grader checked and found, in the order it found it."""

    def __init__(self) -> None:
        self.checks: list[Check] = []
        self.findings: list[DocFinding] = []
        self.rows: list[ConsistencyRow] = []

    def finding(self, kind: DocFindingKind, message: str, **where: object) -> DocFinding:
        """Record a finding (its dimension follows from its kind) and return it."""
        if "expected" in where:
            where["expected"] = _value(where["expected"])
        f = DocFinding(kind=kind, dimension=FINDING_DIMENSION[kind], message=message, **where)  # type: ignore[arg-type]
        self.findings.append(f)
        return f

    def check(
        self,
        dimension: Dimension,
        what: CheckWhat,
        ok: bool,
        item_id: str | None,
        field: str,
        raw: str,
        **detail: object,
    ) -> Check:
        """Record one counted unit and return it."""
        if "source_value" in detail:
            detail["source_value"] = _value(detail["source_value"])
        c = Check(dimension, what, ok, item_id, field, raw, **detail)  # type: ignore[arg-type]
        self.checks.append(c)
        return c

    def compare(
        self,
        what: str,
        stated: float | str | None,
        expected: float | str | None,
        agrees: bool | None,
        *,
        kind: DocFindingKind = DocFindingKind.HEADLINE_MISMATCH,
        item_id: str | None = None,
        field: str = "",
        expected_path: str | None = None,
        message: str | None = None,
    ) -> None:
        """One consistency comparison: a row for the table, a check when it could be made
        (``agrees`` not None), and a finding when it disagrees."""
        stated, expected = _value(stated), _value(expected)
        self.rows.append(
            ConsistencyRow(
                what=what,
                stated=stated,
                expected=expected,
                expected_path=expected_path,
                agrees=agrees,
            )
        )
        if agrees is None:
            return
        raw = "" if stated is None else str(stated)
        self.check(
            "consistency",
            "comparison",
            agrees,
            item_id,
            field,
            raw,
            role=what,
            source_path=expected_path,
            source_value=expected,
        )
        if not agrees:
            self.finding(
                kind,
                message or f"{what}: the document states {stated}, expected {expected}",
                item_id=item_id,
                field=field or None,
                raw=raw,
                expected=expected,
                expected_path=expected_path,
            )

    # --- the one scoring rule ------------------------------------------------------------

    def _of(self, dimension: Dimension) -> list[Check]:
        return [c for c in self.checks if c.dimension == dimension]

    def scores(self) -> Scores:
        """The four scores by the one rule (see the module docstring)."""
        cit, hal, cov, con = (
            self._of(d)
            for d in ("citation_accuracy", "hallucination_rate", "coverage", "consistency")
        )
        return Scores(
            citation_accuracy=_share(cit, default=1.0),
            hallucination_rate=1.0 - _share(hal, default=1.0),
            coverage=_share(cov, default=1.0),
            consistency=_share(con, default=1.0),
        )

    def totals(self, extra: Mapping[str, int] | None = None) -> dict[str, int]:
        """The seed's six totals (figures = citation units, entities = named things,
        opportunities = coverage units), the comparisons, then the kind's own totals."""
        cit, hal, cov, con = (
            self._of(d)
            for d in ("citation_accuracy", "hallucination_rate", "coverage", "consistency")
        )
        out = {
            "figures_total": len(cit),
            "figures_cited": sum(c.ok for c in cit),
            "entities_total": len(hal),
            "entities_grounded": sum(c.ok for c in hal),
            "opps_in_source": len(cov),
            "opps_addressed": sum(c.ok for c in cov),
            "comparisons": len(con),
            "comparisons_agreeing": sum(c.ok for c in con),
            "findings": sum(1 for f in self.findings if f.dimension != "info"),
        }
        out.update(extra or {})
        return out

    def count(self, what: CheckWhat, dimension: Dimension | None = None) -> tuple[int, int]:
        """(total, ok) of the checks of one sort, for a kind's own totals."""
        chosen = [
            c
            for c in self.checks
            if c.what == what and (dimension is None or c.dimension == dimension)
        ]
        return len(chosen), sum(c.ok for c in chosen)

    def item_rows(self, items: Iterable[tuple[str, str, bool]]) -> list[ItemRow]:
        """One row per (id, label, in_source), with its checks and findings counted."""
        checked: Counter[str] = Counter()
        good: Counter[str] = Counter()
        for c in self.checks:
            if c.item_id is not None:
                checked[c.item_id] += 1
                good[c.item_id] += c.ok
        found = Counter(
            f.item_id for f in self.findings if f.item_id is not None and f.dimension != "info"
        )
        return [
            ItemRow(
                id=i,
                label=label,
                in_source=in_source,
                checked=checked[i],
                ok=good[i],
                findings=found[i],
            )
            for i, label, in_source in items
        ]

    def evaluation(
        self,
        *,
        kind: DocumentKind,
        document_id: str,
        document_path: Path,
        sources: list[SourceRef],
        items: Iterable[tuple[str, str, bool]],
        consistency_note: str,
        coverage_label: str,
        extra_totals: Mapping[str, int] | None = None,
    ) -> DocumentEvaluation:
        """The finished evaluation (scores and totals by the one rule)."""
        return DocumentEvaluation(
            kind=kind,
            document_id=document_id,
            document_path=str(document_path),
            document_sha256=sha256_file(document_path),
            sources=sources,
            grader_version=DOCUMENT_GRADER_VERSION,
            evaluated_at=datetime.now(UTC).isoformat(timespec="seconds"),
            scores=self.scores(),
            totals=self.totals(extra_totals),
            items=self.item_rows(items),
            findings=self.findings,
            checks=self.checks,
            consistency_note=consistency_note,
            consistency_rows=self.rows,
            coverage_label=coverage_label,
        )


def _value(x: object) -> float | str | None:
    """A value as the result models hold it: numbers as floats, anything else as text."""
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, int | float) and not isinstance(x, bool):
        return float(x)
    return str(x)


def _share(checks: list[Check], *, default: float) -> float:
    return sum(c.ok for c in checks) / len(checks) if checks else default


def source_ref(role: str, path: Path | None) -> list[SourceRef]:
    """A one-element list naming a source file with its digest (empty for None)."""
    if path is None:
        return []
    try:
        digest: str | None = sha256_file(path)
    except OSError:
        digest = None
    return [SourceRef(role=role, path=str(path), sha256=digest)]


def consistency_note(rows: list[ConsistencyRow], subject: str) -> str:
    """The one-line consistency note of the seed: what was compared and what disagreed.

    >>> consistency_note([], "headline")
    'No headline comparison could be made.'
    >>> r = ConsistencyRow(what="headline vs map total", stated=1.0, expected=2.0, agrees=False)
    >>> consistency_note([r], "headline")
    '0 of 1 headline comparisons agree; disagrees: headline vs map total.'
    """
    made = [r for r in rows if r.agrees is not None]
    if not made:
        return f"No {subject} comparison could be made."
    bad = [r.what for r in made if not r.agrees]
    head = f"{len(made) - len(bad)} of {len(made)} {subject} comparisons agree"
    if not bad:
        return head + "."
    shown = "; ".join(bad[:3]) + (f"; and {len(bad) - 3} more" if len(bad) > 3 else "")
    return f"{head}; disagrees: {shown}."
