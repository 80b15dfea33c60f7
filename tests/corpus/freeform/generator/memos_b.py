M = {}

M["HarborviewMutual", "board"] = {
 "opp_01": {
  "narrative": "[[HarborviewMutual|e]] leaks most on **[[Water damage|e]]** claims in **[[FL|e]]**: [[6,340 claims|d|n]] a year, [[$14.3M|d|out]] of leakage, roughly [[$2,250|d|mean]] a claim. The pattern was present in [[all eight quarters|d|pqo]] we looked at (persistence [[0.94|d|ps]]). Across the memo the opportunities add up to [[$7.4M|d|tot]] a year, about [[12%|v|tot / eb * 100]] of EBITDA.",
  "counterfactual": "[[**Counterfactual:**|l]] sending [[water-damage|e|@.segment.claim_type]] claims above [[$10,000|d|act]] to desk adjusters would recover [[$5.0M|d|imp]], [[35%|v|imp / -out * 100]] of the leakage and roughly [[two-thirds|v|imp / tot]] of the programme.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[$416K|v|imp / 12]] of recoverable leakage a month, and subrogation recovers only [[8%|d|@.subrogation_recovery_rate]] in this segment.",
  "rollout": "[[**Rollout:**|l]] moderate ([[3/5|d|diff]]): adjuster capacity in [[FL|e]] has to be in place before hurricane season; aim for [[1 May 2026|n|date]].",
 },
 "opp_02": {
  "narrative": "The [[second|n|ordinal reference]] item is a [[timing|e]] issue in mid-severity claims, **[[$10,000-$25,000|e]] × [[Agent|e]]** ([[severity_band|e]] × [[channel|e]]). [[2,915 claims|d|n]] leak [[$5.2M|d|out]] a year ([[$1,800|d|mean]] each), and cycle time averages [[41 days|d|@.cycle_time_days]].",
  "counterfactual": "[[**Counterfactual:**|l]] opening an independent appraisal within [[3 days|d|act]] of first notice of loss saves [[$1.6M|d|imp]] a year, [[30%|v|imp / -out * 100]] of the leakage.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] about [[$394K|v|imp / 4]] a quarter; the leakage appeared in [[five of eight quarters|d|pqo]].",
  "rollout": "[[**Rollout:**|l]] rated [[2/5|d|diff]]; a [[90-day|n|duration]] pilot with selected agency partners, then network-wide by [[Q1 2026|n|date]].",
 },
 "opp_03": {
  "narrative": "**[[Roof|e]] × [[0-12 months|e]]** is a [[selection|e]] problem: [[roof|e|@.segment.claim_type]] claims on newly written policies. [[1,180 claims|d|n]], [[$3.3M|d|out]] of leakage, [[$2,800|d|mean]] a claim, and a fraud referral rate of [[6.4%|d|@.fraud_referral_rate]].",
  "counterfactual": "[[**Counterfactual:**|l]] requiring inspection photos on policies under [[12 months|d|act]] old recovers [[a quarter|v|imp / -out]] of the leakage, [[$826K|d|imp]] a year. With the appraisal change above, the [[two|n|reference to the items just named]] smaller items add [[$2.4M|v|opportunities[1].projected_impact_usd_annual + imp]].",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the signal is the weakest of the set, present in [[four of the eight quarters|d|pqo]] (score [[0.50|d|ps]]).",
  "rollout": "[[**Rollout:**|l]] hardest of the set ([[4/5|d|diff]]): it needs rate filings and a new claims-app flow; target [[H2 2026|n|date]].",
 },
}

M["HarborviewMutual", "operator"] = {
 "opp_01": {
  "narrative": "Cohort key: **[[Water damage|e]] × [[FL|e]]** ([[claim_type|e]] × [[state|e]]). Archetype: [[routing|e]]. [[6,340 claims|d|n]]/yr; leakage [[-$14.26M|d|out]]; mean [[-$2,250|d|mean]] per claim; subrogation recovery [[8%|d|@.subrogation_recovery_rate]].",
  "counterfactual": "[[**Action:**|l]] claims over [[$10,000|d|act]] go to desk adjusters. Impact [[$4.99M|d|imp]]/yr = [[$1.25M|v|imp / 4]] per quarter = [[~$787|v|imp / n]] per claim.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[8 of 8 quarters|d|pqo]], score [[0.94|d|ps]]. Residual leakage after the change is still [[$9.3M|v|-(out + imp)]].",
  "rollout": "[[**Rollout:**|l]] difficulty [[3/5|d|diff]]. [[Weeks 1-4|n|schedule]]: threshold rule in the claims system; [[weeks 5-12|n|schedule]]: adjuster hiring. Spot-check claims [[700412|e|@.evidence_row_ids[0]]], [[702288|e|@.evidence_row_ids[1]]], [[715903|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "Cohort key: **[[$10,000-$25,000|e]] × [[Agent|e]]**; archetype [[timing|e]]. [[2.9k claims|d|n]], [[$5.25M|d|out]] leakage, [[$1,800|d|mean]] per claim, average cycle time [[41 days|d|@.cycle_time_days]].",
  "counterfactual": "[[**Action:**|l]] independent appraisal within [[3 days|d|act]] of FNOL. Impact [[$1,574,100|d|imp]]/yr ([[~$131K|v|imp / 12]]/month).",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[5 of 8 quarters|d|pqo]] (score [[0.63|d|ps]]).",
  "rollout": "[[**Rollout:**|l]] difficulty [[2/5|d|diff]]. [[90-day|n|duration]] pilot on [[Agent|e]]-channel claims in [[weeks 1-12|n|schedule]], then expand.",
 },
 "opp_03": {
  "narrative": "Cohort key: **[[Roof|e]] × [[0-12 months|e]]** ([[claim_type|e]] × [[policy_age|e]]), [[selection|e]]. [[1,180 claims|d|n]]; leakage [[$3.30M|d|out]]; [[$2,800|d|mean]]/claim; fraud referral [[6.4%|d|@.fraud_referral_rate]].",
  "counterfactual": "[[**Action:**|l]] inspection photos required for [[roof|e|@.segment.claim_type]] claims on policies under [[12 months|d|act]] old. Impact [[$826,000|d|imp]]/yr, [[11%|v|imp / tot * 100]] of the portfolio total.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] weak persistence: [[4 of 8 quarters|d|pqo]], score [[0.50|d|ps]].",
  "rollout": "[[**Rollout:**|l]] difficulty [[4/5|d|diff]]; product and legal review first, target [[H2 2026|n|date]].",
 },
}

M["NorthstarCard", "board"] = {
 "opp_01": {
  "narrative": "For [[NorthstarCard|e]], the headline is a [[pricing|e]] gap in the **[[620-659|e]]** credit band at **[[80-100%|e]]** utilization. Roughly [[212,000 accounts|d|n]] sit here, losing [[$38.2M|d|cur]] a year ([[$180|v|-cur / n]] per account), with charge-offs at [[11.8%|d|co]]. Losses showed in [[seven of the last eight quarters|d|pqo]]. The programme as a whole is worth [[$22.8M|d|tot]] a year, [[7.3%|v|tot / eb * 100]] of EBITDA.",
  "counterfactual": "[[**Counterfactual:**|l]] raising APR by [[300bps|d|rec]] on new balances trims the loss to [[$24.8M|d|proj]], an improvement of [[$13.4M|d|imp]] ([[4.3%|v|imp / eb * 100]] of EBITDA and [[59%|v|imp / tot * 100]] of the programme).",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] every month of delay costs about [[$1.1M|v|imp / 12]].",
  "rollout": "[[**Rollout:**|l]] difficulty [[2/5|d|diff]]: [[six weeks|d|time]] of build, then the [[45-day|n|regulatory notice period]] change-in-terms notice to cardholders, so the new APR takes effect by [[May 2026|n|date]].",
 },
 "opp_02": {
  "narrative": "**[[Direct mail|e]] × [[CA|e]]** ([[channel|e]] × [[state|e]]) is an [[allocation|e]] question: [[87,400 accounts|d|n]] acquired through [[direct mail|e]] in [[California|e|@.segment.state]] lose [[$9.6M|d|cur]] a year, about [[$110|v|-cur / n]] per account; charge-off rate [[6.7%|d|co]].",
  "counterfactual": "[[**Counterfactual:**|l]] cutting [[direct-mail|e|@.segment.channel]] acquisition spend in [[CA|e]] by [[35%|d|rec]] takes the loss to [[$5.8M|d|proj]], a [[$3.8M|d|imp]] gain, or [[40%|v|imp / -cur * 100]] of the loss.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the loss appeared in [[five of eight quarters|d|pqo]]; at [[~$320K|v|imp / 12]] a month it is material but not urgent.",
  "rollout": "[[**Rollout:**|l]] [[3/5|d|diff]] on difficulty; the [[ten-week|d|time]] timeline is driven by mail-drop contracts already committed through [[Q1 2026|n|date]].",
 },
 "opp_03": {
  "narrative": "**[[1-29 DPD|e]] × [[580-619|e]]** is a [[timing|e]] opportunity at the front end of delinquency: nearly [[31,000 accounts|d|n]] and [[$12.3M|d|cur]] of annual loss.",
  "counterfactual": "[[**Counterfactual:**|l]] offering a [[3-month|d|rec]] payment plan at the [[first|n|ordinal naming a step of the action]] missed payment lifts the outcome by [[$4.3M|v|proj - cur]] gross; after [[$180K|d|cost]] of servicing cost the net impact is [[$4.1M|d|imp]].",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] the cure rate today is [[44%|d|cure]]; the loss showed up in [[six of eight quarters|d|pqo]] (score [[0.75|d|ps]]).",
  "rollout": "[[**Rollout:**|l]] the quickest win: difficulty [[1/5|d|diff]], [[four weeks|d|time]], live in [[February 2026|n|date]].",
 },
 "opp_04": {
  "narrative": "**[[$15,000+|e]] × [[Partner|e]]** lines are a [[selection|e]] problem: only [[4,120 accounts|d|n]], but [[$2.9M|d|cur]] of annual loss, or [[$700|v|-cur / n]] each.",
  "counterfactual": "[[**Counterfactual:**|l]] capping initial lines at [[$10,000|d|rec]] for [[partner|e|@.segment.channel]]-sourced applicants [[halves|v|imp / -cur]] the loss: [[$1.4M|d|imp]] a year.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] modest; the signal appeared in [[half of the quarters|d|pqo]] observed.",
  "rollout": "[[**Rollout:**|l]] difficulty [[4/5|d|diff]] because [[partner|e|@.segment.channel]] contracts need amending; [[eight weeks|d|time]] once legal signs off.",
 },
}

M["NorthstarCard", "operator"] = {
 "opp_01": {
  "narrative": "Cohort key: **[[620-659|e]] × [[80-100%|e]]** ([[credit_band|e]] × [[utilization_band|e]]). Archetype: [[pricing|e]]. [[212k accounts|d|n]]; current outcome [[$-38.16M|d|cur]]/yr; charge-off rate [[11.8%|d|co]].",
  "counterfactual": "[[**Action:**|l]] [[+300bps|d|rec]] APR on new balances. Projected outcome [[$-24.80M|d|proj]]; impact [[$13.36M|d|imp]]/yr, [[$3.34M|v|imp / 4]]/quarter, [[$63|v|imp / n]] per account.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[7 of 8 quarters|d|pqo]], persistence score [[0.82|d|ps]].",
  "rollout": "[[**Rollout:**|l]] difficulty [[2/5|d|diff]]; [[6 weeks|d|time]] build, then the [[45-day|n|regulatory notice period]] notice. Spot-check: [[C-1190442|e|@.evidence_row_ids[0]]], [[C-0877120|e|@.evidence_row_ids[1]]], [[C-2203915|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "Cohort key: **[[Direct mail|e]] × [[CA|e]]**, [[allocation|e]]. [[87.4k accounts|d|n]], [[$-9.61M|d|cur]]/yr, charge-offs [[6.7%|d|co]], [[5 of 8 quarters|d|pqo]].",
  "counterfactual": "[[**Action:**|l]] reduce [[direct-mail|e|@.segment.channel]] acquisition spend in [[CA|e]] by [[35%|d|rec]]. Projected [[$-5.77M|d|proj]]; impact [[$3.85M|d|imp]] ([[17%|v|imp / tot * 100]] of total).",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[$320K|v|imp / 12]] per month.",
  "rollout": "[[**Rollout:**|l]] difficulty [[3/5|d|diff]], [[10 weeks|d|time]]; the reduced mail drops start in [[April 2026|n|date]].",
 },
 "opp_03": {
  "narrative": "Cohort key: **[[1-29 DPD|e]] × [[580-619|e]]** ([[days_past_due|e]] × [[credit_band|e]]); [[timing|e]]. [[30,850 accounts|d|n]], current [[$-12.34M|d|cur]]/yr, [[$400|v|-cur / n]] per account.",
  "counterfactual": "[[**Action:**|l]] [[3-month|d|rec]] payment plan offered at the [[first|n|ordinal naming a step of the action]] missed payment. Projected [[$-8.02M|d|proj]]. Gross [[$4.32M|v|proj - cur]] less [[$180K|d|cost]] servicing = net [[$4.14M|d|imp]].",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[6 of 8 quarters|d|pqo]]; cure rate [[44%|d|cure]]. Delay costs [[~$345K|v|imp / 12]]/month.",
  "rollout": "[[**Rollout:**|l]] difficulty [[1/5|d|diff]]; [[4 weeks|d|time]]. [[Week 1|n|schedule]]: offer script; [[weeks 2-4|n|schedule]]: agent training and launch.",
 },
 "opp_04": {
  "narrative": "Cohort key: **[[$15,000+|e]] × [[Partner|e]]** ([[credit_line_band|e]] × [[channel|e]]), [[selection|e]]. [[4,120 accounts|d|n]]; [[$-2.88M|d|cur]]/yr; [[4 of 8 quarters|d|pqo]] (score [[0.50|d|ps]]).",
  "counterfactual": "[[**Action:**|l]] cap initial lines at [[$10,000|d|rec]] for [[partner|e|@.segment.channel]]-sourced applicants. Projected [[$-1.44M|d|proj]]; impact [[$1.44M|d|imp]].",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] [[~$120K|v|imp / 12]]/month.",
  "rollout": "[[**Rollout:**|l]] difficulty [[4/5|d|diff]]; [[8 weeks|d|time]] including [[partner|e|@.segment.channel]] contract amendments.",
 },
}

M["KeystoneSMB", "board"] = {
 "opp_01": {
  "narrative": "At [[KeystoneSMB|e]] the opportunities total [[$4.8M|d|tot]] a year, just over [[a quarter|v|tot / eb]] of EBITDA, and the biggest is a [[selection|e]] problem in **[[Restaurants|e]] × [[TX|e]]** ([[industry|e]] × [[state|e]]). [[1,420 loans|d|n]] to [[Texas|e|@.segment.state]] [[restaurants|e|@.segment.industry]] lose [[$6.4M|d|out]] a year, [[$4,500|d|mean]] per loan on average, with a default rate of [[11.2%|d|dr]]; it showed up in [[four out of five quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] capping lines at [[$150,000|d|act]] for [[restaurant|e|@.segment.industry]] borrowers under [[two years|d|act]] in business recovers [[$2.6M|d|imp]], [[40%|v|imp / -out * 100]] of the loss and [[13.5%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] roughly [[$213K|v|imp / 12]] a month of avoidable loss, every month the cap is not in place.",
  "rollout": "[[**Rollout:**|l]] difficulty [[3/5|d|diff]]; a credit policy change plus a notice to origination partners, effective for applications from [[1 January 2026|n|date]].",
 },
 "opp_02": {
  "narrative": "**[[$50,000-$100,000|e]] × [[Broker|e]]** lines are a [[pricing|e]] issue. [[2,860 loans|d|n]] lose [[$3.4M|d|out]] a year, about [[$1,200|d|mean]] each, with defaults at [[7.1%|d|dr]]; the loss appeared in [[three out of five quarters|d|pqo]].",
  "counterfactual": "[[**Counterfactual:**|l]] repricing [[broker|e|@.segment.channel]]-sourced lines by [[200bps|d|act]] recovers [[a third|v|imp / -out]] of the loss, [[$1.14M|d|imp]] a year.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] about [[$286K|v|imp / 4]] per quarter foregone.",
  "rollout": "[[**Rollout:**|l]] easiest of the set ([[2/5|d|diff]]); the rate card can change within [[a month|n|duration]] of approval.",
 },
 "opp_03": {
  "narrative": "**[[90+ DPD|e]] × [[Construction|e]]** is a [[timing|e]] problem in workout: [[385 accounts|d|n]] with a current loss of [[$2.7M|d|cur]] a year, [[$7,000|v|-cur / n]] per account. The loss has been present in [[every quarter|d|pqo]] observed and has deepened each quarter, from [[$610K|d|@.quarterly_outcome_usd[0].outcome_usd]] in [[Q3 2024|n|quarter label]] to [[$740K|d|@.quarterly_outcome_usd[4].outcome_usd]] in [[Q3 2025|n|quarter label]].",
  "counterfactual": "[[**Counterfactual:**|l]] referring accounts to workout at [[60 days|d|rec]] past due instead of [[90|d|rec]] improves the outcome to [[$1.6M|d|proj]] of loss, a gain of [[$1.08M|d|imp]] ([[40%|v|imp / -cur * 100]]).",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] recoveries are only [[21%|d|@.recovery_rate]] in this segment, and the quarterly loss is still growing.",
  "rollout": "[[**Rollout:**|l]] the hardest item ([[4/5|d|diff]]) and the longest: [[12 weeks|d|time]], because workout staffing and legal templates change; complete by the end of [[Q1 2026|n|date]].",
 },
}

M["KeystoneSMB", "operator"] = {
 "opp_01": {
  "narrative": "Cohort key: **[[Restaurants|e]] × [[TX|e]]**, archetype [[selection|e]]. n = [[1,420|d|n]]; annual loss [[$6.39M|d|out]]; mean loss [[$4,500|d|mean]]/loan; default rate [[11.2%|d|dr]]; [[4 of 5 quarters|d|pqo]] (score [[0.80|d|ps]]).",
  "counterfactual": "[[**Action:**|l]] cap lines at [[$150,000|d|act]] for [[restaurant|e|@.segment.industry]] borrowers under [[two years|d|act]] in business. Impact [[$2.556M|d|imp]]/yr ([[$639K|v|imp / 4]]/qtr). Together with the repricing lever below: [[$3.7M|v|imp + opportunities[1].projected_impact_usd_annual]] combined.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] residual loss after the cap is still [[$3.83M|v|-(out + imp)]]/yr.",
  "rollout": "[[**Rollout:**|l]] difficulty [[3/5|d|diff]]. [[Weeks 1-3|n|schedule]]: policy and system limits; [[week 4|n|schedule]]: notice to origination partners. Spot-check loans [[41877|e|@.evidence_row_ids[0]]], [[40213|e|@.evidence_row_ids[1]]], [[52096|e|@.evidence_row_ids[2]]].",
 },
 "opp_02": {
  "narrative": "Cohort key: **[[$50,000-$100,000|e]] × [[Broker|e]]** ([[line_size_band|e]] × [[channel|e]]); [[pricing|e]]. [[2.86k loans|d|n]]; [[$3.43M|d|out]] loss/yr; [[$1,200|d|mean]] mean; default rate [[7.1%|d|dr]]; [[3/5|d|pqo]] quarters.",
  "counterfactual": "[[**Action:**|l]] [[+200bps|d|act]] on [[broker|e|@.segment.channel]]-sourced lines. Impact [[$1.144M|d|imp]]/yr, [[~$95K|v|imp / 12]]/month, [[$400|v|imp / n]] per loan.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] persistence score [[0.60|d|ps]]; lower conviction than the other items.",
  "rollout": "[[**Rollout:**|l]] difficulty [[2/5|d|diff]]; rate card live [[two weeks|n|schedule]] after credit committee sign-off.",
 },
 "opp_03": {
  "narrative": "Cohort key: **[[90+ DPD|e]] × [[Construction|e]]** ([[days_past_due|e]] × [[industry|e]]); [[timing|e]]. [[385 accounts|d|n]]; current [[$-2.695M|d|cur]]/yr; quarterly loss [[$610K|d|@.quarterly_outcome_usd[0].outcome_usd]], [[$655K|d|@.quarterly_outcome_usd[1].outcome_usd]], [[$690K|d|@.quarterly_outcome_usd[2].outcome_usd]], [[$720K|d|@.quarterly_outcome_usd[3].outcome_usd]], [[$740K|d|@.quarterly_outcome_usd[4].outcome_usd]].",
  "counterfactual": "[[**Action:**|l]] refer to workout at [[60 days|d|rec]] past due, not [[90|d|rec]]. Projected [[$-1.617M|d|proj]]; impact [[$1.078M|d|imp]], [[5.7%|v|imp / eb * 100]] of EBITDA.",
  "risk_of_inaction": "[[**Risk of inaction:**|l]] loss in [[5 of 5 quarters|d|pqo]] (persistence [[1.00|d|ps]]); recovery rate [[21%|d|@.recovery_rate]].",
  "rollout": "[[**Rollout:**|l]] difficulty [[4/5|d|diff]]; [[12 weeks|d|time]]. Workout team trained in [[weeks 1-6|n|schedule]], referral rule switched on in [[week 7|n|schedule]]. Spot-check: [[50331|e|@.evidence_row_ids[0]]], [[48120|e|@.evidence_row_ids[1]]], [[51907|e|@.evidence_row_ids[2]]].",
 },
}
