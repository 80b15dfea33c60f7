"""Errors are not failures (an outage stops the run, exits 2, keeps earlier reports), repeats
with statistics in every output, and the cost guard counting judge calls as well as target
calls. Real sockets on 127.0.0.1 only; the judge through the SDK's mock transport."""

from __future__ import annotations

import csv
import http.server
import io
import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import LiveRunNotConfirmedError, TargetUnreachableError
from pe_eval_core.scenarios import (
    RecordedTarget,
    TargetResponse,
    load_scenarios,
    render_markdown_report,
    run_scenarios_sync,
    run_to_csv,
    run_to_json,
    run_to_junit_xml,
)
from pe_eval_core.scenarios.agent.protocol import TargetBase
from pe_eval_core.scenarios.agent.targets import HttpTarget
from pe_eval_core.scenarios.run.runner import count_paid_calls_sync, infrastructure_error
from pe_eval_core.scenarios.scoring.judge import AnthropicJudge
from pe_eval_core.scenarios.scoring.judge.cache import CachedJudge
from tests.helpers.scenario_helpers import DEMO, make_scenario, message_json

# --- helpers --------------------------------------------------------------------------------


def free_port() -> int:
    """A local port nobody listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Handler(http.server.BaseHTTPRequestHandler):
    status = 401
    hits: list[str]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self.server.hits.append(self.rfile.read(length).decode())  # type: ignore[attr-defined]
        body = json.dumps({"error": "invalid api key"}).encode()
        self.send_response(self.server.status)  # type: ignore[attr-defined]
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[http.server.ThreadingHTTPServer]:
    """A real HTTP agent on 127.0.0.1 that answers every request 401."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.hits = []  # type: ignore[attr-defined]
    server.status = 401  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def write_scenarios(path: Path, n: int) -> Path:
    data = [
        {
            "name": f"s{i}",
            "input": f"question {i}",
            "expect": {"response_contains": [f"fact {i}"]},
            "metadata": {"tier": "functional", "source_fact": f"fact_{i:03d}"},
        }
        for i in range(n)
    ]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def earlier_reports(out: Path) -> dict[str, str]:
    out.mkdir()
    files = {"report.md": "# the good report of yesterday\n", "responses.json": "[]\n"}
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return files


# --- 1. errors are not failures -------------------------------------------------------------


def test_unreachable_agent_stops_after_three_exits_2_and_keeps_earlier_reports(tmp_path, capsys):
    scen = write_scenarios(tmp_path / "s.json", 8)
    out = tmp_path / "out"
    before = earlier_reports(out)
    url = f"http://127.0.0.1:{free_port()}/agent"
    code = main(
        ["scenarios", "run", "--target", "http", "--agent-url", url, "--scenarios", str(scen),
         "--no-judge", "--concurrency", "1", "--out", str(out)]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == before
    assert "could not reach agent" in err and "agent unreachable" in err
    assert "8 errors: agent unreachable" in err  # 3 tried, 5 not started, all one cause
    assert "nothing written to" in err and "(option --target)" in err


def test_agent_refusing_auth_is_asked_three_times_then_the_run_stops(
    tmp_path, capsys, refusing_server
):
    scen = write_scenarios(tmp_path / "s.json", 10)
    url = f"http://127.0.0.1:{refusing_server.server_address[1]}/chat"
    code = main(
        ["scenarios", "run", "--target", "http", "--agent-url", url, "--scenarios", str(scen),
         "--no-judge", "--concurrency", "1", "--yes"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert len(refusing_server.hits) == 3  # stopped: the other 7 never sent
    assert "HTTP 401" in err and "authentication refused" in err
    assert "not recorded in history" in err
    history = main(["history", "list", "--kind", "scenarios"])
    assert history == 0 and "s.json" not in capsys.readouterr().out


def test_the_runner_marks_the_stop_and_the_typed_error_names_the_cause(refusing_server):
    url = f"http://127.0.0.1:{refusing_server.server_address[1]}/chat"
    scenarios = [make_scenario(f"s{i}", response_contains=["x"]) for i in range(6)]
    run = run_scenarios_sync(scenarios, HttpTarget(url), concurrency=1, save_responses=False)
    assert run.stopped is not None and "authentication refused" in run.stopped
    assert [r.error_kind for r in run.results] == ["auth"] * 6
    assert run.results[5].error.startswith("not run: the run stopped on transport errors")
    err = infrastructure_error(run)
    assert isinstance(err, TargetUnreachableError) and "HTTP 401" in err.message
    assert run.ran == 0 and run.pass_rate == 0.0


class Flaky(TargetBase):
    """Live-like target: ``s0`` unreachable on the first call only, the rest answer."""

    name = "flaky"
    model = None
    live = False

    def __init__(self, down: set[str] = frozenset(), wrong: set[str] = frozenset()):
        self.down, self.wrong, self.calls = down, wrong, 0

    async def respond(self, scenario) -> TargetResponse:
        self.calls += 1
        if scenario.name in self.down:
            return TargetResponse(error="could not reach agent: refused", error_kind="unreachable")
        n = scenario.name[1:]
        return TargetResponse(text="nothing" if scenario.name in self.wrong else f"fact {n}")


def test_isolated_errors_do_not_stop_the_run_and_are_left_out_of_the_pass_rate():
    scenarios = [
        make_scenario(f"s{i}", response_contains=[f"fact {i}"], metadata={"tier": "smoke"})
        for i in range(6)
    ]
    target = Flaky(down={"s0", "s3"}, wrong={"s5"})  # never three in a row
    run = run_scenarios_sync(scenarios, target, concurrency=1, save_responses=False)
    assert run.stopped is None and infrastructure_error(run) is None and target.calls == 6
    assert (run.passed, run.failed, run.errors, run.ran) == (3, 1, 2, 4)
    assert run.pass_rate == 0.75  # 3 of the 4 that ran, not 3 of 6
    smoke = run.by_tier()[0]
    assert (smoke.ran, smoke.pass_rate) == (4, 0.75)
    assert run.error_summary() == "2 errors: agent unreachable"
    report = render_markdown_report(run)
    assert "**Pass rate:** 75%  |  **Errors:** 2 (2 agent unreachable; not in the pass rate)" in (
        report
    )
    assert "- smoke:        3/4 (75%), 2 errors not counted" in report
    rows = list(csv.DictReader(io.StringIO(run_to_csv(run))))
    assert [(r["status"], r["error_kind"]) for r in rows[:2]] == [
        ("error", "unreachable"),
        ("pass", ""),
    ]
    conclusion = run.conclusion()
    assert "Worst tier: smoke (3/4 passed, 75%)" in conclusion
    assert "Not judged: 2 errors: agent unreachable." in conclusion


def test_the_conclusion_names_only_facts_of_scenarios_that_ran():
    scenarios = [
        make_scenario(
            f"s{i}", response_contains=[f"fact {i}"],
            metadata={"tier": "functional", "source_fact": f"fact_err{i}" if i < 2 else "fact_x"},
        )
        for i in range(4)
    ]  # fmt: skip
    run = run_scenarios_sync(
        scenarios, Flaky(down={"s0", "s1"}, wrong={"s2"}), concurrency=1, save_responses=False
    )
    assert "[fact_x]" in run.conclusion() and "fact_err" not in run.conclusion()


# --- 2. repeats and statistics --------------------------------------------------------------


class Alternating(TargetBase):
    """A live-ish agent whose answer to ``s1`` is right on odd calls only."""

    name = "alt"
    model = None
    live = True

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    async def respond(self, scenario) -> TargetResponse:
        n = self.calls[scenario.name] = self.calls.get(scenario.name, 0) + 1
        i = scenario.name[1:]
        if scenario.name == "s1" and n % 2 == 0:
            return TargetResponse(text="no idea")
        if scenario.name == "s2":
            return TargetResponse(text="no idea")
        return TargetResponse(text=f"fact {i}")


def test_repeat_runs_each_scenario_k_times_with_hand_computed_statistics():
    scenarios = [
        make_scenario(f"s{i}", response_contains=[f"fact {i}"],
                      metadata={"tier": "functional", "source_fact": f"fact_{i}"})
        for i in range(3)
    ]  # fmt: skip
    target = Alternating()
    run = run_scenarios_sync(scenarios, target, repeat=4, save_responses=False)
    assert target.calls == {"s0": 4, "s1": 4, "s2": 4}
    assert run.total == 12 and run.repeats == 4
    assert [(r.name, r.repeat) for r in run.results[:5]] == [
        ("s0", 1), ("s0", 2), ("s0", 3), ("s0", 4), ("s1", 1)
    ]  # fmt: skip
    stats = {s.name: s for s in run.scenario_stats()}
    assert (stats["s1"].passes, stats["s1"].runs, stats["s1"].flaky) == (2, 4, True)
    # pass@4 with n=4, c=2: 1 - C(2,4)/C(4,4) = 1; pass^4 = C(2,4)/C(4,4) = 0
    assert stats["s1"].pass_at(4) == 1.0 and stats["s1"].pass_hat(4) == 0.0
    assert stats["s1"].pass_at(1) == 0.5 and stats["s1"].pass_hat(2) == pytest.approx(1 / 6)
    (tier,) = run.tier_stats()
    # 6 passes of 12 runs in 3 clusters (4, 2, 0 passes of 4): p = 0.5,
    # robust variance = 3/2 * ((4-2)^2 + 0^2 + (0-2)^2) / 12^2 = 1/12; binomial 0.25/12;
    # deff = 4, n_eff = 12/4 = 3 (= the 3 clusters); Wilson(0.5, 3): denominator
    # 1 + z^2/3 = 2.2805, centre 0.5, half-width 1.96 * sqrt(0.25/3 + z^2/36) / 2.2805 = 0.3747
    assert (tier.passes, tier.runs, tier.clusters) == (6, 12, 3)
    assert tier.n_eff == pytest.approx(3.0)
    assert (round(tier.low, 4), round(tier.high, 4)) == (0.1253, 0.8747)
    report = render_markdown_report(run)
    assert "- functional: 6/12 = 50.0%, 95% CI [12.5%, 87.5%] (Wilson on effective n=3.0" in (
        report
    )
    assert "| s1 | functional | 2/4 | 1.00 | 0.00 | flaky |" in report
    assert "| s0 | functional | 4/4 | 1.00 | 1.00 |  |" in report
    assert "Flaky (passed and failed): s1" in report
    # repeats count once per scenario in the conclusion's facts
    assert "[fact_1] (1 scenario), [fact_2] (1 scenario)" in run.conclusion()
    data = json.loads(run_to_json(run))
    assert data["statistics"]["repeats"] == 4 and data["statistics"]["flaky"] == ["s1"]
    assert data["statistics"]["tiers"][0]["n_eff"] == pytest.approx(3.0)
    junit = run_to_junit_xml(run)
    assert 'name="ci95_low" value="0.1253"' in junit and 'name="repeats" value="4"' in junit


def test_one_run_per_scenario_uses_the_plain_wilson_interval():
    scenarios = [make_scenario(f"s{i}", response_contains=[f"fact {i}"]) for i in range(5)]
    run = run_scenarios_sync(scenarios, Flaky(wrong={"s1", "s4"}), save_responses=False)
    (tier,) = run.tier_stats()
    assert tier.method == "wilson" and (tier.passes, tier.runs) == (3, 5)
    assert (round(tier.low, 4), round(tier.high, 4)) == (0.2307, 0.8824)  # Wilson(3/5, 5)
    assert "### Repeats" not in render_markdown_report(run)


def test_repeat_of_a_recorded_answer_scores_once():
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")
    run = run_scenarios_sync(
        scenarios, RecordedTarget(DEMO / "recorded-responses.json"), repeat=3,
        save_responses=False,
    )  # fmt: skip
    assert run.total == 3 * len(scenarios)
    assert all(s.runs + s.errors == 3 and not s.flaky for s in run.scenario_stats())


def test_cli_repeat_on_the_demo_writes_statistics_everywhere(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["scenarios", "score", "--repeat", "3", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 1
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report == printed
    assert "**Scenarios:** 57  |  **Passed:** 45  |  **Failed:** 9  |  **Pass rate:** 83%" in report
    assert "the agent struggled most with [fact_001] (2 scenarios)" in report
    assert "| functional-affected-customer-count | functional | 0/0 (3 errors) | — | — |  |" in (
        report
    )
    assert (
        "- adversarial: 9/15 = 60.0%, 95% CI [23.1%, 88.2%] (Wilson on effective n=5.0 from 4"
        in (report)
    )
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert data["repeats"] == 3 and data["statistics"]["repeats"] == 3
    assert len(data["results"]) == 57 and data["results"][1]["repeat"] == 2
    assert len(json.loads((out / "responses.json").read_text(encoding="utf-8"))) == 19


def test_repeat_must_be_a_whole_number(capsys):
    with pytest.raises(SystemExit) as usage:
        main(["scenarios", "score", "--repeat", "0"])
    assert usage.value.code == 2


# --- 3. the cost guard counts judge calls ----------------------------------------------------

_PHRASES = re.compile(
    r"Expected phrases \(a JSON list; index from 0\):\n(.*?)\n\nThe response", re.S
)


class JudgeApi:
    """A mock Messages API for the judge: every phrase judged ``missed``; counts the calls."""

    def __init__(self) -> None:
        self.calls = 0

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.calls += 1
        body = json.loads(request.content)
        text = body["messages"][0]["content"]
        text = text if isinstance(text, str) else text[0]["text"]
        phrases = json.loads(_PHRASES.search(text).group(1))  # type: ignore[union-attr]
        verdicts = [
            {"index": i, "expected": p, "verdict": "missed", "evidence": "", "reason": "absent"}
            for i, p in enumerate(phrases)
        ]
        return httpx2.Response(200, json=message_json(tool_input={"verdicts": verdicts}))

    def judge(self, cache: Path) -> CachedJudge:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(self.handler))
        return CachedJudge(
            AnthropicJudge("claude-opus-4-8", api_key="test", http_client=client), cache
        )


def test_judge_calls_count_toward_the_guard_and_a_warm_cache_makes_none(tmp_path):
    """The measured figure for the note: ``--repeat 5`` on the demo, live judge."""
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")
    target = RecordedTarget(DEMO / "recorded-responses.json")
    api = JudgeApi()
    judge = api.judge(tmp_path / "cache.sqlite3")
    cold = count_paid_calls_sync(scenarios, target, judge, repeat=5)
    assert cold.target == 0 and cold.judge_measured and cold.judge > 0
    assert api.calls == 0  # counting asks nothing
    first = run_scenarios_sync(scenarios, target, judge=judge, repeat=5, save_responses=False)
    assert first.judge_calls == api.calls == cold.judge  # one per scenario, not per repeat
    warm = count_paid_calls_sync(scenarios, target, judge, repeat=5)
    assert warm.judge == 0
    second = run_scenarios_sync(scenarios, target, judge=judge, repeat=5, save_responses=False)
    assert second.judge_calls == 0 and api.calls == cold.judge


def test_more_than_20_judge_calls_need_confirmation(tmp_path):
    scenarios = [make_scenario(f"s{i}", response_contains=[f"fact {i}"]) for i in range(11)]
    api = JudgeApi()
    target = Flaky(wrong={f"s{i}" for i in range(11)})  # every phrase a candidate miss
    target.live = True  # type: ignore[misc]
    paid = count_paid_calls_sync(scenarios, target, api.judge(tmp_path / "c.sqlite3"))
    assert (paid.target, paid.judge, paid.judge_measured) == (11, 11, False)  # upper bound
    assert paid.line().startswith("Paid calls: 11 target + at most 11 judge")
    with pytest.raises(LiveRunNotConfirmedError, match="22 paid calls"):
        run_scenarios_sync(
            scenarios, target, judge=api.judge(tmp_path / "c.sqlite3"), save_responses=False
        )
    assert api.calls == 0
    # without the judge, 11 target calls pass the guard
    assert run_scenarios_sync(scenarios, target, save_responses=False).total == 11


def test_judge_decided_behaviour_checks_count_toward_the_guard(tmp_path):
    # no phrase at all, but the judge may be asked whether the answer is accurate
    accurate = [make_scenario(f"a{i}", response_accurate=True) for i in range(4)]
    custom = [make_scenario("c", custom={"tone": "polite"}), make_scenario("n")]
    target = Flaky(wrong=set())
    target.live = True  # type: ignore[misc]
    paid = count_paid_calls_sync(accurate + custom, target, JudgeApi().judge(tmp_path / "c"))
    assert (paid.target, paid.judge) == (6, 5)  # the scenario asserting nothing asks nothing


def test_score_with_a_cold_live_judge_asks_for_confirmation(tmp_path, monkeypatch, capsys):
    """``scenarios score`` of 25 recorded answers that all need the judge: 25 > 20."""
    scen = write_scenarios(tmp_path / "s.json", 25)
    responses = tmp_path / "r.json"
    responses.write_text(json.dumps([{"name": f"s{i}", "response": "no"} for i in range(25)]))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    code = main(
        ["scenarios", "score", "--scenarios", str(scen), "--responses", str(responses),
         "--live-judge", "--judge-cache", str(tmp_path / "c.sqlite3")]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Paid calls: 0 target + 25 judge" in err and "(option --yes)" in err
