"""What each number in a DDQ answer claims: a count of named things, a money total, a share,
a median score, a threshold (a stated parameter, not a citation), or a reference (an article,
an item, a form) that is no figure at all.

The nouns a count may name, and the populations they count, are the DDQ's declared table
(``NOUNS``); the words that pick an aggregate (``median``, ``total`` ...) are ``OP_WORDS``.

>>> for s in stated_figures(
...     "Across 52 cohort findings the median score is 0.81 over 5 quarters; 36 of 52 "
...     "findings meet the threshold (score ≥0.5 across ≥2 quarters). Rated 4-5."):
...     print(s.raw, s.sort, s.noun)
52 count findings
0.81 score
5 count quarters
36 part findings
52 count findings
0.5 threshold
2 threshold
4 parameter
5 parameter
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pe_eval_core.numbers import NumberMention, extract_numbers
from pe_eval_core.text_norm import moved, normalize

NOUNS: dict[str, tuple[tuple[str, str, str], ...]] = {
    # noun: ((family or "*", population, op), ...)
    "portcos": (("*", "files", "distinct"), ("*", "files", "count")),
    "portfolio companies": (("*", "files", "distinct"), ("*", "files", "count")),
    "companies": (("*", "files", "distinct"), ("*", "files", "count")),
    "memos": (("memo", "files", "count"),),
    "proof packs": (("pack", "files", "count"),),
    "exit packs": (("pack", "files", "count"),),
    "audit packs": (("ai_act", "files", "count"),),
    "packs": (("pack", "files", "count"), ("ai_act", "files", "count")),
    "sidecars": (("*", "files", "count"),),
    "artifacts": (("*", "files", "count"),),
    "rollups": (("bx", "files", "count"),),
    "corpora": (("bx", "files", "count"),),
    "analyses": (("cim", "files", "count"),),
    "findings": (("dx", "opportunities", "count"), ("memo", "opportunities", "count")),
    "opportunities": (("dx", "opportunities", "count"), ("memo", "opportunities", "count")),
    "cohorts": (("dx", "opportunities", "count"),),
    "claims": (("pack", "claims", "count"),),
    "flags": (("cim", "flags", "count"),),
    "risk factors": (("cim", "flags", "count"),),
    "risk factor": (("cim", "flags", "count"),),
    "articles": (("ai_act", "articles", "count"),),
    "evidence rows": (("dx", "opportunities", "sum:evidence_rows"),),
    "rows": (("dx", "opportunities", "sum:evidence_rows"), ("dx", "opportunities", "sum:n")),
    "loans": (("dx", "opportunities", "sum:n"), ("pack", "claims", "sum:n_rows")),
    "quarters": (
        ("dx", "opportunities", "field:quarters_observed"),
        ("dx", "opportunities", "field:quarters_total"),
    ),
}
"""What a count of each noun may be: (family, population, op); ``sum:F`` sums a field,
``field:F`` is any aggregate of a field (``over 5 quarters`` is a median of quarters)."""

OP_WORDS: dict[str, str] = {
    "median": "median",
    "mean": "mean",
    "average": "mean",
    "total": "sum",
    "sum": "sum",
    "combined": "sum",
    "aggregate": "sum",
    "lowest": "min",
    "minimum": "min",
    "smallest": "min",
    "highest": "max",
    "maximum": "max",
    "largest": "max",
}

_NOUN_RE = re.compile(
    r"(?i)^(?:[\s(]*(?:[\w-]+\s+){0,4}?)(?P<noun>"
    + "|".join(sorted((re.escape(n).replace(r"\ ", r"\s+") for n in NOUNS), key=len, reverse=True))
    + r")(?:\(s\))?\b"
)
_STOP = re.compile(
    r"[.;:,\d]|\b(?:are|is|were|was|meet|exist|have|has|in|across|of|for|with|over|by|to|from)\b",
    re.I,
)
_PART_OF = re.compile(r"^\s+of\s+(?P<whole>\d[\d,]*)\b")
_THRESHOLD_BEFORE = re.compile(r"(?:[≥≤><]=?|>=|<=|\bat\s+least|\bat\s+most)\s*$", re.I)
_REFERENCE_BEFORE = re.compile(
    r"(?i)(?:\barticles?|\bitems?|\bannex|\bsection|\bQ|\bFY|§)\s*(?:\d+\s*[–-]\s*)?$"
)
_LABEL = re.compile(r"(?P<label>[A-Za-z][A-Za-z -]{2,60}):\s*$")


@dataclass(frozen=True)
class Stated:
    """One number of an answer and what it claims."""

    raw: str
    start: int
    end: int
    value: float
    sort: str
    """``money``, ``percent``, ``count``, ``part`` (N in "N of M"), ``score``, ``difficulty``,
    ``plain`` (a number whose wording names nothing), ``threshold`` / ``parameter`` (stated
    parameters: exempt), ``reference`` (not a figure)."""
    noun: str = ""
    whole: float | None = None
    """For a ``part``: the M of "N of M"."""
    decimals: int = 0


def _decimals(raw: str) -> int:
    m = re.search(r"\.(\d+)", raw)
    return len(m.group(1)) if m else 0


def _noun_after(text: str, end: int) -> str:
    after = text[end : end + 60]
    stop = _STOP.search(after)
    window = after[: stop.start()] if stop else after
    m = _NOUN_RE.match(window)
    return re.sub(r"\s+", " ", m["noun"].lower()) if m else ""


_PARAMETER_SPANS = re.compile(r"(?i)\brated\s+\d+\s*[–-]\s*\d+")
_FORM_AFTER = re.compile(r"^-[A-Z]\b")


def _classify(text: str, n: NumberMention, parameters: list[tuple[int, int]]) -> Stated:
    before = text[max(0, n.start - 24) : n.start]
    after = text[n.end : n.end + 12]
    raw, value = n.raw, n.value
    dec = _decimals(raw)
    if _REFERENCE_BEFORE.search(before) or _FORM_AFTER.match(after) or before.endswith("/"):
        return Stated(raw, n.start, n.end, value, "reference")  # Article 10, 10-K, the 5 of 2/5
    if _THRESHOLD_BEFORE.search(before):
        return Stated(raw, n.start, n.end, value, "threshold", decimals=dec)
    if any(s <= n.start < e for s, e in parameters):
        return Stated(raw, n.start, n.end, value, "parameter")
    if n.currency:
        return Stated(raw, n.start, n.end, value, "money", decimals=dec)
    if n.percent:
        return Stated(raw, n.start, n.end, value, "percent", decimals=dec)
    if after.startswith("/5"):
        return Stated(raw, n.start, n.end, value, "difficulty")
    part = _PART_OF.match(text[n.end :])
    if part is not None:
        noun = _noun_after(text, n.end + part.end())
        whole = float(part["whole"].replace(",", ""))
        return Stated(raw, n.start, n.end, value, "part", noun, whole)
    noun = _noun_after(text, n.end)
    if noun:
        return Stated(raw, n.start, n.end, value, "count", noun)
    if dec and 0 <= value <= 1:
        return Stated(raw, n.start, n.end, value, "score", decimals=dec)
    label = _LABEL.search(text[max(0, n.start - 64) : n.start])
    if label is not None:
        found = next((k for k in NOUNS if re.search(rf"(?i)\b{k}\b", label["label"])), "")
        if found:
            return Stated(raw, n.start, n.end, value, "count", found)
    return Stated(raw, n.start, n.end, value, "plain", decimals=dec)


def stated_figures(text: str) -> list[Stated]:
    """Every number of an answer, classified (dates and glued labels like ``FY26`` are no
    numbers: the reader skips them); read as a reader sees it (``text_norm.normalize``),
    spans as written."""
    norm = normalize(text)
    read = norm.text
    parameters = [m.span() for m in _PARAMETER_SPANS.finditer(read)]
    return [moved(_classify(read, n, parameters), norm) for n in extract_numbers(read)]


def ops_in(clause: str) -> set[str]:
    """The aggregate a clause names (``median``, ``total`` ...), empty when none.

    >>> sorted(ops_in("the median persistence score is 0.81"))
    ['median']
    """
    words = re.findall(r"[a-z]+", clause.lower())
    return {OP_WORDS[w] for w in words if w in OP_WORDS}
