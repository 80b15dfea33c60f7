# Markup: [[text|kind|ref]]  kind: d direct, v derived, n not_a_claim, e name, l section label.
# ref aliases are expanded by build.py; @ = this opportunity. Written before any grader tuning.
M = {}

M["CedarRiverCU", "board"] = {
 "opp_01": {
  "narrative": "At [[CedarRiverCU|e]], the clearest lever sits in the **[[620-659|e]] × [[OH|e]]** book ([[fico_band|e]] × [[state|e]]). It is, in our view, a [[pricing|e]] gap rather than an underwriting one: the segment holds some [[22.4k loans|d|n]] and lost roughly [[$5.4M|d|out]] over the year, close to [[$240|d|mean]] per loan. Delinquency runs at [[6.1%|d|@.delinquency_rate]] against [[3.8%|d|portfolio_delinquency_rate]] for the credit union as a whole, about [[1.6x|v|@.delinquency_rate / portfolio_delinquency_rate]] the book, and the loss appeared in [[six of the last eight quarters|d|pqo]].",
  "counterfactual": "[[**What we would do:**|l]] lift APR on the band by [[150bps|d|act]]. The diagnostic puts the benefit at about [[$2.15M|d|imp]] a year, roughly [[40%|v|imp / -out * 100]] of the segment's loss and [[6.9%|v|imp / eb * 100]] of EBITDA; on its own it is [[72%|v|imp / tot * 100]] of the [[$3.0M|d|tot]] programme.",
  "risk_of_inaction": "[[**If we wait:**|l]] the loss keeps running at something like [[$448K|v|-out / 12]] a month. We would not expect it to correct itself; the persistence score is [[0.72|d|ps]].",
  "rollout": "[[**Timeline:**|l]] difficulty [[2 of 5|d|diff]]. [[Pricing|e|@.archetype]] can change for new applications from [[1 March 2026|n|date]], with a [[60-day|n|duration]] review of approval rates before renewals are touched.",
 },
 "opp_02": {
  "narrative": "The [[second|n|ordinal reference]] item is a [[selection|e]] question on longer-term loans: **[[48-60 months|e]]** paper written in the **[[Branch|e]]** [[channel|e]]. There are [[9,650 loans|d|n]] in the cohort, losing about [[$2.1M|d|out]] a year; delinquency is [[5.2%|d|@.delinquency_rate]], and the pattern held in [[half of the eight quarters|d|pqo]] we looked at.",
  "counterfactual": "[[**What we would do:**|l]] require income verification on [[branch|e|@.segment.channel]] applications above [[$25,000|d|act]]. That is worth about [[$849K|d|imp]] a year, [[2.7%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**If we wait:**|l]] roughly [[$71K|v|imp / 12]] a month of avoidable loss.",
  "rollout": "[[**Timeline:**|l]] medium difficulty ([[3/5|d|diff]]); [[branch|e|@.segment.channel]] staff need a [[two-week|n|duration]] training window, so the earliest go-live is [[Q2 2026|n|date]].",
 },
}

M["CedarRiverCU", "operator"] = {
 "opp_01": {
  "narrative": "- Cohort: **[[620-659|e]] × [[OH|e]]** ([[fico_band|e]] × [[state|e]])\n- Archetype: [[pricing|e]]\n- Loans: [[22,400|d|n]]\n- Annual loss: [[$5.38M|d|out]] ([[$240|d|mean]]/loan)\n- Delinquency: [[6.1%|d|@.delinquency_rate]] vs [[3.8%|d|portfolio_delinquency_rate]] book ([[+230bps|v|(@.delinquency_rate - portfolio_delinquency_rate) * 10000]])\n- Persistence: [[6/8|d|pqo]] quarters, score [[0.72|d|ps]]",
  "counterfactual": "- [[**Action:**|l]] raise APR by [[150bps|d|act]] on the band in [[OH|e]]\n- Impact: [[$2,150,400|d|imp]]/yr, about [[$96|v|imp / n]] per loan, [[~$538K|v|imp / 4]] per quarter\n- Residual loss after the change: [[~$3.2M|v|-(out + imp)]]",
  "risk_of_inaction": "- [[**Risk:**|l]] [[$448K|v|-out / 12]] monthly loss continues\n- Loss in [[6 of 8 quarters|d|pqo]]",
  "rollout": "- [[**Owner:**|l]] [[pricing|e]] desk\n- Difficulty [[2/5|d|diff]]\n- [[Week 1|n|schedule]]: rate-sheet change; [[weeks 2-4|n|schedule]]: compliance review; go-live [[1 March|n|date]]\n- Spot-check rows: [[55012|e|@.evidence_row_ids[0]]], [[70431|e|@.evidence_row_ids[1]]], [[9918|e|@.evidence_row_ids[2]]]",
 },
 "opp_02": {
  "narrative": "- Cohort: **[[48-60 months|e]] × [[Branch|e]]** ([[term_band|e]] × [[channel|e]])\n- Archetype: [[selection|e]]\n- Loans: [[9.65k|d|n]]; loss [[$2.12M|d|out]]/yr, [[$220|d|mean]] per loan\n- Delinquency [[5.2%|d|@.delinquency_rate]]; persistence [[4/8|d|pqo]], score [[0.55|d|ps]]",
  "counterfactual": "- [[**Action:**|l]] income verification above [[$25,000|d|act]]\n- Impact [[$849.2K|d|imp]]/yr, [[40%|v|imp / -out * 100]] of the cohort loss",
  "risk_of_inaction": "- [[**Risk:**|l]] [[~$71K|v|imp / 12]]/month",
  "rollout": "- [[**Owner:**|l]] [[branch|e|@.segment.channel]] network\n- Difficulty [[3/5|d|diff]]; [[2-week|n|duration]] staff training [[first|n|ordinal naming a step]]\n- Spot-check rows: [[12007|e|@.evidence_row_ids[0]]], [[81544|e|@.evidence_row_ids[1]]]",
 },
}

M["MeridianFreight", "board"] = {
 "opp_01": {
  "narrative": "[[MeridianFreight|e]]'s biggest collections gap is a [[timing|e]] issue in **[[$10,000-$50,000|e]] × [[Midwest|e]]** invoices. The numbers, in short:\n\n| | |\n|---|---|\n| Invoices | [[6,240|d|n]] |\n| Current annual write-off | [[$3.74M|d|cur]] |\n| Days sales outstanding | [[68|d|@.dso_days]] vs [[47|d|portfolio_dso_days]] for the portfolio |\n| Quarters with a loss | [[7 of 8|d|pqo]] |\n\nThat is about [[$600|v|-cur / n]] per invoice, and the quarterly write-off has crept up from [[$890K|d|@.quarterly_outcome_usd[0].outcome_usd]] to [[$978K|d|@.quarterly_outcome_usd[3].outcome_usd]] through [[2025|n|year]].",
  "counterfactual": "[[**Counterfactual:**|l]] sending the [[first|n|ordinal naming a step of the action]] reminder [[3 days|d|rec]] before the due date, instead of [[10 days|d|rec]] after, takes the write-off to roughly [[$2.25M|d|proj]]: an improvement of [[$1.5M|d|imp]] a year, [[40%|v|imp / -cur * 100]] of today's loss and about [[78%|v|imp / tot * 100]] of the programme.",
  "risk_of_inaction": "[[**If we wait:**|l]] around [[$125K|v|imp / 12]] a month is left on the table, and DSO is already [[21 days|v|@.dso_days - portfolio_dso_days]] above the portfolio.",
  "rollout": "[[**Timeline:**|l]] low difficulty ([[2/5|d|diff]]) and a [[five-week|d|time]] build in the billing system; we would switch it on at the start of [[Q2|n|quarter label]].",
 },
 "opp_02": {
  "narrative": "A smaller [[routing|e]] opportunity sits with **[[Mid-market|e]]** customers using **[[Owner-operator|e]]** carriers ([[customer_segment|e]] × [[carrier_type|e]]): [[1,980 invoices|d|n]] and [[$1.58M|d|cur]] of annual write-off, with DSO at [[74 days|d|@.dso_days]].",
  "counterfactual": "[[**Counterfactual:**|l]] [[routing|e]] disputes to the specialist team within [[24 hours|d|rec]] brings the write-off down to [[$1.11M|d|proj]]. The gross gain of [[$475K|v|proj - cur]] carries [[$60K|d|cost]] of team cost, leaving [[$415K|d|imp]] net.",
  "risk_of_inaction": "[[**If we wait:**|l]] the loss showed up in [[five of eight quarters|d|pqo]]; it is a real but [[second|n|ordinal reference]]-order item.",
  "rollout": "[[**Timeline:**|l]] difficulty [[3 of 5|d|diff]], about [[eight weeks|d|time]] to staff the desk.",
 },
}

M["MeridianFreight", "operator"] = {
 "opp_01": {
  "narrative": "Cohort **[[$10,000-$50,000|e]] × [[Midwest|e]]** ([[invoice_size|e]] × [[region|e]]); [[timing|e]]. [[6.24k|d|n]] invoices, write-off [[-$3.744M|d|cur]]/yr, DSO [[68|d|@.dso_days]]d. By quarter: [[-$890K|d|@.quarterly_outcome_usd[0].outcome_usd]], [[-$925K|d|@.quarterly_outcome_usd[1].outcome_usd]], [[-$951K|d|@.quarterly_outcome_usd[2].outcome_usd]], [[-$978K|d|@.quarterly_outcome_usd[3].outcome_usd]].",
  "counterfactual": "[[**Change:**|l]] [[first|n|ordinal naming a step of the action]] reminder at [[3 days|d|rec]] pre-due (today: [[10 days|d|rec]] past due). Projected [[-$2.2464M|d|proj]]/yr; impact [[$1,497,600|d|imp]], i.e. [[$124.8K|v|imp / 12]]/month, [[2.8%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**Risk:**|l]] persistence [[0.88|d|ps]] ([[7/8|d|pqo]] quarters).",
  "rollout": "[[**Plan:**|l]] difficulty [[2/5|d|diff]], [[5 weeks|d|time]]. Sprint [[1|n|sprint number]] template, sprint [[2|n|sprint number]] scheduler, then a [[30-day|n|duration]] shadow run. Rows: [[INV-88120|e|@.evidence_row_ids[0]]], [[INV-4471|e|@.evidence_row_ids[1]]], [[INV-90233|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "Cohort **[[Mid-market|e]] × [[Owner-operator|e]]**; [[routing|e]]. [[1,980|d|n]] invoices, write-off [[$1.584M|d|cur]]/yr ([[$800|v|-cur / n]]/invoice), DSO [[74|d|@.dso_days]]d, [[5 of 8 quarters|d|pqo]], score [[0.63|d|ps]].",
  "counterfactual": "[[**Change:**|l]] disputes to specialists within [[24 hours|d|rec]]. Projected [[$1.1088M|d|proj]]/yr. Gross [[$475.2K|v|proj - cur]] less [[$60K|d|cost]] = [[$415.2K|d|imp]] net ([[$34.6K|v|imp / 12]]/month).",
  "risk_of_inaction": "[[**Risk:**|l]] net impact is [[22%|v|imp / tot * 100]] of the portco total; low urgency.",
  "rollout": "[[**Plan:**|l]] difficulty [[3/5|d|diff]]; [[8 weeks|d|time]]. Rows: [[INV-1203|e|@.evidence_row_ids[0]]], [[INV-66310|e|@.evidence_row_ids[1]]].",
 },
}

M["PinecrestHealth", "board"] = {
 "opp_01": {
  "narrative": "[[**Where the money is**|l]]\n\nAt [[PinecrestHealth|e]]:\n\n- **[[Medicaid|e]] × [[Outpatient|e]]** claims, a [[routing|e]] problem: [[48,300 claims|d|n]], about [[$7.2M|d|out]] of annual leakage, [[$150|d|mean]] a claim.\n- Denials run at [[18.7%|d|@.denial_rate]], roughly [[1.7x|v|@.denial_rate / portfolio_denial_rate]] the portfolio's [[11.2%|d|portfolio_denial_rate]].\n- The leakage showed up in [[nine of the last ten quarters|d|pqo]].",
  "counterfactual": "[[**The fix:**|l]] pre-submission scrubbing with a [[72-hour|d|act]] turnaround recovers about [[$2.9M|d|imp]] a year, [[40%|v|imp / -out * 100]] of the leakage and close to [[two thirds|v|imp / tot]] of the [[$4.3M|d|tot]] total.",
  "risk_of_inaction": "[[**Downside:**|l]] some [[$604K|v|-out / 12]] a month keeps leaking; at a persistence score of [[0.9|d|ps]] this is structural.",
  "rollout": "[[**Timeline:**|l]] difficulty [[2/5|d|diff]]. Vendor configuration in [[January|n|month]], live by [[end of Q1|n|date]].",
 },
 "opp_02": {
  "narrative": "- **[[91-120 days|e]] × [[Commercial|e]]** receivables, a [[timing|e]] issue: [[13,750 claims|d|n]] and [[$4.1M|d|out]] a year of write-off, or [[$300|d|mean]] each.\n- Denial rate [[9.4%|d|@.denial_rate]]; losses in [[six of ten quarters|d|pqo]].",
  "counterfactual": "[[**The fix:**|l]] escalate appeals at [[day 60|d|act]] rather than [[day 90|d|act]]. It recovers [[a quarter|v|imp / -out]] of the write-off, about [[$1.03M|d|imp]] a year.",
  "risk_of_inaction": "[[**Downside:**|l]] roughly [[$258K|v|imp / 4]] of recoverable cash per quarter.",
  "rollout": "[[**Timeline:**|l]] difficulty [[3/5|d|diff]]; appeals staff need [[six weeks|n|duration]] of retraining.",
 },
 "opp_03": {
  "narrative": "- **[[Eastside|e]] × [[Imaging|e]]**, an [[allocation|e]] item: [[5,120 claims|d|n]], [[$1.54M|d|out]] annual leakage, denials at [[14.1%|d|@.denial_rate]].\n- Only [[4 of 10 quarters|d|pqo]] showed the loss (score [[0.4|d|ps]]); treat as a watch item.",
  "counterfactual": "[[**The fix:**|l]] move [[20%|d|act]] of the prior-authorisation work to the central team: [[$384K|d|imp]] a year, about [[$75|v|imp / n]] per claim. With the appeals change above, the [[two|n|reference to the items just named]] smaller items add up to roughly [[$1.4M|v|opportunities[1].projected_impact_usd_annual + imp]].",
  "risk_of_inaction": "[[**Downside:**|l]] modest, about [[$32K|v|imp / 12]] a month.",
  "rollout": "[[**Timeline:**|l]] the hardest of the [[three|n|reference to the items in the memo]] ([[4/5|d|diff]]): it needs a staffing plan approved in the [[FY26|n|fiscal year]] budget.",
 },
}

M["PinecrestHealth", "operator"] = {
 "opp_01": {
  "narrative": "| Field | Value |\n|---|---|\n| Cohort | **[[Medicaid|e]] × [[Outpatient|e]]** |\n| Columns | [[payer_class|e]] × [[claim_type|e]] |\n| Archetype | [[routing|e]] |\n| Claims | [[48.3k|d|n]] |\n| Annual leakage | [[-$7.245M|d|out]] |\n| Per claim | [[-$150|d|mean]] |\n| Denial rate | [[18.7%|d|@.denial_rate]] (book [[11.2%|d|portfolio_denial_rate]]) |\n| Persistence | [[9/10|d|pqo]], score [[0.90|d|ps]] |",
  "counterfactual": "[[**Action:**|l]] scrub claims pre-submission, SLA [[72 hours|d|act]]. Impact [[$2.898M|d|imp]]/yr; [[3.3%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**Risk:**|l]] [[$603.75K|v|-out / 12]]/month leakage.",
  "rollout": "[[**Plan:**|l]] difficulty [[2/5|d|diff]]. [[Weeks 1-3|n|schedule]] rules build; [[weeks 4-6|n|schedule]] parallel run. Rows: [[C-771203|e|@.evidence_row_ids[0]]], [[C-118450|e|@.evidence_row_ids[1]]], [[C-903311|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "| Field | Value |\n|---|---|\n| Cohort | **[[91-120 days|e]] × [[Commercial|e]]** |\n| Columns | [[days_in_ar|e]] × [[payer_class|e]] |\n| Archetype | [[timing|e]] |\n| Claims | [[13,750|d|n]] |\n| Annual write-off | [[$4.125M|d|out]] |\n| Denial rate | [[9.4%|d|@.denial_rate]] |\n| Persistence | [[6/10|d|pqo]], score [[0.60|d|ps]] |",
  "counterfactual": "[[**Action:**|l]] appeal escalation at [[day 60|d|act]] (was [[day 90|d|act]]). Impact [[$1,031,250|d|imp]]/yr = [[25%|v|imp / -out * 100]] of write-off.",
  "risk_of_inaction": "[[**Risk:**|l]] [[~$86K|v|imp / 12]]/month.",
  "rollout": "[[**Plan:**|l]] difficulty [[3/5|d|diff]]. Rows: [[C-45120|e|@.evidence_row_ids[0]]], [[C-230087|e|@.evidence_row_ids[1]]].",
 },
 "opp_03": {
  "narrative": "| Field | Value |\n|---|---|\n| Cohort | **[[Eastside|e]] × [[Imaging|e]]** |\n| Columns | [[facility|e]] × [[service_line|e]] |\n| Archetype | [[allocation|e]] |\n| Claims | [[5,120|d|n]] |\n| Annual leakage | [[$1.536M|d|out]] |\n| Persistence | [[4/10|d|pqo]], score [[0.40|d|ps]] |",
  "counterfactual": "[[**Action:**|l]] shift [[20%|d|act]] of prior-auth to central. Impact [[$384,000|d|imp]]/yr ([[9%|v|imp / tot * 100]] of total).",
  "risk_of_inaction": "[[**Risk:**|l]] [[$32K|v|imp / 12]]/month; low.",
  "rollout": "[[**Plan:**|l]] difficulty [[4/5|d|diff]]; needs [[FY26|n|fiscal year]] headcount. Rows: [[C-5501|e|@.evidence_row_ids[0]]], [[C-60118|e|@.evidence_row_ids[1]]].",
 },
}
