"""Held-out memos, part B: eTeleQuote and UILender (real producer shape-B maps).

Written before the grader's rules were read; every figure checked by hand (../README.md).
"""

MEMOS = {}

# Writer 5: board prose with numbers in words, fractions of a total, per-quarter cost.
MEMOS["explain_eTeleQuote_board.json"] = {
    "portco": "eTeleQuote",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": (
                "Five lead-source and state combinations account for the entire opportunity "
                "of roughly three hundred thousand dollars a year — $304.3K in total, or about "
                "a quarter (25.4%) of the $1.2M EBITDA baseline. The largest is "
                "**Affiliate_B × CA** (source × state): 8,865 policies losing $87.7K a year, "
                "twelve quarters out of twelve."
            ),
            "counterfactual": (
                "Routing Affiliate_B's California leads to break-even recovers the full $87.7K "
                "— nearly twenty-nine per cent of the total."
            ),
            "risk_of_inaction": (
                "Without action the loss recurs at roughly twenty-two thousand dollars a quarter."
            ),
            "rollout": "Difficulty: two out of five. Three weeks to implement.",
        },
        "opp_02": {
            "narrative": (
                "Second, **Affiliate_B × TX**: seven thousand two hundred and fifty-three "
                "policies, $70.9K of annual loss, persistent in every one of the twelve quarters."
            ),
            "counterfactual": "Break-even routing recovers $70.9K a year (about 23% of the total).",
            "risk_of_inaction": "A further quarter of delay costs roughly $17.7K.",
            "rollout": "Two out of five on difficulty; three weeks.",
        },
        "opp_03": {
            "narrative": (
                "Third, **Affiliate_B × FL**: 5,549 policies and $54.0K a year of loss, again "
                "in twelve of twelve quarters."
            ),
            "counterfactual": (
                "Recovery: the full fifty-four thousand dollars, or 17.8% of the portfolio "
                "opportunity."
            ),
            "risk_of_inaction": "About 4.5% of EBITDA each year if left untouched.",
            "rollout": "Difficulty two of five; three weeks.",
        },
        "opp_04": {
            "narrative": (
                "Fourth, **Affiliate_B × NY**: 4,843 policies losing $48.6K annually; twelve "
                "of twelve quarters."
            ),
            "counterfactual": "Recovery of $48.6K, roughly 16% of the total.",
            "risk_of_inaction": "Left alone: another $48.6K lost next year.",
            "rollout": "Two out of five; three weeks.",
        },
        "opp_05": {
            "narrative": (
                "Finally, **Facebook × CA**: 7,266 policies and $43.1K of annual loss — the "
                "only non-affiliate source on the list."
            ),
            "counterfactual": "Break-even routing returns $43.1K a year, 14.2% of the total.",
            "risk_of_inaction": "Persistent in all twelve quarters; it will not fix itself.",
            "rollout": (
                "Difficulty two out of five, three weeks to implement; can run in parallel "
                "with the Affiliate_B cohorts."
            ),
        },
    },
}


def _ops(cohort, volume, loss, bps, quarters):
    return (
        f"Cohort: {cohort}. Volume {volume}. Annual loss {loss}. Share of EBITDA: {bps}. "
        f"Loss persisted {quarters} quarters."
    )


# Writer 6: terse operator fields, ascii "x", bps of EBITDA, explicit "+" on impacts,
# projected outcome stated as $0 (correct on this map).
MEMOS["explain_eTeleQuote_operator.json"] = {
    "portco": "eTeleQuote",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": _ops(
                "Affiliate_B x CA (source x state)", "8,865", "$87,656", "730 bps", "12/12"
            ),
            "counterfactual": (
                "Counterfactual: route to break-even; projected outcome $0, impact +$87,656/yr."
            ),
            "risk_of_inaction": "Risk: ~$7.3K per month keeps leaking.",
            "rollout": "Rollout: difficulty 2/5, 3 weeks. Spot-check rows 298285, 197127, 302166.",
        },
        "opp_02": {
            "narrative": _ops(
                "Affiliate_B x TX (source x state)", "7,253", "$70,920", "591 bps", "12/12"
            ),
            "counterfactual": (
                "Counterfactual: route to break-even; projected outcome $0, impact +$70,920/yr."
            ),
            "risk_of_inaction": "Risk: ~$5.9K per month.",
            "rollout": "Rollout: difficulty 2/5, 3 weeks. Spot-check rows 323480, 276530.",
        },
        "opp_03": {
            "narrative": _ops("Affiliate_B x FL", "5,549", "$54,042", "450 bps", "12/12"),
            "counterfactual": (
                "Counterfactual: projected outcome $0; impact +$54,042/yr (17.8% of the "
                "$304,309 total)."
            ),
            "risk_of_inaction": "Risk: ~$4.5K per month.",
            "rollout": "Rollout: 2/5, 3 weeks. Rows 104017, 32476.",
        },
        "opp_04": {
            "narrative": _ops("Affiliate_B x NY", "4,843", "$48,585", "405 bps", "12/12"),
            "counterfactual": "Counterfactual: projected outcome $0; impact +$48,585/yr.",
            "risk_of_inaction": "Risk: ~$4.0K per month.",
            "rollout": "Rollout: 2/5, 3 weeks. Rows 71196, 158387.",
        },
        "opp_05": {
            "narrative": _ops("Facebook x CA", "7,266", "$43,105", "359 bps", "12/12"),
            "counterfactual": "Counterfactual: projected outcome $0; impact +$43,105/yr.",
            "risk_of_inaction": "Risk: ~$3.6K per month.",
            "rollout": "Rollout: 2/5, 3 weeks. Rows 138878, 122209.",
        },
    },
}

# Writer 7: headings per cohort, markdown footnotes ([^1], superscript), "Difficulty 2 (of 5)".
MEMOS["explain_UILender_board.json"] = {
    "portco": "UILender",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": (
                "## Debt consolidation, grade A\n\n"
                "The **debt_consolidation × A** cohort (purpose × grade) is the single largest "
                "item: 1,198 loans with a current annual outcome of -$186.7K[^1]. It accounts "
                "for 48.8% of the $382.6K total opportunity identified across the book.\n\n"
                "[^1]: Annualised; source dx_report_UILender.json as of 2026-12-03."
            ),
            "counterfactual": (
                "Breaking even on this cohort would lift annual EBITDA by $186.7K, or 1.3% of "
                "the $14.5M baseline."
            ),
            "risk_of_inaction": "Loss recorded in 6 of the 8 quarters reviewed.",
            "rollout": "Difficulty 2 (of 5); about three weeks.",
        },
        "opp_02": {
            "narrative": (
                "## Credit card, grade B\n\n"
                "**credit_card × B**: 771 loans, current annual outcome -$90.1K, 23.5% of the "
                "total opportunity."
            ),
            "counterfactual": "Break-even routing: +$90.1K a year.",
            "risk_of_inaction": "Persistent in six of eight quarters (75%).",
            "rollout": "Difficulty 2 (of 5); three weeks.",
        },
        "opp_03": {
            "narrative": (
                "## Other purpose, grade B\n\n"
                "**other × B**: 165 loans, -$51.3K a year.²\n\n"
                "² The loss per loan is high (about $311) because the cohort is small."
            ),
            "counterfactual": "Break-even routing: +$51.3K a year (13.4% of the total).",
            "risk_of_inaction": (
                "Loss in only 4 of 8 quarters — half the time — so this one is less certain."
            ),
            "rollout": "Difficulty 2 (of 5); three weeks.",
        },
        "opp_04": {
            "narrative": (
                "## Small business, grade B\n\n**small_business × B**: just 39 loans but "
                "-$28.4K a year."
            ),
            "counterfactual": "Break-even routing: +$28.4K a year.",
            "risk_of_inaction": "Loss in 5 of 8 quarters.",
            "rollout": "Difficulty 2 (of 5); three weeks.",
        },
        "opp_05": {
            "narrative": (
                "## Credit card, grade A\n\n**credit_card × A**: 451 loans, -$26.1K a year; "
                "the smallest of the five."
            ),
            "counterfactual": "Break-even routing: +$26.1K a year (6.8% of the total).",
            "risk_of_inaction": "Loss in 4 of 8 quarters.",
            "rollout": (
                "Difficulty 2 (of 5); three weeks.\n\n---\nAll figures annualised. Total "
                "identified opportunity: $382,550."
            ),
        },
    },
}

# Writer 8: operator run-rates per quarter, slash quarters, a range across cohorts.
MEMOS["explain_UILender_operator.json"] = {
    "portco": "UILender",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": (
                "Cohort key **debt_consolidation × A** (purpose × grade), 1,198 loans. Current "
                "run-rate: -$186,695 a year, i.e. about -$46.7K per quarter."
            ),
            "counterfactual": (
                "Route to break-even (projected outcome $0). Expected impact: $186.7K a year, "
                "$46.7K a quarter."
            ),
            "risk_of_inaction": (
                "The loss showed in 6/8 quarters; each quarter of delay costs about $46.7K."
            ),
            "rollout": "Difficulty 2/5, ~3 weeks. Spot-check: 10838, 550, 1166.",
        },
        "opp_02": {
            "narrative": (
                "Cohort key **credit_card × B**, 771 loans, -$90,068 a year (-$22.5K per quarter)."
            ),
            "counterfactual": "Break-even routing; impact $90.1K a year.",
            "risk_of_inaction": "6/8 quarters with a loss.",
            "rollout": "Difficulty 2/5, ~3 weeks. Spot-check: 5172, 3164.",
        },
        "opp_03": {
            "narrative": (
                "Cohort key **other × B**, 165 loans, -$51,322 a year (-$12.8K per quarter)."
            ),
            "counterfactual": "Break-even routing; impact $51.3K a year.",
            "risk_of_inaction": "Only 4/8 quarters with a loss.",
            "rollout": "Difficulty 2/5, ~3 weeks. Spot-check: 3635, 11996.",
        },
        "opp_04": {
            "narrative": (
                "Cohort key **small_business × B**, 39 loans, -$28,355 a year (-$7.1K per quarter)."
            ),
            "counterfactual": "Break-even routing; impact $28.4K a year.",
            "risk_of_inaction": "5/8 quarters with a loss.",
            "rollout": "Difficulty 2/5, ~3 weeks. Spot-check: 11362, 5995.",
        },
        "opp_05": {
            "narrative": (
                "Cohort key **credit_card × A**, 451 loans, -$26,109 a year (-$6.5K per quarter)."
            ),
            "counterfactual": (
                "Break-even routing; impact $26.1K a year. Across the five cohorts the "
                "impacts range from $26.1K to $186.7K, $382.6K in total."
            ),
            "risk_of_inaction": "4/8 quarters with a loss.",
            "rollout": "Difficulty 2/5, ~3 weeks. Spot-check: 9961, 1458.",
        },
    },
}
