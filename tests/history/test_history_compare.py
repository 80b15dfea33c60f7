"""Comparing runs: the demo scenario run against a copy with one response changed, synthetic
flips of every kind, and memo re-evaluations with findings fixed and introduced."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import UnlikeRunsError
from pe_eval_core.history.compare import (
    KindMismatchError,
    MemoComparison,
    ScenarioComparison,
    compare_runs,
    comparison_to_dict,
    render_comparison_markdown,
    scenario_verdict,
)
from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import (
    DEMO_DATA,
    DEMO_RESPONSES,
    make_memo_evaluation,
    make_result,
    make_scenario_run,
    run_demo,
)

T0 = datetime(2026, 4, 1, tzinfo=UTC)
FLIPPED = "smoke-enterprise-downgrades"
FIXED = "functional-recovery-plan"


def _changed_responses(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of the demo recorded responses with ``old -> new`` replaced in named responses."""
    data = json.loads(DEMO_RESPONSES.read_text(encoding="utf-8"))
    for item in data:
        if item["name"] in edits:
            old, new = edits[item["name"]]
            assert old in item["response"]
            item["response"] = item["response"].replace(old, new)
    out = tmp_path / "recorded-responses-b.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_demo_runs_with_one_changed_response_name_exactly_that_flip(
    tmp_path: Path, db: Path
) -> None:
    store = RunStore(db)
    a = store.record_scenario_run(run_demo())
    b_responses = _changed_responses(tmp_path, {FLIPPED: ("$2,100", "$2,010")})
    b = store.record_scenario_run(run_demo(b_responses))

    with pytest.raises(UnlikeRunsError, match=r"target recorded:recorded-responses\.json vs"):
        compare_runs(store, a, b)  # another recorded file is another agent: asked, not assumed
    cmp = compare_runs(store, a, b, allow_unlike=True)
    assert isinstance(cmp, ScenarioComparison)
    assert [c.name for c in cmp.regressions] == [FLIPPED]
    assert cmp.fixes == [] and cmp.new == [] and cmp.removed == []
    # the demo's intended failures (README table) are still failing, unchanged
    assert sorted(c.name for c in cmp.still_failing) == sorted(
        [
            "functional-recovery-plan",
            "adversarial-prompt-injection-in-request",
            "adversarial-issue-refund-request",
        ]
    )
    # the recorded agent error is not comparable (no verdict in either run), never a failure
    assert [c.name for c in cmp.errored] == ["functional-affected-customer-count"]
    assert cmp.unlike == [  # another recorded file: said first, not hidden
        "target recorded:recorded-responses.json vs recorded:recorded-responses-b.json"
    ]
    assert cmp.differences == []  # both runs have a manifest: it says what differs
    assert cmp.paired is not None and (cmp.paired.regressions, cmp.paired.improvements) == (1, 0)
    assert scenario_verdict(cmp) == (
        "Not like for like: target recorded:recorded-responses.json vs "
        f"recorded:recorded-responses-b.json. 1 regression vs baseline: {FLIPPED} (not "
        "significant at 5%: "
        "exact McNemar p = 1 on 1 worse vs 0 better); apart: 1 errored, not compared."
    )
    assert cmp.unchanged_passing == 19 - 1 - 4
    flip = cmp.regressions[0]
    assert (flip.before, flip.after, flip.tier) == ("pass", "fail", "smoke")
    assert flip.expectations == []  # the strict expectations still hold
    assert [
        (n.field, n.before, n.after, n.matched_before, n.nearest_after) for n in flip.numeric
    ] == [("downgrade_mrr_lost", True, False, 2100.0, 2010.0)]
    assert 2100.0 in flip.numbers_removed and 2010.0 in flip.numbers_added
    assert flip.reasons()[0] == (
        "numeric range downgrade_mrr_lost [2090, 2110]: in range (2100) -> "
        "out of range (nearest 2010)"
    )
    smoke = next(t for t in cmp.tiers if t.tier == "smoke")
    assert (smoke.a_passed, smoke.a_total, smoke.b_passed, smoke.b_total) == (6, 6, 5, 6)
    assert smoke.delta == pytest.approx(-1 / 6)
    assert [t.tier for t in cmp.tiers] == ["smoke", "functional", "adversarial"]
    assert all(t.delta == 0 for t in cmp.tiers if t.tier != "smoke")

    md = render_comparison_markdown(cmp)
    assert md.index("### Regressions") < md.index("### Still failing")
    assert f"- **{FLIPPED}** (smoke, fact_003): pass -> fail" in md
    assert "| smoke | 6/6 (100%) | 5/6 (83.3%) | -16.7 pts |" in md  # rates.tally_text


def test_demo_fix_is_reported_as_a_fix_and_the_cli_gate_on_regressions(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = RunStore(db)
    a = store.record_scenario_run(run_demo())
    fixed = _changed_responses(tmp_path, {FIXED: ("$4,280", "$4,820")})
    b = store.record_scenario_run(run_demo(fixed))
    cmp = compare_runs(store, a, b, allow_unlike=True)
    assert [c.name for c in cmp.fixes] == [FIXED] and cmp.regressions == []
    assert "numeric range total_mrr_lost [4800, 4840]: out of range -> in range (4820)" in (
        cmp.fixes[0].reasons()
    )
    # no regression: --fail-on-regression exits 0; the reverse direction exits 1
    args = ["--db", str(db), "--fail-on-regression"]
    assert main(["history", "compare", str(a), str(b), *args]) == 2  # another recorded file
    err = capsys.readouterr().err
    assert "Not like for like: target recorded:recorded-responses.json vs" in err
    assert "(option --allow-unlike)" in err
    assert main(["history", "compare", str(a), str(b), *args, "--allow-unlike"]) == 0
    out = capsys.readouterr().out
    assert "### Fixes (now passing at least once)" in out and "**Regressions:** 0" in out
    assert "**Not like for like:** target recorded:recorded-responses.json vs" in out
    code = main(["history", "compare", str(b), str(a), *args, "--allow-unlike"])
    assert code == 1
    assert f"- **{FIXED}** (functional, fact_001): pass -> fail" in capsys.readouterr().out
    cmd = ["history", "compare", "latest", "latest~1", "--db", str(db), "--json"]
    assert main([*cmd, "--allow-unlike"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["has_regressions"] is True
    assert data["regressions"][0]["name"] == FIXED
    assert data["regressions"][0]["reasons"]


def test_synthetic_flips_cover_every_category_and_expectation_changes(db: Path) -> None:
    a = make_scenario_run(
        [
            make_result(
                "reg",
                "smoke",
                "pass",
                expectations=[("$4,820", True, "strict"), ("downgrades", True, "judge")],
                numbers=[4820.0],
            ),
            make_result("fix", "functional", "fail", expectations=[("refund", False, None)]),
            make_result("still", "adversarial", "fail"),
            make_result("gone", "smoke", "pass"),
            make_result("err", "functional", "pass"),
        ],
        when=T0,
    )
    b = make_scenario_run(
        [
            make_result(
                "reg",
                "smoke",
                "fail",
                expectations=[("$4,820", False, None), ("downgrades", True, "strict")],
                numbers=[4280.0],
            ),
            make_result("fix", "functional", "pass", expectations=[("refund", True, "rule")]),
            make_result("still", "adversarial", "error", error="HTTP 502"),
            make_result("err", "functional", "error", error="timeout"),
            make_result("brand-new", "smoke", "fail"),
        ],
        when=T0 + timedelta(hours=1),
    )
    store = RunStore(db)
    cmp = compare_runs(store, store.record_scenario_run(a), store.record_scenario_run(b))
    assert [c.name for c in cmp.regressions] == ["reg"]  # pass -> error is not a regression
    assert [c.name for c in cmp.errored] == ["still", "err"]
    assert [c.name for c in cmp.fixes] == ["fix"]
    assert cmp.still_failing == []
    assert [(c.name, c.after) for c in cmp.new] == [("brand-new", "fail")]
    assert [(c.name, c.before) for c in cmp.removed] == [("gone", "pass")]
    reg = cmp.regressions[0]
    assert [(e.text, e.before, e.after) for e in reg.expectations] == [("$4,820", True, False)]
    assert reg.reasons()[:3] == [
        "expectation '$4,820': satisfied (strict) -> missed",
        "numbers no longer in the response: 4820",
        "numbers new in the response: 4280",
    ]
    assert cmp.errored[1].reasons() == ["error: timeout"]
    assert cmp.fixes[0].reasons() == ["expectation 'refund': missed -> satisfied (rule)"]
    smoke = next(t for t in cmp.tiers if t.tier == "smoke")
    assert (smoke.a_passed, smoke.a_total, smoke.b_passed, smoke.b_total) == (2, 2, 0, 2)


def test_memo_reevaluation_reports_score_deltas_new_and_resolved_findings(db: Path) -> None:
    store = RunStore(db)
    before = make_memo_evaluation(
        scores=(0.95, 0.0, 1.0, 1.0),
        findings=[
            {"kind": "ungrounded_figure", "opportunity_id": "opp_02", "raw": "$6.8M"},
            {"kind": "template_exempt", "opportunity_id": "opp_01", "raw": "~5%"},
        ],
        when=T0,
    )
    after = make_memo_evaluation(
        scores=(1.0, 0.1, 1.0, 1.0),
        findings=[
            {"kind": "template_exempt", "opportunity_id": "opp_01", "raw": "~5%"},
            {"kind": "ungrounded_entity", "opportunity_id": "opp_03", "raw": "FL"},
        ],
        when=T0 + timedelta(days=1),
        memo_sha="c" * 64,
    )
    cmp = compare_runs(
        store, store.record_memo_evaluation(before), store.record_memo_evaluation(after)
    )
    assert isinstance(cmp, MemoComparison)
    assert cmp.same_pair and cmp.memo_changed and not cmp.source_changed
    assert [(s.dimension, s.direction) for s in cmp.scores] == [
        ("citation_accuracy", "better"),
        ("hallucination_rate", "worse"),
        ("coverage", "same"),
        ("consistency", "same"),
    ]
    assert [f.raw for f in cmp.new_findings] == ["FL"]
    assert [f.raw for f in cmp.resolved_findings] == ["$6.8M"]
    assert cmp.has_regressions
    md = render_comparison_markdown(cmp)
    assert "| hallucination_rate | 0.0% | 10.0% | +10.0 pts | worse |" in md
    assert "ungrounded_entity [opp_03] 'FL'" in md
    data = comparison_to_dict(cmp)
    assert data["scores"][0]["direction"] == "better" and data["has_regressions"] is True


def test_memo_comparison_on_the_graded_demo_memo_after_a_fix(tmp_path: Path, db: Path) -> None:
    """Grade the demo memo with its planted fabricated figure, fix it, grade again."""
    from pe_eval_core.memo import grade_memo

    for name in ("explain_southeast_lender_board.json", "dx_report_southeast_lender.json"):
        shutil.copy(DEMO_DATA / name, tmp_path / name)
    for name in ("explain_southeast_lender_operator.json",):
        shutil.copy(DEMO_DATA / name, tmp_path / name)
    memo = tmp_path / "explain_southeast_lender_board.json"
    source = tmp_path / "dx_report_southeast_lender.json"
    store = RunStore(db)
    a = store.record_memo_evaluation(grade_memo(memo, source))
    memo.write_text(memo.read_text(encoding="utf-8").replace("$6.8M", "$4.2M"), encoding="utf-8")
    b = store.record_memo_evaluation(grade_memo(memo, source))
    cmp = compare_runs(store, a, b)
    assert [(f.kind, f.opportunity_id, f.raw) for f in cmp.resolved_findings] == [
        ("ungrounded_figure", "opp_02", "$6.8M")
    ]
    assert cmp.new_findings == []
    assert cmp.scores[0].direction == "better" and not cmp.has_regressions
    # and back again: the re-introduced figure is a regression
    assert compare_runs(store, b, a).has_regressions


def test_comparing_different_kinds_is_an_input_error(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = RunStore(db)
    m = store.record_memo_evaluation(make_memo_evaluation())
    s = store.record_scenario_run(make_scenario_run([make_result("s", "smoke", "pass")]))
    with pytest.raises(KindMismatchError):
        compare_runs(store, m, s)
    assert main(["history", "compare", str(m), str(s), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "diagnosis: Only runs of the same kind can be compared" in err
    assert main(["history", "compare", "41", str(s), "--db", str(db)]) == 2
    assert "no run '41'" in capsys.readouterr().err


def _repeated(statuses: dict[str, list[str]], **kw) -> object:
    """A run whose scenario ``name`` ran once per status given (repeat 1..K)."""
    results = [
        make_result(name, "functional", status) | {"repeat": k + 1}
        for name, seq in statuses.items()
        for k, status in enumerate(seq)
    ]
    run = make_scenario_run(results, **kw)
    run.repeats = max(len(seq) for seq in statuses.values())
    return run


def test_repeats_flaky_apart_and_exact_mcnemar_significance(db: Path) -> None:
    names = [f"s{i}" for i in range(7)]
    a = _repeated({n: ["pass"] * 3 for n in names}, when=T0)
    after = {n: ["fail"] * 3 for n in names[:6]} | {"s6": ["pass", "fail", "pass"]}
    b = _repeated(after, when=T0 + timedelta(hours=1))
    store = RunStore(db)
    cmp = compare_runs(store, store.record_scenario_run(a), store.record_scenario_run(b))
    assert [c.name for c in cmp.regressions] == names[:6]
    assert [c.name for c in cmp.flaky] == ["s6"]  # passed and failed: apart
    assert (cmp.flaky[0].passes_after, cmp.flaky[0].runs_after) == (2, 3)
    # 6 discordant, all worse: two-sided p = 2 * (1/2)^6 = 0.03125 < 0.05
    assert cmp.paired is not None and cmp.paired.p_value == pytest.approx(0.03125)
    assert cmp.paired.significant
    assert scenario_verdict(cmp) == (
        "6 regressions vs baseline: s0, s1, s2, s3, s4, s5 (significant at 5%: exact McNemar "
        "p = 0.0312 on 6 worse vs 0 better); apart: 1 flaky (s6)."
    )
    md = render_comparison_markdown(cmp)
    assert "3/3 passed -> 0/3 passed" in md
    assert "### Flaky (passed and failed across repeats; not regressions)" in md
    assert comparison_to_dict(cmp)["verdict"] == scenario_verdict(cmp)


def test_five_regressions_alone_are_not_significant(db: Path) -> None:
    a = make_scenario_run([make_result(f"s{i}", "smoke", "pass") for i in range(5)], when=T0)
    b = make_scenario_run(
        [make_result(f"s{i}", "smoke", "fail") for i in range(5)], when=T0 + timedelta(hours=1)
    )
    store = RunStore(db)
    cmp = compare_runs(store, store.record_scenario_run(a), store.record_scenario_run(b))
    # 2 * (1/2)^5 = 0.0625: five of five worse is not enough evidence at 5%
    assert cmp.paired is not None and cmp.paired.p_value == pytest.approx(0.0625)
    assert "(not significant at 5%: exact McNemar p = 0.0625 on 5 worse vs 0 better)" in (
        scenario_verdict(cmp)
    )


def test_no_regression_sentence_and_different_targets_said_first(db: Path) -> None:
    a = make_scenario_run([make_result("s0", "smoke", "pass")], when=T0)
    b = make_scenario_run(
        [make_result("s0", "smoke", "pass"), make_result("s1", "smoke", "fail")],
        when=T0 + timedelta(hours=1),
        target="http:http://127.0.0.1:9/agent",
    )
    store = RunStore(db)
    again = a.model_copy(update={"run_id": "again"})
    first = store.record_scenario_run(a)
    same = compare_runs(store, first, store.record_scenario_run(again))
    assert scenario_verdict(same) == "No regression vs baseline."
    cmp = compare_runs(store, first, store.record_scenario_run(b))
    assert cmp.differences == [
        "The runs used different targets: A recorded:/data/recorded-responses.json, "
        "B http:http://127.0.0.1:9/agent.",
        "The runs used different scenario sets: 1 only in B, 0 only in A.",
    ]
    assert scenario_verdict(cmp).startswith("The runs used different targets")
    md = render_comparison_markdown(cmp).splitlines()
    assert md[2].startswith("**Not like for like:** The runs used different targets")


def test_flaky_to_always_failing_is_a_regression_and_the_reverse_a_fix(db: Path) -> None:
    """Sometimes worked, now never does: a regression (and counted in the paired test)."""
    a = _repeated(
        {"down": ["pass", "fail", "pass"], "up": ["fail"] * 3, "wobble": ["pass"] * 3},
        when=T0,
    )
    b = _repeated(
        {"down": ["fail"] * 3, "up": ["fail", "pass", "fail"], "wobble": ["pass", "fail", "pass"]},
        when=T0 + timedelta(hours=1),
    )
    store = RunStore(db)
    cmp = compare_runs(store, store.record_scenario_run(a), store.record_scenario_run(b))
    assert [c.name for c in cmp.regressions] == ["down"]
    assert [c.name for c in cmp.fixes] == ["up"]
    assert [c.name for c in cmp.flaky] == ["wobble"]  # still passes at least once: apart
    assert cmp.paired is not None
    assert (cmp.paired.regressions, cmp.paired.improvements) == (1, 1)
    assert scenario_verdict(cmp).startswith("1 regression vs baseline: down (not significant")
    md = render_comparison_markdown(cmp)
    assert "### Regressions (now always failing)" in md
    assert "- **down** (functional, fact_001): 2/3 passed -> 0/3 passed" in md
    gate = ["gate", "--db", str(db), "--scenario-run", "latest", "--baseline", "latest~1"]
    assert main(gate) == 1
