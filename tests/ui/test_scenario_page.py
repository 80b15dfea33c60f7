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
    # the agent is on this machine: its calls are "Calls", the judge's are paid (issue 21)
    line = next(c.value for c in at.caption if c.value.startswith("Calls:"))
    assert line.startswith(f"Calls: {n} to the local agent + at most ")
    judge_calls = int(line.split("at most ")[1].split()[0])
    assert judge_calls > 0 and n + judge_calls > 20
    box = at.checkbox(key=SN.CONFIRM_LIVE)
    assert f"I confirm {n + judge_calls} calls ({n} to the local agent" in box.label
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
    """Every paid run is confirmed for its count: 19 calls, then × 2, then × 3, each anew."""
    url, _ = http_agent
    at = app(SCENARIOS, **{SN.TARGET: "HTTP agent", SN.HTTP_URL: f"{url}/agent", SN.JUDGE: False})
    # the local agent's calls are "Calls" (issue 21), still confirmed for their count (issue 23)
    assert "I confirm 19 calls (19 to the local agent + 0 paid judge)" in (
        at.checkbox(key=SN.CONFIRM_LIVE).label
    )
    assert "Calls: 19 to the local agent + at most 0 paid judge" in captions(at)
    assert at.button(key=SN.RUN).disabled
    at.checkbox(key=SN.CONFIRM_LIVE).check().run()
    assert not at.button(key=SN.RUN).disabled
    at.number_input(key=SN.REPEAT).set_value(2).run()
    assert "Calls: 38 to the local agent" in captions(at)
    assert not at.checkbox(key=SN.CONFIRM_LIVE).value  # a confirmation is for its count
    assert at.button(key=SN.RUN).disabled
    at.checkbox(key=SN.CONFIRM_LIVE).check().run()
    assert not at.button(key=SN.RUN).disabled
    at.number_input(key=SN.REPEAT).set_value(3).run()  # 57 calls: confirm again
    assert "Calls: 57 to the local agent" in captions(at)
    assert not at.checkbox(key=SN.CONFIRM_LIVE).value
    assert at.button(key=SN.RUN).disabled


def test_recorded_demo_has_no_paid_calls_and_no_confirmation(app):
    at = app(SCENARIOS)
    assert "Paid calls" not in captions(at) and "Calls:" not in captions(at)
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
    from pe_eval_core.scenarios.scoring.judge import DEFAULT_JUDGE_MODEL

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-local-only")
    monkeypatch.delenv("PE_EVAL_JUDGE_MODEL", raising=False)
    at = app(SCENARIOS, **{SN.TARGET: "Anthropic model", SN.MODEL: DEFAULT_JUDGE_MODEL})
    assert not at.exception
    judge_line = next(c.value for c in at.caption if "Judge:" in c.value).replace("\\", "")
    assert "Judge: on" in judge_line
    assert DEFAULT_JUDGE_MODEL not in judge_line, "the judge is not the target's model"
    assert "not the target's model" in judge_line


def test_recorded_target_uses_recorded_verdicts(app):
    at = app(SCENARIOS)
    assert "Judge: recorded verdicts" in captions(at)


# --- 3. warnings, errors, repeats, statistics, behaviour, verdict ---------------------------


def scenario_folder(tmp_path: Path, scenarios: list[dict], responses: list[dict]) -> Path:
    """A scenarios file with its recorded responses beside it (no recorded verdicts)."""
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "recorded-responses.json").write_text(json.dumps(responses))
    path = folder / "scenarios.json"
    path.write_text(json.dumps(scenarios))
    return path


def scenario(name: str, tier: str = "functional", **expect: Any) -> dict[str, Any]:
    return {
        "name": name,
        "input": f"question for {name}",
        "expect": expect,
        "metadata": {"tier": tier, "source_fact": f"fact_{name}"},
    }


def run_page(app, path: Path, **state_: Any):
    at = app(SCENARIOS, **{state.Sidebar.SCENARIOS_FILE: str(path), SN.JUDGE: False, **state_})
    if [c for c in at.checkbox if c.key == SN.CONFIRM_LIVE]:  # a live target: confirm the count
        at.checkbox(key=SN.CONFIRM_LIVE).check().run()
    at.button(key=SN.RUN).click().run()
    assert not at.exception
    return at


def texts(elements) -> str:
    return "\n".join(e.value for e in elements).replace("\\", "")


def test_run_warnings_are_shown_above_the_table(app, tmp_path):
    path = scenario_folder(
        tmp_path,
        [scenario("a", response_contains=["refund"], sentiment="calm")],
        [{"name": "a", "response": "A refund was issued."}],
    )
    at = run_page(app, path)
    run = json.loads(at.session_state[SN.RESULT])
    assert run["warnings"], "the core warns about the unknown expectation key"
    shown = texts(at.warning)
    for warning in run["warnings"]:
        assert warning.replace("\\", "") in shown
    assert "sentiment" in shown


def test_errors_are_shown_apart_and_left_out_of_the_pass_rate(app):
    from pe_eval_core.scenarios import ScenarioRun
    from pe_eval_core.wording import fmt_pct

    at = app(SCENARIOS)
    at.button(key=SN.RUN).click().run()
    run = ScenarioRun.model_validate_json(at.session_state[SN.RESULT])
    assert run.errors >= 1, "the demo has an errored scenario"
    assert run.error_summary() in texts(at.warning)
    assert "left out" in texts(at.warning)
    assert metric_value(at, "Pass rate") == fmt_pct(run.passed / (run.passed + run.failed))


def metric_value(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_tier_table_and_chart_carry_the_cores_95_percent_interval(app):
    from pe_eval_core.scenarios import ScenarioRun
    from pe_eval_core.wording import fmt_interval

    at = app(SCENARIOS)
    at.button(key=SN.RUN).click().run()
    run = ScenarioRun.model_validate_json(at.session_state[SN.RESULT])
    table = at.table[0].value
    for t in run.tier_stats():
        row = table.loc[t.tier]
        assert row["95% interval"] == fmt_interval(t.low, t.high)  # as the chart labels it
        assert row["Method"] == t.method
        assert row["Pass rate"].startswith(f"{t.passes}/{t.runs} ")
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert "errorbar" in marks
    from ui import charts

    built = charts.tier_chart(at.session_state[SN.RESULT_VIEW]["tiers"]).to_dict()
    (rows,) = built["datasets"].values()
    labels = {r["tier"]: r["label"] for r in rows}
    for t in run.tier_stats():
        assert labels[t.tier].endswith(f"95% CI {fmt_interval(t.low, t.high)}")


def test_repeat_runs_each_scenario_k_times_and_marks_flaky_scenarios(app, tmp_path):
    """An agent right on the first ask and wrong on the second: flaky, with K=2 rows each."""
    path = scenario_folder(
        tmp_path,
        [
            scenario("steady", response_contains=["refund"]),
            scenario("wobbly", response_contains=["refund"]),
        ],
        [],
    )
    asked: dict[str, int] = {}

    def answer(_path: str, body: dict[str, Any]) -> dict[str, Any]:
        asked[body["message"]] = asked.get(body["message"], 0) + 1
        wrong = "wobbly" in body["message"] and asked[body["message"]] % 2 == 0
        return {"text": "no idea" if wrong else "A refund was issued.", "toolCalls": []}

    for url, _ in serve(answer):
        at = run_page(
            app,
            path,
            **{
                SN.TARGET: "HTTP agent",
                SN.HTTP_URL: f"{url}/agent",
                SN.REPEAT: 2,
                SN.CONCURRENCY: 1,
            },
        )
    run = json.loads(at.session_state[SN.RESULT])
    assert run["repeats"] == 2 and len(run["results"]) == 4
    table = next(d.value for d in at.dataframe if "Scenario" in d.value.columns)
    assert sorted(table["Run"]) == [1, 1, 2, 2]
    assert set(table[table["Flaky"]]["Scenario"]) == {"wobbly"}
    flaky = texts(at.warning)
    assert "1 flaky" in flaky and "wobbly" in flaky and "steady" not in flaky
    assert at.selectbox(key=SN.FAILURE).options == ["wobbly · run 2"]
    stats = at.table[-1].value  # per scenario over its runs, from the core's statistics
    assert stats.loc["wobbly", "Passed"] == "1/2" and stats.loc["wobbly", "Outcome"] == "flaky"
    assert stats.loc["wobbly", "pass@k"] == "100%" and stats.loc["wobbly", "pass^k"] == "0%"
    assert stats.loc["steady", "Passed"] == "2/2" and stats.loc["steady", "pass^k"] == "100%"


def test_behaviour_checks_have_their_own_lines_in_the_drill_down(app, tmp_path):
    path = scenario_folder(
        tmp_path,
        [scenario("refund", response_contains=["refund"], tools_called=["create_refund"])],
        [
            {
                "name": "refund",
                "response": "A refund was issued.",
                "tool_calls": [{"name": "list_invoices", "arguments": {}}],
            }
        ],
    )
    at = run_page(app, path)
    run = json.loads(at.session_state[SN.RESULT])
    (check,) = run["results"][0]["behaviour"]
    assert not check["satisfied"]
    lines = texts(at.markdown)
    assert "✗ `tools_called`" in lines and "create_refund" in lines
    table = next(d.value for d in at.dataframe if "Scenario" in d.value.columns)
    assert list(table["Behaviour"]) == ["0/1"]
    assert "tools_called" in texts(at.error)  # the why-line names the failed check


def test_verdict_vs_the_previous_run_then_vs_the_pinned_baseline(app, _isolated_home, tmp_path):
    from pe_eval_core.history.store import RunStore

    at = app(SCENARIOS)
    at.button(key=SN.RUN).click().run()
    # the demo has failures: the run's banner is red whatever the comparison says
    assert "vs baseline" not in texts(at.success) + texts(at.error), "nothing to compare yet"
    assert "No earlier run with the same setup" in texts(at.error)
    first = at.session_state[SN.HISTORY_ID]
    store = RunStore(_isolated_home / "history.sqlite")
    # the same recorded responses scored again are the same run: nothing added (issue 21)
    at.button(key=SN.RUN).click().run()
    assert at.session_state[SN.HISTORY_ID] == first and store.count_runs() == 1
    # One passing scenario's answer emptied (same file name, same setup): a new run, compared
    # like for like with the previous one, and its regression is red, never green.
    run = json.loads(at.session_state[SN.RESULT])
    passing = next(r["name"] for r in run["results"] if r["status"] == "pass")
    recorded = json.loads((DEMO_SCENARIOS.parent / "recorded-responses.json").read_text())
    for r in recorded:
        if r["name"] == passing:
            r["response"] = "I could not find that."
    edited = tmp_path / "recorded-responses.json"
    edited.write_text(json.dumps(recorded), encoding="utf-8")
    at.text_input(key=SN.RESPONSES).set_value(str(edited))
    at.button(key=SN.RUN).click().run()
    second = at.session_state[SN.HISTORY_ID]
    verdict = texts(at.error)
    assert second != first and "vs baseline" in verdict and "regression" in verdict
    assert "previous run with the same setup" in verdict and f"run={first}" in verdict
    assert not texts(at.success), "a regression is never green"
    # ... and against the first run pinned as the baseline
    store.pin_baseline(first)
    at.run()
    assert "pinned baseline" in texts(at.error)
    # Judge off is another setup (it loses the judge's paraphrases): the pinned run is not
    # used as its baseline, and the first screen says why instead of listing "regressions".
    at.toggle(key=SN.JUDGE).set_value(False).run()
    at.button(key=SN.RUN).click().run()
    lead = texts(at.error)
    assert "vs baseline" not in lead
    assert f"The pinned baseline, run #{first}, was not used" in lead
    assert "Not like for like: judge recorded:claude-sonnet-4-5 vs none" in lead


# --- 4. the agent's response, sanitised -----------------------------------------------------

HOSTILE = (
    "**Refund** summary <img src=http://x/track.png> <script>alert(1)</script>\n\n"
    "![chart](http://x/chart.png) and [details](https://x.example/steal) for $4,820."
)


def test_hostile_response_renders_as_safe_markdown_with_a_raw_toggle(app, tmp_path):
    path = scenario_folder(
        tmp_path,
        [scenario("hostile", response_contains=["double charge"])],
        [{"name": "hostile", "response": HOSTILE}],
    )
    at = run_page(app, path)
    rendered = [m.value for m in at.markdown if "summary" in m.value]
    assert len(rendered) == 1
    body = rendered[0]
    assert "**Refund**" in body, "markdown stays markdown"
    for forbidden in ("<img", "<script", "](http", "](https", "http://x/chart.png"):
        assert forbidden not in body
    assert "&lt;script" in body and "[image: chart]" in body and "details" in body
    assert "\\$4,820" in body, "a dollar amount is not read as LaTeX"
    assert not any(m.proto.allow_html for m in at.markdown if "summary" in m.value)
    assert not any("summary" in h.value for h in at.get("html"))
    at.toggle(key=SN.RAW).set_value(True).run()
    raw = next(h.value for h in at.get("html") if "summary" in h.value)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw and "<script" not in raw
    assert "&lt;img src=http://x/track.png&gt;" in raw


@pytest.mark.parametrize(
    "response,forbidden,kept",
    [
        ("<img src=http://x/a.png>", ["<img"], ["&lt;img"]),
        ("<script>alert(1)</script>", ["<script"], ["&lt;script>"]),
        ("![pixel](http://x/p.png)", ["](http", "!["], ["[image: pixel]"]),
        ("![](https://x/p.png 'title')", ["](http", "!["], ["[image: no description]"]),
        ("![ref][1]\n\n[1]: http://x/r.png", ["http://x/r.png", "!["], ["[image: ref]"]),
        ("[click](https://x.example/s)", ["](http"], ["click"]),
        ("[![x](http://a/i.png)](http://b/)", ["](http", "http://a"], ["[image: x]"]),
        ("<https://x.example/auto>", ["<https"], ["https://x.example/auto"]),
        ("[local](#section) stays", [], ["[local](#section)"]),
        ("lost $4,820 and $1,640", [" $4"], ["\\$4,820", "\\$1,640"]),
        ("**bold** | a | b |\n|---|---|", [], ["**bold**", "|---|"]),
    ],
)
def test_safe_markdown_fetches_nothing_and_runs_nothing(response, forbidden, kept):
    from ui.views.scenario_failure import safe_markdown

    out = safe_markdown(response)
    for text in forbidden:
        assert text not in out
    for text in kept:
        assert text in out
