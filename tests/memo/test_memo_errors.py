"""Every way the memo grader's inputs can be wrong gets its own error, with the seed's advice."""

from __future__ import annotations

import json

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import (
    EmptyMemoError,
    InputNotFoundError,
    InvalidNameError,
    MalformedMemoError,
    MalformedSourceError,
    MemoNotFoundError,
    MemoSchemaError,
    OutputWriteError,
    PathOutsideRootError,
    SourceNotFoundError,
    SourceSchemaError,
)
from pe_eval_core.memo import eval_pe_output, grade_memo, resolve_pair, write_outputs
from tests.helpers.memo_builders import make_memo, write_json


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


def test_memo_not_found_carries_seed_advice(tmp_path, clean_pair):
    _, src = clean_pair
    with pytest.raises(MemoNotFoundError) as err:
        grade_memo(tmp_path / "explain_nope_board.json", src)
    assert "explain_nope_board.json does not exist" in err.value.message
    assert err.value.fix == "Run explain_decision first to produce the memo sidecar."


def test_memo_path_that_is_a_directory_is_not_found(tmp_path, clean_pair):
    _, src = clean_pair
    (tmp_path / "adir").mkdir()
    with pytest.raises(MemoNotFoundError, match="is a directory"):
        grade_memo(tmp_path / "adir", src)


def test_source_not_found(tmp_path, clean_pair):
    memo, _ = clean_pair
    with pytest.raises(SourceNotFoundError) as err:
        grade_memo(memo, tmp_path / "dx_report_missing.json")
    assert err.value.fix == "Run diagnose_decisions to produce the source."


def test_malformed_memo_reports_line_and_column(tmp_path, clean_pair):
    memo, src = clean_pair
    memo.write_text('{\n  "portco_id": "TestCo",\n  "audience": board\n}', encoding="utf-8")
    with pytest.raises(MalformedMemoError) as err:
        grade_memo(memo, src)
    assert (err.value.line, err.value.column) == (3, 15)
    assert "line 3, column 15" in err.value.message
    assert err.value.fix == "Regenerate with explain_decision."


def test_malformed_source_reports_line_and_column(clean_pair):
    memo, src = clean_pair
    src.write_text('{"portco_id": "TestCo",\n"opportunities": [,]}', encoding="utf-8")
    with pytest.raises(MalformedSourceError) as err:
        grade_memo(memo, src)
    assert err.value.line == 2
    assert "Regenerate with diagnose_decisions" in err.value.fix


def test_non_utf8_memo_is_malformed(clean_pair):
    memo, src = clean_pair
    memo.write_bytes(b'{"portco_id": "\xff"}')
    with pytest.raises(MalformedMemoError, match="not UTF-8"):
        grade_memo(memo, src)


def test_utf8_bom_is_accepted(clean_pair):
    memo, src = clean_pair
    memo.write_bytes(b"\xef\xbb\xbf" + memo.read_bytes())
    assert grade_memo(memo, src).scores.citation_accuracy == 1.0


def test_memo_schema_mismatch_names_the_nested_field(clean_pair, shape_a):
    memo, src = clean_pair
    data = make_memo(shape_a)
    del data["opportunities_explained"][1]["id"]
    write_json(memo, data)
    with pytest.raises(MemoSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "opportunities_explained[1].id"
    assert "Field required" in err.value.message


def test_memo_prose_of_the_wrong_type_names_the_field(clean_pair, shape_a):
    memo, src = clean_pair
    data = make_memo(shape_a)
    data["opportunities_explained"][0]["rollout"] = ["not", "text"]
    write_json(memo, data)
    with pytest.raises(MemoSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "opportunities_explained[0].rollout"


def test_memo_missing_headline_is_a_schema_error(clean_pair, shape_a):
    memo, src = clean_pair
    data = make_memo(shape_a)
    del data["total_projected_impact_usd_annual"]
    write_json(memo, data)
    with pytest.raises(MemoSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "total_projected_impact_usd_annual"


def test_top_level_array_is_a_schema_error_at_root(clean_pair):
    memo, src = clean_pair
    write_json(memo, [1, 2])
    with pytest.raises(MemoSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "$"
    assert "got an array" in err.value.message


def test_source_schema_mismatch_names_the_field(clean_pair, shape_a):
    memo, src = clean_pair
    shape_a["opportunities"][2]["n"] = "many"
    write_json(src, shape_a)
    with pytest.raises(SourceSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "opportunities[2].n"
    assert "'many'" in err.value.message


def test_source_without_opportunities_is_a_schema_error(clean_pair, shape_a):
    memo, src = clean_pair
    del shape_a["opportunities"]
    write_json(src, shape_a)
    with pytest.raises(SourceSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "opportunities"


def test_duplicate_source_ids_are_refused(clean_pair, shape_a):
    memo, src = clean_pair
    shape_a["opportunities"][2]["id"] = "opp_01"
    write_json(src, shape_a)
    with pytest.raises(SourceSchemaError) as err:
        grade_memo(memo, src)
    assert err.value.field == "opportunities[2].id"
    assert "duplicate" in err.value.message


def test_zero_opportunities_explained(clean_pair, shape_a):
    memo, src = clean_pair
    data = make_memo(shape_a)
    data["opportunities_explained"] = []
    write_json(memo, data)
    with pytest.raises(EmptyMemoError) as err:
        grade_memo(memo, src)
    assert err.value.fix == "Memo generator failed silently — re-run upstream tool."


def test_errors_leave_no_output_files(tmp_path, clean_pair):
    memo, src = clean_pair
    before = _files(tmp_path)
    memo.write_text("{", encoding="utf-8")
    with pytest.raises(MalformedMemoError):
        eval_pe_output(memo, src)
    assert _files(tmp_path) == before


@pytest.mark.parametrize("portco", ["../etc", "a/b", "..", "x y", "<script>"])
def test_resolve_pair_rejects_unsafe_names(tmp_path, clean_pair, portco):
    with pytest.raises(InvalidNameError):
        resolve_pair(tmp_path, portco)


def test_resolve_pair_rejects_unsafe_audience(tmp_path, clean_pair):
    with pytest.raises(InvalidNameError):
        resolve_pair(tmp_path, "TestCo", "../board")


def test_resolve_pair_refuses_symlink_out_of_the_data_folder(tmp_path, shape_a, write_pair):
    outside = tmp_path / "outside"
    data = tmp_path / "data"
    memo, _ = write_pair(shape_a, make_memo(shape_a), outside)
    data.mkdir()
    write_json(data / "dx_report_TestCo.json", shape_a)
    (data / "explain_TestCo_board.json").symlink_to(memo)
    with pytest.raises(PathOutsideRootError):
        resolve_pair(data, "TestCo")


def test_resolve_pair_missing_memo_lists_what_exists(tmp_path, clean_pair):
    with pytest.raises(MemoNotFoundError) as err:
        resolve_pair(tmp_path, "TestCo", "operator")
    assert "TestCo (board)" in err.value.message


def test_resolve_pair_missing_source(tmp_path, clean_pair):
    _, src = clean_pair
    src.unlink()
    with pytest.raises(SourceNotFoundError):
        resolve_pair(tmp_path, "TestCo")


def test_missing_data_dir(tmp_path):
    with pytest.raises(InputNotFoundError, match="data folder"):
        resolve_pair(tmp_path / "nope", "TestCo")


def test_hostile_portco_id_cannot_name_an_output_file(tmp_path, shape_a, write_pair):
    memo_data = make_memo(shape_a)
    memo_data["portco_id"] = "../../evil"
    src = write_json(tmp_path / "dx_report_TestCo.json", shape_a)
    memo = write_json(tmp_path / "explain_TestCo_board.json", memo_data)
    ev = grade_memo(memo, src)
    before = _files(tmp_path)
    with pytest.raises(InvalidNameError):
        write_outputs(ev)
    assert _files(tmp_path) == before


def test_cli_input_errors_exit_2_with_diagnosis_and_fix(tmp_path, clean_pair, capsys):
    memo, src = clean_pair
    memo.write_text(json.dumps({"portco_id": "TestCo"}), encoding="utf-8")
    assert main(["memo", "--memo", str(memo), "--source", str(src)]) == 2
    err = capsys.readouterr().err
    assert (
        "error:" in err and "diagnosis:" in err and "fix: Regenerate with explain_decision." in err
    )
    assert "Traceback" not in err


def test_unwritable_output_folder_is_an_input_error(tmp_path, clean_pair, capsys):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OutputWriteError):
        write_outputs(grade_memo(*clean_pair), blocker)
    memo, src = clean_pair
    argv = ["memo", "--memo", str(memo), "--source", str(src), "--out-dir", str(blocker)]
    assert main(argv) == 2
    assert "--out-dir" in capsys.readouterr().err
