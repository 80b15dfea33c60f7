"""Classes 8, 9 and 12: bounds on agent calls, tool-call floods, tool results and scoring
work (issue 23). Each refusal is a typed error or a scenario error naming its limit and its
variable (``pe_eval_core.limits``), reached in bounded time and memory.

Surfaces: ``scenarios run --target http`` (a CLI subprocess, its peak memory measured) against
an agent trickling one byte every 1.5 s and one replying with 150,000 tool calls; the agent
loop (a model reply with too many ``tool_use`` blocks, a 3 MB MCP tool result over Streamable
HTTP and over stdio; the stdio relay alone under a 300 MB reply with its address space capped);
the scenario loader (phrases per scenario) and the scorer (phrases x characters)."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic
import pytest

from pe_eval_core.errors import InputLimitError
from pe_eval_core.scenarios import load_scenarios
from pe_eval_core.scenarios.agent.loop import AgentBounds, McpToolbox, run_agent
from pe_eval_core.scenarios.agent.mcp_config import HttpServerConfig, StdioServerConfig
from pe_eval_core.scenarios.agent.tool_policy import ToolPolicy
from pe_eval_core.scenarios.models import Scenario, TargetResponse
from pe_eval_core.scenarios.scoring.score import score_response
from tests.helpers.hostile_kit import RAN, REPO, reply, use
from tests.helpers.scenario_helpers import MockAnthropic

pytestmark = pytest.mark.timeout(300)


def _scenarios(tmp: Path, n: int = 1) -> Path:
    path = tmp / "s.json"
    path.write_text(json.dumps([
        {"name": f"s{i}", "input": "why?", "expect": {"response_contains": ["$241.00"]},
         "metadata": {"tier": "smoke"}} for i in range(n)
    ]))  # fmt: skip
    return path


def _cli(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, float, int]:
    """Run the CLI in a subprocess: exit code, output, seconds, peak RSS in MB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pe_eval_core", *argv],
        cwd=REPO, capture_output=True, text=True, timeout=240,
        env={**os.environ, "PYTHONPATH": str(REPO), "PE_EVAL_NO_HISTORY": "1", **(env or {})},
    )  # fmt: skip
    elapsed = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc.returncode, proc.stdout + proc.stderr, elapsed, max(peak, before) // 1024


def _trickle_server() -> tuple[socket.socket, int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=_trickle, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


def _trickle(conn: socket.socket) -> None:
    try:
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n")  # fmt: skip
        for _ in range(200):  # one byte every 1.5 s: each read is within any read timeout
            conn.sendall(b" ")
            time.sleep(1.5)
    except OSError:
        pass
    finally:
        conn.close()


def test_a_trickling_agent_cannot_outlast_the_deadline(tmp_path):
    srv, port = _trickle_server()
    try:
        code, out, elapsed, _ = _cli(
            "scenarios", "run", "--target", "http", "--agent-url",
            f"http://127.0.0.1:{port}/chat", "--scenarios", str(_scenarios(tmp_path, 2)),
            "--timeout", "2", "--no-judge", "--yes",
        )  # fmt: skip
    finally:
        srv.close()
    assert code == 1 and "timed out after 2s" in out, out
    assert elapsed < 30, elapsed  # 2 scenarios x 2 s each, plus start-up


class _Flood(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        calls = [{"name": "list_invoices"}] * 150_000  # 3.6 MB: under the reply byte cap
        body = json.dumps({"text": "MRR fell $241.00.", "toolCalls": calls}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_tool_call_flood_is_one_error_not_gigabytes(tmp_path):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flood)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    out_dir = tmp_path / "out"
    try:
        code, out, _, peak_mb = _cli(
            "scenarios", "run", "--target", "http", "--agent-url",
            f"http://127.0.0.1:{httpd.server_address[1]}/chat", "--scenarios",
            str(_scenarios(tmp_path, 4)), "--no-judge", "--yes", "--concurrency", "4",
            "--out", str(out_dir),
        )  # fmt: skip
    finally:
        httpd.shutdown()
    assert code == 2 or code == 1, out
    assert "PE_EVAL_MAX_TOOL_CALLS" in out
    written = sum(p.stat().st_size for p in out_dir.rglob("*") if p.is_file())
    assert written < 200_000, written  # was 626 MB for four such replies
    assert peak_mb < 900, peak_mb  # was 3.7 GB


def test_a_reply_with_too_many_tool_uses_runs_none(hostile_mcp_url, monkeypatch):
    monkeypatch.setenv("PE_EVAL_MAX_TOOL_CALLS", "50")
    RAN.clear()
    uses = [use("mimic-stripe__list_invoices", {"customer": "c"}, id=f"u{i}") for i in range(60)]
    api = MockAnthropic(reply(*uses), reply("done"))

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        server = HttpServerConfig(name="mimic-stripe", url=hostile_mcp_url)
        async with McpToolbox([server]) as box:
            return await run_agent(client, "m", "s", "q", box, AgentBounds(max_tool_calls=None))

    result = asyncio.run(go())
    assert result.stop == "max_tool_calls" and result.trace.calls == []
    assert "PE_EVAL_MAX_TOOL_CALLS" in (result.trace.error or "")


def test_a_huge_tool_result_is_cut_while_streaming_and_the_session_lives(
    hostile_mcp_url, monkeypatch
):
    monkeypatch.setenv("PE_EVAL_MAX_TOOL_RESULT_BYTES", str(1024 * 1024))
    api = MockAnthropic(
        reply(use("mimic-stripe__dump_big", {}, id="a")),
        reply(use("mimic-stripe__list_invoices", {"customer": "c"}, id="b")),
        reply("done"),
    )

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        server = HttpServerConfig(name="mimic-stripe", url=hostile_mcp_url)
        async with McpToolbox([server], ToolPolicy(allow=("dump_big",))) as box:
            return await run_agent(client, "m", "s", "q", box)

    result = asyncio.run(go())
    big, small = result.trace.calls
    assert big.is_error and "PE_EVAL_MAX_TOOL_RESULT_BYTES" in (big.result_excerpt or "")
    assert not small.is_error and "paid twice" in (small.result_excerpt or "")


def test_a_huge_stdio_tool_result_is_discarded_as_it_streams_and_the_session_lives(monkeypatch):
    """The SDK's stdio transport reads a reply line whole; behind ``stdio_cap`` a reply over
    the limit becomes an error naming it, and the next call on the same server works."""
    monkeypatch.setenv("PE_EVAL_MAX_TOOL_RESULT_BYTES", str(1024 * 1024))
    api = MockAnthropic(
        reply(use("mimic-stripe__dump_big", {}, id="a")),
        reply(use("mimic-stripe__list_invoices", {"customer": "c"}, id="b")),
        reply("done"),
    )
    code = (
        "from tests.helpers.hostile_kit import hostile_server; "
        "hostile_server('mimic-stripe').run('stdio')"
    )
    server = StdioServerConfig(
        name="mimic-stripe", command=sys.executable, args=["-c", code], cwd=str(REPO)
    )

    async def go():
        client = anthropic.AsyncAnthropic(api_key="k", http_client=api.client(), max_retries=0)
        async with McpToolbox([server], ToolPolicy(allow=("dump_big",))) as box:
            return await run_agent(client, "m", "s", "q", box)

    result = asyncio.run(go())
    big, small = result.trace.calls
    assert big.is_error and "PE_EVAL_MAX_TOOL_RESULT_BYTES" in (big.result_excerpt or "")
    assert not small.is_error and "paid twice" in (small.result_excerpt or "")


def test_the_stdio_relay_never_holds_a_300_mb_reply():
    """The relay alone, its address space (and its server's) capped at 300 MB: a 300 MB reply
    line is answered with an error for its request id, and the relay stays within the cap."""
    from pe_eval_core.scenarios.agent import stdio_cap

    big = (
        "import sys; sys.stdin.readline(); w = sys.stdout.buffer; "
        'w.write(b\'{"jsonrpc":"2.0","id":7,"result":{"text":"\'); '
        "[w.write(b'a' * 1048576) for _ in range(300)]; w.write(b'\"}}\\n'); w.flush(); "
        "sys.stdin.readline(); "
        'w.write(b\'{"jsonrpc":"2.0","id":8,"result":{}}\\n\'); w.flush()'
    )
    command, args = stdio_cap.relay_command(sys.executable, ["-c", big])

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (300 * 1024 * 1024, 300 * 1024 * 1024))

    started = time.monotonic()
    proc = subprocess.run(
        [command, *args],
        input=b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}\n'
        b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}\n',
        capture_output=True,
        preexec_fn=cap,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    first, second = [json.loads(line) for line in proc.stdout.splitlines()]
    assert first["id"] == 7 and "PE_EVAL_MAX_TOOL_RESULT_BYTES" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert time.monotonic() - started < 60


def test_expected_phrases_and_scoring_work_are_bounded(tmp_path, monkeypatch):
    path = tmp_path / "many.json"
    phrases = [f"phrase number {i}" for i in range(10_000)]
    path.write_text(json.dumps([{"name": "big", "input": "q",
                                 "expect": {"response_contains": phrases}}]))  # fmt: skip
    with pytest.raises(InputLimitError, match="PE_EVAL_MAX_EXPECTED"):
        load_scenarios(path)
    monkeypatch.setenv("PE_EVAL_MAX_EXPECTED", "20000")
    (scenario,) = load_scenarios(path)
    started = time.monotonic()
    result = score_response(scenario, TargetResponse(text="churn " * 150_000), None)
    assert result.status == "error" and "PE_EVAL_MAX_SCORING_WORK" in (result.error or "")
    assert time.monotonic() - started < 5
    # one phrase 150,000 times: every occurrence asks for its sentence and negation cues,
    # which rescanned the text each time (over 300 s); now found once per text
    small = Scenario.model_validate(
        {"name": "ok", "input": "q", "expect": {"response_contains": ["churn"]}}
    )
    started = time.monotonic()
    assert score_response(small, TargetResponse(text="churn " * 150_000), None).status == "pass"
    assert time.monotonic() - started < 20


KILLER = """
import os, signal, sys
import pe_eval_core.scenarios.run.report_set as rs
real, k = rs.commit_files, int(os.environ["DIE_AT"])
def commit(files, **kw):
    n = [0]
    def rename(a, b):
        n[0] += 1
        if n[0] == k:
            os.kill(os.getpid(), signal.SIGKILL)
        os.replace(a, b)
    real(files, rename=rename)
rs.commit_files = commit
from pe_eval_core.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_out_set_is_one_unit_under_a_kill(tmp_path):
    """Class 10: a scenario run killed between two of its report renames leaves a set its
    manifest does not match (a reader sees it is not one run); the next run commits."""
    from pe_eval_core.scenarios.run.report_set import MANIFEST, report_set_committed

    out = tmp_path / "out"
    scenarios = REPO / ".mimic" / "exports" / "mimic-scenarios.json"
    argv = ["scenarios", "score", "--scenarios", str(scenarios), "--out", str(out)]
    code, _, _, _ = _cli(*argv)
    assert code == 1 and report_set_committed(out)
    first = json.loads((out / MANIFEST).read_text())["run_id"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "PE_EVAL_NO_HISTORY": "1"}
    # between renames (the first, responses.json, holds the same bytes in both runs, so the set
    # still matches its manifest after it): some files of the new run, some of the old
    for die_at in range(3, 7):
        proc = subprocess.run(
            [sys.executable, "-c", KILLER, *argv], cwd=REPO, capture_output=True,
            env={**env, "DIE_AT": str(die_at)}, timeout=240,
        )  # fmt: skip
        assert proc.returncode == -9
        assert not report_set_committed(out), die_at
        assert json.loads((out / MANIFEST).read_text())["run_id"] == first  # the old commit
    code, _, _, _ = _cli(*argv)
    assert report_set_committed(out)
    assert json.loads((out / MANIFEST).read_text())["run_id"] != first
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # the killed temps: gone
