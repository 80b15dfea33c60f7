"""Class 4: secrets stay behind the one redaction choke point (issue 23).

Surfaces: ``scenarios run --target http`` against an agent on 127.0.0.1 that echoes the
credentials it was sent (``user:password@`` and ``?token=`` in the agent URL, a header given
as ``--agent-header NAME=env:VAR``) in answers and in an error body; ``--target anthropic``
with an ``.mcp.json`` header secret and a tool that echoes it and a bearer token; the
history CLI with a PostgreSQL URL whose password the connection error would quote; the
History page (AppTest) on a run recorded with credentials in its target. After each: stdout,
stderr, every file under the report folder and ``$PE_EVAL_HOME`` (saved responses, the SQLite
history) are grepped for every secret; and both history databases (SQLite and a real
PostgreSQL) are read back whole, every row and every blob unpacked, and grepped."""

from __future__ import annotations

import http.server
import json
import os
import threading
from pathlib import Path

import pytest

from tests.helpers.hostile_kit import (
    database_text,
    grep_tree,
    rendered_text,
    reply,
    run_cli,
    scenario,
    use,
    write_scenarios,
)

pytestmark = pytest.mark.timeout(180)

URL_PASSWORD = "urlPASSWORD0123456789"
URL_TOKEN = "querytoken0123456789"
HEADER = "Bearer agentheader0123456789abc"
MCP_HEADER = "mcpheadersecret0123456789"
SEEN: list[dict[str, str]] = []


class _Echo(http.server.BaseHTTPRequestHandler):
    """An agent that repeats back everything it was sent, credentials included."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        SEEN.append(dict(self.headers))
        auth = self.headers.get("Authorization")
        echo = f"path {self.path}; auth {auth}; url http://bot:{URL_PASSWORD}@x"
        if "fails" in body["message"]:
            data = json.dumps({"error": echo}).encode()
            self.send_response(500)
        else:
            call = {"name": "list_invoices", "arguments": {"token": URL_TOKEN}}
            data = json.dumps({"text": f"MRR fell $241.00. {echo}", "toolCalls": [call]}).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_agent():
    SEEN.clear()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()


def _all_clean(*texts: str, roots: tuple[Path, ...], secrets: tuple[str, ...]) -> None:
    for text in texts:
        for s in secrets:
            assert s not in text, f"{s[:10]}... printed"
    for root in roots:
        assert grep_tree(root, *secrets) == []


def test_http_agent_credentials_reach_no_output(project, echo_agent, capsys, monkeypatch):
    root, _ = project
    monkeypatch.setenv("AGENT_AUTH", HEADER)
    url = f"http://bot:{URL_PASSWORD}@127.0.0.1:{echo_agent}/chat?token={URL_TOKEN}"
    scenarios = write_scenarios(root, scenario("answers"), scenario("fails"))
    code, out, err = run_cli(
        capsys,
        "scenarios", "run", "--target", "http", "--agent-url", url, "--scenarios",
        str(scenarios), "--agent-header", "Authorization=env:AGENT_AUTH", "--no-judge", "--yes",
        "--out", str(root / "out"), "--verbose",
    )  # fmt: skip
    assert code == 1, err  # one pass, one agent error
    assert SEEN and all(h.get("Authorization") == HEADER for h in SEEN)  # the option works
    assert "[redacted]" in out + err
    home = Path(os.environ["PE_EVAL_HOME"])
    secrets = (URL_PASSWORD, URL_TOKEN, HEADER.split()[1])
    _all_clean(out, err, roots=(root / "out", home), secrets=secrets)
    report = json.loads((root / "out" / "report.json").read_text())
    assert report["results"][0]["status"] == "pass"

    # the history CLI lists and shows the run without them
    for argv in (("history", "list"), ("history", "show", "latest")):
        _, out, err = run_cli(capsys, *argv)
        _all_clean(out, err, roots=(), secrets=secrets)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_no_secret_in_either_history_database(
    backend, project, echo_agent, capsys, monkeypatch, request
):
    """Both databases read back whole: every row of every table and every blob unpacked (the
    responses are stored compressed, so a grep of the file alone would not see them)."""
    root, _ = project
    target = None
    if backend == "postgresql":
        import uuid

        import psycopg

        server = request.getfixturevalue("postgres")
        name = f"pe_eval_secrets_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        target = server.url.rsplit("/", 1)[0] + "/" + name
        monkeypatch.setenv("PE_EVAL_DATABASE_URL", target)
    monkeypatch.setenv("AGENT_AUTH", HEADER)
    url = f"http://bot:{URL_PASSWORD}@127.0.0.1:{echo_agent}/chat?token={URL_TOKEN}"
    scenarios = write_scenarios(root, scenario("answers"), scenario("fails"))
    code, _, err = run_cli(
        capsys,
        "scenarios", "run", "--target", "http", "--agent-url", url, "--scenarios",
        str(scenarios), "--agent-header", "Authorization=env:AGENT_AUTH", "--no-judge", "--yes",
    )  # fmt: skip
    assert code == 1, err
    stored = database_text(target)
    assert "MRR fell $241.00" in stored and "bot:[redacted]@" in stored  # the run is there
    for secret in (URL_PASSWORD, URL_TOKEN, HEADER.split()[1]):
        assert secret not in stored, f"{secret[:10]}... stored in the {backend} history"


def test_mcp_header_and_bearer_tokens_in_tool_results_reach_no_output(
    project, hostile_mcp_url, capsys
):
    from tests.helpers.hostile_kit import BEARER

    root, api = project
    (root / "agent.mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "mimic-stripe": {
                        "type": "http",
                        "url": hostile_mcp_url,
                        "headers": {"X-Api-Key": MCP_HEADER, "X-Other": "plain"},
                    }
                }
            }
        )
    )
    api.replies[:] = [
        reply(
            use("mimic-stripe__get_stripe_account_info", {}, id="a"),
            use("mimic-stripe__list_invoices", {"customer": "c"}, id="b"),
        ),
        reply(f"MRR fell $241.00 (key {MCP_HEADER}, token Bearer {BEARER})."),
    ]
    scenarios = write_scenarios(root, scenario("s"))
    code, out, err = run_cli(
        capsys,
        "scenarios", "run", "--target", "anthropic", "--scenarios", str(scenarios),
        "--mcp-config", str(root / "agent.mcp.json"), "--no-judge", "--yes",
        "--out", str(root / "out"),
    )  # fmt: skip
    assert code == 0, err
    home = Path(os.environ["PE_EVAL_HOME"])
    _all_clean(out, err, roots=(root / "out", home), secrets=(MCP_HEADER, BEARER))
    # the model was not sent the operator's MCP credential either
    assert all(MCP_HEADER not in json.dumps(r) for r in api.requests)


def test_a_database_password_is_never_quoted(capsys):
    password = "dbPASSWORD0123456789"
    for url in (
        f"postgresql://u:{password}@127.0.0.1:1/pe",
        f"postgresql://u:{password}@h:notaport/pe",
    ):
        code, out, err = run_cli(capsys, "history", "list", "--database-url", url)
        assert code == 2 and password not in out + err, err


def test_the_history_page_never_shows_recorded_credentials(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from pe_eval_core.history.store import RunStore
    from tests.helpers.history_builders import make_result, make_scenario_run

    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    old = make_scenario_run([make_result("s", "smoke", "pass")])
    old = old.model_copy(
        update={"target": f"http:http://bot:{URL_PASSWORD}@h/chat?access_token={URL_TOKEN}"}
    )
    RunStore().record_scenario_run(old)  # as a CLI run before the fix stored it
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/run_history.py")
    at.run()
    assert not at.exception
    shown = rendered_text(at)
    assert "bot:[redacted]@h" in shown
    assert URL_PASSWORD not in shown and URL_TOKEN not in shown
    at.session_state["history.open"] = "latest"
    at.run()
    shown = rendered_text(at)
    assert not at.exception and URL_PASSWORD not in shown and URL_TOKEN not in shown
