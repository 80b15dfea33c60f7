"""Rebuild the bundled demo data so the grader always has realistic, reproducible inputs.

Plays both upstream tools: a DX diagnostic writing OpportunityMaps ``dx_report_<portco>.json``
and an explainer writing memo sidecars ``explain_<portco>_<audience>.json`` whose prose follows
the producers' conventions (DESIGN.md section 2). ``southeast_lender`` carries planted defects;
``finance_output/README.md`` (also written here) lists them. Deterministic: same bytes each run.

    python scripts/build_demo_data.py [--out finance_output]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pe_eval_core.files import atomic_write_text  # noqa: E402

AUDIENCES = ("board", "operator")
PROSE_FIELDS = ("narrative", "counterfactual", "risk_of_inaction", "rollout")

# The operator playbook: recommendation wording per archetype. Only "~5%" is a figure, and it is
# a template constant (a recommendation parameter), not a citation of the source.
PLAYBOOK = {
    "allocation": "throttle volume to the cohort to ~5% of current",
    "pricing": "reprice the cohort to break even",
    "routing": "route the cohort to the specialist underwriting desk",
    "timing": "move the decision to the pre-funding review",
    "selection": "tighten approval criteria for the cohort",
}
TEMPLATE_CONSTANT = "~5%"


# --------------------------------------------------------------------------------------------
# Number formatting, as the producers do it
# --------------------------------------------------------------------------------------------


def _q(value: float, places: int) -> Decimal:
    """Round half-up (so the printed value's interval [x-h, x+h) always holds the source)."""
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def fmt_money(value: float, *, signed: bool = False, b_places: int = 1) -> str:
    """Compact money: 1 decimal of M/B (``b_places`` for B), whole K, comma'd dollars below $1K.

    ``signed`` prints a loss as ``$-564.8M``; otherwise the magnitude is printed.

    >>> fmt_money(-564_812_000), fmt_money(-564_812_000, signed=True)
    ('$564.8M', '$-564.8M')
    >>> fmt_money(1_387_460_000), fmt_money(1_387_460_000, b_places=2)
    ('$1.4B', '$1.39B')
    >>> fmt_money(1_249_000), fmt_money(14_600), fmt_money(-319.11, signed=True)
    ('$1.2M', '$15K', '$-319')
    >>> fmt_money(999_960), fmt_money(999.7), fmt_money(999_960_000)
    ('$1.0M', '$1K', '$1.0B')
    """
    mag = abs(value)
    sign = "-" if signed and value < 0 else ""
    if mag >= 1e9 or _q(mag / 1e6, 1) >= 1000:
        body = f"{_q(mag / 1e9, b_places)}B"
    elif mag >= 1e6 or _q(mag / 1e3, 0) >= 1000:
        body = f"{_q(mag / 1e6, 1)}M"
    elif mag >= 1e3 or _q(mag, 0) >= 1000:
        body = f"{_q(mag / 1e3, 0)}K"
    else:
        body = f"{_q(mag, 0)}"
    return f"${sign}{body}"


def fmt_dollars(value: float, *, signed: bool = False) -> str:
    """Whole dollars with thousands separators: ``$12,340`` / ``$-58,590``.

    >>> fmt_dollars(-58_589.59), fmt_dollars(-58_589.59, signed=True), fmt_dollars(12_340)
    ('$58,590', '$-58,590', '$12,340')
    """
    sign = "-" if signed and value < 0 else ""
    return f"${sign}{int(_q(abs(value), 0)):,}"


def fmt_pct(fraction: float) -> str:
    """A 0..1 fraction as a percentage with one decimal.

    >>> fmt_pct(0.0412), fmt_pct(0.127)
    ('4.1%', '12.7%')
    """
    return f"{_q(fraction * 100, 1)}%"


def fmt_score(score: float) -> str:
    """A 0..1 score with two decimals, as in ``persistence score of 0.80``.

    >>> fmt_score(0.8)
    '0.80'
    """
    return f"{_q(score, 2)}"


def display_interval(raw: str) -> tuple[float, float]:
    """The magnitudes a printed money figure stands for: ``$2.3M`` -> [2.25M, 2.35M).

    >>> display_interval("$-1.2M")
    (1150000.0, 1250000.0)
    >>> display_interval("$15K"), display_interval("$1,873")
    ((14500.0, 15500.0), (1872.5, 1873.5))
    """
    body = raw.replace("$", "").replace("-", "").replace(",", "")
    scale = {"K": 1e3, "M": 1e6, "B": 1e9}.get(body[-1], 1.0)
    digits = body.rstrip("KMB")
    half = 0.5 * 10.0 ** -(len(digits.split(".")[1]) if "." in digits else 0)
    value = float(digits)
    return (value - half) * scale, (value + half) * scale


def money_matches(raw: str, source_value: float) -> bool:
    """The grader's rule: within 1% of the source, or inside the printed precision (magnitude).

    >>> money_matches("$1.2M", -1_249_000), money_matches("$1.2M", 1_251_000)
    (True, False)
    """
    printed = float(raw.replace("$", "").replace(",", "").rstrip("KMB"))
    printed *= {"K": 1e3, "M": 1e6, "B": 1e9}.get(raw[-1], 1.0)
    if raw.startswith("$-") and source_value >= 0:
        return False
    lo, hi = display_interval(raw)
    mag = abs(source_value)
    return abs(mag - abs(printed)) <= 0.01 * mag or lo <= mag < hi


# --------------------------------------------------------------------------------------------
# The DX diagnostic: OpportunityMaps
# --------------------------------------------------------------------------------------------


def _quarter_labels(as_of: str, count: int) -> list[str]:
    """The ``count`` quarters ending with the one containing ``as_of``, oldest first."""
    year, month = int(as_of[:4]), int(as_of[5:7])
    index = year * 4 + (month - 1) // 3
    return [f"{i // 4}Q{i % 4 + 1}" for i in range(index - count + 1, index + 1)]


def quarterly_series(annual: float, k: int, m: int, as_of: str) -> list[dict[str, Any]]:
    """``m`` quarters whose last four sum to ``annual``; the oldest ``m - k`` show a small gain."""
    if m - k > m - 4:
        raise ValueError("gain quarters must lie before the trailing four")
    weights = [0.23, 0.26, 0.24, 0.27]
    values = []
    for i in range(m):
        if i < m - k:
            values.append(round(abs(annual) * 0.02))
        else:
            values.append(round(annual * weights[i % 4]))
    values[-1] = round(annual) - sum(values[-4:-1])
    return [
        {"quarter": q, "outcome_usd": v}
        for q, v in zip(_quarter_labels(as_of, m), values, strict=True)
    ]


def _cohort_text(segment: dict[str, Any]) -> str:
    return " × ".join(str(v) for v in segment.values())


def shape_a(
    oid: str,
    archetype: str,
    segment: dict[str, Any],
    *,
    n: int,
    outcome_total: float,
    default_rate: float,
    persistence: float,
    quarters: tuple[int, int],
    difficulty: int,
    impact: float,
    action: str,
    evidence: list[int | str],
) -> dict[str, Any]:
    """A batch-builder opportunity (``outcome_total_usd_annual``, ``projected_action``)."""
    cohort = _cohort_text(segment)
    return {
        "id": oid,
        "archetype": archetype,
        "decision_cols": list(segment),
        "segment": dict(segment),
        "n": n,
        "outcome_total_usd_annual": outcome_total,
        "outcome_mean_usd": round(outcome_total / n, 2),
        "default_rate": default_rate,
        "persistence_score": persistence,
        "persistence_quarters_out_of_total": list(quarters),
        "difficulty_score_1_to_5": difficulty,
        "projected_impact_usd_annual": impact,
        "projected_action": action,
        "evidence_row_ids": evidence,
        "narrative_board": (
            f"{cohort} loses {fmt_money(outcome_total)} a year across {n:,} loans; "
            f"persistent in {quarters[0]} of {quarters[1]} quarters."
        ),
        "narrative_operator": f"{action}; projected impact {fmt_money(impact)} a year.",
    }


def shape_b(
    oid: str,
    archetype: str,
    segment: dict[str, Any],
    *,
    n: int,
    current: float,
    projected: float,
    rate_key: str,
    rate: float,
    persistence: float,
    quarters: tuple[int, int],
    difficulty: int,
    recommendation: str,
    weeks: int,
    evidence: list[int | str],
    as_of: str,
) -> dict[str, Any]:
    """An interactive-pipeline opportunity (current/projected outcome, ``recommendation``)."""
    return {
        "id": oid,
        "archetype": archetype,
        "decision_cols": list(segment),
        "segment": dict(segment),
        "n": n,
        "current_outcome_usd_annual": current,
        "projected_outcome_usd_annual": projected,
        "projected_impact_usd_annual": projected - current,
        "outcome_mean_usd": round(current / n, 2),
        rate_key: rate,
        "persistence_score": persistence,
        "persistence_quarters_out_of_total": list(quarters),
        "difficulty_score_1_to_5": difficulty,
        "recommendation": recommendation,
        "time_to_implement_weeks": weeks,
        "quarterly_outcome_usd": quarterly_series(current, quarters[0], quarters[1], as_of),
        "evidence_row_ids": evidence,
    }


def opportunity_map(
    portco: str, vertical: str, ebitda: float, as_of: str, opps: list[dict[str, Any]]
) -> dict[str, Any]:
    """The top level of ``dx_report_<portco>.json``; the total is the sum of the opp impacts."""
    return {
        "portco_id": portco,
        "vertical": vertical,
        "ebitda_baseline_usd": ebitda,
        "as_of": as_of,
        "total_projected_impact_usd_annual": sum(o["projected_impact_usd_annual"] for o in opps),
        "opportunities": opps,
    }


def mortgageco() -> dict[str, Any]:
    """Shape A, four lending cohorts from $1.4B down to $15K; clean on all four dimensions."""
    return opportunity_map(
        "MortgageCo",
        "residential_mortgage",
        2_870_000_000,
        "2025-09-30",
        [
            shape_a(
                "opp_01",
                "allocation",
                {"grade": "A", "term": "360 months"},
                n=23_681,
                outcome_total=-1_387_460_000,
                default_rate=0.0412,
                persistence=0.92,
                quarters=(5, 5),
                difficulty=2,
                impact=1_109_968_000,
                action="Throttle new originations in the cohort",
                evidence=[118204, 40577, 99312, 7045, 230118],
            ),
            shape_a(
                "opp_02",
                "pricing",
                {"state": "Texas", "channel": "Broker"},
                n=41_207,
                outcome_total=-564_812_000,
                default_rate=0.0287,
                persistence=0.80,
                quarters=(4, 5),
                difficulty=3,
                impact=338_887_000,
                action="Reprice broker-sourced Texas loans to break even",
                evidence=[40211, 88120, 152907, 3318],
            ),
            shape_a(
                "opp_03",
                "routing",
                {"loan_purpose": "Cash-out refinance", "property_type": "Condo"},
                n=3_914,
                outcome_total=-1_249_000,
                default_rate=0.0631,
                persistence=0.61,
                quarters=(3, 5),
                difficulty=4,
                impact=1_037_000,
                action="Route cash-out condo refinances to the specialist underwriting desk",
                evidence=[77012, 190345, 12873, 64420],
            ),
            shape_a(
                "opp_04",
                "timing",
                {"lien_status": "Second lien", "occupancy": "Investor"},
                n=612,
                outcome_total=-14_600,
                default_rate=0.0915,
                persistence=0.55,
                quarters=(3, 5),
                difficulty=1,
                impact=11_240,
                action="Move second-lien investor approvals to the pre-funding review",
                evidence=[5521, 60914, 211487, 98020],
            ),
        ],
    )


def hmda_ga() -> dict[str, Any]:
    """Shape B (current/projected outcomes, numeric HMDA codes, string row ids); clean."""
    as_of = "2025-06-30"
    return opportunity_map(
        "HMDA_GA",
        "mortgage_origination",
        412_500_000,
        as_of,
        [
            shape_b(
                "opp_01",
                "selection",
                {"loan_type": "FHA", "loan_purpose": 31},
                n=4_218,
                current=-38_420_000,
                projected=-9_868_000,
                rate_key="denial_rate",
                rate=0.127,
                persistence=0.88,
                quarters=(7, 8),
                difficulty=3,
                recommendation="Tighten approval criteria for FHA refinance applications",
                weeks=6,
                evidence=["311907", "45018", "270033", "98116"],
                as_of=as_of,
            ),
            shape_b(
                "opp_02",
                "pricing",
                {"county": "Fulton", "lien_status": 2},
                n=1_377,
                current=-3_262_000,
                projected=-1_148_000,
                rate_key="denial_rate",
                rate=0.084,
                persistence=0.75,
                quarters=(6, 8),
                difficulty=2,
                recommendation="Reprice subordinate-lien loans in Fulton County to break even",
                weeks=4,
                evidence=["20417", "133590", "7781", "250006"],
                as_of=as_of,
            ),
            shape_b(
                "opp_03",
                "routing",
                {"channel": "Correspondent", "property_type": "Manufactured"},
                n=57,
                current=-41_700,
                projected=-12_400,
                rate_key="denial_rate",
                rate=0.193,
                persistence=0.63,
                quarters=(5, 8),
                difficulty=4,
                recommendation="Route manufactured-home correspondent loans to the specialist desk",
                weeks=10,
                evidence=["88213", "301446", "15009", "72751"],
                as_of=as_of,
            ),
        ],
    )


def southeast_lender() -> dict[str, Any]:
    """Mixed shapes (two A, two B); its memos carry the planted defects in ``DEFECTS``."""
    as_of = "2025-12-31"
    return opportunity_map(
        "southeast_lender",
        "consumer_lending",
        96_400_000,
        as_of,
        [
            shape_a(
                "opp_01",
                "allocation",
                {"state": "GA", "channel": "Branch"},
                n=9_842,
                outcome_total=-18_430_000,
                default_rate=0.0538,
                persistence=0.83,
                quarters=(5, 6),
                difficulty=2,
                impact=12_870_000,
                action="Throttle branch volume in the cohort",
                evidence=[30412, 8817, 129004, 55120],
            ),
            shape_a(
                "opp_02",
                "pricing",
                {"grade": "C", "term": "60 months"},
                n=6_105,
                outcome_total=-7_912_000,
                default_rate=0.0764,
                persistence=0.67,
                quarters=(4, 6),
                difficulty=3,
                impact=4_236_000,
                action="Reprice grade C long-term loans to break even",
                evidence=[71230, 4409, 99871, 16044],
            ),
            shape_b(
                "opp_03",
                "routing",
                {"state": "AL", "loan_purpose": "Debt consolidation"},
                n=2_418,
                current=-2_964_000,
                projected=-1_102_000,
                rate_key="default_rate",
                rate=0.0695,
                persistence=0.83,
                quarters=(5, 6),
                difficulty=3,
                recommendation="Route Alabama debt-consolidation loans to central underwriting",
                weeks=6,
                evidence=["61877", "2290", "140553", "87012"],
                as_of=as_of,
            ),
            shape_b(
                "opp_04",
                "timing",
                {"channel": "Online", "grade": "D"},
                n=188,
                current=-44_800,
                projected=-21_350,
                rate_key="default_rate",
                rate=0.112,
                persistence=0.58,
                quarters=(4, 6),
                difficulty=1,
                recommendation="Move online grade D approvals to the pre-funding review",
                weeks=3,
                evidence=["9031", "117640", "45512", "3307"],
                as_of=as_of,
            ),
        ],
    )


PORTCOS = {"MortgageCo": mortgageco, "HMDA_GA": hmda_ga, "southeast_lender": southeast_lender}


# --------------------------------------------------------------------------------------------
# Planted defects (southeast_lender only)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Defect:
    """One deliberate error in a memo, and what the grader should report for it."""

    kind: str  # fabricated_figure | invented_entity | dropped_opportunity | stale_headline
    #            | misattributed_figure
    portco: str
    audience: str
    opportunity: str
    field: str  # prose block, or a memo top-level field
    slot: str  # the producer slot that was tampered with ("" for memo-level defects)
    wrong: str  # the text (or value) the memo carries
    expect: str  # what the grader should report

    @property
    def key(self) -> tuple[str, str]:
        return self.field, self.slot


STALE_HEADLINE = 17_118_000

DEFECTS = (
    Defect(
        "fabricated_figure",
        "southeast_lender",
        "board",
        "opp_02",
        "counterfactual",
        "impact",
        "$6.8M",
        "ungrounded figure: no source number of any opportunity lies within tolerance",
    ),
    Defect(
        "misattributed_figure",
        "southeast_lender",
        "board",
        "opp_01",
        "risk_of_inaction",
        "outcome",
        "$-7.9M",
        "cited, but mis-attributed: it is opp_02's outcome_total_usd_annual (-7,912,000)",
    ),
    Defect(
        "stale_headline",
        "southeast_lender",
        "board",
        "",
        "total_projected_impact_usd_annual",
        "",
        str(STALE_HEADLINE),
        "consistency: disagrees (-9.9%) with its source total and with the operator sibling",
    ),
    Defect(
        "invented_entity",
        "southeast_lender",
        "operator",
        "opp_03",
        "narrative",
        "cohort.state",
        "FL",
        "ungrounded entity: no opportunity, segment or column in the source is FL",
    ),
    Defect(
        "dropped_opportunity",
        "southeast_lender",
        "operator",
        "opp_04",
        "opportunities_explained",
        "",
        "",
        "coverage 3/4: opp_04 is not addressed (absent from opportunities_explained)",
    ),
)


KINDS = {d.kind for d in DEFECTS}


def defects_for(portco: str, audience: str) -> list[Defect]:
    return [d for d in DEFECTS if d.portco == portco and d.audience == audience]


# --------------------------------------------------------------------------------------------
# The explainer: prose with a record of every figure and entity it printed
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mark:
    """A figure or entity the explainer printed, the source field it drew on, and its status."""

    block: str
    slot: str
    what: str  # "figure" | "entity" | "exempt"
    kind: str  # usd | percent | count | quarters | score | difficulty | cohort | archetype
    #            | decision_col | evidence_row | template
    raw: str  # as printed
    path: str  # source field the producer drew it from ("" for a template constant)
    status: str  # "grounded", or the defect kind
    intended: str  # what a correct producer prints


@dataclass
class Prose:
    """Builds one prose block from literal text, figures and entities, applying tampering."""

    block: str
    tamper: dict[tuple[str, str], Defect] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)

    def text(self, s: str) -> Prose:
        self.parts.append(s)
        return self

    def _put(self, what: str, kind: str, slot: str, raw: str, path: str) -> Prose:
        defect = self.tamper.get((self.block, slot))
        printed = defect.wrong if defect else raw
        status = defect.kind if defect else ("exempt" if what == "exempt" else "grounded")
        self.parts.append(printed)
        self.marks.append(Mark(self.block, slot, what, kind, printed, path, status, raw))
        return self

    def figure(self, kind: str, slot: str, raw: str, path: str) -> Prose:
        return self._put("figure", kind, slot, raw, path)

    def entity(self, kind: str, slot: str, raw: str, path: str) -> Prose:
        return self._put("entity", kind, slot, raw, path)

    def exempt(self, raw: str) -> Prose:
        return self._put("exempt", "template", "playbook", raw, "")

    def cohort(self, opp: dict[str, Any], p: str) -> Prose:
        """``**A × 360 months**``: bold segment values joined by ``×``."""
        self.text("**")
        for i, (col, value) in enumerate(opp["segment"].items()):
            if i:
                self.text(" × ")
            self.entity("cohort", f"cohort.{col}", str(value), f"{p}.segment.{col}")
        return self.text("**")

    def columns(self, opp: dict[str, Any], p: str) -> Prose:
        """``(grade × term)``: the decision columns in parentheses."""
        self.text("(")
        for i, col in enumerate(opp["decision_cols"]):
            if i:
                self.text(" × ")
            self.entity("decision_col", f"col.{col}", col, f"{p}.decision_cols[{i}]")
        return self.text(")")

    def archetype(self, opp: dict[str, Any], p: str) -> Prose:
        self.text("Archetype: **")
        self.entity("archetype", "archetype", opp["archetype"], f"{p}.archetype")
        return self.text("**.")

    def usd(self, slot: str, value: float, path: str, **fmt: Any) -> Prose:
        return self.figure("usd", slot, fmt_money(value, **fmt), path)

    def quarters(self, opp: dict[str, Any], p: str) -> Prose:
        k, m = opp["persistence_quarters_out_of_total"]
        path = f"{p}.persistence_quarters_out_of_total"
        self.figure("quarters", "quarters_observed", str(k), f"{path}[0]")
        self.text(" of ")
        self.figure("quarters", "quarters_total", str(m), f"{path}[1]")
        return self.text(" quarters")

    def rendered(self) -> str:
        return "".join(self.parts)


def _is_shape_b(opp: dict[str, Any]) -> bool:
    return "current_outcome_usd_annual" in opp


def _outcome(opp: dict[str, Any], p: str) -> tuple[float, str]:
    key = "current_outcome_usd_annual" if _is_shape_b(opp) else "outcome_total_usd_annual"
    return opp[key], f"{p}.{key}"


def _rate(opp: dict[str, Any], p: str) -> tuple[str, float, str]:
    key = "denial_rate" if "denial_rate" in opp else "default_rate"
    return key.replace("_", " "), opp[key], f"{p}.{key}"


def _final_week(opp: dict[str, Any]) -> int:
    return opp.get("time_to_implement_weeks", 8)


def board_narrative(opp: dict[str, Any], p: str, tamper: dict, total: float | None = None) -> Prose:
    """Opens with the bold cohort, the columns, bold leakage and loans, quarters observed."""
    outcome, outcome_path = _outcome(opp, p)
    rate_name, rate, rate_path = _rate(opp, p)
    b = Prose("narrative", tamper).cohort(opp, p).text(" ").columns(opp, p)
    b.text(" loses **" if _is_shape_b(opp) else " leaks **")
    b.usd("outcome", outcome, outcome_path).text("** a year across **")
    b.figure("count", "n", f"{opp['n']:,} loans", f"{p}.n").text("**, in ")
    b.quarters(opp, p).text(" observed (persistence score of ")
    b.figure("score", "persistence", fmt_score(opp["persistence_score"]), f"{p}.persistence_score")
    b.text(f"). The cohort's {rate_name} is ")
    b.figure("percent", "rate", fmt_pct(rate), rate_path).text(". ").archetype(opp, p)
    if total is not None:
        b.text(" Across the portfolio, the opportunities total ")
        b.usd("portfolio_total", total, "total_projected_impact_usd_annual").text(" a year.")
    return b


def board_counterfactual(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    impact_path = f"{p}.projected_impact_usd_annual"
    b = Prose("counterfactual", tamper).text("**Counterfactual:** ")
    if _is_shape_b(opp):
        b.text(f"{opp['recommendation']}; the projected outcome improves to ")
        b.usd(
            "projected",
            opp["projected_outcome_usd_annual"],
            f"{p}.projected_outcome_usd_annual",
            signed=True,
        )
        b.text(" a year, an annual impact of ")
    else:
        b.text(f"{opp['projected_action']}, recovering ")
    b.usd("impact", opp["projected_impact_usd_annual"], impact_path)
    return b.text(" a year." if not _is_shape_b(opp) else ".")


def board_risk(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    outcome, outcome_path = _outcome(opp, p)
    b = Prose("risk_of_inaction", tamper).text("**Risk of inaction:** the cohort stays at ")
    b.usd("outcome", outcome, outcome_path, signed=True)
    b.text(" a year; the average loan loses ")
    b.figure("usd", "mean", fmt_dollars(opp["outcome_mean_usd"]), f"{p}.outcome_mean_usd")
    return b.text(".")


def board_rollout(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    b = Prose("rollout", tamper).text("**Rollout:** rated ")
    b.figure(
        "difficulty",
        "difficulty",
        str(opp["difficulty_score_1_to_5"]),
        f"{p}.difficulty_score_1_to_5",
    )
    return b.text(
        f"/5 for difficulty; pilot on new originations in weeks 1-2, full book in weeks "
        f"2-{_final_week(opp)}."
    )


def operator_narrative(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    outcome, outcome_path = _outcome(opp, p)
    b = Prose("narrative", tamper).text("Cohort key: ").cohort(opp, p).text(" ").columns(opp, p)
    b.text(". ").archetype(opp, p).text(" Annualized $ at stake: ")
    b.usd("outcome", outcome, outcome_path, b_places=2).text(" across **")
    b.figure("count", "n", f"{opp['n']:,} loans", f"{p}.n").text("** (mean ")
    b.figure(
        "usd", "mean", fmt_dollars(opp["outcome_mean_usd"], signed=True), f"{p}.outcome_mean_usd"
    )
    return b.text(" per loan).")


def operator_counterfactual(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    play = PLAYBOOK[opp["archetype"]]
    b = Prose("counterfactual", tamper).text("**Counterfactual:** ")
    if TEMPLATE_CONSTANT in play:
        head, tail = play.split(TEMPLATE_CONSTANT)
        b.text(head).exempt(TEMPLATE_CONSTANT).text(tail)
    else:
        b.text(play)
    if _is_shape_b(opp):
        b.text("; projected outcome ")
        b.usd(
            "projected",
            opp["projected_outcome_usd_annual"],
            f"{p}.projected_outcome_usd_annual",
            signed=True,
            b_places=2,
        )
        b.text(" a year, impact ")
    else:
        b.text("; projected annual impact ")
    b.usd(
        "impact", opp["projected_impact_usd_annual"], f"{p}.projected_impact_usd_annual", b_places=2
    )
    return b.text(".")


def operator_risk(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    rate_name, rate, rate_path = _rate(opp, p)
    b = Prose("risk_of_inaction", tamper).text("**Risk of inaction:** loss observed in ")
    b.quarters(opp, p).text(" (persistence score of ")
    b.figure("score", "persistence", fmt_score(opp["persistence_score"]), f"{p}.persistence_score")
    b.text(f"); {rate_name} ").figure("percent", "rate", fmt_pct(rate), rate_path)
    return b.text(".")


def operator_rollout(opp: dict[str, Any], p: str, tamper: dict) -> Prose:
    b = Prose("rollout", tamper).text("**Rollout:** difficulty rated ")
    b.figure(
        "difficulty",
        "difficulty",
        str(opp["difficulty_score_1_to_5"]),
        f"{p}.difficulty_score_1_to_5",
    )
    b.text(f"/5; pilot in weeks 1-2, full book in weeks 2-{_final_week(opp)}. ")
    b.text("Sample evidence rows for spot-check: ")
    for i, row in enumerate(opp["evidence_row_ids"][:3]):
        b.entity("evidence_row", f"evidence.{i}", str(row), f"{p}.evidence_row_ids[{i}]")
        b.text(", ")
    return b.text("...")


RENDERERS = {
    "board": (board_narrative, board_counterfactual, board_risk, board_rollout),
    "operator": (operator_narrative, operator_counterfactual, operator_risk, operator_rollout),
}


def explain(
    source: dict[str, Any], audience: str, defects: list[Defect] | None = None
) -> tuple[dict[str, Any], list[tuple[str, Mark]]]:
    """The explainer: a memo sidecar for ``audience`` plus every mark it printed, by opp id."""
    defects = defects or []
    dropped = {d.opportunity for d in defects if d.kind == "dropped_opportunity"}
    headline = source["total_projected_impact_usd_annual"]
    for d in defects:
        if d.kind == "stale_headline":
            headline = int(d.wrong)
    explained, marks = [], []
    narrative, counterfactual, risk, rollout = RENDERERS[audience]
    for i, opp in enumerate(source["opportunities"]):
        if opp["id"] in dropped:
            continue
        tamper = {d.key: d for d in defects if d.opportunity == opp["id"] and d.slot}
        p = f"opportunities[{i}]"
        first = audience == "board" and i == 0 and not defects_for(source["portco_id"], "board")
        blocks = [
            narrative(opp, p, tamper, source["total_projected_impact_usd_annual"])
            if first
            else narrative(opp, p, tamper),
            counterfactual(opp, p, tamper),
            risk(opp, p, tamper),
            rollout(opp, p, tamper),
        ]
        entry = {"id": opp["id"], "archetype": opp["archetype"], "segment": dict(opp["segment"])}
        applied = set()
        for b in blocks:
            entry[b.block] = b.rendered()
            marks += [(opp["id"], m) for m in b.marks]
            applied |= {(m.block, m.slot) for m in b.marks if m.status in KINDS}
        explained.append(entry)
        unused = set(tamper) - applied
        if unused:
            raise AssertionError(f"defects never applied: {sorted(unused)}")
    memo = {
        "portco_id": source["portco_id"],
        "audience": audience,
        "as_of": source["as_of"],
        "total_projected_impact_usd_annual": headline,
        "vertical": source["vertical"],
        "ebitda_baseline_usd": source["ebitda_baseline_usd"],
        "opportunities_explained": explained,
        "source_opportunity_map": f"dx_report_{source['portco_id']}.json",
    }
    return memo, marks


# --------------------------------------------------------------------------------------------
# Self-checks: the defects are what README says, and only them
# --------------------------------------------------------------------------------------------


def numeric_leaves(node: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """Every number in a JSON document with its path (bools excluded)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from numeric_leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from numeric_leaves(v, f"{path}[{i}]")
    elif isinstance(node, int | float) and not isinstance(node, bool):
        yield path, float(node)


def string_leaves(node: Any) -> Iterator[str]:
    """Every string and dict key in a JSON document, plus numbers as text."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from string_leaves(v)
    elif isinstance(node, list):
        for v in node:
            yield from string_leaves(v)
    else:
        yield str(node)


def check_defects(source: dict[str, Any], memos: dict[str, dict[str, Any]]) -> None:
    """Fail the build if a planted defect could be read as anything other than its kind."""
    usd = [(p, v) for p, v in numeric_leaves(source) if "usd" in p.rsplit(".", 1)[-1]]
    for d in DEFECTS:
        if d.portco != source["portco_id"]:
            continue
        idx = next(
            (i for i, o in enumerate(source["opportunities"]) if o["id"] == d.opportunity), None
        )
        own = f"opportunities[{idx}]."
        if d.kind == "fabricated_figure":
            hits = [p for p, v in usd if money_matches(d.wrong, v)]
            assert not hits, f"fabricated {d.wrong} matches {hits}"
        elif d.kind == "misattributed_figure":
            hits = [p for p, v in usd if money_matches(d.wrong, v)]
            assert hits and all(p.startswith("opportunities[") for p in hits), hits
            assert not any(p.startswith(own) for p in hits), hits
        elif d.kind == "invented_entity":
            universe = {s.casefold() for s in string_leaves(source)}
            assert d.wrong.casefold() not in universe, d.wrong
        elif d.kind == "stale_headline":
            total = source["total_projected_impact_usd_annual"]
            assert abs(float(d.wrong) - total) > 0.01 * total
            other = memos["operator"]["total_projected_impact_usd_annual"]
            assert abs(float(d.wrong) - other) > 0.01 * other
        elif d.kind == "dropped_opportunity":
            ids = {o["id"] for o in memos[d.audience]["opportunities_explained"]}
            assert d.opportunity not in ids and idx is not None


def check_text(text: str, what: str) -> None:
    """Producer-written free text (actions, recommendations) must carry no figures."""
    if any(ch.isdigit() for ch in text):
        raise AssertionError(f"{what} contains digits, which would read as figures: {text!r}")


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _tally(marks: list[tuple[str, Mark]]) -> str:
    figures = Counter(m.kind for _, m in marks if m.what == "figure")
    entities = Counter(m.kind for _, m in marks if m.what == "entity")
    exempt = sum(1 for _, m in marks if m.what == "exempt")
    fig = ", ".join(f"{k} {v}" for k, v in sorted(figures.items()))
    ent = ", ".join(f"{k} {v}" for k, v in sorted(entities.items()))
    return f"{sum(figures.values())} ({fig}) | {exempt} | {sum(entities.values())} ({ent})"


def resolve(doc: Any, path: str) -> Any:
    """The value at a JSON path such as ``opportunities[1].segment.state``.

    >>> resolve({"a": [{"b": 2}]}, "a[0].b")
    2
    """
    for part in path.replace("]", "").split("."):
        name, *indexes = part.split("[")
        if name:
            doc = doc[name]
        for i in indexes:
            doc = doc[int(i)]
    return doc


def _rounding_notes(built: list[tuple[dict[str, Any], str, dict[str, Any], Any]]) -> list[str]:
    """Name the printed money figures that differ from their source by more than 1%."""
    values, notes = [], {}
    for source, _audience, _memo, marks in built:
        for oid, m in marks:
            if m.kind != "usd" or m.status != "grounded":
                continue
            value = resolve(source, m.path)
            values.append(abs(value))
            printed = float(m.raw.replace("$", "").replace(",", "").rstrip("KMB"))
            printed *= {"K": 1e3, "M": 1e6, "B": 1e9}.get(m.raw[-1], 1.0)
            if abs(abs(printed) - abs(value)) > 0.01 * abs(value):
                notes.setdefault((source["portco_id"], oid, m.raw, m.path), f"{value:,}")
    listed = "; ".join(
        f"{p} {o} `{raw}` for `{path}` = {v}" for (p, o, raw, path), v in sorted(notes.items())
    )
    return [
        f"Printed money runs from {fmt_dollars(min(values))} to {fmt_money(max(values))}.",
        "Correct figures that differ from their source by more than 1% but stay inside their",
        f"displayed precision (the grader must accept them): {listed}.",
    ]


def readme(built: list[tuple[dict[str, Any], str, dict[str, Any], list[tuple[str, Mark]]]]) -> str:
    """``finance_output/README.md``: what the files are, what was printed, the planted defects."""
    lines = [
        "# Demo data: DX OpportunityMaps and explainer memos",
        "",
        "Generated by `python scripts/build_demo_data.py` (deterministic; do not edit by hand).",
        "The script plays the two upstream tools: the DX diagnostic writes",
        "`dx_report_<portco>.json`, the explainer writes `explain_<portco>_<audience>.json`",
        "(audiences `board` and `operator`) with prose in the producers' conventions",
        "(DESIGN.md section 2). All companies, loans and row ids are synthetic.",
        "",
        "| portco | opportunity shape | memos | intent |",
        "|---|---|---|---|",
        "| MortgageCo | A (`outcome_total_usd_annual`, `projected_action`) | board, operator "
        "| clean on all four dimensions |",
        "| HMDA_GA | B (`current_/projected_outcome_usd_annual`, `recommendation`, quarterly "
        "series, numeric segment codes, string row ids) | board, operator "
        "| clean on all four dimensions |",
        "| southeast_lender | mixed (opp_01-02 A, opp_03-04 B) | board, operator "
        "| five planted defects, below |",
        "",
        *_rounding_notes(built),
        "",
        "## What each memo prints",
        "",
        "Counted by construction (the explainer records every figure and entity it prints).",
        "Figures: `usd`, `percent`, `count` (`**23,681 loans**`), `quarters` (`k of m quarters`",
        "is two), `score` (`persistence score of 0.80`), `difficulty` (`rated 4/5`). Exempt:",
        "the playbook constant `~5%` (`throttle volume to the cohort to ~5% of current`).",
        "Entities: `cohort` (each bold segment value), `archetype` (bold), `decision_col`",
        "(the parenthesised `(grade × term)`), `evidence_row` (operator spot-check ids).",
        "",
        "| memo | opportunities | figures | exempt | entities |",
        "|---|---|---|---|---|",
    ]
    for source, audience, memo, marks in built:
        n_src = len(source["opportunities"])
        n_memo = len(memo["opportunities_explained"])
        lines.append(
            f"| explain_{source['portco_id']}_{audience}.json | {n_memo} of {n_src} | "
            f"{_tally(marks)} |"
        )
    lines += [
        "",
        "## Planted defects (southeast_lender)",
        "",
        "Exactly these five, and nothing else, are wrong in the demo data. Each row names the",
        "memo, the opportunity, the field, the text the memo carries and what it should be.",
        "",
        "| # | defect | portco | audience | opportunity | field | wrong text | should be "
        "| grader should report |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    by_memo = {(s["portco_id"], a): (s, m, mk) for s, a, m, mk in built}
    for i, d in enumerate(DEFECTS, 1):
        source, memo, marks = by_memo[(d.portco, d.audience)]
        if d.kind == "stale_headline":
            wrong, right = f"`{int(float(d.wrong))}`", f"`{source[d.field]}`"
        elif d.kind == "dropped_opportunity":
            wrong, right = "(absent)", f"`{d.opportunity}` explained"
        else:
            mark = next(
                m
                for oid, m in marks
                if oid == d.opportunity and (m.block, m.slot) == (d.field, d.slot)
            )
            wrong, right = f"`{mark.raw}`", f"`{mark.intended}`"
        lines.append(
            f"| {i} | {d.kind} | {d.portco} | {d.audience} | {d.opportunity or '-'} | "
            f"{d.field} | {wrong} | {right} | {d.expect} |"
        )
    lines += [
        "",
        "In context: defect 1 reads `recovering $6.8M a year` (opp_02 projects $4.2M);",
        "defect 2 reads `the cohort stays at $-7.9M a year` in opp_01 (opp_01 is $-18.4M;",
        "$-7.9M is opp_02's outcome); defect 4 reads `Cohort key: **FL × Debt consolidation**`",
        "(the source segment is `state: AL`). The structured `segment` objects in the memos",
        "stay correct: only the prose is wrong, as when a model paraphrases badly.",
        "Consistency: the board headline 17,118,000 is 9.9% below the source total",
        "18,991,450; the operator headline equals the source, so both southeast memos see a",
        "sibling disagreement, and the board memo also disagrees with its own source.",
        "",
    ]
    return "\n".join(lines)


def build(out: Path) -> list[Path]:
    """Write every OpportunityMap, memo and the README into ``out``; return the paths."""
    written, built = [], []
    for portco, make in PORTCOS.items():
        source = make()
        for opp in source["opportunities"]:
            check_text(opp.get("projected_action", opp.get("recommendation", "")), opp["id"])
        memos = {}
        for audience in AUDIENCES:
            memo, marks = explain(source, audience, defects_for(portco, audience))
            memos[audience] = memo
            built.append((source, audience, memo, marks))
        check_defects(source, memos)
        written.append(atomic_write_text(out / f"dx_report_{portco}.json", dump(source)))
        for audience, memo in memos.items():
            written.append(atomic_write_text(out / f"explain_{portco}_{audience}.json", dump(memo)))
    written.append(atomic_write_text(out / "README.md", readme(built)))
    for path in written:
        path.chmod(0o644)  # data files, readable like any checked-in file (mkstemp made 0600)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "finance_output", help="output folder")
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
