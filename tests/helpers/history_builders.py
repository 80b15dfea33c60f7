"""Builders of real core models for the run-history tests, and the demo file locations.

They construct the memo and scenario cores' own pydantic models (``MemoEvaluation``,
``ScenarioRun``), so the store is exercised with exactly what the CLI and dashboard record.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO_DATA = ROOT / "finance_output"
DEMO_EXPORTS = ROOT / ".mimic" / "exports"
DEMO_SCENARIOS = DEMO_EXPORTS / "mimic-scenarios.json"
DEMO_RESPONSES = DEMO_EXPORTS / "recorded-responses.json"
DEMO_VERDICTS = DEMO_EXPORTS / "judge-verdicts.json"


def make_memo_evaluation(
    *,
    portco: str = "MortgageCo",
    audience: str = "board",
    scores: tuple[float, float, float, float] = (1.0, 0.0, 1.0, 1.0),
    findings: list[dict[str, Any]] | None = None,
    when: datetime | None = None,
    memo_sha: str = "a" * 64,
) -> Any:
    from pe_eval_core.memo import MemoEvaluation

    citation, halluc, coverage, consistency = scores
    findings = findings or []
    return MemoEvaluation.model_validate(
        {
            "portco_id": portco,
            "audience": audience,
            "memo_path": f"/data/explain_{portco}_{audience}.json",
            "source_path": f"/data/dx_report_{portco}.json",
            "memo_sha256": memo_sha,
            "source_sha256": "b" * 64,
            "grader_version": "1.0.0",
            "evaluated_at": (when or datetime.now(UTC)).isoformat(),
            "scores": {
                "citation_accuracy": citation,
                "hallucination_rate": halluc,
                "coverage": coverage,
                "consistency": consistency,
            },
            "totals": {
                "figures_total": 20,
                "figures_cited": round(20 * citation),
                "entities_total": 10,
                "entities_grounded": 10 - round(10 * halluc),
                "opps_in_source": 3,
                "opps_addressed": round(3 * coverage),
            },
            "opportunities": [
                {
                    "id": f"opp_0{i}",
                    "archetype": "pricing",
                    "cohort": "A × 360 months",
                    "in_source": True,
                    "addressed": True,
                    "figures_total": 7,
                    "figures_cited": 7,
                    "findings": sum(1 for f in findings if f.get("opportunity_id") == f"opp_0{i}"),
                }
                for i in (1, 2, 3)
            ],
            "findings": [{"message": "m", **f} for f in findings],
            "marks": [],
            "consistency": {"note": "agrees with the operator sibling"},
            "prose": [],
        }
    )


def make_result(
    name: str,
    tier: str,
    status: str,
    *,
    expectations: list[tuple[str, bool, str | None]] = (),
    numeric: tuple[str, float, float, bool, float | None] | None = None,
    numbers: list[float] = (),
    response: str = "",
    error: str | None = None,
    latency_ms: float = 1200.0,
) -> dict[str, Any]:
    """One result of a run; another ``latency_ms`` makes another measurement (a live re-run),
    which the history records as a new run even when every verdict is the same."""
    checks = []
    if numeric:
        field, lo, hi, ok, value = numeric
        checks.append(
            {
                "field": field,
                "min": lo,
                "max": hi,
                "satisfied": ok,
                "matched": value if ok else None,
                "nearest": None if ok else value,
            }
        )
    return {
        "name": name,
        "tier": tier,
        "source_fact": "fact_001",
        "status": status,
        "expectations": [{"text": t, "satisfied": ok, "method": m} for t, ok, m in expectations],
        "numeric_checks": checks,
        "numbers": list(numbers),
        "response": response,
        "error": error,
        "latency_ms": latency_ms,
    }


def make_scenario_run(
    results: list[dict[str, Any]],
    *,
    run_id: str | None = None,
    when: datetime | None = None,
    scenarios_path: str = "/data/mimic-scenarios.json",
    target: str = "recorded:/data/recorded-responses.json",
    model: str | None = None,
) -> Any:
    from pe_eval_core.scenarios import ScenarioRun

    start = when or datetime.now(UTC)
    return ScenarioRun.model_validate(
        {
            "run_id": run_id or f"run-{start.timestamp():.6f}",
            "started_at": start,
            "finished_at": start + timedelta(seconds=3),
            "scenarios_path": scenarios_path,
            "target": target,
            "model": model,
            "results": results,
            "tokens_in": 100,
            "tokens_out": 50,
        }
    )


def run_demo(responses: Path = DEMO_RESPONSES, *, judge: bool = True) -> Any:
    """Score the bundled demo scenarios against recorded responses (no network)."""
    from pe_eval_core.scenarios import (
        RecordedJudge,
        RecordedTarget,
        load_recorded,
        load_scenarios,
        run_scenarios_sync,
    )
    from pe_eval_core.scenarios.scoring.judge import stamp_recorded_verdicts

    verdicts = DEMO_VERDICTS
    if judge and Path(responses) != DEMO_RESPONSES:
        # verdicts are keyed by response: the edited responses are judged as the demo's were
        # (re-keyed copy), since these runs compare outcomes, not the judge
        verdicts = Path(responses).parent / "judge-verdicts-rekeyed.json"
        verdicts.write_bytes(DEMO_VERDICTS.read_bytes())
        texts = {n: r.response for n, r in load_recorded(responses).items() if r.response}
        stamp_recorded_verdicts(verdicts, texts)
    return run_scenarios_sync(
        load_scenarios(DEMO_SCENARIOS),
        RecordedTarget(responses),
        judge=RecordedJudge(verdicts) if judge else None,
        scenarios_path=DEMO_SCENARIOS,
        save_responses=False,
    )
