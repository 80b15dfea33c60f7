"""Every st.session_state key the dashboard uses, namespaced by page, plus the shared defaults.

Keys live here and nowhere else so two pages can never collide on a name, and so a test can
set up any page's state without guessing strings. Session state must stay picklable
(``runner.enforceSerializableSessionState``): store plain dicts, lists, strings and numbers,
never pydantic objects or clients.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[1]
"""The repository root; relative sidebar paths resolve against it."""

DATA_DIR_ENV = "PE_EVAL_DATA_DIR"
SCENARIOS_ENV = "PE_EVAL_SCENARIOS"
DEFAULT_DATA_DIR = "finance_output"
DEFAULT_SCENARIOS = ".mimic/exports/mimic-scenarios.json"


class Access:
    """The login (``ui.access``): the visitor's role, and the form's widgets."""

    ROLE = "access.role"  # "operator" | "member", set by a successful login
    FORM = "access.form"
    SECRET = "access.secret"  # the password field (cleared on submit)
    LOGOUT = "access.logout"


class Sidebar:
    """Shared sidebar inputs, rendered by app.py on every page.

    The chosen values live under plain keys (``DATA_DIR``, ``SCENARIOS_FILE``) that the text
    inputs (``*_INPUT``) are seeded from and write back to, so the choice survives anything
    that gives the widget a new identity (a server's first run, a page switch).
    """

    DATA_DIR = "sidebar.data_dir"
    DATA_DIR_INPUT = "sidebar.data_dir_input"
    SCENARIOS_FILE = "sidebar.scenarios_file"
    SCENARIOS_FILE_INPUT = "sidebar.scenarios_file_input"
    RELOAD = "sidebar.reload"


class Scorecard:
    """Memo scorecard page."""

    MODE = "scorecard.mode"  # "Data folder" | "Upload"
    PORTCO = "scorecard.portco"
    AUDIENCE = "scorecard.audience"
    MEMO_UPLOAD = "scorecard.memo_upload"
    SOURCE_UPLOAD = "scorecard.source_upload"
    SIBLING_UPLOADS = "scorecard.sibling_uploads"  # other memos on the same portco (consistency)
    ZIP_UPLOAD = "scorecard.zip_upload"  # a zip of a folder: every pair graded with siblings
    ZIP_PICK = "scorecard.zip_pick"  # which of the zip's memos the page shows
    FINDING_KINDS = "scorecard.finding_kinds"
    FINDING_OPPS = "scorecard.finding_opps"
    FINDINGS_TABLE = "scorecard.findings_table"  # click a finding: its full text under the table
    PROSE_OPP = "scorecard.prose_opp"
    PROSE_FOR = "scorecard.prose_for"  # the memo PROSE_OPP was picked for (reset on a switch)
    WRITE = "scorecard.write"
    WRITTEN = "scorecard.written"  # list[str]: paths written by the last click
    VERDICT_SPEC = "scorecard.verdict_spec"  # the gate's memo-thresholds spec ("" = pass band)
    VERDICT_SPEC_KEPT = "scorecard.verdict_spec_kept"  # the same, kept across pages (Portfolio)


class Portfolio:
    """Portfolio page."""

    DIMENSION = "portfolio.dimension"
    TABLE = "portfolio.table"
    HEATMAP = "portfolio.heatmap"
    HEATMAP_PHONE = "portfolio.heatmap_phone"  # the same heatmap, sized for a phone
    OPEN = "portfolio.open"


class Documents:
    """Document scorecard page (exit proof packs, DDQ responses, red flags)."""

    PICK = "documents.pick"
    FINDINGS = "documents.findings"
    OPEN_MEMO = "documents.open_memo"
    DOWNLOAD_HTML = "documents.download_html"
    DOWNLOAD_JSON = "documents.download_json"
    WRITE = "documents.write"
    OPEN = "documents.open"  # the Portfolio's document table
    VERDICT_SPEC = "documents.verdict_spec"  # this page's thresholds input (Scorecard's kept)


class Scenarios:
    """Scenario evaluation page."""

    MODE = "scenarios.mode"  # "Sidebar file" | "Upload"
    FORM = "scenarios.run_form"  # the run form's expander: open or closed (kept per session)
    UPLOAD = "scenarios.upload"
    TARGET = "scenarios.target"  # "Recorded" | "Anthropic" | "HTTP"
    RESPONSES = "scenarios.responses"
    API_KEY = "scenarios.api_key"  # session memory only; never written anywhere
    MODEL = "scenarios.model"
    SKILL = "scenarios.skill"
    HTTP_URL = "scenarios.http_url"
    HTTP_TIMEOUT = "scenarios.http_timeout"
    CONCURRENCY = "scenarios.concurrency"
    REPEAT = "scenarios.repeat"  # K: every scenario runs K times (pass@k, intervals, flaky)
    JUDGE = "scenarios.judge"
    CONFIRM_LIVE = "scenarios.confirm_live"
    PAID = "scenarios.paid"  # the cost guard's last count and what it was counted for
    RUN = "scenarios.run"
    STOP = "scenarios.stop"
    RUNNING = "scenarios.running"  # True from the Run click until the run returns or stops
    STOPPED = "scenarios.stopped"  # the kept run was stopped before it finished
    RESULT = "scenarios.result"  # the last ScenarioRun as JSON text (cheap to keep and pickle)
    RESULT_VIEW = "scenarios.result_view"  # compact tables derived from RESULT (see build_view)
    RESULT_SOURCE = "scenarios.result_source"  # label of the scenarios file it came from
    F_TIER = "scenarios.filter_tier"
    F_RESULT = "scenarios.filter_result"
    F_PLATFORM = "scenarios.filter_platform"
    F_FACT = "scenarios.filter_fact"
    FAILURE = "scenarios.failure"
    RAW = "scenarios.raw_response"  # drill-down: the response as raw text instead of markdown
    TABLE = "scenarios.table"
    HISTORY_ID = "scenarios.history_id"  # the last run's id in the history (its ?run= link)
    DOWNLOADS = "scenarios.download"  # prefix of the export buttons' keys


class History:
    """History page (filters and the two runs to compare)."""

    KIND = "history.filter_kind"
    PORTCO = "history.filter_portco"
    AUDIENCE = "history.filter_audience"
    SCENARIOS = "history.filter_scenarios"
    TARGET = "history.filter_target"
    MODEL = "history.filter_model"
    RUN_A = "history.run_a"
    RUN_B = "history.run_b"
    RUNS = "history.runs"  # the runs table (click a row to open the run)
    OPEN = "history.open"  # the id of the run opened on this page (None: the list)
    BACK = "history.back"
    MANAGE = "history.manage"  # the run the list's "Delete or pin a run" actions apply to
    CONFIRM_DELETE = "history.confirm_delete"  # the id of the run awaiting delete confirmation
    FLASH = "history.flash"  # what the last delete/pin/unpin did, shown after its rerun


class RunView:
    """A reopened scenario run on the History page: the scenario page's result widgets, under
    their own keys so the two pages never share a filter or a drill-down pick."""

    F_TIER = "runview.filter_tier"
    F_RESULT = "runview.filter_result"
    F_PLATFORM = "runview.filter_platform"
    F_FACT = "runview.filter_fact"
    FAILURE = "runview.failure"
    RAW = "runview.raw_response"
    TABLE = "runview.table"
    DOWNLOADS = "runview.download"


def resolve(path_text: str) -> Path:
    """A sidebar path as typed: absolute as is, relative to the repository root otherwise."""
    p = Path(path_text.strip() or ".").expanduser()
    return p if p.is_absolute() else ROOT / p


def default_data_dir() -> str:
    """``$PE_EVAL_DATA_DIR`` when set (tests point the app at a scratch folder), else the demo."""
    return os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR


def default_scenarios_file() -> str:
    """``$PE_EVAL_SCENARIOS`` when set, else the bundled demo scenarios."""
    return os.environ.get(SCENARIOS_ENV) or DEFAULT_SCENARIOS


def data_dir() -> Path:
    """The data folder chosen in the sidebar (resolved)."""
    return resolve(st.session_state.get(Sidebar.DATA_DIR) or default_data_dir())


def scenarios_file() -> Path:
    """The scenarios file chosen in the sidebar (resolved)."""
    return resolve(st.session_state.get(Sidebar.SCENARIOS_FILE) or default_scenarios_file())
