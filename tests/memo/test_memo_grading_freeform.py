"""Issue 11 rules on free-form prose, one table per rule: section labels, figures quoted in
the source's strings, explicit signs, count shapes, number words and fractions, worded
derivations (recovery ratios, sums), names in plain prose. Each row is graded end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.memo import FindingKind, GraderConfig, grade_memo

SOURCE = {
    "portco_id": "Acme",
    "vertical": "consumer_lending",
    "ebitda_baseline_usd": 48_500_000,
    "as_of": "2025-12-31",
    "total_projected_impact_usd_annual": 6_272_550,  # with a third lever not listed here
    "opportunities": [
        {
            "id": "opp_01",
            "archetype": "pricing",
            "decision_cols": ["credit_band", "state"],
            "segment": {"credit_band": "660-699", "state": "NV"},
            "n": 41_200,
            "outcome_total_usd_annual": -8_652_000,
            "outcome_mean_usd": -210.0,
            "charge_off_rate": 0.074,
            "quarterly_charge_off_rate": [{"quarter": "2025Q1", "value": 0.067}],
            "persistence_score": 0.78,
            "persistence_quarters_out_of_total": [5, 9],
            "difficulty_score_1_to_5": 2,
            "projected_impact_usd_annual": 3_460_800,
            "projected_action": "Reprice the 660-699 band in NV by 175bps",
            "evidence_row_ids": [104233, 88710],
        },
        {
            "id": "opp_02",
            "archetype": "selection",
            "decision_cols": ["loan_amount_band", "channel"],
            "segment": {"loan_amount_band": "$1,000-$2,500", "channel": "Online"},
            "n": 58_340,
            "outcome_total_usd_annual": -4_375_500,
            "outcome_mean_usd": -75.0,
            "persistence_score": 0.5,
            "persistence_quarters_out_of_total": [4, 8],
            "difficulty_score_1_to_5": 3,
            "projected_impact_usd_annual": 2_187_750,
            "projected_action": "Decline first-time online applicants requesting under $1,500",
            "evidence_row_ids": [310552, 17034],
        },
    ],
}
FILLER = "Owner: credit."


def grade(tmp_path: Path, text: str, opp: str = "opp_01", **config):
    """Grade a memo whose ``opp`` narrative is ``text`` (every other block a filler)."""
    memo = {
        "portco_id": "Acme",
        "audience": "board",
        "total_projected_impact_usd_annual": SOURCE["total_projected_impact_usd_annual"],
        "source_opportunity_map": "dx_report_Acme.json",
        "opportunities_explained": [
            {
                "id": o["id"],
                "narrative": text if o["id"] == opp else FILLER,
                "counterfactual": FILLER,
                "risk_of_inaction": FILLER,
                "rollout": FILLER,
            }
            for o in SOURCE["opportunities"]
        ],
    }
    (tmp_path / "dx_report_Acme.json").write_text(json.dumps(SOURCE), encoding="utf-8")
    path = tmp_path / "explain_Acme_board.json"
    path.write_text(json.dumps(memo), encoding="utf-8")
    return grade_memo(path, tmp_path / "dx_report_Acme.json", config=GraderConfig(**config))


def figure(ev, raw: str):
    (mark,) = [m for m in ev.marks if m.what == "figure" and m.raw == raw]
    return mark


def findings(ev, raw: str) -> list[str]:
    return [str(f.kind.value) for f in ev.findings if f.raw == raw]


# --- section labels -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("**Next step:** reprice.", []),
        ("**If we wait**: it grows.", []),
        ("**Where the money is**\n\nAt the top.", []),
        ("**Q3 2026:** go live.", []),
        ("**660-699 × NV** is the lever.", ["660-699", "NV"]),
        ("**660-699 × NV:** the lever.", ["660-699", "NV"]),
        ("**Texas**\nis not a label.", ["Texas"]),
    ],
)
def test_section_labels_name_nothing(tmp_path, text, entities):
    ev = grade(tmp_path, text)
    assert [m.raw for m in ev.marks if m.what == "entity" and m.field == "narrative"] == entities


# --- figures quoted in the source's strings -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "raw", "status", "path"),
    [
        ("Reprice by 175bps.", "175bps", "grounded", "opportunities[0].projected_action"),
        ("Reprice by 225bps.", "225bps", "ungrounded", None),
        (
            "Applicants under $1,500.",
            "$1,500",
            "misattributed",
            "opportunities[1].projected_action",
        ),
    ],
)
def test_numbers_inside_source_strings(tmp_path, text, raw, status, path):
    mark = figure(grade(tmp_path, text), raw)
    assert mark.status == status
    if path:
        assert mark.source_path == path


def test_a_series_of_rates_grounds_like_any_rate(tmp_path):
    mark = figure(grade(tmp_path, "It was 6.7% in Q1."), "6.7%")
    assert (mark.status, mark.source_path) == (
        "grounded",
        "opportunities[0].quarterly_charge_off_rate[0].value",
    )


# --- signs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "raw", "kinds"),
    [
        ("It loses +$8.65M a year.", "+$8.65M", ["sign_mismatch"]),
        ("It loses -$8.65M a year.", "-$8.65M", []),
        ("It loses $8.65M a year.", "$8.65M", []),
        ("Impact +$3.46M.", "+$3.46M", []),
        ("Impact -$3.46M.", "-$3.46M", ["sign_mismatch"]),
        ("Mean loss +$210.", "+$210", ["sign_mismatch"]),
    ],
)
def test_explicit_signs(tmp_path, text, raw, kinds):
    assert findings(grade(tmp_path, text), raw) == kinds


# --- counts and precision --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "raw", "status"),
    [
        ("Across 41.2k loans.", "41.2k loans", "grounded"),
        ("Across 41k loans.", "41k loans", "grounded"),
        ("Across 43k loans.", "43k loans", "ungrounded"),
        ("Roughly 41,000 loans.", "41,000 loans", "grounded"),  # [40,500, 41,500]
        ("Nearly 41,300 loans.", "41,300 loans", "ungrounded"),  # [41,250, 41,350]
        ("Nearly 41,210 loans.", "41,210 loans", "ungrounded"),  # one zero: exact
        ("Across 58k loans.", "58k loans", "misattributed"),
    ],
)
def test_count_shapes(tmp_path, text, raw, status):
    assert figure(grade(tmp_path, text), raw).status == status


# --- number words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "raw", "status"),
    [
        ("Loss-making in five of the last nine quarters.", "five", "grounded"),
        ("Loss-making in seven of the last nine quarters.", "seven", "ungrounded"),
        ("Loss-making in five of the last ten quarters.", "ten quarters", "ungrounded"),
        ("Difficulty: two out of five.", "two", "grounded"),
        ("Difficulty: four out of five.", "four", "ungrounded"),
    ],
)
def test_number_words(tmp_path, text, raw, status):
    assert figure(grade(tmp_path, text), raw).status == status


@pytest.mark.parametrize(
    ("text", "raw", "status", "opp"),
    [
        # 3,460,800 / 8,652,000 = 40%: a recovery ratio, licensed by "of the loss"
        ("It recovers 40% of the cohort's loss.", "40%", "derived", "opp_01"),
        ("It recovers 55% of the cohort's loss.", "55%", "ungrounded", "opp_01"),
        # a percent alone in brackets after a USD figure, in a sentence about the loss
        ("It trims the loss, a gain of $3.5M (40%).", "40%", "derived", "opp_01"),
        ("It trims the loss, a gain of $3.5M (55%).", "55%", "ungrounded", "opp_01"),
        # 2,187,750 / 4,375,500 = 50%
        ("It cuts the loss in half.", "half", "derived", "opp_02"),
        ("It cuts the loss by a third.", "a third", "ungrounded", "opp_02"),
        ("It halves the loss.", "halves", "derived", "opp_02"),
        # 4 of 8 quarters
        ("It appeared in half of the quarters observed.", "half", "derived", "opp_02"),
        # a score of 0.5 is not "half" of anything
        ("Half of the programme is at stake.", "Half", "ungrounded", "opp_02"),
    ],
)
def test_fraction_words_and_shares(tmp_path, text, raw, status, opp):
    assert figure(grade(tmp_path, text, opp=opp), raw).status == status


def test_a_derived_mark_carries_its_formula(tmp_path):
    mark = figure(grade(tmp_path, "It recovers 40% of the cohort's loss."), "40%")
    assert mark.source_path == (
        "opportunities[0].projected_impact_usd_annual / -opportunities[0].outcome_total_usd_annual"
    )


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("Together with the next lever they are worth $5.6M.", "derived"),
        ("It is worth $5.6M.", "ungrounded"),  # a sum only where the prose says so
    ],
)
def test_cross_opportunity_sums_need_sum_wording(tmp_path, text, status):
    assert figure(grade(tmp_path, text), "$5.6M").status == status


# --- names in plain prose --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "raw", "kinds"),
    [
        ("Go live in NV first.", "NV", []),  # its own state: nothing to report
        ("Go live in OH first.", "OH", ["ungrounded_entity"]),
        ("Go live in Ohio first.", "Ohio", ["ungrounded_entity"]),
        ("Go live in Nevada first.", "Nevada", []),
        ("Reprice the 620-659 band.", "620-659", ["ungrounded_entity"]),
        ("Reprice the 660-699 band.", "660-699", []),
        ("Start with Online applicants.", "Online", ["misattributed_entity"]),
        # an ordinary word is a name only as the source writes it (issue 19)
        ("Start with online applicants.", "online", []),
        ("An IC memo, weeks 2-4, in-online.", "IC", []),
        ("Spot-check by row ID.", "ID", []),  # a row ID, not Idaho
    ],
)
def test_names_in_plain_prose(tmp_path, text, raw, kinds):
    assert findings(grade(tmp_path, text), raw) == kinds


def test_plain_names_can_be_switched_off(tmp_path):
    assert findings(grade(tmp_path, "Go live in OH first.", plain_names=False), "OH") == []


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("**660-699 × NV** book (credit_band × county).", ["ungrounded_entity"]),
        ("**660-699 × NV** book (credit_band × state).", []),
        ("**660-699 × NV** (see A × B below).", []),
    ],
)
def test_decision_column_list_after_the_cohort(tmp_path, text, kinds):
    ev = grade(tmp_path, text)
    assert [
        str(f.kind.value) for f in ev.findings if f.kind is not FindingKind.TEMPLATE_EXEMPT
    ] == kinds
