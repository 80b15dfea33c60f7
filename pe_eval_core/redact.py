"""The one choke point for secrets: text that may carry a remote endpoint's error goes through
:func:`redact` before it is stored, printed, rendered or exported.

Scrubbed: the values of the configured key variables (:data:`SECRET_ENV`, and any variable
whose name ends in ``_API_KEY``, ``_TOKEN`` or ``_SECRET``), ``Authorization`` /
``x-api-key`` / ``api-key`` header values however they are quoted, and ``sk-ant-``-shaped
strings.
"""

from __future__ import annotations

import os
import re

REDACTED = "[redacted]"
SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "PE_EVAL_AGENT_TOKEN")
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
_MIN_SECRET = 8  # shorter values would redact ordinary words
_HEADER = re.compile(
    r"(?P<name>authorization|proxy-authorization|x-api-key|api-key)"
    r"(?P<sep>['\"]?\s*[:=,]\s*['\"]?)"
    r"(?P<value>(?:bearer\s+|basic\s+)?[^\s'\",;}\]]+)",
    re.IGNORECASE,
)
_SK_ANT = re.compile(r"sk-ant-[A-Za-z0-9_\-]{4,}")


def configured_secrets() -> list[str]:
    """The secret values set in the environment now, longest first."""
    values = {
        v
        for k, v in os.environ.items()
        if (k in SECRET_ENV or k.upper().endswith(_SECRET_SUFFIXES)) and len(v) >= _MIN_SECRET
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[redacted]``.

    >>> redact('401: {"x-api-key": "sk-ant-api03-abcdef"} Authorization: Bearer abc.def')
    '401: {"x-api-key": "[redacted]"} Authorization: [redacted]'
    """
    if not isinstance(text, str) or not text:
        return text
    for secret in configured_secrets():
        text = text.replace(secret, REDACTED)
    text = _HEADER.sub(lambda m: f"{m['name']}{m['sep']}{REDACTED}", text)
    return _SK_ANT.sub(REDACTED, text)
