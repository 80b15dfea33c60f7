"""Write ``finance_output/mutations.json``: labelled planted errors (and correct rewrites) on
the real producer's memos, one edit each, derived from the memos and their sources so every
case is checkable by hand. Run from the repository root:

    python tests/corpus/producer_run/generator/mutations.py

Each case has the schema of ``tests/corpus/freeform/mutations.json`` (``id``, ``memo``,
``opportunity_id``, ``field``, ``find``, ``replace``, ``error_class``, ``note``), plus
``source_patch`` for a planted figure in the source's own narrative. Classes starting with
``correct`` are correct rewrites: any finding on them is a false flag.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "finance_output"
PORTCOS = ["HMDA_GA", "MortgageCo", "midwest_lender", "DCMortgage", "eTeleQuote", "UILender"]


def scaled(usd: float) -> str:
    """The producer's own rendering (explainer ``_scaled``)."""
    if abs(usd) >= 1e9:
        return f"${usd / 1e9:,.2f}B"
    if abs(usd) >= 1e6:
        return f"${usd / 1e6:,.1f}M"
    if abs(usd) >= 1e3:
        return f"${usd / 1e3:,.0f}K"
    return f"${usd:,.0f}"


def cases_for(portco: str, audience: str) -> list[dict]:
    memo_name = f"explain_{portco}_{audience}.json"
    memo = json.loads((FOLDER / memo_name).read_text())
    src = json.loads((FOLDER / f"dx_report_{portco}.json").read_text())
    opps = {o["id"]: o for o in src["opportunities"]}
    explained = memo["opportunities_explained"]
    out: list[dict] = []

    def add(cls: str, oid: str, field: str, find: str, replace: str, note: str, **extra):
        text = next(o for o in explained if o["id"] == oid)[field]
        if text.count(find) != 1 or find == replace:
            return
        n = sum(1 for c in out if c["error_class"] == cls) + 1
        out.append(
            {
                "id": f"{portco}_{audience}_{cls}_{n:02d}",
                "memo": memo_name,
                "opportunity_id": oid,
                "field": field,
                "find": find,
                "replace": replace,
                "error_class": cls,
                "note": note,
                **extra,
            }
        )

    first, second = explained[0]["id"], explained[1]["id"]
    o1, o2 = opps[first], opps[second]
    impact = o1["projected_impact_usd_annual"]
    shown = scaled(impact)
    cf = "counterfactual"
    add(
        "wrong_figure",
        first,
        cf,
        f"recovering {shown} per year",
        f"recovering {scaled(impact * 1.37)} per year",
        "impact x1.37",
    )
    add(
        "sign_flip",
        first,
        cf,
        f"recovering {shown} per year",
        f"recovering {scaled(-impact)} per year",
        "an impact written negative",
    )
    loss = o1.get("outcome_total_usd_annual")
    if loss:
        add(
            "sign_flip",
            first,
            cf,
            f"producing {scaled(loss)} of annual loss",
            f"producing +{scaled(-loss)} of annual loss",
            "an explicit + on a loss",
        )
    base = src["ebitda_baseline_usd"]
    risk = "risk_of_inaction"
    add(
        "wrong_quantity",
        first,
        risk,
        f"Carrying {shown} of annual leakage",
        f"Carrying {scaled(base)} of annual leakage",
        "the EBITDA baseline called a loss",
    )
    if scaled(o2["projected_impact_usd_annual"]) != shown:
        add(
            "other_opportunity_value",
            first,
            cf,
            f"recovering {shown} per year",
            f"recovering {scaled(o2['projected_impact_usd_annual'])} per year",
            f"{second}'s impact",
        )
    if o1["n"] != o2["n"]:
        add(
            "other_opportunity_value",
            first,
            cf,
            f"across {o1['n']:,} loans",
            f"across {o2['n']:,} loans",
            f"{second}'s n",
        )
    add(
        "wrong_count",
        first,
        cf,
        f"across {o1['n']:,} loans",
        f"across {round(o1['n'] * 1.23):,} loans",
        "n x1.23",
    )
    k, m = o1["persistence_quarters_out_of_total"]
    text = explained[0]["narrative"]
    if f"{k} of {m} quarters" in text and k > 1:
        add(
            "wrong_quarters",
            first,
            "narrative",
            f"persisting in {k} of {m} quarters",
            f"persisting in {k - 1} of {m} quarters",
            "one quarter fewer",
        )
    diff = o1["difficulty_score_1_to_5"]
    other = 3 if diff != 3 else 4
    add("wrong_difficulty", first, "narrative", f"rated {diff}/5", f"rated {other}/5", "")
    if "persistence_score" in o1:
        add(
            "wrong_score",
            first,
            cf,
            f"persistence score of {o1['persistence_score']:.2f}",
            f"persistence score of {max(0.0, o1['persistence_score'] - 0.27):.2f}",
            "",
        )
    cohort = " × ".join(str(v) for v in o1["segment"].values())
    values = list(o1["segment"].values())
    invented = " × ".join([str(values[0]), "Zeta_9"])
    add(
        "invented_cohort_value",
        first,
        "narrative",
        f"**{cohort}**",
        f"**{invented}**",
        "a segment value in no opportunity",
    )
    cols = " × ".join(o1["decision_cols"])
    add(
        "invented_decision_column",
        first,
        "narrative",
        f"({cols})",
        f"({o1['decision_cols'][0]} × vintage_bucket)",
        "a column in no opportunity",
    )
    if audience == "board":
        planted = scaled(impact * 1.16)
        narrative = explained[0]["narrative"]
        quoted = narrative.replace(
            f"**{shown} of annualized leakage**", f"**{planted} of annualized leakage**"
        )
        add(
            "self_quoting_narrative",
            first,
            "narrative",
            f"**{shown} of annualized leakage**",
            f"**{planted} of annualized leakage**",
            "the planted figure is also written into the source's narrative_board",
            source_patch={"opportunity_id": first, "field": "narrative_board", "value": quoted},
        )
    # correct rewrites: any finding on them is a false flag
    add(
        "correct_precision",
        first,
        cf,
        f"recovering {shown} per year",
        f"recovering ${impact:,.0f} per year",
        "the exact impact",
    )
    add(
        "correct_words",
        first,
        "narrative",
        f"rated {diff}/5",
        f"rated {['zero', 'one', 'two', 'three', 'four', 'five'][diff]} out of five",
        "",
    )
    add(
        "correct_duration",
        first,
        "rollout",
        "observe one quarter of post-action data",
        "observe a full quarter of post-action data",
        "a duration",
    )
    add("correct_schedule", first, "rollout", "week 1 —", "weeks 1-4 —", "a schedule")
    add(
        "correct_run_rate",
        first,
        risk,
        f"Carrying {shown} of annual leakage",
        f"Carrying {scaled(impact / 4)} a quarter of leakage",
        "impact / 4",
    )
    add(
        "correct_control_group",
        first,
        "rollout",
        "validate the counterfactual",
        "validate the counterfactual against a control group of 500 loans",
        "a plan parameter",
    )
    return out


def main() -> None:
    cases = []
    for portco in PORTCOS:
        for audience in ("board", "operator"):
            cases.extend(cases_for(portco, audience))
    for c in cases:  # every case is a real edit of its memo
        assert re.search(
            re.escape(c["find"]),
            json.dumps(json.loads((FOLDER / c["memo"]).read_text()), ensure_ascii=False),
        ), c["id"]
    (FOLDER / "mutations.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
