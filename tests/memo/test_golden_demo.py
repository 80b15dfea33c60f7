"""Golden tests on the bundled demo data (finance_output/, built by scripts/build_demo_data.py).

Two portcos are clean and must score perfectly, with every correctly rounded figure accepted
(no false alarm); the third carries exactly five planted defects and the grader must report
each of them, and nothing else.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pe_eval_core.memo import FindingKind, eval_pe_output, grade_memo
from pe_eval_core.memo.explain import lowest_dimension

DEMO = Path(__file__).resolve().parents[2] / "finance_output"

pytestmark = pytest.mark.skipif(
    not (DEMO / "dx_report_MortgageCo.json").is_file(), reason="demo data not built"
)

PERFECT = {"citation_accuracy": 1.0, "hallucination_rate": 0.0, "coverage": 1.0, "consistency": 1.0}

# (figures, entities, opportunities, exempt template figures) per clean memo, as built.
CLEAN = {
    ("MortgageCo", "board"): (41, 20, 4, 0),
    ("MortgageCo", "operator"): (36, 32, 4, 1),
    ("HMDA_GA", "board"): (34, 15, 3, 0),
    ("HMDA_GA", "operator"): (30, 24, 3, 0),
}

# Correct figures more than 1% from their source value but inside their displayed precision.
ROUNDED = [
    ("HMDA_GA", "opp_02", "$-1.1M", "opportunities[1].projected_outcome_usd_annual"),
    ("HMDA_GA", "opp_02", "$-3.3M", "opportunities[1].current_outcome_usd_annual"),
    ("HMDA_GA", "opp_02", "$3.3M", "opportunities[1].current_outcome_usd_annual"),
    ("HMDA_GA", "opp_03", "$-12K", "opportunities[2].projected_outcome_usd_annual"),
    ("HMDA_GA", "opp_03", "$29K", "opportunities[2].projected_impact_usd_annual"),
    # "$1.4B" is printed twice in opp_01, for the leakage (-1,387,460,000) and for the total
    # (1,449,903,240, 3.4% off). Both are grounded; a mark names the nearest field, the leakage.
    ("MortgageCo", "opp_01", "$1.4B", "opportunities[0].outcome_total_usd_annual"),
    ("MortgageCo", "opp_03", "$-1.2M", "opportunities[2].outcome_total_usd_annual"),
    ("MortgageCo", "opp_03", "$1.0M", "opportunities[2].projected_impact_usd_annual"),
    ("MortgageCo", "opp_03", "$1.2M", "opportunities[2].outcome_total_usd_annual"),
    ("MortgageCo", "opp_04", "$-15K", "opportunities[3].outcome_total_usd_annual"),
    ("MortgageCo", "opp_04", "$11K", "opportunities[3].projected_impact_usd_annual"),
    ("MortgageCo", "opp_04", "$15K", "opportunities[3].outcome_total_usd_annual"),
    ("southeast_lender", "opp_03", "$-3.0M", "opportunities[2].current_outcome_usd_annual"),
    ("southeast_lender", "opp_03", "$1.9M", "opportunities[2].projected_impact_usd_annual"),
    ("southeast_lender", "opp_03", "$3.0M", "opportunities[2].current_outcome_usd_annual"),
    ("southeast_lender", "opp_04", "$-21K", "opportunities[3].projected_outcome_usd_annual"),
    ("southeast_lender", "opp_04", "$23K", "opportunities[3].projected_impact_usd_annual"),
]


def grade(portco: str, audience: str):
    return grade_memo(DEMO / f"explain_{portco}_{audience}.json", DEMO / f"dx_report_{portco}.json")


def key(f):
    return (f.kind, f.opportunity_id, f.field, f.raw, f.nearest_path, f.other_opportunity_id)


@pytest.mark.parametrize(("portco", "audience"), sorted(CLEAN))
def test_clean_demo_memos_are_perfect(portco, audience):
    ev = grade(portco, audience)
    figures, entities, opps, exempt = CLEAN[(portco, audience)]
    assert ev.scores.model_dump() == PERFECT
    assert ev.totals.model_dump() == {
        "figures_total": figures,
        "figures_cited": figures,
        "entities_total": entities,
        "entities_grounded": entities,
        "opps_in_source": opps,
        "opps_addressed": opps,
    }
    assert [f.kind for f in ev.findings] == [FindingKind.TEMPLATE_EXEMPT] * exempt
    assert (ev.consistency.comparisons, ev.consistency.agreeing) == (2, 2)
    assert lowest_dimension(ev)[0] == "none"


@pytest.mark.parametrize(("portco", "opp", "raw", "path"), ROUNDED)
def test_correctly_rounded_figures_are_never_flagged(portco, opp, raw, path):
    marks = [
        m
        for audience in ("board", "operator")
        for m in grade(portco, audience).marks
        if m.opportunity_id == opp and m.raw == raw and m.what == "figure"
    ]
    assert marks, f"{raw} not found in {portco} {opp}"
    assert {(m.status, m.source_path) for m in marks} == {("grounded", path)}


def test_southeast_board_defects_fabricated_misattributed_stale_headline():
    ev = grade("southeast_lender", "board")
    assert [key(f) for f in ev.findings] == [
        (
            FindingKind.MISATTRIBUTED_FIGURE,
            "opp_01",
            "risk_of_inaction",
            "$-7.9M",
            "opportunities[1].outcome_total_usd_annual",
            "opp_02",
        ),
        (
            FindingKind.UNGROUNDED_FIGURE,
            "opp_02",
            "counterfactual",
            "$6.8M",
            # "recovering $6.8M" claims an impact: the nearest field is of that role
            "opportunities[1].projected_impact_usd_annual",
            None,
        ),
        (
            FindingKind.HEADLINE_MISMATCH,
            None,
            "total_projected_impact_usd_annual",
            "$17.1M",
            "total_projected_impact_usd_annual",
            None,
        ),
        (
            FindingKind.HEADLINE_MISMATCH,
            None,
            "total_projected_impact_usd_annual",
            "$17.1M",
            "explain_southeast_lender_operator.json:total_projected_impact_usd_annual",
            None,
        ),
    ]
    assert ev.scores.model_dump() == {
        "citation_accuracy": 41 / 42,
        "hallucination_rate": 0.0,
        "coverage": 1.0,
        "consistency": 0.0,
    }
    assert ev.consistency.source_total == 18_991_450
    assert ev.consistency.memo_headline == 17_118_000
    assert lowest_dimension(ev)[1].startswith(
        "Consistency is 0% — the headline $17.1M disagrees with its source total ($19.0M"
    )


def test_southeast_operator_defects_invented_entity_dropped_opportunity_stale_sibling():
    ev = grade("southeast_lender", "operator")
    assert [key(f) for f in ev.findings] == [
        (FindingKind.TEMPLATE_EXEMPT, "opp_01", "counterfactual", "5%", None, None),
        # the invented state names the source's state for the cohort as its nearest value
        (
            FindingKind.UNGROUNDED_ENTITY,
            "opp_03",
            "narrative",
            "FL",
            "opportunities[2].segment.state",
            None,
        ),
        (FindingKind.DROPPED_OPPORTUNITY, "opp_04", "id", "opp_04", None, None),
        (
            FindingKind.HEADLINE_MISMATCH,
            None,
            "total_projected_impact_usd_annual",
            "$19.0M",
            "explain_southeast_lender_board.json:total_projected_impact_usd_annual",
            None,
        ),
    ]
    assert ev.totals.model_dump() == {
        "figures_total": 28,
        "figures_cited": 28,
        "entities_total": 24,
        "entities_grounded": 23,
        "opps_in_source": 4,
        "opps_addressed": 3,
    }
    assert ev.scores.model_dump() == {
        "citation_accuracy": 1.0,
        "hallucination_rate": 1 / 24,
        "coverage": 0.75,
        "consistency": 0.5,
    }
    assert ev.consistency.agrees_with_source is True


def test_demo_outputs_are_written_next_to_the_memo(tmp_path):
    folder = tmp_path / "finance_output"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("eval_*"))
    out = eval_pe_output(
        folder / "explain_MortgageCo_board.json", folder / "dx_report_MortgageCo.json"
    )
    assert out["report_path"] == str((folder / "eval_MortgageCo_board.html").resolve())
    assert out["scores"] == PERFECT
    assert out["totals"]["opps_in_source"] == 4
    assert "agrees with 1 of 1 sibling memo" in out["consistency_note"]
