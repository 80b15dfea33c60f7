"""The scorecard pair written next to a document (atomic, never through a symlink), the seed's
return shape with the kind's totals, the HTML escaping, and clear errors on bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.documents import (
    eval_document,
    find_documents,
    grade_document,
    load_document_evaluation,
)
from pe_eval_core.errors import (
    DocumentKindError,
    DocumentNotFoundError,
    DocumentSchemaError,
    DocumentSourceError,
    MalformedDocumentError,
    OutputWriteError,
)

RUN = Path(__file__).resolve().parents[1] / "corpus" / "producer_run"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copytree(RUN, tmp_path / "run")
    return tmp_path / "run" / "finance_output"


def test_eval_document_writes_the_pair_and_returns_the_seed_shape(folder: Path) -> None:
    out = eval_document(folder / "cim_redflags_harbor_ridge_10k.json")
    assert set(out) == {
        "report_path", "json_path", "kind", "document_id", "scores", "totals",
        "consistency_note",
    }  # fmt: skip
    assert out["report_path"].endswith("eval_cim_redflags_harbor_ridge_10k.html")
    seed_totals = {
        "figures_total", "figures_cited", "entities_total", "entities_grounded",
        "opps_in_source", "opps_addressed",
    }  # fmt: skip
    assert seed_totals <= set(out["totals"]) and "excerpts_located" in out["totals"]
    assert list(out["scores"]) == [
        "citation_accuracy", "hallucination_rate", "coverage", "consistency"
    ]  # fmt: skip
    ev = load_document_evaluation(out["json_path"])
    assert ev.report_path == out["report_path"]
    html = Path(out["report_path"]).read_text(encoding="utf-8")
    assert "Not ready: 2 issues" in html and "Disclosure no flag covers" in html
    assert ev.html_sha256 is not None


def test_the_html_escapes_what_the_document_says(folder: Path) -> None:
    path = folder / "exit_proof_pack_MortgageCo.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["provenance_ledger"][0]["segment_label"] = "<script>alert(1)</script> × 360 months"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = eval_document(path)
    html = Path(out["report_path"]).read_text(encoding="utf-8")
    assert "<script>alert" not in html and "&lt;script&gt;" in html


def test_a_symlinked_scorecard_is_refused_and_nothing_is_written(folder: Path) -> None:
    target = folder / "elsewhere.html"
    target.write_text("keep", encoding="utf-8")
    (folder / "eval_exit_proof_pack_HMDA_GA.html").symlink_to(target)
    with pytest.raises(OutputWriteError):
        eval_document(folder / "exit_proof_pack_HMDA_GA.json")
    assert target.read_text(encoding="utf-8") == "keep"
    assert not (folder / "eval_exit_proof_pack_HMDA_GA.json").exists()


def test_find_documents_lists_every_kind_and_skips_scorecards(folder: Path) -> None:
    eval_document(folder / "exit_proof_pack_HMDA_GA.json")
    found = find_documents(folder)
    kinds = {k.value for k, _ in found}
    assert kinds == {"memo", "exit_proof_pack", "ddq_response", "cim_redflags"}
    assert not any(p.name.startswith("eval_") for _, p in found)
    assert sum(1 for k, _ in found if k.value == "memo") == 32


def test_bad_inputs_are_typed_errors_naming_the_input(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(DocumentNotFoundError):
        grade_document(tmp_path / "exit_proof_pack_X.json")
    broken = tmp_path / "exit_proof_pack_X.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(MalformedDocumentError) as err:
        grade_document(broken)
    assert err.value.input == "document"
    broken.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(DocumentSchemaError):
        grade_document(broken)
    other = tmp_path / "notes.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(DocumentKindError):
        grade_document(other)
    with pytest.raises(DocumentKindError):
        grade_document(folder / "exit_proof_pack_HMDA_GA.json", kind="board_memo")
    with pytest.raises(DocumentKindError):
        grade_document(folder / "explain_HMDA_GA_board.json")
    lonely = tmp_path / "exit_proof_pack_Lonely.json"
    lonely.write_text(json.dumps({"portco_id": "Lonely", "provenance_ledger": []}))
    with pytest.raises(DocumentSourceError) as missing:
        grade_document(lonely)
    assert missing.value.input == "source"
    ledger = tmp_path / "exit_proof_pack_HMDA_GA.json"
    data = json.loads((folder / "exit_proof_pack_HMDA_GA.json").read_text(encoding="utf-8"))
    data["provenance_ledger"] = {"not": "a list"}
    ledger.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DocumentSchemaError) as schema:
        grade_document(ledger, source=folder / "dx_report_HMDA_GA.json")
    assert "provenance_ledger" in str(schema.value)


def test_an_explicit_source_overrides_the_named_one(folder: Path) -> None:
    ev = grade_document(
        folder / "exit_proof_pack_HMDA_GA.json", source=folder / "dx_report_HMDA_AZ.json"
    )
    assert ev.counted_findings() and ev.scores.citation_accuracy < 1.0
