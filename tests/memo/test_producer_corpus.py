"""The real producer's memos (``tests/corpus/producer_run/``, issue 19): every clean memo
scores 100/0/100/100 with no counted finding, and every producer defect is one finding of
its kind, once per occurrence, and nothing else.

The expectations are facts of the sources, asserted here too: a shape-B opportunity has a
non-zero ``current_outcome_usd_annual`` (so "$0 of annual loss" is wrong), no
``persistence_score`` (so "persistence score of 0.00" is invented) and no
``projected_action`` (so the board memo prints an empty ``__``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.memo import FindingKind, grade_memo
from pe_eval_core.memo.verdict import NOT_COUNTED

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "producer_run" / "finance_output"
SHAPE_B = {"SaaSCo", "UILender", "UIMortgage", "eTeleQuote"}
MEMOS = sorted(CORPUS.glob("explain_*.json"))
PERFECT = {"citation_accuracy": 1.0, "hallucination_rate": 0.0, "coverage": 1.0, "consistency": 1.0}


def _portco(memo: Path) -> tuple[str, str]:
    portco, audience = memo.stem.removeprefix("explain_").rsplit("_", 1)
    return portco, audience


def _grade(memo: Path):
    portco, _ = _portco(memo)
    return grade_memo(memo, CORPUS / f"dx_report_{portco}.json")


def _counted(ev) -> list[tuple[str, str | None, str | None, str]]:
    return [
        (str(f.kind), f.opportunity_id, f.field, f.raw)
        for f in ev.findings
        if f.kind not in NOT_COUNTED
    ]


def test_corpus_is_complete():
    assert len(MEMOS) == 32
    shape_a = [m for m in MEMOS if _portco(m)[0] not in SHAPE_B]
    assert len(shape_a) == 24


@pytest.mark.parametrize(
    "memo", [m for m in MEMOS if _portco(m)[0] not in SHAPE_B], ids=lambda m: m.stem
)
def test_shape_a_memo_is_perfect(memo):
    ev = _grade(memo)
    assert _counted(ev) == []
    assert ev.scores.model_dump() == PERFECT
    # the rollout's "one quarter of post-action data" is no figure at all
    assert not [m for m in ev.marks if m.field == "rollout"]


@pytest.mark.parametrize(
    "memo", [m for m in MEMOS if _portco(m)[0] in SHAPE_B], ids=lambda m: m.stem
)
def test_shape_b_defects_are_each_one_finding(memo):
    portco, audience = _portco(memo)
    source = json.loads((CORPUS / f"dx_report_{portco}.json").read_text())
    expected = []
    for opp in source["opportunities"]:
        # the facts that make each phrase a defect
        assert opp["current_outcome_usd_annual"] < 0 and opp["projected_outcome_usd_annual"] == 0
        assert "persistence_score" not in opp and "projected_action" not in opp
        if audience == "board":
            expected.append((str(FindingKind.EMPTY_PLACEHOLDER), opp["id"], "narrative", "__"))
        expected.append((str(FindingKind.UNGROUNDED_FIGURE), opp["id"], "counterfactual", "$0"))
        expected.append((str(FindingKind.UNGROUNDED_FIGURE), opp["id"], "counterfactual", "0.00"))
    ev = _grade(memo)
    assert _counted(ev) == expected
    zero = [f for f in ev.findings if f.raw == "$0"]
    # the "$0" is judged against the loss it claims, not the projected outcome that is 0
    assert all(f.nearest_path.endswith(".current_outcome_usd_annual") for f in zero)
    assert ev.scores.coverage == 1.0 and ev.scores.consistency == 1.0


# More runs of the same producer (its code unmodified, output data only): other seeds for the
# raw books (producer_seeds: HMDA states, two regional lenders, eTeleQuote, SaaSCo), and its
# other template variant, the one its SKILL asks an agent to fill: ``narrative_board`` /
# ``narrative_operator`` set from its own ``dx_memo`` skeleton, which the explainer prints
# verbatim (producer_skeleton). Every counted finding must be a known defect, checked by hand
# and listed with its reason in the folder's known_defects.json, and every known defect found.
RUNS = [
    CORPUS,
    CORPUS.parents[1] / "producer_seeds" / "finance_output",
    CORPUS.parents[1] / "producer_skeleton" / "finance_output",
]


@pytest.mark.parametrize(
    "memo",
    [m for folder in RUNS for m in sorted(folder.glob("explain_*.json"))],
    ids=lambda m: f"{m.parents[1].name}/{m.stem}",
)
def test_every_counted_finding_is_a_known_defect(memo):
    folder = memo.parent
    known = [
        (k["opportunity_id"], k["field"], k["raw"])
        for k in json.loads((folder / "known_defects.json").read_text())
        if k["memo"] == memo.name
    ]
    portco, _ = _portco(memo)
    ev = grade_memo(memo, folder / f"dx_report_{portco}.json")
    assert sorted((f[1], f[2], f[3]) for f in _counted(ev)) == sorted(known)
    if not known:
        assert ev.scores.model_dump() == PERFECT
