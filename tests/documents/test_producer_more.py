"""The producer's documents from other books (tests/corpus/producer_more): every counted
finding is one its README and known_defects.json list (checked by hand), and each listed
defect is found, at its place; the clean documents have none."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from pe_eval_core.documents import grade_document

MORE = Path(__file__).resolve().parents[1] / "corpus" / "producer_more"
KNOWN: dict[str, dict] = json.loads((MORE / "known_defects.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_findings_are_exactly_the_known_defects(name: str) -> None:
    known = KNOWN[name]
    found = grade_document(MORE / name).counted_findings()
    assert dict(Counter(f.kind.value for f in found)) == known["counts"]
    if "findings" in known:
        got = sorted((f.kind.value, f.item_id or f.field) for f in found)
        assert got == sorted((k["kind"], k["where"]) for k in known["findings"])


def test_the_folder_has_clean_documents_of_every_kind() -> None:
    clean = Counter(v["kind"] for v in KNOWN.values() if not v["counts"])
    assert clean["exit_proof_pack"] >= 7 and clean["ddq_response"] >= 1
    flagged = {k for k, v in KNOWN.items() if v["kind"] == "cim_redflags"}
    assert len(flagged) == 2  # both new filings carry natural producer defects


def test_a_structured_field_copied_from_another_claim_contradicts_its_own(tmp_path) -> None:
    """A pack field equal to another opportunity's value is wrong for its own claim: not
    cited (a prose figure of another opportunity is cited but mis-attributed, as in a memo)."""
    import shutil

    src = MORE.parent / "producer_generated" / "finance_output"
    for name in ("exit_proof_pack_southeast_lender.json", "dx_report_southeast_lender.json"):
        shutil.copy(src / name, tmp_path / name)
    pack = tmp_path / "exit_proof_pack_southeast_lender.json"
    data = json.loads(pack.read_text(encoding="utf-8"))
    claims = data["provenance_ledger"]
    claims[0]["n_rows"] = claims[1]["n_rows"]
    pack.write_text(json.dumps(data), encoding="utf-8")
    ev = grade_document(pack)
    [f] = [f for f in ev.counted_findings() if f.field == "provenance_ledger[0].n_rows"]
    assert f.kind.value == "field_contradicts_source" and f.other_item_id == claims[1]["claim_id"]
    assert "its own is" in f.message
    assert ev.scores.citation_accuracy < 1.0
