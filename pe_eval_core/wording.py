"""How pe-eval says things: dimension and tier names and order, score bands, number formats.

Every surface (CLI, HTML scorecard, dashboard, MCP server, reports) calls these, so the same
memo reads the same everywhere: ``$1.39B`` and ``97.6%`` on every page. The formats, one
function each: a score or rate :func:`fmt_pct`; passes of a total :func:`fmt_rate`; an
interval :func:`fmt_interval`; a change in points :func:`fmt_points`, relative
:func:`fmt_change`; memo money :func:`fmt_usd`; a price :func:`fmt_cost`; a source value
:func:`fmt_number`; a count with its noun :func:`count_of`. The one exception is the seed's
markdown scenario report (``scenarios.report``), whose layout is specified.

>>> fmt_usd(1_390_000_000), fmt_usd(564_800_000), fmt_usd(-450_000), fmt_usd(12_340)
('$1.39B', '$564.8M', '−$450K', '$12,340')
>>> fmt_pct(0.6667), fmt_pct(1.0), fmt_pct(0.97619)
('66.7%', '100%', '97.6%')
"""

from __future__ import annotations

import math
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


MINUS = "\u2212"
"""The minus sign (U+2212) a negative amount is written with, before the currency sign:
``−$7.9M``, never ``$-7.9M`` (what a reader writes; the number parser reads both)."""


def fmt_usd(value: float | None) -> str:
    """Money the way a reader writes it ($1.39B, $564.8M, $450K, $12,340; a loss
    ``−$7.9M``, the true minus sign before the ``$``).

    >>> fmt_usd(-7_912_000), fmt_usd(-12_000), fmt_usd(0.0), fmt_usd(None)
    ('−$7.9M', '−$12,000', '$0', 'n/a')
    """
    if value is None:
        return "n/a"
    sign = MINUS if value < 0 else ""
    a = abs(value)
    if a >= 1e9:
        body = f"{a / 1e9:.2f}B"
    elif a >= 1e6:
        body = f"{a / 1e6:.1f}M"
    elif a >= 1e5:
        body = f"{a / 1e3:.0f}K"
    else:
        body = f"{a:,.0f}"
    return f"{sign if body != '0' else ''}${body}"


def fmt_pct(score: float | None) -> str:
    """A 0..1 score as a percentage to one decimal, without a useless ``.0`` (n/a for None)."""
    if score is None:
        return "n/a"
    text = f"{score * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def fmt_rate(passed: int, total: int) -> str:
    """``passed/total (pct)``, the way every pass rate and score context is shown. ``total``
    is what the rate is of (for scenarios: the runs that produced a verdict, errors left out).

    >>> fmt_rate(3, 4), fmt_rate(6, 7), fmt_rate(0, 0)
    ('3/4 (75%)', '6/7 (85.7%)', '0/0 (n/a)')
    """
    return f"{passed:,}/{total:,} ({fmt_pct(passed / total) if total else 'n/a'})"


fmt_ratio = fmt_rate
"""The older name of :func:`fmt_rate`."""


def fmt_interval(low: float | None, high: float | None) -> str:
    """A 0..1 interval (a rate's 95% interval) with :func:`fmt_pct` at both ends.

    >>> fmt_interval(0.5872, 0.9577), fmt_interval(None, 1.0)
    ('58.7%–95.8%', 'n/a')
    """
    if low is None or high is None:
        return "n/a"
    return f"{fmt_pct(low)}–{fmt_pct(high)}"


def fmt_points(delta: float | None) -> str:
    """A change between two 0..1 rates in percentage points, signed (``n/a`` for None).

    >>> fmt_points(0.125), fmt_points(-0.0714), fmt_points(0.0), fmt_points(None)
    ('+12.5 pts', '-7.1 pts', '+0 pts', 'n/a')
    """
    if delta is None:
        return "n/a"
    text = f"{delta * 100:+.1f}"
    return (text[:-2] if text.endswith(".0") else text) + " pts"


def fmt_change(value: float, base: float) -> str:
    """``value`` relative to ``base`` as a signed percentage (``n/a`` when ``base`` is 0).

    >>> fmt_change(19_000_000, 17_100_000), fmt_change(90, 100), fmt_change(1, 0)
    ('+11.1%', '-10%', 'n/a')
    """
    if base == 0:
        return "n/a"
    text = f"{(value - base) / abs(base) * 100:+.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def fmt_cost(usd: float | None) -> str:
    """A price in dollars: 4 decimals under $1 (a run's judge calls cost cents), 2 from $1.

    >>> fmt_cost(0.09123), fmt_cost(0.0), fmt_cost(12.345), fmt_cost(None)
    ('$0.0912', '$0.0000', '$12.35', 'unknown')
    """
    if usd is None:
        return "unknown"
    return f"${usd:,.4f}" if abs(usd) < 1 else f"${usd:,.2f}"


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
    """A source value as an analyst reads it: thousands separators, six significant digits at
    most after the point, never an exponent or float noise.

    >>> fmt_number(-7912000.0), fmt_number(12.7), fmt_number(3), fmt_number(None)
    ('-7,912,000', '12.7', '3', '')
    >>> fmt_number(0.8333333333), fmt_number(1234567.25), fmt_number(0.000012345)
    ('0.833333', '1,234,567.25', '0.000012345')
    >>> fmt_number(float("nan")), fmt_number("segment A")
    ('', 'segment A')
    """
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if float(value).is_integer():
        return f"{value:,.0f}"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = min(12, max(2, 5 - magnitude))
    return f"{value:,.{decimals}f}".rstrip("0").rstrip(".")


# --- scenario targets --------------------------------------------------------------------------

TARGET_KINDS = {"http": "HTTP agent", "recorded": "recorded responses", "anthropic": "Anthropic"}
"""A target's recorded kind prefix (``http:``, ``recorded:``, ``anthropic:``) in words."""


def target_words(name: str | None) -> str:
    """A target's recorded name as a reader says it: its kind in words, then what it is (a
    recorded file by its name), never a doubled prefix such as ``http:http://``.

    >>> target_words("http:http://127.0.0.1:8000/agent")
    'HTTP agent http://127.0.0.1:8000/agent'
    >>> target_words("recorded:/work/.mimic/exports/recorded-responses.json")
    'recorded responses recorded-responses.json'
    >>> target_words("anthropic:claude-sonnet-4-5"), target_words("recorded"), target_words(None)
    ('Anthropic claude-sonnet-4-5', 'recorded responses', '?')
    """
    if not name:
        return "?"
    kind, sep, rest = name.partition(":")
    if not sep or kind not in TARGET_KINDS:
        return TARGET_KINDS.get(name, name)
    if kind == "recorded":
        rest = rest.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{TARGET_KINDS[kind]} {rest}".strip()
