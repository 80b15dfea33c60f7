"""Held-out memos, part A: MortgageCo and HMDA_GA (the demo maps in finance_output/).

Written as four different LLM drafters would write them, before the grader's rules were
read. Every figure was checked by hand against the map it cites (see ../README.md).
"""

MEMOS = {}

# Writer 1: terse IC bullets, "bn", "p.a.", ascii x in one cohort, slash quarters.
MEMOS["explain_MortgageCo_board.json"] = {
    "portco": "MortgageCo",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": (
                "- **Cohort:** A × 360 months (grade × term), 23,681 loans\n"
                "- **Loss:** $1.39bn p.a. (mean -$58.6K per loan; default rate 4.12%)\n"
                "- **Persistence:** 5/5 quarters; score 0.92\n"
                "- **Portfolio context:** the opportunity set totals $1.45bn/yr, equal to "
                "50.5% of the $2.87bn EBITDA baseline; this cohort alone is 76.6% of it"
            ),
            "counterfactual": (
                "- **Action:** throttle new originations in the cohort\n"
                "- **Recovery:** ~$1.11bn/yr run-rate (c. $277.5M per quarter)"
            ),
            "risk_of_inaction": (
                "- Status quo: the cohort keeps losing ~$1.4B a year\n"
                "- Structural, not vintage: seen in every one of the five quarters"
            ),
            "rollout": (
                "- Difficulty 2/5 (low)\n"
                "- Pilot on new originations first, then extend to the full book within the quarter"
            ),
        },
        "opp_02": {
            "narrative": (
                "- **Cohort:** Texas x Broker (state x channel), 41,207 loans\n"
                "- **Loss:** $564.8M p.a.; average loan -$13.7K; default rate 287 bps\n"
                "- **Persistence:** 4 of 5 quarters (score 0.8)"
            ),
            "counterfactual": (
                "- **Action:** reprice broker-sourced Texas loans to break even\n"
                "- **Recovery:** $338.9M a year, about 60% of the cohort's loss and 23.4% of "
                "the portfolio total"
            ),
            "risk_of_inaction": (
                "- Inaction leaves ~$565M/yr of leakage on the book\n"
                "- Equivalent to 19.7% of EBITDA"
            ),
            "rollout": (
                "- Difficulty 3/5 (moderate): the pricing grid change needs sign-off from the "
                "broker channel lead\n"
                "- Weeks 1-3 build, weeks 4-6 live"
            ),
        },
        "opp_03": {
            "narrative": (
                "- **Cohort:** Cash-out refinance × Condo (loan_purpose × property_type), "
                "3,914 loans\n"
                "- **Loss:** $1.25M p.a.; default rate 6.3%\n"
                "- **Persistence:** 3 of 5 quarters, score 0.61: intermittent"
            ),
            "counterfactual": (
                "- **Action:** route to the specialist underwriting desk\n"
                "- **Recovery:** $1.04M/yr (immaterial at portfolio level: under 0.1% of the total)"
            ),
            "risk_of_inaction": (
                "- Small in dollars ($319 average loss per loan) but the second-highest default "
                "rate of the four cohorts"
            ),
            "rollout": "- Difficulty 4/5 (hard): desk capacity is the constraint",
        },
        "opp_04": {
            "narrative": (
                "- **Cohort:** Second lien × Investor (lien_status × occupancy), 612 loans\n"
                "- **Loss:** $14.6K p.a.; default rate 9.15%\n"
                "- **Persistence:** 3 of 5 quarters (0.55)"
            ),
            "counterfactual": (
                "- **Action:** move approvals to the pre-funding review\n- **Recovery:** $11K/yr"
            ),
            "risk_of_inaction": "- De minimis; track, do not prioritise",
            "rollout": "- Difficulty 1/5; can ship next sprint",
        },
    },
}

# Writer 2: narrative operator prose, long-form millions, per-month figures, words for
# small numbers, evidence rows inline.
MEMOS["explain_MortgageCo_operator.json"] = {
    "portco": "MortgageCo",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": (
                "The largest problem in the book sits in grade A loans on 360-month terms "
                "(**A × 360 months**). The diagnostic cut the portfolio by grade and term and "
                "found that this cohort, 23,681 loans in all, loses $1,387.5 million a year, or "
                "roughly $115.6 million every month. The average loan in the cohort loses "
                "$58,590, and 4.1% of the cohort defaults. The loss has shown up in all five "
                "quarters we observed, which is why the persistence score sits at 0.92."
            ),
            "counterfactual": (
                "If we throttle new originations in the cohort, the diagnostic projects we "
                "recover $1.11 billion a year — about $92.5 million a month, or 38.7% of our "
                "EBITDA baseline of $2.87 billion."
            ),
            "risk_of_inaction": (
                "Left alone, the cohort keeps costing us about $1.4 billion a year. Because the "
                "loss appeared in five out of five quarters, we do not expect it to fade on its "
                "own."
            ),
            "rollout": (
                "Difficulty is low (two out of five). Spot-check rows 118204, 40577 and 99312 "
                "before switching the throttle on, then run the throttle for one full quarter "
                "and compare against the counterfactual."
            ),
        },
        "opp_02": {
            "narrative": (
                "Next comes the Texas broker channel — the **Texas × Broker** cohort, cut by "
                "state and channel. Its 41,207 loans lose $564.8 million a year (about $47.1 "
                "million a month), and the average loan loses $13,707. Defaults run at 2.87%."
            ),
            "counterfactual": (
                "Repricing broker-sourced Texas loans to break even should bring back $338.9 "
                "million a year, roughly $28.2 million a month."
            ),
            "risk_of_inaction": (
                "The loss appeared in four of the last five quarters (persistence score 0.80). "
                "Waiting another quarter costs roughly $141.2 million."
            ),
            "rollout": (
                "Difficulty is moderate, three on the five-point scale. Evidence rows to check "
                "first: 40211, 88120, 152907."
            ),
        },
        "opp_03": {
            "narrative": (
                "A smaller routing issue: cash-out refinances on condos (**Cash-out refinance × "
                "Condo**, by loan purpose and property type). The 3,914 loans lose $1.2 million "
                "a year, about $104K a month, with a 6.3% default rate and an average loss of "
                "$319 per loan."
            ),
            "counterfactual": (
                "Routing them to the specialist underwriting desk recovers an estimated $1.0 "
                "million a year."
            ),
            "risk_of_inaction": (
                "The pattern held in only three of five quarters (persistence 0.61), so some "
                "of it may be vintage noise."
            ),
            "rollout": (
                "This one is harder — difficulty four out of five — because the specialist "
                "desk needs headcount. Spot-check rows 77012 and 190345."
            ),
        },
        "opp_04": {
            "narrative": (
                "Finally, second-lien investor loans (**Second lien × Investor**): 612 loans "
                "losing $14,600 a year, a 9.2% default rate."
            ),
            "counterfactual": (
                "Moving these approvals to the pre-funding review recovers about $11,240 a "
                "year — roughly $937 a month."
            ),
            "risk_of_inaction": "Three of five quarters showed the loss (persistence score 0.55).",
            "rollout": "Difficulty one out of five. Rows 5521 and 60914 are good examples.",
        },
    },
}


def _table(cols, loans, cur, proj, imp, quarters, score, diff, weeks):
    return (
        "| Metric | Value |\n|---|---|\n"
        f"| Decision columns | {cols} |\n"
        f"| Loans | {loans} |\n"
        f"| Current outcome | {cur} / yr |\n"
        f"| Projected outcome | {proj} / yr |\n"
        f"| Projected impact | {imp} / yr |\n"
        f"| Quarters with a loss | {quarters} |\n"
        f"| Persistence score | {score} |\n"
        f"| Difficulty | {diff} |\n"
        f"| Time to implement | {weeks} |"
    )


# Writer 3: markdown tables under numbered headings, quarterly series, ranges with en dashes.
MEMOS["explain_HMDA_GA_board.json"] = {
    "portco": "HMDA_GA",
    "audience": "board",
    "opps": {
        "opp_01": {
            "narrative": "### 1. FHA × 31 — selection\n\n"
            + _table(
                "loan_type × loan_purpose",
                "4,218",
                "-$38.4M",
                "-$9.9M",
                "+$28.6M",
                "7 of 8",
                "0.88",
                "3/5",
                "6 weeks",
            ),
            "counterfactual": (
                "**Counterfactual:** tightening approval criteria for FHA refinance "
                "applications moves the cohort from -$38.4M to -$9.9M a year. That $28.6M "
                "uplift is 93% of the portfolio's $30.7M opportunity."
            ),
            "risk_of_inaction": (
                "**Risk of inaction:** the only profitable quarter was 2023Q3 (+$768K); every "
                "quarter since has lost between $8.8M and $10.4M."
            ),
            "rollout": "**Rollout:** six-week build; difficulty 3/5.",
        },
        "opp_02": {
            "narrative": "### 2. Fulton × 2 — pricing\n\n"
            + _table(
                "county × lien_status",
                "1,377",
                "-$3.26M",
                "-$1.15M",
                "+$2.11M",
                "6 of 8",
                "0.75",
                "2/5",
                "4 weeks",
            ),
            "counterfactual": (
                "**Counterfactual:** repricing subordinate-lien loans in Fulton County "
                "recovers $2.1M of the $3.3M annual loss (65%)."
            ),
            "risk_of_inaction": (
                "**Risk of inaction:** the cohort was profitable in 2023Q3 and 2023Q4 (+$65K "
                "each) and has lost $750K–$881K every quarter since."
            ),
            "rollout": "**Rollout:** four weeks; low difficulty (2/5).",
        },
        "opp_03": {
            "narrative": "### 3. Correspondent × Manufactured — routing\n\n"
            + _table(
                "channel × property_type",
                "57",
                "-$41.7K",
                "-$12.4K",
                "+$29.3K",
                "5 of 8",
                "0.63",
                "4/5",
                "10 weeks",
            ),
            "counterfactual": (
                "**Counterfactual:** routing manufactured-home correspondent loans to the "
                "specialist desk more than halves the loss: from -$41.7K to -$12.4K."
            ),
            "risk_of_inaction": (
                "**Risk of inaction:** small ($29.3K of upside), and the denial rate is "
                "already 19.3%."
            ),
            "rollout": (
                "**Rollout:** ten weeks, difficulty 4/5; not worth prioritising ahead of "
                "items 1 and 2."
            ),
        },
    },
}

# Writer 4: British spelling, hedged consultant prose, "US$", "c.", basis points.
MEMOS["explain_HMDA_GA_operator.json"] = {
    "portco": "HMDA_GA",
    "audience": "operator",
    "opps": {
        "opp_01": {
            "narrative": (
                "Our analysis suggests that the FHA refinance cohort (**FHA × 31**; decision "
                "dimensions loan_type and loan_purpose) is, in all likelihood, the principal "
                "driver of underperformance. Across 4,218 loans it would appear to be "
                "generating an annualised loss of approximately US$38.4 million, with an "
                "average outcome of roughly -$9,109 per loan. Denials run at c. 12.7% of "
                "applications."
            ),
            "counterfactual": (
                "Were the organisation to tighten approval criteria for FHA refinance "
                "applications, we would anticipate the annualised outcome improving to "
                "something in the order of -$9.9 million, i.e. an uplift of some $28.6 "
                "million, or approximately 6.9% of the $412.5 million EBITDA baseline."
            ),
            "risk_of_inaction": (
                "The loss has, it should be noted, recurred in seven of the eight quarters "
                "analysed (a persistence score of 0.88). On a quarterly basis the run-rate is "
                "around $9.6 million; deferral of a single quarter would therefore be expected "
                "to cost of that order."
            ),
            "rollout": (
                "We would characterise implementation as moderately difficult (3 out of 5) "
                "and estimate some six weeks to complete. Suggested spot-check rows: 311907, "
                "45018 and 270033."
            ),
        },
        "opp_02": {
            "narrative": (
                "A second, more modest opportunity concerns subordinate-lien lending in Fulton "
                "County (**Fulton × 2**, by county and lien_status): 1,377 loans, an annualised "
                "loss of roughly $3.3 million, and a mean per-loan outcome of approximately "
                "-$2,369. The denial rate is somewhat lower at 8.4%."
            ),
            "counterfactual": (
                "Repricing to break even would, on our estimates, reduce the annualised loss "
                "to about $1.1 million, realising c. $2.1 million per annum — approximately 51 "
                "basis points of EBITDA."
            ),
            "risk_of_inaction": (
                "The pattern is reasonably persistent — six of the eight quarters (0.75) — and "
                "we would not expect it to self-correct."
            ),
            "rollout": (
                "Difficulty is assessed as low (2/5); roughly four weeks. Rows 20417 and "
                "133590 merit a spot-check."
            ),
        },
        "opp_03": {
            "narrative": (
                "Finally, the correspondent manufactured-housing cohort (**Correspondent × "
                "Manufactured**; channel × property_type) is small — only 57 loans — and is "
                "generating an annualised loss of c. $41.7 thousand (an average of about -$732 "
                "per loan). Its denial rate, at 19.3%, is the highest of the three."
            ),
            "counterfactual": (
                "Routing these loans to the specialist desk would, we estimate, bring the "
                "annualised outcome to around -$12.4 thousand, a gain of c. $29.3 thousand "
                "per annum."
            ),
            "risk_of_inaction": (
                "The loss has appeared in five of eight quarters (persistence score 0.63); "
                "whilst small, it is not obviously transient."
            ),
            "rollout": (
                "Rather more difficult to implement (4/5), with an estimated ten weeks "
                "required. Spot-check rows 88213 and 301446."
            ),
        },
    },
}
