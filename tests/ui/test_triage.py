"""The newcomer's questions, answered on screen: which figure is wrong and why, why a scenario
failed, what the sidebar is really using, and a History page that compares like with like."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import streamlit as st

from pe_eval_core.history.store import RunStore
from ui import state

ROOT = Path(__file__).resolve().parents[2]
DEMO_DATA = ROOT / "finance_output"
SC = state.Scorecard
SN = state.Scenarios
SCENARIOS = "app_pages/scenario_eval.py"
HISTORY = "app_pages/run_history.py"


def plain(text: str) -> str:
    """Markdown escaping removed."""
    return text.replace("\\", "")


def worst_pair() -> tuple[str, str, object]:
    """The demo memo with the most findings, and its evaluation (from the core)."""
    from pe_eval_core.memo import find_memo_pairs, grade_memo

    evs = [
        (p.portco_id, p.audience, grade_memo(p.memo_path, p.source_path))
        for p in find_memo_pairs(DEMO_DATA)
    ]
    return max(evs, key=lambda t: len([f for f in t[2].findings if f.nearest_path]))


# --- memo scorecard: which figure is wrong, and why -----------------------------------------


def test_findings_table_leads_with_the_figure_the_plain_why_and_the_nearest_value(app):
    from pe_eval_core.memo.plain import cohort_names, nearest_text
    from pe_eval_core.memo.verdict import issue_sentence

    portco, audience, ev = worst_pair()
    at = app(**{SC.PORTCO: portco, SC.AUDIENCE: audience})
    assert not at.exception
    table = next(d.value for d in at.dataframe if "nearest_path" in d.value.columns)
    cols = list(table.columns)
    # Visible without scrolling sideways: the offending text, why it is wrong in words, the
    # nearest source value and its field (in words); the raw path and memo field come last.
    assert cols[:5] == ["what", "raw", "why", "nearest_value", "source_field"]
    assert cols.index("nearest_path") > cols.index("other_opportunity_id")
    ids = [o.id for o in ev.opportunities if o.in_source]
    names = cohort_names(ev)  # opportunities by cohort, the id second (issue 21)
    assert list(table["why"]) == [issue_sentence(f, ids, names) for f in ev.findings]
    assert not any("_" in w for w in table["what"]), "kinds in words, not internal names"
    with_source = [f for f in ev.findings if f.nearest_value is not None]
    assert with_source, "the demo should carry findings with a nearest source value"
    f = with_source[0]
    row = table[(table["raw"] == f.raw) & (table["nearest_path"] == f.nearest_path)].iloc[0]
    # In the figure's own format, never float noise: money as money ("−$7.9M").
    assert row["nearest_value"] == nearest_text(f)
    assert ".0" not in row["nearest_value"] and "e+" not in row["nearest_value"]
    if "$" in f.raw:
        assert row["nearest_value"].lstrip("−").startswith("$")
    assert "None" not in set(table["opportunity_id"].astype(str))
    assert not table["other_opportunity_id"].isna().any(), "no grey None cells"
    if any(x.opportunity_id is None for x in ev.findings):
        assert "(memo)" in set(table["opportunity_id"])


def test_marks_table_shows_source_value_readably(app):
    portco, audience, _ = worst_pair()
    at = app(**{SC.PORTCO: portco, SC.AUDIENCE: audience})
    marks = next(d.value for d in at.dataframe if "source_path" in d.value.columns)
    values = [v for v in marks["source_value"] if v]
    assert values and not any(str(v).endswith(".0") for v in values)
    cols = list(marks.columns)
    assert cols.index("source_value") < cols.index("source_path")


def test_empty_folder_warning_names_the_file_patterns_literally(app, tmp_path):
    at = app(**{state.Sidebar.DATA_DIR: str(tmp_path)})
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    # Inline code, so markdown cannot eat the underscores or the <placeholders>.
    assert "`explain_<portco>_<audience>.json`" in text
    assert "`dx_report_<portco>.json`" in text


def test_data_folder_that_is_a_file_says_so(app, tmp_path):
    memo = tmp_path / "explain_X_board.json"
    memo.write_text("{}", encoding="utf-8")
    at = app(**{state.Sidebar.DATA_DIR: str(memo)})
    assert not at.exception
    errors = plain(" ".join(e.value for e in at.error))
    assert "is a file, not a folder" in errors
    assert "does not exist" not in errors


def test_blank_sidebar_path_says_which_default_is_used(app):
    at = app(**{state.Sidebar.DATA_DIR: "", state.Sidebar.SCENARIOS_FILE: "  "})
    assert not at.exception
    captions = plain(" ".join(c.value for c in at.sidebar.caption))
    assert f"Blank: using the default `{state.default_data_dir()}`" in captions
    assert f"Blank: using the default `{state.default_scenarios_file()}`" in captions
    assert at.subheader, "the scorecard still renders on the default folder"


def test_score_tiles_sit_in_a_wrapping_row(app):
    """The four tiles are direct children of one horizontal, wrapping container (not
    st.columns(4), whose fixed quarters truncate "Citation accuracy" on a 1024px window)."""
    from streamlit.testing.v1.element_tree import Block

    def blocks(node):
        for child in getattr(node, "children", {}).values():
            if isinstance(child, Block):
                yield child
                yield from blocks(child)

    at = app()
    rows = []
    for block in blocks(at.main):
        try:
            is_flex = block.proto.WhichOneof("type") == "flex_container"
        except ValueError:
            continue
        if is_flex and block.proto.flex_container.wrap:
            # each tile is a metric, directly or inside its own (band-styled) container
            tiles = []
            for c in block.children.values():
                inner = [c, *getattr(c, "children", {}).values()]
                tiles += [x.label for x in inner if getattr(x, "type", "") == "metric"]
            rows.append(tiles)
    assert ["Citation accuracy", "Hallucination rate", "Coverage", "Consistency"] in rows


# --- scenario triage: why did it not pass ----------------------------------------------------


def test_every_failing_scenario_says_why_it_did_not_pass(app):
    at = app(SCENARIOS)
    at.button(key=SN.RUN).click().run()
    assert not at.exception
    run = json.loads(at.session_state[SN.RESULT])
    failing = {r["name"]: r for r in run["results"] if r["status"] != "pass"}
    assert failing
    for name, r in failing.items():
        at.selectbox(key=SN.FAILURE).set_value(name).run()
        assert not at.exception
        why = plain(
            next(
                b.value
                for b in [*at.error, *at.warning]
                if b.value.startswith("**Why it did not pass:**")
            )
        )
        if r.get("error"):
            assert why == f"**Why it did not pass:** the target errored ({r['error']})"
            continue
        for check in r.get("numeric_checks") or []:
            if not check["satisfied"]:
                assert f"numeric {check['field']}" in why
                assert f"[{check['min']:g}, {check['max']:g}]" in why
        for hit in r.get("excluded_hits") or []:
            assert hit in why
        missed = [e for e in r["expectations"] if not e["satisfied"]]
        if missed and 5 * (len(r["expectations"]) - len(missed)) < 4 * len(r["expectations"]):
            assert all(e["text"] in why for e in missed)
        drill = next(d.value for d in at.dataframe if "Verdict" in d.value.columns)
        assert "Judge's evidence / quote" in drill.columns
        assert list(drill["Expected"]) == [e["text"] for e in r["expectations"]]


# --- history: compare like with like, times as the table shows them -------------------------


def _run(id_: int, kind: str, subject: str = "s") -> SimpleNamespace:
    return SimpleNamespace(id=id_, kind=kind, subject=subject, infra_error=False)


def test_default_pair_only_pairs_runs_of_the_same_kind():
    from ui.views.history import default_pair

    # Newest first. One memo and one scenario run: nothing comparable.
    assert default_pair([_run(2, "scenarios"), _run(1, "memo")]) == (None, None)
    # The newest scenario run has no partner, the memo runs do.
    assert default_pair([_run(3, "scenarios"), _run(2, "memo"), _run(1, "memo")]) == (1, 2)
    # Same subject preferred over a newer run of the same kind.
    runs = [_run(3, "memo", "A"), _run(2, "memo", "B"), _run(1, "memo", "A")]
    assert default_pair(runs) == (1, 3)


def test_history_with_one_run_of_each_kind_explains_instead_of_erroring(app, _isolated_home):
    st.cache_data.clear()  # the scorecard records only on a cache miss
    at = app(SCENARIOS)  # the scorecard (first page) recorded one memo evaluation
    at.button(key=SN.RUN).click().run()  # ...and this one scenario run
    at.switch_page(HISTORY)
    at.run()
    assert not at.exception
    kinds = sorted(r.kind for r in RunStore(_isolated_home / "history.sqlite").list_runs())
    assert kinds == ["memo", "scenarios"]
    assert not at.error, [e.value for e in at.error]
    assert any("two runs of the same kind" in i.value for i in at.info)


def test_history_compare_of_different_kinds_is_a_hint_not_a_cli_error(app):
    st.cache_data.clear()
    at = app(SCENARIOS)
    # two different scenario runs (the same one twice is one run): judge off, then on
    at.toggle(key=SN.JUDGE).set_value(False).run()
    at.button(key=SN.RUN).click().run()
    at.toggle(key=SN.JUDGE).set_value(True).run()
    at.button(key=SN.RUN).click().run()
    at.switch_page(HISTORY)
    at.run()
    assert not at.exception and not at.error
    a, b = at.selectbox(key=state.History.RUN_A), at.selectbox(key=state.History.RUN_B)
    assert "scenarios" in a.value and "scenarios" in b.value, "defaults pair like with like"
    memo = next(o for o in a.options if "· memo ·" in o)
    a.set_value(memo).run()
    assert not at.exception
    assert not at.error, "a kind mismatch is a hint, not an error naming CLI flags"
    assert any("only runs of the same" in i.value for i in at.info)


def test_history_time_axis_is_24_hour_utc():
    from ui.views.history import memo_trend_chart, tier_trend_chart

    memo = memo_trend_chart(
        [
            {
                "id": 1,
                "created_at": "2026-04-01T13:08:00+00:00",
                "portco_id": "P",
                "audience": "board",
                "citation_accuracy": 1.0,
                "hallucination_rate": 0.0,
                "coverage": 1.0,
                "consistency": 1.0,
            }
        ]
    ).to_dict()
    tiers = tier_trend_chart(
        [
            {
                "id": 1,
                "created_at": "2026-04-01T13:08:00+00:00",
                "tier": "smoke",
                "passed": 1,
                "total": 1,
                "pass_rate": 1.0,
                "target": "t",
            }
        ]
    ).to_dict()
    for x in (memo["spec"]["encoding"]["x"], tiers["encoding"]["x"]):
        assert x["scale"]["type"] == "utc"
        assert "%H:%M" in x["axis"]["format"] and "%I" not in x["axis"]["format"]
        # Vega-Lite axes accept only number/time format types; "utc" silently drops the format.
        assert x["axis"].get("formatType") in (None, "time")


def test_missing_scenarios_file_points_at_the_sidebar_not_a_cli_flag(app, tmp_path):
    at = app(SCENARIOS, **{state.Sidebar.SCENARIOS_FILE: str(tmp_path / "nope.json")})
    assert not at.exception
    text = plain(" ".join(e.value for e in at.error))
    assert "nope.json" in text and "Diagnosis:" in text
    assert "--scenarios" not in text
    assert "sidebar's Scenarios file" in text


def test_missing_recorded_responses_points_at_the_field_not_a_cli_flag(app, tmp_path):
    at = app(SCENARIOS)
    at.text_input(key=SN.RESPONSES).set_value(str(tmp_path / "gone.json")).run()
    assert not at.exception
    text = plain(" ".join(e.value for e in at.error))
    assert "gone.json" in text
    assert "--responses" not in text
    assert "Recorded responses file" in text


def test_bad_agent_url_points_at_the_field_not_a_cli_flag(app):
    at = app(SCENARIOS, **{SN.TARGET: "HTTP agent", SN.HTTP_URL: "not a url"})
    assert not at.exception
    text = plain(" ".join(e.value for e in at.error))
    assert "not a url" in text
    assert "--agent-url" not in text and "Agent URL" in text


def test_unreachable_agent_says_every_scenario_errored(app):
    import socket

    with socket.socket() as s:  # a local port nobody listens on: connection refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/agent"
    at = app(SCENARIOS, **{SN.TARGET: "HTTP agent", SN.HTTP_URL: url, SN.JUDGE: False})
    at.checkbox(key=SN.CONFIRM_LIVE).check().run()  # every paid run is confirmed
    at.button(key=SN.RUN).click().run()
    assert not at.exception
    run = json.loads(at.session_state[SN.RESULT])
    assert all(r["status"] == "error" for r in run["results"])
    banner = plain(next(e.value for e in at.error if "Every scenario errored" in e.value))
    assert run["results"][0]["error"] in banner
    assert {m.label: m.delta for m in at.metric}["Failed"] == f"+{len(run['results'])} errors"


def test_marked_prose_opens_on_the_first_opportunity_with_a_problem(app):
    from pe_eval_core.memo import find_memo_pairs, grade_memo

    expected = {}
    for p in find_memo_pairs(DEMO_DATA):
        ev = grade_memo(p.memo_path, p.source_path)
        bad = [m.opportunity_id for m in ev.marks if m.status in ("ungrounded", "misattributed")]
        first = next(b.opportunity_id for b in ev.prose)
        expected[(p.portco_id, p.audience)] = bad[0] if bad else first
    assert len(set(expected.values())) > 1, "the demo should flag a non-first opportunity"
    at = app()
    for (portco, audience), opp in expected.items():  # switching memos re-picks each time
        at.selectbox(key=SC.PORTCO).set_value(portco).run()
        at.radio(key=SC.AUDIENCE).set_value(audience).run()
        assert not at.exception
        assert at.selectbox(key=SC.PROSE_OPP).value == opp, (portco, audience)


def _upload(at, memo: tuple[str, bytes], source: tuple[str, bytes]) -> None:
    at.file_uploader(key=SC.MEMO_UPLOAD).set_value((*memo, "application/json"))
    at.file_uploader(key=SC.SOURCE_UPLOAD).set_value((*source, "application/json"))
    at.run()


def test_swapped_uploads_get_a_hint_after_the_error(app):
    memo = next(DEMO_DATA.glob("explain_*_board.json"))
    source = next(DEMO_DATA.glob("dx_report_*.json"))
    at = app(**{SC.MODE: "Upload"})
    _upload(at, (source.name, source.read_bytes()), (memo.name, memo.read_bytes()))
    assert not at.exception
    assert "Diagnosis:" in plain(" ".join(e.value for e in at.error))
    assert any("swap the two uploads" in i.value for i in at.info)


def test_wrong_schema_upload_names_the_field_and_gives_no_swap_hint(app):
    source = next(DEMO_DATA.glob("dx_report_*.json"))
    at = app(**{SC.MODE: "Upload"})
    _upload(at, ("explain_X_board.json", b'{"hello": [1, 2]}'), (source.name, source.read_bytes()))
    assert not at.exception
    text = plain(" ".join(e.value for e in at.error))
    assert "portco_id" in text and "Fix:" in text
    assert not any("swap" in i.value for i in at.info)
    assert not at.subheader, "nothing half-rendered below the error"
