"""Terminal output: the one function the CLI printers pass input-derived text through.

It redacts secrets (:func:`pe_eval_core.redact.redact`) and escapes what a terminal or a CI
runner would act on: control characters, and a line starting ``::`` after spaces (GitHub
Actions reads ``::set-output``, ``::add-mask``, ``::stop-commands`` and others as workflow
commands) or holding the older ``##[`` form: a backslash goes in front, so the line is shown,
never run.
"""

from __future__ import annotations

import re

from pe_eval_core.redact import redact

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_WORKFLOW_COMMAND = re.compile(r"^(\s*)::", re.MULTILINE)  # the runner trims leading spaces
_LEGACY_COMMAND = re.compile(r"##\[")  # the older ``##[command]`` form, anywhere in a line


def term(text: object) -> str:
    """``text`` safe to print: secrets redacted, control characters (ESC, BEL, CSI, bidi
    overrides) shown as ``\\x1b``-style escapes, lone surrogates as ``\\ud800``, a CI
    workflow command (``::`` at a line's start, ``##[``) behind a backslash; tabs and
    newlines kept.

    >>> term("a\\x1b]0;pwned\\x07b\\ud800")
    'a\\\\x1b]0;pwned\\\\x07b\\\\ud800'
    >>> print(term("ok\\n::add-mask::x\\n  ::error::y ##[set-env]"))
    ok
    \\::add-mask::x
      \\::error::y #\\#[set-env]
    """
    s = redact(str(text))
    s = _WORKFLOW_COMMAND.sub(r"\1\\::", s)
    s = _LEGACY_COMMAND.sub(r"#\\#[", s)
    s = _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), s)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", s)


def term_json(text: str) -> str:
    """JSON text safe to print: secrets redacted, and the older ``##[`` workflow-command form
    (the only one a JSON line can hold: a string cannot start a line) written ``#\\u0023[``,
    which reads back as the same string.

    >>> import json
    >>> out = term_json(json.dumps({"a": "x ##[set-env name=P]"}))
    >>> "##[" in out, json.loads(out)["a"]
    (False, 'x ##[set-env name=P]')
    """
    return _LEGACY_COMMAND.sub(r"#\\u0023[", redact(text))
