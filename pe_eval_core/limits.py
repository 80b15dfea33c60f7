"""Every size and count limit pe-eval enforces, in one place, each configurable by an
environment variable.

A limit keeps hostile or runaway input (a 10 MB memo of ``"1% "`` repeated, 100,000
scenarios) from turning into minutes of work, gigabytes of memory and hundreds of megabytes
of output: past a limit the input is refused with :class:`~pe_eval_core.errors.InputLimitError`
naming the input, the field and the limit, before the expensive work starts. Every surface
shows it as any other input error (CLI exit 2, MCP tool error, ``st.error``).

======================  ===============================  ==========  =========================
limit                   environment variable             default     checked
======================  ===============================  ==========  =========================
input file size         ``PE_EVAL_MAX_INPUT_BYTES``      25 MB       before a file is read
figures and entities    ``PE_EVAL_MAX_FIGURES``          150,000     while a memo is parsed
findings                ``PE_EVAL_MAX_FINDINGS``         20,000      while a memo is graded
prose block length      ``PE_EVAL_MAX_PROSE_CHARS``      100,000     when a memo is loaded
scenarios per file      ``PE_EVAL_MAX_SCENARIOS``        20,000      when scenarios are loaded
response length         ``PE_EVAL_MAX_RESPONSE_CHARS``   1,000,000   when responses load/arrive
files per uploaded zip  ``PE_EVAL_MAX_ZIP_FILES``        500         before a zip is extracted
tool calls per reply    ``PE_EVAL_MAX_TOOL_CALLS``       1,000       when an agent's reply arrives
tool result size        ``PE_EVAL_MAX_TOOL_RESULT_BYTES`` 2 MB       while a tool result streams
expected phrases        ``PE_EVAL_MAX_EXPECTED``         1,000       when scenarios are loaded
scoring work            ``PE_EVAL_MAX_SCORING_WORK``     200 M       before a response is scored
======================  ===============================  ==========  =========================

Scoring work is (expected + excluded phrases) x response characters: strict, rule and
number matching are each linear in the response per phrase, so this bounds a scenario's
scoring time (10,000 phrases against a 1M-character response, 10^10, ran past 600 s).

A value is a whole number of at least 1 (``_`` separators allowed: ``50_000_000``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass
from stat import S_ISREG
from typing import Protocol

from pe_eval_core.errors import InputLimitError, LimitConfigError


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: what it bounds, the variable that changes it, its default."""

    what: str
    env: str
    default: int
    unit: str

    def value(self) -> int:
        """The limit in force now: the environment variable if set, else the default.

        >>> INPUT_BYTES.value() == INPUT_BYTES.default or "PE_EVAL_MAX_INPUT_BYTES" in os.environ
        True
        """
        raw = os.environ.get(self.env, "").strip()
        if not raw:
            return self.default
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if value < 1:
            raise LimitConfigError(
                f"{self.env}={raw[:40]!r} is not a whole number of at least 1",
                fix=f"Set {self.env} to a positive whole number (default {self.default:,}), "
                "or unset it.",
            )
        return value


INPUT_BYTES = Limit("input file size", "PE_EVAL_MAX_INPUT_BYTES", 25 * 1024 * 1024, "bytes")
FIGURES = Limit("figures and entities per memo", "PE_EVAL_MAX_FIGURES", 150_000, "")
FINDINGS = Limit("findings per memo", "PE_EVAL_MAX_FINDINGS", 20_000, "")
PROSE_CHARS = Limit("prose block length", "PE_EVAL_MAX_PROSE_CHARS", 100_000, "characters")
SCENARIOS = Limit("scenarios per file", "PE_EVAL_MAX_SCENARIOS", 20_000, "")
RESPONSE_CHARS = Limit("response length", "PE_EVAL_MAX_RESPONSE_CHARS", 1_000_000, "characters")
ZIP_FILES = Limit("files per uploaded zip", "PE_EVAL_MAX_ZIP_FILES", 500, "")
TOOL_CALLS = Limit("tool calls per agent reply", "PE_EVAL_MAX_TOOL_CALLS", 1_000, "")
TOOL_RESULT_BYTES = Limit(
    "tool result size", "PE_EVAL_MAX_TOOL_RESULT_BYTES", 2 * 1024 * 1024, "bytes"
)
EXPECTED = Limit("expected and excluded phrases per scenario", "PE_EVAL_MAX_EXPECTED", 1_000, "")
SCORING_WORK = Limit(
    "scoring work (phrases x response characters)",
    "PE_EVAL_MAX_SCORING_WORK",
    200_000_000,
    "",
)

ALL: tuple[Limit, ...] = (
    INPUT_BYTES,
    FIGURES,
    FINDINGS,
    PROSE_CHARS,
    SCENARIOS,
    RESPONSE_CHARS,
    ZIP_FILES,
    TOOL_CALLS,
    TOOL_RESULT_BYTES,
    EXPECTED,
    SCORING_WORK,
)
"""Every limit, in the order the docs list them."""


def _amount(limit: Limit, n: int) -> str:
    return f"{n:,} {limit.unit}".rstrip()


def exceeded(limit: Limit, *, where: str, field: str, got: int, input: str | None) -> None:
    """Raise ``InputLimitError`` when ``got`` is over ``limit`` (else nothing).

    >>> exceeded(SCENARIOS, where="s.json", field="scenarios", got=3, input="scenarios")
    >>> exceeded(SCENARIOS, where="s.json", field="scenarios", got=10**6, input="scenarios")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.InputLimitError: s.json: field 'scenarios': 1,000,000 is over ...
    """
    cap = limit.value()
    if got > cap:
        raise InputLimitError(
            where,
            field,
            f"{_amount(limit, got)} is over the {limit.what} limit of {_amount(limit, cap)}",
            fix=f"Split the input, or raise the limit with {limit.env} (now {cap:,}).",
            **({"input": input} if input else {}),
        )


def check_file_size(path: str | os.PathLike[str], *, input: str | None) -> None:
    """Refuse a file larger than the input size limit before a byte of it is read (a path
    that is not a regular file is left for the reader to report)."""
    try:
        st = os.stat(path)  # one stat: ``Path.is_file`` then ``Path.stat`` made two
    except OSError as e:
        if e.errno not in _NOT_A_FILE:
            return  # what Path.is_file raises: left for the reader
        size = 0
    except ValueError:  # a NUL in the path: not a file
        size = 0
    else:
        size = st.st_size if S_ISREG(st.st_mode) else 0
    exceeded(INPUT_BYTES, where=str(path), field="(file)", got=size, input=input)


_NOT_A_FILE = frozenset((errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP))
"""The errors for which ``Path.is_file`` answers False rather than raising."""


class _HasResponse(Protocol):
    name: str
    response: str | None


def check_responses(
    responses: Iterable[_HasResponse], *, where: str, input: str | None = "responses"
) -> None:
    """Refuse a response longer than the response length limit, naming its scenario."""
    cap = RESPONSE_CHARS.value()
    for r in responses:
        if r.response is not None and len(r.response) > cap:
            exceeded(
                RESPONSE_CHARS,
                where=where,
                field=f"response of scenario {r.name!r}",
                got=len(r.response),
                input=input,
            )


def over_response_limit(text: str | None, error: str | None) -> tuple[str | None, str | None]:
    """(text, error) of a live response: unchanged under the response length limit, else no
    text and an error saying why (so the scenario is an error, not scored on a cut response).

    >>> over_response_limit("ok", None)
    ('ok', None)
    """
    if text is None:
        return text, error
    cap = RESPONSE_CHARS.value()
    if len(text) <= cap:
        return text, error
    return None, (
        f"the response of {len(text):,} characters is over the {RESPONSE_CHARS.what} limit of "
        f"{cap:,} (raise it with {RESPONSE_CHARS.env})"
    )


def over_limit_text(limit: Limit, got: int, what: str) -> str | None:
    """Why ``got`` of ``what`` is refused (naming the limit and its variable), or None: for
    run-time inputs that become a scenario's error rather than an exception.

    >>> over_limit_text(TOOL_CALLS, 3, "the reply") is None
    True
    >>> print(over_limit_text(TOOL_CALLS, 150_000, "the reply"))  # doctest: +ELLIPSIS
    the reply holds 150,000 tool calls per agent reply, over the limit of 1,000 (raise it ...)
    """
    cap = limit.value()
    if got <= cap:
        return None
    return (
        f"{what} holds {_amount(limit, got)} {limit.what}, over the limit of "
        f"{_amount(limit, cap)} (raise it with {limit.env})"
    )


def scoring_work_text(phrases: int, response_chars: int) -> str | None:
    """Why scoring a response is refused before it starts, or None (see the module docstring).

    >>> scoring_work_text(5, 2_000) is None
    True
    >>> print(scoring_work_text(10_000, 1_000_000))  # doctest: +ELLIPSIS
    scoring 10,000 phrases against 1,000,000 characters is 10,000,000,000 units of work, ...
    """
    work, cap = phrases * response_chars, SCORING_WORK.value()
    if work <= cap:
        return None
    return (
        f"scoring {phrases:,} phrases against {response_chars:,} characters is {work:,} units "
        f"of work, over the {SCORING_WORK.what} limit of {cap:,} (raise it with "
        f"{SCORING_WORK.env})"
    )
