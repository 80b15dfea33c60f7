"""Class 6: folders and outputs (issue 23).

One data folder holds the demo's MortgageCo pair plus a memo whose name is not UTF-8 (it says
it is MortgageCo), a memo nested 100,000 levels deep, a Latin-1 memo and a memo named for
``Zzz`` that says it is MortgageCo. Surfaces: ``memo --list``, ``memo --all`` (text and JSON),
``gate --data-dir``, MCP ``list_memo_pairs`` over stdio, the Memo scorecard and Portfolio
pages (AppTest): each names every unreadable file, grades the rest, never crashes, and
MortgageCo's scorecard is never overwritten by another file's grading. Then: a memo named for
one company and saying another is a finding; a killed writer's temp file is cleaned; a FIFO
swapped in never hangs a read; ``source_opportunity_map`` is confined and never quoted; MCP
errors do not reveal where a link outside the roots leads; a memo or its folder swapped for
a link after the MCP tool's path check reads and writes nothing outside; a link in
``./.pe_eval`` does not redirect a write; a 5,000-character upload name does not break the
scorecard page."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pe_eval_core.errors import InputNotFoundError, OutputWriteError, SourceNotFoundError
from pe_eval_core.files import atomic_write_text, read_bytes
from pe_eval_core.memo import grade_memo, write_outputs
from pe_eval_core.memo.pairs import named_source
from tests.helpers.hostile_kit import REPO, rendered_text, run_cli

pytestmark = pytest.mark.timeout(300)
DATA = REPO / "finance_output"
MEMO, SOURCE = "explain_MortgageCo_board.json", "dx_report_MortgageCo.json"
BAD_NAME = os.fsdecode(b"explain_\xff\xfe_board.json")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    d = tmp_path / "data"
    d.mkdir()
    for name in (MEMO, SOURCE):
        shutil.copy(DATA / name, d / name)
    memo = json.loads((DATA / MEMO).read_text())
    (d / BAD_NAME).write_text(json.dumps(memo))
    (d / "explain_Deep_board.json").write_text(
        '{"portco_id": "Deep", "audience": "board", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    (d / "explain_Latin_board.json").write_bytes(
        '{"portco_id": "Latin", "audience": "board", "n": "caf\xe9"}'.encode("latin-1")
    )
    planted = dict(memo, opportunities_explained=memo["opportunities_explained"][:1])
    (d / "explain_Zzz_board.json").write_text(json.dumps(planted))
    shutil.copy(d / SOURCE, d / "dx_report_Zzz.json")
    return d


NAMED = ("udcff", "not UTF")
ERRORS = ("explain_Deep_board.json", "explain_Latin_board.json")


def _mortgageco_scorecard_is_mortgagecos(d: Path) -> None:
    sidecar = json.loads((d / "eval_MortgageCo_board.json").read_text())
    assert Path(sidecar["memo_path"]).name == MEMO


def test_the_cli_names_every_unreadable_file_and_grades_the_rest(folder, capsys):
    code, out, err = run_cli(capsys, "memo", "--list", "--data-dir", str(folder))
    assert code == 0 and all(s in err for s in NAMED)
    assert out.count("MortgageCo ") == 1  # the non-UTF-8 file claiming MortgageCo is not listed
    code, out, err = run_cli(capsys, "memo", "--all", "--data-dir", str(folder))
    assert code == 2 and all(s in out + err for s in (*NAMED, *ERRORS))
    _mortgageco_scorecard_is_mortgagecos(folder)
    assert (folder / "eval_Zzz_board.json").is_file()  # the planted memo's own scorecard
    planted = json.loads((folder / "eval_Zzz_board.json").read_text())
    assert "file_name_mismatch" in {f["kind"] for f in planted["findings"]}
    code, out, _ = run_cli(capsys, "memo", "--all", "--json", "--data-dir", str(folder))
    doc = json.loads(out)
    assert doc["skipped"][0]["reason"] == "its file name is not UTF-8 text"
    code, out, err = run_cli(capsys, "gate", "--data-dir", str(folder), "--no-record",
                             "--memo-thresholds", "citation=0.5")  # fmt: skip
    assert code == 2 and all(s in out + err for s in (*NAMED, *ERRORS))


def test_mcp_listing_names_them(folder):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(folder.parent), "--no-record"],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PE_EVAL_HOME": str(folder)},
    )

    async def go():
        async with Client(params) as client:
            listed = await client.call_tool("list_memo_pairs", {"data_dir": str(folder)})
            graded = await client.call_tool(
                "eval_pe_output",
                {"memo_json_path": str(folder / "explain_Deep_board.json"),
                 "source_json_path": str(folder / SOURCE)},
            )  # fmt: skip
            return listed, graded

    listed, graded = asyncio.run(go())
    assert not listed.is_error
    data = listed.structured_content
    assert "not UTF-8" in json.dumps(data["skipped"])
    assert sorted(p["portco_id"] for p in data["pairs"]) == ["Deep", "Latin", "MortgageCo", "Zzz"]
    assert graded.is_error and "500 levels deep" in graded.content[0].text


def _app(monkeypatch: pytest.MonkeyPatch, folder: Path):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("PE_EVAL_DATA_DIR", str(folder))
    monkeypatch.setenv("PE_EVAL_DATA_ROOTS", str(folder.parent))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=240)
    at.run()
    return at


def test_both_dashboard_pages_name_them(folder, monkeypatch):
    import streamlit as st

    st.cache_data.clear()
    at = _app(monkeypatch, folder)
    assert not at.exception, at.exception
    shown = rendered_text(at)
    assert all(s in shown for s in NAMED), shown[:2000]
    at.switch_page("app_pages/portfolio.py")
    at.run()
    assert not at.exception, at.exception
    shown = rendered_text(at)
    assert all(s in shown for s in NAMED)
    assert "nests arrays/objects more than 500 levels deep" in shown
    _mortgageco_scorecard_is_mortgagecos(folder) if (
        folder / "eval_MortgageCo_board.json"
    ).exists() else None


def test_a_killed_writer_leaves_no_temp_for_long(tmp_path):
    target = tmp_path / "report.md"
    code = (
        "import os, time, pe_eval_core.files as f\n"
        "real = os.replace\n"
        "def slow(*a, **k):\n    print('ready', flush=True); time.sleep(60)\n"
        "os.replace = slow\n"
        f"f.atomic_write_text({str(target)!r}, 'x' * 1000)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=REPO)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(".report.md.") and left[0].endswith(".tmp")
    atomic_write_text(target, "done")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_fifo_never_hangs_a_read(tmp_path):
    fifo = tmp_path / "explain_Fifo_board.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(InputNotFoundError, match="not a regular file"):
        read_bytes(fifo)
    d = tmp_path / "d"
    d.mkdir()
    for name in (MEMO, SOURCE):
        shutil.copy(DATA / name, d / name)
    os.mkfifo(d / "explain_MortgageCo_lp.json")  # a sibling that is a FIFO
    ev = grade_memo(d / MEMO, d / SOURCE)
    assert ev.scores.citation_accuracy == 1.0
    assert time.monotonic() - started < 30


def test_source_opportunity_map_is_confined_and_never_quoted(tmp_path, capsys):
    d = tmp_path / "d"
    d.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(json.loads((DATA / SOURCE).read_text())))
    memo = json.loads((DATA / MEMO).read_text())
    for value in (str(secret), "../secret.json", "\x1b]0;pwned\x07/../../secret.json"):
        memo["source_opportunity_map"] = value
        (d / MEMO).write_text(json.dumps(memo))
        with pytest.raises(SourceNotFoundError, match="outside the memo's folder") as err:
            named_source(d / MEMO)
        assert value not in str(err.value) and "secret" not in str(err.value)
        code, out, errtext = run_cli(capsys, "memo", "--memo", str(d / MEMO))
        assert code == 2 and "secret" not in out + errtext and "\x1b" not in out + errtext
    # the producer's own spelling (relative to its working folder) is found beside the memo
    memo["source_opportunity_map"] = "finance_output/" + SOURCE
    (d / MEMO).write_text(json.dumps(memo))
    shutil.copy(DATA / SOURCE, d / SOURCE)
    assert named_source(d / MEMO) == (d / SOURCE).resolve()


def test_mcp_errors_do_not_reveal_where_a_link_leads(tmp_path):
    from pe_eval_core.mcp_server import PeEvalTools

    root = tmp_path / "root"
    root.mkdir()
    hidden = tmp_path / "private-area-name"
    hidden.mkdir()
    shutil.copy(DATA / MEMO, hidden / MEMO)
    (root / MEMO).symlink_to(hidden / MEMO)
    tools = PeEvalTools([root], record=False)
    from pe_eval_core.errors import PathOutsideRootError

    with pytest.raises(PathOutsideRootError) as err:
        tools.eval_pe_output(str(root / MEMO), str(root / SOURCE))
    assert "private-area-name" not in str(err.value)


def test_a_link_in_the_state_folder_does_not_redirect_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PE_EVAL_HOME")
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / ".pe_eval").symlink_to(elsewhere)  # shipped by a cloned repository
    _, _, err = run_cli(capsys, "scenarios", "run", "--scenarios",
                           str(REPO / ".mimic" / "exports" / "mimic-scenarios.json"))  # fmt: skip
    assert "symbolic link" in err
    assert list(elsewhere.iterdir()) == []
    (tmp_path / ".pe_eval").unlink()
    (tmp_path / ".pe_eval").mkdir()
    (tmp_path / ".pe_eval" / "runs").symlink_to(elsewhere)
    from pe_eval_core.paths import home_path

    with pytest.raises(OutputWriteError, match="symbolic link"):
        home_path("runs", "r1", "responses.json")
    assert list(elsewhere.iterdir()) == []


def test_a_5000_character_upload_name_does_not_break_the_scorecard(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from ui import state

    sc = state.Scorecard
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=240)
    at.session_state[sc.MODE] = "Upload"
    at.run()
    long = "explain_" + "M" * 5000 + "_board.json"
    at.file_uploader(key=sc.MEMO_UPLOAD).set_value(
        (long, (DATA / MEMO).read_bytes(), "application/json")
    )
    at.file_uploader(key=sc.SOURCE_UPLOAD).set_value(
        ("d" * 5000 + ".json", (DATA / SOURCE).read_bytes(), "application/json")
    )
    at.run()
    assert not at.exception, at.exception
    assert "Citation" in rendered_text(at)


def test_planted_memo_is_a_finding_and_writes_its_own_scorecard(folder):
    ev = grade_memo(folder / "explain_Zzz_board.json", folder / "dx_report_Zzz.json")
    kinds = {f.kind for f in ev.findings}
    assert "file_name_mismatch" in kinds
    html, sidecar = write_outputs(ev)
    assert (html.name, sidecar.name) == ("eval_Zzz_board.html", "eval_Zzz_board.json")


def _swap_in_link(path: Path, to: Path) -> None:
    """What the racing attacker did between pe-eval's path check and its open."""
    path.rename(path.with_name(path.name + ".was"))
    path.symlink_to(to)


def test_a_swap_after_the_mcp_path_check_cannot_read_outside(tmp_path, monkeypatch):
    """The campaign's race (6 of 35 MCP calls read outside the root), made deterministic: the
    memo passes the tool's path check, then is swapped for a link leading out before it is
    opened. The open is checked as opened, so the grade is refused and nothing outside is read."""
    from pe_eval_core.errors import PathOutsideRootError
    from pe_eval_core.mcp_server import PeEvalTools

    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    for name in (MEMO, SOURCE):
        shutil.copy(DATA / name, root / name)
        shutil.copy(DATA / name, outside / name)
    tools = PeEvalTools([root], record=False)
    checked = PeEvalTools._file

    def check_then_swap(path: Path, given: str, error: type) -> None:
        checked(path, given, error)
        if path.name == MEMO:
            _swap_in_link(path, outside / MEMO)

    monkeypatch.setattr(PeEvalTools, "_file", staticmethod(check_then_swap))
    with pytest.raises(PathOutsideRootError) as err:
        tools.eval_pe_output(str(root / MEMO), str(root / SOURCE))
    assert "outside" not in str(err.value).replace("outside the allowed", "")
    assert not list(root.glob("eval_*")) and not list(outside.glob("eval_*"))


def test_a_folder_swapped_before_the_mcp_write_cannot_lead_out(tmp_path, monkeypatch):
    """The write side of the race: the memo is read inside the root, then its folder is
    swapped for a link to a folder outside before the scorecard pair is written. The folder
    is checked as opened: refused, nothing written outside."""
    import pe_eval_core.memo as memo_api
    from pe_eval_core.errors import PathOutsideRootError
    from pe_eval_core.mcp_server import PeEvalTools

    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "data").mkdir(parents=True)
    outside.mkdir()
    for name in (MEMO, SOURCE):
        shutil.copy(DATA / name, root / "data" / name)
    real_grade = memo_api.grade_memo

    def grade_then_swap(*args, **kwargs):
        result = real_grade(*args, **kwargs)
        _swap_in_link(root / "data", outside)
        return result

    monkeypatch.setattr(memo_api, "grade_memo", grade_then_swap)
    tools = PeEvalTools([root], record=False)
    with pytest.raises(PathOutsideRootError):
        tools.eval_pe_output(str(root / "data" / MEMO), str(root / "data" / SOURCE))
    assert list(outside.iterdir()) == []
