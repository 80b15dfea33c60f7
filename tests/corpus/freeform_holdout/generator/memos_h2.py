# Markup as in memos_h1.py. Written before any grader tuning.
M = {}

M["SummitLease", "board"] = {
 "opp_01": {
  "narrative": "[[SummitLease|e]] has one large [[pricing|e]] lever. **[[Construction|e]] × [[60 months|e]]** leases ([[equipment_type|e]] × [[lease_term|e]]) number [[3,860|d|n]] and are on course to lose about [[$6.9M|d|cur]] this year, or some [[$1,800|v|-cur / n]] a lease. The loss rate of [[5.8%|d|@.loss_rate]] compares with [[4.1%|d|portfolio_loss_rate]] across the book, a gap of [[170bps|v|(@.loss_rate - portfolio_loss_rate) * 10000]], and losses appeared in [[six of the last eight quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] raising the residual-risk premium by [[90bps|d|rec]] would bring the annual loss to roughly [[$4.05M|d|proj]], an impact of [[$2.9M|d|imp]]: [[4.3%|v|imp / eb * 100]] of EBITDA and about [[69%|v|imp / tot * 100]] of the [[$4.2M|d|tot]] on the table.",
  "risk_of_inaction": "[[**If we wait:**|l]] about [[$724K|v|imp / 4]] of avoidable loss each quarter; persistence is [[0.75|d|ps]].",
  "rollout": "[[**Next step:**|l]] low difficulty ([[2/5|d|diff]]); a [[six-week|d|time]] change to the [[pricing|e]] grid, ideally before the [[April|n|month]] broker renewals.",
 },
 "opp_02": {
  "narrative": "The [[second|n|ordinal reference]] item is a [[selection|e]] call in **[[600-639|e]] × [[TX|e]]** ([[credit_band|e]] × [[state|e]]). Only [[1,240 leases|d|n]], but they lose [[$2.6M|d|cur]] a year, about [[$2,100|v|-cur / n]] each, at a loss rate of [[8.3%|d|@.loss_rate]]; the loss showed up in [[four of the eight quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] declining lessees in [[Texas|e|@.segment.state]] scoring under [[640|d|rec]] without a guarantor would cut the loss in [[half|v|imp / -cur]], to [[$1.3M|d|proj]], a gain of [[$1.3M|d|imp]] a year.",
  "risk_of_inaction": "[[**If we wait:**|l]] roughly [[$108.5K|v|imp / 12]] a month.",
  "rollout": "[[**Next step:**|l]] hard ([[4/5|d|diff]]): broker agreements need to change, so allow [[twelve weeks|d|time]] and a [[30-day|n|notice period]] notice period.",
 },
}

M["SummitLease", "operator"] = {
 "opp_01": {
  "narrative": "- **[[Construction|e]] × [[60 months|e]]** ([[equipment_type|e]] × [[lease_term|e]]), [[pricing|e]]\n- [[3.86k|d|n]] leases; current [[-$6.948M|d|cur]]/yr; loss rate [[5.8%|d|@.loss_rate]] (book [[4.1%|d|portfolio_loss_rate]])\n- Persistence [[6 of 8|d|pqo]] quarters, score [[0.75|d|ps]]",
  "counterfactual": "- [[**Change:**|l]] +[[90bps|d|rec]] residual-risk premium on [[60-month|e|@.segment.lease_term]] [[construction|e|@.segment.equipment_type]] leases\n- Projected [[-$4.053M|d|proj]]/yr; impact [[$2.895M|d|imp]] ([[~$241K|v|imp / 12]]/month)\n- Recovers [[42%|v|imp / -cur * 100]] of the loss",
  "risk_of_inaction": "- [[**Risk:**|l]] loss keeps compounding at [[$579K|v|-cur / 12]]/month",
  "rollout": "- [[**Plan:**|l]] difficulty [[2/5|d|diff]], [[6 weeks|d|time]]\n- [[Week 1|n|schedule]] grid, [[weeks 2-5|n|schedule]] broker comms, [[week 6|n|schedule]] live\n- Rows: [[L-20817|e|@.evidence_row_ids[0]]], [[L-3302|e|@.evidence_row_ids[1]]], [[L-11965|e|@.evidence_row_ids[2]]]",
 },
 "opp_02": {
  "narrative": "- **[[600-639|e]] × [[TX|e]]** ([[credit_band|e]] × [[state|e]]), [[selection|e]]\n- [[1,240|d|n]] leases; current [[-$2.604M|d|cur]]/yr; loss rate [[8.3%|d|@.loss_rate]], [[2.0x|v|@.loss_rate / portfolio_loss_rate]] the book\n- Persistence [[4/8|d|pqo]], score [[0.50|d|ps]]",
  "counterfactual": "- [[**Change:**|l]] decline scores under [[640|d|rec]] in [[TX|e]] without a guarantor\n- Projected [[-$1.302M|d|proj]]; impact [[$1.302M|d|imp]] ([[31%|v|imp / tot * 100]] of total)",
  "risk_of_inaction": "- [[**Risk:**|l]] [[$109K|v|imp / 12]]/month forgone",
  "rollout": "- [[**Plan:**|l]] difficulty [[4/5|d|diff]], [[12 weeks|d|time]]\n- Rows: [[L-7741|e|@.evidence_row_ids[0]]], [[L-15096|e|@.evidence_row_ids[1]]]",
 },
}

M["OakfieldBNPL", "board"] = {
 "opp_01": {
  "narrative": "Of the [[1.25M accounts|d|active_accounts]] on [[OakfieldBNPL|e]]'s books, the weakest pocket is **[[$500-$1,000|e]]** baskets in **[[Electronics|e]]**. It looks like a [[selection|e]] problem: roughly [[86,000 accounts|d|n]] lose about [[$3.5M|d|out]] a year between them, or [[$40|d|mean]] apiece, with a loss rate of [[7.1%|d|@.loss_rate]] against [[4.9%|d|portfolio_loss_rate]] overall. It has been negative in [[ten of the last twelve quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] a [[25%|d|act]] down payment on [[electronics|e|@.segment.merchant_category]] baskets above [[$750|d|act]] would, on the diagnostic's numbers, save about [[$1.38M|d|imp]] a year: [[40%|v|imp / -out * 100]] of the loss, and about [[7.0%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**If we wait:**|l]] close to [[$288K|v|-out / 12]] a month of credit loss, and a persistence score of [[0.83|d|ps]] says it is not noise.",
  "rollout": "[[**Next step:**|l]] low difficulty ([[2 out of 5|d|diff]]); checkout changes can ship in the [[November|n|month]] release.",
 },
 "opp_02": {
  "narrative": "A [[timing|e]] issue sits with customers who have missed **[[2+|e]]** installments in the **[[App|e]]** [[channel|e]] ([[missed_installments|e]] × [[channel|e]]): about [[24.1k accounts|d|n]], [[$1.81M|d|out]] a year of loss, [[$75|d|mean]] each, and a loss rate of [[11.8%|d|@.loss_rate]], some [[2.4x|v|@.loss_rate / portfolio_loss_rate]] the book. The pattern held in [[seven of twelve quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] pausing new purchases after the [[second|n|ordinal naming a step of the action]] missed installment recovers about [[30%|v|imp / -out * 100]] of the loss, [[$542K|d|imp]] a year.",
  "risk_of_inaction": "[[**If we wait:**|l]] roughly [[$45K|v|imp / 12]] a month.",
  "rollout": "[[**Next step:**|l]] the easiest change in the set (difficulty [[1 out of 5|d|diff]]), a rules-engine toggle that can go live in a [[two-week|n|duration]] sprint.",
 },
}

M["OakfieldBNPL", "operator"] = {
 "opp_01": {
  "narrative": "| Metric | [[$500-$1,000|e]] × [[Electronics|e]] |\n|---|---|\n| Columns | [[basket_size|e]] × [[merchant_category|e]] |\n| Archetype | [[selection|e]] |\n| Accounts | [[86.4k|d|n]] |\n| Annual loss | [[$3.456M|d|out]] |\n| Loss rate | [[7.1%|d|@.loss_rate]] vs [[4.9%|d|portfolio_loss_rate]] |\n| Quarters negative | [[10/12|d|pqo]] |",
  "counterfactual": "[[**Action:**|l]] [[25%|d|act]] down payment above [[$750|d|act]]. Impact [[$1,382,400|d|imp]]/yr, [[$16|v|imp / n]] per account, [[72%|v|imp / tot * 100]] of the total.",
  "risk_of_inaction": "[[**Risk:**|l]] [[$288K|v|-out / 12]]/month; score [[0.83|d|ps]].",
  "rollout": "[[**Plan:**|l]] difficulty [[2/5|d|diff]]. Rows: [[901223|e|@.evidence_row_ids[0]]], [[44518|e|@.evidence_row_ids[1]]], [[730092|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "| Metric | [[2+|e]] × [[App|e]] |\n|---|---|\n| Columns | [[missed_installments|e]] × [[channel|e]] |\n| Archetype | [[timing|e]] |\n| Accounts | [[24,100|d|n]] |\n| Annual loss | [[$1.8075M|d|out]] |\n| Loss rate | [[11.8%|d|@.loss_rate]] |\n| Quarters negative | [[7/12|d|pqo]] |",
  "counterfactual": "[[**Action:**|l]] pause purchases after the [[second|n|ordinal naming a step of the action]] missed installment. Impact [[$542.25K|d|imp]]/yr ([[~$136K|v|imp / 4]]/qtr).",
  "risk_of_inaction": "[[**Risk:**|l]] [[$45K|v|imp / 12]]/month; score [[0.58|d|ps]].",
  "rollout": "[[**Plan:**|l]] difficulty [[1/5|d|diff]]. Rows: [[12094|e|@.evidence_row_ids[0]]], [[677301|e|@.evidence_row_ids[1]]].",
 },
}

M["BayshoreMortgage", "board"] = {
 "opp_01": {
  "narrative": "For [[BayshoreMortgage|e]], the most valuable change is a [[timing|e]] one in high-LTV [[Florida|e|@.segment.state]] loans, **[[LTV 90-97%|e]] × [[FL|e]]** ([[ltv_band|e]] × [[state|e]]). The [[11,300 loans|d|n]] in the cohort are costing around [[$9.0M|d|cur]] a year, about [[$800|v|-cur / n]] a loan. The cure rate has slipped each quarter of [[2025|n|year]], from [[49%|d|@.quarterly_cure_rate[0].value]] to [[44%|d|@.quarterly_cure_rate[3].value]], [[five points|v|(@.cure_rate - portfolio_cure_rate) * 100]] above the portfolio's [[39%|d|portfolio_cure_rate]] but falling.",
  "counterfactual": "[[**Counterfactual:**|l]] starting forbearance outreach at [[15 days|d|rec]] past due instead of [[45|d|rec]] takes the annual cost to about [[$5.65M|d|proj]], an improvement of [[$3.39M|d|imp]], or [[2.4%|v|imp / eb * 100]] of EBITDA and [[three-quarters|v|imp / tot]] of the [[$4.55M|d|tot]] total.",
  "risk_of_inaction": "[[**If we wait:**|l]] roughly [[$282.5K|v|imp / 12]] a month; the loss appeared in [[six of the last seven quarters|d|pqo]].",
  "rollout": "[[**Next step:**|l]] difficulty [[2/5|d|diff]], [[four weeks|d|time]] of dialer and letter changes, ahead of the [[hurricane season|n|season]] in [[June|n|month]].",
 },
 "opp_02": {
  "narrative": "The [[second|n|ordinal reference]] lever is [[routing|e]]: **[[FHA|e]]** loans from the **[[Broker|e]]** [[channel|e]] ([[loan_type|e]] × [[channel|e]]). [[6,720 loans|d|n]] cost [[$4.7M|d|cur]] a year, roughly [[$700|v|-cur / n]] each, and the cure rate of [[31%|d|cure]] sits [[eight points|v|(portfolio_cure_rate - cure) * 100]] below the book.",
  "counterfactual": "[[**Counterfactual:**|l]] sending [[broker|e|@.segment.channel]]-sourced [[FHA|e]] defaults to the loss-mitigation specialists brings the cost down to [[$3.43M|d|proj]]. The gross gain is [[$1.28M|v|proj - cur]]; after [[$120K|d|cost]] of specialist cost the net impact is [[$1.16M|d|imp]].",
  "risk_of_inaction": "[[**If we wait:**|l]] about [[$289K|v|imp / 4]] a quarter, and the loss showed up in [[four of seven quarters|d|pqo]].",
  "rollout": "[[**Next step:**|l]] medium difficulty ([[3/5|d|diff]]), about [[nine weeks|d|time]] to stand up the queue.",
 },
}

M["BayshoreMortgage", "operator"] = {
 "opp_01": {
  "narrative": "- Cohort **[[LTV 90-97%|e]] × [[FL|e]]** ([[ltv_band|e]] × [[state|e]]); [[timing|e]]\n- [[11.3k|d|n]] loans; current [[-$9.04M|d|cur]]/yr\n- Cure rate by quarter: [[49%|d|@.quarterly_cure_rate[0].value]], [[47%|d|@.quarterly_cure_rate[1].value]], [[45%|d|@.quarterly_cure_rate[2].value]], [[44%|d|@.quarterly_cure_rate[3].value]] (book [[39%|d|portfolio_cure_rate]])\n- Persistence [[6/7|d|pqo]], score [[0.86|d|ps]]",
  "counterfactual": "- [[**Change:**|l]] outreach at [[15|d|rec]] DPD (was [[45|d|rec]])\n- Projected [[-$5.65M|d|proj]]/yr; impact [[$3,390,000|d|imp]], [[37.5%|v|imp / -cur * 100]] of current loss\n- [[$847.5K|v|imp / 4]] per quarter",
  "risk_of_inaction": "- [[**Risk:**|l]] [[$753K|v|-cur / 12]]/month at today's run-rate",
  "rollout": "- [[**Plan:**|l]] difficulty [[2/5|d|diff]], [[4 weeks|d|time]]\n- [[Week 1|n|schedule]] scripts; [[weeks 2-3|n|schedule]] dialer; [[week 4|n|schedule]] go-live; [[T+30|n|checkpoint]] review\n- Rows: [[M-301877|e|@.evidence_row_ids[0]]], [[M-55120|e|@.evidence_row_ids[1]]], [[M-209943|e|@.evidence_row_ids[2]]]",
 },
 "opp_02": {
  "narrative": "- Cohort **[[FHA|e]] × [[Broker|e]]** ([[loan_type|e]] × [[channel|e]]); [[routing|e]]\n- [[6,720|d|n]] loans; current [[-$4.704M|d|cur]]/yr; cure rate [[31%|d|cure]]\n- Persistence [[4/7|d|pqo]], score [[0.57|d|ps]]",
  "counterfactual": "- [[**Change:**|l]] route defaults to loss-mitigation specialists\n- Projected [[-$3.4272M|d|proj]]; gross [[$1.2768M|v|proj - cur]] less [[$120K|d|cost]] = [[$1.1568M|d|imp]] net",
  "risk_of_inaction": "- [[**Risk:**|l]] [[$96.4K|v|imp / 12]]/month",
  "rollout": "- [[**Plan:**|l]] difficulty [[3/5|d|diff]], [[9 weeks|d|time]]\n- Rows: [[M-7710|e|@.evidence_row_ids[0]]], [[M-40022|e|@.evidence_row_ids[1]]]",
 },
}
