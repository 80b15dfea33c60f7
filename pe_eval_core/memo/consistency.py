"""Consistency: does the memo's headline agree with its own source and with sibling memos?

Siblings are the other ``explain_*.json`` files in the memo's folder whose ``portco_id``
equals the memo's (compared exactly, so ``HMDA_GA`` never picks up ``HMDA_GA2``). Every
comparison is within the configured relative tolerance (±1%). The score is agreeing
comparisons / comparisons, where the comparisons are the source total (when the source has
one) plus each readable sibling. Unreadable siblings are named in the note, not counted.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pe_eval_core.errors import PeEvalError
from pe_eval_core.files import read_json
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.models import MemoSidecar, OpportunityMap
from pe_eval_core.memo.pairs import MEMO_GLOB
from pe_eval_core.memo.result import ConsistencyDetail, Finding, FindingKind, SiblingHeadline
from pe_eval_core.wording import fmt_usd

HEADLINE_FIELD = "total_projected_impact_usd_annual"


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


def _delta(a: float, b: float) -> str:
    if b == 0:
        return "n/a"
    return f"{(a - b) / abs(b) * 100:+.1f}%"


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


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_siblings(memo_path: Path, portco_id: str) -> list[SiblingHeadline]:
    """Headlines of the other memos on ``portco_id`` in the memo's folder (unread ones too)."""
    folder = memo_path.parent
    me = memo_path.resolve()
    needle = json.dumps(portco_id).encode()
    out: list[SiblingHeadline] = []
    for path in sorted(folder.glob(MEMO_GLOB)):
        if path.resolve() == me or not path.is_file():
            continue
        if not path.resolve().is_relative_to(folder.resolve()):
            out.append(SiblingHeadline(path=str(path), error="a link to outside the folder"))
            continue
        by_name = path.name.startswith(f"explain_{portco_id}_")
        if not by_name and not _mentions(path, needle):
            continue  # cannot carry this portco_id: skip parsing it
        try:
            data = read_json(path)
        except (PeEvalError, OSError) as exc:
            if by_name:
                out.append(SiblingHeadline(path=str(path), error=_reason(exc)))
            continue
        portco = data.get("portco_id") if isinstance(data, dict) else None
        if not isinstance(portco, str):
            if by_name:
                out.append(SiblingHeadline(path=str(path), error="no portco_id"))
            continue
        if portco != portco_id:
            continue
        audience = data.get("audience")
        audience = audience if isinstance(audience, str) else None
        headline = data.get(HEADLINE_FIELD)
        if not _is_number(headline):
            out.append(
                SiblingHeadline(
                    path=str(path), audience=audience, error=f"no numeric {HEADLINE_FIELD}"
                )
            )
            continue
        out.append(SiblingHeadline(path=str(path), audience=audience, headline=float(headline)))
    return out


def _mentions(path: Path, needle: bytes) -> bool:
    """Whether the file's bytes contain the JSON string ``needle`` (unreadable: True)."""
    try:
        return needle in path.read_bytes()
    except OSError:
        return True


def _reason(exc: BaseException) -> str:
    if isinstance(exc, PeEvalError):
        msg = exc.message
        if "malformed JSON at" in msg:
            return "malformed JSON at" + msg.split("malformed JSON at", 1)[1]
        return msg
    return f"unreadable ({type(exc).__name__})"


def assess_consistency(
    memo: MemoSidecar,
    memo_path: Path,
    source: OpportunityMap,
    config: GraderConfig,
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
            off = _delta(headline, total)
            parts.append(f"disagrees with its source total ({fmt_usd(total)}, off by {off})")
            findings.append(
                Finding(
                    kind=FindingKind.HEADLINE_MISMATCH,
                    field=HEADLINE_FIELD,
                    raw=fmt_usd(headline),
                    message=(
                        f"Memo headline {fmt_usd(headline)} disagrees with the source total "
                        f"{fmt_usd(total)} ({_delta(headline, total)}): the memo was generated "
                        "against a stale OpportunityMap or altered."
                    ),
                    nearest_value=total,
                    nearest_path=total_path,
                )
            )
    else:
        parts.append("has no source total to compare with")

    siblings: list[SiblingHeadline] = []
    raw_siblings = read_siblings(memo_path, memo.portco_id) if config.check_siblings else []
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
        verdict = "agrees" if ok else f"disagrees, {_delta(s.headline, headline)} vs this memo"
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


def consistency_score(detail: ConsistencyDetail) -> float:
    """Agreeing / comparisons; 1.0 when there is nothing to compare (stated in the note)."""
    return detail.agreeing / detail.comparisons if detail.comparisons else 1.0
