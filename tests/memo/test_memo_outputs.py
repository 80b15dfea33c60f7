"""Outputs: the seed's dict, the JSON sidecar, the HTML scorecard (escaped), the findings CSV."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from pe_eval_core.memo import (
    GRADER_VERSION,
    FindingKind,
    MemoEvaluation,
    eval_pe_output,
    evaluation_to_json,
    findings_to_csv,
    grade_memo,
    load_evaluation,
    render_scorecard_html,
    write_outputs,
)
from pe_eval_core.memo.explain import lowest_dimension
from tests.helpers.memo_builders import board_prose, grade_prose, make_memo, only, write_json

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_eval_pe_output_returns_exactly_the_seed_shape(tmp_path, clean_pair):
    memo, src = clean_pair
    out = eval_pe_output(str(memo), str(src))
    assert list(out) == [
        "report_path",
        "json_path",
        "portco_id",
        "audience",
        "scores",
        "totals",
        "consistency_note",
    ]
    assert list(out["scores"]) == [
        "citation_accuracy",
        "hallucination_rate",
        "coverage",
        "consistency",
    ]
    assert all(type(v) is float and 0 <= v <= 1 for v in out["scores"].values())
    assert list(out["totals"]) == [
        "figures_total",
        "figures_cited",
        "entities_total",
        "entities_grounded",
        "opps_in_source",
        "opps_addressed",
    ]
    assert all(type(v) is int for v in out["totals"].values())
    assert out["report_path"] == str((tmp_path / "eval_TestCo_board.html").resolve())
    assert out["json_path"] == str((tmp_path / "eval_TestCo_board.json").resolve())
    assert Path(out["report_path"]).is_absolute() and Path(out["report_path"]).is_file()
    assert (out["portco_id"], out["audience"]) == ("TestCo", "board")
    assert isinstance(out["consistency_note"], str) and out["consistency_note"]
    json.dumps(out)  # plain JSON types only


def test_json_sidecar_holds_everything(tmp_path, shape_a, write_pair):
    memo, src = write_pair(shape_a, make_memo(shape_a, prose=only("opp_01", "rollout", "$45K")))
    out = eval_pe_output(memo, src)
    data = json.loads(Path(out["json_path"]).read_text(encoding="utf-8"))
    assert data["memo_path"] == str(memo.resolve()) and data["source_path"] == str(src.resolve())
    assert data["memo_sha256"] == _sha(memo) and data["source_sha256"] == _sha(src)
    assert data["grader_version"] == GRADER_VERSION
    assert datetime.fromisoformat(data["evaluated_at"]).tzinfo is not None
    assert data["report_path"] == out["report_path"] and data["json_path"] == out["json_path"]
    assert data["scores"] == out["scores"] and data["totals"] == out["totals"]
    assert data["consistency"]["note"] == out["consistency_note"]
    assert data["config"]["usd_rel_tol"] == 0.01
    (finding,) = data["findings"]
    assert finding == {
        "kind": "misattributed_figure",
        "opportunity_id": "opp_01",
        "field": "rollout",
        "start": 0,
        "end": 4,
        "raw": "$45K",
        "message": finding["message"],
        "nearest_value": 45200.0,
        "nearest_path": "opportunities[1].projected_impact_usd_annual",
        "other_opportunity_id": "opp_02",
        "expected_path": None,  # only a wrong quantity names the field of its claimed role
        "expected_value": None,
    }
    assert {r["id"] for r in data["opportunities"]} == {"opp_01", "opp_02", "opp_03"}
    assert len(data["marks"]) == out["totals"]["figures_total"] + out["totals"]["entities_total"]
    assert load_evaluation(out["json_path"]).scores.model_dump() == out["scores"]


def test_outputs_round_trip_through_the_model(clean_pair):
    ev = grade_memo(*clean_pair)
    again = MemoEvaluation.model_validate_json(evaluation_to_json(ev))
    assert again == ev


def test_write_outputs_to_another_folder_leaves_no_temp_files(tmp_path, clean_pair):
    ev = grade_memo(*clean_pair)
    html, js = write_outputs(ev, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "eval_TestCo_board.html",
        "eval_TestCo_board.json",
    ]
    assert html.parent == js.parent == (tmp_path / "out").resolve()


def test_a_render_failure_writes_nothing(tmp_path, clean_pair, monkeypatch):
    import pe_eval_core.memo.scorecard as scorecard

    def boom(_ev, _thresholds=None):
        raise RuntimeError("template broke")

    monkeypatch.setattr(scorecard, "render_scorecard_html", boom)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(RuntimeError):
        eval_pe_output(*clean_pair)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_rewriting_replaces_the_previous_outputs(clean_pair):
    first = eval_pe_output(*clean_pair)
    second = eval_pe_output(*clean_pair)
    assert first["json_path"] == second["json_path"]
    assert json.loads(Path(second["json_path"]).read_text())["evaluated_at"]


# --- HTML ----------------------------------------------------------------------------------


def test_html_is_self_contained_and_complete(tmp_path, shape_a):
    prose = only("opp_01", "rollout", "worth $45K and **FL**; $9.9M")
    del prose["opp_03"]
    ev = grade_prose(tmp_path, shape_a, prose)
    html = render_scorecard_html(ev)
    assert not re.search(r"(?i)<script|<link|<img|<iframe|https?://|src=|@import|url\(", html)
    for tile in ("citation_accuracy", "hallucination_rate", "coverage", "consistency"):
        assert f'id="tile-{tile}"' in html
    assert "16/17 figures cited" in html
    assert "1/7 entities ungrounded" in html
    assert "2/3 opportunities addressed" in html
    assert "1/1 headline comparisons agree" in html
    assert lowest_dimension(ev)[1].replace("'", "&#39;") in html
    for kind in ("ungrounded_figure", "misattributed_figure", "ungrounded_entity"):
        assert kind in html
    assert "dropped_opportunity" in html
    assert 'id="consistency"' in html and 'id="opportunities"' in html
    # marked prose, with the source field on hover
    assert re.search(
        r'<span class="m misattributed" title="[^"]*opportunities\[1\]\.projected_impact_usd_annual'
        r'[^"]*">\$45K</span>',
        html,
    )
    assert re.search(r'<span class="m ungrounded" title="[^"]*">FL</span>', html)
    assert re.search(r'<span class="m grounded" title="[^"]*">\$564\.8M</span>', html)


def test_colour_bands(tmp_path, shape_a):
    prose = board_prose()
    del prose["opp_03"]
    html = render_scorecard_html(grade_prose(tmp_path, shape_a, prose))
    assert 'class="tile pass" id="tile-citation_accuracy"' in html
    assert 'class="tile fail" id="tile-coverage"' in html  # 67%: more than 20 points off


def test_hostile_text_is_escaped_everywhere(tmp_path, shape_a):
    shape_a["opportunities"][0]["segment"]["grade"] = SCRIPT
    memo = make_memo(
        shape_a,
        prose=only("opp_01", "narrative", f"**{SCRIPT} × {IMG}** leaks $1.2M {IMG} {SCRIPT}"),
    )
    memo["portco_id"] = f"X{SCRIPT}{IMG}"
    memo["audience"] = IMG
    memo["opportunities_explained"].append({"id": SCRIPT, "narrative": IMG})
    src = write_json(tmp_path / "dx_report_TestCo.json", shape_a)
    ev = grade_memo(write_json(tmp_path / "explain_TestCo_board.json", memo), src)
    assert any(m.raw == SCRIPT and m.status == "grounded" for m in ev.marks)  # an entity
    assert any(m.raw == IMG and m.status == "ungrounded" for m in ev.marks)
    html = render_scorecard_html(ev)
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html


def test_hostile_portco_id_is_refused_for_file_names_but_rendered_escaped(tmp_path, shape_a):
    memo = make_memo(shape_a)
    memo["portco_id"] = SCRIPT
    src = write_json(tmp_path / "dx_report_TestCo.json", shape_a)
    path = write_json(tmp_path / "explain_TestCo_board.json", memo)
    ev = grade_memo(path, src)
    assert "&lt;script&gt;" in render_scorecard_html(ev)
    (f,) = ev.findings_of(FindingKind.PORTCO_MISMATCH)
    assert f.raw == SCRIPT


# --- CSV -----------------------------------------------------------------------------------


def test_findings_csv(tmp_path, shape_a):
    prose = only("opp_01", "rollout", "worth $45K, $9.9M and **=HYPERLINK(1)**")
    ev = grade_prose(tmp_path, shape_a, prose)
    rows = list(csv.DictReader(io.StringIO(findings_to_csv(ev))))
    assert [r["kind"] for r in rows] == [f.kind.value for f in ev.findings]
    assert rows[0]["raw"] == "$45K" and rows[0]["other_opportunity_id"] == "opp_02"
    hyperlink = next(r for r in rows if "HYPERLINK" in r["raw"])
    assert hyperlink["raw"].startswith("'=")  # neutralised for spreadsheets
    assert findings_to_csv(grade_prose(tmp_path / "b", shape_a, board_prose())).count("\n") == 1


def test_input_json_schemas_export():
    from pe_eval_core.memo import memo_json_schema, source_json_schema

    memo = memo_json_schema()
    assert set(memo["required"]) == {
        "portco_id",
        "audience",
        "total_projected_impact_usd_annual",
        "opportunities_explained",
    }
    source = source_json_schema()
    assert set(source["required"]) == {"portco_id", "opportunities"}
    assert source["$defs"]["SourceOpportunity"]["required"] == ["id"]
    json.dumps(memo)
    json.dumps(source)


def test_lightweight_results_dump_like_pydantic(clean_pair):
    ev = grade_memo(*clean_pair)
    mark = ev.marks[0]
    assert mark.model_dump(mode="json") == json.loads(evaluation_to_json(ev))["marks"][0]
    assert ev.prose[0].model_dump()["text"] == ev.prose[0].text
