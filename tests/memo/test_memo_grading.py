"""The grading rules: tolerance, kinds, signs, scoping, entities, template constants, coverage."""

from __future__ import annotations

import pytest

from pe_eval_core.memo import FindingKind, TemplateConstant, grade_memo
from pe_eval_core.memo.explain import lowest_dimension
from tests.helpers.memo_builders import (
    board_prose,
    entity_marks,
    figure_marks,
    grade_prose,
    make_memo,
    marks_in,
    only,
    shape_b_prose,
    write_json,
)


def verdict(ev, raw: str) -> str:
    (mark,) = figure_marks(ev, raw)
    return mark.status


def entity_verdict(ev, raw: str, opp: str | None = None, field: str | None = None) -> str:
    (mark,) = entity_marks(ev, raw, opp, field)
    return mark.status


# --- clean inputs --------------------------------------------------------------------------


def test_clean_shape_a_memo_is_perfect(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, board_prose())
    assert ev.scores.model_dump() == {
        "citation_accuracy": 1.0,
        "hallucination_rate": 0.0,
        "coverage": 1.0,
        "consistency": 1.0,
    }
    assert ev.totals.figures_total == ev.totals.figures_cited == 22
    assert ev.totals.entities_total == ev.totals.entities_grounded == 11
    assert ev.findings == []
    assert lowest_dimension(ev)[0] == "none"


def test_clean_shape_b_memo_is_perfect_with_the_template_constant_exempt(tmp_path, shape_b):
    ev = grade_prose(tmp_path, shape_b, shape_b_prose())
    assert ev.scores.citation_accuracy == 1.0
    assert ev.scores.hallucination_rate == 0.0
    assert [f.kind for f in ev.findings] == [FindingKind.TEMPLATE_EXEMPT]
    # -$0.6M is explicitly negative and the Shape B projected outcome is negative.
    assert (
        figure_marks(ev, "-$0.6M")[0].source_path == "opportunities[0].projected_outcome_usd_annual"
    )
    # 41.2% is the nested quarterly approval_rate fraction, compared x100.
    assert figure_marks(ev, "41.2%")[0].source_path == "opportunities[0].quarterly[0].approval_rate"


# --- tolerance -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("$1.2M", "grounded"),  # 1,249,000 is in [1.15M, 1.25M]: 3.9% off, yet correct rounding
        ("$1.25M", "grounded"),
        ("$1.3M", "ungrounded"),  # [1.25M, 1.35M] and 1.3M +-1% both exclude 1,249,000
        ("$1,249,000", "grounded"),
        ("$1,261,000", "grounded"),  # +0.96%: inside the nominal 1%
        ("$1,262,000", "ungrounded"),  # +1.04%
    ],
)
def test_usd_precision_and_nominal_tolerance_at_the_millions(tmp_path, shape_a, text, status):
    ev = grade_prose(
        tmp_path, shape_a, only("opp_01", "counterfactual", f"recovers {text} a year.")
    )
    assert verdict(ev, text) == status


@pytest.mark.parametrize(
    ("text", "status"), [("$12K", "grounded"), ("$13K", "ungrounded"), ("$12.3K", "grounded")]
)
def test_usd_precision_at_the_thousands(tmp_path, shape_a, text, status):
    # opp_02 outcome is -12,340: $12K is 2.8% off but stands for [11.5K, 12.5K].
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "narrative", f"loses {text} a year."))
    assert verdict(ev, text) == status


def test_ungrounded_figure_names_nearest_source_value_and_path(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "counterfactual", "recovers $1.3M a year."))
    (f,) = ev.findings_of(FindingKind.UNGROUNDED_FIGURE)
    assert (f.opportunity_id, f.field, f.raw) == ("opp_01", "counterfactual", "$1.3M")
    assert (f.start, f.end) == (9, 14)
    assert f.nearest_value == 1_249_000
    assert f.nearest_path == "opportunities[0].projected_impact_usd_annual"
    assert ev.totals.figures_cited == ev.totals.figures_total - 1


@pytest.mark.parametrize(
    ("text", "status"),
    [("62%", "grounded"), ("62.1%", "grounded"), ("62.15%", "grounded"), ("62.2%", "ungrounded")],
)
def test_percent_against_a_fraction_field(tmp_path, shape_a, text, status):
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "narrative", f"persistence {text}."))
    assert verdict(ev, text) == status


def test_percent_precision_wider_than_nominal(tmp_path, shape_a):
    shape_a["opportunities"][1]["default_rate"] = 0.123
    ev = grade_prose(
        tmp_path, shape_a, only("opp_02", "risk_of_inaction", "defaults 12% and 12.5%.")
    )
    assert verdict(ev, "12%") == "grounded"  # 12% stands for [11.5, 12.5]
    assert verdict(ev, "12.5%") == "ungrounded"


def test_basis_points_field_and_figure(tmp_path, shape_a):
    shape_a["opportunities"][1]["spread_bps"] = 150
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "risk_of_inaction", "150 bps, i.e. 1.5%."))
    assert verdict(ev, "150 bps") == "grounded"
    assert verdict(ev, "1.5%") == "grounded"


@pytest.mark.parametrize(
    ("text", "raw", "status"),
    [
        ("persistence score of 0.80", "0.80", "grounded"),
        ("persistence score of 0.804", "0.804", "grounded"),
        ("persistence score of 0.81", "0.81", "ungrounded"),
    ],
)
def test_score_tolerance(tmp_path, shape_a, text, raw, status):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", text))
    assert verdict(ev, raw) == status


def test_counts_quarters_and_difficulty_are_exact(tmp_path, shape_a):
    text = "**23,680 loans**, 3 of 5 quarters observed, rated 5/5; **23,681 loans**"
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", text))
    assert verdict(ev, "23,680 loans") == "ungrounded"
    assert verdict(ev, "23,681 loans") == "grounded"
    assert verdict(ev, "3") == "ungrounded"
    assert verdict(ev, "5 quarters") == "grounded"
    assert verdict(ev, "5/5") == "ungrounded"


def test_a_figure_matches_only_fields_of_its_own_kind(tmp_path, shape_a):
    # opp_02 has n = 812 but no dollar field near 812.
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "narrative", "$812 across **812 loans**"))
    assert verdict(ev, "$812") == "ungrounded"
    assert verdict(ev, "812 loans") == "grounded"


def test_tolerance_is_configurable(tmp_path, shape_a):
    prose = only("opp_01", "counterfactual", "recovers $1.3M a year.")
    assert verdict(grade_prose(tmp_path, shape_a, prose, usd_rel_tol=0.05), "$1.3M") == "grounded"


# --- signs ---------------------------------------------------------------------------------


def test_unsigned_loss_matches_a_negative_source_value(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, board_prose())
    assert verdict(ev, "$564.8M") == "grounded"
    assert verdict(ev, "$-564.8M") == "grounded"


def test_explicit_negative_against_a_positive_source_is_a_sign_finding(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_03", "narrative", "earns -$8.9M"))
    assert verdict(ev, "-$8.9M") == "ungrounded"
    (f,) = ev.findings_of(FindingKind.SIGN_MISMATCH)
    assert f.nearest_path == "opportunities[2].outcome_total_usd_annual"
    assert f.nearest_value == 8_900_000
    assert f.other_opportunity_id is None
    assert ev.scores.citation_accuracy < 1.0


@pytest.mark.parametrize("text", ["($8.9M)", "$(8.9)M", "$-8.9M"])
def test_every_negative_notation_needs_a_negative_source(tmp_path, shape_a, text):
    ev = grade_prose(tmp_path, shape_a, only("opp_03", "narrative", f"earns {text}"))
    assert [f.kind for f in ev.findings] == [FindingKind.SIGN_MISMATCH]


# --- scoping -------------------------------------------------------------------------------


def test_figure_of_another_opportunity_is_cited_but_misattributed(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "rollout", "worth $45K."))
    (mark,) = marks_in(ev, "opp_01", "rollout", "figure")
    assert (mark.raw, mark.status) == ("$45K", "misattributed")
    (f,) = ev.findings_of(FindingKind.MISATTRIBUTED_FIGURE)
    assert (f.opportunity_id, f.other_opportunity_id) == ("opp_01", "opp_02")
    assert f.nearest_path == "opportunities[1].projected_impact_usd_annual"
    assert "opp_01" in f.message and "opp_02" in f.message
    assert ev.scores.citation_accuracy == 1.0  # seed-compatible: still cited


def test_portfolio_fields_ground_figures_in_any_opportunity(tmp_path, shape_a):
    ev = grade_prose(
        tmp_path, shape_a, only("opp_02", "rollout", "of $250M EBITDA and $4.7M total")
    )
    assert verdict(ev, "$250M") == "grounded"
    assert verdict(ev, "$4.7M") == "grounded"
    assert figure_marks(ev, "$250M")[0].source_path == "ebitda_baseline_usd"


def test_own_field_preferred_over_another_opportunitys(tmp_path, shape_a):
    shape_a["opportunities"][1]["outcome_mean_usd"] = 1_249_000  # opp_02 now shares the value
    ev = grade_prose(tmp_path, shape_a, board_prose())
    (mark,) = figure_marks(ev, "$1.2M")
    assert (mark.status, mark.source_path) == (
        "grounded",
        "opportunities[0].projected_impact_usd_annual",
    )


# --- entities ------------------------------------------------------------------------------


def test_entities_are_case_and_whitespace_insensitive(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", "**a  ×  360   MONTHS**"))
    assert entity_verdict(ev, "a") == "grounded"
    assert entity_verdict(ev, "360   MONTHS") == "grounded"


def test_invented_entity_is_a_hallucination(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "narrative", "**FL** (state) loses $12K"))
    (f,) = ev.findings_of(FindingKind.UNGROUNDED_ENTITY)
    assert (f.raw, f.opportunity_id, f.field) == ("FL", "opp_02", "narrative")
    assert ev.scores.hallucination_rate == pytest.approx(1 / 11)


def test_segment_value_of_another_opportunity_is_misattributed(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "rollout", "unlike **TX**"))
    assert entity_verdict(ev, "TX", "opp_01") == "misattributed"
    (f,) = ev.findings_of(FindingKind.MISATTRIBUTED_ENTITY)
    assert (f.opportunity_id, f.other_opportunity_id) == ("opp_01", "opp_02")
    assert f.nearest_path == "opportunities[1].segment.state"
    assert ev.scores.hallucination_rate == 0.0  # grounded, but a finding


def test_bold_figures_and_section_markers_are_not_entities(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, board_prose())
    entities = {m.raw for m in ev.marks if m.what == "entity"}
    assert "$564.8M" not in entities and "23,681 loans" not in entities
    assert not entities & {"Counterfactual:", "Counterfactual", "Rollout", "Risk of inaction"}


def test_multiplication_x_splits_only_between_spaces(tmp_path, shape_a):
    shape_a["opportunities"][0]["segment"] = {"state": "Texas", "term": "Max term"}
    text = "**Texas x Max term** and **Texas×Max term**"
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", text))
    assert [m.raw for m in marks_in(ev, "opp_01", "narrative")] == ["Texas", "Max term"] * 2
    assert ev.scores.hallucination_rate == 0.0


def test_portco_vertical_archetype_and_segment_key_are_entities(tmp_path, shape_a):
    text = "**TestCo** **Mortgage Lending** **allocation** **grade**"
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "rollout", text))
    statuses = {m.raw: (m.status, m.kind) for m in marks_in(ev, "opp_01", "rollout", "entity")}
    assert statuses["TestCo"] == ("grounded", "portco id")
    assert statuses["Mortgage Lending"] == ("grounded", "vertical")
    assert statuses["allocation"] == ("grounded", "archetype")
    assert statuses["grade"][0] == "grounded"  # a segment key (and decision column) of opp_01


def test_decision_column_list_is_checked_against_the_opportunitys_columns(tmp_path, shape_a):
    text = "**A × 360 months** (grade × tenor); **A** (state)"
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", text))
    cols = {
        m.raw: m.status
        for m in marks_in(ev, "opp_01", "narrative", "entity")
        if m.kind == "decision column"
    }
    assert cols == {"grade": "grounded", "tenor": "ungrounded", "state": "misattributed"}


def test_decision_column_names_only_count_as_columns(tmp_path, shape_a):
    # "A" is a segment value of opp_01, not a decision column.
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", "**360 months** (a)"))
    (mark,) = [m for m in marks_in(ev, "opp_01", "narrative") if m.kind == "decision column"]
    assert mark.status == "ungrounded"


def test_plain_parentheses_after_bold_are_prose(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "narrative", "**A** (see FHA below) (FHA)"))
    assert [m.raw for m in marks_in(ev, "opp_01", "narrative")] == ["A"]


def test_evidence_row_ids_are_scoped_to_the_opportunity(tmp_path, shape_a):
    text = "Sample evidence rows for spot-check: 118204, 77310, 5001, 999999, ..."
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "rollout", text))
    rows = {m.raw: m.status for m in marks_in(ev, "opp_01", "rollout")}
    assert rows == {
        "118204": "grounded",
        "77310": "grounded",  # a string id in the source
        "5001": "misattributed",
        "999999": "ungrounded",
    }
    assert not marks_in(ev, "opp_01", "rollout", "figure")


# --- template constants --------------------------------------------------------------------


def test_template_constant_is_exempt_shown_and_not_counted(tmp_path, shape_b):
    ev = grade_prose(tmp_path, shape_b, shape_b_prose())
    (f,) = ev.findings_of(FindingKind.TEMPLATE_EXEMPT)
    assert (f.raw, f.field) == ("5%", "rollout")
    assert "throttle volume to the cohort to ~5% of current" in f.message
    assert figure_marks(ev, "5%")[0].status == "exempt"
    assert ev.totals.figures_total == 6


def test_the_same_figure_outside_the_template_wording_is_counted(tmp_path, shape_b):
    prose = shape_b_prose()
    prose["opp_01"]["rollout"] = "**Rollout:** cut volume to ~5% of current."
    ev = grade_prose(tmp_path, shape_b, prose)
    assert figure_marks(ev, "5%")[0].status == "ungrounded"
    assert not ev.findings_of(FindingKind.TEMPLATE_EXEMPT)


def test_template_constants_are_configurable(tmp_path, shape_b):
    prose = shape_b_prose()
    prose["opp_01"]["rollout"] = "**Rollout:** hold pricing 25 bps above peers."
    custom = (TemplateConstant(phrase=r"hold pricing \d+ bps above peers", regex=True),)
    ev = grade_prose(tmp_path, shape_b, prose, template_constants=custom)
    assert figure_marks(ev, "25 bps")[0].status == "exempt"
    ev = grade_prose(tmp_path, shape_b, shape_b_prose(), template_constants=())
    assert figure_marks(ev, "5%")[0].status == "ungrounded"


# --- coverage ------------------------------------------------------------------------------


def test_dropped_opportunity(tmp_path, shape_a):
    prose = board_prose()
    del prose["opp_02"]
    ev = grade_prose(tmp_path, shape_a, prose)
    assert ev.scores.coverage == pytest.approx(2 / 3)
    (f,) = ev.findings_of(FindingKind.DROPPED_OPPORTUNITY)
    assert f.opportunity_id == "opp_02"
    assert "missing" in f.message
    assert lowest_dimension(ev) == (
        "coverage",
        "Coverage is 66.7% — memo addresses 2 of 3 opportunities; TX (opp_02) is silently "
        "dropped.",  # the cohort, its id second
    )


def test_opportunity_with_only_empty_prose_is_not_addressed(tmp_path, shape_a):
    prose = board_prose()
    prose["opp_03"] = {"narrative": "  \n ", "counterfactual": "", "rollout": ""}
    ev = grade_prose(tmp_path, shape_a, prose)
    assert (ev.totals.opps_addressed, ev.totals.opps_in_source) == (2, 3)
    (f,) = ev.findings_of(FindingKind.DROPPED_OPPORTUNITY)
    assert f.opportunity_id == "opp_03" and "empty prose" in f.message
    row = next(r for r in ev.opportunities if r.id == "opp_03")
    assert (row.in_source, row.addressed) == (True, False)


def test_null_prose_blocks_are_empty(tmp_path, shape_a, write_pair):
    memo = make_memo(shape_a)
    for block in ("narrative", "counterfactual", "risk_of_inaction", "rollout"):
        memo["opportunities_explained"][1][block] = None
    ev = grade_memo(*write_pair(shape_a, memo))
    assert ev.totals.opps_addressed == 2


def test_phantom_opportunity(tmp_path, shape_a):
    prose = board_prose()
    prose["opp_99"] = {"narrative": "**A** recovers $1.2M"}
    source_with_phantom_memo = dict(shape_a)
    memo = make_memo(shape_a, prose=prose)
    memo["opportunities_explained"].append({"id": "opp_99", **prose["opp_99"]})
    memo_path = write_json(tmp_path / "explain_TestCo_board.json", memo)
    src = write_json(tmp_path / "dx_report_TestCo.json", source_with_phantom_memo)
    ev = grade_memo(memo_path, src)
    (f,) = ev.findings_of(FindingKind.PHANTOM_OPPORTUNITY)
    assert f.opportunity_id == "opp_99"
    assert ev.scores.coverage == 1.0 and ev.totals.opps_in_source == 3
    row = ev.opportunities[-1]
    assert (row.id, row.in_source, row.addressed, row.figures_total) == ("opp_99", False, False, 1)
    # a phantom's figure can only be another opportunity's: cited but misattributed
    (mark,) = marks_in(ev, "opp_99", "narrative", "figure")
    assert (mark.status, mark.source_path) == (
        "misattributed",
        "opportunities[0].projected_impact_usd_annual",
    )


def test_portco_mismatch_is_reported(tmp_path, shape_a, write_pair):
    memo = make_memo(shape_a)
    memo["portco_id"] = "OtherCo"
    ev = grade_memo(*write_pair(shape_a, memo))
    (f,) = ev.findings_of(FindingKind.PORTCO_MISMATCH)
    assert (f.raw, f.nearest_value) == ("OtherCo", "TestCo")


# --- rows, marks, vacuous scores -----------------------------------------------------------


def test_per_opportunity_rows_add_up_to_the_totals(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_01", "rollout", "worth $45K and **FL**."))
    rows = {r.id: r for r in ev.opportunities}
    assert list(rows) == ["opp_01", "opp_02", "opp_03"]
    assert sum(r.figures_total for r in rows.values()) == ev.totals.figures_total
    assert sum(r.entities_grounded for r in rows.values()) == ev.totals.entities_grounded
    assert rows["opp_01"].findings == 2
    assert rows["opp_01"].cohort == "A × 360 months"


def test_every_mark_points_into_its_prose_block(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, board_prose())
    texts = {(b.opportunity_id, b.field): b.text for b in ev.prose}
    for m in ev.marks:
        assert texts[(m.opportunity_id, m.field)][m.start : m.end] == m.raw
        if m.status == "grounded":
            assert m.source_path and m.source_value is not None


def test_memo_without_figures_or_entities_scores_vacuously(tmp_path, shape_a):
    prose = {o["id"]: {"narrative": "A plain sentence."} for o in shape_a["opportunities"]}
    ev = grade_prose(tmp_path, shape_a, prose)
    assert ev.scores.citation_accuracy == 1.0 and ev.scores.hallucination_rate == 0.0
    assert ev.totals.figures_total == 0 and ev.totals.entities_total == 0
