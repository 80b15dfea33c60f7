"""``--batch``: target and judge calls through the Message Batches API, driven through the real
SDK against a mock transport (no network): one batch, results matched by ``custom_id`` even
out of order, polling with progress lines, one failed request isolated to its scenario."""

from __future__ import annotations

import json
import re
from typing import Any

import anthropic
import httpx2

from pe_eval_core.scenarios import RecordedTarget, load_scenarios, run_scenarios_sync
from pe_eval_core.scenarios.agent.targets import AnthropicTarget
from pe_eval_core.scenarios.llm.batches import MessageBatcher, batch_params
from pe_eval_core.scenarios.scoring.judge import AnthropicJudge
from pe_eval_core.scenarios.scoring.judge.cache import CachedJudge
from tests.helpers.scenario_helpers import DEMO, make_scenario, message_json

API = "https://api.anthropic.com/v1/messages/batches"
_PHRASES = re.compile(
    r"Expected phrases \(a JSON list; index from 0\):\n(.*?)\n\nThe response", re.S
)


def _batch(batch_id: str, status: str, counts: dict[str, int]) -> dict[str, Any]:
    return {
        "id": batch_id,
        "type": "message_batch",
        "processing_status": status,
        "request_counts": {
            "processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0,
            **counts,
        },
        "created_at": "2026-04-29T09:00:00Z",
        "expires_at": "2026-04-30T09:00:00Z",
        "ended_at": "2026-04-29T09:05:00Z" if status == "ended" else None,
        "archived_at": None,
        "cancel_initiated_at": None,
        "results_url": f"{API}/{batch_id}/results" if status == "ended" else None,
    }  # fmt: skip


class BatchApi:
    """The Message Batches endpoints; ``answer(params)`` gives each request's result (a
    message dict, or None for an errored request). Results come back in reverse order."""

    def __init__(self, answer, polls_before_end: int = 2):
        self.answer = answer
        self.polls_before_end = polls_before_end
        self.created: list[list[dict[str, Any]]] = []
        self.polls = 0
        self.direct_calls = 0

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if path == "/v1/messages":
            self.direct_calls += 1
            return httpx2.Response(500, json={"type": "error", "error": {"type": "api_error"}})
        if request.method == "POST" and path == "/v1/messages/batches":
            body = json.loads(request.content)
            self.created.append(body["requests"])
            n = len(body["requests"])
            return httpx2.Response(
                200, json=_batch(f"msgbatch_{len(self.created)}", "in_progress", {"processing": n})
            )
        m = re.fullmatch(r"/v1/messages/batches/(msgbatch_\d+)(/results)?", path)
        assert m, path
        requests = self.created[int(m.group(1).split("_")[1]) - 1]
        if m.group(2):
            lines = []
            for req in reversed(requests):
                msg = self.answer(req["params"])
                result = (
                    {"type": "succeeded", "message": msg}
                    if msg is not None
                    else {
                        "type": "errored",
                        "error": {
                            "type": "error",
                            "error": {"type": "overloaded_error", "message": "try later"},
                        },
                    }
                )
                lines.append(json.dumps({"custom_id": req["custom_id"], "result": result}))
            return httpx2.Response(200, content="\n".join(lines).encode())
        self.polls += 1
        n = len(requests)
        if self.polls < self.polls_before_end:
            return httpx2.Response(
                200, json=_batch(m.group(1), "in_progress", {"processing": n - 1, "succeeded": 1})
            )
        failed = sum(1 for r in requests if self.answer(r["params"]) is None)
        counts = {"succeeded": n - failed, "errored": failed}
        return httpx2.Response(200, json=_batch(m.group(1), "ended", counts))

    def client(self) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key="test",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(self.handler)),
        )


def test_batch_params_merge_extra_body():
    assert batch_params({"model": "m", "extra_body": {"temperature": 0}}) == {
        "model": "m",
        "temperature": 0,
    }


def test_target_calls_go_in_one_batch_matched_by_custom_id_failures_isolated(tmp_path):
    skill = tmp_path / "SKILL.md"
    skill.write_text("Answer with the fact.", encoding="utf-8")

    def answer(params):
        question = params["messages"][0]["content"]  # "question for sN"
        n = question.rsplit("s", 1)[1]
        if n == "2":
            return None  # this one request errors
        return message_json(text="nothing useful" if n == "1" else f"fact {n}")

    api = BatchApi(answer)
    scenarios = [make_scenario(f"s{i}", response_contains=[f"fact {i}"]) for i in range(4)]
    target = AnthropicTarget(skill, model="claude-sonnet-4-5", api_key="test",
                             http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(
                                 api.handler)))  # fmt: skip
    lines: list[str] = []
    batcher = MessageBatcher(
        api.client, gather_s=0.05, poll_s=0, progress=lines.append, close_client=True
    )
    run = run_scenarios_sync(
        scenarios, target, concurrency=4, save_responses=False, batcher=batcher
    )
    assert api.direct_calls == 0 and len(api.created) == 1  # one batch, no direct call
    sent = api.created[0]
    assert len({r["custom_id"] for r in sent}) == 4
    assert all(r["params"]["temperature"] == 0 and "extra_body" not in r["params"] for r in sent)
    # results came back in reverse order and still landed on their own scenario
    assert [r.status for r in run.results] == ["pass", "fail", "error", "pass"]
    assert "overloaded_error: try later" in (run.results[2].error or "")
    assert run.results[0].tokens_in == 120  # usage read from the batched message
    assert lines[0] == "batch msgbatch_1 (4 requests): 0/4 done, in_progress"
    assert lines[-1] == "batch msgbatch_1 (4 requests): 4/4 done, 1 failed, ended"
    assert api.polls == 3  # two polls, and the SDK's own retrieve inside results()


def test_judge_calls_are_batched_and_their_verdicts_cached(tmp_path):
    def answer(params):
        text = params["messages"][0]["content"]
        phrases = json.loads(_PHRASES.search(text).group(1))  # type: ignore[union-attr]
        verdicts = [
            {"index": i, "expected": p, "verdict": "missed", "evidence": "", "reason": "absent"}
            for i, p in enumerate(phrases)
        ]
        return message_json(tool_input={"verdicts": verdicts})

    api = BatchApi(answer, polls_before_end=1)
    judge = CachedJudge(
        AnthropicJudge(
            "claude-haiku-4-5",
            api_key="test",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api.handler)),
        ),
        tmp_path / "cache.sqlite3",
    )
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")
    target = RecordedTarget(DEMO / "recorded-responses.json")
    batcher = MessageBatcher(api.client, gather_s=0.05, poll_s=0)
    run = run_scenarios_sync(
        scenarios, target, judge=judge, concurrency=len(scenarios), save_responses=False,
        batcher=batcher,
    )  # fmt: skip
    assert api.direct_calls == 0 and len(api.created) == 1
    assert run.judge_calls == len(api.created[0]) > 0
    assert all(r["params"]["tool_choice"]["type"] == "tool" for r in api.created[0])
    # warm cache: the same run asks nothing, batched or not
    again = run_scenarios_sync(
        scenarios, target, judge=judge, concurrency=len(scenarios), save_responses=False,
        batcher=MessageBatcher(api.client, gather_s=0.05, poll_s=0),
    )  # fmt: skip
    assert again.judge_calls == 0 and len(api.created) == 1


def test_a_batch_that_cannot_be_created_fails_each_request_not_the_run(tmp_path):
    def refuse(request: httpx2.Request) -> httpx2.Response:
        error = {"type": "authentication_error", "message": "bad key"}
        return httpx2.Response(401, json={"type": "error", "error": error})

    skill = tmp_path / "SKILL.md"
    skill.write_text("Answer.", encoding="utf-8")
    target = AnthropicTarget(skill, api_key="test")
    client = lambda: anthropic.AsyncAnthropic(  # noqa: E731
        api_key="test", max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(refuse)),
    )  # fmt: skip
    scenarios = [make_scenario(f"s{i}", response_contains=["x"]) for i in range(2)]
    run = run_scenarios_sync(
        scenarios, target, concurrency=2, save_responses=False,
        batcher=MessageBatcher(client, gather_s=0.01, poll_s=0),
    )  # fmt: skip
    assert [r.status for r in run.results] == ["error", "error"]
    assert all("HTTP 401" in (r.error or "") for r in run.results)
    assert [r.error_kind for r in run.results] == ["auth", "auth"]


def test_cli_batch_with_nothing_to_batch_says_so_and_runs_directly(capsys):
    from pe_eval_core.cli.main import main

    code = main(
        ["scenarios", "score", "--batch", "--scenarios", str(DEMO / "mimic-scenarios.json")]
    )
    err = capsys.readouterr().err
    assert code == 1  # the demo's intended failures, exactly as without --batch
    assert "Batch: no plain Anthropic target or live judge in this run" in err
