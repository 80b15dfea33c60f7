"""Held-out memos, part C: pacific_lender, northeast_lender, DCMortgage (shape-A maps).

Written before the grader's rules were read; every figure checked by hand (../README.md).
"""

MEMOS = {}

# Writer 9: hedged American consultant prose, fraction words, "on the order of".
MEMOS["explain_pacific_lender_board.json"] = {
    "portco": "pacific_lender",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": (
                "We estimate that roughly three-fifths of the identified opportunity — about "
                "$195.9K of the $320.8K total — sits in a single pricing cohort, **B × 36 "
                "months** (grade × term). The 2,712 loans in this cohort appear to be losing "
                "money consistently, with a mean outcome of approximately -$138 per loan."
            ),
            "counterfactual": (
                "If the cohort can be repriced to break even, the annual impact would likely "
                "be on the order of $196K, equivalent to about 1.35% of the $14.5M EBITDA "
                "baseline."
            ),
            "risk_of_inaction": (
                "The loss appears to be persistent (persistence score 0.75, present in six of "
                "the eight quarters reviewed), which suggests it is unlikely to resolve "
                "without intervention."
            ),
            "rollout": (
                "We would caution that implementation is likely to be challenging — difficulty "
                "is rated 4 out of 5 — as repricing requires rate-sheet changes."
            ),
        },
        "opp_02": {
            "narrative": (
                "A second, smaller selection opportunity appears in **credit_card × F** "
                "(purpose × grade). Although the cohort comprises only 60 loans, the mean "
                "loss per loan is comparatively high at roughly $1,331."
            ),
            "counterfactual": (
                "Declining or re-routing these applications could plausibly recover around "
                "$41.7K a year, roughly 13% of the total."
            ),
            "risk_of_inaction": "Persistence is similar (0.75; six of eight quarters).",
            "rollout": "Difficulty is rated 2 out of 5.",
        },
        "opp_03": {
            "narrative": (
                "Finally, Oregon grade-B borrowers (**OR × B**; addr_state × grade) account "
                "for an estimated $83.3K of annual loss across 239 loans, with a mean outcome "
                "of approximately -$668 per loan."
            ),
            "counterfactual": (
                "Break-even routing would likely recover about $83.3K annually — approximately "
                "26% of the portfolio opportunity."
            ),
            "risk_of_inaction": "Persistence score 0.75 (six of eight quarters).",
            "rollout": (
                "Difficulty 2 out of 5; the allocation rules can likely be adjusted within a "
                "single sprint."
            ),
        },
    },
}

# Writer 10: terse ops checklist, bold capitalised archetype, unicode minus, arrows.
MEMOS["explain_pacific_lender_operator.json"] = {
    "portco": "pacific_lender",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": (
                "**Pricing** | **B × 36 months** | grade × term\n"
                "- n = 2,712 loans\n"
                "- total outcome: −$195,874/yr\n"
                "- mean: −$138.41/loan"
            ),
            "counterfactual": (
                "- action: throttle B × 36 months → break-even routing\n- impact: +$195.9K/yr"
            ),
            "risk_of_inaction": "- 6/8 quarters, persistence 0.75",
            "rollout": "- difficulty 4/5\n- spot-check rows: 7963, 10344, 11075",
        },
        "opp_02": {
            "narrative": (
                "**Selection** | **credit_card × F** | purpose × grade\n"
                "- n = 60 loans\n"
                "- total outcome: −$41,680/yr\n"
                "- mean: −$1,331.20/loan"
            ),
            "counterfactual": (
                "- action: throttle credit_card × F → break-even routing\n- impact: +$41.7K/yr"
            ),
            "risk_of_inaction": "- 6/8 quarters, persistence 0.75",
            "rollout": "- difficulty 2/5\n- spot-check rows: 3815, 5838",
        },
        "opp_03": {
            "narrative": (
                "**Allocation** | **OR × B** | addr_state × grade\n"
                "- n = 239 loans\n"
                "- total outcome: −$83,260/yr\n"
                "- mean: −$667.59/loan"
            ),
            "counterfactual": (
                "- action: throttle OR × B → break-even routing\n"
                "- impact: +$83.3K/yr\n"
                "- portfolio total: $320.8K/yr"
            ),
            "risk_of_inaction": "- 6/8 quarters, persistence 0.75",
            "rollout": "- difficulty 2/5\n- spot-check rows: 762, 8336",
        },
    },
}

# Writer 11: British narrative, ordinal sections, fraction words, "hardest of the three".
MEMOS["explain_northeast_lender_board.json"] = {
    "portco": "northeast_lender",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": (
                "The clearest finding concerns grade C borrowers on 36-month terms (**C × 36 "
                "months**, analysed by grade and term). Across 2,360 loans the cohort is "
                "losing $267.7K a year, and it has done so in each of the eight quarters on "
                "record, giving a persistence score of 1.0."
            ),
            "counterfactual": (
                "Repricing the cohort to break even would recover that $267.7K in full: almost "
                "seven-tenths (69.6%) of the $384.5K programme total and 1.85% of the $14.5M "
                "EBITDA baseline."
            ),
            "risk_of_inaction": (
                "Because the pattern is fully persistent, we see no reason to expect it to "
                "unwind of its own accord."
            ),
            "rollout": (
                "We rate this the hardest of the three to implement (difficulty 4 out of 5): "
                "the pricing grid must be re-filed."
            ),
        },
        "opp_02": {
            "narrative": (
                "Secondly, debt-consolidation lending to grade B borrowers "
                "(**debt_consolidation × B**; purpose × grade) loses $60.1K a year over 2,043 "
                "loans — an average of only $56 per loan."
            ),
            "counterfactual": (
                "Tightening selection would recover roughly $60.1K, or 15.6% of the total."
            ),
            "risk_of_inaction": (
                "The loss is less consistent: five quarters in eight, a persistence score of 0.625."
            ),
            "rollout": "Difficulty is modest at 2 out of 5.",
        },
        "opp_03": {
            "narrative": (
                "Thirdly, Pennsylvania grade B loans (**PA × B**; addr_state × grade): 536 "
                "loans losing $56.7K a year, or about $203 per loan on average."
            ),
            "counterfactual": (
                "Reallocating this volume would recover about $56.7K (14.8% of the total)."
            ),
            "risk_of_inaction": (
                "Only half of the eight quarters show the loss (persistence score 0.50), so we "
                "would treat this as the least certain of the three."
            ),
            "rollout": "Difficulty 2 out of 5.",
        },
    },
}


def _row(cohort, cols, loans, total, mean):
    return (
        "| Cohort | Columns | Loans | Annual outcome | Mean/loan |\n|---|---|---|---|---|\n"
        f"| **{cohort}** | {cols} | {loans} | {total} | {mean} |"
    )


# Writer 12: one markdown table row per cohort, accounting negatives, em-dash labels.
MEMOS["explain_northeast_lender_operator.json"] = {
    "portco": "northeast_lender",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": _row("C × 36 months", "grade × term", "2,360", "($267,706)", "($217.38)"),
            "counterfactual": (
                "Counterfactual — throttle C × 36 months to break-even routing: impact "
                "$267,706 per year ($22.3K per month)."
            ),
            "risk_of_inaction": "Risk — loss in 8 of 8 quarters; persistence 1.00.",
            "rollout": "Rollout — difficulty 4/5. Spot-check rows 990, 10896, 7076.",
        },
        "opp_02": {
            "narrative": _row(
                "debt_consolidation × B", "purpose × grade", "2,043", "($60,117)", "($56.39)"
            ),
            "counterfactual": (
                "Counterfactual — throttle debt_consolidation × B: impact $60,117 per year "
                "($5.0K per month)."
            ),
            "risk_of_inaction": "Risk — loss in 5 of 8 quarters; persistence 0.63.",
            "rollout": "Rollout — difficulty 2/5. Spot-check rows 2875, 5708.",
        },
        "opp_03": {
            "narrative": _row("PA × B", "addr_state × grade", "536", "($56,723)", "($202.80)"),
            "counterfactual": (
                "Counterfactual — throttle PA × B: impact $56,723 per year ($4.7K per month)."
            ),
            "risk_of_inaction": "Risk — loss in 4 of 8 quarters; persistence 0.50.",
            "rollout": (
                "Rollout — difficulty 2/5. Spot-check rows 3534, 9215. Programme total: "
                "$384,546 per year."
            ),
        },
    },
}

# Writer 13: IC memo with numeric cohort codes, bold archetypes in parentheses,
# share of EBITDA above 100%, per-quarter costs.
MEMOS["explain_DCMortgage_board.json"] = {
    "portco": "DCMortgage",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": (
                "**Headline:** three cohorts carry $18.3M of annual leakage — 126% of the "
                "$14.5M EBITDA baseline.\n\n"
                "**B × 360 months** (grade × term, **pricing**): $6.8M lost per year over "
                "6,742 loans (mean -$1,174), persistent in 5 of 5 quarters."
            ),
            "counterfactual": "Repricing to break even recovers $6.8M a year (37% of the total).",
            "risk_of_inaction": (
                "A persistence score of 1.0 means this is structural; each quarter of "
                "inaction costs ~$1.7M."
            ),
            "rollout": "Difficulty 4/5; this is the slowest of the three to land.",
        },
        "opp_02": {
            "narrative": (
                "**1 × B** (purpose × grade, **selection**): $3.9M a year over 4,086 loans "
                "(mean -$1,122), 5 of 5 quarters."
            ),
            "counterfactual": "Tightening selection recovers $3.9M a year, 27.2% of EBITDA.",
            "risk_of_inaction": "Persistence 1.0; roughly $987K per quarter.",
            "rollout": "Difficulty 2/5.",
        },
        "opp_03": {
            "narrative": (
                "**47894 × B** (addr_state × grade, **allocation**): the largest, at $7.6M a "
                "year over 7,457 loans (mean -$1,176), 5 of 5 quarters."
            ),
            "counterfactual": (
                "Reallocation recovers $7.6M a year — 41.2% of the total and just over half "
                "(52.1%) of EBITDA."
            ),
            "risk_of_inaction": "Persistence 1.0; about $1.9M per quarter.",
            "rollout": "Difficulty 2/5; can start immediately.",
        },
    },
}

# Writer 14: numbered operator items "1)", ascii "x" inside bold keys, per-month impacts,
# a closing sum that is the headline.
MEMOS["explain_DCMortgage_operator.json"] = {
    "portco": "DCMortgage",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": (
                "1) Segment: grade B, term 360 months — key **B x 360 months** (grade x term). "
                "Loans: 6,742. Annual outcome: -$6,819,921. Mean outcome per loan: -$1,174.17."
            ),
            "counterfactual": (
                "Throttle B × 360 months to break-even routing. Impact: $6.82M/yr, about "
                "$568K/month."
            ),
            "risk_of_inaction": "Loss present in 5/5 quarters (persistence 1.00).",
            "rollout": "Difficulty 4/5. Check rows 11190, 504, 8046 first.",
        },
        "opp_02": {
            "narrative": (
                "2) Key **1 x B** (purpose x grade). Loans: 4,086. Annual outcome: "
                "-$3,949,729. Mean per loan: -$1,122.04."
            ),
            "counterfactual": "Throttle 1 × B. Impact: $3.95M/yr, about $329K/month.",
            "risk_of_inaction": "5/5 quarters (persistence 1.00).",
            "rollout": "Difficulty 2/5. Rows 9515, 5943.",
        },
        "opp_03": {
            "narrative": (
                "3) Key **47894 x B** (addr_state x grade). Loans: 7,457. Annual outcome: "
                "-$7,557,369. Mean per loan: -$1,176.38."
            ),
            "counterfactual": (
                "Throttle 47894 × B. Impact: $7.56M/yr, about $630K/month. Combined with "
                "items 1) and 2): $18.33M/yr."
            ),
            "risk_of_inaction": "5/5 quarters (persistence 1.00).",
            "rollout": "Difficulty 2/5. Rows 11190, 13277.",
        },
    },
}
