"""Hostile faults (issue 14): symlinked outputs, escaping siblings, echoed keys, a kill between
the pair's renames, one bad file in a folder, CSV formulas, impossible names, terminal escapes.

Each class runs against the library and the CLI, and the MCP server where it applies (the
symlink classes over stdio with the official client)."""

from __future__ import annotations

import asyncio
import http.server
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from pe_eval_core.cli.main import main
from pe_eval_core.errors import InvalidNameError, OutputWriteError
from pe_eval_core.mcp_server import PeEvalTools
from pe_eval_core.memo import findings_to_csv, grade_memo, write_outputs
from pe_eval_core.memo.outputs import pair_is_committed
from pe_eval_core.memo.pairs import scan_memo_pairs
from pe_eval_core.redact import redact

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "finance_output"
MEMO = "explain_MortgageCo_board.json"
SOURCE = "dx_report_MortgageCo.json"
KEY = "sk-ant-api03-HOSTILEKEY0123456789abcdefXYZ"


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")


def _folder(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir(parents=True)
    for name in (MEMO, SOURCE):
        shutil.copy(DATA / name, d / name)
    return d


def _cli(capsys, args):
    rc = main(args)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return rc, out.out + out.err


def _stdio(root: Path, tool: str, **arguments):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(root), "--no-record"],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PE_EVAL_HOME": str(root)},
    )

    async def go():
        async with Client(params) as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(go())


# ---------------------------------------------------------------- 1. symlinked outputs


@pytest.mark.parametrize("dangling", [False, True])
def test_symlinked_output_is_refused_everywhere(tmp_path, capsys, dangling):
    d = _folder(tmp_path)
    outside = tmp_path / "outside.html"
    if not dangling:
        outside.write_text("precious")
    (d / "eval_MortgageCo_board.html").symlink_to(outside)
    ev = grade_memo(d / MEMO, d / SOURCE)
    with pytest.raises(OutputWriteError, match="symbolic link"):
        write_outputs(ev)
    rc, text = _cli(capsys, ["memo", "--memo", str(d / MEMO), "--source", str(d / SOURCE)])
    assert rc == 2 and "symbolic link" in text
    result = _stdio(tmp_path, "eval_pe_output", memo_json_path=str(d / MEMO),
                    source_json_path=str(d / SOURCE))  # fmt: skip
    assert result.is_error and "symbolic link" in result.content[0].text
    assert outside.exists() != dangling
    if not dangling:
        assert outside.read_text() == "precious"
    assert not (d / "eval_MortgageCo_board.json").exists()


# ---------------------------------------------------------------- 2. MCP confinement


def test_symlinked_sibling_outside_the_root_is_skipped_and_named(tmp_path):
    root = tmp_path / "root"
    d = _folder(root)
    elsewhere = tmp_path / "secret"
    elsewhere.mkdir()
    secret = json.loads((DATA / MEMO).read_text())
    secret.update(audience="lp", opportunity_total_usd_annual=123456789.0)
    (elsewhere / "x.json").write_text(json.dumps(secret))
    (d / "explain_MortgageCo_lp.json").symlink_to(elsewhere / "x.json")
    listed = _stdio(root, "list_memo_pairs", data_dir=str(d)).structured_content
    assert [p["audience"] for p in listed["pairs"]] == ["board"]
    assert "explain_MortgageCo_lp.json" in json.dumps(listed["skipped"])
    out = PeEvalTools([root], record=False).eval_pe_output(str(d / MEMO), str(d / SOURCE))
    assert "123456789" not in json.dumps(out) and "123,456,789" not in json.dumps(out)


def test_mcp_names_a_directory_and_impossible_paths(tmp_path):
    d = _folder(tmp_path)
    tools = PeEvalTools([tmp_path], record=False)
    from pe_eval_core.errors import MemoNotFoundError

    with pytest.raises(MemoNotFoundError, match="is a folder"):
        tools.eval_pe_output(str(d), str(d / SOURCE))
    for bad in ("a\x00b.json", "x" * 300 + ".json"):
        with pytest.raises(InvalidNameError) as err:
            tools.eval_pe_output(str(d / bad), str(d / SOURCE))
        assert err.value.input == "memo"


# ---------------------------------------------------------------- 3. secrets redacted


class _EchoHeaders(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": "unauthorized", "headers": dict(self.headers)}).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_key_echoed_by_a_401_endpoint_reaches_no_output(tmp_path, capsys, monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EchoHeaders)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.delenv("PE_EVAL_NO_HISTORY")
        db = tmp_path / "home"
        scen = REPO / ".mimic" / "exports" / "mimic-scenarios.json"
        scenarios = json.loads(scen.read_text())
        if isinstance(scenarios, dict):
            key = next(k for k, v in scenarios.items() if isinstance(v, list))
            scenarios[key] = scenarios[key][:2]
        else:
            scenarios = scenarios[:2]
        small = tmp_path / "scen.json"
        small.write_text(json.dumps(scenarios))
        out = tmp_path / "out"
        rc, text = _cli(capsys, ["scenarios", "run", "--target", "anthropic", "--scenarios",
                                 str(small), "--no-judge", "--out", str(out)])  # fmt: skip
        # a target refusing authentication is an outage, not a quality result (issue 10):
        # exit 2, nothing written to --out, not recorded; the responses are kept in the home
        assert rc == 2 and "401" in text, text
    finally:
        server.shutdown()
    assert not out.exists()
    artifacts = [p for p in db.rglob("*") if p.is_file()]
    assert any(p.name == "responses.json" for p in artifacts)
    assert KEY not in text
    for p in artifacts:
        assert KEY.encode() not in p.read_bytes(), p.name


def test_redact_scrubs_headers_configured_keys_and_sk_ant_shapes(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plainsecretvalue123")
    text = redact('{"x-api-key": "abc", "authorization": "Bearer t0k"} plainsecretvalue123 '
                  "sk-ant-abcdEFGH")  # fmt: skip
    assert "abc" not in text and "t0k" not in text and "plainsecret" not in text
    assert "sk-ant-abcd" not in text


# ---------------------------------------------------------------- 4. the pair as one unit

_KILL = """
import os, sys
import pe_eval_core.memo.outputs as o
from pe_eval_core.memo import grade_memo
calls = []
def rename(a, b):
    calls.append(b)
    if len(calls) == 2:
        os._exit(9)
    os.replace(a, b)
o._rename = rename
ev = grade_memo(sys.argv[1], sys.argv[2])
ev = ev.model_copy(update={"audience": ev.audience})
o.write_outputs(ev.model_copy(update={"memo_path": sys.argv[1]}))
"""


def test_kill_between_the_two_renames_leaves_a_detectably_uncommitted_pair(tmp_path):
    d = _folder(tmp_path)
    html, js = write_outputs(grade_memo(d / MEMO, d / SOURCE))
    assert pair_is_committed(html, js)
    memo = json.loads((d / MEMO).read_text())
    memo["opportunities_explained"][0]["prose"] = "Changed prose for a new grading."
    (d / MEMO).write_text(json.dumps(memo))
    old_json = js.read_bytes()
    proc = subprocess.run([sys.executable, "-c", _KILL, str(d / MEMO), str(d / SOURCE)],
                          cwd=REPO, capture_output=True)  # fmt: skip
    assert proc.returncode == 9, proc.stderr
    assert js.read_bytes() == old_json  # the sidecar was not replaced ...
    assert not pair_is_committed(html, js)  # ... so the pair reads as uncommitted
    assert [p for p in d.iterdir() if p.name.endswith((".tmp", ".bak"))]
    write_outputs(grade_memo(d / MEMO, d / SOURCE))  # the next run cleans and commits
    assert pair_is_committed(html, js)
    assert not [p for p in d.iterdir() if p.name.endswith((".tmp", ".bak"))]


# ---------------------------------------------------------------- 7. one bad file in a folder


def test_one_unusable_file_name_does_not_break_the_folder(tmp_path, capsys):
    d = _folder(tmp_path)
    (d / "explain_My Co_board.json").write_text("{}")
    pairs, skipped = scan_memo_pairs(d)
    assert [p.portco_id for p in pairs] == ["MortgageCo"]
    assert [s.path.name for s in skipped] == ["explain_My Co_board.json"]
    rc, text = _cli(capsys, ["memo", "--list", "--data-dir", str(d)])
    assert rc == 0 and "MortgageCo" in text and "explain_My Co_board.json" in text
    listed = PeEvalTools([tmp_path], record=False).list_memo_pairs(str(d))
    assert len(listed["pairs"]) == 1 and "My Co" in listed["skipped"][0]["path"]


# ---------------------------------------------------------------- 8. one CSV escaper


def test_findings_csv_escapes_the_minus_formula(tmp_path):
    d = _folder(tmp_path)
    memo = json.loads((d / MEMO).read_text())
    memo["opportunities_explained"][0]["id"] = "-2+3+cmd|' /C calc'!A0"  # a phantom id
    (d / MEMO).write_text(json.dumps(memo))
    csv_text = findings_to_csv(grade_memo(d / MEMO, d / SOURCE))
    assert "-2+3+cmd" in csv_text
    for line in csv_text.splitlines():
        for cell in line.split(","):
            assert not cell.lstrip('"').startswith("-2+3")


# ---------------------------------------------------------------- 9. impossible names


@pytest.mark.parametrize("bad", ["a\x00b.json", "x" * 300 + ".json"])
@pytest.mark.parametrize("option", ["--memo", "--source", "memo-only", "--data-dir", "--out-dir"])
def test_nul_and_overlong_names_are_typed_errors_on_the_cli(tmp_path, capsys, bad, option):
    d = _folder(tmp_path)
    memo, source = str(d / MEMO), str(d / SOURCE)
    args = {
        "--memo": ["--memo", str(d / bad), "--source", source],
        "--source": ["--memo", memo, "--source", str(d / bad)],
        "memo-only": ["--memo", str(d / bad)],
        "--data-dir": ["MortgageCo", "--data-dir", str(d / bad)],
        "--out-dir": ["--memo", memo, "--source", source, "--out-dir", str(d / bad)],
    }[option]
    rc, text = _cli(capsys, ["memo", *args])
    assert rc == 2, text
    flag = "--memo" if option == "memo-only" else option
    assert f"option {flag}" in text, text


# ---------------------------------------------------------------- 10. terminal escapes


def test_memo_findings_on_stdout_carry_no_control_characters(tmp_path, capsys):
    d = _folder(tmp_path)
    memo = json.loads((d / MEMO).read_text())
    memo["opportunities_explained"][0]["opportunity_id"] = "X\x1b]0;pwned\x07\x1b[2J"
    (d / MEMO).write_text(json.dumps(memo))
    _rc, text = _cli(capsys, ["memo", "--memo", str(d / MEMO), "--source", str(d / SOURCE)])
    assert "\x1b" not in text and "\x07" not in text


def test_mcp_unexpected_failure_is_a_named_tool_error_not_a_bare_one(monkeypatch):
    from pe_eval_core.mcp_server import _guard

    def boom(*_args):
        raise OSError(28, "No space left on device sk-ant-api03-LEAKEDKEY123456")

    result = _guard(boom)
    assert result.is_error
    text = result.content[0].text
    assert "unexpected OSError" in text and "No space left" in text
    assert "LEAKEDKEY" not in text and "Traceback" not in text


def test_cli_unexpected_failure_exits_2_without_traceback(monkeypatch, capsys, tmp_path):
    import pe_eval_core.cli.memo as memo_cli

    def boom(*_args, **_kwargs):
        raise RuntimeError("disk \x1b[2J exploded")

    monkeypatch.setattr(memo_cli, "_list", boom)
    rc, text = _cli(capsys, ["memo", "--list", "--data-dir", str(_folder(tmp_path))])
    assert rc == 2 and "unexpected RuntimeError" in text and "\x1b" not in text
    monkeypatch.setenv("PE_EVAL_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["memo", "--list", "--data-dir", str(tmp_path / "data")])


def test_read_only_folder_at_the_second_rename_rolls_back_the_pair(tmp_path, capsys, monkeypatch):
    """A folder that turns read-only mid-commit (EROFS on the sidecar's rename): a typed error
    naming the scorecard folder, the previous pair intact and committed, no temp left."""
    import errno

    import pe_eval_core.memo.outputs as outputs

    d = _folder(tmp_path)
    html, js = write_outputs(grade_memo(d / MEMO, d / SOURCE))
    old = (html.read_bytes(), js.read_bytes())
    calls = []

    def rename(a, b):
        calls.append(b)
        if len(calls) == 2:
            raise OSError(errno.EROFS, "Read-only file system")
        outputs.os.replace(a, b)

    monkeypatch.setattr(outputs, "_rename", rename)
    memo = json.loads((d / MEMO).read_text())
    memo["opportunities_explained"][0]["narrative"] = "New prose, 99% new."
    (d / MEMO).write_text(json.dumps(memo))
    rc, text = _cli(capsys, ["memo", "--memo", str(d / MEMO), "--source", str(d / SOURCE)])
    assert rc == 2 and "Read-only file system" in text and "option --out-dir" in text
    assert (html.read_bytes(), js.read_bytes()) == old and pair_is_committed(html, js)
    assert not [p for p in d.iterdir() if p.name.startswith(".")]


def test_scenario_report_folder_that_cannot_exist_exits_2_naming_it(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    proc = subprocess.run(
        [sys.executable, "-m", "pe_eval_core", "scenarios", "run", "--target", "recorded",
         "--scenarios", str(REPO / ".mimic" / "exports" / "mimic-scenarios.json"), "--no-judge",
         "--out", str(blocker / "sub")],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "PE_EVAL_HOME": str(tmp_path)},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"cannot use {blocker / 'sub'}: Not a directory" in proc.stderr
    assert blocker.read_text() == "x"
