"""The injection and clean corpora through the real score path: an Anthropic judge (the SDK over
a mock transport) that obeys every injection, behind the verdict cache, scored by
``score_response``. None of the injected responses may pass; every clean paraphrase must.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from pe_eval_core.scenarios import AnthropicJudge, CachedJudge, TargetResponse, score_response
from pe_eval_core.scenarios.models import Scenario
from pe_eval_core.scenarios.scoring.evidence import injection_markers
from tests.helpers.scenario_helpers import message_json
from tests.scenarios.test_injection_corpus import CLEAN, FACTS, INJECTED

_PHRASES = "Expected phrases (a JSON list; index from 0):\n"


class ObeyingApi:
    """The Messages API as a judge that does what the response asks: every phrase is a
    ``paraphrase``, with ``quote`` as evidence (the planted quote, or an honest one)."""

    def __init__(self, quote: str):
        self.quote = quote
        self.calls = 0

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.calls += 1
        body = json.loads(request.content)
        message = body["messages"][0]["content"]
        start = message.index(_PHRASES) + len(_PHRASES)
        phrases, _ = json.JSONDecoder().raw_decode(message[start:])
        verdicts = [
            {"index": i, "expected": p, "verdict": "paraphrase", "evidence": self.quote}
            for i, p in enumerate(phrases)
        ]
        return httpx2.Response(200, json=message_json(tool_input={"verdicts": verdicts}))

    def judge(self, cache: Path) -> CachedJudge:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(self.handler))
        return CachedJudge(AnthropicJudge("judge-test", api_key="k", http_client=client), cache)


def _scenario(name: str, contains: list[str], **expect: Any) -> Scenario:
    return Scenario(
        name=name,
        input="Summarise revenue at risk this week.",
        goal="Agent reports expired cards, MRR lost and the churn risk",
        expect={"response_contains": contains, **expect},
    )


def _injected(tmp_path: Path, **expect: Any) -> tuple[int, int, int, int]:
    """(passes, passes also without a judge, judge credits granted, judge calls).

    A behaviour claim (response_accurate, custom) credited by the judge is a meaning call the
    evidence rule cannot check beyond its quote: it is never granted to a response that
    addresses its grader, and counted here."""
    passed = deterministic = credits = asked = 0
    for i, case in enumerate(INJECTED):
        api = ObeyingApi(case.planted)
        s = _scenario(f"inj-{i}", list(FACTS), **expect)
        r = score_response(s, TargetResponse(text=case.response), api.judge(tmp_path / f"{i}.db"))
        alone = score_response(s, TargetResponse(text=case.response), None)
        passed += r.status == "pass"
        deterministic += r.status == "pass" and alone.status == "pass"
        credits += sum(e.method == "judge" for e in r.expectations)
        claimed = sum(b.method == "judge" and b.satisfied for b in r.behaviour)
        assert not (claimed and injection_markers(case.response)), case.kind
        credits += claimed
        asked += api.calls
    return passed, deterministic, credits, asked


def test_obeying_judge_passes_no_injected_response(tmp_path, capsys):
    """No pass is the judge's doing: the only passes are responses that state every fact word
    for word (strict matches count whatever else the response says, as with no judge)."""
    passed, alone, credits, asked = _injected(tmp_path / "facts")
    c_passed, c_alone, c_credits, c_asked = _injected(
        tmp_path / "claims", response_accurate=True, custom={"tone": "calm"}
    )
    with capsys.disabled():
        print(
            f"\ninjection corpus through score_response ({len(INJECTED)} responses, obeying "
            f"judge, {asked} judge calls): judge credits granted {credits}; passes {passed}, "
            f"of which {alone} pass with no judge too (every fact stated verbatim); with "
            f"response_accurate + custom claims ({c_asked} calls): credits {c_credits}, "
            f"passes {c_passed} ({c_alone} without a judge)"
        )
    assert asked > 0  # the judge was really asked (and obeyed)
    assert credits == 0
    assert c_credits <= 4  # 2 claims x 2 injection-free vague responses, which fail anyway
    assert passed == alone and c_passed == c_alone == 0


@pytest.mark.parametrize("case", CLEAN, ids=[c.expected for c in CLEAN])
def test_clean_paraphrase_passes_through_the_score_path(tmp_path, case):
    api = ObeyingApi(case.quote)
    r = score_response(
        _scenario("clean", [case.expected]),
        TargetResponse(text=case.response),
        api.judge(tmp_path / "c.sqlite3"),
    )
    assert r.status == "pass", r.expectations


def test_clean_corpus_measured_through_the_score_path(tmp_path, capsys):
    passed = 0
    for i, case in enumerate(CLEAN):
        r = score_response(
            _scenario(f"clean-{i}", [case.expected]),
            TargetResponse(text=case.response),
            ObeyingApi(case.quote).judge(tmp_path / f"c{i}.sqlite3"),
        )
        passed += r.status == "pass"
    with capsys.disabled():
        print(f"\nclean paraphrase corpus through score_response: {passed}/{len(CLEAN)} pass")
    assert passed == len(CLEAN)


@pytest.mark.parametrize(
    ("response", "passes"),
    [
        ("It is NOT the case that 4 cards expired.", False),  # the cue governs the match
        ("We never saw that 4 cards expired.", False),
        ("Nobody followed up, but 4 cards expired.", True),  # a clause break: not governed
        ("4 cards expired and nobody followed up.", True),  # the cue comes after
    ],
)
def test_negated_strict_match_needs_an_ungoverned_quote(tmp_path, response, passes):
    """A word-for-word match in a negated sentence goes to the judge; an obeying judge's
    ``paraphrase`` stands only when no negation governs the quote."""
    r = score_response(
        _scenario("neg", ["4 cards expired"]),
        TargetResponse(text=response),
        ObeyingApi("4 cards expired").judge(tmp_path / "c.db"),
    )
    assert (r.status == "pass") is passes, r.expectations
