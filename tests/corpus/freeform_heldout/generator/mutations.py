"""Planted errors and correct rewrites, labelled by hand against each memo's map.

error_class "correct_rewrite" is a correct figure re-expressed in another valid format: it
must NOT raise a finding. Every other class is an error a correct grader must flag.
"""

_MC_B = "explain_MortgageCo_board.json"
_MC_O = "explain_MortgageCo_operator.json"
_GA_B = "explain_HMDA_GA_board.json"
_GA_O = "explain_HMDA_GA_operator.json"
_ET_B = "explain_eTeleQuote_board.json"
_ET_O = "explain_eTeleQuote_operator.json"
_UI_B = "explain_UILender_board.json"
_UI_O = "explain_UILender_operator.json"
_PL_B = "explain_pacific_lender_board.json"
_PL_O = "explain_pacific_lender_operator.json"
_NE_B = "explain_northeast_lender_board.json"
_NE_O = "explain_northeast_lender_operator.json"
_DC_B = "explain_DCMortgage_board.json"
_DC_O = "explain_DCMortgage_operator.json"

N, CF, RI, RO = "narrative", "counterfactual", "risk_of_inaction", "rollout"

# (memo, opportunity, field, find, replace, class, note)
_ROWS = [
    # --- MortgageCo board (writer 1)
    (_MC_B, "opp_01", N, "$1.39bn p.a.", "$1.93bn p.a.", "wrong_figure",
     "loss is 1,387,460,000; 1.93bn matches nothing"),
    (_MC_B, "opp_02", CF, "**Recovery:** $338.9M a year", "**Recovery:** $564.8M a year",
     "role_swap", "the cohort's loss (564,812,000) stated as the recovery (impact 338,887,000)"),
    (_MC_B, "opp_04", RO, "Difficulty 1/5", "Difficulty 3/5", "wrong_difficulty",
     "difficulty_score_1_to_5 is 1"),
    (_MC_B, "opp_02", N, "(state x channel)", "(state x loan_officer)",
     "invented_decision_column", "decision_cols are state, channel"),
    (_MC_B, "opp_01", N, "this cohort alone is 76.6% of it", "this cohort alone is 67.6% of it",
     "wrong_share", "impact/total = 1,109,968,000/1,449,903,240 = 76.55%"),
    (_MC_B, "opp_03", N, "3 of 5 quarters, score 0.61", "4 of 5 quarters, score 0.61",
     "wrong_quarters", "persistence_quarters_out_of_total is [3, 5]"),
    (_MC_B, None, "total_projected_impact_usd_annual", "1449903240", "1338887000",
     "wrong_headline_total", "the sidecar headline no longer equals the map total"),
    # --- MortgageCo operator (writer 2)
    (_MC_O, "opp_01", CF, "EBITDA baseline of $2.87 billion", "EBITDA baseline of $2.78 billion",
     "wrong_ebitda_baseline", "ebitda_baseline_usd is 2,870,000,000"),
    (_MC_O, "opp_02", N, "Its 41,207 loans", "Its 14,207 loans", "wrong_count", "n is 41,207"),
    (_MC_O, "opp_02", RI, "(persistence score 0.80)", "(persistence score 0.60)",
     "wrong_persistence", "persistence_score is 0.8"),
    (_MC_O, "opp_03", N, "about $104K a month", "about $140K a month", "wrong_rate",
     "monthly loss is 1,249,000/12 = 104,083"),
    (_MC_O, "opp_01", CF, "about $92.5 million a month", "about $92.5 million a quarter",
     "wrong_rate", "92.5M is the monthly impact; a quarter is 277.5M"),
    (_MC_O, "opp_04", N, "(**Second lien × Investor**)", "(**Second lien × Owner-occupied**)",
     "invented_segment_value", "occupancy is Investor; Owner-occupied is in no segment"),
    (_MC_O, "opp_03", CF, "$1.0 million a year", "$1.0 billion a year", "scaled",
     "impact is 1,037,000"),
    # --- HMDA_GA board (writer 3)
    (_GA_B, "opp_01", N, "| Projected impact | +$28.6M / yr |", "| Projected impact | -$28.6M / yr |",
     "sign_flip", "projected impact is +28,552,000"),
    (_GA_B, "opp_02", N, "| Loans | 1,377 |", "| Loans | 4,218 |", "other_opp_value",
     "opp_02 n is 1,377; 4,218 is opp_01's n"),
    (_GA_B, "opp_03", N, "| Decision columns | channel × property_type |",
     "| Decision columns | channel × occupancy_type |", "invented_decision_column",
     "decision_cols are channel, property_type"),
    (_GA_B, "opp_01", CF, "uplift is 93% of", "uplift is 83% of", "wrong_share",
     "impact/total = 28,552,000/30,695,300 = 93.0%"),
    (_GA_B, "opp_02", N, "| Quarters with a loss | 6 of 8 |", "| Quarters with a loss | 7 of 8 |",
     "wrong_quarters", "persistence_quarters_out_of_total is [6, 8]"),
    (_GA_B, "opp_03", N, "| Current outcome | -$41.7K / yr |", "| Current outcome | -$12.4K / yr |",
     "role_swap", "the projected outcome (-12,400) stated as the current outcome (-41,700)"),
    (_GA_B, "opp_01", RI, "2023Q3 (+$768K)", "2023Q3 (+$786K)", "wrong_figure",
     "2023Q3 outcome is 768,400"),
    # --- HMDA_GA operator (writer 4)
    (_GA_O, "opp_01", N, "approximately US$38.4 million", "approximately US$28.6 million",
     "role_swap", "the impact (28,552,000) stated as the annual loss (current -38,420,000)"),
    (_GA_O, "opp_02", CF, "approximately 51 basis points of EBITDA",
     "approximately 15 basis points of EBITDA", "wrong_share",
     "impact/EBITDA = 2,114,000/412,500,000 = 51 bps"),
    (_GA_O, "opp_03", N, "only 57 loans", "only 75 loans", "wrong_count", "n is 57"),
    (_GA_O, "opp_01", RO, "(3 out of 5)", "(2 out of 5)", "wrong_difficulty",
     "difficulty_score_1_to_5 is 3"),
    (_GA_O, "opp_02", N, "(**Fulton × 2**", "(**DeKalb × 2**", "invented_state_channel_product",
     "county is Fulton; DeKalb is in no segment"),
    (_GA_O, "opp_03", RI, "in five of eight quarters", "in seven of eight quarters",
     "wrong_quarters", "persistence_quarters_out_of_total is [5, 8]"),
    (_GA_O, "opp_01", CF, "$412.5 million EBITDA baseline", "$421.5 million EBITDA baseline",
     "wrong_ebitda_baseline", "ebitda_baseline_usd is 412,500,000"),
    # --- eTeleQuote board (writer 5)
    (_ET_B, "opp_01", N, "$304.3K in total", "$340.3K in total", "wrong_headline_total",
     "total_projected_impact_usd_annual is 304,308.54"),
    (_ET_B, "opp_02", N, "$70.9K of annual loss", "$87.7K of annual loss", "other_opp_value",
     "opp_02 loss is -70,920.34; 87.7K is opp_01's"),
    (_ET_B, "opp_03", CF, "or 17.8% of the", "or 21.8% of the", "wrong_share",
     "impact/total = 54,041.81/304,308.54 = 17.76%"),
    (_ET_B, "opp_05", N, "**Facebook × CA**", "**Google × CA**", "invented_state_channel_product",
     "source is Facebook; Google is in no segment"),
    (_ET_B, "opp_04", RO, "Two out of five", "Four out of five", "wrong_difficulty",
     "difficulty_score_1_to_5 is 2"),
    (_ET_B, "opp_01", N, "twelve quarters out of twelve", "ten quarters out of twelve",
     "wrong_quarters", "persistence_quarters_out_of_total is [12, 12]"),
    (_ET_B, "opp_03", N, "5,549 policies", "5,594 policies", "wrong_count", "n is 5,549"),
    (_ET_B, "opp_02", RI, "costs roughly $17.7K", "costs roughly $71K", "wrong_rate",
     "one quarter of delay costs 70,920.34/4 = 17,730; 71K is the annual figure"),
    # --- eTeleQuote operator (writer 6)
    (_ET_O, "opp_01", CF, "projected outcome $0,", "projected outcome $87,656,", "role_swap",
     "projected_outcome_usd_annual is 0; 87,656 is the current loss"),
    (_ET_O, "opp_02", N, "Share of EBITDA: 591 bps", "Share of EBITDA: 519 bps", "wrong_share",
     "70,920.34/1,200,000 = 591 bps"),
    (_ET_O, "opp_03", N, "Cohort: Affiliate_B x FL", "Cohort: Affiliate_B x GA",
     "invented_state_channel_product", "state is FL; GA is in no eTeleQuote segment"),
    (_ET_O, "opp_04", CF, "impact +$48,585/yr", "impact -$48,585/yr", "sign_flip",
     "projected impact is +48,585.48"),
    (_ET_O, "opp_05", N, "Annual loss $43,105", "Annual loss $431,050", "scaled",
     "loss is -43,105.06"),
    (_ET_O, "opp_02", RO, "difficulty 2/5, 3 weeks", "difficulty 3/5, 3 weeks",
     "wrong_difficulty", "difficulty_score_1_to_5 is 2"),
    # --- UILender board (writer 7)
    (_UI_B, "opp_01", N, "48.8% of the $382.6K total", "48.8% of the $328.6K total",
     "wrong_headline_total", "total is 382,550.11"),
    (_UI_B, "opp_01", CF, "1.3% of the $14.5M baseline", "1.3% of the $15.4M baseline",
     "wrong_ebitda_baseline", "ebitda_baseline_usd is 14,500,000"),
    (_UI_B, "opp_02", N, "**credit_card × B**", "**credit_card × C**", "invented_segment_value",
     "grade is B; no UILender segment has grade C"),
    (_UI_B, "opp_03", N, "**other × B**: 165 loans", "**other × B**: 771 loans",
     "other_opp_value", "opp_03 n is 165; 771 is opp_02's n"),
    (_UI_B, "opp_02", RI, "six of eight quarters (75%)", "six of eight quarters (85%)",
     "wrong_persistence", "6 of 8 quarters is 75%"),
    (_UI_B, "opp_04", CF, "+$28.4K a year", "+$28.4M a year", "scaled", "impact is 28,355.17"),
    (_UI_B, "opp_05", RI, "Loss in 4 of 8 quarters", "Loss in 4 of 6 quarters", "wrong_quarters",
     "persistence_quarters_out_of_total is [4, 8]"),
    # --- UILender operator (writer 8)
    (_UI_O, "opp_01", N, "about -$46.7K per quarter", "about -$15.6K per quarter", "wrong_rate",
     "quarterly loss is 46,674; 15.6K is the monthly figure"),
    (_UI_O, "opp_02", CF, "impact $90.1K a year", "impact -$90.1K a year", "sign_flip",
     "projected impact is +90,068.41"),
    (_UI_O, "opp_01", N, "(purpose × grade)", "(purpose × home_ownership)",
     "invented_decision_column", "decision_cols are purpose, grade"),
    (_UI_O, "opp_04", RO, "Difficulty 2/5", "Difficulty 5/5", "wrong_difficulty",
     "difficulty_score_1_to_5 is 2"),
    (_UI_O, "opp_05", CF, "$382.6K in total", "$362.6K in total", "wrong_headline_total",
     "total is 382,550.11"),
    (_UI_O, "opp_04", N, "39 loans", "93 loans", "wrong_count", "n is 39"),
    # --- pacific_lender board (writer 9)
    (_PL_B, "opp_01", CF, "of the $14.5M EBITDA baseline", "of the $145M EBITDA baseline",
     "wrong_ebitda_baseline", "ebitda_baseline_usd is 14,500,000"),
    (_PL_B, "opp_02", N, "roughly $1,331", "roughly $1,313", "wrong_figure",
     "outcome_mean_usd is -1,331.20"),
    (_PL_B, "opp_03", N, "(**OR × B**", "(**WA × B**", "invented_state_channel_product",
     "addr_state is OR; WA is in no segment"),
    (_PL_B, "opp_01", RI, "persistence score 0.75", "persistence score 0.57", "wrong_persistence",
     "persistence_score is 0.75"),
    (_PL_B, "opp_03", CF, "approximately 26% of the", "approximately 62% of the", "wrong_share",
     "impact/total = 83,260.27/320,813.66 = 25.95%"),
    # --- pacific_lender operator (writer 10)
    (_PL_O, "opp_01", N, "total outcome: −$195,874/yr", "total outcome: +$195,874/yr",
     "sign_flip", "outcome_total_usd_annual is -195,873.79 (a loss stated as a gain)"),
    (_PL_O, "opp_02", RO, "difficulty 2/5", "difficulty 4/5", "wrong_difficulty",
     "difficulty_score_1_to_5 is 2 (4 is opp_01's)"),
    (_PL_O, "opp_03", N, "n = 239 loans", "n = 2,712 loans", "other_opp_value",
     "opp_03 n is 239; 2,712 is opp_01's n"),
    (_PL_O, "opp_03", CF, "portfolio total: $320.8K/yr", "portfolio total: $302.8K/yr",
     "wrong_headline_total", "total is 320,813.66"),
    (_PL_O, "opp_02", RI, "persistence 0.75", "persistence 0.95", "wrong_persistence",
     "persistence_score is 0.75"),
    # --- northeast_lender board (writer 11)
    (_NE_B, "opp_01", N, "(**C × 36 months**", "(**C × 60 months**", "invented_segment_value",
     "term is 36 months; no segment has 60 months"),
    (_NE_B, "opp_02", N, "purpose × grade)", "purpose × emp_length)", "invented_decision_column",
     "decision_cols are purpose, grade"),
    (_NE_B, "opp_03", RI, "(persistence score 0.50)", "(persistence score 0.05)",
     "wrong_persistence", "persistence_score is 0.5"),
    (_NE_B, "opp_01", CF, "1.85% of the $14.5M", "18.5% of the $14.5M", "scaled",
     "impact/EBITDA = 267,706.41/14,500,000 = 1.85%"),
    (_NE_B, "opp_02", N, "over 2,043 loans", "over 2,360 loans", "other_opp_value",
     "opp_02 n is 2,043; 2,360 is opp_01's n"),
    (_NE_B, "opp_01", N, "each of the eight quarters on record",
     "each of the six quarters on record", "wrong_quarters",
     "persistence_quarters_out_of_total is [8, 8]"),
    # --- northeast_lender operator (writer 12)
    (_NE_O, "opp_01", N, "($217.38)", "($271.38)", "wrong_figure", "outcome_mean_usd is -217.38"),
    (_NE_O, "opp_02", CF, "($5.0K per month)", "($15.0K per month)", "wrong_rate",
     "monthly impact is 60,116.76/12 = 5,010"),
    (_NE_O, "opp_03", RO, "Programme total: $384,546", "Programme total: $348,546",
     "wrong_headline_total", "total is 384,545.91"),
    (_NE_O, "opp_03", N, "| **PA × B** |", "| **NJ × B** |", "invented_state_channel_product",
     "addr_state is PA; NJ is in no segment"),
    (_NE_O, "opp_01", RO, "difficulty 4/5", "difficulty 2/5", "wrong_difficulty",
     "difficulty_score_1_to_5 is 4"),
    # --- DCMortgage board (writer 13)
    (_DC_B, "opp_01", N, "126% of the $14.5M EBITDA baseline", "126% of the $18.5M EBITDA baseline",
     "wrong_ebitda_baseline", "ebitda_baseline_usd is 14,500,000"),
    (_DC_B, "opp_02", CF, "27.2% of EBITDA", "37.2% of EBITDA", "wrong_share",
     "impact/EBITDA = 3,949,728.73/14,500,000 = 27.24%"),
    (_DC_B, "opp_03", N, "**47894 × B**", "**47864 × B**", "invented_segment_value",
     "addr_state is 47894; 47864 is in no segment"),
    (_DC_B, "opp_02", N, "$3.9M a year over 4,086 loans", "$6.8M a year over 4,086 loans",
     "other_opp_value", "opp_02 loss is -3,949,728.73; 6.8M is opp_01's"),
    (_DC_B, "opp_03", RI, "about $1.9M per quarter", "about $7.6M per quarter", "wrong_rate",
     "quarterly loss is 1,889,342; 7.6M is the annual figure"),
    (_DC_B, "opp_01", CF, "recovers $6.8M a year", "recovers $-6.8M a year", "sign_flip",
     "projected impact is +6,819,921.33"),
    # --- DCMortgage operator (writer 14)
    (_DC_O, "opp_01", N, "Loans: 6,742.", "Loans: 6,472.", "wrong_count", "n is 6,742"),
    (_DC_O, "opp_02", N, "(purpose x grade)", "(purpose x vintage)", "invented_decision_column",
     "decision_cols are purpose, grade"),
    (_DC_O, "opp_03", CF, "$18.33M/yr", "$15.33M/yr", "wrong_headline_total",
     "total is 18,327,018.61"),
    (_DC_O, "opp_03", RO, "Difficulty 2/5", "Difficulty 4/5", "wrong_difficulty",
     "difficulty_score_1_to_5 is 2"),
    (_DC_O, "opp_01", CF, "about $568K/month", "about $568K/quarter", "wrong_rate",
     "568K is the monthly impact; a quarter is 1.70M"),
    (_DC_O, None, "ebitda_baseline_usd", "14500000.0", "15400000.0", "wrong_ebitda_baseline",
     "the sidecar's EBITDA baseline no longer equals the map's"),
    # --- correct rewrites: must not be flagged
    (_MC_B, "opp_02", N, "$564.8M p.a.", "$0.56bn p.a.", "correct_rewrite",
     "0.56bn stands for [0.555, 0.565)bn; loss 564,812,000"),
    (_MC_O, "opp_01", N, "$1,387.5 million", "$1.387 billion", "correct_rewrite",
     "loss 1,387,460,000"),
    (_GA_B, "opp_01", N, "| Current outcome | -$38.4M / yr |", "| Current outcome | ($38.4M) / yr |",
     "correct_rewrite", "accounting negative; current -38,420,000"),
    (_GA_O, "opp_02", CF, "approximately 51 basis points of EBITDA",
     "approximately 0.51% of EBITDA", "correct_rewrite", "2,114,000/412,500,000 = 0.512%"),
    (_ET_B, "opp_03", N, "$54.0K a year of loss", "$54,042 a year of loss", "correct_rewrite",
     "loss -54,041.81"),
    (_ET_O, "opp_01", N, "Share of EBITDA: 730 bps", "Share of EBITDA: 7.3%", "correct_rewrite",
     "87,655.85/1,200,000 = 7.30%"),
    (_UI_B, "opp_02", RI, "Persistent in six of eight quarters (75%).",
     "Persistent in 6/8 quarters, i.e. three-quarters of the time.", "correct_rewrite",
     "6 of 8 quarters"),
    (_UI_O, "opp_01", N, "-$186,695 a year", "-US$186.7k a year", "correct_rewrite",
     "current -186,694.92"),
    (_PL_O, "opp_01", N, "−$195,874/yr", "-195.9K USD/yr", "correct_rewrite",
     "outcome_total -195,873.79"),
    (_NE_B, "opp_01", N, "losing $267.7K a year", "losing $0.27M a year", "correct_rewrite",
     "0.27M stands for [0.265, 0.275)M; loss -267,706.41"),
    (_NE_O, "opp_02", N, "($60,117)", "−$60,117", "correct_rewrite",
     "unicode minus; outcome_total -60,116.76"),
    (_DC_B, "opp_03", CF, "just over half (52.1%) of EBITDA", "just over half (5,212 bps) of EBITDA",
     "correct_rewrite", "7,557,368.55/14,500,000 = 52.12%"),
    (_DC_O, "opp_01", N, "Annual outcome: -$6,819,921.", "Annual outcome: -$6.82 million.",
     "correct_rewrite", "outcome_total -6,819,921.33"),
    (_MC_B, "opp_01", N, "5/5 quarters", "five out of five quarters", "correct_rewrite",
     "persistence_quarters_out_of_total [5, 5]"),
    (_GA_B, "opp_03", RO, "difficulty 4/5", "difficulty four out of five", "correct_rewrite",
     "difficulty_score_1_to_5 is 4"),
    (_ET_B, "opp_01", N, "the $1.2M EBITDA baseline", "the $1,200,000 EBITDA baseline",
     "correct_rewrite", "ebitda_baseline_usd 1,200,000"),
    (_MC_O, "opp_02", N, "$564.8 million a year", "$564,812,000 a year", "correct_rewrite",
     "loss -564,812,000 exactly"),
    (_PL_B, "opp_02", CF, "roughly 13% of the total", "roughly 13.0% of the total",
     "correct_rewrite", "41,679.60/320,813.66 = 12.99%"),
]


def _rows() -> list[dict]:
    out = []
    counters: dict[str, int] = {}
    for memo, opp, field, find, replace, cls, note in _ROWS:
        counters[cls] = counters.get(cls, 0) + 1
        out.append(
            {
                "id": f"{cls}_{counters[cls]:02d}",
                "memo": memo,
                "opportunity_id": opp,
                "field": field,
                "find": find,
                "replace": replace,
                "error_class": cls,
                "note": note,
            }
        )
    return out


MUTATIONS = _rows()
