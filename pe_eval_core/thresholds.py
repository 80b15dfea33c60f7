"""Threshold specs (``"citation=1.0,coverage=90%"``): the one parser every surface calls.

A threshold is a fraction in 0..1, written ``0.9`` or ``90%``. A spec is comma-separated
``NAME=VALUE`` pairs; memo dimensions accept short aliases (``citation``), tier names are
taken as written (lower-cased). Every problem is a :class:`ThresholdSpecError` naming the
input at fault, so each surface can point at its own flag, argument or field.

>>> parse_thresholds("citation=1.0, coverage=0.95", names=MEMO_BOUNDS, input="memo_thresholds")
{'citation_accuracy': 1.0, 'coverage': 0.95}
>>> parse_thresholds("smoke=1,functional=90%", input="min_pass_rate")
{'smoke': 1.0, 'functional': 0.9}
>>> parse_fraction("85%", what="min pass rate", input="min_pass_rate")
0.85
>>> parse_thresholds("citation", input="memo_thresholds")
Traceback (most recent call last):
...
pe_eval_core.errors.ThresholdSpecError: threshold 'citation' is not NAME=VALUE ...
"""

from __future__ import annotations

from collections.abc import Mapping

from pe_eval_core.errors import ThresholdSpecError

MEMO_MINIMUMS: Mapping[str, str] = {
    "citation": "citation_accuracy",
    "citation_accuracy": "citation_accuracy",
    "coverage": "coverage",
    "consistency": "consistency",
}
"""Higher-is-better memo dimensions by the names a spec may use."""

MEMO_BOUNDS: Mapping[str, str] = {
    **MEMO_MINIMUMS,
    "hallucination": "hallucination_rate",
    "hallucination_rate": "hallucination_rate",
}
"""Every memo dimension: the minimums plus the hallucination rate (a maximum)."""


def parse_fraction(text: str, *, what: str, input: str) -> float:
    """``"0.9"`` or ``"90%"`` -> 0.9; anything outside 0..1 (or not a number) is an error."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ThresholdSpecError(f"{what}: {raw!r} is not a number", input=input) from None
    return check_fraction(value, what=what, input=input)


def check_fraction(value: float, *, what: str, input: str) -> float:
    """A threshold already read as a number: the same 0..1 rule as :func:`parse_fraction`."""
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise ThresholdSpecError(f"{what}: {value:g} is outside 0..1", input=input)
    return value


def parse_thresholds(
    spec: str | None, *, names: Mapping[str, str] | None = None, input: str
) -> dict[str, float]:
    """``"a=1.0,b=90%"`` -> ``{"a": 1.0, "b": 0.9}``.

    ``names`` maps each accepted name (lower case) to its canonical key; ``None`` accepts any
    name (tiers). ``input`` is the input the spec came from, carried on every error.
    """
    out: dict[str, float] = {}
    for part in (spec or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, raw = part.partition("=")
        name, raw = name.strip().lower(), raw.strip()
        if not sep or not name or not raw:
            raise ThresholdSpecError(f"threshold {part!r} is not NAME=VALUE", input=input)
        out[_canonical(name, names, input)] = parse_fraction(
            raw, what=f"threshold {part!r}", input=input
        )
    return out


def _canonical(name: str, names: Mapping[str, str] | None, input: str) -> str:
    if names is None:
        return name
    if name in names:
        return names[name]
    known = ", ".join(sorted(k for k in names if "_" not in k))
    message = f"unknown memo dimension {name!r} (known: {known})"
    if "halluc" in name:  # lower-is-better: it has its own input, a maximum
        message += "; the hallucination rate is lower-is-better, so give it as a maximum"
        input = "max_hallucination"
    raise ThresholdSpecError(message, input=input)
