"""The planted-error cases of this corpus, applied by the shared engine (generator/engine.py)."""

B, O = "board", "operator"
# Written with the memos, before the grader was tuned on them.
CASES = [
 # wrong_figure
 ("wrong_figure", "CedarRiverCU", B, "opp_01", "narrative", "roughly $5.4M over", "roughly $6.1M over"),
 ("wrong_figure", "MeridianFreight", O, "opp_01", "narrative", "DSO 68d", "DSO 83d"),
 ("wrong_figure", "PinecrestHealth", B, "opp_01", "narrative", "Denials run at 18.7%", "Denials run at 21.4%"),
 ("wrong_figure", "BayshoreMortgage", O, "opp_01", "narrative", "45%, 44% (book", "45%, 41% (book"),
 ("wrong_figure", "SummitLease", O, "opp_02", "counterfactual", "impact $1.302M (31%", "impact $1.45M (31%"),
 # wrong_derived
 ("wrong_derived", "CedarRiverCU", O, "opp_01", "counterfactual", "about $96 per loan", "about $137 per loan"),
 ("wrong_derived", "MeridianFreight", B, "opp_01", "narrative", "about $600 per invoice", "about $720 per invoice"),
 ("wrong_derived", "PinecrestHealth", B, "opp_01", "counterfactual", "40% of the leakage", "55% of the leakage"),
 ("wrong_derived", "OakfieldBNPL", B, "opp_01", "counterfactual", "about 7.0% of EBITDA", "about 8.8% of EBITDA"),
 ("wrong_derived", "BayshoreMortgage", B, "opp_01", "risk_of_inaction", "roughly $282.5K a month", "roughly $341.5K a month"),
 ("wrong_derived", "SummitLease", B, "opp_01", "risk_of_inaction", "about $724K of avoidable", "about $915K of avoidable"),
 # fabricated_figure
 ("fabricated_figure", "CedarRiverCU", B, "opp_02", "risk_of_inaction", "avoidable loss.", "avoidable loss, plus $1.7M of reserve build."),
 ("fabricated_figure", "MeridianFreight", O, "opp_02", "risk_of_inaction", "low urgency.", "low urgency; 31% of disputes are already escalated."),
 ("fabricated_figure", "PinecrestHealth", O, "opp_03", "risk_of_inaction", "/month; low.", "/month; low, with 1,430 claims pending review."),
 ("fabricated_figure", "OakfieldBNPL", O, "opp_02", "rollout", "difficulty 1/5.", "difficulty 1/5, costing $215K to build."),
 # sign_flip
 ("sign_flip", "CedarRiverCU", O, "opp_01", "narrative", "(+230bps)", "(-230bps)"),
 ("sign_flip", "MeridianFreight", O, "opp_01", "narrative", "write-off -$3.744M/yr", "write-off +$3.744M/yr"),
 ("sign_flip", "SummitLease", O, "opp_01", "narrative", "current -$6.948M/yr", "current +$6.948M/yr"),
 ("sign_flip", "BayshoreMortgage", O, "opp_02", "counterfactual", "= $1.1568M net", "= -$1.1568M net"),
 ("sign_flip", "PinecrestHealth", O, "opp_01", "narrative", "| -$150 |", "| +$150 |"),
 # wrong_number_word
 ("wrong_number_word", "CedarRiverCU", B, "opp_01", "narrative", "six of the last eight quarters", "seven of the last eight quarters"),
 ("wrong_number_word", "PinecrestHealth", B, "opp_02", "counterfactual", "recovers a quarter of the write-off", "recovers a third of the write-off"),
 ("wrong_number_word", "SummitLease", B, "opp_02", "counterfactual", "cut the loss in half", "cut the loss by a third"),
 ("wrong_number_word", "OakfieldBNPL", B, "opp_01", "narrative", "ten of the last twelve quarters", "eleven of the last twelve quarters"),
 ("wrong_number_word", "MeridianFreight", B, "opp_02", "risk_of_inaction", "five of eight quarters", "six of eight quarters"),
 ("wrong_number_word", "BayshoreMortgage", B, "opp_02", "risk_of_inaction", "four of seven quarters", "three of seven quarters"),
 # wrong_count_shape
 ("wrong_count_shape", "CedarRiverCU", B, "opp_01", "narrative", "some 22.4k loans", "some 26.8k loans"),
 ("wrong_count_shape", "OakfieldBNPL", B, "opp_01", "narrative", "roughly 86,000 accounts", "roughly 92,000 accounts"),
 ("wrong_count_shape", "PinecrestHealth", O, "opp_01", "narrative", "| 48.3k |", "| 53.1k |"),
 ("wrong_count_shape", "BayshoreMortgage", O, "opp_01", "narrative", "11.3k loans", "13.9k loans"),
 ("wrong_count_shape", "SummitLease", O, "opp_01", "narrative", "3.86k leases", "4.4k leases"),
 ("wrong_count_shape", "OakfieldBNPL", B, "opp_02", "narrative", "about 24.1k accounts", "about 31k accounts"),
 # wrong_state
 ("wrong_state", "CedarRiverCU", O, "opp_01", "counterfactual", "on the band in OH", "on the band in PA"),
 ("wrong_state", "SummitLease", O, "opp_02", "counterfactual", "under 640 in TX", "under 640 in OK"),
 ("wrong_state", "BayshoreMortgage", O, "opp_01", "counterfactual", "outreach at 15 DPD", "outreach in GA at 15 DPD"),
 ("wrong_state", "SummitLease", B, "opp_02", "counterfactual", "declining lessees in Texas", "declining lessees in Oklahoma"),
 # other_opportunity_value
 ("other_opportunity_value", "CedarRiverCU", O, "opp_02", "counterfactual", "income verification above", "income verification in OH above"),
 ("other_opportunity_value", "PinecrestHealth", B, "opp_02", "counterfactual", "escalate appeals at", "escalate Medicaid appeals at"),
 ("other_opportunity_value", "OakfieldBNPL", B, "opp_02", "counterfactual", "pausing new purchases", "pausing new Electronics purchases"),
 ("other_opportunity_value", "BayshoreMortgage", B, "opp_02", "rollout", "to stand up the queue.", "to stand up the queue for FL."),
 ("other_opportunity_value", "MeridianFreight", B, "opp_02", "counterfactual", "routing disputes to", "routing Midwest disputes to"),
 # invented_band
 ("invented_band", "CedarRiverCU", B, "opp_01", "counterfactual", "lift APR on the band by", "lift APR on the 660-699 band by"),
 ("invented_band", "SummitLease", B, "opp_02", "counterfactual", "scoring under 640 without", "scoring in the 560-599 band without"),
 ("invented_band", "SummitLease", O, "opp_02", "risk_of_inaction", "/month forgone", "/month forgone in the 640-679 band"),
 ("invented_band", "CedarRiverCU", O, "opp_01", "rollout", "- Difficulty 2/5", "- Difficulty 2/5; the 580-619 band follows later"),
 ("invented_band", "BayshoreMortgage", B, "opp_01", "counterfactual", "starting forbearance outreach at", "starting forbearance outreach for LTV 97-105% at"),
 # invented_decision_column
 ("invented_decision_column", "CedarRiverCU", B, "opp_01", "narrative", "(fico_band × state)", "(fico_band × county)"),
 ("invented_decision_column", "SummitLease", B, "opp_01", "narrative", "(equipment_type × lease_term)", "(equipment_type × residual_band)"),
 ("invented_decision_column", "OakfieldBNPL", B, "opp_02", "narrative", "(missed_installments × channel)", "(missed_installments × device_type)"),
 ("invented_decision_column", "MeridianFreight", B, "opp_02", "narrative", "(customer_segment × carrier_type)", "(customer_segment × lane_type)"),
 ("invented_decision_column", "BayshoreMortgage", B, "opp_02", "narrative", "(loan_type × channel)", "(loan_type × investor_type)"),
 # wrong_headline
 ("wrong_headline", "CedarRiverCU", B, None, "total_projected_impact_usd_annual", "2999600", "3290000"),
 ("wrong_headline", "PinecrestHealth", O, None, "total_projected_impact_usd_annual", "4313250", "3900000"),
 ("wrong_headline", "OakfieldBNPL", B, None, "total_projected_impact_usd_annual", "1924650", "2110000"),
]

NOTES = {
 "fabricated_figure": "no field of the source, nor a sum, difference, ratio or /4, /12 run-rate of two "
                      "fields of this opportunity and the portfolio, lies within the figure's precision",
}
