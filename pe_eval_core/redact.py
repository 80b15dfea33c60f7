"""The one choke point for secrets: every string pe-eval stores, prints, renders or exports that
may carry one goes through :func:`redact` (or :func:`redact_data` for JSON-like values).

Scrubbed:

* the values of the configured key variables (:data:`SECRET_ENV`, and any variable whose name
  ends in ``_API_KEY``, ``_TOKEN``, ``_SECRET`` or ``_PASSWORD``);
* values registered at run time (:func:`register_secret`): ``.mcp.json`` header values and
  the variables it expanded, ``--agent-header`` values, the password of a URL pe-eval was given;
* ``Authorization`` / ``Proxy-Authorization`` / ``x-api-key`` / ``api-key`` header values
  however they are quoted, and ``Bearer`` / ``Basic`` credentials anywhere;
* the user-info of a URL (``https://user:password@host`` -> ``https://user:[redacted]@host``)
  and the value of a ``token`` / ``key`` / ``password`` / ``secret`` query parameter
  (``?access_token=...``, ``&api_key=...``), and ``password: ...``-style pairs;
* well-known key shapes: ``sk-ant-...``, ``sk-...`` / ``sk-proj-...``, GitHub ``ghp_...`` /
  ``github_pat_...``, Slack ``xox?-...``, AWS ``AKIA...``.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pe_eval_core.text_norm import ignorecase_lower

REDACTED = "[redacted]"
SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "PE_EVAL_AGENT_TOKEN")
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD")
_MIN_SECRET = 8  # shorter environment values would redact ordinary words
_MIN_REGISTERED = 6  # a registered value was named as a secret; still not a short word
# The patterns of the passes, compiled on first use (``_compiled``): each pass runs only when
# its cues are in the text, and most commands print nothing that holds one (start-up: the six
# compile in about 2 ms). All but ``_SHAPES`` ignore case.
_HEADER = (
    r"(?P<name>authorization|proxy-authorization|x-api-key|api-key)"
    r"(?P<sep>['\"]?\s*[:=,]\s*['\"]?)"
    r"(?P<value>(?:bearer\s+|basic\s+)?[^\s'\",;}\]]+)"
)
_SCHEME_CREDENTIAL = (
    r"\b(?P<scheme>bearer|basic)\s+(?=[A-Za-z0-9\-._~+/=]*[0-9\-._~+/=])"
    r"(?P<value>[A-Za-z0-9\-._~+/]{8,}=*)"
)
_USERINFO = (
    r"(?P<scheme>\b[a-z][a-z0-9+.\-]*://)(?P<user>[^\s/@:'\"<>]*)(?::(?P<pw>[^\s/@'\"<>]*))?@"
)
_SECRET_WORD = r"(?:token|key|password|passwd|pwd|secret|signature|credentials?)"
_QUERY = (
    rf"(?P<name>[?&;][\w.\-]*?{_SECRET_WORD}[\w.\-]*=)(?!\[redacted\])(?P<value>[^&#\s'\"<>()]+)"
)
_PAIR = (
    r"(?P<name>\b(?:password|passwd|secret|client_secret|api_key|apikey|access_token|"
    r"refresh_token|id_token|token)\b)(?P<sep>['\"]?\s*[:=]\s*['\"]?)"
    r"(?!\[redacted\])(?P<value>[^\s'\",;(){}\[\]&]{6,})"
)
_SHAPES = (
    r"sk-ant-[A-Za-z0-9_\-]{4,}"
    r"|\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
)


@cache
def _compiled(source: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    return re.compile(source, flags)


_registered: set[str] = set()
_lock = threading.Lock()
_cache: tuple[object, int, tuple[str, ...]] | None = None
"""The secret values last computed: (the environment's snapshot, the registry's version,
the values longest first). Recomputed whenever either differs, so a changed environment or a
newly registered value is seen by the next call."""
_version = 0  # bumped by every registration

# Each pass below runs only when its text holds a literal that every match of its pattern
# contains (case-folded as the pattern is): a necessary condition, so skipping a pass whose
# literals are absent changes nothing (tests/hostile/test_fast_paths.py checks this against the
# unconditional passes on varied inputs). The cues are compared with the text as
# ``re.IGNORECASE`` folds it (``text_norm.ignorecase_lower``).
_HEADER_CUES = ("authorization", "api-key")
_SCHEME_CUES = ("bearer", "basic")
_QUERY_CUES = ("token", "key", "passw", "pwd", "secret", "signature", "credential")
_PAIR_CUES = ("passw", "secret", "api_key", "apikey", "token")
_SHAPE_CUES = ("sk-ant-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA")
"""Case-sensitive, as :data:`_SHAPES` is; a bare ``sk-`` counts only after a word boundary
(:func:`_bare_sk`), so "risk-adjusted" does not run the pass."""


def register_secret(value: object) -> None:
    """Scrub ``value`` (and, for ``Bearer x`` / ``Basic x``, the ``x``) from every later
    :func:`redact` in this process: a header value, an expanded variable, a URL password."""
    if not isinstance(value, str):
        return
    parts = {value.strip()}
    scheme, _, rest = value.strip().partition(" ")
    if rest and scheme.lower() in ("bearer", "basic", "token"):
        parts.add(rest.strip())
    global _version
    with _lock:
        _registered.update(p for p in parts if len(p) >= _MIN_REGISTERED)
        _version += 1


def register_url_secrets(url: str) -> None:
    """Register a URL's password and its secret-looking query values (see module docstring)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return
    if password:
        register_secret(unquote(password))
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if re.search(_SECRET_WORD, name, re.IGNORECASE):
            register_secret(value)


def configured_secrets() -> list[str]:
    """The secret values known now (environment and registered), longest first."""
    return list(_secrets())


def _scan_secrets() -> tuple[str, ...]:
    values = {
        v
        for k, v in os.environ.items()
        if (k in SECRET_ENV or k.upper().endswith(_SECRET_SUFFIXES)) and len(v) >= _MIN_SECRET
    }
    with _lock:
        values |= _registered
    return tuple(sorted(values, key=len, reverse=True))


def _secrets() -> tuple[str, ...]:
    """:func:`configured_secrets`, computed once per state of the environment and registry.

    The key is a copy of ``os.environ``'s underlying mapping (compared in C: about a
    microsecond, against tens for decoding and filtering every variable), so any
    ``os.environ`` change is seen. Without that mapping (``os.environ`` replaced by a plain
    dict) every call scans."""
    global _cache
    data = getattr(os.environ, "_data", None)
    if not isinstance(data, dict):
        return _scan_secrets()
    cached = _cache
    if cached is not None and cached[1] == _version and cached[0] == data:
        return cached[2]
    version = _version
    found = _scan_secrets()
    _cache = (dict(data), version, found)
    return found


def _userinfo(m: re.Match[str]) -> str:
    if m["pw"] is not None:
        return f"{m['scheme']}{m['user']}:{REDACTED}@"
    return f"{m['scheme']}{REDACTED}@" if m["user"] else m[0]


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[redacted]``.

    >>> redact('401: {"x-api-key": "sk-ant-api03-abcdef"} Authorization: Bearer abc.def')
    '401: {"x-api-key": "[redacted]"} Authorization: [redacted]'
    >>> redact("GET https://bot:hunter2@h/x?access_token=abc123&page=2 (password: swordfish)")
    'GET https://bot:[redacted]@h/x?access_token=[redacted]&page=2 (password: [redacted])'
    >>> redact("tool said: Bearer eyJhbGciOi.J9xyz and Tokens: target 12 in")
    'tool said: Bearer [redacted] and Tokens: target 12 in'
    >>> redact("Basic information about bearer tokens")
    'Basic information about bearer tokens'
    """
    if not isinstance(text, str) or not text:
        return text
    for secret in _secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _passes(text, gated=True)


def _bare_sk(text: str) -> bool:
    """Whether ``sk-`` occurs where ``\\bsk-`` matches (at the start or after a non-word
    character, as ``re`` defines one: not alphanumeric, not ``_``)."""
    at = text.find("sk-")
    while at >= 0:
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
            return True
        at = text.find("sk-", at + 3)
    return False


def _any(cues: tuple[str, ...], text: str) -> bool:
    return any(cue in text for cue in cues)


def _passes(text: str, *, gated: bool) -> str:
    """The pattern passes of :func:`redact`, in order; ``gated``: skip a pass whose cues are
    absent (``False`` only for the test that proves the gates change nothing)."""
    low = ignorecase_lower(text) if gated else ""
    if not gated or _any(_HEADER_CUES, low):
        text, low = _run(_HEADER, lambda m: f"{m['name']}{m['sep']}{REDACTED}", text, low)
    if not gated or _any(_SCHEME_CUES, low):
        text, low = _run(_SCHEME_CREDENTIAL, lambda m: f"{m['scheme']} {REDACTED}", text, low)
    if "://" in text and (not gated or "@" in text):
        text, low = _run(_USERINFO, _userinfo, text, low)
    if not gated or ("=" in text and _any(_QUERY_CUES, low)):
        text, low = _run(_QUERY, lambda m: f"{m['name']}{REDACTED}", text, low)
    if not gated or ((":" in text or "=" in text) and _any(_PAIR_CUES, low)):
        text, low = _run(_PAIR, lambda m: f"{m['name']}{m['sep']}{REDACTED}", text, low)
    if not gated or _any(_SHAPE_CUES, text) or _bare_sk(text):
        text = _compiled(_SHAPES, 0).sub(REDACTED, text)
    return text


def _run(
    pattern: str, repl: Callable[[re.Match[str]], str], text: str, low: str
) -> tuple[str, str]:
    """One pass of ``pattern`` (ignoring case); the folded text is recomputed only when the
    pass changed something."""
    out = _compiled(pattern).sub(repl, text)
    if out is text or not low:
        return out, low
    return out, ignorecase_lower(out)


def redact_data(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with :func:`redact` applied to every string,
    keys included; other values unchanged. Nesting is bounded by the JSON reader upstream.

    >>> redact_data({"url": "http://u:pw1234@h", "n": [1, "Bearer abcdefgh12"]})
    {'url': 'http://u:[redacted]@h', 'n': [1, 'Bearer [redacted]']}
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_data(v) for v in value)
    return value
