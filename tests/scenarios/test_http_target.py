"""The HTTP target against a real server on 127.0.0.1 (Mimic's agent contract)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from pe_eval_core.errors import TargetConfigError
from pe_eval_core.scenarios import HttpTarget, TargetResponse
from tests.helpers.scenario_helpers import make_scenario


class Agent(BaseHTTPRequestHandler):
    """Routes by path: /ok, /fail (500), /slow (sleeps), /notjson, /notext."""

    received: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Agent.received.append(
            {"path": self.path, "body": body, "type": self.headers["Content-Type"]}
        )
        if self.path == "/ok":
            reply = {
                "text": f"echo: {body['message']}",
                "toolCalls": [{"name": "db", "arguments": {}}],
            }
            self._send(200, json.dumps(reply).encode(), "application/json")
        elif self.path == "/fail":
            self._send(500, b"Traceback: database exploded " + b"x" * 2000, "text/plain")
        elif self.path == "/slow":
            time.sleep(1.0)
            self._send(200, b'{"text": "late"}', "application/json")
        elif self.path == "/notjson":
            self._send(200, b"<html>gateway says hi</html>", "text/html")
        else:
            self._send(200, b'{"message": "no text field"}', "application/json")

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client timed out
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def call(url: str, timeout_s: float = 5.0) -> TargetResponse:
    async def go() -> TargetResponse:
        async with HttpTarget(url, timeout_s=timeout_s) as target:
            return await target.respond(make_scenario(response_contains=["x"]))

    return asyncio.run(go())


def test_success_follows_mimics_contract(agent_url):
    got = call(f"{agent_url}/ok")
    assert got.error is None and got.text == "echo: question for s1"
    assert got.tool_calls == [{"name": "db", "arguments": {}}]
    last = Agent.received[-1]
    assert last["body"] == {"message": "question for s1"}
    assert last["type"].startswith("application/json")


def test_500_is_an_error_with_status_and_body_excerpt(agent_url):
    got = call(f"{agent_url}/fail")
    assert got.text is None
    assert got.error.startswith(f"HTTP 500 from agent at {agent_url}/fail: Traceback: database")
    assert len(got.error) < 500  # an excerpt, not the whole body


def test_timeout_is_an_error(agent_url):
    started = time.perf_counter()
    got = call(f"{agent_url}/slow", timeout_s=0.2)
    assert got.error == f"agent at {agent_url}/slow timed out after 0.2s"
    assert time.perf_counter() - started < 0.9


def test_bad_json_and_missing_text_are_errors(agent_url):
    got = call(f"{agent_url}/notjson")
    assert "not JSON" in got.error and "gateway says hi" in got.error
    got = call(f"{agent_url}/notext")
    assert 'without a string "text" field' in got.error


def test_unreachable_agent_is_an_error():
    # a port nobody listens on: bind then close to get a free one
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    got = call(f"http://127.0.0.1:{port}/agent", timeout_s=2)
    assert got.error.startswith(f"could not reach agent at http://127.0.0.1:{port}/agent")


def test_respond_without_async_with_opens_its_own_client(agent_url):
    target = HttpTarget(f"{agent_url}/ok")
    got = asyncio.run(target.respond(make_scenario(response_contains=["x"])))
    assert got.text == "echo: question for s1"


@pytest.mark.parametrize("url", ["", "ftp://x/y", "localhost:8080", "http://"])
def test_bad_urls_are_config_errors(url):
    with pytest.raises(TargetConfigError):
        HttpTarget(url)
