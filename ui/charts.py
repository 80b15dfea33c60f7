"""Altair chart builders for the dashboard: pure functions from plain rows to charts.

Each builder takes already-aggregated rows (a handful per chart, never one per record), so a
chart costs the same for 19 scenarios or 5,000. :func:`show` renders one through a cached
Vega-Lite spec: Altair's schema validation costs far more than drawing, so a rerun with the
same rows reuses the spec instead of rebuilding the chart. Pass bands, tier order and every
number printed on a chart are the core's (``pe_eval_core.wording``): text marks and tooltips
show label columns the caller wrote with ``fmt_pct`` / ``fmt_rate``, never a d3 format of
their own, so a chart, a tile and the HTML scorecard write the same score the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

import altair as alt
import pandas as pd
import streamlit as st

from pe_eval_core.tone import INK as TONE_INK
from pe_eval_core.tone import Tone, rate_tone
from pe_eval_core.wording import BAND_LEGEND, Band, band, fmt_interval, fmt_rate, tier_order

BAND_COLOURS = {Band.PASS: "#5fb878", Band.WATCH: "#fbedc9", Band.FAIL: "#f6d5d3"}
BAND_INK = {Band.PASS: "#2e7d32", Band.WATCH: "#b26a00", Band.FAIL: "#c62828"}
"""The strong colour of each band (tiles, heatmap cells, the HTML scorecard's tiles)."""
STATUS_COLOURS = {
    "cited": "#2e7d4f",
    "grounded": "#2e7d4f",
    "uncited": "#c0392b",
    "ungrounded": "#c0392b",
    "misattributed": "#d68910",
    "exempt": "#8a94a6",
}
INK = "#1b1f24"
OPPORTUNITY_STATUSES = ("cited", "uncited", "grounded", "ungrounded")


def band_rows(dimensions: Sequence[tuple[str, str]], step: float = 0.02) -> list[dict[str, Any]]:
    """Band intervals per (label, dimension field) for :func:`dimension_chart`.

    Derived by sampling the core's ``wording.band`` every ``step`` over [0, 1], so the chart
    can never disagree with the scorecard's thresholds; each sample stands for +-step/2 around
    it. ``meaning`` is the core's legend for the band.

    >>> [(r["band"], r["lo"], r["hi"]) for r in band_rows([("Coverage", "coverage")])]
    [('fail', 0.0, 0.79), ('watch', 0.79, 0.99), ('pass', 0.99, 1.0)]
    >>> band_rows([("Coverage", "coverage")])[1]["meaning"]
    'within 20% of perfect'
    """
    n = round(1 / step)
    rows: list[dict[str, Any]] = []
    for label, field in dimensions:
        runs: list[list[Any]] = []
        for i in range(n + 1):
            x = i / n
            name = band(field, x).value
            if runs and runs[-1][0] == name:
                runs[-1][2] = x
            else:
                runs.append([name, x, x])
        for name, first, last in runs:
            lo = max(0.0, round(first - step / 2, 6))
            hi = min(1.0, round(last + step / 2, 6))
            rows.append(
                {
                    "dimension": label,
                    "band": name,
                    "lo": lo,
                    "hi": hi,
                    "meaning": BAND_LEGEND[Band(name)],
                }
            )
    return rows


def dimension_chart(scores: Sequence[dict[str, Any]], bands: Sequence[dict[str, Any]]) -> alt.Chart:
    """The four dimensions as bars over their pass / watch / fail bands.

    ``scores``: rows ``{dimension, score, text}``: score 0..1, text the bar's label as the core
    writes it (``fmt_pct`` and the n/total, e.g. "85.7% (12/14)").
    ``bands``: rows ``{dimension, band, lo, hi, meaning}`` from :func:`band_rows`.
    """
    order = [row["dimension"] for row in scores]
    y = alt.Y("dimension:N", sort=order, title=None, axis=alt.Axis(labelLimit=200))
    x_scale = alt.Scale(domain=[0, 1.25], nice=False)
    band_layer = (
        alt.Chart(pd.DataFrame(list(bands)))
        .mark_bar(size=30)
        .encode(
            y=y,
            x=alt.X(
                "lo:Q",
                scale=x_scale,
                axis=alt.Axis(format="%", values=[0, 0.2, 0.4, 0.6, 0.8, 1.0]),
                title=None,
            ),
            x2="hi:Q",
            color=alt.Color(
                "band:N",
                scale=alt.Scale(domain=list(BAND_COLOURS), range=list(BAND_COLOURS.values())),
                legend=alt.Legend(title="Band", orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("dimension:N"),
                alt.Tooltip("band:N"),
                alt.Tooltip("meaning:N", title="means"),
            ],
        )
    )
    frame = pd.DataFrame(list(scores))
    bar = (
        alt.Chart(frame)
        .mark_bar(color="#1f3a5f", size=10)
        .encode(
            y=y,
            x=alt.X("score:Q", scale=x_scale),
            tooltip=[alt.Tooltip("dimension:N"), alt.Tooltip("text:N", title="score")],
        )
    )
    text = (
        alt.Chart(frame)
        .mark_text(align="left", dx=6, color=INK)
        .encode(y=y, x=alt.datum(1.0), text="text:N")
    )
    return (band_layer + bar + text).properties(height=alt.Step(44))


NARROW_PANEL = 340
"""px per heatmap panel: panels stack vertically so the chart fits a 1024px-wide window."""


def opportunity_chart(rows: Sequence[dict[str, Any]]) -> alt.Chart:
    """Per opportunity: cited vs uncited figures and grounded vs ungrounded entities.

    ``rows``: ``{opportunity, measure ("Figures"|"Entities"), status, count}``.
    """
    frame = pd.DataFrame(list(rows), columns=["opportunity", "measure", "status", "count"])
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            y=alt.Y("opportunity:N", title=None),
            x=alt.X("count:Q", title="count", axis=alt.Axis(tickMinStep=1)),
            color=alt.Color(
                "status:N",
                scale=alt.Scale(
                    domain=["cited", "uncited", "grounded", "ungrounded"],
                    range=[
                        STATUS_COLOURS[s] for s in ("cited", "uncited", "grounded", "ungrounded")
                    ],
                ),
                legend=alt.Legend(title=None, orient="bottom", columns=2),
            ),
            tooltip=["opportunity:N", "measure:N", "status:N", "count:Q"],
        )
        # Stacked panels (facet rows), so the chart fits a half-width column on a 1024px window.
        .properties(height=alt.Step(20), width=190)
        .facet(
            row=alt.Row(
                "measure:N",
                title=None,
                sort=["Figures", "Entities"],
                header=alt.Header(labelAngle=0, labelAlign="left", labelOrient="top"),
            )
        )
        .resolve_scale(x="independent")
    )


def band_labels() -> dict[Band, str]:
    """Each band with its threshold (the dimension chart's background bands).

    >>> band_labels()[Band.FAIL]
    'fail: more than 20% from perfect'
    """
    return {b: f"{b.value}: {BAND_LEGEND[b]}" for b in Band}


TONE_LABELS = {
    Tone.GOOD: "perfect",
    Tone.WATCH: "meets a lowered threshold",
    Tone.BAD: "misses its threshold",
}
"""What each verdict colour means, as the heatmap legend prints it (``tone.dimension_tone``)."""


HEATMAP_SELECTION = "cell"
"""The heatmap's click selection: ``{portco, audience}`` of the clicked cell."""


PHONE_PANEL = 230
"""px per heatmap panel on a phone (390px wide: the portco names, then four cells)."""


def portfolio_heatmap_phone(rows: Sequence[dict[str, Any]]) -> alt.FacetChart:
    """:func:`portfolio_heatmap` sized for a phone: narrower panels, shorter portco labels,
    the dimension names slanted so each reads whole."""
    return portfolio_heatmap(rows, panel=PHONE_PANEL, label_limit=90, slant=True)


def portfolio_heatmap(
    rows: Sequence[dict[str, Any]],
    panel: int = NARROW_PANEL,
    label_limit: int = 200,
    slant: bool = False,
) -> alt.FacetChart:
    """Portco x dimension cells, one panel per audience, coloured by the verdict's tone (the
    core's ``tone.dimension_tone`` under the page's thresholds: a dimension that misses its
    threshold is red, as on the scorecard tiles; never a continuous scale). The dimension
    names sit on top, above the first row, where the eye starts.

    ``rows``: ``{portco, audience, dimension, score, tone_label, text, context}``;
    ``tone_label`` is :data:`TONE_LABELS`' text for the cell's tone, ``text`` the score as
    ``fmt_pct`` writes it, ``context`` its n/total.
    """
    frame = pd.DataFrame(list(rows))
    axis = (
        alt.Axis(
            orient="top",
            labelAngle=-40,
            labelAlign="left",
            labelOverlap=False,  # slanted, four names fit a phone's panel side by side
            labelLimit=140,
            labelFontSize=11,
        )
        if slant
        else alt.Axis(
            orient="top",
            labelAngle=0,
            labelOverlap=False,
            labelLimit=90,
            labelExpr="split(datum.label, ' ')",  # one word per line: four fit a panel
        )
    )
    base = alt.Chart(frame).encode(
        x=alt.X("dimension:N", title=None, sort=None, axis=axis),
        y=alt.Y("portco:N", title=None, axis=alt.Axis(labelLimit=label_limit)),
    )
    labels = {t: f"{t.value}: {TONE_LABELS[t]}" for t in TONE_LABELS}
    rect = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color(
            "tone_label:N",
            scale=alt.Scale(domain=list(labels.values()), range=[TONE_INK[t] for t in labels]),
            legend=alt.Legend(
                title="colour", orient="bottom", direction="vertical", labelLimit=260
            ),
        ),
        tooltip=[
            "portco:N",
            "audience:N",
            "dimension:N",
            alt.Tooltip("text:N", title="score"),
            alt.Tooltip("context:N", title="n/total"),
            alt.Tooltip("tone_label:N", title="colour"),
        ],
    )
    # Clicking a cell selects its memo (``HEATMAP_SELECTION``); the page opens its scorecard.
    rect = rect.add_params(
        alt.selection_point(name=HEATMAP_SELECTION, fields=["portco", "audience"], on="click")
    )
    text = base.mark_text(fontWeight="bold", color="white").encode(text=alt.Text("text:N"))
    return (
        alt.layer(rect, text, data=frame)
        .properties(width=panel, height=alt.Step(34))
        .facet(
            row=alt.Row(
                "audience:N",
                title=None,
                header=alt.Header(labelAngle=0, labelAlign="left", labelOrient="top"),
            )
        )
    )


def tier_chart(rows: Sequence[dict[str, Any]]) -> alt.LayerChart:
    """Pass rate per tier with its 95% interval as an error bar, labelled as the core writes a
    pass rate (``fmt_rate``: "3/4 (75%)") plus the interval.

    ``rows``: ``{tier, passed, total, rate}`` and optionally ``low``/``high`` (the interval);
    ``total`` counts the runs that produced a verdict. Tiers in the core's order.
    """
    frame = pd.DataFrame(list(rows))
    for column in ("tier", "passed", "total", "rate", "low", "high"):
        if column not in frame:
            frame[column] = None
    frame = frame[["tier", "passed", "total", "rate", "low", "high"]]
    frame["rate"] = pd.to_numeric(frame["rate"], errors="coerce").fillna(0.0)
    frame["low"] = pd.to_numeric(frame["low"], errors="coerce")
    frame["high"] = pd.to_numeric(frame["high"], errors="coerce")
    frame["label"] = [
        interval_label(p, t, lo, hi)
        for p, t, lo, hi in zip(
            frame["passed"], frame["total"], frame["low"], frame["high"], strict=True
        )
    ]
    # Text sits right of the bar and of its error bar, whichever ends later.
    frame["text_at"] = frame[["rate", "high"]].max(axis=1, skipna=True)
    base = alt.Chart(frame).encode(y=alt.Y("tier:N", sort=tier_order(frame["tier"]), title=None))
    x = alt.X(
        "rate:Q",
        scale=alt.Scale(domain=[0, 1.6], nice=False),
        axis=alt.Axis(format="%", values=[0, 0.25, 0.5, 0.75, 1.0]),
        title=None,
    )
    # each tier's bar in its verdict's colour (``tone.rate_tone``: red below 100%)
    frame["tone"] = [
        rate_tone(int(p or 0), int(t or 0)).value
        for p, t in zip(frame["passed"], frame["total"], strict=True)
    ]
    bars = base.mark_bar().encode(
        x=x,
        color=alt.Color(
            "tone:N",
            scale=alt.Scale(domain=[t.value for t in Tone], range=[TONE_INK[t] for t in Tone]),
            legend=None,
        ),
        tooltip=["tier:N", alt.Tooltip("label:N", title="passed")],
    )
    interval = (
        base.transform_filter("isValid(datum.low)")
        .mark_errorbar(ticks=True, color=INK)
        .encode(x=alt.X("low:Q", title=None), x2="high:Q")
    )
    text = base.mark_text(align="left", dx=6, color=INK).encode(x="text_at:Q", text="label:N")
    return (bars + interval + text).properties(height=44 * max(len(frame), 1))


def interval_label(passed: int, total: int, low: float | None, high: float | None) -> str:
    """``"3/4 (75%) · 95% CI 30.1%–95.4%"``; without an interval the pass rate alone.

    >>> interval_label(3, 4, 0.3006, 0.9544)
    '3/4 (75%) · 95% CI 30.1%–95.4%'
    >>> interval_label(0, 0, None, None)
    'no verdict'
    """
    if not total:
        return "no verdict"
    head = fmt_rate(int(passed), int(total))
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return head
    return f"{head} · 95% CI {fmt_interval(low, high)}"


BUILDERS: dict[str, Callable[..., alt.TopLevelMixin]] = {
    "dimension_chart": dimension_chart,
    "opportunity_chart": opportunity_chart,
    "portfolio_heatmap": portfolio_heatmap,
    "portfolio_heatmap_phone": portfolio_heatmap_phone,
    "tier_chart": tier_chart,
}


@st.cache_data(show_spinner=False, max_entries=512)
def _spec(builder: str, args_json: str) -> dict[str, Any]:
    return BUILDERS[builder](*json.loads(args_json)).to_dict()


def show(
    builder: Callable[..., alt.TopLevelMixin],
    *rows: Sequence[dict[str, Any]],
    width: Literal["stretch", "content"] = "content",
    key: str | None = None,
) -> Any:
    """Render ``builder(*rows)`` with st.vega_lite_chart, the spec cached on the rows.

    With ``key`` the chart's selections rerun the page and the selection event is returned
    (the chart must define a named selection, as :func:`portfolio_heatmap` does).
    """
    spec = _spec(builder.__name__, json.dumps([list(r) for r in rows], default=str))
    if key is None:
        return st.vega_lite_chart(spec=spec, width=width)
    return st.vega_lite_chart(spec=spec, width=width, key=key, on_select="rerun")


def selected_point(event: Any, name: str) -> dict[str, Any] | None:
    """The first point of selection ``name`` in a chart's event, or None.

    >>> selected_point({"selection": {"cell": [{"portco": "A", "audience": "board"}]}}, "cell")
    {'portco': 'A', 'audience': 'board'}
    >>> selected_point({"selection": {"cell": []}}, "cell") is None
    True
    """
    if not event:
        return None
    points = (event.get("selection") or {}).get(name) or []
    return dict(points[0]) if points else None
