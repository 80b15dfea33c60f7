"""The colour a verdict is shown in: one rule, derived from the verdict, for every surface.

Tiles, heatmap cells, verdict banners, History's comparisons and the HTML scorecard's tiles
all colour by :func:`tone`. Its rule: what blocks (a memo not ready, a dimension that misses
its threshold, a regression, a failing scenario, a run in which every scenario errored) is
*fail*: never green, never amber alone; what passes but falls short of ideal (a dimension
that meets a lowered threshold below perfect, a run with errors but no failure, runs that
are not like for like) is *watch*; nothing to judge is *neutral*; the rest is *pass*.

A category (a tier, a dimension, a kind of run) is not a verdict: charts colour categories
with :data:`CATEGORY_COLOURS`, none of which reads as pass, watch or fail.
The tone names are the CSS classes the surfaces style (``pass``, ``watch``, ``fail``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from pe_eval_core.wording import Band, band


class Tone(StrEnum):
    """How a verdict is coloured."""

    GOOD = "pass"
    WATCH = "watch"
    BAD = "fail"
    NEUTRAL = "neutral"


INK = {
    Tone.GOOD: "#2e7d32",
    Tone.WATCH: "#b26a00",
    Tone.BAD: "#c62828",
    Tone.NEUTRAL: "#5a6472",
}
"""The strong colour of each tone (tile borders and values, heatmap cells, card edges)."""

CATEGORY_COLOURS = ("#1f3a5f", "#5b7fb5", "#7b5ea7", "#2a8c99", "#8a94a6", "#b07cc6")
"""Colours for categories (tiers, dimensions): navy, blue, violet, teal, grey, lilac; no
green, amber or red, so a category never reads as a verdict."""


def tone(*, blocking: bool, short: bool = False, empty: bool = False) -> Tone:
    """The one rule from a verdict's facts to its colour.

    ``blocking``: the verdict fails (not ready, a bound missed, a regression, a failure, every
    scenario errored); ``short``: it passes but short of ideal; ``empty``: nothing to judge.

    >>> tone(blocking=True, short=True), tone(blocking=False, short=True)
    (<Tone.BAD: 'fail'>, <Tone.WATCH: 'watch'>)
    >>> tone(blocking=False), tone(blocking=False, empty=True)
    (<Tone.GOOD: 'pass'>, <Tone.NEUTRAL: 'neutral'>)
    """
    if blocking:
        return Tone.BAD
    if empty:
        return Tone.NEUTRAL
    return Tone.WATCH if short else Tone.GOOD


class _Bounds(Protocol):
    def meets(self, dim: str, value: float) -> bool: ...


def memo_tone(ready: bool) -> Tone:
    """A memo verdict: ready is pass, not ready is fail."""
    return tone(blocking=not ready)


def dimension_tone(dimension: str, score: float, thresholds: _Bounds) -> Tone:
    """A memo dimension under the verdict's thresholds: fail when it misses its bound (the
    verdict is not ready because of it), watch when it meets a bound below perfect, pass when
    perfect.

    >>> from pe_eval_core.memo.verdict import VerdictThresholds
    >>> strict, loose = VerdictThresholds(), VerdictThresholds.from_spec("citation=0.9")
    >>> dimension_tone("citation_accuracy", 0.976, strict)
    <Tone.BAD: 'fail'>
    >>> dimension_tone("citation_accuracy", 0.976, loose), dimension_tone("coverage", 1.0, loose)
    (<Tone.WATCH: 'watch'>, <Tone.GOOD: 'pass'>)
    """
    return tone(
        blocking=not thresholds.meets(dimension, score),
        short=band(dimension, score) is not Band.PASS,
    )


def run_tone(*, total: int, failed: int, errors: int, regressions: int = 0) -> Tone:
    """A scenario run (and its comparison with a baseline): fail on a failure, a regression
    or every scenario errored; watch when some errored and none failed.

    >>> run_tone(total=19, failed=0, errors=19), run_tone(total=19, failed=7, errors=1)
    (<Tone.BAD: 'fail'>, <Tone.BAD: 'fail'>)
    >>> run_tone(total=19, failed=0, errors=1), run_tone(total=19, failed=0, errors=0)
    (<Tone.WATCH: 'watch'>, <Tone.GOOD: 'pass'>)
    >>> run_tone(total=0, failed=0, errors=0)
    <Tone.NEUTRAL: 'neutral'>
    """
    all_errored = total > 0 and errors >= total
    return tone(
        blocking=all_errored or failed > 0 or regressions > 0,
        short=errors > 0,
        empty=total == 0,
    )


def rate_tone(passed: int, ran: int) -> Tone:
    """A pass rate (a tier's): fail below 100%, pass at 100%, neutral with no verdict.

    >>> rate_tone(4, 6), rate_tone(6, 6), rate_tone(0, 0)
    (<Tone.BAD: 'fail'>, <Tone.GOOD: 'pass'>, <Tone.NEUTRAL: 'neutral'>)
    """
    return tone(blocking=ran > 0 and passed < ran, empty=ran == 0)


def comparison_tone(*, regressions: int, infra_error: bool = False, unlike: bool = False) -> Tone:
    """A comparison of two runs: fail on a regression or when either run is an infrastructure
    error (its "no regression" would mean nothing), watch when not like for like.

    >>> comparison_tone(regressions=0, infra_error=True), comparison_tone(regressions=0)
    (<Tone.BAD: 'fail'>, <Tone.GOOD: 'pass'>)
    >>> comparison_tone(regressions=0, unlike=True)
    <Tone.WATCH: 'watch'>
    """
    return tone(blocking=regressions > 0 or infra_error, short=unlike)
