"""Issue 19, one named test per class of error the issue lists: each row grades one sentence
in opp_01's narrative against a real producer map (HMDA_GA, shape A: opp_01 B × 360 months,
n 13,436, loss -6,222,723, impact 6,222,723, 5 of 5 quarters, difficulty 4, EBITDA 14.5M,
total 15,006,319; eTeleQuote, shape B: opp_01 Affiliate_B × CA, n 8,865, current outcome
-87,655.85, projected outcome 0, impact 87,655.85) and lists the kinds of the findings on the
phrase ``raw``: [] passes, a kind fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.grading.roles import Role, claim_of
from pe_eval_core.memo import FindingKind, grade_memo
from pe_eval_core.memo.verdict import NOT_COUNTED

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "producer_run" / "finance_output"
FILLER = "See the appendix."


def grade(tmp_path: Path, text: str, portco: str = "HMDA_GA", source_patch=None):
    """Grade a memo on ``portco`` whose opp_01 narrative is ``text``."""
    src = json.loads((CORPUS / f"dx_report_{portco}.json").read_text())
    if source_patch:
        src["opportunities"][0].update(source_patch)
    (tmp_path / f"dx_report_{portco}.json").write_text(json.dumps(src))
    memo = {
        "portco_id": portco,
        "audience": "board",
        "total_projected_impact_usd_annual": src["total_projected_impact_usd_annual"],
        "opportunities_explained": [
            {"id": o["id"], "narrative": text if o["id"] == "opp_01" else FILLER}
            for o in src["opportunities"]
        ],
    }
    path = tmp_path / f"explain_{portco}_board.json"
    path.write_text(json.dumps(memo, ensure_ascii=False))
    return grade_memo(path, tmp_path / f"dx_report_{portco}.json")


def kinds(ev, raw: str) -> list[str]:
    return [str(f.kind) for f in ev.findings if f.raw == raw and f.kind not in NOT_COUNTED]


def figures(ev) -> list[str]:
    return [m.raw for m in ev.marks if m.what == "figure" and m.opportunity_id == "opp_01"]


@pytest.mark.parametrize(
    "text",
    [
        "Observe one quarter of post-action data.",
        "Run it for a quarter, review next quarter, in weeks 2-8 and within 30 days.",
        "Weeks 1-4: carve out the cohort. Days 1-30: monitor. The first half of 2026.",
        "Hold out a control group of 500 loans and a 10% holdout; a test cell of 200 loans.",
        "The decision slips back by a quarter.",
    ],
)
def test_durations_schedules_and_control_groups_are_not_figures(tmp_path, text):
    assert figures(grade(tmp_path, text)) == []


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("recovers a quarter of the loss", "a quarter", ["ungrounded_figure"]),  # a share: 25%
        ("continues producing $-6.2M of annual loss", "$-6.2M", []),
    ],
)
def test_a_fraction_word_is_a_share_only_of_something(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("continues producing $0 of annual loss", "$0", ["ungrounded_figure"]),
        ("the projected outcome is $0", "$0", []),
        ("recovering $88K per year", "$88K", []),
        ("carrying $88K of annual leakage", "$88K", []),
        ("recovering $-88K per year", "$-88K", ["sign_mismatch"]),
        ("leakage of $1.2M a year", "$1.2M", ["wrong_quantity"]),  # the EBITDA baseline
    ],
)
def test_figures_match_by_role_not_by_value(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text, "eTeleQuote"), raw) == expected


def test_wrong_quantity_names_both_fields(tmp_path):
    ev = grade(tmp_path, "Carrying $14.5M of annual leakage forward.")
    (f,) = ev.findings_of(FindingKind.WRONG_QUANTITY)
    assert f.nearest_path == "ebitda_baseline_usd"
    assert f.expected_path == "opportunities[0].outcome_total_usd_annual"
    assert ev.scores.citation_accuracy == 0.0


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("The cohort's outcome is +$6.2M a year of loss.", "+$6.2M", ["sign_mismatch"]),
        ("- Annual loss: +$6.22M", "+$6.22M", ["sign_mismatch"]),
        ("- Annual loss: -$6.22M", "-$6.22M", []),
        ("A gain of +$6.2M a year.", "+$6.2M", []),
    ],
)
def test_explicit_plus_on_a_loss(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


def test_narrative_fields_never_ground(tmp_path):
    text = "The cohort leaks **$7.2M of annualized leakage** a year."
    ev = grade(tmp_path, text, source_patch={"narrative_board": text})
    assert kinds(ev, "$7.2M") == ["ungrounded_figure"]
    assert all("narrative" not in (m.source_path or "") for m in ev.marks)


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("It scores a 3/5 on difficulty.", "3/5", ["ungrounded_figure"]),
        ("It scores a 2/5 on difficulty.", "2/5", ["misattributed_figure"]),  # opp_02's
        ("It scores a 4/5 on difficulty.", "4/5", []),
        ("Implementation difficulty: one out of five.", "one", ["ungrounded_figure"]),
        ("Implementation difficulty: four out of five.", "four", []),
        ("We ranked it 2 of 5 cohorts.", "2 of 5", []),  # no difficulty wording: no figure
    ],
)
def test_difficulty_as_a_fraction_or_in_words(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("It lost money in four of the last five quarters.", "four", ["ungrounded_figure"]),
        ("It lost money in five of its five observed quarters.", "five", []),
        ("Loss-making for 4 quarters out of the last 5.", "4", ["ungrounded_figure"]),
        ("Negative in all five quarters on record.", "all", []),
    ],
)
def test_quarters_counted_in_words(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("The cohort spans 14,781 loans.", "14,781 loans", ["misattributed_figure"]),
        ("The cohort spans 13,436 loans.", "13,436 loans", []),
    ],
)
def test_a_count_from_another_opportunity(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("**B × 360 months** (grade × vintage)", "vintage", ["ungrounded_entity"]),
        ("**B × 360 months** cohort (grade × loan term)", "loan term", ["ungrounded_entity"]),
        ("**B × 360 months** (grade × term)", "term", []),
        ("**B × 180 months** (grade × term)", "180 months", ["ungrounded_entity"]),
        ("**B × 360 months** (see A × B below)", "see A", []),
    ],
)
def test_cohort_values_and_decision_columns_by_position(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("About 41% of the $15.0M programme.", "41%"),
        ("About 41% of the total.", "41%"),
        ("Roughly 43% of EBITDA.", "43%"),
        ("It recovers about $1.56M a quarter.", "$1.56M"),
        ("It recovers about $1.6M per quarter.", "$1.6M"),
        ("A monthly loss of about $518.6K.", "$518.6K"),
    ],
)
def test_shares_of_the_total_and_run_rates_the_wording_licenses(tmp_path, text, raw):
    ev = grade(tmp_path, text)
    assert kinds(ev, raw) == []
    assert [m.status for m in ev.marks if m.raw == raw] == ["derived"]


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("About 48% of the $15.0M programme.", "48%"),
        ("It recovers about $1.86M a quarter.", "$1.86M"),
    ],
)
def test_wrong_shares_and_run_rates_are_caught(tmp_path, text, raw):
    assert kinds(grade(tmp_path, text), raw) == ["ungrounded_figure"]


@pytest.mark.parametrize(
    ("text", "raw", "expected"),
    [
        ("Against EBITDA of USD 14.5 million.", "USD 14.5 million", []),
        ("Against EBITDA of $14.5 millions.", "$14.5 millions", []),
        ("On a $14.5mln EBITDA base.", "$14.5mln", []),
        ("Against EBITDA of $16.5 million.", "$16.5 million", ["ungrounded_figure"]),
    ],
)
def test_ebitda_baseline_in_other_formats(tmp_path, text, raw, expected):
    assert kinds(grade(tmp_path, text), raw) == expected


@pytest.mark.parametrize(
    "text",
    [
        "A classic pricing problem, unlike the selection and allocation ones.",
        "The other cohorts are smaller; affiliate traffic and direct mail look fine.",
    ],
)
def test_archetype_names_and_ordinary_words_are_not_entities(tmp_path, text):
    ev = grade(tmp_path, text)
    assert [m for m in ev.marks if m.what == "entity" and m.opportunity_id == "opp_01"] == []
    ev = grade(tmp_path, text, "eTeleQuote")
    assert [f for f in ev.findings if f.kind not in NOT_COUNTED] == []


def test_state_names_are_read_only_where_a_state_column_holds_states(tmp_path):
    text = "Georgia is the state; GA and the Atlanta MSA."
    assert kinds(grade(tmp_path, text), "GA") == []  # HMDA_GA's addr_state holds MSA codes
    assert kinds(grade(tmp_path, text, "eTeleQuote"), "GA") == ["ungrounded_entity"]


def test_empty_placeholder_is_its_own_finding(tmp_path):
    ev = grade(tmp_path, "The action — __ — and {action} and [TODO owner].")
    assert [f.raw for f in ev.findings_of(FindingKind.EMPTY_PLACEHOLDER)] == [
        "__",
        "{action}",
        "[TODO owner]",
    ]


def test_claims_read_from_wording():
    text = "the cohort loses $3.3M; recovering $2.1M; EBITDA of $14.5M; falls to $1.1M"
    got = [
        claim_of(text, text.index(r), text.index(r) + len(r))
        for r in ("$3.3M", "$2.1M", "$14.5M", "$1.1M")
    ]
    assert got == [Role.LOSS, Role.IMPACT, Role.BASELINE, Role.PROJECTED]


def test_docs_list_every_role_and_field_rule():
    from pe_eval_core.memo.roles import OPPORTUNITY_MAP_ROLES

    doc = (Path(__file__).resolve().parents[2] / "docs" / "memo_rules.md").read_text()
    for rule in OPPORTUNITY_MAP_ROLES.rules:
        assert rule.key.replace("|", "\\|") in doc, rule.key
    for role in Role:
        assert f"`{role.value}`" in doc, role


def test_claims_are_kept_per_clause_bounded_and_read_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A clause's claim is read once per process (templated producers repeat clauses), the
    kept answers never outgrow their bound, and a kept answer is the one read fresh."""
    from pe_eval_core.grading import roles as roles_module

    monkeypatch.setattr(roles_module, "_CLAIMS_MAX", 3)
    reader = roles_module._reader(roles_module.DEFAULT_CUES)
    reader.claims.clear()
    texts = [f"cohort {i} loses ${i}.5M; recovers ${i}.1M of the loss" for i in range(6)]
    first = [claim_of(t, t.index("$"), t.index("M;") + 1) for t in texts]
    assert len(reader.claims) <= 3
    again = [claim_of(t, t.index("$"), t.index("M;") + 1) for t in texts]
    assert first == again == [Role.LOSS] * 6
    reader.claims.clear()
    t = texts[0]
    start = t.index("$", t.index("recovers"))
    assert claim_of(t, start, start + 5) is Role.IMPACT
