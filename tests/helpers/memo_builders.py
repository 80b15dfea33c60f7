"""Small memo/source builders: a Shape A portco (batch builder) and a Shape B one (pipeline).

Builders return plain dicts so each test can damage exactly one thing before writing them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHAPE_A_SOURCE: dict[str, Any] = {
    "portco_id": "TestCo",
    "vertical": "mortgage lending",
    "ebitda_baseline_usd": 250_000_000,
    "as_of": "2026-03-31",
    "total_projected_impact_usd_annual": 1_249_000 + 45_200 + 3_400_000,
    "opportunities": [
        {
            "id": "opp_01",
            "archetype": "allocation",
            "decision_cols": ["grade", "term"],
            "segment": {"grade": "A", "term": "360 months"},
            "n": 23681,
            "outcome_total_usd_annual": -564_812_345,
            "outcome_mean_usd": -23_851.2,
            "persistence_score": 0.8,
            "persistence_quarters_out_of_total": [4, 5],
            "difficulty_score_1_to_5": 4,
            "projected_impact_usd_annual": 1_249_000,
            "projected_action": "throttle",
            "evidence_row_ids": [118204, 40577, "77310"],
            "narrative_board": "x",
            "narrative_operator": "y",
        },
        {
            "id": "opp_02",
            "archetype": "pricing",
            "decision_cols": ["state"],
            "segment": {"state": "TX"},
            "n": 812,
            "outcome_total_usd_annual": -12_340,
            "outcome_mean_usd": -15.2,
            "persistence_score": 0.62,
            "persistence_quarters_out_of_total": [5, 8],
            "difficulty_score_1_to_5": 2,
            "projected_impact_usd_annual": 45_200,
            "evidence_row_ids": [5001, 5002],
        },
        {
            "id": "opp_03",
            "archetype": "routing",
            "decision_cols": ["channel", "fico_band"],
            "segment": {"channel": "broker", "fico_band": 620},
            "n": 4410,
            "outcome_total_usd_annual": 8_900_000,
            "persistence_score": 0.9,
            "persistence_quarters_out_of_total": [8, 8],
            "difficulty_score_1_to_5": 3,
            "projected_impact_usd_annual": 3_400_000,
            "evidence_row_ids": ["r-9"],
        },
    ],
}


def board_prose() -> dict[str, dict[str, str]]:
    """Correct board prose for SHAPE_A_SOURCE: every figure rounded the producers' way."""
    return {
        "opp_01": {
            "narrative": "**A × 360 months** (grade × term) leaks **$564.8M** a year across "
            "**23,681 loans**, 4 of 5 quarters observed (persistence score of 0.80).",
            "counterfactual": "**Counterfactual:** reallocating recovers $1.2M a year.",
            "risk_of_inaction": "**Risk of inaction:** the $-564.8M drag persists; mean loss "
            "$23,851 per loan.",
            "rollout": "**Rollout:** rated 4/5 difficulty; weeks 2-8 pilot.",
        },
        "opp_02": {
            "narrative": "**TX** (state) loses $12K a year on **812 loans**, 5 of 8 quarters "
            "observed; persistence 62%.",
            "counterfactual": "**Counterfactual:** repricing is worth $45K.",
            "risk_of_inaction": "",
            "rollout": "**Rollout:** rated 2/5.",
        },
        "opp_03": {
            "narrative": "**broker × 620** (channel × fico_band) earns $8.9M across "
            "**4,410 loans**, 8 of 8 quarters observed.",
            "counterfactual": "**Counterfactual:** rerouting adds $3.4M.",
            "risk_of_inaction": "**Risk of inaction:** share slips.",
            "rollout": "**Rollout:** rated 3/5. Sample evidence rows for spot-check: r-9.",
        },
    }


def make_memo(source: dict[str, Any], audience: str = "board", prose=None) -> dict[str, Any]:
    prose = prose if prose is not None else board_prose()
    return {
        "portco_id": source["portco_id"],
        "audience": audience,
        "as_of": source.get("as_of"),
        "total_projected_impact_usd_annual": source["total_projected_impact_usd_annual"],
        "vertical": source.get("vertical"),
        "ebitda_baseline_usd": source.get("ebitda_baseline_usd"),
        "source_opportunity_map": f"dx_report_{source['portco_id']}.json",
        "opportunities_explained": [
            {
                "id": o["id"],
                "archetype": o.get("archetype"),
                "segment": o.get("segment", {}),
                **prose.get(o["id"], {}),
            }
            for o in source["opportunities"]
            if o["id"] in prose
        ],
    }


SHAPE_B_SOURCE: dict[str, Any] = {
    "portco_id": "PipeCo",
    "vertical": "auto lending",
    "ebitda_baseline_usd": 40_000_000,
    "as_of": "2026-01-31",
    "total_projected_impact_usd_annual": 2_300_000,
    "opportunities": [
        {
            "id": "opp_01",
            "archetype": "selection",
            "decision_cols": ["dealer_tier"],
            "segment": {"dealer_tier": "Tier 3"},
            "n": 1520,
            "current_outcome_usd_annual": -2_900_000,
            "projected_outcome_usd_annual": -600_000,
            "recommendation": "tighten approvals",
            "time_to_implement_weeks": 6,
            "persistence_score": 0.75,
            "persistence_quarters_out_of_total": [6, 8],
            "difficulty_score_1_to_5": 3,
            "projected_impact_usd_annual": 2_300_000,
            "evidence_row_ids": ["1001", "1002"],
            "quarterly": [{"quarter": "2025Q1", "outcome_usd": -710_000, "approval_rate": 0.412}],
        }
    ],
}


def shape_b_prose() -> dict[str, dict[str, str]]:
    return {
        "opp_01": {
            "narrative": "Cohort key: **Tier 3** (dealer_tier). Annualized $ at stake: $2.9M "
            "across **1,520 loans**; approval rate 41.2% in Q1.",
            "counterfactual": "**Counterfactual:** tightening moves the outcome to -$0.6M.",
            "risk_of_inaction": "**Risk of inaction:** 6 of 8 quarters observed.",
            "rollout": "**Rollout:** throttle volume to the cohort to ~5% of current over "
            "6 weeks. Sample evidence rows for spot-check: 1001, 1002.",
        }
    }


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def grade_prose(folder: Path, source: dict[str, Any], prose: dict[str, dict[str, str]], **config):
    """Write ``source`` and a memo with ``prose`` into ``folder`` and grade them."""
    from pe_eval_core.memo import GraderConfig, grade_memo

    folder.mkdir(parents=True, exist_ok=True)
    src = write_json(folder / f"dx_report_{source['portco_id']}.json", source)
    memo = write_json(
        folder / f"explain_{source['portco_id']}_board.json", make_memo(source, prose=prose)
    )
    return grade_memo(memo, src, config=GraderConfig(**config))


def only(opp: str, field: str, text: str) -> dict[str, dict[str, str]]:
    """Board prose with one block replaced."""
    prose = board_prose()
    prose[opp] = {**prose[opp], field: text}
    return prose


def marks_in(ev, opp: str, field: str, what: str | None = None):
    """The marks of one prose block (optionally only figures or only entities)."""
    return [
        m
        for m in ev.marks
        if m.opportunity_id == opp and m.field == field and (what is None or m.what == what)
    ]


def figure_marks(ev, raw: str):
    return [m for m in ev.marks if m.what == "figure" and m.raw == raw]


def entity_marks(ev, raw: str, opp: str | None = None, field: str | None = None):
    return [
        m
        for m in ev.marks
        if m.what == "entity"
        and m.raw == raw
        and (opp is None or m.opportunity_id == opp)
        and (field is None or m.field == field)
    ]
