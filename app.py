"""pe-eval dashboard entrypoint: page config, the shared sidebar, and st.navigation routing.

Run with ``python3 -m streamlit run app.py``; it opens on the bundled demo data with no API key.

First paint: this file imports only light modules (Streamlit and ``ui``'s links, state,
layout and error helpers; tests/ui/test_first_paint.py keeps it so), so the frame (sidebar,
navigation) is on screen at once; a page's own code (pandas, altair, the grader, the
scenario runner, the history store) is then imported behind a progress state, once per
process (:func:`load_page_code`), and the page loads its data after drawing its title.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

# A local file: a Material icon name as page_icon makes the browser fetch it from the internet.
# (A comment, not a docstring: Streamlit's magic would print a bare string on every page.)
FAVICON = Path(__file__).resolve().parent / "static" / "favicon.png"
st.set_page_config(page_title="pe-eval", page_icon=str(FAVICON), layout="wide")

# The first page a fresh server serves loads the grader, pandas and the charts (seconds on a
# busy machine): say so in the main area at once instead of leaving it blank. Warm runs find
# the modules loaded and draw nothing here.
BOOT = st.empty()
if "ui.views" not in sys.modules:
    BOOT.info(
        "Starting pe-eval: loading the grader and the charts…", icon=":material/hourglass_top:"
    )

from pe_eval_core.errors import AccessDeniedError  # noqa: E402 (after the first paint)
from ui import access, links, responsive, state  # noqa: E402
from ui.errors import md_code, show_error  # noqa: E402


def persisted_text_input(label: str, store: str, widget: str, default: str, help: str) -> str:
    """A text input whose value is kept under ``store`` (a plain session key) between runs.

    Streamlit drops a widget's state when the widget is not rendered in a run (an exception on
    a page, a test session that starts on another page); seeding the input from ``store`` and
    writing back keeps the user's folder choice whatever happens to the widget.
    """
    value = st.text_input(label, value=st.session_state.get(store, default), key=widget, help=help)
    st.session_state[store] = value
    if not value.strip():
        st.caption(f"Blank: using the default {md_code(default)}.")
    return value


def shared_path(store: str, widget: str, default: str, what: str) -> None:
    """Keep a member's sidebar path inside the shared folders: a path outside them is refused
    (the error says why) and the default is used instead (``ui.access.require_path``)."""
    try:
        access.require_path(state.resolve(st.session_state.get(store) or default), what)
    except AccessDeniedError as err:
        show_error(err)
        st.session_state[store] = default


def render_sidebar() -> None:
    """Data folder, scenarios file and a reload button, shared by every page."""
    with st.sidebar:
        st.caption("Inputs")
        persisted_text_input(
            "Data folder",
            state.Sidebar.DATA_DIR,
            state.Sidebar.DATA_DIR_INPUT,
            state.default_data_dir(),
            "Folder holding explain_<portco>_<audience>.json memos and "
            "dx_report_<portco>.json sources. Relative paths start at the repository root.",
        )
        shared_path(
            state.Sidebar.DATA_DIR,
            state.Sidebar.DATA_DIR_INPUT,
            state.default_data_dir(),
            "data folder",
        )
        persisted_text_input(
            "Scenarios file",
            state.Sidebar.SCENARIOS_FILE,
            state.Sidebar.SCENARIOS_FILE_INPUT,
            state.default_scenarios_file(),
            "A Mimic scenarios export (JSON array or {'scenarios': [...]}).",
        )
        shared_path(
            state.Sidebar.SCENARIOS_FILE,
            state.Sidebar.SCENARIOS_FILE_INPUT,
            state.default_scenarios_file(),
            "scenarios file",
        )
        reload = st.button(
            "Reload data",
            key=state.Sidebar.RELOAD,
            icon=":material/refresh:",
            help="Re-read every file and re-score (clears the caches).",
        )
    if reload:
        from ui import data

        data.clear_caches()
        st.toast("Caches cleared; files re-read.", icon=":material/refresh:")


def build_navigation() -> StreamlitPage:
    """The five pages, the memo scorecard first (the deal team's landing page)."""
    pages = [
        st.Page(
            "app_pages/memo_scorecard.py",
            title="Memo scorecard",
            icon=":material/fact_check:",
            default=True,
        ),
        st.Page("app_pages/portfolio.py", title="Portfolio", icon=":material/grid_view:"),
        st.Page(
            "app_pages/document_scorecard.py",
            title="Document scorecard",
            icon=":material/description:",
        ),
        st.Page(
            "app_pages/scenario_eval.py", title="Scenario evaluation", icon=":material/science:"
        ),
        st.Page("app_pages/run_history.py", title="History", icon=":material/history:"),
    ]
    return st.navigation(pages)


# Each page's view module (what its page file runs) and the progress text shown while it is
# first imported. (A comment, not a docstring: Streamlit's magic would print a bare string.)
PAGE_CODE = {
    "Memo scorecard": ("ui.views.scorecard", "Loading the memo scorecard…"),
    "Portfolio": ("ui.views.portfolio", "Loading the portfolio…"),
    "Document scorecard": ("ui.views.documents", "Loading the document scorecard…"),
    "Scenario evaluation": ("ui.views.scenarios", "Loading the scenario page…"),
    "History": ("ui.views.history", "Loading the run history…"),
}


def load_page_code(title: str) -> None:
    """Import the page's view module behind a spinner the first time this process shows it
    (seconds on a fresh server); a no-op afterwards."""
    module, message = PAGE_CODE.get(title, (None, ""))
    if module is None or module in sys.modules:
        return
    with st.spinner(message):
        importlib.import_module(module)


responsive.page_css()
BOOT.empty()  # a login form (access.gate stops there) never sits under the start-up notice
access.gate()  # a dashboard served to others shows nothing before a login
render_sidebar()
page = build_navigation()
links.route(on_landing_page=page.title == "Memo scorecard")
responsive.close_sidebar_on_phone(page.title)
load_page_code(page.title)
page.run()
