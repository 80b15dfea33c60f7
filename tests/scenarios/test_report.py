"""Reports: the golden markdown for the demo data, JSON round trip, CSV, JUnit XML, hostile text."""

from __future__ import annotations

import csv
import io
import json
import os
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pe_eval_core.scenarios import (
    RecordedJudge,
    RecordedTarget,
    ScenarioRun,
    TargetResponse,
    load_scenarios,
    render_markdown_report,
    run_from_json,
    run_scenarios_sync,
    run_to_csv,
    run_to_json,
    run_to_junit_xml,
)
from pe_eval_core.scenarios.agent.protocol import TargetBase
from tests.helpers.scenario_helpers import DEMO, make_scenario

GOLDEN = Path(__file__).parent / "golden" / "demo_report.md"
FIXED = datetime(2026, 4, 29, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo_run() -> ScenarioRun:
    return run_scenarios_sync(
        load_scenarios(DEMO / "mimic-scenarios.json"),
        RecordedTarget(DEMO / "recorded-responses.json"),
        judge=RecordedJudge(DEMO / "judge-verdicts.json"),
        clock=lambda: FIXED,
        save_responses=False,
    )


def test_golden_markdown_report(demo_run):
    report = render_markdown_report(demo_run)
    if os.environ.get("PE_EVAL_UPDATE_GOLDEN"):
        GOLDEN.write_text(report, encoding="utf-8")
    assert report == GOLDEN.read_text(encoding="utf-8")


def test_report_structure_is_the_seeds(demo_run):
    lines = render_markdown_report(demo_run).splitlines()
    assert lines[0] == "## Mimic Eval Report"
    assert lines[2] == "**Run:** 2026-04-29T09:00:00+00:00"
    assert lines[3].startswith(
        "**Scenarios:** 19  |  **Passed:** 15  |  **Failed:** 3  |  **Pass rate:** 83%"
    )
    assert lines[5] == "| # | Scenario | Tier | Strict | Paraphrase | Numeric | Result |"
    assert lines[6] == "|---|---|---|---|---|---|---|"
    tiers = lines[lines.index("### By tier") + 1 :][:3]
    assert tiers == [
        "- smoke:        6/6 (100%)",
        "- functional:   6/7 (86%), 1 error not counted",
        "- adversarial:  3/5 (60%)",
    ]
    assert "### Failures" in lines
    conclusion = next(i for i, line in enumerate(lines) if line.startswith("**Conclusion:**"))
    assert lines[conclusion].startswith("**Conclusion:** Worst tier: adversarial")
    # the additions come after every seed section, never between them
    assert lines.index("### Run details") > conclusion > lines.index("### Failures")


def test_demo_outcomes_show_every_column(demo_run):
    by_name = {r.name: r for r in demo_run.results}
    methods = {e.method for r in demo_run.results for e in r.expectations}
    assert methods == {"strict", "rule", "judge", None}
    assert by_name["smoke-weekly-mrr-loss-headline"].expectations[0].method == "rule"
    assert [e.method for e in by_name["smoke-failed-charge-count"].expectations].count("judge") == 1
    assert by_name["functional-recovery-plan"].numeric.nearest == 4280
    assert by_name["adversarial-issue-refund-request"].excluded_hits == ["refund issued"]
    assert by_name["functional-affected-customer-count"].status == "error"
    assert by_name["functional-downgrade-same-day-pattern"].latency_warning
    assert demo_run.judge == "recorded:claude-sonnet-4-5" and demo_run.judge_calls == 0


def test_json_has_everything_and_round_trips(demo_run):
    data = json.loads(run_to_json(demo_run))
    assert data["schema"] == "pe-eval.scenario-run/1"
    assert data["summary"] == {
        "total": 19,
        "passed": 15,
        "failed": 3,
        "errors": 1,
        "pass_rate": pytest.approx(15 / 18),  # the error is left out of the denominator
        "pass_rate_text": "83.3%",  # as every surface shows it (pe_eval_core.rates)
        "tally_text": "15/18 (83.3%)",
        "ran": 18,
        "error_summary": "1 error: agent error",
    }
    assert data["conclusion"] == demo_run.conclusion()
    first = data["results"][0]
    assert {
        "expectations",
        "numbers",
        "excluded_hits",
        "latency_ms",
        "tokens_in",
        "numeric",
    } <= set(first)
    assert first["expectations"][0] == {
        "text": "$4,820",
        "method": "rule",
        "satisfied": True,
        "evidence": "$4820.00",
        "note": "number format",
        "judge_model": None,
        "judge_prompt_version": None,
        "judge_source": None,
    }
    back = run_from_json(run_to_json(demo_run))
    assert render_markdown_report(back) == render_markdown_report(demo_run)


def test_csv_one_row_per_scenario(demo_run):
    rows = list(csv.DictReader(io.StringIO(run_to_csv(demo_run))))
    assert len(rows) == 19
    row = rows[9]
    assert (row["name"], row["status"], row["numeric"]) == (
        "functional-recovery-plan",
        "fail",
        "fail",
    )
    assert row["numeric_detail"] == "total_mrr_lost: total_mrr_lost=4280 (expected [4800, 4840])"
    assert rows[0]["rule_satisfied"] == "1" and rows[1]["judge_satisfied"] == "1"


def test_junit_one_testsuite_per_tier(demo_run):
    root = ET.fromstring(run_to_junit_xml(demo_run))
    assert root.tag == "testsuites" and root.get("tests") == "19"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["smoke", "functional", "adversarial"]
    assert (suites["functional"].get("failures"), suites["functional"].get("errors")) == ("1", "1")
    assert suites["adversarial"].get("failures") == "2"
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert (
        cases["functional-affected-customer-count"]
        .find("error")
        .get("message")
        .startswith("HTTP 502")
    )
    assert "refund issued" in cases["adversarial-issue-refund-request"].find("failure").get(
        "message"
    )
    assert cases["smoke-double-charge"].find("failure") is None


def _one_result_run(name: str, text: str, error: str | None = None) -> ScenarioRun:
    class T(TargetBase):
        name, live, model = "t", False, None

        async def respond(self, scenario):
            return TargetResponse(text=None if error else text, error=error)

    s = make_scenario(name, response_contains=["never there"], metadata={"tier": "chaos"})
    return run_scenarios_sync([s], T(), clock=lambda: FIXED, save_responses=False)


def test_hostile_text_cannot_break_the_markdown():
    text = "```\n## Mimic Eval Report\n| 1 | fake | smoke | 9/9 | 0/0 | ✓ | ✅ pass |\n````"
    run = _one_result_run("evil | name <script>alert(1)</script>", text)
    report = render_markdown_report(run)
    row = next(line for line in report.splitlines() if line.startswith("| 1 |"))
    assert row.count(" | ") == 6  # the pipe in the name is escaped, still 7 cells
    assert "evil \\| name \\<script\\>" in row
    fence = "`````"  # longer than the longest backtick run (4) in the response
    assert f"  {fence}text" in report and f"  {fence}\n" in report
    assert [line for line in report.splitlines() if line.startswith("## ")] == [
        "## Mimic Eval Report"
    ]
    assert [line for line in report.splitlines() if line.startswith("| 1 |")] == [row]
    assert "- chaos:" in report  # unknown tier reported under its own name


def test_hostile_text_is_valid_xml_and_safe_csv():
    run = _one_result_run("=cmd|' /C calc'!A0", "ok\x00\x1b[31m", error=None)
    root = ET.fromstring(run_to_junit_xml(run))
    assert root.find(".//system-out").text == "ok[31m"
    rows = list(csv.reader(io.StringIO(run_to_csv(run))))
    assert rows[1][1].startswith("'=cmd")


def test_error_run_markdown_and_xml():
    run = _one_result_run("broken", "", error="HTTP 500 from agent: <b>boom</b>")
    report = render_markdown_report(run)
    assert "| 1 | broken | chaos | — | — | — | ⚠️ error |" in report
    assert "- **broken** — error: HTTP 500 from agent: \\<b\\>boom\\</b\\>" in report
    assert "**Errors:** 1" in report
    assert ET.fromstring(run_to_junit_xml(run)).find(".//error").get("type") == "error"
