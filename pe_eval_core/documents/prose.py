"""Figures and labels in a document's prose fields, with their roles: the memo figure reader
(``numbers.extract_figures``) plus the few phrasings structured documents add.

>>> t = ("$-440.7M of current annual loss across 23,425 loans ... 5/5 quarters observed "
...      "(score 1.00); '23,425 named loans', 5 sample row IDs")
>>> for f, r in prose_figures(t):
...     print(f.raw, "->", r.value if r else None)
$-440.7M -> current_outcome
23,425 loans -> count
5 -> quarters_observed
5 quarters -> quarters_total
1.00 -> persistence
23,425 named loans -> count
5 sample row IDs -> evidence_count
"""

from __future__ import annotations

import re
import unicodedata

from pe_eval_core.documents.roles import Role, figure_role
from pe_eval_core.numbers import Figure, FigureKind, extract_figures

_EXTRA = re.compile(
    r"""(?ix)
      \(score\s+(?P<score>\d\.\d+)\)                                   # (score 1.00)
    | (?P<named>\d{1,3}(?:,\d{3})+|\d+)\s+named\s+(?:loans?|rows?|accounts?|customers?)
    | (?P<rows>\d+)\s+sample\s+row\s+ids?\b                            # 5 sample row IDs
    """
)


def _exact(kind: FigureKind, text: str, start: int, end: int, value: float) -> Figure:
    return Figure(kind, value, text[start:end], start, end, value, value, False)


def _extra_figures(text: str) -> list[tuple[Figure, Role]]:
    out: list[tuple[Figure, Role]] = []
    for m in _EXTRA.finditer(text):
        if m["score"] is not None:
            s, e = m.span("score")
            v = float(m["score"])
            half = 0.5 * 10 ** -(len(m["score"]) - 2)
            out.append(
                (
                    Figure(FigureKind.SCORE, v, text[s:e], s, e, v - half, v + half, False),
                    Role.PERSISTENCE,
                )
            )
        elif m["named"] is not None:
            v = float(m["named"].replace(",", ""))
            out.append((_exact(FigureKind.COUNT, text, m.start(), m.end(), v), Role.COUNT))
        else:
            v = float(m["rows"])
            out.append((_exact(FigureKind.COUNT, text, m.start(), m.end(), v), Role.EVIDENCE_COUNT))
    return out


def prose_figures(text: str) -> list[tuple[Figure, Role | None]]:
    """Every figure of a prose field with the role its wording gives, in text order; a
    phrasing read by both readers is kept once (the more specific reading)."""
    extra = _extra_figures(text)
    taken = [(f.start, f.end) for f, _ in extra]
    out: list[tuple[Figure, Role | None]] = list(extra)
    for f in extract_figures(text):
        if any(s < f.end and f.start < e for s, e in taken):
            continue
        out.append((f, figure_role(f, text)))
    out.sort(key=lambda fr: fr[0].start)
    return out


def split_label(label: str) -> list[str]:
    """A cohort or column label split on the multiplication sign (or a spaced ``x``).

    >>> split_label("A × 360 months"), split_label("grade x term"), split_label("Texas")
    (['A', '360 months'], ['grade', 'term'], ['Texas'])
    """
    parts = re.split(r"\s*×\s*|\s+x\s+", label.strip())
    return [p.strip() for p in parts if p.strip()]


def norm(text: object) -> str:
    """Text compared as a name: NFKC, case-folded, whitespace runs collapsed.

    >>> norm("  360\\u00a0Months ")
    '360 months'
    """
    t = unicodedata.normalize("NFKC", str(text))
    return re.sub(r"\s+", " ", t).strip().casefold()
