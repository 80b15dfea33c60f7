"""Figures and labels in a document's prose fields, with the role each claims: the memo figure
reader (``numbers.extract_figures``) plus the few phrasings structured documents add; a money
figure's role is read by the shared ``grading.roles.claim_of`` with the memo's cues plus the
producer's document wording (``DOCUMENT_CUES``: "run-rate", "claimed", "headline").

>>> t = ("$-440.7M of current annual loss across 23,425 loans ... 5/5 quarters observed "
...      "(score 1.00); '23,425 named loans', 5 sample row IDs")
>>> for f, r in prose_figures(t):
...     print(f.raw, "->", r.value if r else None)
$-440.7M -> loss
23,425 loans -> count
5 -> quarters_observed
5 quarters -> quarters_total
1.00 -> score
23,425 named loans -> count
5 sample row IDs -> evidence_count
>>> [(f.raw, r.value) for f, r in prose_figures("current run-rate $-440.7M/yr; headline $1.2M")]
[('$-440.7M', 'loss'), ('$1.2M', 'total')]
"""

from __future__ import annotations

import re
import unicodedata

from pe_eval_core.grading.roles import DEFAULT_CUES, Cue, Role, claim_of
from pe_eval_core.numbers import Figure, FigureKind, extract_figures
from pe_eval_core.text_norm import moved, normalize

DOCUMENT_CUES: tuple[Cue, ...] = (
    *DEFAULT_CUES,
    Cue(
        Role.LOSS,
        after=r"(?:of\s+)?(?:current\s+|observed\s+)?(?:annual\s+)?(?:outcome|run-rate)\b",
        before=r"(?:current\s+|observed\s+)?run-rate\s*",
    ),
    Cue(Role.IMPACT, before=r"(?:claimed|attributable|contribution)[^$\d]{0,20}"),
    Cue(Role.TOTAL, before=r"headline[^$\d]{0,20}"),
)
"""The memo's wording cues, then the producer's document phrasings ("current run-rate $X/yr",
"$X of current outcome", "claimed $X", "headline $X")."""

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
                    Role.SCORE,
                )
            )
        elif m["named"] is not None:
            v = float(m["named"].replace(",", ""))
            out.append((_exact(FigureKind.COUNT, text, m.start(), m.end(), v), Role.COUNT))
        else:
            v = float(m["rows"])
            out.append((_exact(FigureKind.COUNT, text, m.start(), m.end(), v), Role.EVIDENCE_COUNT))
    return out


def figure_claim(fig: Figure, text: str) -> Role:
    """The role a figure claims: its kind fixes it for scores, difficulty, quarters and counts;
    money takes it from its wording (``claim_of``); a percent claims nothing in particular."""
    if fig.kind is FigureKind.USD:
        return claim_of(text, fig.start, fig.end, DOCUMENT_CUES)
    if fig.kind is FigureKind.QUARTERS:
        return Role.QUARTERS_TOTAL if fig.role == "total" else Role.QUARTERS_OBSERVED
    fixed = {
        FigureKind.SCORE: Role.SCORE,
        FigureKind.DIFFICULTY: Role.DIFFICULTY,
        FigureKind.COUNT: Role.COUNT,
    }
    return fixed.get(fig.kind, Role.ANY)


def prose_figures(text: str) -> list[tuple[Figure, Role]]:
    """Every figure of a prose field with the role its wording gives, in text order; a
    phrasing read by both readers is kept once (the more specific reading). Read as a reader
    sees it (``text_norm.normalize``: hidden and look-alike characters), spans as written."""
    norm = normalize(text)
    if not norm.changed:
        return _prose_figures(text)
    return [(moved(f, norm), role) for f, role in _prose_figures(norm.text)]


def _prose_figures(text: str) -> list[tuple[Figure, Role]]:
    extra = _extra_figures(text)
    taken = [(f.start, f.end) for f, _ in extra]
    out: list[tuple[Figure, Role]] = list(extra)
    for f in extract_figures(text):
        if any(s < f.end and f.start < e for s, e in taken):
            continue
        out.append((f, figure_claim(f, text)))
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
