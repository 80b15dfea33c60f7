"""One scenario run, one pass rate: every surface shows the same rate string and the same
tier strings for the bundled demo run (15 of 18 runs with a verdict passed, 1 error apart).

The run is scored once by the CLI (``scenarios score``, recorded in the history); the rest read
that run: its report JSON, ``history list``/``show``/``compare``, the gate, the dashboard's
scenario page (the run reopened from the history) and its History page (table and phone card).
The MCP tool scores the same recorded responses itself. Only the seed's markdown report keeps
its own whole-percent layout, for the same counts.

Before this test: 83%, 83.3% and 78.9% for the run; "6/7 (86%)", "6/8 (85.7%)", "6/8 75%" for
its functional tier.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.history.store import RunStore
from pe_eval_core.rates import rate_text, tally_text
from pe_eval_core.scenarios import run_from_json
from pe_eval_core.wording import fmt_pct

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / ".mimic" / "exports"
RATE = "83.3%"
TIERS = {"smoke": "6/6 (100%)", "functional": "6/7 (85.7%)", "adversarial": "3/5 (60%)"}
TALLY = "15/18 (83.3%)"


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The demo scored once through the CLI, with everything each surface printed."""
    home = tmp_path_factory.mktemp("home")
    out = home / "out"
    mp = pytest.MonkeyPatch()
    mp.setenv("PE_EVAL_HOME", str(home))
    mp.delenv("PE_EVAL_NO_HISTORY", raising=False)
    mp.delenv("ANTHROPIC_API_KEY", raising=False)
    try:
        outputs: dict[str, object] = {"home": home, "out": out}
        argv = ["scenarios", "score", "--scenarios", str(DEMO / "mimic-scenarios.json")]
        outputs["score"] = _run([*argv, "--out", str(out)])
        outputs["list"] = _run(["history", "list"])
        outputs["show"] = _run(["history", "show", "1"])
        outputs["compare"] = _run(["history", "compare", "1", "1"])
        outputs["gate"] = _run(["gate", "--scenario-run", "1", "--min-pass-rate", "overall=0.8"])
        yield outputs
    finally:
        mp.undo()


def _run(argv: list[str]) -> str:
    """stdout + stderr of one CLI command."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(argv)
    return out.getvalue() + err.getvalue()


def _tier_lines(text: str) -> dict[str, str]:
    """``tier: 6/7 (85.7%)`` or ``tier 6/7 (85.7%)`` pairs found in ``text``."""
    found = {}
    for tier in TIERS:
        m = re.search(rf"\b{tier}:? (\d+/\d+ \([^)]*\))", text)
        if m:
            found[tier] = m.group(1)
    return found


def test_the_cli_score_line(scored: dict[str, object]) -> None:
    text = str(scored["score"])
    assert f"Pass rate {RATE}: {TALLY}, 1 error apart" in text
    assert _tier_lines(text) == TIERS


def test_the_report_json_and_the_seeds_markdown(scored: dict[str, object]) -> None:
    out = Path(str(scored["out"]))
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert (data["summary"]["pass_rate_text"], data["summary"]["tally_text"]) == (RATE, TALLY)
    tiers = {t["tier"]: t["tally_text"] for t in data["by_tier"] if t["total"]}
    assert tiers == TIERS
    # the seed's layout: whole percent, the same counts
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "**Pass rate:** 83%" in md
    assert "- functional:   6/7 (86%), 1 error not counted" in md


def test_history_list_show_and_compare(scored: dict[str, object]) -> None:
    assert f"15/18 passed ({RATE}; 1 error apart)" in str(scored["list"])
    show = str(scored["show"])
    assert f"15/18 passed ({RATE}; 1 error apart)" in show
    assert _tier_lines(show) == TIERS
    compare = str(scored["compare"])
    assert compare.count(f"({RATE})") == 2  # run A and run B
    for tier, tally in TIERS.items():
        assert f"| {tier} | {tally} | {tally} |" in compare


def test_the_gate(scored: dict[str, object]) -> None:
    gate = str(scored["gate"])
    assert f"RUN   run #1: pass rate {RATE}, {TALLY}, 1 error apart" in gate
    assert _tier_lines(gate) == TIERS


def test_the_mcp_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    from pe_eval_core.mcp_server import build_server

    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    root = tmp_path / "root"
    shutil.copytree(DEMO, root / "exports")

    async def go():
        async with Client(build_server([root], record=False)) as client:
            return await client.call_tool(
                "score_scenarios",
                {
                    "scenarios_path": str(root / "exports" / "mimic-scenarios.json"),
                    "responses_path": str(root / "exports" / "recorded-responses.json"),
                },
            )

    summary = asyncio.run(go()).structured_content["summary"]
    assert (summary["pass_rate_text"], summary["tally_text"]) == (RATE, TALLY)
    assert {t["tier"]: t["tally_text"] for t in summary["by_tier"] if t["total"]} == TIERS


def test_the_dashboard_scenario_page_and_history_page(
    scored: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from ui.views.history import run_card, runs_frame

    monkeypatch.setenv("PE_EVAL_HOME", str(scored["home"]))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")  # reading only
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["run"] = "1"  # the run reopened on the History page
    at.run()
    assert not at.exception, at.exception
    assert next(m.value for m in at.metric if m.label == "Pass rate") == RATE
    tier_table = next(t.value for t in at.table if "Pass rate" in t.value.columns)
    assert tier_table["Pass rate"].to_dict() == TIERS

    store = RunStore(Path(str(scored["home"])) / "history.sqlite")
    summary = store.list_runs()[0]
    row = runs_frame([summary]).iloc[0]
    assert (row["passed"], rate_text(15, 18)) == ("15/18", RATE)
    assert fmt_pct(row["pass rate"]) == RATE  # the column prints fmt_pct of its points
    assert run_card(summary).lead.startswith(f"{tally_text(15, 18)} passed")
    # the recorded run read back is the run the CLI scored
    run = run_from_json((Path(str(scored["out"])) / "report.json").read_text(encoding="utf-8"))
    assert (run.rate_text, run.passed, run.ran) == (RATE, 15, 18)
