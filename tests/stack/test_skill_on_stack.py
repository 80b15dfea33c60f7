"""The bundled skill, followed literally by a scripted model, against the real Mimic stack.

``mimic host`` over the private PostgreSQL the test starts (free ports), the real MCP
client, the real agent loop and the real scorer with no judge: every expected phrase must be
found as written. The model is :class:`skill_follower.SkillFollower`, a Messages API
stand-in that takes the tool calls from the skill text it is sent and the facts from the
tool results (nothing about the persona is built into it).

Measured here: with the analysis date (2026-04-29, the persona's ``as_of`` in
``mimic_stack/mimic.json``) all 19 bundled scenarios pass, in 5 model turns and 26 tool calls
each; without a date the skill infers 2026-04-28 from the data and the one scenario that
needs the date ("9 days" since the billing cancellation) fails, the other 18 pass.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

import anthropic
import pytest

from scripts.mimic_stack import MimicStack, missing_prerequisites
from tests.helpers.skill_follower import SkillFollower

pytestmark = pytest.mark.timeout(300)

_reason = missing_prerequisites()
if _reason:
    pytest.skip(f"Mimic stack unavailable: {_reason}", allow_module_level=True)

from pe_eval_core.cli.main import main  # noqa: E402
from pe_eval_core.scenarios.agent.as_of import resolve_as_of  # noqa: E402
from pe_eval_core.scenarios.agent.loop import McpToolbox  # noqa: E402
from pe_eval_core.scenarios.agent.mcp_config import load_mcp_config  # noqa: E402
from pe_eval_core.scenarios.agent.targets import AnthropicTarget  # noqa: E402
from pe_eval_core.scenarios.loading import load_scenarios  # noqa: E402
from pe_eval_core.scenarios.run.runner import run_scenarios  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / ".mimic" / "exports" / "mimic-scenarios.json"
SKILL = REPO / "skills" / "revenue-recovery" / "SKILL.md"


@pytest.fixture(scope="module")
def mcp_config(tmp_path_factory):
    mcp_json = tmp_path_factory.mktemp("skill_stack") / ".mcp.json"
    with MimicStack(mcp_json=mcp_json, install=False):
        yield load_mcp_config(mcp_json)


def run(mcp_config, *, as_of, skill=SKILL, only=None):
    scenarios = list(load_scenarios(SCENARIOS))
    if only:
        scenarios = [s for s in scenarios if s.name in only]
    follower = SkillFollower()

    async def go():
        target = AnthropicTarget(
            skill,
            model="claude-sonnet-5-5",
            api_key="test-key",
            http_client=follower.client(),
            toolbox=McpToolbox(mcp_config),
            as_of=as_of,
        )
        return await run_scenarios(
            scenarios, target, judge=None, confirm_live=True, save_responses=False
        )

    return asyncio.run(go()), follower


def missed(result):
    return [e.text for e in result.expectations if not e.satisfied]


def test_every_bundled_scenario_passes_with_the_analysis_date(mcp_config):
    as_of = resolve_as_of(None, SCENARIOS)  # the persona's as_of in mimic_stack/mimic.json
    assert as_of is not None and as_of.iso == "2026-04-29"
    assert as_of.source.endswith("mimic.json (persona growth-stage-leak)")
    result, follower = run(mcp_config, as_of=as_of)

    assert result.as_of == "2026-04-29" and "mimic_stack" in (result.as_of_source or "")
    failing = {r.name: (r.status, missed(r), r.error) for r in result.results if r.status != "pass"}
    assert not failing, failing
    assert result.passed == 19
    for r in result.results:
        trace = r.trace
        assert trace is not None and trace.stop == "end_turn"
        assert (trace.turns, len(trace.calls)) == (5, 26), r.name
        assert not any(c.is_error or c.write_attempt for c in trace.calls), r.name
        servers = {c.server for c in trace.calls}
        assert servers == {"mimic-database", "mimic-stripe"}
    # the date reached the model as the skill says it would, after the skill
    system = follower.requests[0]["system"][0]["text"]
    assert "Analysis date: 2026-04-29 (a Wednesday). Treat it as today." in system
    headline = result.results[0].response
    assert "**Headline:** $4,820 of MRR lost in 2026-04-20 to 2026-04-26 across 15 of 100" in (
        headline or ""
    )


def test_without_a_date_only_the_scenario_that_needs_it_fails(mcp_config):
    result, _ = run(mcp_config, as_of=None)
    by_name = {r.name: r for r in result.results}
    failing = sorted(n for n, r in by_name.items() if r.status != "pass")
    assert failing == ["smoke-billing-db-mismatch"]
    mismatch = by_name["smoke-billing-db-mismatch"]
    assert missed(mismatch) == ["9 days"]
    assert "(8 days ago)" in (mismatch.response or "")  # 2026-04-28, the newest support note
    assert "No analysis date was given: 2026-04-28" in (mismatch.response or "")


def test_a_skill_naming_a_server_the_stack_does_not_serve_cannot_be_followed(mcp_config, tmp_path):
    skill = tmp_path / "skills" / "revenue-recovery" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    shutil.copy(SKILL, skill)
    text = skill.read_text(encoding="utf-8")
    # the example's .mcp.json name for the database server, not the one the stack is given
    wrong = text.replace("mimic-database.get_risk_flags", "mimic-postgres.get_risk_flags")
    skill.write_text(wrong, encoding="utf-8")
    result, _ = run(mcp_config, as_of=None, skill=skill, only={"smoke-risk-flag-cancellations"})
    (r,) = result.results
    assert r.status == "fail"
    assert "Cannot follow the skill" in (r.response or "")
    assert "Unknown tool 'mimic-postgres__get_risk_flags'" in (r.response or "")
    assert any(c.tool == "mimic-postgres__get_risk_flags" and c.is_error for c in r.trace.calls)


# --- cost: the end line against a hand computation, the estimate against the actual ---------

SONNET_5_5 = {"input": 2.0, "output": 10.0, "cache_write": 2.5, "cache_read": 0.1}
"""claude-sonnet-5-5's published prices, USD per million tokens, typed here by hand."""
END_LINE = re.compile(r"estimated cost \$([0-9.]+) \(estimated ~\$([0-9.]+) before the run")
HEADER = re.compile(r"Estimated cost: ~\$([0-9.]+) for ([^\n]*)")


def cli_run(mcp_config, tmp_path, monkeypatch, capsys, *extra):
    """``scenarios run --target anthropic`` on the stack with a fresh skill follower."""
    follower = SkillFollower()
    real = anthropic.AsyncAnthropic

    def patched(**kwargs):
        kwargs["http_client"] = follower.client()
        kwargs["max_retries"] = 0
        return real(**kwargs)

    monkeypatch.setattr(anthropic, "AsyncAnthropic", patched)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    mcp_json = tmp_path / ".mcp.json"
    write_mcp_json(mcp_json, mcp_config)
    code = main(
        [
            "scenarios", "run", "--target", "anthropic", "--model", "claude-sonnet-5-5",
            "--skill", str(SKILL), "--scenarios", str(SCENARIOS), "--mcp-config", str(mcp_json),
            "--no-judge", "--yes", "--db", str(tmp_path / "history.sqlite"), *extra,
        ]
    )  # fmt: skip
    monkeypatch.setattr(anthropic, "AsyncAnthropic", real)
    return code, capsys.readouterr().err, follower


def write_mcp_json(path, config):
    servers = {n: {"type": "http", "url": s.url} for n, s in config.servers.items()}
    path.write_text(json.dumps({"mcpServers": servers}))


def by_hand(follower) -> float:
    """Every reply's usage at the prices above: what the run must have cost."""
    total = 0.0
    for reply in follower.replies:
        u = reply["usage"]
        total += (
            u["input_tokens"] * SONNET_5_5["input"]
            + u["output_tokens"] * SONNET_5_5["output"]
            + u["cache_creation_input_tokens"] * SONNET_5_5["cache_write"]
            + u["cache_read_input_tokens"] * SONNET_5_5["cache_read"]
        ) / 1e6
    return total


def test_the_cost_line_adds_up_and_the_estimate_learns_from_the_last_run(
    mcp_config, tmp_path, monkeypatch, capsys
):
    code, err, follower = cli_run(mcp_config, tmp_path, monkeypatch, capsys)
    assert code == 0, err
    assert "Analysis date: 2026-04-29 (from" in err
    ((estimate, what),) = HEADER.findall(err)
    assert "no earlier run of this setup" in what and "assumed 6 turns" in what
    actual, before = map(float, END_LINE.search(err).groups())
    first = by_hand(follower)
    assert "temperature" not in follower.requests[0]  # Sonnet 5.5 refuses sampling parameters
    assert actual == pytest.approx(first, abs=1e-4)  # the end line is the hand computation
    assert before == pytest.approx(float(estimate), abs=0.005)
    assert 1 / 1.5 <= actual / before <= 1.5  # the stated assumption, within 1.5x here too
    figures = [f"first run: estimate ${before:.4f} (assumed 6 turns), actual ${actual:.4f}"]

    # the same setup again: the estimate uses run 1's observed turns and tokens
    code, err, follower = cli_run(mcp_config, tmp_path, monkeypatch, capsys)
    ((estimate, what),) = HEADER.findall(err)
    assert "5.0 turns a scenario run, as observed in run #1 of this setup" in what
    actual, before = map(float, END_LINE.search(err).groups())
    assert actual == pytest.approx(by_hand(follower), abs=1e-4)
    assert 1 / 1.5 <= actual / before <= 1.5
    figures.append(f"second run: estimate ${before:.4f} (observed), actual ${actual:.4f}")

    # --repeat 2 doubles the estimate (and the spend)
    code, err, follower = cli_run(mcp_config, tmp_path, monkeypatch, capsys, "--repeat", "2")
    ((estimate, what),) = HEADER.findall(err)
    assert what.startswith("19 scenarios x 2 repeats (38 scenario runs)")
    actual, before = map(float, END_LINE.search(err).groups())
    assert actual == pytest.approx(by_hand(follower), abs=1e-4)
    assert 1 / 1.5 <= actual / before <= 1.5
    figures.append(f"repeat 2: estimate ${before:.4f}, actual ${actual:.4f}")
    with capsys.disabled():
        print("\n" + "\n".join(figures))
