"""The scenario page against the core's cost guard, judge policy, statistics and warnings.

Every agent and every Anthropic endpoint here is a local HTTP server on 127.0.0.1 (the SDK is
pointed at it with ``ANTHROPIC_BASE_URL``); nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ui import state

ROOT = Path(__file__).resolve().parents[2]
DEMO_SCENARIOS = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"
SCENARIOS = "app_pages/scenario_eval.py"
SN = state.Scenarios


def serve(handle: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Iterator[tuple[str, list]]:
    """A JSON-over-POST server on 127.0.0.1: ``handle(path, body) -> reply``; yields its base
    URL and the bodies it received."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            reply = json.dumps(handle(self.path, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def recorded_by_input(scenarios_path: Path = DEMO_SCENARIOS) -> dict[str, str]:
    from pe_eval_core.scenarios import load_recorded, load_scenarios

    recorded = load_recorded(DEMO_SCENARIOS.parent / "recorded-responses.json")
    return {
        s.input: (recorded[s.name].response or "") if s.name in recorded else ""
        for s in load_scenarios(scenarios_path)
    }


@pytest.fixture
def http_agent() -> Iterator[tuple[str, list]]:
    """A local agent speaking Mimic's HTTP contract with the recorded demo answers."""
    by_input = recorded_by_input()
    yield from serve(
        lambda _path, body: {"text": by_input.get(body["message"], ""), "toolCalls": []}
    )


@pytest.fixture
def anthropic_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[list]:
    """A local stand-in for the Messages API (the judge's tool answer, every phrase missed),
    with a key in the environment and the SDK pointed at it."""

    def answer(_path: str, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "msg_local",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_local",
                    "name": body["tools"][0]["name"],
                    "input": {"verdicts": []},
                }
            ],
        }

    for url, seen in serve(answer):
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-local-only")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        yield seen


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption).replace("\\", "")


# --- 1. the cost guard --------------------------------------------------------------------


def test_cold_live_judge_over_20_calls_shows_the_count_and_needs_confirmation(
    app, http_agent, anthropic_api
):
    from pe_eval_core.scenarios import load_scenarios

    url, agent_seen = http_agent
    at = app(SCENARIOS, **{SN.TARGET: "HTTP agent", SN.HTTP_URL: f"{url}/agent"})
    assert not at.exception
    n = len(load_scenarios(DEMO_SCENARIOS))
    line = next(c.value for c in at.caption if c.value.startswith("Paid calls:"))
    assert line.startswith(f"Paid calls: {n} target + at most ")
    judge_calls = int(line.split("at most ")[1].split()[0])
    assert judge_calls > 0 and n + judge_calls > 20
    box = at.checkbox(key=SN.CONFIRM_LIVE)
    assert f"{n + judge_calls} paid calls" in box.label
    assert at.button(key=SN.RUN).disabled
    assert not agent_seen, "counting calls nothing"
    box.check().run()
    assert not at.button(key=SN.RUN).disabled
    at.button(key=SN.RUN).click().run()
    assert not at.exception
    shown = "\n".join(e.value for e in at.error)
    assert "not confirmed" not in shown
    run = json.loads(at.session_state[SN.RESULT])
    assert len(run["results"]) == n
    assert len(agent_seen) == n
    assert anthropic_api, "the confirmed run called the (local) judge"


def test_repeats_multiply_the_count_past_the_threshold(app, http_agent):
    """19 scenarios on a live agent with the judge off need no confirmation; × 2 they do."""
    url, _ = http_agent
    at = app(SCENARIOS, **{SN.TARGET: "HTTP agent", SN.HTTP_URL: f"{url}/agent", SN.JUDGE: False})
    assert not [c for c in at.checkbox if c.key == SN.CONFIRM_LIVE]
    assert "Paid calls: 19 target + at most 0 judge" in captions(at)
    assert not at.button(key=SN.RUN).disabled
    at.number_input(key=SN.REPEAT).set_value(2).run()
    assert "Paid calls: 38 target" in captions(at)
    assert at.checkbox(key=SN.CONFIRM_LIVE)
    assert at.button(key=SN.RUN).disabled


def test_recorded_demo_has_no_paid_calls_and_no_confirmation(app):
    at = app(SCENARIOS)
    assert "Paid calls" not in captions(at)
    assert not [c for c in at.checkbox if c.key == SN.CONFIRM_LIVE]
    assert not at.button(key=SN.RUN).disabled


# --- 2. the judge control -----------------------------------------------------------------


def test_judge_without_a_key_is_shown_as_cache_only(app, http_agent):
    url, _ = http_agent
    at = app(SCENARIOS, **{SN.TARGET: "HTTP agent", SN.HTTP_URL: f"{url}/agent"})
    text = captions(at)
    assert "Judge: cache only" in text
    assert "judge error" in text and "verdict cache" in text
    assert "Judge: on" not in text


def test_judge_with_a_key_is_on_and_differs_from_the_target_model(app, monkeypatch):
    from pe_eval_core.scenarios.judge import DEFAULT_JUDGE_MODEL

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-local-only")
    monkeypatch.delenv("PE_EVAL_JUDGE_MODEL", raising=False)
    at = app(SCENARIOS, **{SN.TARGET: "Anthropic model", SN.MODEL: DEFAULT_JUDGE_MODEL})
    assert not at.exception
    judge_line = next(c.value for c in at.caption if "Judge:" in c.value).replace("\\", "")
    assert "Judge: on" in judge_line
    assert DEFAULT_JUDGE_MODEL not in judge_line, "the judge is not the target's model"


def test_recorded_target_uses_recorded_verdicts(app):
    at = app(SCENARIOS)
    assert "Judge: recorded verdicts" in captions(at)
