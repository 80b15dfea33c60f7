"""Plain words for a finding's lead sentence: an opportunity by its cohort (the id second), a
figure's sign where a reader writes it, and the nearest source value in the figure's own format.

The sentences themselves are :func:`pe_eval_core.memo.verdict.issue_sentence` and
:func:`pe_eval_core.memo.explain.lowest_dimension`; every surface shows those.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pe_eval_core.memo.source_fields import unit_of_key
from pe_eval_core.wording import MINUS, fmt_number, fmt_usd

if TYPE_CHECKING:
    from pe_eval_core.memo.result import Finding, MemoEvaluation

Cohorts = Mapping[str, str]
"""Opportunity id -> its cohort label (``GA × Branch``), as the memo's source names it."""


def cohort_names(ev: MemoEvaluation) -> dict[str, str]:
    """Each opportunity id of the evaluation with its cohort label (blank ones left out)."""
    return {o.id: o.cohort for o in ev.opportunities if o.cohort}


def opportunity_name(opp_id: str | None, cohorts: Cohorts | None = None) -> str:
    """An opportunity as a reader knows it: its cohort, the id second.

    >>> opportunity_name("opp_02", {"opp_02": "C × 60 months"})
    'C × 60 months (opp_02)'
    >>> opportunity_name("opp_09", {}), opportunity_name(None)
    ('opp_09', 'the memo')
    """
    if not opp_id:
        return "the memo"
    cohort = (cohorts or {}).get(opp_id)
    return f"{cohort} ({opp_id})" if cohort else opp_id


_SIGN_AFTER_DOLLAR = re.compile(r"^\$\s*[-\u2013\u2212]\s*(?=\d)")
_SIGN_BEFORE_DOLLAR = re.compile(r"^[-\u2013]\s*\$")


def shown_raw(raw: str) -> str:
    """A memo's money figure with its sign where a reader writes it (``$-7.9M`` reads
    ``−$7.9M``: the same figure); anything else exactly as the memo wrote it.

    >>> shown_raw("$-7.9M"), shown_raw("-$12K"), shown_raw("$6.8M"), shown_raw("GA")
    ('−$7.9M', '−$12K', '$6.8M', 'GA')
    """
    out = _SIGN_AFTER_DOLLAR.sub(MINUS + "$", raw, count=1)
    return _SIGN_BEFORE_DOLLAR.sub(MINUS + "$", out, count=1)


_PERCENT_HINTS = ("%", "bps", "percent", "pct", "basis point")


def nearest_text(f: Finding) -> str:
    """The finding's nearest source value in the format of the figure it is compared with:
    money as money, a percent figure's nearest value as a percent (a 0..1 rate x100, basis
    points /100), anything else as the source holds it.

    >>> from pe_eval_core.memo.result import Finding
    >>> def near(raw, value, path):
    ...     return nearest_text(Finding(kind="ungrounded_figure", raw=raw, message="",
    ...                                 nearest_value=value, nearest_path=path))
    >>> near("14.2%", 0.127, "opportunities[0].denial_rate")
    '12.7%'
    >>> near("$6.8M", 4236000.0, "opportunities[1].projected_impact_usd_annual")
    '$4.2M'
    >>> near("5.4%", 5.4, "opportunities[0].default_rate_pct"), near("GA", "Texas", "x")
    ('5.4%', 'Texas')
    >>> near("120 bps", 150, "opportunities[0].spread_bps"), near("9,842", 9842, "n")
    ('1.5%', '9,842')
    """
    value = f.nearest_value
    if value is None or isinstance(value, str | bool):
        return fmt_number(value)
    raw = f.raw or ""
    if "$" in raw or "usd" in raw.lower():
        return fmt_usd(float(value))
    if any(h in raw.lower() for h in _PERCENT_HINTS):
        leaf = (f.nearest_path or "").rsplit(".", 1)[-1].rsplit(":", 1)[-1]
        unit = unit_of_key(leaf)
        points = float(value)
        if unit in ("fraction", "score") and abs(points) <= 1:
            points *= 100
        elif unit == "bps":
            points /= 100
        return fmt_number(round(points, 6)) + "%"
    return fmt_number(value)
