"""Consistency: does the memo's headline agree with its own source and with sibling memos?

Siblings are the other ``explain_*.json`` files in the memo's folder whose ``portco_id``
equals the memo's (compared exactly, so ``HMDA_GA`` never picks up ``HMDA_GA2``). Every
comparison is within the configured relative tolerance (±1%). The score is agreeing
comparisons / comparisons, where the comparisons are the source total (when the source has
one) plus each readable sibling. Unreadable siblings are named in the note, not counted.
"""

from __future__ import annotations

import math
from pathlib import Path

from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.folder_index import HEADLINE_FIELD, FolderIndex
from pe_eval_core.memo.models import MemoSidecar, OpportunityMap
from pe_eval_core.memo.result import ConsistencyDetail, Finding, FindingKind, SiblingHeadline
from pe_eval_core.wording import fmt_change, fmt_usd


def agrees(a: float, b: float, rel_tol: float) -> bool:
    """Within ``rel_tol`` of the larger magnitude; a non-finite value never agrees (the loaders
    refuse them, this keeps the verdict honest for models built in code).

    >>> agrees(100.0, 100.9, 0.01), agrees(100.0, 102.0, 0.01), agrees(0.0, 0.0, 0.01)
    (True, False, True)
    >>> inf = float("inf")
    >>> agrees(inf, 1.0, 0.01), agrees(inf, inf, 0.01), agrees(float("nan"), 1.0, 0.01)
    (False, False, False)
    """
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= rel_tol * max(abs(a), abs(b)) + 1e-9


def source_total(source: OpportunityMap) -> tuple[float | None, str | None]:
    """The source's headline: its total field, else the sum of opportunity impacts."""
    if source.total_projected_impact_usd_annual is not None:
        return source.total_projected_impact_usd_annual, HEADLINE_FIELD
    impacts = [o.projected_impact_usd_annual for o in source.opportunities]
    if impacts and all(v is not None for v in impacts):
        return float(sum(v for v in impacts if v is not None)), (
            "sum(opportunities[*].projected_impact_usd_annual)"
        )
    return None, None


def read_siblings(
    memo_path: Path, portco_id: str, index: FolderIndex | None = None
) -> list[SiblingHeadline]:
    """Headlines of the other memos on ``portco_id`` in the memo's folder (unread ones too).

    ``index`` is the folder's :class:`FolderIndex` when grading a batch; without one the
    folder is scanned for this memo alone (the same siblings either way).
    """
    if index is None or index.folder != memo_path.parent:
        index = FolderIndex.of_memos(memo_path.parent)
    return index.siblings(memo_path, portco_id)


def assess_consistency(
    memo: MemoSidecar,
    memo_path: Path,
    source: OpportunityMap,
    config: GraderConfig,
    index: FolderIndex | None = None,
) -> tuple[ConsistencyDetail, list[Finding]]:
    """Compare the memo headline with the source total and every readable sibling."""
    headline = memo.total_projected_impact_usd_annual
    total, total_path = source_total(source)
    findings: list[Finding] = []
    parts: list[str] = []
    comparisons = agreeing = 0
    with_source: bool | None = None
    if total is not None:
        comparisons += 1
        with_source = agrees(headline, total, config.headline_rel_tol)
        agreeing += with_source
        if with_source:
            parts.append(f"agrees with its source total ({fmt_usd(total)})")
        else:
            off = fmt_change(headline, total)
            parts.append(f"disagrees with its source total ({fmt_usd(total)}, off by {off})")
            findings.append(
                Finding(
                    kind=FindingKind.HEADLINE_MISMATCH,
                    field=HEADLINE_FIELD,
                    raw=fmt_usd(headline),
                    message=(
                        f"Memo headline {fmt_usd(headline)} disagrees with the source total "
                        f"{fmt_usd(total)} ({fmt_change(headline, total)}): the memo was generated "
                        "against a stale OpportunityMap or altered."
                    ),
                    nearest_value=total,
                    nearest_path=total_path,
                )
            )
    else:
        parts.append("has no source total to compare with")

    siblings: list[SiblingHeadline] = []
    raw_siblings = read_siblings(memo_path, memo.portco_id, index) if config.check_siblings else []
    readable = [s for s in raw_siblings if s.error is None]
    unreadable = [s for s in raw_siblings if s.error is not None]
    sib_bits = []
    for s in raw_siblings:
        if s.error is not None or s.headline is None:
            siblings.append(s)
            continue
        ok = agrees(headline, s.headline, config.headline_rel_tol)
        siblings.append(s.model_copy(update={"agrees": ok}))
        comparisons += 1
        agreeing += ok
        label = s.audience or Path(s.path).name
        verdict = "agrees" if ok else f"disagrees, {fmt_change(s.headline, headline)} vs this memo"
        sib_bits.append(f"{label} states {fmt_usd(s.headline)}: {verdict}")
        if not ok:
            findings.append(
                Finding(
                    kind=FindingKind.HEADLINE_MISMATCH,
                    field=HEADLINE_FIELD,
                    raw=fmt_usd(headline),
                    message=(
                        f"Sibling memo {Path(s.path).name} ({label}) states {fmt_usd(s.headline)} "
                        f"against this memo's {fmt_usd(headline)}: one was generated against a "
                        "stale OpportunityMap. Regenerate both."
                    ),
                    nearest_value=s.headline,
                    nearest_path=f"{Path(s.path).name}:{HEADLINE_FIELD}",
                )
            )
    if readable:
        n_ok = sum(1 for s in siblings if s.agrees)
        parts.append(
            f"agrees with {n_ok} of {len(readable)} sibling memo{'s' if len(readable) > 1 else ''}"
            f" ({'; '.join(sib_bits)})"
        )
    elif config.check_siblings:
        parts.append("no sibling memos on this portco")
    for s in unreadable:
        findings.append(
            Finding(
                kind=FindingKind.UNREADABLE_SIBLING,
                field=HEADLINE_FIELD,
                raw=Path(s.path).name,
                message=f"Sibling {Path(s.path).name} could not be read ({s.error}); not counted.",
            )
        )
    if unreadable:
        names = ", ".join(f"{Path(s.path).name} ({s.error})" for s in unreadable)
        parts.append(f"not counted, unreadable: {names}")
    note = f"Headline {fmt_usd(headline)} " + "; ".join(parts) + "."
    return (
        ConsistencyDetail(
            note=note,
            memo_headline=headline,
            source_total=total,
            source_total_path=total_path,
            agrees_with_source=with_source,
            siblings=siblings,
            comparisons=comparisons,
            agreeing=agreeing,
        ),
        findings,
    )


HEADER_FIELDS = ("ebitda_baseline_usd",)
"""Numeric sidecar fields that restate a source field of the same name."""


def header_findings(
    memo: MemoSidecar, source: OpportunityMap, config: GraderConfig
) -> list[Finding]:
    """A ``header_mismatch`` for each sidecar field that restates its source's (the EBITDA
    baseline) and disagrees with it beyond the headline tolerance; fields either side leaves
    out are not compared."""
    out = []
    for name in HEADER_FIELDS:
        stated, truth = getattr(memo, name, None), getattr(source, name, None)
        if stated is None or truth is None or agrees(stated, truth, config.headline_rel_tol):
            continue
        out.append(
            Finding(
                kind=FindingKind.HEADER_MISMATCH,
                field=name,
                raw=fmt_usd(stated),
                nearest_value=truth,
                nearest_path=name,
                message=(
                    f"The memo's {name} {fmt_usd(stated)} disagrees with its source's "
                    f"{fmt_usd(truth)} ({fmt_change(stated, truth)}): the memo was generated "
                    "against a stale OpportunityMap or altered."
                ),
            )
        )
    return out


def consistency_score(detail: ConsistencyDetail) -> float:
    """Agreeing / comparisons; 1.0 when there is nothing to compare (stated in the note)."""
    return detail.agreeing / detail.comparisons if detail.comparisons else 1.0
