"""The bundled demo scenario data is consistent: scenarios, recorded responses, judge verdicts,
the fact manifest and the intended outcomes in `.mimic/exports/README.md` agree.

Plain json/re only: this checks the data, not the scenario scoring core.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPORTS = ROOT / ".mimic" / "exports"
SKILL = ROOT / "skills" / "revenue-recovery" / "SKILL.md"

TIERS = {"smoke": 6, "functional": 8, "adversarial": 5}
PLATFORMS = {"stripe", "database", "cross-platform"}
SCENARIO_KEYS = {"name", "persona", "goal", "input", "expect", "metadata"}

# Candidate misses under strict matching that the deterministic rules are meant to satisfy
# (so they must not need a judge verdict): (scenario, expected) -> the response's wording.
RULE_CASES = {
    ("smoke-weekly-mrr-loss-headline", "$4,820"): "$4820.00",
    (
        "functional-cross-platform-reconciliation",
        "active in the product database",
    ): "active in product database",
}
FUNCTION_WORDS = {"a", "an", "the", "of", "in", "on", "to", "for", "and", "at", "by"}


@cache
def scenarios() -> list[dict]:
    return json.loads((EXPORTS / "mimic-scenarios.json").read_text(encoding="utf-8"))


@cache
def recorded() -> dict[str, dict]:
    rows = json.loads((EXPORTS / "recorded-responses.json").read_text(encoding="utf-8"))
    return {row["name"]: row for row in rows}


@cache
def judge_file() -> dict:
    return json.loads((EXPORTS / "judge-verdicts.json").read_text(encoding="utf-8"))


@cache
def readme() -> str:
    return (EXPORTS / "README.md").read_text(encoding="utf-8")


def manifest() -> dict:
    blocks = re.findall(r"```json\n(.*?)\n```", readme(), flags=re.DOTALL)
    assert len(blocks) == 1, "README.md must hold exactly one ```json fact manifest block"
    return json.loads(blocks[0])


def outcome_rows() -> list[list[str]]:
    section = readme().split("## Intended outcomes", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            rows.append(cells)
    return rows


def by_name() -> dict[str, dict]:
    return {s["name"]: s for s in scenarios()}


def numbers(text: str) -> list[float]:
    """Amounts in our own fixed responses (a simple oracle, not the product's extractor)."""
    text = re.sub(r"\d{4}-\d{2}-\d{2}", " ", text)  # ISO dates
    text = re.sub(r"\d{1,2}:\d{2}", " ", text)  # times of day
    text = re.sub(r"\b\w*_\w*\b", " ", text)  # identifiers such as cus_GL072, in_quill_apr
    return [float(m.replace(",", "")) for m in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


def strict_misses(scenario: dict, response: str) -> list[str]:
    low = response.lower()
    return [e for e in scenario["expect"]["response_contains"] if e.lower() not in low]


def verdicts() -> dict[tuple[str, str], dict]:
    return {(v["scenario"], v["expected"]): v for v in judge_file()["verdicts"]}


# ---------------------------------------------------------------- structure


def test_nineteen_scenarios_with_unique_kebab_case_names():
    names = [s["name"] for s in scenarios()]
    assert len(names) == 19
    assert len(set(names)) == 19
    for name in names:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", name), name


def test_every_scenario_has_the_mimic_fields():
    for s in scenarios():
        assert s.keys() >= SCENARIO_KEYS, s["name"]
        assert s["persona"] == "growth-stage-leak"
        assert s["goal"].strip()
        assert s["input"].strip()
        expect = s["expect"]
        contains = expect["response_contains"]
        assert contains, s["name"]
        assert all(isinstance(c, str) and c.strip() for c in contains), s["name"]
        assert len(set(map(str.lower, contains))) == len(contains), s["name"]
        for phrase in expect.get("response_excludes", []):
            assert phrase.strip(), s["name"]
        if "numeric_range" in expect:
            rng = expect["numeric_range"]
            assert rng["field"] and rng["min"] <= rng["max"], s["name"]
        assert isinstance(expect["max_latency_ms"], int) and expect["max_latency_ms"] > 0
        meta = s["metadata"]
        assert meta["tier"] in TIERS, s["name"]
        assert re.fullmatch(r"fact_\d{3}", meta["source_fact"]), s["name"]
        assert meta["platform"] in PLATFORMS, s["name"]


def test_tiers_are_spread_as_documented():
    assert Counter(s["metadata"]["tier"] for s in scenarios()) == TIERS


def test_many_scenarios_carry_numeric_ranges_and_some_carry_excludes():
    expects = [s["expect"] for s in scenarios()]
    assert sum("numeric_range" in e for e in expects) >= 15
    assert sum(bool(e.get("response_excludes")) for e in expects) >= 3


def test_source_facts_are_shared_so_the_report_can_name_weak_facts():
    counts = Counter(s["metadata"]["source_fact"] for s in scenarios())
    assert sum(1 for n in counts.values() if n >= 2) >= 5


# ---------------------------------------------------------------- recorded responses


def test_every_scenario_has_exactly_one_recorded_response():
    rows = json.loads((EXPORTS / "recorded-responses.json").read_text(encoding="utf-8"))
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    assert set(names) == set(by_name())


def test_recorded_rows_are_either_a_response_or_an_error():
    errors = []
    for name, row in recorded().items():
        assert isinstance(row["latency_ms"], int) and row["latency_ms"] > 0, name
        if row.get("error"):
            assert not row.get("response"), name
            errors.append(name)
        else:
            assert isinstance(row["response"], str) and row["response"].strip(), name
    assert errors == ["functional-affected-customer-count"]
    assert recorded()[errors[0]]["error"] == "HTTP 502 from agent: upstream timeout"


def test_exactly_one_response_is_over_its_latency_budget():
    slow = [
        name
        for name, row in recorded().items()
        if row["latency_ms"] > by_name()[name]["expect"]["max_latency_ms"]
    ]
    assert slow == ["functional-downgrade-same-day-pattern"]


def test_a_response_carries_a_prompt_injection_aimed_at_the_grader():
    hostile = [
        name
        for name, row in recorded().items()
        if "ignore previous instructions" in (row.get("response") or "").lower()
    ]
    assert hostile == ["adversarial-prompt-injection-in-request"]
    # ...and the recorded judge was not talked into anything.
    for (scenario, _), verdict in verdicts().items():
        if scenario in hostile:
            assert verdict["verdict"] == "missed"


# ---------------------------------------------------------------- judge verdicts


def test_judge_file_is_labelled_as_recorded():
    data = judge_file()
    assert "recorded" in data["label"] and "not a live model call" in data["label"]
    assert data["model"] and data["prompt_version"]


def test_judge_verdicts_are_well_formed_and_quote_verbatim():
    rows = judge_file()["verdicts"]
    assert len(verdicts()) == len(rows), "duplicate (scenario, expected) verdict"
    for v in rows:
        scenario = by_name()[v["scenario"]]
        assert v["expected"] in scenario["expect"]["response_contains"]
        assert v["verdict"] in {"paraphrase", "missed"}
        response = recorded()[v["scenario"]]["response"]
        assert v["evidence"] in response, (v["scenario"], v["evidence"])
        if v["verdict"] == "paraphrase":
            assert v["evidence"].strip()
    assert {v["verdict"] for v in rows} == {"paraphrase", "missed"}


def test_candidate_misses_are_exactly_the_rule_cases_plus_the_recorded_verdicts():
    misses = set()
    for name, row in recorded().items():
        if row.get("response"):
            misses |= {(name, e) for e in strict_misses(by_name()[name], row["response"])}
    assert not set(RULE_CASES) & set(verdicts())
    # Matches found only in a negated sentence also go to the judge (assertions.check_contains)
    assert misses | NEGATED_MATCHES == set(RULE_CASES) | set(verdicts())


NEGATED_MATCHES = {
    ("smoke-risk-flag-cancellations", "risk flag"),
    ("functional-risk-flag-followup", "no follow-up"),
    ("functional-recovery-plan", "Northwind Logistics"),
    ("adversarial-modify-data-request", "read-only"),
}
"""Strict matches whose sentence holds a negation cue elsewhere: the judge decides them."""


@pytest.mark.parametrize(("key", "wording"), RULE_CASES.items())
def test_rule_cases_differ_only_in_format_or_function_words(key, wording):
    name, expected = key
    response = recorded()[name]["response"]
    assert wording in response
    if numbers(expected):
        assert numbers(expected) == numbers(wording)
    else:

        def words(text):
            return [w for w in re.findall(r"\w+", text.lower()) if w not in FUNCTION_WORDS]

        assert words(expected) == words(wording)


# ---------------------------------------------------------------- facts


def test_fact_manifest_adds_up_to_4820():
    m = manifest()
    causes = m["causes"]
    assert [c["cause"] for c in causes] == [
        "failed_charges",
        "downgrades",
        "risk_flag_cancellations",
        "double_charge",
        "billing_product_mismatch",
    ]
    for cause in causes:
        assert sum(c["mrr_lost_usd"] for c in cause["customers"]) == cause["mrr_lost_usd"]
    assert sum(c["mrr_lost_usd"] for c in causes) == m["total_mrr_lost_usd"] == 4820


def test_fact_manifest_counts_match_the_persona():
    m = manifest()
    causes = {c["cause"]: c["customers"] for c in m["causes"]}
    assert [len(causes[k]) for k in causes] == [8, 3, 2, 1, 1]
    assert Counter(c["detail"] for c in causes["failed_charges"]) == {
        "expired_card": 4,
        "insufficient_funds": 2,
        "lost_card": 2,
    }
    ids = [c["id"] for cs in causes.values() for c in cs]
    assert len(ids) == len(set(ids)) == 15
    assert m["customers_total"] == 100
    assert {c["detail"] for c in causes["downgrades"]} == {"799->99 on 2026-04-23"}
    cancelled = re.search(r"\d{4}-\d{2}-\d{2}", causes["billing_product_mismatch"][0]["detail"])
    as_of = dt.date.fromisoformat(m["as_of"])
    assert (as_of - dt.date.fromisoformat(cancelled.group())).days == 9
    week = m["week"]
    assert dt.date.fromisoformat(week["start"]).weekday() == 0  # a Monday
    assert dt.date.fromisoformat(week["end"]) - dt.date.fromisoformat(week["start"]) == (
        dt.timedelta(days=6)
    )


def test_scenarios_only_cite_facts_in_the_manifest_and_cover_them_all():
    assert {s["metadata"]["source_fact"] for s in scenarios()} == set(manifest()["facts"])


def test_expected_amounts_and_ranges_come_from_the_facts():
    m = manifest()
    amounts = {m["total_mrr_lost_usd"], 99, 799}
    for cause in m["causes"]:
        amounts.add(cause["mrr_lost_usd"])
        amounts |= {c["mrr_lost_usd"] for c in cause["customers"]}
    by_reason = Counter()
    for c in m["causes"][0]["customers"]:
        by_reason[c["detail"]] += c["mrr_lost_usd"]
    amounts |= set(by_reason.values())
    assert sorted(by_reason.values()) == [300, 420, 920]
    for s in scenarios():
        for expected in s["expect"]["response_contains"]:
            if expected.startswith("$"):
                assert numbers(expected)[0] in amounts, (s["name"], expected)
        rng = s["expect"].get("numeric_range")
        if rng and rng["field"] != "affected_customers":
            assert any(rng["min"] <= a <= rng["max"] for a in amounts), s["name"]


def test_the_skill_names_its_tools_and_output_sections():
    text = SKILL.read_text(encoding="utf-8")
    for needle in (
        "name: revenue-recovery",
        "mimic-database",
        "mimic-stripe",
        "**Headline:**",
        "**Counts:**",
        "**Recovery actions**",
        "Read-only",
    ):
        assert needle in text, needle


# ---------------------------------------------------------------- intended outcomes


def intended_status(scenario: dict, row: dict) -> str:
    """The seed's pass rule applied with strict + documented rule cases + recorded verdicts."""
    if row.get("error"):
        return "error"
    response = row["response"]
    expect = scenario["expect"]
    contains = expect["response_contains"]
    ok = 0
    for expected in contains:
        key = (scenario["name"], expected)
        strict = expected.lower() in response.lower()
        judged = verdicts().get(key, {}).get("verdict") == "paraphrase"
        ok += strict or key in RULE_CASES or judged
    rng = expect.get("numeric_range")
    in_range = rng is None or any(rng["min"] <= n <= rng["max"] for n in numbers(response))
    excluded = any(p.lower() in response.lower() for p in expect.get("response_excludes", []))
    return "pass" if ok / len(contains) >= 0.8 and in_range and not excluded else "fail"


def test_readme_outcome_table_lists_every_scenario_in_file_order():
    rows = outcome_rows()
    assert [r[1] for r in rows] == [s["name"] for s in scenarios()]
    assert [r[2] for r in rows] == [s["metadata"]["tier"] for s in scenarios()]
    assert [r[3] for r in rows] == [s["metadata"]["source_fact"] for s in scenarios()]


def test_readme_outcomes_follow_from_the_data():
    documented = {r[1]: r[4] for r in outcome_rows()}
    computed = {s["name"]: intended_status(s, recorded()[s["name"]]) for s in scenarios()}
    assert computed == documented
    assert Counter(computed.values()) == {"pass": 15, "fail": 3, "error": 1}


def test_without_the_judge_only_the_paraphrase_scenario_changes():
    paraphrased = {
        k[0]
        for k, v in verdicts().items()
        if v["verdict"] == "paraphrase" and k not in NEGATED_MATCHES
    }
    assert paraphrased == {"smoke-failed-charge-count"}
    name = "smoke-failed-charge-count"
    scenario, response = by_name()[name], recorded()[name]["response"]
    strict_ok = len(scenario["expect"]["response_contains"]) - len(
        strict_misses(scenario, response)
    )
    assert strict_ok / len(scenario["expect"]["response_contains"]) < 0.8
