"""Plain words in lead sentences (issue 21): the cohort before its id, money as ``−$7.9M``, the
nearest value in the figure's own format, and an invented segment value with the source's
value for its column. Labelled cases written as other producers would write them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pe_eval_core.memo.plain import nearest_text
from pe_eval_core.memo.result import Finding, FindingKind
from pe_eval_core.memo.segment_nearest import segment_columns
from pe_eval_core.memo.verdict import issue_sentence, memo_verdict
from tests.helpers.memo_builders import SHAPE_A_SOURCE, board_prose, grade_prose, only

DEMO = Path(__file__).resolve().parents[2] / "finance_output"

# (label, prose, the invented piece, the segment, the expected (column, value) pairs)
SEGMENT_CASES = [
    (
        "first of two",
        "**B × 360 months** (grade × term)",
        "B",
        {"grade": "A", "term": "360 months"},
        [("grade", "A")],
    ),
    (
        "second of two",
        "**A × 180 months** leaks",
        "180 months",
        {"grade": "A", "term": "360 months"},
        [("term", "360 months")],
    ),
    (
        "x separator",
        "Cohort key: **FL x Debt consolidation**.",
        "FL",
        {"state": "AL", "loan_purpose": "Debt consolidation"},
        [("state", "AL")],
    ),
    (
        "underscore bold",
        "__NV × Retail__ segment",
        "Retail",
        {"state": "NV", "channel": "Branch"},
        [("channel", "Branch")],
    ),
    ("extra piece", "**GA × Online × Branch**", "Online", {"state": "GA", "channel": "Branch"}, []),
    (
        "three columns",
        "**C × 60 months × TX**",
        "TX",
        {"grade": "C", "term": "60 months", "state": "CA"},
        [("state", "CA")],
    ),
    (
        "a state in plain prose",
        "Borrowers in Texas default more.",
        "Texas",
        {"state": "GA", "channel": "Branch"},
        [("state", "GA")],
    ),
    (
        "plain prose, no state",
        "the Retail book grew",
        "Retail",
        {"state": "GA", "channel": "Branch"},
        [],
    ),
    ("one-piece label", "**Platinum** tier", "Platinum", {"tier": "Gold"}, []),
]


@pytest.mark.parametrize(
    "label,text,piece,segment,expected", SEGMENT_CASES, ids=[c[0] for c in SEGMENT_CASES]
)
def test_an_invented_segment_value_stands_for_its_column(label, text, piece, segment, expected):
    assert segment_columns(text, text.index(piece), piece, segment) == expected


def test_segment_cases_are_named_without_a_false_column(capsys: pytest.CaptureFixture[str]):
    hits = sum(segment_columns(t, t.index(p), p, s) == e for _, t, p, s, e in SEGMENT_CASES if e)
    false = sum(
        bool(segment_columns(t, t.index(p), p, s)) for _, t, p, s, e in SEGMENT_CASES if not e
    )
    with capsys.disabled():
        print(
            f"\nsegment nearest: {hits}/{sum(1 for c in SEGMENT_CASES if c[4])} named, "
            f"{false} false"
        )
    assert false == 0


def test_an_invented_cohort_value_gets_the_source_value_in_its_finding(tmp_path: Path):
    prose = only(
        "opp_01", "narrative", board_prose()["opp_01"]["narrative"].replace("**A ×", "**B ×")
    )
    ev = grade_prose(tmp_path, SHAPE_A_SOURCE, prose)
    (f,) = [f for f in ev.findings if f.kind is FindingKind.UNGROUNDED_ENTITY]
    assert (f.raw, f.nearest_value, f.nearest_path) == ("B", "A", "opportunities[0].segment.grade")
    sentence = memo_verdict(ev).issues[0]
    assert sentence == (
        "'B' in A × 360 months (opp_01) names nothing in the source; the source's grade for "
        "this cohort is A."
    )


def test_a_clean_memo_has_no_segment_nearest(tmp_path: Path):
    ev = grade_prose(tmp_path, SHAPE_A_SOURCE, board_prose())
    assert not [f for f in ev.findings if f.kind is FindingKind.UNGROUNDED_ENTITY]


NEAREST_CASES = [
    # (figure as written, source value, source field, shown)
    ("14.2%", 0.127, "opportunities[0].denial_rate", "12.7%"),
    ("62%", 0.62, "opportunities[1].persistence_score", "62%"),
    ("5.4%", 5.4, "opportunities[0].default_rate_pct", "5.4%"),
    ("120 bps", 150, "opportunities[0].spread_bps", "1.5%"),
    ("$6.8M", 4_236_000.0, "opportunities[1].projected_impact_usd_annual", "$4.2M"),
    ("$-7.9M", -7_912_000.0, "opportunities[1].outcome_total_usd_annual", "\u2212$7.9M"),
    ("-$12K", -12_340, "opportunities[1].outcome_total_usd_annual", "\u2212$12,340"),
    ("9,842 loans", 9842, "opportunities[0].n", "9,842"),
    ("5 of 6 quarters", 5, "opportunities[0].persistence_quarters_out_of_total[0]", "5"),
]


@pytest.mark.parametrize("raw,value,path,shown", NEAREST_CASES)
def test_the_nearest_value_reads_in_the_figures_own_format(raw, value, path, shown):
    finding = Finding(
        kind="ungrounded_figure", raw=raw, message="", nearest_value=value, nearest_path=path
    )
    assert nearest_text(finding) == shown


def test_lead_sentences_name_the_cohort_and_write_the_minus_before_the_dollar():
    from pe_eval_core.memo import grade_memo, resolve_pair

    pair = resolve_pair(DEMO, "southeast_lender", "board")
    issues = memo_verdict(grade_memo(pair.memo_path, pair.source_path)).issues
    text = " ".join(issues)
    assert "$-" not in text and "\u2212$7.9M" in text
    assert "C × 60 months (opp_02)" in text and "GA × Branch (opp_01)" in text
    assert "in opp_0" not in text  # never the bare id where the cohort is known


def test_without_cohorts_the_sentence_keeps_the_id():
    f = Finding(
        kind="dropped_opportunity", opportunity_id="opp_04", raw="opp_04", message="dropped"
    )
    assert issue_sentence(f) == "opp_04 is in the source but the memo leaves it out."


def test_every_surface_writes_the_minus_before_the_dollar(tmp_path: Path, capsys):
    from pe_eval_core.cli.main import main
    from pe_eval_core.memo import grade_memo, render_scorecard_html, resolve_pair

    pair = resolve_pair(DEMO, "southeast_lender", "board")
    html = render_scorecard_html(grade_memo(pair.memo_path, pair.source_path))
    assert "\u2212$7.9M" in html
    argv = ["memo", "southeast_lender", "--data-dir", str(DEMO), "--out-dir", str(tmp_path)]
    assert main([*argv, "--db", str(tmp_path / "h.sqlite")]) == 1
    out = capsys.readouterr().out
    assert "\u2212$7.9M" in out and "GA × Branch (opp_01)" in out


def test_plain_names_are_built_once_per_source_content() -> None:
    from pe_eval_core.memo.models import OpportunityMap
    from pe_eval_core.memo.plain_names import plain_names_of

    def source(channel: str) -> OpportunityMap:
        opp = {"id": "a", "segment": {"channel": channel, "band": "620-659"}}
        return OpportunityMap.model_validate({"portco_id": "X", "opportunities": [opp]})

    broker, retail = source("Wholesale Broker"), source("Retail Branch")
    first = plain_names_of(broker, "digest-broker")
    assert plain_names_of(broker, "digest-broker") is first
    other = plain_names_of(retail, "digest-retail")
    text = "via Retail Branch, not Wholesale Broker"
    assert [m.text for m in other.mentions(text)] == ["Retail Branch"]
    assert [m.text for m in first.mentions(text)] == ["Wholesale Broker"]
