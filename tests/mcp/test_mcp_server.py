"""The MCP server through the official SDK's clients: in-process for each tool, and one real
stdio session against ``python -m pe_eval_core mcp``."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunFilters, RunStore
from pe_eval_core.mcp_server import ALLOWED_ROOTS_ENV, AllowedRootError, allowed_roots, build_server

ROOT = Path(__file__).resolve().parents[2]
DEMO_DATA = ROOT / "finance_output"
DEMO_EXPORTS = ROOT / ".mimic" / "exports"
SEED_KEYS = ["report_path", "json_path", "portco_id", "audience", "scores", "totals",
             "consistency_note"]  # fmt: skip


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(ALLOWED_ROOTS_ENV, raising=False)
    monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)


def copy_demo_data(dest: Path) -> Path:
    """The committed demo inputs only: a local run may have left eval_* outputs beside them,
    and a test that asserts nothing was written must not find those."""
    shutil.copytree(DEMO_DATA, dest, ignore=shutil.ignore_patterns("eval_*"))
    return dest


def make_root(base: Path) -> Path:
    """An allowed root holding copies of the demo memos and scenario files."""
    r = base / "root"
    copy_demo_data(r / "finance_output")
    shutil.copytree(DEMO_EXPORTS, r / "exports")
    return r


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_root(tmp_path)


def call(server: Any, fn: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await fn(client)

    return asyncio.run(go())


def tool(server: Any, name: str, **arguments: Any) -> Any:
    return call(server, lambda c: c.call_tool(name, arguments))


def test_lists_the_three_tools_with_their_arguments(root: Path) -> None:
    result = call(build_server([root], record=False), lambda c: c.list_tools())
    tools = {t.name: t for t in result.tools}
    assert sorted(tools) == [
        "eval_document",
        "eval_pe_output",
        "list_memo_pairs",
        "score_scenarios",
    ]
    assert tools["eval_pe_output"].input_schema["required"] == [
        "memo_json_path",
        "source_json_path",
    ]
    assert tools["score_scenarios"].input_schema["required"] == [
        "scenarios_path",
        "responses_path",
    ]
    assert "citation accuracy" in (tools["eval_pe_output"].description or "")


def test_eval_pe_output_returns_exactly_the_seed_dict_and_records_the_run(
    root: Path, tmp_path: Path
) -> None:
    from pe_eval_core.memo import grade_memo

    db = tmp_path / "h.sqlite"
    data = root / "finance_output"
    memo, source = data / "explain_MortgageCo_board.json", data / "dx_report_MortgageCo.json"
    result = tool(
        build_server([root], db=db),
        "eval_pe_output",
        memo_json_path=str(memo),
        source_json_path=str(source),
    )
    assert not result.is_error
    out = result.structured_content
    assert list(out) == SEED_KEYS
    assert json.loads(result.content[0].text) == out
    expected = grade_memo(memo, source)
    assert out == expected.seed_dict(data / "eval_MortgageCo_board.html",
                                     data / "eval_MortgageCo_board.json")  # fmt: skip
    assert out["scores"] == {
        "citation_accuracy": 1.0,
        "hallucination_rate": 0.0,
        "coverage": 1.0,
        "consistency": 1.0,
    }
    assert Path(out["report_path"]).is_file() and Path(out["json_path"]).is_file()
    [run] = RunStore(db).list_runs()
    assert (run.origin, run.portco_id, run.audience) == ("mcp", "MortgageCo", "board")


def test_list_memo_pairs(root: Path) -> None:
    result = tool(
        build_server([root], record=False), "list_memo_pairs", data_dir=str(root / "finance_output")
    )
    assert not result.is_error
    pairs = result.structured_content["pairs"]
    assert len(pairs) == 6
    assert {(p["portco_id"], p["audience"]) for p in pairs} >= {
        ("MortgageCo", "board"),
        ("southeast_lender", "operator"),
    }
    assert all(p["source_exists"] for p in pairs)


def test_score_scenarios_returns_summary_and_markdown_report(root: Path, tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    exports = root / "exports"
    result = tool(
        build_server([root], db=db),
        "score_scenarios",
        scenarios_path=str(exports / "mimic-scenarios.json"),
        responses_path=str(exports / "recorded-responses.json"),
        judge_verdicts_path=str(exports / "judge-verdicts.json"),
    )
    assert not result.is_error, result.content[0].text
    summary = result.structured_content["summary"]
    assert (summary["total"], summary["passed"], summary["failed"], summary["errors"]) == (
        19,
        15,
        3,
        1,
    )
    tiers = {t["tier"]: (t["passed"], t["total"]) for t in summary["by_tier"]}
    assert tiers == {"smoke": (6, 6), "functional": (6, 8), "adversarial": (3, 5)}
    assert "adversarial" in summary["conclusion"]
    assert summary["target_label"] == "recorded:recorded-responses.json"
    assert summary["errors_apart"] == "1 error: " + summary["errors_apart"].split(": ", 1)[1]
    stats = {t["tier"]: t for t in summary["statistics"]["tiers"]}
    assert stats["smoke"]["passes"] == 6 and stats["smoke"]["low"] < 1.0 <= stats["smoke"]["high"]
    assert summary["statistics"]["repeats"] == 1 and summary["warnings"] == []
    report = result.structured_content["report_markdown"]
    assert report.startswith("## Mimic Eval Report")
    assert "**Scenarios:** 19  |  **Passed:** 15" in report
    history = RunStore(db)
    assert history.get_run(summary["history_run_id"]).summary.n_passed == 15
    assert history.count_runs(RunFilters(kind="scenarios")) == 1


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error
    data = result.structured_content
    assert data["diagnosis"] in result.content[0].text and data["fix"] in result.content[0].text
    return data


def test_paths_outside_the_allowed_roots_are_refused(root: Path, tmp_path: Path) -> None:
    outside = copy_demo_data(tmp_path / "outside")
    server = build_server([root], record=False)
    inside_source = str(root / "finance_output" / "dx_report_MortgageCo.json")
    for memo in (
        str(outside / "explain_MortgageCo_board.json"),
        str(root / ".." / "outside" / "explain_MortgageCo_board.json"),
        "/etc/passwd",
    ):
        err = _error(
            tool(server, "eval_pe_output", memo_json_path=memo, source_json_path=inside_source)
        )
        assert err["error"] == "PathOutsideRootError"
        assert "outside" in err["message"] and err["fix"].startswith("Pass a path inside")
    # a symlink inside the root that points outside is refused too
    (root / "sneaky").symlink_to(outside, target_is_directory=True)
    err = _error(tool(server, "list_memo_pairs", data_dir=str(root / "sneaky")))
    assert err["error"] == "PathOutsideRootError"
    err = _error(
        tool(
            server,
            "score_scenarios",
            scenarios_path="/etc/hosts",
            responses_path=str(root / "exports" / "recorded-responses.json"),
        )
    )
    assert err["error"] == "PathOutsideRootError"
    assert not list(outside.glob("eval_*"))  # nothing was written outside


def test_the_tests_pass_on_a_checkout_holding_eval_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkout where the demo was run has eval_<portco>_<audience>.html/.json beside the
    # inputs; the copies these tests make must leave them out, or "nothing was written
    # outside" fails for a reason that has nothing to do with the server.
    polluted = tmp_path / "checkout" / "finance_output"
    shutil.copytree(DEMO_DATA, polluted)
    (polluted / "eval_MortgageCo_board.html").write_text("<html>old</html>", encoding="utf-8")
    (polluted / "eval_MortgageCo_board.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "DEMO_DATA", polluted)
    assert polluted == DEMO_DATA
    copied = copy_demo_data(tmp_path / "copy")
    assert not list(copied.glob("eval_*")) and list(copied.glob("explain_*"))
    work = tmp_path / "work"
    work.mkdir()
    test_paths_outside_the_allowed_roots_are_refused(make_root(work), work)


def test_tool_errors_name_the_tool_argument_not_a_cli_flag(root: Path) -> None:
    server = build_server([root], record=False)
    err = _error(
        tool(
            server,
            "score_scenarios",
            scenarios_path=str(root / "missing.json"),
            responses_path=str(root / "exports" / "recorded-responses.json"),
        )
    )
    assert err["input"] == "scenarios" and err["argument"] == "scenarios_path"
    assert "--" not in err["fix"].replace("--export", "")
    outside = _error(tool(server, "list_memo_pairs", data_dir="/etc"))
    assert outside["argument"] == "data_dir"


def test_missing_and_malformed_files_carry_the_seed_diagnosis_and_fix(root: Path) -> None:
    server = build_server([root], record=False)
    data = root / "finance_output"
    err = _error(
        tool(
            server,
            "eval_pe_output",
            memo_json_path=str(data / "explain_Nope_board.json"),
            source_json_path=str(data / "dx_report_MortgageCo.json"),
        )
    )
    assert err["error"] == "MemoNotFoundError"
    assert err["fix"] == "Run explain_decision first to produce the memo sidecar."
    err = _error(
        tool(
            server,
            "eval_pe_output",
            memo_json_path=str(data / "explain_MortgageCo_board.json"),
            source_json_path=str(data / "dx_report_Nope.json"),
        )
    )
    assert err["error"] == "SourceNotFoundError"
    assert err["fix"] == "Run diagnose_decisions to produce the source."
    (data / "explain_MortgageCo_board.json").write_text("{ not json", encoding="utf-8")
    err = _error(
        tool(
            server,
            "eval_pe_output",
            memo_json_path=str(data / "explain_MortgageCo_board.json"),
            source_json_path=str(data / "dx_report_MortgageCo.json"),
        )
    )
    assert err["error"] == "MalformedMemoError" and "line 1" in err["message"]
    err = _error(
        tool(
            server,
            "score_scenarios",
            scenarios_path=str(root / "exports" / "missing.json"),
            responses_path=str(root / "exports" / "recorded-responses.json"),
        )
    )
    assert err["diagnosis"] and err["fix"]
    assert not list(data.glob("eval_MortgageCo_board.*"))  # no half-written output


def test_allowed_roots_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.chdir(a)
    assert allowed_roots() == [a.resolve()]
    monkeypatch.setenv(ALLOWED_ROOTS_ENV, f"{a}:{b}")
    assert allowed_roots() == [a.resolve(), b.resolve()]
    assert allowed_roots([str(b)]) == [b.resolve()]  # the flag wins over the environment
    with pytest.raises(AllowedRootError):
        allowed_roots([str(tmp_path / "missing")])
    assert main(["mcp", "--allow-root", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_stdio_session_against_the_real_command(root: Path, tmp_path: Path) -> None:
    """`python -m pe_eval_core mcp` as an MCP client would launch it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(root), "--no-record"],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PE_EVAL_HOME": str(tmp_path)},
    )
    data = root / "finance_output"

    async def session(client: Client) -> tuple[list[str], Any]:
        names = sorted(t.name for t in (await client.list_tools()).tools)
        result = await client.call_tool(
            "eval_pe_output",
            {
                "memo_json_path": str(data / "explain_southeast_lender_operator.json"),
                "source_json_path": str(data / "dx_report_southeast_lender.json"),
            },
        )
        return names, result

    names, result = call(params, session)
    assert names == ["eval_document", "eval_pe_output", "list_memo_pairs", "score_scenarios"]
    assert not result.is_error
    assert result.structured_content["scores"]["coverage"] == 0.75
    assert result.structured_content["totals"]["opps_addressed"] == 3
