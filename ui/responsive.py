"""Any screen: wide tables at a desk, cards on a phone, one page CSS for both.

Streamlit renders on the server and never learns the browser's width, so a table that must
read on a phone is drawn twice, and CSS picks one: the table inside a container keyed
``wide-<name>`` (hidden below :data:`PHONE_PX`), the cards inside ``cards-<name>`` (shown only
there). The cards lead with the plain-language "why" and the nearest source value (what a
reader on a phone came for), then the rest of the row; a card that stands for a clickable row
is a link to that row's view (``ui.links``).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import streamlit as st

PHONE_PX = 640
"""Below this window width tables show as cards and charts stack."""

MAX_CARDS = 60
"""Cards drawn for one table (the rest are counted, not drawn: a phone scrolls, not pages)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Card:
    """One table row as a card: a title, the lead sentence, then label/value details."""

    title: str
    lead: str = ""
    details: Sequence[tuple[str, str]] = field(default_factory=tuple)
    href: str | None = None
    """A link (``?run=3``) that opens the row's view; None: not clickable."""
    tone: str = ""
    """``pass`` / ``watch`` / ``fail`` colours the card's edge by the band; blank: neutral."""


PAGE_CSS = f"""<style>
/* Less empty space over the title: the first screen is for the answer. */
[data-testid="stMainBlockContainer"] {{ padding-top: 3.2rem; }}
.pe-cards {{ display: none; }}
@media (max-width: {PHONE_PX}px) {{
  [class*="st-key-wide-"] {{ display: none !important; }}
  .pe-cards {{ display: block; }}
  /* Blocks and columns never push the page wider than the phone. */
  [data-testid="stMainBlockContainer"] {{ padding-left: 0.8rem; padding-right: 0.8rem; }}
  [data-testid="stHorizontalBlock"] {{ flex-wrap: wrap; }}
  [data-testid="stColumn"] {{ min-width: 100% !important; }}
  [data-testid="stMainBlockContainer"] {{ padding-top: 3.4rem; }}
  [data-testid="stMainBlockContainer"] h1 {{ font-size: 1.7rem; padding-top: 0.3rem; }}
  /* A row of metric tiles reads two by two. */
  [class*="st-key-tiles-"] [data-testid="stColumn"] {{
    min-width: calc(50% - 0.5rem) !important; flex: 1 1 calc(50% - 0.5rem) !important; }}
}}
@media (min-width: {PHONE_PX + 1}px) {{
  [class*="st-key-cards-"] {{ display: none !important; }}
}}
.pe-cards .card {{ border: 1px solid #dde2ea; border-left-width: 4px; border-radius: 6px;
  padding: 0.5rem 0.7rem; margin: 0 0 0.55rem 0; background: #fff;
  overflow-wrap: anywhere; }}
.pe-cards .card.pass {{ border-left-color: #2e7d32; }}
.pe-cards .card.watch {{ border-left-color: #b26a00; }}
.pe-cards .card.fail {{ border-left-color: #c62828; }}
.pe-cards .card .title {{ font-weight: 600; font-size: 0.95rem; }}
.pe-cards .card .lead {{ margin: 0.2rem 0 0.3rem 0; font-size: 0.92rem; }}
.pe-cards .card dl {{ display: grid; grid-template-columns: max-content 1fr; gap: 0 0.6rem;
  margin: 0; font-size: 0.82rem; color: #3c4550; }}
.pe-cards .card dt {{ color: #5a6472; }}
.pe-cards .card dd {{ margin: 0; }}
.pe-cards a.card {{ display: block; color: inherit; text-decoration: none; }}
.pe-cards .more {{ font-size: 0.82rem; color: #5a6472; }}
</style>"""
"""The page's responsive rules; ``app.py`` adds them once per run (a style-only st.html takes
no room on the page)."""


def cards_html(cards: Sequence[Card], limit: int = MAX_CARDS, total: int | None = None) -> str:
    """The cards as escaped HTML (every text from an input is escaped; links stay relative).

    >>> out = cards_html([Card("opp_02 <b>", "No source figure.", [("nearest", "$4.2M")])])
    >>> out.startswith('<div class="pe-cards"><div class="card"><div class="title">opp_02 &lt;')
    True
    >>> '<div class="lead">No source figure.</div><dl><dt>nearest</dt><dd>$4.2M</dd></dl>' in out
    True
    >>> "javascript" in cards_html([Card("x", href="javascript:alert(1)")])
    False
    >>> "98 more" in cards_html([Card("a")] * 3, limit=2, total=100)
    True
    """
    parts = ['<div class="pe-cards">']
    for c in cards[:limit]:
        tone = f" {c.tone}" if c.tone in ("pass", "watch", "fail") else ""
        body = f'<div class="title">{html.escape(c.title)}</div>'
        if c.lead:
            body += f'<div class="lead">{html.escape(c.lead)}</div>'
        if c.details:
            rows = "".join(
                f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in c.details if v
            )
            body += f"<dl>{rows}</dl>"
        if c.href and c.href.startswith("?"):
            parts.append(
                f'<a class="card{tone}" href="{html.escape(c.href)}" target="_self">{body}</a>'
            )
        else:
            parts.append(f'<div class="card{tone}">{body}</div>')
    rest = (len(cards) if total is None else total) - min(len(cards), limit)
    if rest > 0:
        parts.append(
            f'<div class="more">{rest} more: open this page on a wider screen '
            "to see them all.</div>"
        )
    parts.append("</div>")
    return "".join(parts)


def table_or_cards(
    name: str, table: Callable[[], T], cards: Sequence[Card], total: int | None = None
) -> T:
    """Draw ``table()`` for wide windows and ``cards`` for phones; returns ``table()``'s value
    (a dataframe's selection event). ``total``: the rows the table holds, when the caller built
    only the first :data:`MAX_CARDS` cards (a 5,000-row table needs no 5,000 cards)."""
    with st.container(key=f"wide-{name}"):
        out = table()
    with st.container(key=f"cards-{name}"):
        st.html(cards_html(cards, total=total))
    return out


CLOSE_SIDEBAR_JS = """<script>
if (window.innerWidth <= %(px)d) {
  const button = document.querySelector(
    '[data-testid="stSidebar"] button[aria-label="Collapse sidebar"][aria-expanded="true"]');
  if (button) { button.click(); }
}
</script><!-- %(page)s -->"""
"""Closes an open sidebar on a phone (it covers the whole page there); the page name in the
comment makes each page switch a new snippet, so the script runs once per switch. It runs in
the page itself (``st.html`` with JavaScript allowed), not in an iframe: Streamlit's
``components.v1.html`` is deprecated."""

LAST_PAGE = "responsive.last_page"


def close_sidebar_on_phone(page: str) -> None:
    """After the user navigates on a phone, close the sidebar over the new page.

    Streamlit keeps the sidebar open after a navigation click, and on a phone it covers the
    page the user asked for. Only on a page switch: a user who reopens the sidebar on the
    same page keeps it open across reruns.
    """
    previous = st.session_state.get(LAST_PAGE)
    st.session_state[LAST_PAGE] = page
    if previous is None or previous == page:
        return
    with st.sidebar:
        st.html(
            CLOSE_SIDEBAR_JS % {"px": PHONE_PX, "page": html.escape(page)},
            unsafe_allow_javascript=True,
        )


def page_css() -> None:
    """Add :data:`PAGE_CSS` to the page (``app.py``, every run)."""
    st.html(PAGE_CSS)


def text(value: Any) -> str:
    """A cell as card text: blank for None/NaN.

    >>> text(None), text(float("nan")), text(3)
    ('', '', '3')
    """
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value)


def table_with_detail(
    frame: Any,
    key: str,
    *,
    column_config: dict[str, Any] | None = None,
    columns: Sequence[str] | None = None,
) -> None:
    """A table whose clicked row is written out in full under it: a cell cut by its column's
    width is one click from its whole text. ``columns``: the columns shown (default: all);
    the detail writes every non-blank cell of the row, labelled by its header."""
    shown = frame if columns is None else frame[list(columns)]
    event = st.dataframe(
        shown,
        hide_index=True,
        placeholder="",
        width="stretch",
        key=key,
        on_select="rerun",
        selection_mode="single-row",
        column_config=column_config,
    )
    rows = event.selection.rows if event is not None else []
    if not rows or rows[0] >= len(frame):
        st.caption("Click a row to read it in full.")
        return
    row = frame.iloc[rows[0]]
    labels = column_config or {}
    parts = []
    for column in frame.columns:
        value = text(row[column])
        if value:
            label = labels.get(column)
            name = label if isinstance(label, str) else (label or {}).get("label") or column
            parts.append(f"**{_md(str(name))}:** {_md(value)}")
    with st.container(key=f"detail-{key.replace('.', '-')}"):
        st.info("  \n".join(parts), icon=":material/article:")


def _md(value: str) -> str:
    """Markdown-safe text (the one escaper is ``ui.errors.md_escape``; imported late: it
    imports this module's neighbours)."""
    from ui.errors import md_escape

    return md_escape(value)
