"""A live run's ``responses.json`` re-scores to the same verdicts on another machine, with no
key and an empty verdict cache; a verdicts file beside the scenarios answers only for the
responses it was recorded for.

The live run: the 19 demo scenarios, an Anthropic target and the live judge, both behind the
real SDK and one Messages API stand-in. The agent answers each scenario with the demo's
recorded response plus a line of its own (so no response is one the shipped
``judge-verdicts.json`` was recorded for); the judge answers the phrases it is asked as the
demo's recorded verdicts say (a paraphrase for "expired card" with its verbatim quote,
"missed" otherwise).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anthropic
import httpx2
import pytest

from pe_eval_core.cli.main import main
from tests.helpers.scenario_helpers import DEMO

pytestmark = pytest.mark.timeout(180)

LIVE_LINE = "\n\n(generated live)"


class LiveModels:
    """The target and the judge: a judge request is the one offering ``record_verdicts``."""

    def __init__(self) -> None:
        scenarios = json.loads((DEMO / "mimic-scenarios.json").read_text(encoding="utf-8"))
        recorded = {
            r["name"]: r
            for r in json.loads((DEMO / "recorded-responses.json").read_text(encoding="utf-8"))
        }
        self.answers = {
            s["input"]: (recorded[s["name"]].get("response") or "No answer.") + LIVE_LINE
            for s in scenarios
        }
        demo = json.loads((DEMO / "judge-verdicts.json").read_text(encoding="utf-8"))
        self.judged = {(v["expected"]): v for v in demo["verdicts"]}
        self.judge_calls = 0

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        tools = [t["name"] for t in body.get("tools", [])]
        if "record_verdicts" in tools:
            self.judge_calls += 1
            content = [self._verdicts(body["messages"][0]["content"])]
            stop = "tool_use"
        else:
            text = self.answers[body["messages"][0]["content"]]
            content, stop = [{"type": "text", "text": text}], "end_turn"
        return httpx2.Response(
            200,
            json={
                "id": "msg",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 900, "output_tokens": 120},
            },
        )

    def _verdicts(self, message: str) -> dict:
        listed = message.split("Expected phrases (a JSON list; index from 0):\n", 1)[1]
        asked = json.loads(listed.split("\n\n", 1)[0])
        out = []
        for i, expected in enumerate(asked):
            known = self.judged.get(expected, {})
            paraphrase = known.get("verdict") == "paraphrase"
            out.append(
                {
                    "index": i,
                    "expected": expected,
                    "verdict": "paraphrase" if paraphrase else "missed",
                    "evidence": known.get("evidence", "") if paraphrase else "",
                    "reason": "stand-in judge",
                }
            )
        return {
            "type": "tool_use",
            "id": "toolu_j",
            "name": "record_verdicts",
            "input": {"verdicts": out},
        }


def verdicts_of(report: Path) -> dict[str, tuple]:
    """Each scenario's status and every expectation's decision, from a report.json."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return {
        r["name"]: (
            r["status"],
            tuple(
                (e["text"], e["satisfied"], e["method"], e["evidence"], e["judge_model"])
                for e in r["expectations"]
            ),
            tuple(r["excluded_hits"]),
        )
        for r in data["results"]
    }


@pytest.fixture
def live_run(tmp_path, monkeypatch, capsys):
    """The live run, in its own PE_EVAL_HOME, with a key; returns its out folder."""
    project = tmp_path / "project"
    scenarios_dir = project / ".mimic" / "exports"
    scenarios_dir.mkdir(parents=True)
    for name in ("mimic-scenarios.json", "judge-verdicts.json"):
        shutil.copy(DEMO / name, scenarios_dir / name)
    skill = project / "SKILL.md"
    skill.write_text("# Revenue recovery\nReport MRR lost by cause.\n")
    monkeypatch.chdir(project)
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home-live"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    models = LiveModels()
    real = anthropic.AsyncAnthropic

    def patched(**kwargs):
        kwargs["http_client"] = httpx2.AsyncClient(transport=httpx2.MockTransport(models.handler))
        kwargs["max_retries"] = 0
        return real(**kwargs)

    monkeypatch.setattr(anthropic, "AsyncAnthropic", patched)
    out = project / "out"
    code = main(
        [
            "scenarios", "run", "--target", "anthropic", "--skill", str(skill),
            "--scenarios", str(scenarios_dir / "mimic-scenarios.json"), "--live-judge",
            "--out", str(out), "--yes", "--timestamp", "2026-04-29T09:00:00Z",
        ]
    )  # fmt: skip
    capsys.readouterr()
    assert code == 1  # the demo's deliberate failures
    assert models.judge_calls >= 2  # some scenarios reach the judge (the rules decide the rest)
    monkeypatch.setattr(anthropic, "AsyncAnthropic", real)
    return project, out


def rescore(project: Path, responses: Path, out: Path, capsys) -> tuple[int, str]:
    code = main(
        [
            "scenarios", "score", "--scenarios", ".mimic/exports/mimic-scenarios.json",
            "--responses", str(responses), "--out", str(out),
        ]
    )  # fmt: skip
    return code, capsys.readouterr().out


def test_rescore_anywhere_reproduces_the_live_verdicts(live_run, tmp_path, monkeypatch, capsys):
    project, out = live_run
    saved = json.loads((out / "responses.json").read_text(encoding="utf-8"))
    carried = [(r["name"], v) for r in saved for v in r.get("verdicts", [])]
    live_report = json.loads((out / "report.json").read_text(encoding="utf-8"))["results"]
    decided = sum(len(r["judge_verdicts"]) for r in live_report)
    assert len(carried) == decided >= 2  # every phrase the judge decided travels with it
    _, first = carried[0]
    assert set(first) >= {"expected", "verdict", "model", "prompt_version", "response_sha256"}
    assert first["model"] == "claude-opus-5-5"

    # another machine: a fresh PE_EVAL_HOME (empty verdict cache) and no key
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home-elsewhere"))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    copied = tmp_path / "elsewhere" / "responses.json"
    copied.parent.mkdir()
    shutil.copy(out / "responses.json", copied)
    code, report = rescore(project, copied, tmp_path / "out2", capsys)
    assert code == 1
    live, again = verdicts_of(out / "report.json"), verdicts_of(tmp_path / "out2" / "report.json")
    assert again == live
    statuses = [s for s, _, _ in live.values()]
    assert (statuses.count("pass"), statuses.count("fail")) == (15, 4)  # "No answer." fails
    # the report says where each verdict came from
    assert f"- Judge verdicts: {decided} from responses.json (recorded with the responses)" in (
        report
    )
    assert "- Judge: claude-opus-5-5" in report
    assert not (tmp_path / "home-elsewhere" / "judge_cache.sqlite3").exists()


def test_verdicts_beside_the_scenarios_are_never_used_for_other_responses(
    live_run, tmp_path, monkeypatch, capsys
):
    project, out = live_run
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home-elsewhere"))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    # the same responses without their saved verdicts: the shipped judge-verdicts.json beside
    # the scenarios was recorded for other responses (the demo's), so it answers none of them
    saved = json.loads((out / "responses.json").read_text(encoding="utf-8"))
    for row in saved:
        row.pop("verdicts", None)
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(saved), encoding="utf-8")
    code, _ = rescore(project, bare, tmp_path / "out3", capsys)
    assert code == 1  # judge errors: the minimum pass rate cannot be met
    results = verdicts_of(tmp_path / "out3" / "report.json")
    judged = [n for n, (status, _, _) in results.items() if status == "judge error"]
    live = json.loads((out / "report.json").read_text(encoding="utf-8"))["results"]
    needed = sorted(r["name"] for r in live if r["judge_verdicts"])
    assert len(needed) >= 2
    assert sorted(judged) == needed  # never the wrong verdicts: no verdict at all, said so
    data = json.loads((tmp_path / "out3" / "report.json").read_text(encoding="utf-8"))
    errors = {r["name"]: r["error"] for r in data["results"] if r["status"] == "judge error"}
    for name in needed:  # each says why the file beside the scenarios did not answer
        assert "judge-verdicts.json" in errors[name]
        assert "the response changed since it was judged" in errors[name]

    # an edited response keeps its saved verdicts from applying to it (keyed by its sha256)
    edited = json.loads((out / "responses.json").read_text(encoding="utf-8"))
    row = next(r for r in edited if r["name"] == "smoke-failed-charge-count")
    row["response"] = row["response"].replace("(generated live)", "(edited by hand)")
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(edited), encoding="utf-8")
    rescore(project, tampered, tmp_path / "out4", capsys)
    results = verdicts_of(tmp_path / "out4" / "report.json")
    assert results["smoke-failed-charge-count"][0] == "judge error"
    assert results["functional-risk-flag-followup"][0] == "pass"  # its verdict still applies
