"""Source OpportunityMaps for the free-form corpus."""


def q(series, key="outcome_usd"):
    return [{"quarter": qq, key: v} for qq, v in series]


def rows(*ids):
    return list(ids)


SOURCES = {}

SOURCES["BrightPath"] = {
    "portco_id": "BrightPath",
    "vertical": "consumer_lending",
    "ebitda_baseline_usd": 48500000,
    "as_of": "2025-12-31",
    "portfolio_charge_off_rate": 0.046,
    "active_loans": 412300,
    "total_projected_impact_usd_annual": 6272550,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "pricing", "decision_cols": ["credit_band", "state"],
            "segment": {"credit_band": "660-699", "state": "NV"},
            "n": 41200, "outcome_total_usd_annual": -8652000, "outcome_mean_usd": -210.0,
            "charge_off_rate": 0.074,
            "quarterly_charge_off_rate": [
                {"quarter": "2025Q1", "value": 0.067}, {"quarter": "2025Q2", "value": 0.072},
                {"quarter": "2025Q3", "value": 0.076}, {"quarter": "2025Q4", "value": 0.081},
            ],
            "persistence_score": 0.78, "persistence_quarters_out_of_total": [7, 9],
            "difficulty_score_1_to_5": 2, "projected_impact_usd_annual": 3460800,
            "projected_action": "Reprice the 660-699 band in NV by 175bps",
            "evidence_row_ids": [104233, 88710, 230019, 5127],
            "narrative_board": "660-699 x NV loses $8.7M a year across 41,200 loans.",
            "narrative_operator": "Reprice the 660-699 band in NV by 175bps; impact $3.5M.",
        },
        {
            "id": "opp_02", "archetype": "selection",
            "decision_cols": ["loan_amount_band", "channel"],
            "segment": {"loan_amount_band": "$1,000-$2,500", "channel": "Online"},
            "n": 58340, "outcome_total_usd_annual": -4375500, "outcome_mean_usd": -75.0,
            "charge_off_rate": 0.093,
            "persistence_score": 0.61, "persistence_quarters_out_of_total": [5, 9],
            "difficulty_score_1_to_5": 3, "projected_impact_usd_annual": 2187750,
            "projected_action": "Decline first-time online applicants requesting under $1,500",
            "evidence_row_ids": [310552, 17034, 290871],
            "narrative_board": "$1,000-$2,500 x Online loses $4.4M a year across 58,340 loans.",
            "narrative_operator": "Decline first-time online applicants; impact $2.2M.",
        },
        {
            "id": "opp_03", "archetype": "allocation", "decision_cols": ["credit_band", "state"],
            "segment": {"credit_band": "700-739", "state": "AZ"},
            "n": 12480, "outcome_total_usd_annual": -1872000, "outcome_mean_usd": -150.0,
            "charge_off_rate": 0.052,
            "persistence_score": 0.52, "persistence_quarters_out_of_total": [4, 9],
            "difficulty_score_1_to_5": 4, "projected_impact_usd_annual": 624000,
            "projected_action": "Cap new origination volume in the cohort at 60% of plan",
            "evidence_row_ids": [66120, 140077, 9032],
            "narrative_board": "700-739 x AZ loses $1.9M a year across 12,480 loans.",
            "narrative_operator": "Cap new origination volume at 60% of plan; impact $624K.",
        },
    ],
}

SOURCES["RidgewayAuto"] = {
    "portco_id": "RidgewayAuto",
    "vertical": "auto_loans",
    "ebitda_baseline_usd": 126000000,
    "as_of": "2025-09-30",
    "portfolio_cure_rate": 0.38,
    "total_projected_impact_usd_annual": 9790000,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "pricing", "decision_cols": ["ltv_band", "term"],
            "segment": {"ltv_band": "LTV 80-90%", "term": "72 months"},
            "n": 18650, "current_outcome_usd_annual": -11940000,
            "projected_outcome_usd_annual": -6210000, "implementation_cost_usd_annual": 410000,
            "projected_impact_usd_annual": 5320000, "cure_rate": 0.29,
            "persistence_score": 0.83, "persistence_quarters_out_of_total": [5, 6],
            "difficulty_score_1_to_5": 2,
            "recommendation": "Reprice 72-month loans above 80% LTV by 125bps",
            "time_to_implement_weeks": 6,
            "quarterly_outcome_usd": q([
                ("2024Q2", 120000), ("2024Q3", -2710000), ("2024Q4", -2880000),
                ("2025Q1", -2960000), ("2025Q2", -3050000), ("2025Q3", -3090000),
            ]),
            "evidence_row_ids": ["A-20931", "A-11874", "A-40215"],
        },
        {
            "id": "opp_02", "archetype": "routing", "decision_cols": ["dealer_tier", "state"],
            "segment": {"dealer_tier": "Tier 3", "state": "GA"},
            "n": 7420, "current_outcome_usd_annual": -4080000,
            "projected_outcome_usd_annual": -2650000, "projected_impact_usd_annual": 1430000,
            "cure_rate": 0.22,
            "persistence_score": 0.67, "persistence_quarters_out_of_total": [4, 6],
            "difficulty_score_1_to_5": 3,
            "recommendation": (
                "Route Tier 3 dealer applications in GA to the central underwriting desk"
            ),
            "time_to_implement_weeks": 8,
            "evidence_row_ids": ["A-7702", "A-31950", "A-2281"],
        },
        {
            "id": "opp_03", "archetype": "timing", "decision_cols": ["days_past_due", "channel"],
            "segment": {"days_past_due": "31-60 DPD", "channel": "Indirect"},
            "n": 3115, "current_outcome_usd_annual": -2470000,
            "projected_outcome_usd_annual": -1690000, "projected_impact_usd_annual": 780000,
            "cure_rate": 0.41,
            "persistence_score": 0.5, "persistence_quarters_out_of_total": [3, 6],
            "difficulty_score_1_to_5": 1,
            "recommendation": "Start outbound contact on day 5 of delinquency instead of day 15",
            "time_to_implement_weeks": 4,
            "evidence_row_ids": ["A-15530", "A-908", "A-27764"],
        },
        {
            "id": "opp_04", "archetype": "selection",
            "decision_cols": ["ltv_band", "credit_band"],
            "segment": {"ltv_band": "LTV 110-125%", "credit_band": "580-619"},
            "n": 2260, "current_outcome_usd_annual": -3390000,
            "projected_outcome_usd_annual": -1130000, "projected_impact_usd_annual": 2260000,
            "cure_rate": 0.18,
            "persistence_score": 1.0, "persistence_quarters_out_of_total": [6, 6],
            "difficulty_score_1_to_5": 4,
            "recommendation": "Decline applications above 110% LTV with scores under 620",
            "time_to_implement_weeks": 10,
            "evidence_row_ids": ["A-3391", "A-18020", "A-44107"],
        },
    ],
}

SOURCES["Ledgerline"] = {
    "portco_id": "Ledgerline",
    "vertical": "saas_collections",
    "ebitda_baseline_usd": 22400000,
    "as_of": "2025-12-31",
    "total_projected_impact_usd_annual": 3111300,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "timing", "decision_cols": ["invoice_age", "plan_tier"],
            "segment": {"invoice_age": "61-90 days", "plan_tier": "Growth"},
            "n": 9870, "current_outcome_usd_annual": -2961000,
            "projected_outcome_usd_annual": -1480500, "projected_impact_usd_annual": 1480500,
            "cure_rate": 0.34,
            "quarterly_cure_rate": [
                {"quarter": "2024Q2", "value": 0.41}, {"quarter": "2024Q3", "value": 0.40},
                {"quarter": "2024Q4", "value": 0.38}, {"quarter": "2025Q1", "value": 0.36},
                {"quarter": "2025Q2", "value": 0.35}, {"quarter": "2025Q3", "value": 0.33},
                {"quarter": "2025Q4", "value": 0.34},
            ],
            "persistence_score": 0.71, "persistence_quarters_out_of_total": [5, 7],
            "difficulty_score_1_to_5": 2,
            "recommendation": "Move the second dunning email from day 30 to day 10",
            "time_to_implement_weeks": 3,
            "evidence_row_ids": ["INV-88213", "INV-40017", "INV-12954"],
        },
        {
            "id": "opp_02", "archetype": "allocation", "decision_cols": ["plan_tier", "region"],
            "segment": {"plan_tier": "Starter", "region": "EMEA"},
            "n": 21300, "current_outcome_usd_annual": -1917000,
            "projected_outcome_usd_annual": -1150200, "projected_impact_usd_annual": 766800,
            "cure_rate": 0.27,
            "persistence_score": 0.57, "persistence_quarters_out_of_total": [4, 7],
            "difficulty_score_1_to_5": 3,
            "recommendation": (
                "Assign EMEA Starter accounts with balances over $2,500 to the collections pod"
            ),
            "time_to_implement_weeks": 6,
            "evidence_row_ids": ["INV-7730", "INV-66102", "INV-30418"],
        },
        {
            "id": "opp_03", "archetype": "routing",
            "decision_cols": ["payment_method", "plan_tier"],
            "segment": {"payment_method": "ACH", "plan_tier": "Enterprise"},
            "n": 640, "current_outcome_usd_annual": -1536000,
            "projected_outcome_usd_annual": -576000, "implementation_cost_usd_annual": 96000,
            "projected_impact_usd_annual": 864000, "cure_rate": 0.52,
            "persistence_score": 0.86, "persistence_quarters_out_of_total": [6, 7],
            "difficulty_score_1_to_5": 4,
            "recommendation": (
                "Route failed ACH retries on Enterprise plans to an account manager"
                " within 48 hours"
            ),
            "time_to_implement_weeks": 8,
            "evidence_row_ids": ["INV-501", "INV-2290", "INV-9147"],
        },
    ],
}

SOURCES["HarborviewMutual"] = {
    "portco_id": "HarborviewMutual",
    "vertical": "insurance_claims",
    "ebitda_baseline_usd": 61800000,
    "as_of": "2025-06-30",
    "total_projected_impact_usd_annual": 7392500,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "routing", "decision_cols": ["claim_type", "state"],
            "segment": {"claim_type": "Water damage", "state": "FL"},
            "n": 6340, "outcome_total_usd_annual": -14264000, "outcome_mean_usd": -2249.84,
            "subrogation_recovery_rate": 0.08,
            "persistence_score": 0.94, "persistence_quarters_out_of_total": [8, 8],
            "difficulty_score_1_to_5": 3, "projected_impact_usd_annual": 4992400,
            "projected_action": "Route water-damage claims over $10,000 in FL to desk adjusters",
            "evidence_row_ids": [700412, 702288, 715903],
            "narrative_board": "Water damage x FL leaks $14.3M a year across 6,340 claims.",
            "narrative_operator": "Route large water-damage claims to desk adjusters.",
        },
        {
            "id": "opp_02", "archetype": "timing", "decision_cols": ["severity_band", "channel"],
            "segment": {"severity_band": "$10,000-$25,000", "channel": "Agent"},
            "n": 2915, "outcome_total_usd_annual": -5247000, "outcome_mean_usd": -1800.0,
            "cycle_time_days": 41,
            "persistence_score": 0.63, "persistence_quarters_out_of_total": [5, 8],
            "difficulty_score_1_to_5": 2, "projected_impact_usd_annual": 1574100,
            "projected_action": (
                "Open an independent appraisal within 3 days of first notice of loss"
            ),
            "evidence_row_ids": [688104, 691377, 709950],
            "narrative_board": "$10,000-$25,000 x Agent leaks $5.2M a year across 2,915 claims.",
            "narrative_operator": "Open an appraisal within 3 days of FNOL.",
        },
        {
            "id": "opp_03", "archetype": "selection", "decision_cols": ["claim_type", "policy_age"],
            "segment": {"claim_type": "Roof", "policy_age": "0-12 months"},
            "n": 1180, "outcome_total_usd_annual": -3304000, "outcome_mean_usd": -2800.0,
            "fraud_referral_rate": 0.064,
            "persistence_score": 0.5, "persistence_quarters_out_of_total": [4, 8],
            "difficulty_score_1_to_5": 4, "projected_impact_usd_annual": 826000,
            "projected_action": (
                "Require roof inspection photos for claims on policies under 12 months old"
            ),
            "evidence_row_ids": [695521, 712046, 720318],
            "narrative_board": "Roof x 0-12 months leaks $3.3M a year across 1,180 claims.",
            "narrative_operator": "Require roof inspection photos on young policies.",
        },
    ],
}

SOURCES["NorthstarCard"] = {
    "portco_id": "NorthstarCard",
    "vertical": "credit_cards",
    "ebitda_baseline_usd": 312000000,
    "as_of": "2025-12-31",
    "total_projected_impact_usd_annual": 22783600,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "pricing",
            "decision_cols": ["credit_band", "utilization_band"],
            "segment": {"credit_band": "620-659", "utilization_band": "80-100%"},
            "n": 212000, "current_outcome_usd_annual": -38160000,
            "projected_outcome_usd_annual": -24804000, "projected_impact_usd_annual": 13356000,
            "charge_off_rate": 0.118,
            "persistence_score": 0.82, "persistence_quarters_out_of_total": [7, 8],
            "difficulty_score_1_to_5": 2,
            "recommendation": "Raise APR by 300bps on new balances in the cohort",
            "time_to_implement_weeks": 6,
            "evidence_row_ids": ["C-1190442", "C-0877120", "C-2203915"],
        },
        {
            "id": "opp_02", "archetype": "allocation", "decision_cols": ["channel", "state"],
            "segment": {"channel": "Direct mail", "state": "CA"},
            "n": 87400, "current_outcome_usd_annual": -9614000,
            "projected_outcome_usd_annual": -5768400, "projected_impact_usd_annual": 3845600,
            "charge_off_rate": 0.067,
            "persistence_score": 0.63, "persistence_quarters_out_of_total": [5, 8],
            "difficulty_score_1_to_5": 3,
            "recommendation": "Cut direct-mail acquisition spend in CA by 35%",
            "time_to_implement_weeks": 10,
            "evidence_row_ids": ["C-0412873", "C-1530066", "C-0090321"],
        },
        {
            "id": "opp_03", "archetype": "timing",
            "decision_cols": ["days_past_due", "credit_band"],
            "segment": {"days_past_due": "1-29 DPD", "credit_band": "580-619"},
            "n": 30850, "current_outcome_usd_annual": -12340000,
            "projected_outcome_usd_annual": -8020000, "implementation_cost_usd_annual": 180000,
            "projected_impact_usd_annual": 4140000, "cure_rate": 0.44,
            "persistence_score": 0.75, "persistence_quarters_out_of_total": [6, 8],
            "difficulty_score_1_to_5": 1,
            "recommendation": "Offer a 3-month payment plan at the first missed payment",
            "time_to_implement_weeks": 4,
            "evidence_row_ids": ["C-2419006", "C-0765431", "C-1888203"],
        },
        {
            "id": "opp_04", "archetype": "selection",
            "decision_cols": ["credit_line_band", "channel"],
            "segment": {"credit_line_band": "$15,000+", "channel": "Partner"},
            "n": 4120, "current_outcome_usd_annual": -2884000,
            "projected_outcome_usd_annual": -1442000, "projected_impact_usd_annual": 1442000,
            "persistence_score": 0.5, "persistence_quarters_out_of_total": [4, 8],
            "difficulty_score_1_to_5": 4,
            "recommendation": "Cap initial lines at $10,000 for partner-sourced applicants",
            "time_to_implement_weeks": 8,
            "evidence_row_ids": ["C-3001457", "C-3017780", "C-2998410"],
        },
    ],
}

SOURCES["KeystoneSMB"] = {
    "portco_id": "KeystoneSMB",
    "vertical": "smb_lending",
    "ebitda_baseline_usd": 18900000,
    "as_of": "2025-09-30",
    "total_projected_impact_usd_annual": 4778000,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "selection", "decision_cols": ["industry", "state"],
            "segment": {"industry": "Restaurants", "state": "TX"},
            "n": 1420, "outcome_total_usd_annual": -6390000, "outcome_mean_usd": -4500.0,
            "default_rate": 0.112,
            "persistence_score": 0.8, "persistence_quarters_out_of_total": [4, 5],
            "difficulty_score_1_to_5": 3, "projected_impact_usd_annual": 2556000,
            "projected_action": (
                "Cap lines at $150,000 for restaurant borrowers under two years in business"
            ),
            "evidence_row_ids": ["41877", "40213", "52096"],
            "narrative_board": "Restaurants x TX loses $6.4M a year across 1,420 loans.",
            "narrative_operator": "Cap lines at $150,000 for young restaurant borrowers.",
        },
        {
            "id": "opp_02", "archetype": "pricing",
            "decision_cols": ["line_size_band", "channel"],
            "segment": {"line_size_band": "$50,000-$100,000", "channel": "Broker"},
            "n": 2860, "outcome_total_usd_annual": -3432000, "outcome_mean_usd": -1200.0,
            "default_rate": 0.071,
            "persistence_score": 0.6, "persistence_quarters_out_of_total": [3, 5],
            "difficulty_score_1_to_5": 2, "projected_impact_usd_annual": 1144000,
            "projected_action": "Reprice broker-sourced lines by 200bps",
            "evidence_row_ids": ["33018", "47702", "29915"],
            "narrative_board": "$50,000-$100,000 x Broker loses $3.4M a year across 2,860 loans.",
            "narrative_operator": "Reprice broker-sourced lines by 200bps.",
        },
        {
            "id": "opp_03", "archetype": "timing",
            "decision_cols": ["days_past_due", "industry"],
            "segment": {"days_past_due": "90+ DPD", "industry": "Construction"},
            "n": 385, "current_outcome_usd_annual": -2695000,
            "projected_outcome_usd_annual": -1617000, "projected_impact_usd_annual": 1078000,
            "recovery_rate": 0.21,
            "persistence_score": 1.0, "persistence_quarters_out_of_total": [5, 5],
            "difficulty_score_1_to_5": 4,
            "recommendation": "Refer accounts to workout at 60 days past due instead of 90",
            "time_to_implement_weeks": 12,
            "quarterly_outcome_usd": q([
                ("2024Q3", -610000), ("2024Q4", -655000), ("2025Q1", -690000),
                ("2025Q2", -720000), ("2025Q3", -740000),
            ]),
            "evidence_row_ids": ["50331", "48120", "51907"],
        },
    ],
}

for s in SOURCES.values():
    tot = sum(o["projected_impact_usd_annual"] for o in s["opportunities"])
    assert tot == s["total_projected_impact_usd_annual"], (s["portco_id"], tot)
