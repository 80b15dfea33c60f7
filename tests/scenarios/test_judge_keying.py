"""Verdicts keyed by what they judged: response hash and prompt version; the cache with or
without a key; empty answers never cached; one judge policy for every surface."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios import (
    AnthropicJudge,
    CachedJudge,
    RecordedJudge,
    TargetResponse,
    load_recorded,
    score_response,
)
from pe_eval_core.scenarios.models import JudgeVerdict
from pe_eval_core.scenarios.options import run_options
from pe_eval_core.scenarios.run.setup import CacheOnlyJudge, choose_judge
from pe_eval_core.scenarios.scoring.judge import (
    FALLBACK_JUDGE_MODEL,
    JUDGE_PROMPT_VERSION,
    response_sha256,
    stamp_recorded_verdicts,
)
from tests.helpers.scenario_helpers import DEMO, MockAnthropic, make_scenario, message_json

RESPONSE = "Eight failed charges: 4 cards expired. The other 4 bounced."
EDITED = "Eight failed charges. It is NOT the case that 4 cards expired."


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "PE_EVAL_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)


def keyed_file(
    tmp_path: Path, response: str = RESPONSE, prompt: str = JUDGE_PROMPT_VERSION
) -> Path:
    path = tmp_path / "judge-verdicts.json"
    verdict = {
        "scenario": "s1",
        "expected": "card expiry",
        "verdict": "paraphrase",
        "evidence": "4 cards expired",
        "response_sha256": response_sha256(response),
    }
    data = {"label": "recorded (test)", "model": "m", "prompt_version": prompt}
    path.write_text(json.dumps(data | {"verdicts": [verdict]}), encoding="utf-8")
    return path


def scenario():
    return make_scenario(response_contains=["card expiry"])


def test_keyed_verdict_used_only_for_the_response_it_judged(tmp_path):
    judge = RecordedJudge(keyed_file(tmp_path))
    ok = score_response(scenario(), TargetResponse(text=RESPONSE), judge)
    assert ok.status == "pass" and ok.expectations[0].method == "judge"
    assert judge.warnings == []
    edited = score_response(scenario(), TargetResponse(text=EDITED), judge)
    assert edited.status == "judge error"  # never the old verdict on a new response
    assert "ignored: the response changed since it was judged" in (edited.error or "")
    assert judge.warnings == [
        "recorded verdict for 's1', 'card expiry' ignored: the response changed since it was judged"
    ]


def test_verdict_under_another_prompt_is_ignored(tmp_path):
    judge = RecordedJudge(keyed_file(tmp_path, prompt="judge-v1"))
    r = score_response(scenario(), TargetResponse(text=RESPONSE), judge)
    assert r.status == "judge error" and "judge-v1" in (r.error or "")
    assert any(f"the prompt is now {JUDGE_PROMPT_VERSION}" in w for w in judge.warnings)


def test_unkeyed_verdicts_are_used_with_a_warning_and_rechecked(tmp_path):
    path = tmp_path / "v.json"
    verdict = {"scenario": "s1", "expected": "card expiry", "verdict": "paraphrase",
               "evidence": "4 cards expired"}  # fmt: skip
    path.write_text(
        json.dumps(
            {"label": "hand-written", "model": "m", "prompt_version": "x", "verdicts": [verdict]}
        )
    )
    judge = RecordedJudge(path)
    assert "carry no response_sha256" in judge.warnings[0]
    assert score_response(scenario(), TargetResponse(text=RESPONSE), judge).status == "pass"
    # the quote is still checked against the response it is applied to: negated, missed
    assert score_response(scenario(), TargetResponse(text=EDITED), judge).status == "fail"


def test_stamp_keys_a_file_for_its_responses(tmp_path):
    path = tmp_path / "v.json"
    verdict = {"scenario": "s1", "expected": "card expiry", "verdict": "paraphrase",
               "evidence": "4 cards expired"}  # fmt: skip
    orphan = verdict | {"scenario": "gone"}
    data = {"label": "l", "model": "m", "prompt_version": "old", "verdicts": [verdict, orphan]}
    path.write_text(json.dumps(data))
    assert stamp_recorded_verdicts(path, {"s1": RESPONSE}) == ["gone"]
    saved = json.loads(path.read_text())
    assert saved["prompt_version"] == JUDGE_PROMPT_VERSION
    assert saved["verdicts"][0]["response_sha256"] == response_sha256(RESPONSE)
    assert "response_sha256" not in saved["verdicts"][1]
    assert RecordedJudge(path).warnings  # the orphan stays unkeyed, and says so


def test_demo_verdicts_are_keyed_to_the_demo_responses():
    data = json.loads((DEMO / "judge-verdicts.json").read_text())
    assert data["prompt_version"] == JUDGE_PROMPT_VERSION
    responses = load_recorded(DEMO / "recorded-responses.json")
    for v in data["verdicts"]:
        assert v["response_sha256"] == response_sha256(responses[v["scenario"]].response or "")


# --- the cache ------------------------------------------------------------------------------


def test_cached_verdicts_are_used_without_an_api_key(no_key, tmp_path):
    cache = tmp_path / "cache.sqlite3"
    judge = choose_judge(scenarios_path=tmp_path / "s.json", cache=cache)
    assert isinstance(judge, CacheOnlyJudge) and judge.db_path == cache
    r = score_response(scenario(), TargetResponse(text=RESPONSE), judge)
    assert r.status == "judge error" and "ANTHROPIC_API_KEY" in (r.error or "")
    assert not cache.exists()  # looking up an empty cache creates nothing
    CachedJudge(AnthropicJudge(judge.model, api_key="unused"), cache).store(
        RESPONSE,
        [
            JudgeVerdict(
                expected="card expiry",
                verdict="paraphrase",
                evidence="4 cards expired",
                model=judge.model,
                prompt_version=JUDGE_PROMPT_VERSION,
            )
        ],
    )
    r = score_response(scenario(), TargetResponse(text=RESPONSE), judge)
    assert r.status == "pass" and r.judge_calls == 0 and "cached verdict" in r.expectations[0].note


def test_empty_judge_answer_is_never_cached(tmp_path):
    empty = message_json(tool_input={"verdicts": []})
    mock = MockAnthropic(empty)
    cache = tmp_path / "c.sqlite3"

    def run() -> str:
        judge = CachedJudge(AnthropicJudge("j", api_key="k", http_client=mock.client()), cache)
        return score_response(scenario(), TargetResponse(text=RESPONSE), judge).status

    assert run() == "fail" and run() == "fail"
    assert len(mock.requests) == 2  # asked again: the empty answer was not kept


def test_choose_judge_default_differs_from_the_target(no_key, monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    s = tmp_path / "s.json"
    assert choose_judge(scenarios_path=s).model == "claude-opus-5-5"  # type: ignore[union-attr]
    opus = choose_judge(scenarios_path=s, target_model="claude-opus-5-5")
    assert opus is not None and opus.model == FALLBACK_JUDGE_MODEL
    explicit = choose_judge(
        scenarios_path=s, target_model="x", options=run_options(judge_model="claude-opus-4-5")
    )
    assert explicit is not None and explicit.model == "claude-opus-4-5"
    offline = choose_judge(scenarios_path=s, allow_live=False, cache=tmp_path / "c")
    assert isinstance(offline, CacheOnlyJudge) and offline.db_path == tmp_path / "c"


# --- the MCP server uses the same policy ----------------------------------------------------


def test_mcp_score_uses_choose_judge_and_the_verdicts_beside(no_key, tmp_path):
    from pe_eval_core.mcp_server import PeEvalTools

    for name in ("mimic-scenarios.json", "recorded-responses.json", "judge-verdicts.json"):
        shutil.copy(DEMO / name, tmp_path / name)
    tools = PeEvalTools([tmp_path], record=False, judge_cache=tmp_path / "c.sqlite3")
    out = tools.score_scenarios(
        str(tmp_path / "mimic-scenarios.json"), str(tmp_path / "recorded-responses.json")
    )
    summary = out["summary"]
    # the demo's verdicts beside, as the CLI: 15 pass, 3 fail, 1 recorded HTTP 502 error
    assert (summary["passed"], summary["failed"], summary["errors"]) == (15, 3, 1)
    (tmp_path / "judge-verdicts.json").unlink()
    out = tools.score_scenarios(
        str(tmp_path / "mimic-scenarios.json"), str(tmp_path / "recorded-responses.json")
    )
    assert out["summary"]["errors"] > 1  # no verdicts, no key: judge errors, never silent misses


def test_recorded_judge_error_names_the_file():
    judge = RecordedJudge(DEMO / "judge-verdicts.json")
    with pytest.raises(JudgeError, match=r"judge-verdicts\.json.*'nope'"):
        asyncio.run(judge.judge("nope", "text", ["x"]))


def test_cli_passes_the_target_model_to_the_judge_policy(no_key, monkeypatch):
    from pe_eval_core.cli import scenarios as cli_scenarios
    from pe_eval_core.cli.main import build_parser

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    args = build_parser().parse_args(
        ["scenarios", "run", "--target", "anthropic", "--model", "claude-opus-5-5"]
    )
    judge = cli_scenarios._judge(args)
    assert judge is not None and judge.model == FALLBACK_JUDGE_MODEL  # never the target's model
