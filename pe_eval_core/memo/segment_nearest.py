"""The source's value for the column an invented segment value stands in for.

A memo that writes ``**FL × Debt consolidation**`` for a cohort the source keys as
``{"state": "AL", "loan_purpose": "Debt consolidation"}`` has invented ``FL``; the reader's next
question is "what should it say?". The column is the piece's position in the cohort label when
the label has one piece per segment column, else the columns no other piece of the label names;
a state named in plain prose stands for the column holding states. The finding then carries
that column's value as its nearest value (``AL``) and the column's path
(``opportunities[2].segment.state``), like a figure's nearest source field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pe_eval_core.memo.plain_names import US_STATES
from pe_eval_core.memo.result import Finding, FindingKind
from pe_eval_core.memo.source_names import normalize

if TYPE_CHECKING:
    from pe_eval_core.memo.models import OpportunityMap
    from pe_eval_core.memo.result import ProseBlock

_BOLD = re.compile(r"\*\*(?P<inner>[^*\n]+?)\*\*|__(?P<under>[^_\n]+?)__")
_SPLIT = re.compile(r"\s*×\s*|\s+[xX]\s+")


def _is_state(value: str) -> bool:
    return value.upper() in US_STATES or value.title() in US_STATES.values()


def _label_pieces(text: str, start: int) -> tuple[list[str], int] | None:
    """The pieces of the cohort label (bold, split on ``×``) holding ``start``, and the index
    of the piece that holds it; None outside a cohort label."""
    for m in _BOLD.finditer(text):
        group = "inner" if m.group("inner") is not None else "under"
        s, e = m.span(group)
        if not s <= start < e:
            continue
        pieces: list[str] = []
        index, pos = -1, s
        for sep in [*_SPLIT.finditer(text, s, e), None]:
            end = sep.start() if sep is not None else e
            if pos <= start < max(end, pos + 1):
                index = len(pieces)
            pieces.append(text[pos:end].strip())
            pos = sep.end() if sep is not None else e
        return (pieces, index) if len(pieces) > 1 and index >= 0 else None
    return None


def segment_columns(
    text: str, start: int, raw: str, segment: dict[str, Any]
) -> list[tuple[str, str]]:
    """The (column, source value) pairs an invented segment value at ``start`` stands in for.

    >>> seg = {"state": "AL", "loan_purpose": "Debt consolidation"}
    >>> segment_columns("Cohort key: **FL × Debt consolidation**.", 14, "FL", seg)
    [('state', 'AL')]
    >>> segment_columns("**GA × Retail × Debt consolidation**", 7, "Retail", seg)
    [('state', 'AL')]
    >>> segment_columns("Borrowers in Texas default more.", 13, "Texas", seg)
    [('state', 'AL')]
    >>> segment_columns("no label here", 0, "x", seg)
    []
    """
    columns = [
        (str(k), str(v)) for k, v in segment.items() if v is not None and not isinstance(v, dict)
    ]
    columns = [(k, v) for k, v in columns if not v.startswith("[")]
    if not columns:
        return []
    found = _label_pieces(text, start)
    if found is None:
        if _is_state(raw):
            return [(k, v) for k, v in columns if _is_state(v)]
        return []
    pieces, index = found
    if len(pieces) == len(columns):
        return [columns[index]]
    named = {normalize(p) for i, p in enumerate(pieces) if i != index}
    return [(k, v) for k, v in columns if normalize(v) not in named]


def with_segment_nearest(
    findings: Sequence[Finding], prose: Iterable[ProseBlock], source: OpportunityMap
) -> list[Finding]:
    """``findings`` with every invented segment value given the source's value(s) for its
    column as its nearest value (the others unchanged)."""
    blocks = {(b.opportunity_id, b.field): b.text for b in prose}
    where = {o.id: i for i, o in enumerate(source.opportunities)}
    out: list[Finding] = []
    for f in findings:
        i = where.get(f.opportunity_id or "")
        text = blocks.get((f.opportunity_id or "", f.field or ""))
        if (
            f.kind is not FindingKind.UNGROUNDED_ENTITY
            or f.nearest_value is not None
            or i is None
            or text is None
            or f.start is None
        ):
            out.append(f)
            continue
        columns = segment_columns(text, f.start, f.raw, source.opportunities[i].segment)
        if columns:
            f = f.model_copy(
                update={
                    "nearest_value": ", ".join(v for _, v in columns),
                    "nearest_path": f"opportunities[{i}].segment.{columns[0][0]}",
                }
            )
        out.append(f)
    return out
