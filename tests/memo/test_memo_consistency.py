"""Consistency: headline vs own source total, vs sibling memos of the same portco_id."""

from __future__ import annotations

import pytest

from pe_eval_core.memo import FindingKind, GraderConfig, grade_memo
from pe_eval_core.memo.explain import lowest_dimension
from tests.helpers.memo_builders import make_memo, write_json


def _memo(source, audience="board", headline=None):
    memo = make_memo(source, audience)
    if headline is not None:
        memo["total_projected_impact_usd_annual"] = headline
    return memo


def test_no_siblings_agreeing_source(clean_pair):
    ev = grade_memo(*clean_pair)
    c = ev.consistency
    assert (c.comparisons, c.agreeing, c.agrees_with_source) == (1, 1, True)
    assert c.source_total_path == "total_projected_impact_usd_annual"
    assert ev.scores.consistency == 1.0
    assert "no sibling memos" in c.note


def test_memo_disagreeing_with_its_own_source_is_inconsistent_without_siblings(shape_a, write_pair):
    total = shape_a["total_projected_impact_usd_annual"]
    ev = grade_memo(*write_pair(shape_a, _memo(shape_a, headline=total * 0.9)))
    assert ev.scores.consistency == 0.0
    (f,) = ev.findings_of(FindingKind.HEADLINE_MISMATCH)
    assert f.nearest_value == total and f.nearest_path == "total_projected_impact_usd_annual"
    assert "disagrees with its source total" in ev.consistency.note
    assert lowest_dimension(ev)[0] == "consistency"


@pytest.mark.parametrize(
    ("factor", "agrees"), [(1.0099, True), (0.9901, True), (1.0105, False), (0.989, False)]
)
def test_headline_tolerance_is_one_percent(shape_a, write_pair, factor, agrees):
    total = shape_a["total_projected_impact_usd_annual"]
    ev = grade_memo(*write_pair(shape_a, _memo(shape_a, headline=total * factor)))
    assert ev.consistency.agrees_with_source is agrees


def test_agreeing_and_stale_siblings(tmp_path, shape_a, write_pair):
    total = shape_a["total_projected_impact_usd_annual"]
    memo, src = write_pair(shape_a, _memo(shape_a))
    write_json(tmp_path / "explain_TestCo_operator.json", _memo(shape_a, "operator"))
    write_json(tmp_path / "explain_TestCo_ic.json", _memo(shape_a, "ic", headline=total * 1.2))
    ev = grade_memo(memo, src)
    c = ev.consistency
    assert (c.comparisons, c.agreeing) == (3, 2)
    assert ev.scores.consistency == pytest.approx(2 / 3)
    by_audience = {s.audience: s.agrees for s in c.siblings}
    assert by_audience == {"ic": False, "operator": True}
    (f,) = ev.findings_of(FindingKind.HEADLINE_MISMATCH)
    assert f.nearest_path == "explain_TestCo_ic.json:total_projected_impact_usd_annual"
    assert "agrees with 1 of 2 sibling memos" in c.note


def test_siblings_are_matched_by_portco_id_not_file_prefix(tmp_path, shape_a, write_pair):
    shape_a["portco_id"] = "HMDA_GA"
    memo, src = write_pair(shape_a, _memo(shape_a))
    other = dict(shape_a, portco_id="HMDA_GA2", total_projected_impact_usd_annual=1.0)
    write_json(tmp_path / "explain_HMDA_GA2_board.json", _memo(other))
    # a sibling with a misleading file name but the right portco_id still counts
    write_json(tmp_path / "explain_renamed_copy.json", _memo(shape_a, "operator"))
    ev = grade_memo(memo, src)
    assert [s.path.rsplit("/", 1)[1] for s in ev.consistency.siblings] == [
        "explain_renamed_copy.json"
    ]
    assert ev.scores.consistency == 1.0


def test_unreadable_siblings_are_named_and_not_counted(tmp_path, shape_a, write_pair):
    memo, src = write_pair(shape_a, _memo(shape_a))
    (tmp_path / "explain_TestCo_operator.json").write_text("{ broken", encoding="utf-8")
    no_headline = _memo(shape_a, "ic")
    del no_headline["total_projected_impact_usd_annual"]
    write_json(tmp_path / "explain_TestCo_ic.json", no_headline)
    # an unreadable file of another portco is not this memo's business
    (tmp_path / "explain_Other_board.json").write_text("{ broken", encoding="utf-8")
    ev = grade_memo(memo, src)
    c = ev.consistency
    assert (c.comparisons, c.agreeing) == (1, 1)
    assert ev.scores.consistency == 1.0
    errors = {s.path.rsplit("/", 1)[1]: s.error for s in c.siblings}
    assert set(errors) == {"explain_TestCo_operator.json", "explain_TestCo_ic.json"}
    assert "malformed JSON at line 1" in errors["explain_TestCo_operator.json"]
    assert "explain_TestCo_operator.json" in c.note and "explain_TestCo_ic.json" in c.note
    assert "not counted" in c.note
    assert len(ev.findings_of(FindingKind.UNREADABLE_SIBLING)) == 2


def test_source_without_total_falls_back_to_the_sum_of_impacts(shape_a, write_pair):
    del shape_a["total_projected_impact_usd_annual"]
    memo = _memo(dict(shape_a, total_projected_impact_usd_annual=1_249_000 + 45_200 + 3_400_000))
    ev = grade_memo(*write_pair(shape_a, memo))
    assert ev.consistency.source_total == 1_249_000 + 45_200 + 3_400_000
    assert ev.consistency.source_total_path == "sum(opportunities[*].projected_impact_usd_annual)"
    assert ev.scores.consistency == 1.0


def test_nothing_to_compare_is_stated(shape_a, write_pair):
    del shape_a["total_projected_impact_usd_annual"]
    del shape_a["opportunities"][0]["projected_impact_usd_annual"]
    memo = _memo(dict(shape_a, total_projected_impact_usd_annual=5.0))
    ev = grade_memo(*write_pair(shape_a, memo))
    assert ev.consistency.comparisons == 0
    assert ev.scores.consistency == 1.0
    assert "no source total" in ev.consistency.note


def test_sibling_check_can_be_switched_off(tmp_path, shape_a, write_pair):
    memo, src = write_pair(shape_a, _memo(shape_a))
    write_json(tmp_path / "explain_TestCo_ic.json", _memo(shape_a, "ic", headline=1.0))
    ev = grade_memo(memo, src, config=GraderConfig(check_siblings=False))
    assert ev.consistency.siblings == [] and ev.scores.consistency == 1.0
