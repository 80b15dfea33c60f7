"""The dashboard's login and operator-only checks: Streamlit glue over ``pe_eval_core.access``
(the policy lives there; this module reads the server's settings, shows the login form and
turns a refusal into an error box).

``gate()`` runs first in ``app.py``: on a dashboard served to others (or with a login
configured) nothing renders until the visitor logs in; ``role()`` says who they are, and the
``require_*`` helpers raise :class:`~pe_eval_core.errors.AccessDeniedError` for a member's
operator-only action (pages call them inside ``guarded()``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import streamlit as st

from pe_eval_core.access import (
    OPERATOR,
    AccessConfig,
    AgentUrl,
    LoginThrottle,
    Role,
    access_config,
    check_agent_url,
    check_operator,
    check_path,
    check_skill,
)
from ui import state

_THROTTLE = LoginThrottle()
"""Failed logins across every session of this server process (a new tab does not reset it)."""


def _secrets() -> dict[str, Any]:
    try:
        return {k: st.secrets[k] for k in st.secrets}
    except Exception:  # no secrets.toml at all: Streamlit raises its own not-found error
        return {}


def config() -> AccessConfig:
    """The access settings from this server's own configuration (bind address, secrets,
    environment); the default shared folders are the sidebar's defaults."""
    defaults = [
        state.resolve(state.default_data_dir()),
        state.resolve(state.default_scenarios_file()).parent,
    ]
    return access_config(
        address=st.get_option("server.address"),
        secrets=_secrets(),
        repo_root=state.ROOT,
        default_roots=defaults,
    )


def role() -> Role:
    """The visitor's role (``gate`` has run, so there is one)."""
    got = config().role(st.session_state.get(state.Access.ROLE))
    return got if got is not None else "member"


def is_operator() -> bool:
    return role() == OPERATOR


def gate() -> Role:
    """Before any page: refuse a served dashboard without a login, ask for the login, and
    return the visitor's role."""
    cfg = config()
    problem = cfg.problem()
    if problem is not None:
        st.error(f"**This dashboard will not run:** {problem}.", icon=":material/lock:")
        st.stop()
    current = cfg.role(st.session_state.get(state.Access.ROLE))
    if current is not None:
        if cfg.login_required:
            with st.sidebar:
                st.caption(f"Logged in as **{current}**.")
                if st.button("Log out", key=state.Access.LOGOUT, icon=":material/logout:"):
                    st.session_state.pop(state.Access.ROLE, None)
                    st.rerun()
        return current
    render_login(cfg)
    st.stop()
    raise AssertionError("unreachable")  # st.stop() raises


def render_login(cfg: AccessConfig) -> None:
    """The login form; the password field is cleared on submit and never kept."""
    st.title("pe-eval")
    st.caption("This dashboard is shared: log in with the team password or the operator token.")
    with st.form(state.Access.FORM, clear_on_submit=True):
        presented = st.text_input("Password or token", type="password", key=state.Access.SECRET)
        submitted = st.form_submit_button("Log in", icon=":material/login:")
    if not submitted:
        return
    time.sleep(_THROTTLE.delay())
    logged = cfg.login(presented or "")
    if logged is None:
        _THROTTLE.failed()
        st.error("That password or token is not right.", icon=":material/lock:")
        return
    st.session_state[state.Access.ROLE] = logged
    st.rerun()


def require_path(path: Path, what: str) -> None:
    """A member's data folder, scenarios or responses file must lie in the shared folders."""
    check_path(role(), config(), path, what)


def require_skill(path: Path) -> None:
    """A member's skill file must lie in the skills folder."""
    check_skill(role(), config(), path)


def require_operator(action: str) -> None:
    """An operator-only action (delete or pin a run, a live run on the server's key)."""
    check_operator(role(), action)


def agent_url(url: str) -> AgentUrl:
    """An HTTP agent URL as this visitor may use it (a member's: public, pinned)."""
    return check_agent_url(role(), url)
