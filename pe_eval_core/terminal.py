"""Terminal output: the one function the CLI printers pass input-derived text through."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def term(text: object) -> str:
    """``text`` safe to print: control characters (ESC, BEL, CSI, bidi overrides) shown as
    ``\\x1b``-style escapes, lone surrogates as ``\\ud800``; tabs and newlines kept.

    >>> term("a\\x1b]0;pwned\\x07b\\ud800")
    'a\\\\x1b]0;pwned\\\\x07b\\\\ud800'
    """
    s = str(text)
    s = _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), s)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", s)
