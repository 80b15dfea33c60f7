"""`pe-eval doc` on hostile input, as the memo path handles it: bad JSON, a wrong kind, files
over the size limit, symlinks, and sources named outside the document's folder. Each is exit 2
with a typed error naming the input or field, never a traceback, nothing written, and nothing
read from outside the document's folder (and the producer's ``../inputs``), whose paths and
contents are never quoted back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.documents import grade_document
from pe_eval_core.errors import DocumentSourceError

RUN = Path(__file__).resolve().parents[1] / "corpus" / "producer_run"
MORE = Path(__file__).resolve().parents[1] / "corpus" / "producer_more"
SECRET = "SECRET-7731-do-not-quote"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A copy of the producer folder (documents in finance_output, the filing in inputs) and,
    beside it, a folder the documents must never read."""
    shutil.copytree(RUN, tmp_path / "run", ignore=shutil.ignore_patterns("eval_*"))
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "harbor_ridge_10k.htm").write_text(f"<p>Item 7. {SECRET} " + "x" * 300 + "</p>")
    dx = json.loads((RUN / "finance_output" / "dx_report_HMDA_GA.json").read_text())
    dx["ebitda_baseline_usd"] = 7731.0
    (secret / "dx_report_HMDA_GA.json").write_text(json.dumps(dx))
    return tmp_path / "run" / "finance_output"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def no_pair(folder: Path, stem: str) -> None:
    assert not (folder / f"eval_{stem}.html").exists()
    assert not (folder / f"eval_{stem}.json").exists()


def test_bad_json_names_the_document_and_where(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = data / "exit_proof_pack_Bad.json"
    bad.write_text('{"portco_id": "Bad", "provenance_ledger": [', encoding="utf-8")
    code, _, err = run(["doc", str(bad)], capsys)
    assert code == 2 and "malformed" in err.lower() and "line 1" in err
    bad.write_bytes(b'{"portco_id": "\xff"}')
    code, _, err = run(["doc", str(bad)], capsys)
    assert code == 2 and "UTF-8" in err
    bad.write_text('{"portco_id": NaN, "provenance_ledger": []}', encoding="utf-8")
    code, _, err = run(["doc", str(bad)], capsys)
    assert code == 2
    no_pair(data, "exit_proof_pack_Bad")


def test_a_wrong_kind_is_refused_naming_the_kind(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = str(data / "exit_proof_pack_HMDA_GA.json")
    code, _, err = run(["doc", pack, "--kind", "ddq_response"], capsys)
    assert code == 2 and "is a exit_proof_pack" in err and "--kind" in err
    code, _, err = run(["doc", str(data / "dx_report_HMDA_GA.json")], capsys)
    assert code == 2 and "not a document pe-eval grades" in err
    code, _, err = run(["doc", str(data)], capsys)  # a folder without --all
    assert code == 2 and "directory" in err
    no_pair(data, "exit_proof_pack_HMDA_GA")


def test_files_over_the_size_limit_are_refused_before_reading(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", "20000")
    big = data / "exit_proof_pack_Big.json"
    big.write_text(json.dumps({"portco_id": "Big", "pad": "y" * 30_000}), encoding="utf-8")
    code, _, err = run(["doc", str(big)], capsys)
    assert code == 2 and "limit" in err and "PE_EVAL_MAX_INPUT_BYTES" in err
    # a document under the limit whose filing is over it: the source is named
    filing = data.parent / "inputs" / "harbor_ridge_10k.htm"
    filing.write_text(filing.read_text(encoding="utf-8") + "<p>" + "z" * 30_000 + "</p>")
    code, _, err = run(["doc", str(data / "cim_redflags_harbor_ridge_10k.json")], capsys)
    assert code == 2 and "limit" in err
    no_pair(data, "cim_redflags_harbor_ridge_10k")


def test_a_source_link_leading_outside_is_refused_naming_the_field(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "dx_report_HMDA_GA.json").unlink()
    (data / "dx_report_HMDA_GA.json").symlink_to(
        data.parents[1] / "secret" / "dx_report_HMDA_GA.json"
    )
    code, out, err = run(["doc", str(data / "exit_proof_pack_HMDA_GA.json"), "--json"], capsys)
    assert code == 2 and "source_opportunity_map" in err and "outside" in err
    assert "secret" not in out + err and "7731" not in out + err
    no_pair(data, "exit_proof_pack_HMDA_GA")


def test_a_linked_document_is_skipped_by_a_folder_grading_and_named(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "exit_proof_pack_Linked.json").symlink_to(data / "exit_proof_pack_HMDA_GA.json")
    code, out, err = run(["doc", str(data), "--all", "--json"], capsys)
    assert "skipped exit_proof_pack_Linked.json: a link" in err
    names = [
        Path(r["report_path"]).name for r in json.loads(out)["documents"] if "report_path" in r
    ]
    assert "eval_exit_proof_pack_Linked.html" not in names and code == 1  # 3 not ready


@pytest.mark.parametrize(
    "named",
    [
        "file://{secret}/harbor_ridge_10k.htm",
        "{secret}/harbor_ridge_10k.htm",
        "../../secret/harbor_ridge_10k.htm",
    ],
)
def test_a_filing_named_outside_the_folder_is_never_read_nor_quoted(
    data: Path, capsys: pytest.CaptureFixture[str], named: str
) -> None:
    """source_url names a filing outside: only its base name is looked up, beside the document
    and in ../inputs (where the real filing is); the outside file is never read."""
    doc = data / "cim_redflags_harbor_ridge_10k.json"
    body = json.loads(doc.read_text(encoding="utf-8"))
    body["source_url"] = named.format(secret=data.parents[1] / "secret")
    doc.write_text(json.dumps(body), encoding="utf-8")
    code, out, err = run(["doc", str(doc), "--json"], capsys)
    assert SECRET not in out + err and "secret" not in out + err
    assert code == 1 and json.loads(out)["verdict"]["headline"] == "Not ready: 2 issues"
    # with no filing of that name where the document may read, the field is named, not quoted
    (data.parent / "inputs" / "harbor_ridge_10k.htm").unlink()
    code, out, err = run(["doc", str(doc)], capsys)
    assert code == 2 and "source_url" in err
    assert SECRET not in out + err and "secret" not in out + err


def test_a_knowledge_base_named_outside_is_not_read(tmp_path: Path) -> None:
    """knowledge_base_dir naming another folder (another machine's absolute path, or a
    folder outside with files of its own): the DDQ's own folder is its knowledge base."""
    kb = tmp_path / "kb_d"
    shutil.copytree(MORE / "kb_d", kb)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    dx = json.loads((kb / "dx_report_HMDA_AZ.json").read_text(encoding="utf-8"))
    for opp in dx["opportunities"]:
        opp["projected_impact_usd_annual"] = 7731.0
    (outside / "dx_report_HMDA_AZ.json").write_text(json.dumps(dx))
    doc = kb / "ddq_response_Prairie_Home_Lending_Fund_I.json"
    body = json.loads(doc.read_text(encoding="utf-8"))
    for named in (str(outside), "../elsewhere", "/home/producer/finance_output"):
        body["knowledge_base_dir"] = named
        doc.write_text(json.dumps(body), encoding="utf-8")
        ev = grade_document(doc)
        assert ev.counted_findings() == [], named  # graded against its own folder: clean
        assert "7731" not in ev.model_dump_json()


def test_a_knowledge_base_file_linking_outside_is_not_read(tmp_path: Path) -> None:
    kb = tmp_path / "kb_d"
    shutil.copytree(MORE / "kb_d", kb)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    dx = json.loads((kb / "dx_report_HMDA_AZ.json").read_text(encoding="utf-8"))
    dx["portco_id"] = "SECRETCO"
    (outside / "x.json").write_text(json.dumps(dx))
    (kb / "dx_report_HMDA_AZ.json").unlink()
    (kb / "dx_report_HMDA_AZ.json").symlink_to(outside / "x.json")
    ev = grade_document(kb / "ddq_response_Prairie_Home_Lending_Fund_I.json")
    assert "SECRETCO" not in ev.model_dump_json()
    assert any(f.kind.value == "hallucinated_artifact" for f in ev.counted_findings())


def test_a_named_source_path_is_confined_even_through_the_api(data: Path) -> None:
    doc = data / "exit_proof_pack_HMDA_GA.json"
    body = json.loads(doc.read_text(encoding="utf-8"))
    body["source_opportunity_map"] = str(data.parents[1] / "secret" / "dx_report_HMDA_GA.json")
    body["portco_id"] = "../secret/HMDA_GA"
    doc.write_text(json.dumps(body), encoding="utf-8")
    (data / "dx_report_HMDA_GA.json").unlink()
    with pytest.raises(DocumentSourceError) as err:
        grade_document(doc)
    assert "source_opportunity_map" in err.value.message and "secret" not in err.value.message
