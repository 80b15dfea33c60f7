"""How pe-eval says things: dimension and tier names and order, score bands, number formats.

Every surface (CLI, HTML scorecard, dashboard, MCP server, reports) calls these, so the same
memo reads the same everywhere: ``$1.39B`` and ``97.6%`` on every page.

>>> fmt_usd(1_390_000_000), fmt_usd(564_800_000), fmt_usd(-450_000), fmt_usd(12_340)
('$1.39B', '$564.8M', '$-450K', '$12,340')
>>> fmt_pct(0.6667), fmt_pct(1.0), fmt_pct(0.97619)
('66.7%', '100%', '97.6%')
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

# --- memo dimensions -------------------------------------------------------------------------

DIMENSIONS = ("citation_accuracy", "hallucination_rate", "coverage", "consistency")
"""The four memo scores, in the order every surface shows them."""

DIMENSION_LABELS = {
    "citation_accuracy": "Citation accuracy",
    "hallucination_rate": "Hallucination rate",
    "coverage": "Coverage",
    "consistency": "Consistency",
}

LOWER_IS_BETTER = frozenset({"hallucination_rate"})


def badness(dimension: str, value: float) -> float:
    """How far a score is from perfect (hallucination is lower-is-better).

    >>> badness("coverage", 0.75), badness("hallucination_rate", 0.25)
    (0.25, 0.25)
    """
    return value if dimension in LOWER_IS_BETTER else 1.0 - value


def quality(dimension: str, value: float) -> float:
    """A score oriented so 1 is perfect, for colour scales and sorting."""
    return 1.0 - badness(dimension, value)


class Band(StrEnum):
    """The colour band of a score. One rule, one set of names, every surface."""

    PASS = "pass"
    WATCH = "watch"
    FAIL = "fail"


WATCH_WITHIN = 0.2
"""A score within this distance of perfect (20 points) is *watch*; beyond it, *fail*."""

BAND_LEGEND = {
    Band.PASS: "perfect",
    Band.WATCH: f"within {WATCH_WITHIN:.0%} of perfect",
    Band.FAIL: f"more than {WATCH_WITHIN:.0%} from perfect",
}


def band(dimension: str, value: float) -> Band:
    """Pass when perfect, watch when within 20 points of perfect, fail beyond.

    >>> band("coverage", 1.0), band("coverage", 0.9), band("coverage", 0.75)
    (<Band.PASS: 'pass'>, <Band.WATCH: 'watch'>, <Band.FAIL: 'fail'>)
    >>> band("hallucination_rate", 0.0), band("hallucination_rate", 0.5)
    (<Band.PASS: 'pass'>, <Band.FAIL: 'fail'>)
    """
    off = badness(dimension, value)
    if off <= 1e-12:
        return Band.PASS
    return Band.WATCH if off <= WATCH_WITHIN + 1e-12 else Band.FAIL


# --- scenario tiers --------------------------------------------------------------------------

TIERS = ("smoke", "functional", "adversarial")
"""Mimic's scenario tiers, in the order reports list them; other tiers follow, sorted."""


def tier_order(tiers: Iterable[str]) -> list[str]:
    """Tiers in report order: the known three first, then any others alphabetically.

    >>> tier_order(["zeta", "adversarial", "smoke", "alpha"])
    ['smoke', 'adversarial', 'alpha', 'zeta']
    """
    present = set(tiers)
    return [t for t in TIERS if t in present] + sorted(present - set(TIERS))


# --- numbers ---------------------------------------------------------------------------------


def fmt_usd(value: float | None) -> str:
    """Money the way the producers print it ($1.39B, $564.8M, $450K, $12,340)."""
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    a = abs(value)
    if a >= 1e9:
        body = f"{a / 1e9:.2f}B"
    elif a >= 1e6:
        body = f"{a / 1e6:.1f}M"
    elif a >= 1e5:
        body = f"{a / 1e3:.0f}K"
    else:
        body = f"{a:,.0f}"
    return f"${sign}{body}"


def fmt_pct(score: float | None) -> str:
    """A 0..1 score as a percentage to one decimal, without a useless ``.0`` (n/a for None)."""
    if score is None:
        return "n/a"
    text = f"{score * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def fmt_ratio(part: int, total: int) -> str:
    """``part/total (pct)``, the way every pass rate and score context is shown.

    >>> fmt_ratio(3, 4), fmt_ratio(0, 0)
    ('3/4 (75%)', '0/0 (n/a)')
    """
    return f"{part}/{total} ({fmt_pct(part / total) if total else 'n/a'})"


def count_of(n: int, singular: str, plural: str | None = None) -> str:
    """A count with its noun, thousands separated: ``1 issue``, ``3 issues``, ``1,204 memos``.

    >>> count_of(1, "issue"), count_of(3, "issue"), count_of(1204, "memo"), count_of(0, "file")
    ('1 issue', '3 issues', '1,204 memos', '0 files')
    >>> count_of(2, "check", "check(s)")
    '2 check(s)'
    """
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"


def pct_points(score: float | None) -> float | None:
    """A 0..1 score in percentage points, rounded exactly as :func:`fmt_pct` rounds it.

    For a table column that must sort as a number yet read as ``fmt_pct`` writes it: shown
    with the printf format ``%g%%``, ``pct_points(x)`` prints the same text as ``fmt_pct(x)``.

    >>> pct_points(0.97619), pct_points(1.0), pct_points(0.6667), pct_points(None)
    (97.6, 100.0, 66.7, None)
    >>> all(f"{pct_points(x):g}%" == fmt_pct(x) for x in (0.0, 0.97619, 1.0, 0.00049, 0.12345))
    True
    """
    return None if score is None else round(score * 100, 1)


def fmt_number(value: float | str | None) -> str:
    """A source value as an analyst reads it: thousands separators, no float noise.

    >>> fmt_number(-7912000.0), fmt_number(12.7), fmt_number(3), fmt_number(None)
    ('-7,912,000', '12.7', '3', '')
    >>> fmt_number(float("nan")), fmt_number("segment A")
    ('', 'segment A')
    """
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, int | float):
        return f"{value:,}".removesuffix(".0")
    return str(value)
