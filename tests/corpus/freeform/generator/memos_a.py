# Markup: [[text|kind|ref]]  kind: d direct, v derived, n not_a_claim, e name, l section label.
# ref aliases are expanded by build.py; @ = this opportunity.
M = {}

M["BrightPath", "board"] = {
 "opp_01": {
  "narrative": "**[[660-699|e]] × [[NV|e]]** ([[credit_band|e]] × [[state|e]]) is the biggest single lever in the [[BrightPath|e]] book. The cohort loses **[[$8.7M|d|out]]** a year across [[41.2k borrowers|d|n]], and it has been loss-making in [[seven of the last nine quarters|d|pqo]] (persistence score [[0.78|d|ps]]). This is a [[pricing|e]] problem: the charge-off rate is [[7.4%|d|co]], about [[1.6x|v|co / portfolio_charge_off_rate]] the book's [[4.6%|d|portfolio_charge_off_rate]], and it has climbed every quarter this year, from [[6.7%|d|@.quarterly_charge_off_rate[0].value]] in [[Q1|n|quarter label]] to [[8.1%|d|@.quarterly_charge_off_rate[3].value]] in [[Q4|n|quarter label]]. Across the portfolio the opportunities are worth [[$6.3M|d|tot]] a year, roughly [[12.9%|v|tot / eb * 100]] of EBITDA, and this lever plus the small-dollar one below make up [[$5.6M|v|imp + opportunities[1].projected_impact_usd_annual]] of that.",
  "counterfactual": "[[**Counterfactual:**|l]] Repricing the band by [[175bps|d|act]], as the diagnostic recommends, recovers roughly [[$3.5M|d|imp]] a year, about [[40%|v|imp / -out * 100]] of the cohort's loss and [[7.1%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**If we wait:**|l]] the cohort keeps bleeding at about [[$721K|v|-out / 12]] a month, and the steady rise in charge-offs suggests that figure is a floor rather than a ceiling.",
  "rollout": "[[**Rollout:**|l]] Difficulty is low ([[2 of 5|d|diff]]). Price changes can go live for new originations by the end of [[Q1 2026|n|date]], with a [[90-day|n|duration]] read on approval volumes before we extend to renewals.",
 },
 "opp_02": {
  "narrative": "The next opportunity is a [[selection|e]] issue in small-dollar lending: **[[$1,000-$2,500|e]]** loans originated **[[Online|e]]**. Just over [[58k loans|d|n]] sit in the segment and together lose [[$4.4M|d|out]] a year, or [[$75|d|mean]] per loan; charge-offs run at [[9.3%|d|co]]. The pattern held in [[five of the last nine quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] Declining first-time [[online|e|@.segment.channel]] applicants who request under [[$1,500|d|act]] would cut the loss in [[half|v|imp / -out]], a gain of [[$2.2M|d|imp]] a year ([[4.5%|v|imp / eb * 100]] of EBITDA).",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] roughly [[$365K|v|-out / 12]] of loss a month continues, and nothing in the quarterly pattern suggests it will fade on its own.",
  "rollout": "[[**Rollout:**|l]] rated [[3/5|d|diff]] on difficulty because it touches the application flow. We would run it as a split test over [[weeks 1-6|n|schedule]] and switch fully by the end of [[Q2 2026|n|date]].",
 },
 "opp_03": {
  "narrative": "**[[700-739|e]] × [[AZ|e]]** is smaller: roughly [[12,500 loans|d|n]], [[$1.9M|d|out]] of annual loss, a charge-off rate of [[5.2%|d|co]]. It is an [[allocation|e]] question rather than a credit one, and it showed up in only [[four of nine quarters|d|pqo]] (score [[0.52|d|ps]]), so we treat it as a watch item.",
  "counterfactual": "[[**Counterfactual:**|l]] Capping new origination volume at [[60%|d|act]] of plan recovers about [[a third|v|imp / -out]] of the loss, [[$624K|d|imp]] a year.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] modest, about [[$156K|v|imp / 4]] a quarter in forgone savings.",
  "rollout": "[[**Rollout:**|l]] the hardest lever in the set (difficulty [[4/5|d|diff]]), since it needs the capital plan reopened; target the [[Q3 2026|n|date]] planning cycle.",
 },
}

M["BrightPath", "operator"] = {
 "opp_01": {
  "narrative": "Cohort key: **[[660-699|e]] × [[NV|e]]** ([[credit_band|e]] × [[state|e]]), a [[pricing|e]] play. [[41,200 loans|d|n]], [[$8.65M|d|out]] annual loss, [[$210|d|mean]] average loss per loan, charge-off rate [[7.4%|d|co]] vs [[4.6%|d|portfolio_charge_off_rate]] for the book ([[+280bps|v|(co - portfolio_charge_off_rate) * 10000]]).",
  "counterfactual": "[[**What changes:**|l]] reprice the band by [[175bps|d|act]] on new originations. Projected impact is [[$3.46 million|d|imp]] a year, about [[$84|v|imp / n]] per loan, or [[$865K|v|imp / 4]] a quarter once fully live. That leaves roughly [[$5.2M|v|-(out + imp)]] of residual loss in the cohort.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] charge-offs have risen in each quarter of [[2025|n|year]] ([[6.7%|d|@.quarterly_charge_off_rate[0].value]], [[7.2%|d|@.quarterly_charge_off_rate[1].value]], [[7.6%|d|@.quarterly_charge_off_rate[2].value]], [[8.1%|d|@.quarterly_charge_off_rate[3].value]]), and losses were recorded in [[7 of 9 quarters|d|pqo]].",
  "rollout": "[[**Rollout:**|l]] difficulty [[2/5|d|diff]]. [[Weeks 1-2|n|schedule]]: pricing-engine change and compliance sign-off. [[Weeks 3-6|n|schedule]]: live on new originations in [[NV|e]]. [[30/60/90-day|n|checkpoint schedule]] checkpoints on approval rate and early delinquency. Spot-check rows: [[104233|e|@.evidence_row_ids[0]]], [[88710|e|@.evidence_row_ids[1]]], [[230019|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "Cohort key: **[[$1,000-$2,500|e]] × [[Online|e]]** ([[loan_amount_band|e]] × [[channel|e]]). [[Selection|e|@.archetype]] issue. [[58,340 loans|d|n]], loss of [[$4.38M|d|out]] a year ([[$75|d|mean]]/loan), charge-off rate [[9.3%|d|co]], persistent in [[5 of 9 quarters|d|pqo]] (score [[0.61|d|ps]]).",
  "counterfactual": "[[**Action:**|l]] decline first-time applicants requesting under [[$1,500|d|act]] through the [[online|e|@.segment.channel]] flow. Impact: [[~$2.19M|d|imp]] a year, which is [[half|v|imp / -out]] of today's loss and just over [[a third|v|imp / tot]] of the programme total.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] about [[$182K|v|imp / 12]] a month of avoidable loss.",
  "rollout": "[[**Rollout:**|l]] difficulty [[3/5|d|diff]]. Split test in [[weeks 1-6|n|schedule]] with a [[50/50|n|test design]] split, then full rollout. Owner: growth and credit jointly.",
 },
 "opp_03": {
  "narrative": "Cohort key: **[[700-739|e]] × [[AZ|e]]**; archetype [[allocation|e]]. [[12,480 loans|d|n]], [[$1.87M|d|out]] annual loss, [[$150|d|mean]] per loan, charge-offs [[5.2%|d|co]].",
  "counterfactual": "[[**Action:**|l]] cap new origination volume in the cohort at [[60%|d|act]] of plan. Impact [[$624,000|d|imp]] a year, about [[10%|v|imp / tot * 100]] of the programme total.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] low urgency: the loss appeared in [[4 of 9 quarters|d|pqo]] (score [[0.52|d|ps]]). Worth [[~$52K|v|imp / 12]] a month.",
  "rollout": "[[**Rollout:**|l]] difficulty [[4/5|d|diff]], needs the capital plan reopened. Earliest slot: the [[Q3 2026|n|date]] planning cycle.",
 },
}

M["RidgewayAuto", "board"] = {
 "opp_01": {
  "narrative": "The largest lever at [[RidgewayAuto|e]] is a [[pricing|e]] fix on **[[LTV 80-90%|e]] × [[72 months|e]]** loans. The cohort covers [[18,650 loans|d|n]] and is on track to lose [[$11.9M|d|cur]] this year, roughly [[$640|v|-cur / n]] per loan; it was loss-making in [[five of the last six quarters|d|pqo]], and the loss has widened every quarter since [[Q3 2024|n|quarter label]], reaching [[$3.09M|d|@.quarterly_outcome_usd[5].outcome_usd]] in [[Q3 2025|n|quarter label]].",
  "counterfactual": "[[**Counterfactual:**|l]] Repricing by [[125bps|d|rec]] takes the cohort to about [[$6.2M|d|proj]] of annual loss. That is a [[$5.7M|v|proj - cur]] gross improvement; after [[$410K|d|cost]] of running cost, the net impact is [[$5.3M|d|imp]], or [[4.2%|v|imp / eb * 100]] of EBITDA and [[54%|v|imp / tot * 100]] of the [[$9.8M|d|tot]] programme.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the cure rate in this segment is [[29%|d|cure]], [[nine points|v|(portfolio_cure_rate - cure) * 100]] below the book's [[38%|d|portfolio_cure_rate]]; without a price change the quarterly loss is likely to keep drifting up.",
  "rollout": "[[**Rollout:**|l]] low difficulty ([[2/5|d|diff]]) and a [[six-week|d|time]] build. Target go-live before the [[Q1 2026|n|date]] rate review.",
 },
 "opp_02": {
  "narrative": "**[[Tier 3|e]] × [[GA|e]]** ([[dealer_tier|e]] × [[state|e]]) is a [[routing|e]] issue: [[7,420 loans|d|n]] originated through [[Tier 3|e]] dealers in [[Georgia|e|@.segment.state]] lose [[$4.1M|d|cur]] a year, about [[$550|v|-cur / n]] a loan, with losses in [[four of six quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] sending these applications to the central underwriting desk brings the loss down to [[$2.65M|d|proj]], an improvement of [[$1.43M|d|imp]] a year.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] around [[$119K|v|imp / 12]] of avoidable loss each month, and a cure rate of only [[22%|d|cure]].",
  "rollout": "[[**Rollout:**|l]] medium difficulty ([[3 of 5|d|diff]]); an [[eight-week|d|time]] change to the dealer portal and desk staffing, landing by the end of [[Q1 2026|n|date]].",
 },
 "opp_03": {
  "narrative": "**[[31-60 DPD|e]] × [[Indirect|e]]** accounts are a [[timing|e]] problem. [[3,115 loans|d|n]], [[$2.47M|d|cur]] of annual loss, and the pattern showed up in [[half of the six quarters|d|pqo]] observed.",
  "counterfactual": "[[**Counterfactual:**|l]] starting outbound contact on [[day 5|d|rec]] rather than [[day 15|d|rec]] lifts collections by [[$780K|d|imp]] a year, close to [[a third|v|imp / -cur]] of the loss.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the cure rate is [[41%|d|cure]], above the book, so this is the least urgent item; the cost of waiting is about [[$65K|v|imp / 12]] a month.",
  "rollout": "[[**Rollout:**|l]] the easiest change in the set (difficulty [[1/5|d|diff]]): a dialer rule, live within [[four weeks|d|time]].",
 },
 "opp_04": {
  "narrative": "Finally, **[[LTV 110-125%|e]] × [[580-619|e]]** is a [[selection|e]] call. Only [[2,260 loans|d|n]], but [[$3.39M|d|cur]] of annual loss and a loss in [[every one of the six quarters|d|pqo]] (persistence [[1.00|d|ps]]).",
  "counterfactual": "[[**Counterfactual:**|l]] declining applications above [[110%|d|rec]] LTV with scores under [[620|d|rec]] recovers [[$2.26M|d|imp]], [[two thirds|v|imp / -cur]] of the loss, or about [[$1,000|v|imp / n]] per loan in the cohort. Together with the repricing above, these [[two|n|reference to the items just named]] items are worth [[$7.6M|v|opportunities[0].projected_impact_usd_annual + imp]], about [[77%|v|(opportunities[0].projected_impact_usd_annual + imp) / tot * 100]] of the total.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] with a cure rate of [[18%|d|cure]], these loans rarely come back once they roll.",
  "rollout": "[[**Rollout:**|l]] the hardest item ([[4/5|d|diff]]) because it changes dealer-facing credit policy; allow [[ten weeks|d|time]] and a [[60-day|n|notice period]] dealer notice period.",
 },
}

M["RidgewayAuto", "operator"] = {
 "opp_01": {
  "narrative": "Cohort key: **[[LTV 80-90%|e]] × [[72 months|e]]** ([[ltv_band|e]] × [[term|e]]), [[pricing|e]]. [[18.65k loans|d|n]]; current outcome [[-$11.94M|d|cur]]/yr, or [[~$995K|v|-cur / 12]] a month. Quarterly loss: [[$2.71M|d|@.quarterly_outcome_usd[1].outcome_usd]] ([[Q3 2024|n|quarter label]]) rising to [[$3.09M|d|@.quarterly_outcome_usd[5].outcome_usd]] ([[Q3 2025|n|quarter label]]); the only positive quarter was [[Q2 2024|n|quarter label]] at [[+$120K|d|@.quarterly_outcome_usd[0].outcome_usd]].",
  "counterfactual": "[[**Change:**|l]] reprice [[72-month|e|@.segment.term]] loans above [[80%|d|rec]] LTV by [[125bps|d|rec]]. Projected outcome [[-$6.21M|d|proj]]/yr. Gross improvement [[$5.73M|v|proj - cur]], less [[$410K|d|cost]] run cost = [[$5.32M|d|imp]] net ([[~$1.33M|v|imp / 4]] per quarter).",
  "risk_of_inaction": "[[**If we wait:**|l]] cure rate [[29%|d|cure]] vs [[38%|d|portfolio_cure_rate]] book-wide; loss in [[5 of 6 quarters|d|pqo]], persistence score [[0.83|d|ps]].",
  "rollout": "[[**Plan:**|l]] difficulty [[2/5|d|diff]]; [[6 weeks|d|time]] to implement. [[Weeks 1-2|n|schedule]] rate-sheet build, [[weeks 3-4|n|schedule]] dealer comms, [[weeks 5-6|n|schedule]] go-live. Spot-check rows: [[A-20931|e|@.evidence_row_ids[0]]], [[A-11874|e|@.evidence_row_ids[1]]].",
 },
 "opp_02": {
  "narrative": "Cohort key: **[[Tier 3|e]] × [[GA|e]]**, archetype [[routing|e]]. [[7,420 loans|d|n]], current outcome [[-$4.08M|d|cur]], persistence [[4 of 6|d|pqo]] ([[0.67|d|ps]]).",
  "counterfactual": "[[**Change:**|l]] route [[Tier 3|e]] applications in [[GA|e]] to the central underwriting desk; projected outcome [[-$2.65M|d|proj]], impact [[+$1.43M|d|imp]]/yr.",
  "risk_of_inaction": "[[**If we wait:**|l]] [[$119K|v|imp / 12]]/month forgone; cure rate stuck at [[22%|d|cure]].",
  "rollout": "[[**Plan:**|l]] difficulty [[3/5|d|diff]], [[8 weeks|d|time]]. Desk staffing confirmed before [[week 3|n|schedule]].",
 },
 "opp_03": {
  "narrative": "Cohort key: **[[31-60 DPD|e]] × [[Indirect|e]]** ([[days_past_due|e]] × [[channel|e]]), [[timing|e]]. [[3,115 loans|d|n]], [[-$2.47M|d|cur]]/yr current, [[~$793|v|-cur / n]] per loan.",
  "counterfactual": "[[**Change:**|l]] first outbound call on [[day 5|d|rec]] of delinquency, not [[day 15|d|rec]]. Projected [[-$1.69M|d|proj]]/yr, impact [[$780K|d|imp]] ([[32%|v|imp / -cur * 100]] of current loss).",
  "risk_of_inaction": "[[**If we wait:**|l]] loss in [[3 of 6 quarters|d|pqo]]; cure rate [[41%|d|cure]].",
  "rollout": "[[**Plan:**|l]] difficulty [[1/5|d|diff]]; dialer rule change, [[4 weeks|d|time]]. Pilot on the [[Indirect|e]] book in [[weeks 1-2|n|schedule]].",
 },
 "opp_04": {
  "narrative": "Cohort key: **[[LTV 110-125%|e]] × [[580-619|e]]** ([[ltv_band|e]] × [[credit_band|e]]), [[selection|e]]. [[2,260 loans|d|n]], current [[-$3.39M|d|cur]]/yr, loss-making in [[6 of 6 quarters|d|pqo]].",
  "counterfactual": "[[**Change:**|l]] decline above [[110%|d|rec]] LTV when the score is below [[620|d|rec]]. Projected outcome [[-$1.13M|d|proj]]; impact [[$2.26M|d|imp]], i.e. [[$1,000|v|imp / n]] per loan in the cohort.",
  "risk_of_inaction": "[[**If we wait:**|l]] about [[$188K|v|imp / 12]] a month; cure rate [[18%|d|cure]].",
  "rollout": "[[**Plan:**|l]] difficulty [[4/5|d|diff]], [[10 weeks|d|time]] including dealer notice. Decision needed by [[30 November 2025|n|date]].",
 },
}

M["Ledgerline", "board"] = {
 "opp_01": {
  "narrative": "[[Ledgerline|e]]'s collections leakage is concentrated in invoices that reach the **[[61-90 days|e]]** bucket on the **[[Growth|e]]** plan. Across [[9,870 invoices|d|n]] the write-off runs at [[$2.96M|d|cur]] a year, or [[$300|v|-cur / n]] per invoice. It is a [[timing|e]] issue: the cure rate has slid from [[41%|d|@.quarterly_cure_rate[0].value]] in [[Q2 2024|n|quarter label]] to [[34%|d|cure]] today. The full programme is worth [[$3.1M|d|tot]] a year, [[13.9%|v|tot / eb * 100]] of EBITDA.",
  "counterfactual": "[[**Counterfactual:**|l]] moving the [[second|n|ordinal naming a step of the action]] dunning email from [[day 30|d|rec]] to [[day 10|d|rec]] would [[halve|v|imp / -cur]] the write-off, saving [[$1.48M|d|imp]] a year, nearly [[half|v|imp / tot]] of the programme.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the pattern held in [[five of the last seven quarters|d|pqo]] and the cure rate has not recovered; waiting a quarter costs roughly [[$370K|v|imp / 4]].",
  "rollout": "[[**Rollout:**|l]] a configuration change in the billing platform, rated [[2/5|d|diff]] for difficulty; [[three weeks|d|time]] end to end, live for the [[January 2026|n|date]] billing run.",
 },
 "opp_02": {
  "narrative": "**[[Starter|e]] × [[EMEA|e]]** ([[plan_tier|e]] × [[region|e]]) is an [[allocation|e]] problem rather than a process one. Collectors spend little time on [[21,300|d|n]] small accounts that together write off [[$1.92M|d|cur]] a year, about [[$90|v|-cur / n]] each; the leakage appeared in [[four of seven quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] assigning accounts with balances over [[$2,500|d|rec]] to the collections pod recovers [[$767K|d|imp]] a year, [[40%|v|imp / -cur * 100]] of the write-off.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the [[EMEA|e]] [[Starter|e]] base has the weakest cure rate in the portfolio, [[27%|d|cure]].",
  "rollout": "[[**Rollout:**|l]] [[3/5|d|diff]] on difficulty because it needs headcount moved between pods; [[six weeks|d|time]], starting after the [[Q1|n|quarter label]] planning freeze.",
 },
 "opp_03": {
  "narrative": "**[[ACH|e]] × [[Enterprise|e]]** is small in volume, [[640 invoices|d|n]], but each one matters: the current write-off is [[$1.54M|d|cur]] a year, [[$2,400|v|-cur / n]] per invoice. Failed [[ACH|e]] retries on [[Enterprise|e]] plans are a [[routing|e]] question, and the problem showed in [[six of seven quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] sending failed retries to an account manager within [[48 hours|d|rec]] cuts the write-off to [[$576K|d|proj]]. Net of [[$96K|d|cost]] a year for the extra account-management time, that is [[$864K|d|imp]], or [[3.9%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the persistence score is [[0.86|d|ps]], the highest in the portfolio, so this loss is not going away on its own.",
  "rollout": "[[**Rollout:**|l]] the hardest of the set ([[4 out of 5|d|diff]]) because it needs new CRM rules and a service-level agreement; [[eight weeks|d|time]], with a [[30-day|n|duration]] pilot on the largest accounts first.",
 },
}

M["Ledgerline", "operator"] = {
 "opp_01": {
  "narrative": "Cohort key: **[[61-90 days|e]] × [[Growth|e]]** ([[invoice_age|e]] × [[plan_tier|e]]). Archetype: [[timing|e]]. [[9.87k invoices|d|n]], current write-off [[$2,961,000|d|cur]]/yr ([[$246.75K|v|-cur / 12]] a month). Cure rate by quarter: [[41%|d|@.quarterly_cure_rate[0].value]], [[40%|d|@.quarterly_cure_rate[1].value]], [[38%|d|@.quarterly_cure_rate[2].value]], [[36%|d|@.quarterly_cure_rate[3].value]], [[35%|d|@.quarterly_cure_rate[4].value]], [[33%|d|@.quarterly_cure_rate[5].value]], [[34%|d|@.quarterly_cure_rate[6].value]].",
  "counterfactual": "[[**Action:**|l]] the [[second|n|ordinal naming a step of the action]] dunning email moves from [[day 30|d|rec]] to [[day 10|d|rec]]. Projected write-off [[$1.48M|d|proj]]/yr, impact [[$1.48M|d|imp]]; [[6.6%|v|imp / eb * 100]] of EBITDA on its own.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] loss in [[5/7|d|pqo]] quarters (score [[0.71|d|ps]]); at [[~$123K|v|imp / 12]] per month the delay cost adds up quickly.",
  "rollout": "[[**Rollout:**|l]] difficulty [[2/5|d|diff]], [[3 weeks|d|time]]. Owner: billing ops. Sprint [[1|n|sprint number]]: template and schedule; sprint [[2|n|sprint number]]: QA and go-live. Spot-check: [[INV-88213|e|@.evidence_row_ids[0]]], [[INV-40017|e|@.evidence_row_ids[1]]], [[INV-12954|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "Cohort key: **[[Starter|e]] × [[EMEA|e]]**, [[allocation|e]]. [[21.3k accounts|d|n]]; write-off [[$1.917M|d|cur]]/yr; [[4 of 7 quarters|d|pqo]] (score [[0.57|d|ps]]); cure rate [[27%|d|cure]].",
  "counterfactual": "[[**Action:**|l]] assign [[EMEA|e]] [[Starter|e]] accounts with balances over [[$2,500|d|rec]] to the collections pod. Projected write-off [[$1.15M|d|proj]]; impact [[$766.8K|d|imp]] ([[$64K|v|imp / 12]]/month).",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] this is [[a quarter|v|imp / tot]] of the programme total; skipping it means the full [[$1.92M|d|cur]] keeps writing off.",
  "rollout": "[[**Rollout:**|l]] difficulty [[3/5|d|diff]]; [[6 weeks|d|time]] to rebalance the pods. Start the week of [[12 January|n|date]].",
 },
 "opp_03": {
  "narrative": "Cohort key: **[[ACH|e]] × [[Enterprise|e]]** ([[payment_method|e]] × [[plan_tier|e]]); archetype [[routing|e]]. Only [[640 invoices|d|n]] but [[$1.536M|d|cur]] a year written off, [[$2.4K|v|-cur / n]] per invoice.",
  "counterfactual": "[[**Action:**|l]] failed [[ACH|e]] retries on [[Enterprise|e]] plans go to an account manager within [[48 hours|d|rec]]. Projected write-off [[$576,000|d|proj]]. Gross improvement [[$960K|v|proj - cur]]; net of [[$96K|d|cost]] cost, [[$864K|d|imp]] impact. Recovery ratio: [[56%|v|imp / -cur * 100]] of the current loss.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] persistent in [[6 of 7 quarters|d|pqo]], score [[0.86|d|ps]]; cure rate [[52%|d|cure]] even without intervention.",
  "rollout": "[[**Rollout:**|l]] difficulty [[4/5|d|diff]]; [[8 weeks|d|time]]. [[Weeks 1-3|n|schedule]] CRM assignment rule, [[weeks 4-8|n|schedule]] SLA monitoring. Spot-check: [[INV-501|e|@.evidence_row_ids[0]]], [[INV-2290|e|@.evidence_row_ids[1]]].",
 },
}
