"""The document graders on every surface: `pe-eval doc`, `memo --all`, the MCP tool
``eval_document`` (path-confined like ``eval_pe_output``) and the run history."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunFilters, RunStore
from pe_eval_core.mcp_server import build_server

RUN = Path(__file__).resolve().parents[1] / "corpus" / "producer_run"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
    shutil.copytree(RUN, tmp_path / "root" / "run")
    return tmp_path / "root" / "run" / "finance_output"


def test_doc_prints_scores_and_findings(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doc", str(data / "cim_redflags_harbor_ridge_10k.json")])
    out = capsys.readouterr().out
    assert code == 1  # not ready: the exit status follows the verdict
    assert "Coverage:                80%" in out and "uncovered_disclosure" in out
    assert "Verdict: Not ready: 2 issues" in out
    assert "  - Disclosure no flag covers: Item 1A ¶0 discloses customer concentration" in out
    assert (data / "eval_cim_redflags_harbor_ridge_10k.html").is_file()


def test_doc_json_has_the_seed_shape_and_every_finding(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["doc", str(data / "ddq_response_Bolnet_Capital_Partners_I.json"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["kind"] == "ddq_response"
    assert out["verdict"]["headline"] == "Not ready: 3 issues"
    assert out["threshold_failures"] == ["Citation accuracy 91.7% is below the required 100%"]
    assert {"report_path", "json_path", "scores", "totals", "consistency_note"} <= set(out)
    counted = [f for f in out["findings"] if f["dimension"] != "info"]
    assert {(f["item_id"], f["raw"], f["kind"]) for f in counted} == {
        ("Q05_MRM_VALIDATION", "0.81", "wrong_aggregate"),
        ("Q05_MRM_VALIDATION", "36", "wrong_aggregate"),
        ("Q06_MRM_COUNTERFACTUAL", "$-990.9M", "wrong_aggregate"),
    }
    assert all(f["field"] == "answers[4].answer" for f in counted if f["raw"] == "36")
    assert isinstance(out["history_run_id"], int)


def test_doc_grades_a_memo_through_the_memo_grader(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["doc", str(data / "explain_HMDA_GA_board.json"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["kind"] == "memo" and out["portco_id"] == "HMDA_GA"
    assert out["report_path"].endswith("eval_HMDA_GA_board.html")


def test_doc_thresholds_and_errors_set_the_exit_code(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = str(data / "exit_proof_pack_eTeleQuote.json")
    assert main(["doc", pack, "--fail-under", "citation=1.0"]) == 1
    assert "FAIL: Citation accuracy" in capsys.readouterr().out
    red = str(data / "cim_redflags_harbor_ridge_10k.json")
    assert main(["doc", red, "--fail-under", "coverage=0.8", "--max-hallucination", "0.2"]) == 0
    assert "Verdict: Ready to circulate" in capsys.readouterr().out
    assert main(["doc", str(data / "dx_report_HMDA_GA.json")]) == 2
    err = capsys.readouterr().err
    assert "not a document pe-eval grades" in err and "--kind" in err
    assert main(["doc", str(data / "missing.json")]) == 2


def test_doc_all_and_memo_all_grade_every_kind(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doc", str(data), "--all", "--json"]) == 1  # three documents not ready
    rows = json.loads(capsys.readouterr().out)["documents"]
    assert sorted(r["kind"] for r in rows) == [
        "cim_redflags", "ddq_response", "exit_proof_pack", "exit_proof_pack", "exit_proof_pack",
    ]  # fmt: skip
    ready = {r["document_id"]: r["verdict"]["headline"] for r in rows}
    assert ready == {
        "HMDA_GA": "Ready to circulate",
        "MortgageCo": "Ready to circulate",
        "eTeleQuote": "Not ready: 50 issues",
        "Bolnet Capital Partners I": "Not ready: 3 issues",
        "harbor_ridge_10k": "Not ready: 2 issues",
    }
    assert main(["memo", "--all", "--data-dir", str(data), "--jobs", "1", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert len(out["memos"]) == 32 and len(out["documents"]) == 5
    assert all("verdict" in m for m in out["memos"])
    assert [d["verdict"]["headline"] for d in out["documents"]] == list(ready.values())
    assert "5 other documents: 5 graded, 2 ready to circulate, 3 not ready" in out["summary"]
    # text: every memo and every other document ends its line with its verdict
    assert main(["memo", "--all", "--data-dir", str(data), "--jobs", "1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(ln.startswith("HMDA_GA/board") and ln.endswith("Ready to circulate") for ln in lines)
    assert any(
        ln.startswith("cim_redflags/harbor_ridge_10k") and ln.endswith("Not ready: 2 issues")
        for ln in lines
    )


def test_documents_are_recorded_in_history(data: Path) -> None:
    main(["doc", str(data / "exit_proof_pack_eTeleQuote.json")])
    runs = RunStore().list_runs(RunFilters(kind="memo"))
    assert [(r.portco_id, r.audience) for r in runs] == [("eTeleQuote", "exit_proof_pack")]
    assert runs[0].citation_accuracy is not None and runs[0].citation_accuracy < 1.0


def _tool(server: Any, **arguments: Any) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool("eval_document", arguments)

    return asyncio.run(go())


def test_mcp_eval_document_grades_a_pack(data: Path) -> None:
    root = data.parents[1]
    result = _tool(
        build_server([root], record=False), document_path=str(data / "exit_proof_pack_HMDA_GA.json")
    )
    assert not result.is_error
    body = result.structured_content
    assert body["kind"] == "exit_proof_pack" and body["scores"]["citation_accuracy"] == 1.0
    assert body["findings"] == []
    assert body["verdict"]["headline"] == "Ready to circulate"
    assert "Verdict: Ready to circulate" in result.content[1].text


def test_mcp_eval_document_is_confined(data: Path, tmp_path: Path) -> None:
    root = data  # the red-flag file's filing lives in ../inputs: outside this root
    server = build_server([root], record=False)
    outside = _tool(server, document_path=str(tmp_path / "elsewhere.json"))
    assert outside.is_error and outside.structured_content["error"] == "PathOutsideRootError"
    named = _tool(server, document_path=str(data / "cim_redflags_harbor_ridge_10k.json"))
    assert named.is_error and named.structured_content["argument"].startswith("source")
    assert not (data / "eval_cim_redflags_harbor_ridge_10k.json").exists()


def test_the_gate_checks_every_document_kind(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["gate", "--data-dir", str(data), "--memo-thresholds", "coverage=1.0"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  cim_redflags/cim_redflags_harbor_ridge_10k: coverage = 0.8" in out
    assert "exit_proof_pack/exit_proof_pack_MortgageCo" not in out.split("FAIL")[-1]


def test_the_gate_checks_a_folder_of_documents_only(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder with packs and their maps but no memo is gated on its documents."""
    only = tmp_path / "only"
    only.mkdir()
    for path in data.glob("*HMDA_GA.*"):
        if not path.name.startswith("explain_"):
            shutil.copy(path, only / path.name)
    for path in data.glob("bx_report_*.json"):
        shutil.copy(path, only / path.name)
    code = main(["gate", "--data-dir", str(only), "--max-misattributed", "0", "--no-record"])
    out = capsys.readouterr().out
    assert "DOC   exit_proof_pack/exit_proof_pack_HMDA_GA: Ready to circulate" in out
    assert code == 0, out
