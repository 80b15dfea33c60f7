"""A folder with unusable files still grades the rest and names each skipped file (issue 14,
class 7), on ``memo --list``, ``memo --all`` (text and JSON), ``gate --data-dir``, MCP
``list_memo_pairs`` over stdio, and the Portfolio page (AppTest).

The folder holds the six demo memos plus one file of each unusable kind: a name that is not
plain, a link out of the folder, a dangling link, a folder named like a memo, a file over the
size limit (lowered for the test), a malformed memo and a memo with a lone surrogate."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "finance_output"
GOOD = sorted(p.name for p in DATA.glob("explain_*.json"))
SKIPPED = {
    "explain_My Co_board.json": "file name holds characters",
    "explain_MortgageCo_lp.json": "outside the folder",
    "explain_Gone_board.json": "outside the folder",
    "explain_Dir_board.json": "a folder, not a file",
    "explain_Huge_board.json": "input file size limit",
}
UNGRADABLE = {"Broken/board": "malformed JSON", "HMDA_GA/x": "lone surrogate"}


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", "50000")
    d = tmp_path / "data"
    d.mkdir()
    for p in DATA.glob("*.json"):
        if not p.name.startswith("eval_"):
            shutil.copy(p, d / p.name)
    outside = tmp_path / "outside.json"
    shutil.copy(DATA / "explain_MortgageCo_board.json", outside)
    (d / "explain_My Co_board.json").write_text("{}")
    (d / "explain_MortgageCo_lp.json").symlink_to(outside)
    (d / "explain_Gone_board.json").symlink_to(tmp_path / "nowhere.json")
    (d / "explain_Dir_board.json").mkdir()
    (d / "explain_Huge_board.json").write_text(json.dumps({"portco_id": "Huge", "x": "y" * 60_000}))
    (d / "explain_Broken_board.json").write_text('{"portco_id": "Broken", "audience": "board", ')
    memo = json.loads((DATA / "explain_HMDA_GA_board.json").read_text())
    memo["audience"] = "x"
    memo["opportunities_explained"][0]["narrative"] = "\ud800"
    (d / "explain_HMDA_GA_x.json").write_text(json.dumps(memo))
    return d


def _run(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pe_eval_core", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def _names_every_skipped(text: str) -> None:
    for name, reason in SKIPPED.items():
        line = next((ln for ln in text.splitlines() if name in ln), None)
        assert line is not None and reason in line, (name, text)


def test_memo_list_names_the_skipped_and_lists_the_rest(folder):
    rc, out, err = _run("memo", "--list", "--data-dir", str(folder), cwd=folder.parent)
    assert rc == 0
    _names_every_skipped(err)
    for name in GOOD:
        assert name in out


def test_memo_all_grades_the_rest_naming_skipped_and_ungradable(folder):
    rc, out, err = _run("memo", "--all", "--jobs", "1", "--data-dir", str(folder),
                        cwd=folder.parent)  # fmt: skip
    assert rc == 2  # some memos could not be graded: an input problem, not a quality one
    _names_every_skipped(err)
    for memo, why in UNGRADABLE.items():
        assert any(memo in ln and "ERROR" in ln and why in ln for ln in out.splitlines()), out
    assert f"{len(GOOD) + 2} memos" in out and f"{len(GOOD)} graded" in out
    assert f"{len(SKIPPED)} files skipped" in out
    assert len(list(folder.glob("eval_*.json"))) == len(GOOD)
    rc, out, _ = _run("memo", "--all", "--json", "--jobs", "1", "--data-dir", str(folder),
                      cwd=folder.parent)  # fmt: skip
    doc = json.loads(out)
    assert {Path(s["path"]).name for s in doc["skipped"]} == set(SKIPPED)
    assert sum("scores" in r for r in doc["memos"]) == len(GOOD)


def test_gate_grades_the_rest_and_names_the_skipped(folder):
    rc, out, err = _run("gate", "--data-dir", str(folder), "--memo-thresholds", "citation=0.5",
                        cwd=folder.parent)  # fmt: skip
    assert rc == 2
    _names_every_skipped(err)
    lines = out.splitlines()
    # every good memo graded: its verdict line, and a check per dimension and mis-attribution
    assert sorted(line.split()[1].rstrip(":") for line in lines if line.startswith("MEMO")) == [
        n.removeprefix("explain_").removesuffix(".json").replace("_board", "/board")
        .replace("_operator", "/operator") for n in GOOD
    ]  # fmt: skip
    assert sum(line.startswith(("PASS", "FAIL")) for line in lines) == 5 * len(GOOD)


def test_mcp_list_memo_pairs_over_stdio(folder):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(folder), "--no-record"],
        cwd=str(folder),
        env={**{k: v for k, v in os.environ.items() if k.startswith(("PE_EVAL", "PATH"))},
             "PYTHONPATH": str(REPO)},
    )  # fmt: skip

    async def go():
        async with Client(params) as client:
            return await client.call_tool("list_memo_pairs", {"data_dir": str(folder)})

    listed = asyncio.run(go()).structured_content
    skipped = {Path(s["path"]).name: s["reason"] for s in listed["skipped"]}
    assert set(skipped) == set(SKIPPED)
    for name, reason in SKIPPED.items():
        assert reason in skipped[name]
    names = {Path(p["memo_path"]).name for p in listed["pairs"]}
    assert set(GOOD) <= names and "explain_MortgageCo_lp.json" not in names


def test_portfolio_page_grades_the_rest(folder):
    sys.path.insert(0, str(REPO))
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.session_state[state.Sidebar.DATA_DIR] = str(folder)
    at.run()
    at.switch_page("app_pages/portfolio.py")
    at.run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "biggest_finding" in d.value.columns)
    graded = table[table["citation_accuracy"].notna()]
    assert len(graded) == len(GOOD)
    errors = "\n".join(e.value for e in at.error).replace("\\", "")
    for memo, why in UNGRADABLE.items():
        portco, audience = memo.split("/")
        assert f"{portco} · {audience}" in errors.replace("_", "_") and why in errors, errors


def test_portfolio_page_names_the_skipped_files(folder):
    sys.path.insert(0, str(REPO))
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.session_state[state.Sidebar.DATA_DIR] = str(folder)
    at.run()
    at.switch_page("app_pages/portfolio.py")
    at.run()
    shown = "\n".join(str(e.value) for e in [*at.warning, *at.error, *at.info, *at.caption])
    assert all(name in shown.replace("\\", "") for name in SKIPPED), shown
