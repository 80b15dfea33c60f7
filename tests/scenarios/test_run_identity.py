"""Run identity: v1 and v2 of a skill, run against a scripted model with an MCP server, are
never mixed: ``history compare``, the gate and the dashboard's automatic baseline refuse to
compare them (saying in one line what differs), and compare like with like otherwise.

The model is a Messages API stand-in behind the real SDK: it calls the server's
``list_invoices`` once, then answers; v2 of the skill gets a worse answer (it drops "charged
twice"), so a v2 run compared with a v1 run would show a regression that is the skill's
change, not noise.
"""

from __future__ import annotations

import json

import anthropic
import httpx2
import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.history.baseline import PINNED, PREVIOUS_LIKE, automatic_baseline
from pe_eval_core.history.store import RunStore
from tests.helpers.mimic_like_server import serve_http

pytestmark = pytest.mark.timeout(180)

GOOD = "MRR fell $241.00: Quill Studio was charged twice for in_quill_apr."
WORSE = "MRR fell $241.00 at Quill Studio."


class ScriptedModel:
    """Turn 1 calls ``list_invoices``; turn 2 answers, worse under the v2 skill."""

    def __init__(self) -> None:
        self.requests: list[dict] = []

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        system = body["system"][0]["text"]
        if len(body["messages"]) == 1:
            content = [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "mimic-stripe__list_invoices",
                    "input": {"customer": "cus_GL078"},
                }
            ]
            stop = "tool_use"
        else:
            text = WORSE if "Version: 2" in system else GOOD
            content, stop = [{"type": "text", "text": text}], "end_turn"
        return httpx2.Response(
            200,
            json={
                "id": "msg",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-5-5",
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 500, "output_tokens": 40},
            },
        )


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    model = ScriptedModel()
    real = anthropic.AsyncAnthropic

    def patched(**kwargs):
        kwargs["http_client"] = httpx2.AsyncClient(transport=httpx2.MockTransport(model.handler))
        kwargs["max_retries"] = 0
        return real(**kwargs)

    monkeypatch.setattr(anthropic, "AsyncAnthropic", patched)
    for version in (1, 2):
        skill = tmp_path / f"v{version}" / "revenue-recovery" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"# Revenue recovery\nVersion: {version}\nFind the double charge.\n")
    scenarios = tmp_path / "scenarios.json"
    expect = {"response_contains": ["$241.00", "charged twice"]}
    meta = {"tier": "smoke", "source_fact": "fact_005"}
    scenarios.write_text(
        json.dumps(
            [
                {
                    "name": f"double-{i}",
                    "input": "Any double charge?",
                    "expect": expect,
                    "metadata": meta,
                }
                for i in range(3)
            ]
        )
    )
    with serve_http("mimic-stripe") as url:
        (tmp_path / ".mcp.json").write_text(
            json.dumps({"mcpServers": {"mimic-stripe": {"type": "http", "url": url}}})
        )
        yield tmp_path, model


def run_skill(version: int, capsys) -> int:
    code = main(
        [
            "scenarios", "run", "--target", "anthropic", "--model", "claude-sonnet-5-5",
            "--skill", f"v{version}/revenue-recovery/SKILL.md", "--scenarios", "scenarios.json",
            "--no-judge", "--concurrency", "1",
        ]
    )  # fmt: skip
    capsys.readouterr()
    return code


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_v1_and_v2_of_a_skill_are_never_mixed(project, capsys, _isolated_home):
    root, _ = project
    assert run_skill(1, capsys) == 0  # run #1: v1
    assert run_skill(1, capsys) == 0  # run #2: v1 again
    assert run_skill(2, capsys) == 1  # run #3: v2, every scenario misses "charged twice"
    store = RunStore(_isolated_home / "history.sqlite")
    v1a, v1b, v2 = (store.get_run(i) for i in (1, 2, 3))

    # each run knows what produced it
    manifest = v2.summary.scores["manifest"]
    skill_v2 = (root / "v2" / "revenue-recovery" / "SKILL.md").resolve()
    assert manifest["skill_path"] == str(skill_v2) == v2.summary.skill_path
    assert manifest["model"] == "claude-sonnet-5-5" and manifest["judge"] is None
    assert manifest["bounds"]["max_turns"] == 12 and manifest["bounds"]["max_tokens"] == 4096
    (server,) = manifest["servers"]
    assert (server["name"], server["tools"]) == ("mimic-stripe", 7)
    assert server["where"].startswith("http://127.0.0.1:") and len(server["tools_sha256"]) == 64
    assert manifest["scenarios_sha256"] == v2.summary.scenarios_sha256
    assert manifest["pe_eval_version"] and manifest["repeats"] == 1
    assert v1a.summary.identity == v1b.summary.identity != v2.summary.identity
    assert v1a.summary.skill_sha256 != v2.summary.skill_sha256

    # history list filters by skill and by model
    code, out, _ = cli(capsys, "history", "list", "--skill", "v1/revenue-recovery/SKILL.md",
                       "--json")  # fmt: skip
    assert [r["id"] for r in json.loads(out)] == [2, 1]
    code, out, _ = cli(capsys, "history", "list", "--skill", str(skill_v2), "--json")
    assert [r["id"] for r in json.loads(out)] == [3]
    code, out, _ = cli(capsys, "history", "list", "--model", "claude-opus-5-5", "--json")
    assert json.loads(out) == []

    # compare: like with like works; v1 vs v2 is refused with the one line that differs
    assert cli(capsys, "history", "compare", "1", "2")[0] == 0
    code, _, err = cli(capsys, "history", "compare", "latest~1", "latest")
    assert code == 2
    line = next(x for x in err.splitlines() if "Not like for like" in x)
    assert "skill v1/revenue-recovery/SKILL.md (sha256 " in line
    assert "vs v2/revenue-recovery/SKILL.md (sha256 " in line
    assert "model" not in line.split("Not like for like:")[1].split("(The runs")[0]
    code, out, _ = cli(capsys, "history", "compare", "latest~1", "latest", "--allow-unlike")
    assert code == 0 and "**Not like for like:** skill v1/revenue-recovery/SKILL.md" in out
    assert "3 regressions vs baseline" in out  # the comparison, once asked for

    # the gate refuses a baseline of another skill (cannot evaluate), checks a like one
    code, out, _ = cli(capsys, "gate", "--scenario-run", "latest", "--baseline", "1")
    assert code == 2 and "Not like for like: skill v1/revenue-recovery/SKILL.md" in out
    assert cli(capsys, "gate", "--scenario-run", "2", "--baseline", "1")[0] == 0

    # the dashboard's baseline: the pinned v1 run serves v1 runs, never the v2 run
    store.pin_baseline(1)
    assert automatic_baseline(store, v1b.summary).run_id == 1
    assert automatic_baseline(store, v1b.summary).how == PINNED
    choice = automatic_baseline(store, v2.summary)
    assert choice.run_id is None  # no earlier v2 run: nothing to compare with
    assert choice.skipped is not None and "The pinned baseline, run #1, was not used" in (
        choice.skipped
    )
    assert "skill v1/revenue-recovery/SKILL.md" in choice.skipped
    assert run_skill(2, capsys) == 1  # run #4: v2 again
    v2b = store.get_run(4).summary
    choice = automatic_baseline(store, v2b)
    assert (choice.run_id, choice.how) == (3, PREVIOUS_LIKE)

    from ui import data

    verdict = data.scenario_verdict(4)
    assert verdict is not None and verdict["baseline"] == 3 and verdict["regressions"] == 0
    assert "The pinned baseline, run #1, was not used" in verdict["skipped"]
