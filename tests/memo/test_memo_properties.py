"""Properties: scores stay in [0, 1], do not depend on opportunity order, and the bisecting
matcher agrees with a brute-force scan of every source field."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pe_eval_core.memo import GraderConfig, grade_memo
from pe_eval_core.memo.models import OpportunityMap
from pe_eval_core.memo.source_numbers import NumericUniverse, tolerance_window
from pe_eval_core.numbers import Figure, FigureKind

SEGMENT_VALUES = ["A", "B", "TX", "GA", "360 months", "broker", "620"]
INVENTED = ["FL", "Zeta", "Tier 9"]
USD_TEXT = st.sampled_from(["$1.2M", "$-3.4M", "$45K", "$12,340", "$1.39B", "$(2.2)M", "$812"])


@st.composite
def memo_pairs(draw):
    """A random source (1-6 opportunities) and a memo drawing on it, with some noise."""
    n = draw(st.integers(1, 6))
    opps = []
    for i in range(n):
        magnitude = draw(st.floats(1e3, 2e9))
        sign = draw(st.sampled_from([-1, 1]))
        opps.append(
            {
                "id": f"opp_{i:02d}",
                "archetype": draw(st.sampled_from(["allocation", "pricing", "routing"])),
                "decision_cols": ["grade"],
                "segment": {"grade": draw(st.sampled_from(SEGMENT_VALUES))},
                "n": draw(st.integers(10, 60_000)),
                "outcome_total_usd_annual": round(sign * magnitude),
                "persistence_score": draw(st.floats(0, 1)),
                "projected_impact_usd_annual": round(magnitude * 0.4),
                "evidence_row_ids": [draw(st.integers(1, 999_999))],
            }
        )
    source = {
        "portco_id": "PropCo",
        "opportunities": opps,
        "total_projected_impact_usd_annual": sum(o["projected_impact_usd_annual"] for o in opps),
    }
    explained = []
    for o in opps:
        if draw(st.booleans()) and (explained or o is not opps[-1]):
            continue  # sometimes dropped (never all of them)
        usd = abs(o["outcome_total_usd_annual"])
        words = [
            f"**{o['segment']['grade']}** (grade)",
            f"leaks ${usd / 1e6:.1f}M" if usd >= 1e6 else f"leaks ${usd / 1e3:.0f}K",
            f"across **{o['n']:,} loans**",
            f"persistence score of {o['persistence_score']:.2f}",
        ]
        noise = draw(st.lists(st.one_of(USD_TEXT, st.sampled_from(INVENTED)), max_size=3))
        words += [f"**{w}**" if w in INVENTED else w for w in noise]
        explained.append({"id": o["id"], "narrative": " ".join(words), "rollout": ""})
    if draw(st.booleans()):
        explained.append({"id": "opp_phantom", "narrative": "**FL** loses $1.2M"})
    memo = {
        "portco_id": "PropCo",
        "audience": "board",
        "total_projected_impact_usd_annual": source["total_projected_impact_usd_annual"]
        * draw(st.sampled_from([1.0, 1.0, 0.8])),
        "opportunities_explained": explained,
    }
    return source, memo, draw(st.randoms(use_true_random=False))


def _grade(source, memo):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "dx_report_PropCo.json"
        mem = Path(d) / "explain_PropCo_board.json"
        src.write_text(json.dumps(source), encoding="utf-8")
        mem.write_text(json.dumps(memo), encoding="utf-8")
        return grade_memo(mem, src)


@settings(max_examples=40, deadline=None)
@given(memo_pairs())
def test_scores_are_in_the_unit_interval_and_totals_are_coherent(case):
    source, memo, _ = case
    ev = _grade(source, memo)
    for value in ev.scores.model_dump().values():
        assert 0.0 <= value <= 1.0
    t = ev.totals
    assert 0 <= t.figures_cited <= t.figures_total
    assert 0 <= t.entities_grounded <= t.entities_total
    assert 0 <= t.opps_addressed <= t.opps_in_source == len(source["opportunities"])


@settings(max_examples=40, deadline=None)
@given(memo_pairs())
def test_scores_do_not_depend_on_opportunity_order(case):
    source, memo, rnd = case
    ev = _grade(source, memo)
    shuffled_source = dict(
        source, opportunities=rnd.sample(source["opportunities"], k=len(source["opportunities"]))
    )
    explained = memo["opportunities_explained"]
    shuffled_memo = dict(memo, opportunities_explained=rnd.sample(explained, k=len(explained)))
    again = _grade(shuffled_source, shuffled_memo)
    assert again.scores == ev.scores
    assert again.totals == ev.totals

    def key(f):
        return (f.kind, f.opportunity_id, f.field, f.start, f.raw, f.other_opportunity_id)

    assert sorted(map(key, again.findings)) == sorted(map(key, ev.findings))


# --- the bisecting matcher against a brute-force oracle ------------------------------------


def _oracle(fig: Figure, opp: int | None, fields, config: GraderConfig) -> str:
    lo, hi = tolerance_window(fig, config)
    negative = fig.negative or fig.value < 0
    candidates = [f for f in fields if f.kind is fig.kind and lo <= f.magnitude <= hi]
    fits = [f for f in candidates if f.value < 0 or not negative]
    if any(f.opp is None or f.opp == opp for f in fits):
        return "grounded"
    if any(f.opp is not None and f.opp != opp for f in fits):
        return "misattributed"
    return "sign" if candidates else "ungrounded"


values = st.sampled_from([-1_249_000, 1_249_000, -12_340, 45_200, 3_400_000, -3_400_000, 812, 0])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(values, min_size=1, max_size=4), min_size=1, max_size=6),
    st.lists(values, max_size=2),
    st.sampled_from([-1_250_000, 1.2e6, 1.3e6, -12_000, 45_000, 3.4e6, -3.4e6, 812, 5e9]),
    st.sampled_from([0.0, 5e4, 5e2]),
)
def test_matcher_agrees_with_a_brute_force_scan(per_opp, portfolio, value, half):
    source = {
        "portco_id": "P",
        "opportunities": [
            {"id": f"o{i}", **{f"v{j}_usd": v for j, v in enumerate(vs)}}
            for i, vs in enumerate(per_opp)
        ],
        **{f"top{j}_usd": v for j, v in enumerate(portfolio)},
    }
    universe = NumericUniverse(OpportunityMap.model_validate(source))
    fields = universe.fields
    config = GraderConfig()
    fig = Figure(FigureKind.USD, value, "x", 0, 1, value - half, value + half, value < 0)
    for opp in [None, *range(len(per_opp))]:
        got = universe.match(fig, opp, config)
        assert got.status == _oracle(fig, opp, fields, config)
        if got.status == "grounded":
            assert got.field.opp in (None, opp)
        if got.status == "misattributed":
            assert got.field.opp not in (None, opp)


def test_matcher_finds_misattribution_among_many_equal_values():
    """Thousands of identical values elsewhere never force a scan (and stay correct)."""
    opps = [{"id": f"o{i}", "x_usd": 5.0e6} for i in range(3000)] + [{"id": "mine", "y_usd": 1.0}]
    universe = NumericUniverse(
        OpportunityMap.model_validate({"portco_id": "P", "opportunities": opps})
    )
    fig = Figure(FigureKind.USD, 5.0e6, "$5.0M", 0, 5, 4.95e6, 5.05e6, False)
    got = universe.match(fig, 3000, GraderConfig())
    assert got.status == "misattributed" and got.field.opp is not None
    rnd = random.Random(1)
    i = rnd.randrange(3000)
    assert universe.match(fig, i, GraderConfig()).field.opp == i
