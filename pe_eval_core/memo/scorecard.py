"""The memo scorecard as one self-contained HTML page (no external assets, no script).

Rendered by jinja2 with autoescape on: every string that comes from a memo or source reaches
the page escaped. The prose is split into plain and marked segments here, so the template only
ever prints text, never builds markup from input.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment
from markupsafe import Markup, escape

from pe_eval_core.grading.scorecard import template_environment
from pe_eval_core.memo.explain import lowest_dimension
from pe_eval_core.memo.plain import nearest_text
from pe_eval_core.memo.result import Mark, MemoEvaluation, OpportunityRow
from pe_eval_core.memo.verdict import KIND_LABELS, VerdictThresholds, memo_verdict
from pe_eval_core.tone import dimension_tone
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of prose, plain (``mark`` None) or one marked figure/entity."""

    text: str
    mark: Mark | None = None
    bold: bool = False
    """Inside a markdown ``**bold**`` run (the asterisks themselves are not kept)."""

    @property
    def hover(self) -> str:
        return "" if self.mark is None else hover_text(self.mark)


def hover_text(m: Mark) -> str:
    """What a marked figure or entity shows on hover: its verdict and the source field."""
    head = f"{m.what} ({m.kind}) {m.status}" if m.kind else f"{m.what} {m.status}"
    if m.source_path:
        return f"{head}: {m.source_path} = {m.source_value}"
    return f"{head}: no source field"


def segments(text: str, marks: list[Mark]) -> list[Segment]:
    """Split ``text`` at the marks' spans and at ``**`` (overlapping marks are dropped).

    >>> [(s.text, s.bold, s.mark is not None) for s in segments("a **b** c", [])]
    [('a ', False, False), ('b', True, False), (' c', False, False)]
    """
    pieces: list[tuple[str, Mark | None]] = []
    pos = 0
    for m in sorted(marks, key=lambda m: (m.start, -m.end)):
        if m.start < pos or m.end > len(text):
            continue
        if m.start > pos:
            pieces.append((text[pos : m.start], None))
        pieces.append((text[m.start : m.end], m))
        pos = m.end
    if pos < len(text):
        pieces.append((text[pos:], None))
    out: list[Segment] = []
    bold = False
    for piece, mark in pieces:
        runs = piece.split("**")
        for i, run in enumerate(runs):
            if i:
                bold = not bold
            if run:
                out.append(Segment(run, mark, bold))
    return out


def prose_html(text: str, marks: list[Mark]) -> Markup:
    """One prose block as HTML: the same split as ``segments``, written straight to HTML, with
    every piece of input text through ``html.escape``. (A long memo has tens of thousands of
    segments; building them as objects, or looping over them in the template, would dominate
    the render time.)

    >>> prose_html("**<b>** & $1M", [])
    Markup('<strong>&lt;b&gt;</strong> &amp; $1M')
    """
    return Markup(_prose_html(text, marks))


def _prose_html(text: str, marks: list[Mark]) -> str:
    out: list[str] = []
    append = out.append
    special = _SPECIAL
    plain = special(text) is None  # then no piece of it needs escaping
    bold = False
    pos = 0
    size = len(text)
    for m in sorted(marks, key=_mark_order) if len(marks) > 1 else marks:
        start, end = m.start, m.end
        if start < pos or end > size:
            continue
        if start > pos:
            bold = _runs(append, text[pos:start], "", "", bold, plain)
        status: str = m.status
        hover = hover_text(m)
        if special(hover) is not None:
            hover = _escape(hover)
        if status not in _STATUSES and special(status) is not None:
            status = _escape(status)
        opening = f'<span class="m {status}" title="{hover}">'
        bold = _runs(append, text[start:end], opening, "</span>", bold, plain)
        pos = end
    if pos < size:
        _runs(append, text[pos:], "", "", bold, plain)
    return "".join(out)


def _runs(
    append: Callable[[str], None], piece: str, opening: str, closing: str, bold: bool, plain: bool
) -> bool:
    """Append ``piece`` (escaped unless ``plain``: known to need none), wrapped in
    ``opening``/``closing``, split at ``**`` into bold and plain runs; return whether the
    text after it is bold."""
    if "**" not in piece:  # one run
        if piece:
            if not plain:
                piece = _escape(piece)
            body = f"{opening}{piece}{closing}" if opening else piece
            append(f"<strong>{body}</strong>" if bold else body)
        return bold
    first = True
    for run in piece.split("**"):
        if first:
            first = False
        else:
            bold = not bold
        if run:
            if not plain:
                run = _escape(run)
            body = f"{opening}{run}{closing}" if opening else run
            append(f"<strong>{body}</strong>" if bold else body)
    return bold


_SPECIAL = re.compile("[&<>\"']").search
"""Finds a character ``html.escape`` would change (most prose pieces have none)."""
_escape = html.escape
_STATUSES = frozenset({"grounded", "derived", "ungrounded", "misattributed", "exempt"})
"""Mark statuses (nothing in them to escape)."""


def _mark_order(m: Mark) -> tuple[int, int]:
    return m.start, -m.end


class _UnmarkedCache(dict[str, str]):
    """``_prose_html(text, [])`` by text, each computed once."""

    def __missing__(self, text: str) -> str:
        value = self[text] = _prose_html(text, [])
        return value


class _EscapeCache(dict[str, str]):
    """``str(markupsafe.escape(text))`` by text, each computed once."""

    def __missing__(self, text: str) -> str:
        value = self[text] = str(escape(text))
        return value


def _opportunity_row(r: OpportunityRow, escaped: dict[str, str] | None = None) -> str:
    """One row of the opportunities table (the template's markup, autoescaped the same way)."""
    esc = escape if escaped is None else escaped.__getitem__
    in_source = "yes" if r.in_source else '<span class="bad">no (phantom)</span>'
    if r.addressed:
        addressed = '<span class="ok">yes</span>'
    elif r.in_source:
        addressed = '<span class="bad">no</span>'
    else:
        addressed = "–"
    return (
        f'  <tr>\n    <td class="kind">{esc(r.id)}</td><td>{esc(r.archetype or "")}</td>'
        f"<td>{esc(r.cohort)}</td>\n    <td>{in_source}</td>\n    <td>{addressed}</td>\n"
        f'    <td class="num">{_int(r.figures_cited)}/{_int(r.figures_total)}</td>\n'
        f'    <td class="num">{_int(r.entities_grounded)}/{_int(r.entities_total)}</td>\n'
        f'    <td class="num">{_int(r.findings)}</td>\n  </tr>\n'
    )


def _int(value: int) -> str:
    """An int as autoescape prints it (``escape`` of anything else, to stay the same)."""
    return str(value) if type(value) is int else str(escape(value))


def _environment() -> Environment:
    env = template_environment("pe_eval_core.memo")
    env.filters["nearest"] = nearest_text  # the nearest value in the figure's own format
    return env


def render_scorecard_html(
    evaluation: MemoEvaluation, thresholds: VerdictThresholds | None = None
) -> str:
    """The one-glance scorecard: score tiles, weakest dimension, per-opportunity table,
    findings, consistency table and the prose with every figure and entity marked."""
    ev = evaluation
    scores = ev.scores.model_dump()
    verdict = memo_verdict(ev, thresholds)
    tiles = [
        {
            "name": d,
            "label": DIMENSION_LABELS[d],
            "value": scores[d],
            # coloured by the verdict's rule (a dimension that misses its bound is red)
            "tone": dimension_tone(d, scores[d], verdict.thresholds).value,
            "context": ev.score_context(d),
            "lower_is_better": d == "hallucination_rate",
        }
        for d in DIMENSIONS
    ]
    by_block: dict[tuple[str, str], list[Mark]] = {}
    for m in ev.marks:
        by_block.setdefault((m.opportunity_id, m.field), []).append(m)
    # The two long parts of the page (one row per opportunity, one block per prose field) are
    # written here rather than looped over in the template: at 10,000 opportunities the
    # template's per-value attribute lookups and escapes would be most of the render time.
    # ``escape`` is the template's own autoescape, so the page is byte-for-byte the same.
    escaped = _EscapeCache()  # ids and field names repeat: each escaped once
    unmarked = _UnmarkedCache()  # so do whole blocks (section templates) with no mark
    get = by_block.get
    parts: list[str] = []
    append = parts.append
    for b in ev.prose:
        text = b.text
        if not text.strip():
            continue
        marks = get((b.opportunity_id, b.field))
        append(
            f'<div class="prose"><span class="where">{escaped[b.opportunity_id]} · '
            f"{escaped[b.field]}</span>"
            f"{_prose_html(text, marks) if marks else unmarked[text]}</div>\n"
        )
    prose = Markup("".join(parts))
    rows = Markup("".join([_opportunity_row(r, escaped) for r in ev.opportunities]))
    lowest_name, lowest_sentence = lowest_dimension(ev)
    return (
        _environment()
        .get_template("scorecard.html.j2")
        .render(
            ev=ev,
            tiles=tiles,
            lowest_name=lowest_name,
            lowest_sentence=lowest_sentence,
            verdict=verdict,
            kind_labels=KIND_LABELS,
            memo_file=Path(ev.memo_path).name,
            source_file=Path(ev.source_path).name,
            opportunity_rows=rows,
            prose_blocks=prose,
        )
    )


# --- the marked prose for other surfaces (the dashboard embeds it) ---------------------------


def marked_prose_html(text: str, marks: Sequence[Mark]) -> str:
    """One prose block with every figure and entity marked exactly as the HTML scorecard marks
    it: ``<span class="m {status}" title="{hover}">``, ``**bold**`` as ``<strong>``, every piece
    of input text escaped. Style it with :func:`mark_css`; key it with :func:`mark_legend_html`.

    >>> m = Mark("opp_01", "narrative", 5, 10, "$5.2M", "figure", "ungrounded", "usd")
    >>> print(marked_prose_html("Lost $5.2M <b>", [m]))
    Lost <span class="m ungrounded" title="figure (usd) ungrounded: no source field">$5.2M</span>
    &lt;b&gt;
    """
    return _prose_html(text, list(marks))


def _template_source() -> str:
    env = _environment()
    assert env.loader is not None
    return env.loader.get_source(env, "scorecard.html.j2")[0]


@lru_cache(maxsize=8)
def mark_css(scope: str = "") -> str:
    """The scorecard's own CSS rules for marks (``.m`` and ``.m.<status>``), read from its
    template so an embedding page colours marks exactly as the HTML does; each selector is
    prefixed with ``scope`` (e.g. ``".pe-prose "``) to keep the rules off the rest of a page.

    >>> print(mark_css(".x ").splitlines()[1])
    .x .m.grounded { background: #d9f2dc; }
    """
    rules = re.findall(r"^\s*(\.m[ .][^{]*\{[^}]*\})\s*$", _template_source(), re.M)
    return "\n".join(f"{scope}{rule}" for rule in rules)


@lru_cache(maxsize=1)
def mark_legend_html() -> str:
    """The scorecard's legend of mark statuses (its own markup, read from its template).

    >>> 'class="m misattributed">mis-attributed<' in mark_legend_html()
    True
    """
    found = re.search(r'<div class="legend">.*?</div>', _template_source(), re.S)
    assert found is not None, "the scorecard template lost its legend"
    return found.group(0)
