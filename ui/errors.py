"""Show a PeEvalError as a clear st.error (message, diagnosis, fix), never as a traceback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from pe_eval_core.errors import InputNotFoundError, PeEvalError
from pe_eval_core.redact import redact

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~$-])")


def md_escape(text: str) -> str:
    """Backslash-escape markdown syntax so text from inputs (paths, field names) shows literally.

    >>> md_escape("**x** [a](b)")
    '\\\\*\\\\*x\\\\*\\\\* \\\\[a\\\\]\\\\(b\\\\)'
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def md_code(text: object) -> str:
    """Text shown as inline code; backticks inside it cannot close the span.

    >>> md_code("finance_output")
    '`finance_output`'
    >>> md_code("a`b")
    "`a'b`"
    """
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def error_markdown(err: PeEvalError, fix: str | None = None) -> str:
    """The markdown body of the error box: what happened, why, and what to do (redacted: an
    error may quote a URL with its credentials)."""
    return (
        f"**{md_escape(redact(err.message))}**\n\n"
        f"**Diagnosis:** {md_escape(redact(err.diagnosis))}\n\n"
        f"**Fix:** {md_escape(redact(fix or err.fix))}"
    )


def show_error(err: PeEvalError, fix: str | None = None) -> None:
    """Render one core error (``fix`` replaces the core's, e.g. a CLI flag, with a UI action)."""
    st.error(error_markdown(err, fix), icon=":material/error:")


@contextmanager
def guarded(
    *, stop: bool = True, fix: str | None = None, not_found_fix: str | None = None
) -> Iterator[None]:
    """Run a block; a PeEvalError becomes an st.error (and stops the page unless ``stop=False``).

    The core's fixes name CLI flags (``--scenarios PATH``); the dashboard user needs a field.
    ``fix`` replaces the fix of any core error, ``not_found_fix`` that of an
    InputNotFoundError only. Anything else is a bug and propagates, so tests see it.
    """
    try:
        yield
    except PeEvalError as err:
        not_found = not_found_fix if isinstance(err, InputNotFoundError) else None
        show_error(err, not_found or fix)
        if stop:
            st.stop()
