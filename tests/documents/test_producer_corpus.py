"""The real producer's documents: every defect its README lists is found with the right kind,
and nothing is flagged in documents whose figures are right (issue 22)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pe_eval_core.documents import DocFindingKind, DocumentKind, grade_document

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
RUN = CORPUS / "producer_run" / "finance_output"
GEN = CORPUS / "producer_generated"


def kinds(path: Path) -> Counter[str]:
    return Counter(f.kind.value for f in grade_document(path).counted_findings())


@pytest.mark.parametrize("portco", ["MortgageCo", "HMDA_GA"])
def test_clean_packs_have_no_finding_and_perfect_scores(portco: str) -> None:
    ev = grade_document(RUN / f"exit_proof_pack_{portco}.json")
    assert ev.counted_findings() == []
    assert ev.scores.model_dump() == {
        "citation_accuracy": 1.0,
        "hallucination_rate": 0.0,
        "coverage": 1.0,
        "consistency": 1.0,
    }
    assert ev.totals["opps_in_source"] == ev.totals["opps_addressed"] == 3
    assert ev.totals["derivations_total"] == ev.totals["derivations_ok"] > 0


def test_etelequote_pack_repeats_the_shape_b_defects_in_data_and_prose() -> None:
    ev = grade_document(RUN / "exit_proof_pack_eTeleQuote.json")
    found = ev.counted_findings()
    loss = [f for f in found if f.field and f.field.endswith("current_loss_usd_annual")]
    assert len(loss) == 5 and {f.kind for f in loss} == {DocFindingKind.FIELD_CONTRADICTS_SOURCE}
    first = loss[0]
    assert first.raw == "0.0" and first.expected == -87655.85
    assert "current_outcome_usd_annual" in (first.expected_path or "")
    # the prose "$0 of current annual loss": ungrounded, its expected value the current
    # outcome, as the memo grader says; not accepted by the projected outcome that is 0 (a
    # zero grounds only in the role it claims) and not called a wrong quantity for it either
    prose = [f for f in found if f.raw == "$0"]
    assert len(prose) == 10 and {f.kind for f in prose} == {DocFindingKind.UNGROUNDED_FIGURE}
    assert {f.expected for f in prose} >= {-87655.85}
    assert all("current_outcome_usd_annual" in (f.expected_path or "") for f in prose)
    assert Counter(f.kind.value for f in found) == {
        "field_contradicts_source": 10,  # current loss 0.0 and persistence score 0.0, x5
        "ungrounded_figure": 20,  # $0 and "0.00" persistence in methodology and rationale, x5
        "missing_value": 5,  # the empty quoted action
        "broken_derivation": 15,  # checklist boxes derived from the wrong values
    }
    assert ev.scores.coverage == 1.0 and ev.scores.consistency == 1.0


def test_ddq_finds_q06_loss_and_q05_structural_count() -> None:
    ev = grade_document(RUN / "ddq_response_Bolnet_Capital_Partners_I.json")
    found = {(f.item_id, f.raw): f for f in ev.counted_findings()}
    q06 = found[("Q06_MRM_COUNTERFACTUAL", "$-990.9M")]
    assert q06.kind is DocFindingKind.WRONG_AGGREGATE
    assert q06.expected_path is not None
    assert q06.expected_path.startswith("sum of current outcome over 52 opportunities in 16")
    assert q06.expected_path.endswith("= \u2212$1.54B")
    q05 = found[("Q05_MRM_VALIDATION", "36")]
    assert q05.kind is DocFindingKind.WRONG_AGGREGATE and q05.expected == 52
    # the median of 0.81 counts the shape-B maps' missing scores as 0: also a wrong aggregate
    assert found[("Q05_MRM_VALIDATION", "0.81")].expected == 1.0
    assert set(found) == {
        ("Q06_MRM_COUNTERFACTUAL", "$-990.9M"),
        ("Q05_MRM_VALIDATION", "36"),
        ("Q05_MRM_VALIDATION", "0.81"),
    }
    assert ev.scores.coverage == 1.0 and ev.scores.hallucination_rate == 0.0


def test_red_flags_miss_the_27_percent_partner_and_mislabel_florida() -> None:
    ev = grade_document(RUN / "cim_redflags_harbor_ridge_10k.json")
    found = ev.counted_findings()
    assert [(f.kind.value, f.item_id) for f in found] == [
        ("wrong_flag_type", "flag_05"),
        ("uncovered_disclosure", None),
    ]
    florida = next(c for c in ev.checks if c.what == "flag" and c.item_id == "flag_05")
    assert not florida.ok and florida.raw == "customer_concentration"
    uncovered = found[1]
    assert "27%" in uncovered.raw and "Item 1A" in (uncovered.field or "")
    # the 5 excerpts are verbatim at their stated item and paragraph
    assert ev.totals["excerpts_located"] == ev.totals["excerpts_total"] == 5
    assert ev.scores.citation_accuracy == 1.0 and ev.scores.consistency == 1.0
    assert (ev.totals["disclosures_flagged"], ev.totals["disclosures_in_filing"]) == (4, 5)


GENERATED_CLEAN = [
    *(
        GEN / "finance_output" / f"exit_proof_pack_{p}.json"
        for p in [
            "DCMortgage",
            "HMDA_AZ",
            "HMDA_DC",
            "HMDA_DE",
            "HMDA_MA",
            "midwest_lender",
            "mountain_lender",
            "northeast_lender",
            "pacific_lender",
            "southeast_lender",
        ]
    ),
    GEN / "finance_output" / "cim_redflags_cedar_point_10k.json",
    GEN / "kb_a" / "ddq_response_Cedar_Growth_Fund_II.json",
]


@pytest.mark.parametrize("path", GENERATED_CLEAN, ids=lambda p: p.name)
def test_documents_the_producer_made_from_other_books_are_clean(path: Path) -> None:
    assert [f.message for f in grade_document(path).counted_findings()] == []


@pytest.mark.parametrize("portco", ["SaaSCo", "UILender", "UIMortgage"])
def test_generated_shape_b_packs_carry_the_same_defects(portco: str) -> None:
    found = kinds(GEN / "finance_output" / f"exit_proof_pack_{portco}.json")
    assert found["field_contradicts_source"] >= 2 and found["missing_value"] >= 1


def test_bluefin_red_flags_natural_defects() -> None:
    ev = grade_document(GEN / "finance_output" / "cim_redflags_bluefin_health_10k.json")
    found = ev.counted_findings()
    assert [f.kind.value for f in found].count("wrong_flag_type") == 1
    uncovered = sorted(
        f.message.split(" discloses ")[1].split(" and ")[0]
        for f in found
        if f.kind is DocFindingKind.UNCOVERED_DISCLOSURE
    )
    assert uncovered == ["auditor change", "going concern", "related party", "restatement"]


def test_kb_b_ddq_shape_b_defects() -> None:
    ev = grade_document(GEN / "kb_b" / "ddq_response_Harbor_Lending_Partners_III.json")
    assert sorted((f.item_id, f.raw) for f in ev.counted_findings()) == [
        ("Q05_MRM_VALIDATION", "0.81"),
        ("Q05_MRM_VALIDATION", "12"),
        ("Q06_MRM_COUNTERFACTUAL", "$-923.5M"),
    ]


def test_kinds_are_detected_from_names_and_keys(tmp_path: Path) -> None:
    ev = grade_document(RUN / "exit_proof_pack_MortgageCo.json")
    assert ev.kind is DocumentKind.EXIT_PROOF_PACK and ev.document_id == "MortgageCo"
    renamed = tmp_path / "whatever.json"
    renamed.write_bytes((RUN / "cim_redflags_harbor_ridge_10k.json").read_bytes())
    inputs = tmp_path.parent / "inputs"
    inputs.mkdir(exist_ok=True)
    (inputs / "harbor_ridge_10k.htm").write_bytes(
        (CORPUS / "producer_run" / "inputs" / "harbor_ridge_10k.htm").read_bytes()
    )
    assert grade_document(renamed).kind is DocumentKind.CIM_REDFLAGS


def test_granite_peak_product_share_labelled_customer_concentration() -> None:
    ev = grade_document(GEN / "finance_output" / "cim_redflags_granite_peak_10k.json")
    assert [(f.kind.value, f.item_id) for f in ev.counted_findings()] == [
        ("wrong_flag_type", "flag_04")
    ]
    assert ev.scores.coverage == 1.0  # stated risks are flagged but are no disclosures to cover
