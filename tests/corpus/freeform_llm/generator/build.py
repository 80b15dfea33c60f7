"""Write the LLM-style free-form corpus (issue 19): memos about three of the real producer's
maps written the way a chat model drafts them (headings, bullets, hedges, shares, run-rates,
schedules, pilots), copies of those maps, and planted errors plus correct rewrites.

    python tests/corpus/freeform_llm/generator/build.py
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
PRODUCER = HERE.parent / "producer_run" / "finance_output"
MAPS = ("HMDA_GA", "midwest_lender", "SaaSCo")

MEMOS: dict[tuple[str, str], dict[str, dict[str, str]]] = {
    ("HMDA_GA", "board"): {
        "opp_01": {
            "narrative": (
                "### Headline\n\nThe largest pocket of value sits in **B × 360 months** "
                "(grade × term). These 13,436 loans lose roughly $6.2 million a year, about "
                "41% of the $15.0M programme and close to 43% of EBITDA of USD 14.5 million. "
                "It is a classic pricing problem: the cohort looks fine in the aggregate book "
                "but has been loss-making in every one of the five quarters we can observe."
            ),
            "counterfactual": (
                "If we reroute the cohort to break-even, the run-rate recovers about $1.56M "
                "a quarter, or $6.22M annualised. The average loan in this cohort loses "
                "about $538."
            ),
            "risk_of_inaction": (
                "Doing nothing leaves a $6.2M annual drag in place. The signal is not noise: "
                "persistence is 1.00 and the pattern has held for a full five quarters."
            ),
            "rollout": (
                "- Weeks 1-4: carve out the cohort and hold out a control group of 500 loans.\n"
                "- Weeks 5-8: observe one quarter of post-action data.\n"
                "- Implementation difficulty: four out of five, the hardest of the three."
            ),
        },
        "opp_02": {
            "narrative": (
                "### Second lever\n\n**1 × B** (purpose × grade) is the biggest cohort at "
                "14,781 loans and the biggest loss, $6.83M a year, roughly 46% of the total. "
                "It is a selection issue rather than a pricing one."
            ),
            "counterfactual": (
                "Together with the 360-month cohort above, the two levers add up to $13.1M, "
                "about 87% of the programme. On its own this cohort recovers $6.8M a year."
            ),
            "risk_of_inaction": (
                "The loss has shown up in all five quarters on record, so we would expect "
                "another $1.7M to leak next quarter if nothing changes."
            ),
            "rollout": (
                "Difficulty is low: a 2/5 on our scale. We would start within 30 days and "
                "review after a quarter."
            ),
        },
        "opp_03": {
            "narrative": (
                "### Smaller but clean\n\n**12060 × B** (addr_state × grade) covers 4,566 "
                "loans and costs $1.95M a year, about 13% of the total opportunity."
            ),
            "counterfactual": (
                "Rerouting recovers the full $2.0M. Per loan, the loss is about $496."
            ),
            "risk_of_inaction": (
                "It is an allocation pattern that has persisted in 5 of 5 quarters; the other "
                "two cohorts dwarf it, but it is the easiest to fix."
            ),
            "rollout": (
                "Rated 2/5 on difficulty. A pilot on new originations in days 1-30, then "
                "the full book next quarter."
            ),
        },
    },
    ("HMDA_GA", "operator"): {
        "opp_01": {
            "narrative": (
                "**Cohort:** **B × 360 months**\n"
                "- Size: 13,436 loans\n"
                "- Annual loss: -$6.22M (≈ $518.6K per month)\n"
                "- Persistence: five of five quarters, score 1.00\n"
                "- Difficulty: 4/5"
            ),
            "counterfactual": (
                "Break-even routing lifts EBITDA by ~$6.2M, a 42.9% uplift on the $14.5M "
                "EBITDA baseline."
            ),
            "risk_of_inaction": "Each quarter of delay costs about $1.56M.",
            "rollout": (
                "Week 1: switch routing for the cohort. Weeks 2-8: monitor against a 10% "
                "holdout. Spot-check evidence rows: 949, 11075, 2275."
            ),
        },
        "opp_02": {
            "narrative": (
                "**Cohort:** **1 × B**\n"
                "- Size: 14,781 loans\n"
                "- Annual loss: -$6.83M\n"
                "- Share of total opportunity: 45.5%\n"
                "- Difficulty: two out of five"
            ),
            "counterfactual": "Expected recovery: $6.8M per year (about $1.71M per quarter).",
            "risk_of_inaction": "Loss-making in 5 of 5 quarters; average loss $537 per loan.",
            "rollout": "Throttle the cohort in week 1; review the data after one quarter.",
        },
        "opp_03": {
            "narrative": (
                "**Cohort:** **12060 × B**\n"
                "- Size: 4,566 loans\n"
                "- Annual loss: -$1.95M\n"
                "- Difficulty: 2/5"
            ),
            "counterfactual": "Expected recovery: $1.95M per year, 13.0% of the total.",
            "risk_of_inaction": "Persisted in all five quarters observed.",
            "rollout": "Pilot in weeks 1-2, full rollout in weeks 3-6.",
        },
    },
    ("midwest_lender", "board"): {
        "opp_01": {
            "narrative": (
                "## The main finding\n\nMost of the value is in **C × 36 months** "
                "(grade × term): 2,402 loans that lose about $329K a year, close to 64% of "
                "the $517K identified. That is small against EBITDA of $14.5 million "
                "(about 2.3%), but it has been negative in all eight quarters on record."
            ),
            "counterfactual": (
                "Rerouting the cohort to break-even recovers $329K a year, around $82K per "
                "quarter; the average loan currently loses about $263."
            ),
            "risk_of_inaction": (
                "Persistence is 1.00, so this is a structural pricing issue, not a vintage "
                "effect."
            ),
            "rollout": (
                "This is the hardest fix of the three, rated 4/5. Plan on weeks 1-4 for the "
                "pricing change and a further quarter to validate it."
            ),
        },
        "opp_02": {
            "narrative": (
                "## Second\n\n**credit_card × B** (purpose × grade): 716 loans losing "
                "$132K a year, about a quarter of the total. The loss appeared in six of the "
                "last eight quarters (persistence 0.75)."
            ),
            "counterfactual": "Stopping the selection leak recovers $131.7K annually.",
            "risk_of_inaction": "Roughly $33K leaks every quarter we wait.",
            "rollout": (
                "Difficulty: one of the easier ones at 2/5. Start with a test cell of 200 "
                "applications."
            ),
        },
        "opp_03": {
            "narrative": (
                "## Third\n\n**IL × B** (addr_state × grade): 746 Illinois loans losing "
                "about $56K a year, roughly 11% of the total."
            ),
            "counterfactual": "The fix recovers $55.9K a year.",
            "risk_of_inaction": (
                "Persistence is weaker here (0.63, 5 of 8 quarters), so the allocation "
                "pattern may partly be vintage."
            ),
            "rollout": "Rated two out of five; can ship within 30 days.",
        },
    },
    ("midwest_lender", "operator"): {
        "opp_01": {
            "narrative": (
                "Cohort key: **C × 36 months** (grade × term). 2,402 loans, -$329.3K a year "
                "(-$262.73 per loan). Evidence rows to spot-check: 3108, 661, 3473."
            ),
            "counterfactual": "Projected recovery $329.3K/yr, or about $27.4K a month.",
            "risk_of_inaction": "Negative in 8 of 8 quarters.",
            "rollout": "Difficulty 4/5. Weeks 1-4 pricing change; weeks 5-12 monitoring.",
        },
        "opp_02": {
            "narrative": (
                "Cohort key: **credit_card × B** (purpose × grade). 716 loans, -$131.7K a "
                "year."
            ),
            "counterfactual": "Projected recovery $131.7K/yr (25.5% of total).",
            "risk_of_inaction": "Negative in 6 of 8 quarters; persistence 0.75.",
            "rollout": "Difficulty 2/5. Hold out 10% of applications as control.",
        },
        "opp_03": {
            "narrative": (
                "Cohort key: **IL × B** (addr_state × grade). 746 loans, -$55.9K a year."
            ),
            "counterfactual": "Projected recovery $55.9K/yr.",
            "risk_of_inaction": "Negative in 5 of 8 quarters; persistence 0.63.",
            "rollout": "Difficulty 2/5. Ship in week 2.",
        },
    },
    ("SaaSCo", "board"): {
        "opp_01": {
            "narrative": (
                "### One pricing leak\n\nDeals in **30-50% × <50** (discount_bucket × "
                "employee_bucket), deep discounts to small customers, lose about $146K a "
                "year across 32 deals. Against a $40M EBITDA base that is under 0.4%, but "
                "it recurs in all twelve quarters we track."
            ),
            "counterfactual": (
                "Capping the discount brings the cohort to break-even ($0 projected "
                "outcome), a gain of roughly $36.5K a quarter."
            ),
            "risk_of_inaction": "Every year we wait costs another $146K.",
            "rollout": "Implementation difficulty is two out of five; about 3 weeks of work.",
        },
    },
    ("SaaSCo", "operator"): {
        "opp_01": {
            "narrative": (
                "Cohort key: **30-50% × <50**. 32 deals, current outcome -$145.8K a year. "
                "Spot-check evidence rows: 2258, 10462, 368."
            ),
            "counterfactual": "Projected outcome $0; projected impact +$145.8K a year.",
            "risk_of_inaction": "Loss-making in 12 of 12 quarters.",
            "rollout": "Difficulty 2/5; 3 weeks to implement.",
        },
    },
}

# (memo, opp, field, find, replace, class, note)
CASES = [
    # explicit + on a loss
    ("HMDA_GA_operator", "opp_01", "narrative", "-$6.22M", "+$6.22M", "sign_flip", "a loss written positive with +"),
    ("midwest_lender_operator", "opp_02", "narrative", "-$131.7K", "+$131.7K", "sign_flip", ""),
    ("SaaSCo_operator", "opp_01", "narrative", "-$145.8K", "+$145.8K", "sign_flip", ""),
    # difficulty
    ("HMDA_GA_board", "opp_02", "rollout", "a 2/5 on our scale", "a 3/5 on our scale", "wrong_difficulty", ""),
    ("HMDA_GA_board", "opp_01", "rollout", "four out of five", "one out of five", "wrong_difficulty", ""),
    ("midwest_lender_board", "opp_03", "rollout", "two out of five", "three out of five", "wrong_difficulty", ""),
    ("SaaSCo_board", "opp_01", "rollout", "two out of five", "four out of five", "wrong_difficulty", ""),
    # quarters in words
    ("midwest_lender_board", "opp_02", "narrative", "six of the last eight quarters", "seven of the last eight quarters", "wrong_quarters", ""),
    ("midwest_lender_board", "opp_01", "narrative", "all eight quarters", "all ten quarters", "wrong_quarters", ""),
    ("HMDA_GA_operator", "opp_01", "narrative", "five of five quarters", "four of five quarters", "wrong_quarters", ""),
    # count from another opportunity
    ("HMDA_GA_board", "opp_03", "narrative", "4,566 loans", "14,781 loans", "other_opportunity_value", "opp_02's n"),
    ("midwest_lender_operator", "opp_03", "narrative", "746 loans", "716 loans", "other_opportunity_value", "opp_02's n"),
    ("HMDA_GA_operator", "opp_02", "narrative", "14,781 loans", "13,436 loans", "other_opportunity_value", "opp_01's n"),
    # invented decision column / cohort value
    ("HMDA_GA_board", "opp_02", "narrative", "(purpose × grade)", "(purpose × vintage)", "invented_decision_column", ""),
    ("midwest_lender_board", "opp_03", "narrative", "(addr_state × grade)", "(addr_state × income band)", "invented_decision_column", ""),
    ("midwest_lender_operator", "opp_01", "narrative", "(grade × term)", "(grade × channel)", "invented_decision_column", ""),
    ("HMDA_GA_operator", "opp_03", "narrative", "**12060 × B**", "**12060 × D**", "invented_cohort_value", ""),
    ("midwest_lender_board", "opp_01", "narrative", "**C × 36 months**", "**C × 60 months**", "invented_cohort_value", ""),
    # shares and run-rates that are wrong
    ("HMDA_GA_board", "opp_01", "narrative", "about 41% of the $15.0M programme", "about 48% of the $15.0M programme", "wrong_share", ""),
    ("HMDA_GA_operator", "opp_02", "narrative", "45.5%", "51.5%", "wrong_share", ""),
    ("midwest_lender_board", "opp_03", "narrative", "roughly 11% of the total", "roughly 19% of the total", "wrong_share", ""),
    ("HMDA_GA_board", "opp_01", "counterfactual", "about $1.56M a quarter", "about $1.86M a quarter", "wrong_run_rate", ""),
    ("midwest_lender_operator", "opp_01", "counterfactual", "about $27.4K a month", "about $34.1K a month", "wrong_run_rate", ""),
    ("HMDA_GA_operator", "opp_01", "risk_of_inaction", "about $1.56M", "about $2.05M", "wrong_run_rate", ""),
    # EBITDA baseline in other formats
    ("HMDA_GA_board", "opp_01", "narrative", "EBITDA of USD 14.5 million", "EBITDA of USD 16.5 million", "wrong_baseline", ""),
    ("midwest_lender_board", "opp_01", "narrative", "EBITDA of $14.5 million", "EBITDA of $12.5 million", "wrong_baseline", ""),
    ("SaaSCo_board", "opp_01", "narrative", "a $40M EBITDA base", "a $45M EBITDA base", "wrong_baseline", ""),
    # wrong figures and quantities
    ("HMDA_GA_board", "opp_03", "counterfactual", "about $496", "about $612", "wrong_figure", ""),
    ("midwest_lender_board", "opp_02", "narrative", "$132K a year", "$152K a year", "wrong_figure", ""),
    ("HMDA_GA_operator", "opp_01", "counterfactual", "42.9% uplift", "47.9% uplift", "wrong_figure", ""),
    ("SaaSCo_operator", "opp_01", "counterfactual", "Projected outcome $0", "Projected outcome $145.8K", "wrong_quantity", "the impact called a projected outcome"),
    ("HMDA_GA_board", "opp_01", "risk_of_inaction", "a $6.2M annual drag", "a $14.5M annual drag", "wrong_quantity", "EBITDA called a loss"),
    ("midwest_lender_operator", "opp_02", "risk_of_inaction", "persistence 0.75", "persistence 0.85", "wrong_score", ""),
    # names in plain prose
    ("midwest_lender_board", "opp_03", "narrative", "746 Illinois loans", "746 Indiana loans", "wrong_state", ""),
    ("HMDA_GA_board", "opp_02", "risk_of_inaction", "all five quarters on record", "all six quarters on record", "wrong_quarters", ""),
    # correct rewrites (any finding on them is a false flag)
    ("HMDA_GA_board", "opp_02", "rollout", "review after a quarter", "review after one quarter", "correct_duration", ""),
    ("HMDA_GA_board", "opp_03", "rollout", "in days 1-30", "in weeks 1-4", "correct_schedule", ""),
    ("midwest_lender_board", "opp_02", "rollout", "a test cell of 200", "a control group of 1,500", "correct_control_group", ""),
    ("HMDA_GA_board", "opp_01", "narrative", "a classic pricing problem", "a classic allocation-style pricing problem", "correct_archetype_words", ""),
    ("midwest_lender_board", "opp_03", "narrative", "roughly 11% of the total", "roughly 10.8% of the total", "correct_share", ""),
    ("HMDA_GA_board", "opp_01", "counterfactual", "about $1.56M a quarter", "about $1.6M per quarter", "correct_run_rate", ""),
    ("midwest_lender_board", "opp_01", "narrative", "EBITDA of $14.5 million", "EBITDA of $14.5mm", "correct_baseline", ""),
    ("SaaSCo_board", "opp_01", "rollout", "two out of five", "2 out of 5", "correct_words", ""),
]


def main() -> None:
    for portco in MAPS:
        shutil.copyfile(PRODUCER / f"dx_report_{portco}.json", HERE / f"dx_report_{portco}.json")
    for (portco, audience), opps in MEMOS.items():
        src = json.loads((PRODUCER / f"dx_report_{portco}.json").read_text())
        by_id = {o["id"]: o for o in src["opportunities"]}
        memo = {
            "portco_id": portco,
            "audience": audience,
            "as_of": src["as_of"],
            "total_projected_impact_usd_annual": src["total_projected_impact_usd_annual"],
            "vertical": src["vertical"],
            "ebitda_baseline_usd": src["ebitda_baseline_usd"],
            "opportunities_explained": [
                {"id": oid, "archetype": by_id[oid]["archetype"], "segment": by_id[oid]["segment"],
                 **blocks}
                for oid, blocks in opps.items()
            ],
            "source_opportunity_map": f"dx_report_{portco}.json",
        }
        path = HERE / f"explain_{portco}_{audience}.json"
        path.write_text(json.dumps(memo, indent=2, ensure_ascii=False) + "\n")
    cases = []
    for n, (memo, oid, field, find, replace, cls, note) in enumerate(CASES, 1):
        text = MEMOS[tuple(memo.rsplit("_", 1))][oid][field]  # type: ignore[index]
        assert text.count(find) == 1, (memo, oid, field, find)
        cases.append({"id": f"{cls}_{n:02d}", "memo": f"explain_{memo}.json", "opportunity_id": oid,
                      "field": field, "find": find, "replace": replace, "error_class": cls,
                      "note": note})
    (HERE / "mutations.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
