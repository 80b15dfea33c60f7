"""Regression tests for memo-grader bugs a QA pass found (tests/README.md), one per fix."""

from __future__ import annotations

import json
import math

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import (
    MemoNotFoundError,
    MemoSchemaError,
    OutputWriteError,
    PairNotFoundError,
    SourceSchemaError,
)
from pe_eval_core.memo import FindingKind, grade_memo, write_outputs
from pe_eval_core.memo.consistency import agrees
from pe_eval_core.memo.models import MemoSidecar
from pe_eval_core.memo.pairs import resolve_pair
from tests.helpers.memo_builders import (
    board_prose,
    figure_marks,
    grade_prose,
    make_memo,
    marks_in,
    only,
    write_json,
)

# --- bugs 1 and 7: non-finite numbers are schema errors naming the field ----------------------


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e400", "-1E+400"])
def test_non_finite_memo_headline_is_a_schema_error_naming_the_field(tmp_path, shape_a, token):
    memo = json.dumps(make_memo(shape_a)).replace(
        f'"total_projected_impact_usd_annual": {shape_a["total_projected_impact_usd_annual"]}',
        f'"total_projected_impact_usd_annual": {token}',
    )
    assert token in memo
    (tmp_path / "explain_TestCo_board.json").write_text(memo, encoding="utf-8")
    src = write_json(tmp_path / "dx_report_TestCo.json", shape_a)
    with pytest.raises(MemoSchemaError) as err:
        grade_memo(tmp_path / "explain_TestCo_board.json", src)
    assert err.value.field == "total_projected_impact_usd_annual"
    assert "must be a finite number" in err.value.message


@pytest.mark.parametrize(
    ("path", "where"),
    [
        (("opportunities", 1, "n"), "opportunities[1].n"),  # declared float
        (("opportunities", 0, "persistence_quarters_out_of_total", 1), None),  # declared list
        (("opportunities", 2, "extra_usd"), "opportunities[2].extra_usd"),  # extra key
        (("opportunities", 0, "segment", "grade"), "opportunities[0].segment.grade"),  # Any
        (("opportunities", 1, "quarterly", 0, "rate"), "opportunities[1].quarterly[0].rate"),
    ],
)
def test_non_finite_source_numbers_anywhere_are_refused(tmp_path, shape_a, path, where):
    memo = write_json(tmp_path / "explain_TestCo_board.json", make_memo(shape_a))
    node = shape_a
    for key in path[:-1]:
        node = node.setdefault(key, [{}]) if key == "quarterly" else node[key]
    node[path[-1]] = math.nan
    src = tmp_path / "dx_report_TestCo.json"
    src.write_text(json.dumps(shape_a), encoding="utf-8")  # json.dumps writes NaN
    with pytest.raises(SourceSchemaError) as err:
        grade_memo(memo, src)
    expected = where or "opportunities[0].persistence_quarters_out_of_total[1]"
    assert err.value.field == expected
    assert "got NaN" in err.value.message


def test_huge_integer_in_an_extra_key_is_refused(tmp_path, shape_a):
    shape_a["opportunities"][0]["extra_count"] = 10**400
    src = write_json(tmp_path / "dx_report_TestCo.json", shape_a)
    memo = write_json(tmp_path / "explain_TestCo_board.json", make_memo(shape_a))
    with pytest.raises(SourceSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "opportunities[0].extra_count"


def test_nan_in_prose_text_is_not_mistaken_for_a_number(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "risk_of_inaction", "NaN and Infinity."))
    assert ev.scores.citation_accuracy == 1.0


def test_models_refuse_non_finite_values_built_in_code():
    with pytest.raises(ValueError, match="finite"):
        MemoSidecar(
            portco_id="X",
            audience="board",
            total_projected_impact_usd_annual=math.inf,
            opportunities_explained=[{"id": "a"}],
        )


def test_non_finite_values_never_agree():
    assert not agrees(math.inf, math.inf, 0.01)
    assert not agrees(-math.inf, 1e300, 0.01)
    assert not agrees(math.nan, math.nan, 0.01)


# --- bug 3: "k of m quarters" by role ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("4 of 5 quarters observed", []),
        ("4 of 4 quarters observed", ["4 quarters"]),  # total 4 is not the source's 5
        ("5 of 5 quarters observed", ["5"]),  # observed 5 is not the source's 4
        ("5 of 4 quarters observed", ["5", "4 quarters"]),  # swapped
    ],
)
def test_quarters_are_matched_by_role(tmp_path, shape_a, text, flagged):
    prose = only(
        "opp_01",
        "narrative",
        f"**A × 360 months** (grade × term) leaks **$564.8M**; {text}.",
    )
    ev = grade_prose(tmp_path, shape_a, prose)
    bad = [
        f.raw
        for f in ev.findings
        if f.kind in (FindingKind.UNGROUNDED_FIGURE, FindingKind.MISATTRIBUTED_FIGURE)
    ]
    assert bad == flagged, [(f.kind, f.raw, f.message) for f in ev.findings]


def test_across_m_quarters_is_a_total(tmp_path, shape_a):
    # opp_02 is [5, 8]: "across 8 quarters" is right, "across 5 quarters" is not its total.
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "risk_of_inaction", "across 8 quarters"))
    assert figure_marks(ev, "8 quarters")[0].source_path == (
        "opportunities[1].persistence_quarters_out_of_total[1]"
    )
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "risk_of_inaction", "across 5 quarters"))
    (mark,) = marks_in(ev, "opp_02", "risk_of_inaction", "figure")
    assert (mark.raw, mark.status) == ("5 quarters", "misattributed")  # opp_01's total is 5


# --- bug 5: underscore bold ---------------------------------------------------------------------


def test_underscore_bold_is_an_entity_but_identifiers_are_not(tmp_path, shape_a):
    text = "__teleportation__ and __TX__ (state), but loan_purpose and snake__case__name are not."
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "risk_of_inaction", text))
    entities = [m.raw for m in marks_in(ev, "opp_02", "risk_of_inaction", "entity")]
    assert entities == ["teleportation", "TX", "state"]
    assert [f.raw for f in ev.findings_of(FindingKind.UNGROUNDED_ENTITY)] == ["teleportation"]


# --- bug 9 (entity side): a bold count is a figure, never an entity ------------------------------


@pytest.mark.parametrize(
    ("bold", "status"), [("812 mortgages", "grounded"), ("813 mortgages", "ungrounded")]
)
def test_bold_count_with_an_unlisted_noun_is_graded_as_a_count(tmp_path, shape_a, bold, status):
    ev = grade_prose(tmp_path, shape_a, only("opp_02", "risk_of_inaction", f"**{bold}**"))
    (mark,) = marks_in(ev, "opp_02", "risk_of_inaction")
    assert (mark.what, mark.kind, mark.status) == ("figure", "count", status)
    assert not ev.findings_of(FindingKind.UNGROUNDED_ENTITY)


def test_bold_segment_value_with_a_number_stays_an_entity(tmp_path, shape_a):
    ev = grade_prose(tmp_path, shape_a, board_prose())  # "**A × 360 months**": a segment value
    (mark,) = [m for m in ev.marks if m.raw == "360 months"]
    assert (mark.what, mark.status) == ("entity", "grounded")


# --- bug 8: the scorecard pair is written both-or-neither ----------------------------------------


def _graded(tmp_path, shape_a):
    memo, src = (
        write_json(tmp_path / "explain_TestCo_board.json", make_memo(shape_a)),
        write_json(tmp_path / "dx_report_TestCo.json", shape_a),
    )
    return grade_memo(memo, src)


def _outputs(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(("eval_", ".")))


def test_failed_json_temp_write_leaves_nothing(tmp_path, shape_a, monkeypatch):
    import pe_eval_core.memo.outputs as outputs

    real = outputs._write_temp

    def fail_on_json(target, data):
        if target.suffix == ".json":
            raise OSError(28, "No space left on device")
        return real(target, data)

    monkeypatch.setattr(outputs, "_write_temp", fail_on_json)
    with pytest.raises(OutputWriteError, match="No space left"):
        write_outputs(_graded(tmp_path, shape_a))
    assert _outputs(tmp_path) == []  # the HTML temp written first is gone too


@pytest.mark.parametrize("previous", [True, False])
def test_failed_second_rename_restores_the_previous_pair(tmp_path, shape_a, monkeypatch, previous):
    import pe_eval_core.memo.outputs as outputs

    ev = _graded(tmp_path, shape_a)
    if previous:
        html, js = write_outputs(ev)
        before = {p.name: p.read_bytes() for p in (html, js)}
    real = outputs._rename

    def fail_on_json(src, dst):
        if str(dst).endswith(".json"):
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(outputs, "_rename", fail_on_json)
    changed = ev.model_copy(update={"evaluated_at": "2000-01-01T00:00:00+00:00"})
    with pytest.raises(OutputWriteError, match="Input/output error"):
        write_outputs(changed)
    if previous:
        assert _outputs(tmp_path) == sorted(before)
        assert {n: (tmp_path / n).read_bytes() for n in before} == before
    else:
        assert _outputs(tmp_path) == []


def test_out_dir_write_error_does_not_say_next_to_the_memo(tmp_path, shape_a):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(OutputWriteError) as err:
        write_outputs(_graded(tmp_path, shape_a), blocker / "sub")
    assert "next to the memo" not in str(err.value)
    assert "chosen scorecard folder" in err.value.diagnosis and "--" not in err.value.fix
    assert err.value.input == "out_dir"


# --- usability: ids ---------------------------------------------------------------------------


def test_id_with_whitespace_matches_and_case_difference_is_a_finding(tmp_path, shape_a, write_pair):
    memo = make_memo(shape_a)
    memo["opportunities_explained"][0]["id"] = "  OPP_01 "
    memo["opportunities_explained"][1]["id"] = " opp_02\n"
    ev = grade_memo(*write_pair(shape_a, memo))
    assert ev.scores.coverage == 1.0
    assert not ev.findings_of(FindingKind.PHANTOM_OPPORTUNITY, FindingKind.DROPPED_OPPORTUNITY)
    (f,) = ev.findings_of(FindingKind.ID_CASE_MISMATCH)
    assert (f.raw, f.opportunity_id, f.nearest_path) == ("OPP_01", "opp_01", "opportunities[0].id")
    assert ev.scores.citation_accuracy == 1.0  # graded as opp_01, not as a phantom
    assert not ev.findings_of(FindingKind.MISATTRIBUTED_FIGURE)


def test_ambiguous_case_match_stays_a_phantom(tmp_path, shape_a, write_pair):
    shape_a["opportunities"][1]["id"] = "OPP_01"  # source has both opp_01 and OPP_01
    memo = make_memo(shape_a)
    memo["opportunities_explained"].append({"id": "Opp_01", "narrative": "x"})
    ev = grade_memo(*write_pair(shape_a, memo))
    assert [f.raw for f in ev.findings_of(FindingKind.PHANTOM_OPPORTUNITY)] == ["Opp_01"]
    assert not ev.findings_of(FindingKind.ID_CASE_MISMATCH)


def test_duplicate_memo_ids_are_reported_and_both_entries_graded(tmp_path, shape_a, write_pair):
    memo = make_memo(shape_a)
    dup = dict(memo["opportunities_explained"][1], narrative="**TX** loses $99M.")
    memo["opportunities_explained"].append(dup)
    ev = grade_memo(*write_pair(shape_a, memo))
    (f,) = ev.findings_of(FindingKind.DUPLICATE_OPPORTUNITY)
    assert f.opportunity_id == "opp_02" and "[1] and [3]" in f.message
    (bad,) = ev.findings_of(FindingKind.UNGROUNDED_FIGURE)
    assert (bad.raw, bad.field) == ("$99M", "narrative#2")
    # the duplicate's marks sit on its own prose block, so the scorecard marks the right text
    block = next(b for b in ev.prose if (b.opportunity_id, b.field) == ("opp_02", "narrative#2"))
    assert block.text[bad.start : bad.end] == "$99M"


# --- usability: errors that mislead ---------------------------------------------------------------


def test_portco_typo_names_the_available_portcos(clean_pair, tmp_path):
    with pytest.raises(PairNotFoundError) as err:
        resolve_pair(tmp_path, "TestCp")
    assert "explain_decision" not in err.value.fix
    assert "TestCo" in err.value.fix


def test_wrong_audience_suggests_the_existing_one(clean_pair, tmp_path):
    with pytest.raises(PairNotFoundError) as err:
        resolve_pair(tmp_path, "TestCo", "operator")
    assert "pick audience board" in err.value.fix and "--" not in err.value.fix
    assert err.value.input == "audience"


def test_empty_data_folder_keeps_the_seed_advice(tmp_path):
    with pytest.raises(MemoNotFoundError) as err:
        resolve_pair(tmp_path, "TestCo")
    assert not isinstance(err.value, PairNotFoundError)
    assert "explain_decision" in err.value.fix


def test_cli_portco_typo_exit_2(clean_pair, tmp_path, capsys):
    assert main(["memo", "TestCp", "--data-dir", str(tmp_path)]) == 2
    out = capsys.readouterr()
    assert "TestCo" in out.err + out.out and "Run explain_decision" not in out.err + out.out
