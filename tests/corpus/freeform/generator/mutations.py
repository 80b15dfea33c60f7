"""The planted-error cases of this corpus, applied by the shared engine (generator/engine.py)."""

B, O = "board", "operator"
CASES = [
 # wrong_figure
 ("wrong_figure", "BrightPath", B, "opp_01", "narrative", "**$8.7M**", "**$9.4M**"),
 ("wrong_figure", "RidgewayAuto", O, "opp_01", "counterfactual", "= $5.32M net", "= $5.86M net"),
 ("wrong_figure", "Ledgerline", B, "opp_02", "narrative", "write off $1.92M a year", "write off $2.31M a year"),
 ("wrong_figure", "HarborviewMutual", O, "opp_02", "narrative", "cycle time 41 days", "cycle time 57 days"),
 ("wrong_figure", "NorthstarCard", B, "opp_02", "narrative", "charge-off rate 6.7%", "charge-off rate 8.2%"),
 ("wrong_figure", "KeystoneSMB", O, "opp_03", "narrative", "$690K", "$815K"),
 # wrong_derived
 ("wrong_derived", "BrightPath", O, "opp_01", "counterfactual", "about $84 per loan", "about $131 per loan"),
 ("wrong_derived", "RidgewayAuto", B, "opp_01", "counterfactual", "or 4.2% of EBITDA", "or 8.9% of EBITDA"),
 ("wrong_derived", "Ledgerline", O, "opp_03", "counterfactual", "Recovery ratio: 56%", "Recovery ratio: 74%"),
 ("wrong_derived", "HarborviewMutual", O, "opp_01", "risk_of_inaction", "still $9.3M", "still $11.8M"),
 ("wrong_derived", "NorthstarCard", O, "opp_03", "risk_of_inaction", "~$345K", "~$460K"),
 ("wrong_derived", "KeystoneSMB", B, "opp_01", "counterfactual", "13.5% of EBITDA", "17.6% of EBITDA"),
 # fabricated_figure
 ("fabricated_figure", "BrightPath", B, "opp_03", "counterfactual", "$624K a year.", "$624K a year, plus $2.6M of capital relief."),
 ("fabricated_figure", "RidgewayAuto", O, "opp_02", "rollout", "Desk staffing confirmed", "Desk staffing (a $860K annual cost) confirmed"),
 ("fabricated_figure", "Ledgerline", B, "opp_01", "narrative", "or $300 per invoice.", "or $300 per invoice, against a 62% recovery benchmark."),
 ("fabricated_figure", "HarborviewMutual", B, "opp_02", "narrative", "averages 41 days.", "averages 41 days, with 17% of claims reopened."),
 ("fabricated_figure", "NorthstarCard", O, "opp_04", "risk_of_inaction", "~$120K/month.", "~$120K/month, with 2,650 accounts at risk of closure."),
 # sign_flip
 ("sign_flip", "RidgewayAuto", O, "opp_01", "narrative", "current outcome -$11.94M/yr", "current outcome +$11.94M/yr"),
 ("sign_flip", "NorthstarCard", O, "opp_02", "counterfactual", "impact $3.85M", "impact -$3.85M"),
 ("sign_flip", "KeystoneSMB", O, "opp_03", "narrative", "current $-2.695M/yr", "current +$2.695M/yr"),
 ("sign_flip", "HarborviewMutual", O, "opp_01", "narrative", "leakage -$14.26M", "leakage +$14.26M"),
 ("sign_flip", "Ledgerline", O, "opp_02", "counterfactual", "impact $766.8K", "impact -$766.8K"),
 # wrong_number_word
 ("wrong_number_word", "BrightPath", B, "opp_02", "narrative", "five of the last nine quarters", "seven of the last nine quarters"),
 ("wrong_number_word", "RidgewayAuto", B, "opp_03", "counterfactual", "close to a third of the loss", "close to half of the loss"),
 ("wrong_number_word", "HarborviewMutual", B, "opp_03", "counterfactual", "recovers a quarter of the leakage", "recovers a third of the leakage"),
 ("wrong_number_word", "KeystoneSMB", B, "opp_02", "narrative", "three out of five quarters", "four out of five quarters"),
 ("wrong_number_word", "Ledgerline", B, "opp_01", "risk_of_inaction", "five of the last seven quarters", "six of the last seven quarters"),
 # wrong_count_shape
 ("wrong_count_shape", "BrightPath", B, "opp_01", "narrative", "41.2k borrowers", "58k borrowers"),
 ("wrong_count_shape", "BrightPath", O, "opp_02", "narrative", "58,340 loans", "63.5k loans"),
 ("wrong_count_shape", "NorthstarCard", B, "opp_03", "narrative", "nearly 31,000 accounts", "nearly 36,000 accounts"),
 ("wrong_count_shape", "NorthstarCard", B, "opp_01", "narrative", "Roughly 212,000 accounts", "Roughly 231,000 accounts"),
 ("wrong_count_shape", "Ledgerline", O, "opp_01", "narrative", "9.87k invoices", "12.4k invoices"),
 ("wrong_count_shape", "HarborviewMutual", O, "opp_02", "narrative", "2.9k claims", "3.4k claims"),
 # wrong_state
 ("wrong_state", "BrightPath", O, "opp_01", "rollout", "originations in NV.", "originations in OH."),
 ("wrong_state", "RidgewayAuto", O, "opp_02", "counterfactual", "applications in GA to", "applications in SC to"),
 ("wrong_state", "HarborviewMutual", B, "opp_01", "rollout", "capacity in FL", "capacity in LA"),
 ("wrong_state", "NorthstarCard", B, "opp_02", "counterfactual", "spend in CA by 35%", "spend in OR by 35%"),
 # other_opportunity_value
 ("other_opportunity_value", "BrightPath", B, "opp_01", "narrative", "**660-699 × NV**", "**700-739 × NV**"),
 ("other_opportunity_value", "RidgewayAuto", O, "opp_03", "rollout", "the Indirect book", "the Tier 3 book"),
 ("other_opportunity_value", "Ledgerline", B, "opp_02", "risk_of_inaction", "EMEA Starter base", "EMEA Growth base"),
 ("other_opportunity_value", "NorthstarCard", O, "opp_02", "counterfactual", "reduce direct-mail acquisition", "reduce partner acquisition"),
 ("other_opportunity_value", "KeystoneSMB", B, "opp_01", "narrative", "Texas restaurants lose", "Texas construction firms lose"),
 # invented_band
 ("invented_band", "RidgewayAuto", O, "opp_04", "counterfactual", "when the score is below 620.", "when the score is in the 540-579 band."),
 ("invented_band", "NorthstarCard", B, "opp_03", "counterfactual", "at the first missed payment", "at the first missed payment for the 640-679 band"),
 ("invented_band", "BrightPath", B, "opp_01", "counterfactual", "Repricing the band by", "Repricing the 620-659 band by"),
 ("invented_band", "NorthstarCard", O, "opp_01", "counterfactual", "APR on new balances.", "APR on new balances in the 600-639 band."),
 ("invented_band", "BrightPath", O, "opp_03", "counterfactual", "volume in the cohort at", "volume in the 740-779 band at"),
 # invented_decision_column
 ("invented_decision_column", "NorthstarCard", B, "opp_02", "narrative", " (channel × state)", " segment (channel × acquisition_source)"),
 ("invented_decision_column", "RidgewayAuto", B, "opp_02", "narrative", " (dealer_tier × state)", " cohort (dealer_tier × region_code)"),
 ("invented_decision_column", "HarborviewMutual", B, "opp_02", "narrative", " (severity_band × channel)", " segment (severity_band × adjuster_team)"),
 ("invented_decision_column", "KeystoneSMB", B, "opp_01", "narrative", " (industry × state)", " book (industry × naics_code)"),
 ("invented_decision_column", "Ledgerline", O, "opp_03", "narrative", " (payment_method × plan_tier)", " pair (payment_method × contract_term)"),
 # wrong_headline
 ("wrong_headline", "BrightPath", B, None, "total_projected_impact_usd_annual", "6272550", "5480000"),
 ("wrong_headline", "NorthstarCard", O, None, "total_projected_impact_usd_annual", "22783600", "24120000"),
 ("wrong_headline", "KeystoneSMB", B, None, "total_projected_impact_usd_annual", "4778000", "4278000"),
 ("wrong_headline", "Ledgerline", O, None, "total_projected_impact_usd_annual", "3111300", "3450000"),
]

NOTES = {
 "fabricated_figure": "no field of the source, nor a sum, difference, ratio or /4, /12 run-rate of two "
                      "fields of this opportunity and the portfolio, lies within the figure's precision",
}
