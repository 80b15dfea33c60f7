"""Memo prose as HTML with every figure and entity marked; all input text is escaped.

Only this module's own ``<span>``/``<strong>`` markup reaches the page: prose segments, raw
figures, field paths and source values all pass through ``html.escape`` (quotes included), and
``st.html`` sanitises once more with DOMPurify as a second line of defence.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any

STATUS_STYLE = {
    "grounded": "background:#d8eddc;border-bottom:2px solid #2e7d4f;",
    "ungrounded": "background:#f6d5d3;border-bottom:2px solid #c0392b;",
    "misattributed": "background:#fbedc9;border-bottom:2px solid #d68910;",
    "exempt": "background:#eceff3;border-bottom:2px dashed #8a94a6;",
    "found": "background:#d8eddc;border-bottom:2px solid #2e7d4f;",
    "paraphrase": "background:#dbe7f6;border-bottom:2px solid #1f3a5f;",
    "excluded": "background:#f6d5d3;border-bottom:2px solid #c0392b;",
}
STATUS_LABEL = {
    "grounded": "grounded",
    "ungrounded": "ungrounded",
    "misattributed": "mis-attributed",
    "exempt": "exempt (template constant)",
    "found": "found (strict)",
    "paraphrase": "paraphrase",
    "excluded": "excluded phrase",
}
MEMO_STATUSES = ("grounded", "ungrounded", "misattributed", "exempt")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


def _get(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def _status(mark: Any) -> str:
    status = _get(mark, "status", "")
    return str(getattr(status, "value", status))


def mark_title(mark: Any) -> str:
    """The hover text of one mark: status, kind and the source field it traces to."""
    if _get(mark, "title"):
        return str(_get(mark, "title"))
    status = STATUS_LABEL.get(_status(mark), _status(mark))
    what = _get(mark, "what", "")
    what = str(getattr(what, "value", what))
    path = _get(mark, "source_path")
    value = _get(mark, "source_value")
    where = f" → {path} = {value}" if path else " → no source field"
    return f"{what} {status}{where}"


def _bold_ranges(text: str) -> tuple[list[tuple[int, int]], set[int]]:
    """Inner ranges of ``**bold**`` runs and the positions of the ``**`` markers themselves."""
    ranges: list[tuple[int, int]] = []
    markers: set[int] = set()
    for m in _BOLD.finditer(text):
        ranges.append((m.start(1), m.end(1)))
        markers.update(range(m.start(), m.start(1)))
        markers.update(range(m.end(1), m.end()))
    return ranges, markers


def render_marked(text: str, marks: Iterable[Any], *, keep_bold: bool = True) -> str:
    """HTML for one prose block: escaped text, ``**bold**`` kept, marks wrapped in spans.

    With ``keep_bold=False`` the text is shown exactly as written (asterisks included).

    Marks that overlap an earlier one or fall outside the text are ignored (never mis-placed).

    >>> render_marked("Lost **$5.2M** <b>", [
    ...     {"start": 7, "end": 12, "raw": "$5.2M", "what": "figure",
    ...      "status": "grounded", "source_path": "opp_01.x", "source_value": -5.2e6}])
    'Lost <strong><span class="pe-mark pe-grounded" ...>$5.2M</span></strong> &lt;b&gt;'
    """
    spans: list[tuple[int, int, Any]] = []
    last_end = -1
    for mark in sorted(marks, key=lambda m: (_get(m, "start", 0), -_get(m, "end", 0))):
        start, end = int(_get(mark, "start", 0)), int(_get(mark, "end", 0))
        if start < last_end or start < 0 or end > len(text) or end <= start:
            continue
        spans.append((start, end, mark))
        last_end = end
    bold, markers = _bold_ranges(text) if keep_bold else ([], set())
    cuts = {0, len(text)}
    for start, end, _ in spans:
        cuts.update((start, end))
    for start, end in bold:
        cuts.update((start, end))
    for pos in markers:
        cuts.update((pos, pos + 1))
    points = sorted(c for c in cuts if 0 <= c <= len(text))
    span_at = {start: (end, mark) for start, end, mark in spans}
    out: list[str] = []
    i = 0
    while i < len(points) - 1:
        a = points[i]
        if a in markers and a not in span_at:
            i += 1
            continue
        is_bold = any(lo <= a < hi for lo, hi in bold)
        if a in span_at:
            end, mark = span_at[a]
            piece = "".join(ch for pos, ch in enumerate(text[a:end], a) if pos not in markers)
            status = _status(mark)
            style = STATUS_STYLE.get(status, "")
            inner = (
                f'<span class="pe-mark pe-{html.escape(status)}" style="{style}" '
                f'title="{html.escape(mark_title(mark))}">{html.escape(piece)}</span>'
            )
            while i < len(points) - 1 and points[i] < end:
                i += 1
        else:
            b = points[i + 1]
            inner = html.escape(text[a:b])
            i += 1
        out.append(f"<strong>{inner}</strong>" if is_bold else inner)
    return "".join(out)


def render_blocks(blocks: Sequence[Any], marks: Sequence[Any]) -> str:
    """All prose blocks of one opportunity, each under its field name, as one HTML fragment."""
    parts = ['<div class="pe-prose" style="line-height:1.65;font-size:0.95rem;">']
    for block in blocks:
        field = str(_get(block, "field", ""))
        text = str(_get(block, "text", "") or "")
        mine = [m for m in marks if _get(m, "field") == field]
        body = render_marked(text, mine).replace("\n", "<br>")
        parts.append(
            f'<div style="margin:0 0 0.8rem 0;"><div style="font-size:0.75rem;'
            f'text-transform:uppercase;letter-spacing:0.04em;color:#5a6472;">'
            f"{html.escape(field)}</div><div>{body}</div></div>"
        )
    parts.append("</div>")
    return "".join(parts)


def legend_html(statuses: Sequence[str] = MEMO_STATUSES) -> str:
    """A one-line colour key for the marks."""
    chips = "".join(
        f'<span style="{STATUS_STYLE[s]}padding:0 6px;margin-right:10px;">'
        f"{html.escape(STATUS_LABEL[s])}</span>"
        for s in statuses
    )
    return f'<div style="font-size:0.85rem;margin-bottom:0.5rem;">{chips}</div>'
