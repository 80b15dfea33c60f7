"""Shareable links: every view of the dashboard has a URL (``st.query_params``).

``?page=scorecard&portco=X&audience=board`` opens that memo's scorecard, ``?page=portfolio``
the heatmap, ``?page=scenarios`` the scenario page, ``?page=history`` the run list,
``?run=ID`` a recorded run on the History page (any reference the history reads: ``latest``,
``latest~1``, a run uid) and ``?run=ID&scenario=NAME`` that run with one scenario drilled
into and scrolled into view; ``?page=scenarios&run=ID`` opens a scenario run on the scenario
page (the address bar after a run there). A user can paste
such a link into a chat; a CI comment can point at ``?run=ID``.

The rules live here and nowhere else: :func:`requested_page` reads a link, :func:`sync` keeps
the address bar in step with what the page shows, and :func:`is_new` tells a page whether the
link in the address bar is one it has not applied yet (a pasted link, a click-through) or only
the echo of its own last :func:`sync` (the user changed a widget since).
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

PAGE_FILES: dict[str, str] = {
    "scorecard": "app_pages/memo_scorecard.py",
    "portfolio": "app_pages/portfolio.py",
    "scenarios": "app_pages/scenario_eval.py",
    "history": "app_pages/run_history.py",
    "documents": "app_pages/document_scorecard.py",
}
"""``?page=`` names and the page file each opens (the scorecard is the landing page)."""

KEYS = ("page", "portco", "audience", "run", "scenario", "doc")
"""The query parameters the dashboard reads and writes; others are left alone."""

SYNCED = "links.synced"
"""Session key: the parameters this session last wrote, per page (see :func:`is_new`)."""


def requested_page(params: Mapping[str, str]) -> str | None:
    """The page a link asks for: ``run`` alone means History (``page=scenarios`` with a run is
    the scenario page); an unknown ``page`` means none.

    >>> requested_page({"run": "12", "scenario": "x"}), requested_page({"page": "portfolio"})
    ('history', 'portfolio')
    >>> requested_page({"page": "scenarios", "run": "3"})
    'scenarios'
    >>> requested_page({"page": "nope"}) is None, requested_page({}) is None
    (True, True)
    """
    page = params.get("page")
    if params.get("run") and page != "scenarios":
        return "history"
    return page if page in PAGE_FILES else None


def run_ref(params: Mapping[str, str]) -> str | None:
    """``?run=`` as the history reads a run reference (an id, ``latest``, ``latest~1`` or a
    run uid), or None.

    >>> run_ref({"run": " 7 "}), run_ref({"run": ""}), run_ref({})
    ('7', None, None)
    """
    raw = (params.get("run") or "").strip()
    return raw or None


def link(**params: str | int | None) -> str:
    """The query string of a view (``None`` values left out), for captions and tests.

    >>> link(page="scorecard", portco="Mortgage Co", audience="board")
    '?page=scorecard&portco=Mortgage+Co&audience=board'
    >>> link(run=3, scenario=None)
    '?run=3'
    """
    from urllib.parse import urlencode

    return "?" + urlencode({k: str(v) for k, v in params.items() if v not in (None, "")})


def full(query: str) -> str:
    """The whole URL of a view (``http://host:port/path?query``) to copy into a chat; the query
    alone when the browser's address is unknown (a test session)."""
    base = st.context.url
    return f"{base.split('?', 1)[0]}{query}" if base else query


def current() -> dict[str, str]:
    """The dashboard's parameters in the address bar now."""
    return {k: st.query_params[k] for k in KEYS if k in st.query_params}


def is_new(page: str) -> bool:
    """True when the address bar holds a link for ``page`` this session has not yet applied.

    A page applies the link (sets its widgets from it) only then, so a widget the user has
    changed since the last :func:`sync` is never reset by the stale link.
    """
    params = current()
    if requested_page(params) != page:
        return False
    synced = st.session_state.get(SYNCED, {})
    return synced.get(page) != params


def sync(page: str, **params: str | int | None) -> None:
    """Make the address bar show this view (and remember it as applied); a no-op when it
    already does, so an unchanged rerun writes nothing."""
    want = {"page": page} | {k: str(v) for k, v in params.items() if v not in (None, "")}
    if page == "history" and "run" in want:
        want.pop("page")  # ``?run=ID`` alone is the canonical link to a run
    if current() != want:
        for key in KEYS:
            if key in st.query_params and key not in want:
                del st.query_params[key]
        for key, value in want.items():
            if st.query_params.get(key) != value:
                st.query_params[key] = value
    synced = dict(st.session_state.get(SYNCED, {}))
    synced[page] = want
    st.session_state[SYNCED] = synced


def go(page: str, **params: str | int | None) -> None:
    """Switch to ``page`` with its link in the address bar (the page applies it)."""
    query = {"page": page} | {k: str(v) for k, v in params.items() if v not in (None, "")}
    if page == "history" and "run" in query:
        query.pop("page")
    synced = dict(st.session_state.get(SYNCED, {}))
    synced.pop(page, None)  # the target page must treat this link as new
    st.session_state[SYNCED] = synced
    st.switch_page(PAGE_FILES[page], query_params=query)


def route(on_landing_page: bool) -> None:
    """On the landing page, follow a link that asks for another page (a fresh deep link).

    Only from the landing page: a page reached by the sidebar's navigation is never sent
    elsewhere by a stale parameter.
    """
    want = requested_page(current())
    if want is None or not on_landing_page or want == "scorecard":
        return
    st.switch_page(PAGE_FILES[want], query_params=current())
