"""`scenarios run --target anthropic` end to end with MCP tools: an in-process Streamable HTTP
MCP server on 127.0.0.1, the Messages API scripted through the SDK's mock transport. No
network, no API key. Covers the run header, the trace in every report, the read-only policy,
--max-cost, an unreachable server (exit 2) and offline replay giving the same verdicts."""

from __future__ import annotations

import csv
import io
import json
import socket
import threading
import time
from pathlib import Path

import anthropic
import pytest
import uvicorn

from pe_eval_core.cli.main import main
from tests.helpers.mimic_like_server import WRITES, build_server
from tests.helpers.scenario_helpers import MockAnthropic

pytestmark = pytest.mark.timeout(120)

ANSWER = "MRR fell $241.00: Quill Studio was charged twice for in_quill_apr."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def mcp_url():
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            build_server("mimic-stripe").streamable_http_app(),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


def reply(*blocks, usage=(1000, 50, 0, 0), stop=None) -> dict:
    content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
    has_use = any(b["type"] == "tool_use" for b in content)
    return {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop or ("tool_use" if has_use else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage[0],
            "output_tokens": usage[1],
            "cache_read_input_tokens": usage[2],
            "cache_creation_input_tokens": usage[3],
        },
    }


def use(name: str, args: dict, id: str = "toolu_1") -> dict:
    return {"type": "tool_use", "id": id, "name": name, "input": args}


def scenario(name: str, **expect) -> dict:
    expect.setdefault("response_contains", ["$241.00", "charged twice"])
    return {
        "name": name,
        "input": f"{name}: why did MRR drop?",
        "expect": expect,
        "metadata": {"tier": "smoke", "platform": "stripe", "source_fact": "fact_001"},
    }


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder: a skill, and the mock API wired into every AsyncAnthropic."""
    WRITES.clear()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    skill = tmp_path / "skills" / "revenue-recovery" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("# Revenue recovery\nFind the MRR leak with the tools.\n")
    api = MockAnthropic(reply("done"))
    real = anthropic.AsyncAnthropic

    def patched(**kwargs):
        kwargs["http_client"] = api.client()
        kwargs["max_retries"] = 0
        return real(**kwargs)

    monkeypatch.setattr(anthropic, "AsyncAnthropic", patched)
    return tmp_path, api


def write_scenarios(folder: Path, *items: dict) -> Path:
    path = folder / "scenarios.json"
    path.write_text(json.dumps(list(items)))
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def base_args(scenarios: Path, *extra: str) -> list[str]:
    return [
        "scenarios", "run", "--target", "anthropic", "--model", "claude-sonnet-4-5",
        "--scenarios", str(scenarios), "--no-judge", "--concurrency", "1",
        "--timestamp", "2026-04-29T09:00:00Z", *extra,
    ]  # fmt: skip


def test_the_cli_drives_the_skill_with_mcp_tools_and_reports_the_trace(project, mcp_url, capsys):
    root, api = project
    invoices = use("mimic-stripe__list_invoices", {"customer": "cus_GL078"})
    customers = use("mimic-stripe__get_customers", {"status": "active"})
    api.replies[:] = [
        reply(invoices, usage=(900, 40, 0, 2000)),
        reply(ANSWER, usage=(300, 60, 2000, 0)),
        reply(customers, usage=(900, 40, 2000, 0)),
        reply("Nothing found.", usage=(300, 20, 2000, 0)),
    ]
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"mimic-stripe": {"type": "http", "url": mcp_url}}})
    )
    scenarios = write_scenarios(root, scenario("leak"), scenario("miss"))
    out = root / "out"
    code, report, err = run(capsys, *base_args(scenarios, "--out", str(out)))

    assert code == 1, err  # one pass, one fail
    assert "Attached MCP servers: mimic-stripe (7 tools)" in err
    assert "Tool policy: read allow-list (Mimic's read tools; anything else refused)." in err
    assert "Estimated cost: ~$" in err
    # The request: the seed's Step 2 line, the tools (prefixed) with the prefix cached.
    first = api.requests[0]
    assert "You have access to MCP tools for `mimic-stripe`" in first["system"][0]["text"]
    assert first["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert first["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "mimic-stripe__list_invoices" in {t["name"] for t in first["tools"]}
    fed_back = api.requests[1]["messages"][-1]["content"][0]
    assert fed_back["type"] == "tool_result" and "paid twice" in fed_back["content"]

    data = json.loads((out / "report.json").read_text())
    leak, miss = data["results"]
    assert leak["status"] == "pass" and miss["status"] == "fail"
    call = leak["trace"]["calls"][0]
    assert (call["server"], call["tool"], call["arguments"]) == (
        "mimic-stripe",
        "list_invoices",
        {"customer": "cus_GL078"},
    )
    assert "paid twice" in call["result_excerpt"]
    assert leak["trace"]["tokens"] == {
        "input": 1200,
        "output": 100,
        "cache_read": 2000,
        "cache_write": 2000,
    }
    rows = list(csv.DictReader(io.StringIO((out / "report.csv").read_text())))
    assert [(r["tool_call_count"], r["tool_names"]) for r in rows] == [
        ("1", "mimic-stripe/list_invoices"),
        ("1", "mimic-stripe/get_customers"),
    ]
    junit = (out / "junit.xml").read_text()
    assert "tool trace: 2 turns, 1 tool calls: mimic-stripe/get_customers" in junit
    assert report.index("**Conclusion:**") < report.index("### Tool traces of failed scenarios")
    assert "- **miss** — 2 turns, 1 tool calls: mimic-stripe/get_customers" in report

    # Offline: the saved responses carry the trace; re-scoring gives the same verdicts.
    saved = json.loads((out / "responses.json").read_text())
    assert saved[0]["trace"]["calls"][0]["tool"] == "list_invoices"
    code2, report2, _ = run(
        capsys,
        "scenarios", "score", "--scenarios", str(scenarios), "--responses",
        str(out / "responses.json"), "--no-judge", "--timestamp", "2026-04-29T09:00:00Z",
        "--out", str(root / "replay"),
    )  # fmt: skip
    replay = json.loads((root / "replay" / "report.json").read_text())
    assert code2 == code
    assert [r["status"] for r in replay["results"]] == ["pass", "fail"]
    assert [r["trace"] for r in replay["results"]] == [r["trace"] for r in data["results"]]
    assert "### Tool traces of failed scenarios" in report2


def test_an_unreachable_server_is_exit_2_before_any_scenario(project, capsys):
    root, api = project
    scenarios = write_scenarios(root, scenario("leak"))
    url = f"http://127.0.0.1:{free_port()}/mcp"
    code, _, err = run(capsys, *base_args(scenarios, "--mcp-server", f"mimic-stripe={url}"))
    assert code == 2
    assert url in err and "unreachable" in err
    assert api.requests == []  # no scenario ran


def test_a_write_fails_the_scenario_unless_expected_refused_or_run(project, mcp_url, capsys):
    root, api = project
    write = use("mimic-stripe__create_refund", {"charge": "ch_quill_b"})
    scenarios = write_scenarios(
        root, scenario("refund"), scenario("expected", tools_called=["create_refund"])
    )
    api.replies[:] = [reply(write), reply(ANSWER)] * 2
    server = ["--mcp-server", f"mimic-stripe={mcp_url}", "--out", str(root / "ro")]
    code, report, _ = run(capsys, *base_args(scenarios, *server))
    results = json.loads((root / "ro" / "report.json").read_text())["results"]
    assert [r["status"] for r in results] == ["fail", "pass"]
    assert results[0]["write_failure"] == (
        "write attempt in a read-only eval: mimic-stripe/create_refund"
    )
    assert "write attempt in a read-only eval: mimic-stripe/create_refund" in report
    assert results[0]["write_attempts"] == ["mimic-stripe/create_refund"]
    assert "read-only evaluation" in api.requests[1]["messages"][-1]["content"][0]["content"]
    assert WRITES == []  # the refund never ran
    assert code == 1

    # --allow-writes: the refund runs on the server, persists, and fails the scenario that
    # does not expect it; the header, the report, the CSV and the JUnit XML all name it.
    api.replies[:] = [reply(write), reply(ANSWER)] * 2
    server[-1] = str(root / "rw")
    code, report, err = run(capsys, *base_args(scenarios, *server, "--allow-writes"))
    assert (
        "Tool policy: every tool runs (--allow-writes: writes persist on the server for later "
        "scenarios)" in err
    )
    assert "persists for every later scenario of this run" in err  # the run header
    assert [w[0] for w in WRITES] == ["create_refund", "create_refund"]
    results = json.loads((root / "rw" / "report.json").read_text())["results"]
    assert [r["status"] for r in results] == ["fail", "pass"]
    assert results[0]["writes_executed"] == ["mimic-stripe/create_refund"]
    assert results[0]["write_failure"] == (
        "write executed in a read-only eval: mimic-stripe/create_refund (it ran on the server)"
    )
    assert "write executed in a read-only eval: mimic-stripe/create_refund" in report
    assert "Warning: writes ran on the agent's servers in 2 scenarios" in report
    assert "persists for every later scenario" in report
    rows = list(csv.DictReader(io.StringIO((root / "rw" / "report.csv").read_text())))
    assert [r["writes_executed"] for r in rows] == ["mimic-stripe/create_refund"] * 2
    assert "write executed in a read-only eval" in (root / "rw" / "junit.xml").read_text()
    assert code == 1


def test_max_cost_stops_starting_scenarios_and_marks_the_rest_not_run(project, mcp_url, capsys):
    root, api = project
    api.replies[:] = [reply(ANSWER, usage=(100_000, 1000, 0, 0))]  # $0.315 a scenario
    scenarios = write_scenarios(root, scenario("a"), scenario("b"), scenario("c"))
    code, report, err = run(
        capsys,
        *base_args(
            scenarios, "--mcp-server", f"mimic-stripe={mcp_url}", "--max-cost", "0.5",
            "--out", str(root / "out"),
        ),
    )  # fmt: skip
    results = json.loads((root / "out" / "report.json").read_text())["results"]
    assert [r["status"] for r in results] == ["pass", "pass", "error"]
    assert results[2]["error"].startswith("not run: the run had spent $0.6300 of its --max-cost")
    assert "--max-cost $0.5" in err
    assert len(api.requests) == 2
    assert "| 3 | c | smoke |" in report and "not run" in report
    assert code == 1


def test_max_tokens_is_a_scenario_error_response_truncated(project, mcp_url, capsys):
    root, api = project
    api.replies[:] = [reply("MRR fell by", stop="max_tokens")]
    scenarios = write_scenarios(root, scenario("cut"))
    code, report, _ = run(
        capsys,
        *base_args(scenarios, "--mcp-server", f"mimic-stripe={mcp_url}", "--max-tokens", "64"),
    )
    assert code == 1
    assert "response truncated (max_tokens 64)" in report
    assert api.requests[0]["max_tokens"] == 64
