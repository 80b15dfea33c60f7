"""Source OpportunityMaps for the held-out free-form corpus (written before any tuning)."""


def q(series, key="outcome_usd"):
    return [{"quarter": qq, key: v} for qq, v in series]


SOURCES = {}

SOURCES["CedarRiverCU"] = {
    "portco_id": "CedarRiverCU",
    "vertical": "consumer_lending",
    "ebitda_baseline_usd": 31200000,
    "as_of": "2025-12-31",
    "portfolio_delinquency_rate": 0.038,
    "total_projected_impact_usd_annual": 2999600,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "pricing", "decision_cols": ["fico_band", "state"],
            "segment": {"fico_band": "620-659", "state": "OH"},
            "n": 22400, "outcome_total_usd_annual": -5376000, "outcome_mean_usd": -240.0,
            "delinquency_rate": 0.061,
            "persistence_score": 0.72, "persistence_quarters_out_of_total": [6, 8],
            "difficulty_score_1_to_5": 2, "projected_impact_usd_annual": 2150400,
            "projected_action": "Raise APR on the 620-659 band in OH by 150bps",
            "evidence_row_ids": [55012, 70431, 9918],
            "narrative_board": "620-659 x OH loses $5.4M a year across 22,400 loans.",
            "narrative_operator": "Raise APR by 150bps; impact $2.15M.",
        },
        {
            "id": "opp_02", "archetype": "selection", "decision_cols": ["term_band", "channel"],
            "segment": {"term_band": "48-60 months", "channel": "Branch"},
            "n": 9650, "outcome_total_usd_annual": -2123000, "outcome_mean_usd": -220.0,
            "delinquency_rate": 0.052,
            "persistence_score": 0.55, "persistence_quarters_out_of_total": [4, 8],
            "difficulty_score_1_to_5": 3, "projected_impact_usd_annual": 849200,
            "projected_action": "Require income verification for branch applications above $25,000",
            "evidence_row_ids": [12007, 81544, 3309],
            "narrative_board": "48-60 months x Branch loses $2.1M a year across 9,650 loans.",
            "narrative_operator": "Verify income above $25,000; impact $849K.",
        },
    ],
}

SOURCES["MeridianFreight"] = {
    "portco_id": "MeridianFreight",
    "vertical": "b2b_receivables",
    "ebitda_baseline_usd": 54000000,
    "as_of": "2025-12-31",
    "portfolio_dso_days": 47,
    "total_projected_impact_usd_annual": 1912800,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "timing", "decision_cols": ["invoice_size", "region"],
            "segment": {"invoice_size": "$10,000-$50,000", "region": "Midwest"},
            "n": 6240, "current_outcome_usd_annual": -3744000,
            "projected_outcome_usd_annual": -2246400, "projected_impact_usd_annual": 1497600,
            "dso_days": 68,
            "persistence_score": 0.88, "persistence_quarters_out_of_total": [7, 8],
            "difficulty_score_1_to_5": 2,
            "recommendation": (
                "Send the first reminder 3 days before the due date instead of 10 days after"
            ),
            "time_to_implement_weeks": 5,
            "quarterly_outcome_usd": q([
                ("2025Q1", -890000), ("2025Q2", -925000), ("2025Q3", -951000),
                ("2025Q4", -978000),
            ]),
            "evidence_row_ids": ["INV-88120", "INV-4471", "INV-90233"],
        },
        {
            "id": "opp_02", "archetype": "routing",
            "decision_cols": ["customer_segment", "carrier_type"],
            "segment": {"customer_segment": "Mid-market", "carrier_type": "Owner-operator"},
            "n": 1980, "current_outcome_usd_annual": -1584000,
            "projected_outcome_usd_annual": -1108800, "implementation_cost_usd_annual": 60000,
            "projected_impact_usd_annual": 415200, "dso_days": 74,
            "persistence_score": 0.63, "persistence_quarters_out_of_total": [5, 8],
            "difficulty_score_1_to_5": 3,
            "recommendation": "Route mid-market disputes to the specialist team within 24 hours",
            "time_to_implement_weeks": 8,
            "evidence_row_ids": ["INV-1203", "INV-66310"],
        },
    ],
}

SOURCES["PinecrestHealth"] = {
    "portco_id": "PinecrestHealth",
    "vertical": "healthcare_rcm",
    "ebitda_baseline_usd": 88000000,
    "as_of": "2025-12-31",
    "portfolio_denial_rate": 0.112,
    "total_projected_impact_usd_annual": 4313250,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "routing", "decision_cols": ["payer_class", "claim_type"],
            "segment": {"payer_class": "Medicaid", "claim_type": "Outpatient"},
            "n": 48300, "outcome_total_usd_annual": -7245000, "outcome_mean_usd": -150.0,
            "denial_rate": 0.187,
            "persistence_score": 0.9, "persistence_quarters_out_of_total": [9, 10],
            "difficulty_score_1_to_5": 2, "projected_impact_usd_annual": 2898000,
            "projected_action": (
                "Route Medicaid outpatient claims through pre-submission scrubbing"
                " with a 72-hour SLA"
            ),
            "evidence_row_ids": ["C-771203", "C-118450", "C-903311"],
            "narrative_board": "Medicaid x Outpatient loses $7.2M a year across 48,300 claims.",
            "narrative_operator": "Scrub before submission; impact $2.9M.",
        },
        {
            "id": "opp_02", "archetype": "timing", "decision_cols": ["days_in_ar", "payer_class"],
            "segment": {"days_in_ar": "91-120 days", "payer_class": "Commercial"},
            "n": 13750, "outcome_total_usd_annual": -4125000, "outcome_mean_usd": -300.0,
            "denial_rate": 0.094,
            "persistence_score": 0.6, "persistence_quarters_out_of_total": [6, 10],
            "difficulty_score_1_to_5": 3, "projected_impact_usd_annual": 1031250,
            "projected_action": "Escalate commercial appeals at day 60 rather than day 90",
            "evidence_row_ids": ["C-45120", "C-230087"],
            "narrative_board": "91-120 days x Commercial loses $4.1M a year.",
            "narrative_operator": "Escalate at day 60; impact $1.03M.",
        },
        {
            "id": "opp_03", "archetype": "allocation",
            "decision_cols": ["facility", "service_line"],
            "segment": {"facility": "Eastside", "service_line": "Imaging"},
            "n": 5120, "outcome_total_usd_annual": -1536000, "outcome_mean_usd": -300.0,
            "denial_rate": 0.141,
            "persistence_score": 0.4, "persistence_quarters_out_of_total": [4, 10],
            "difficulty_score_1_to_5": 4, "projected_impact_usd_annual": 384000,
            "projected_action": "Shift 20% of imaging prior-authorisation work to the central team",
            "evidence_row_ids": ["C-5501", "C-60118"],
            "narrative_board": "Eastside x Imaging loses $1.5M a year.",
            "narrative_operator": "Shift 20% of prior-auth work; impact $384K.",
        },
    ],
}

SOURCES["SummitLease"] = {
    "portco_id": "SummitLease",
    "vertical": "equipment_finance",
    "ebitda_baseline_usd": 67500000,
    "as_of": "2025-09-30",
    "portfolio_loss_rate": 0.041,
    "total_projected_impact_usd_annual": 4197000,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "pricing",
            "decision_cols": ["equipment_type", "lease_term"],
            "segment": {"equipment_type": "Construction", "lease_term": "60 months"},
            "n": 3860, "current_outcome_usd_annual": -6948000,
            "projected_outcome_usd_annual": -4053000, "projected_impact_usd_annual": 2895000,
            "loss_rate": 0.058,
            "persistence_score": 0.75, "persistence_quarters_out_of_total": [6, 8],
            "difficulty_score_1_to_5": 2,
            "recommendation": (
                "Raise the residual-risk premium on 60-month construction leases by 90bps"
            ),
            "time_to_implement_weeks": 6,
            "evidence_row_ids": ["L-20817", "L-3302", "L-11965"],
        },
        {
            "id": "opp_02", "archetype": "selection", "decision_cols": ["credit_band", "state"],
            "segment": {"credit_band": "600-639", "state": "TX"},
            "n": 1240, "current_outcome_usd_annual": -2604000,
            "projected_outcome_usd_annual": -1302000, "projected_impact_usd_annual": 1302000,
            "loss_rate": 0.083,
            "persistence_score": 0.5, "persistence_quarters_out_of_total": [4, 8],
            "difficulty_score_1_to_5": 4,
            "recommendation": (
                "Decline new leases in TX for lessees scoring under 640 without a guarantor"
            ),
            "time_to_implement_weeks": 12,
            "evidence_row_ids": ["L-7741", "L-15096"],
        },
    ],
}

SOURCES["OakfieldBNPL"] = {
    "portco_id": "OakfieldBNPL",
    "vertical": "bnpl",
    "ebitda_baseline_usd": 19800000,
    "as_of": "2025-12-31",
    "portfolio_loss_rate": 0.049,
    "active_accounts": 1250000,
    "total_projected_impact_usd_annual": 1924650,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "selection",
            "decision_cols": ["basket_size", "merchant_category"],
            "segment": {"basket_size": "$500-$1,000", "merchant_category": "Electronics"},
            "n": 86400, "outcome_total_usd_annual": -3456000, "outcome_mean_usd": -40.0,
            "loss_rate": 0.071,
            "persistence_score": 0.83, "persistence_quarters_out_of_total": [10, 12],
            "difficulty_score_1_to_5": 2, "projected_impact_usd_annual": 1382400,
            "projected_action": "Require a 25% down payment on electronics baskets above $750",
            "evidence_row_ids": [901223, 44518, 730092],
            "narrative_board": "$500-$1,000 x Electronics loses $3.5M a year.",
            "narrative_operator": "25% down payment above $750; impact $1.38M.",
        },
        {
            "id": "opp_02", "archetype": "timing",
            "decision_cols": ["missed_installments", "channel"],
            "segment": {"missed_installments": "2+", "channel": "App"},
            "n": 24100, "outcome_total_usd_annual": -1807500, "outcome_mean_usd": -75.0,
            "loss_rate": 0.118,
            "persistence_score": 0.58, "persistence_quarters_out_of_total": [7, 12],
            "difficulty_score_1_to_5": 1, "projected_impact_usd_annual": 542250,
            "projected_action": "Pause new purchases after the second missed installment",
            "evidence_row_ids": [12094, 677301],
            "narrative_board": "2+ missed installments x App loses $1.8M a year.",
            "narrative_operator": "Pause purchases; impact $542K.",
        },
    ],
}

SOURCES["BayshoreMortgage"] = {
    "portco_id": "BayshoreMortgage",
    "vertical": "mortgage",
    "ebitda_baseline_usd": 142000000,
    "as_of": "2025-12-31",
    "portfolio_cure_rate": 0.39,
    "total_projected_impact_usd_annual": 4546800,
    "opportunities": [
        {
            "id": "opp_01", "archetype": "timing", "decision_cols": ["ltv_band", "state"],
            "segment": {"ltv_band": "LTV 90-97%", "state": "FL"},
            "n": 11300, "current_outcome_usd_annual": -9040000,
            "projected_outcome_usd_annual": -5650000, "projected_impact_usd_annual": 3390000,
            "cure_rate": 0.44,
            "quarterly_cure_rate": [
                {"quarter": "2025Q1", "value": 0.49}, {"quarter": "2025Q2", "value": 0.47},
                {"quarter": "2025Q3", "value": 0.45}, {"quarter": "2025Q4", "value": 0.44},
            ],
            "persistence_score": 0.86, "persistence_quarters_out_of_total": [6, 7],
            "difficulty_score_1_to_5": 2,
            "recommendation": "Offer forbearance outreach at 15 days past due instead of 45",
            "time_to_implement_weeks": 4,
            "evidence_row_ids": ["M-301877", "M-55120", "M-209943"],
        },
        {
            "id": "opp_02", "archetype": "routing", "decision_cols": ["loan_type", "channel"],
            "segment": {"loan_type": "FHA", "channel": "Broker"},
            "n": 6720, "current_outcome_usd_annual": -4704000,
            "projected_outcome_usd_annual": -3427200, "implementation_cost_usd_annual": 120000,
            "projected_impact_usd_annual": 1156800, "cure_rate": 0.31,
            "persistence_score": 0.57, "persistence_quarters_out_of_total": [4, 7],
            "difficulty_score_1_to_5": 3,
            "recommendation": (
                "Route broker-sourced FHA loans in default to the loss-mitigation specialists"
            ),
            "time_to_implement_weeks": 9,
            "evidence_row_ids": ["M-7710", "M-40022"],
        },
    ],
}
