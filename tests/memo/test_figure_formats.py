"""Figure formats an AI writer plausibly emits: each must be either grounded or flagged.

A figure the grader silently skips is the worst outcome (a fabricated number in an
unrecognised format sails through); a correct figure read at the wrong scale is a false alarm.
Cases are edits to the clean MortgageCo board memo, opp_03 (outcome -1,249,000; projected
impact 1,037,000; default rate 6.31%; 3,914 loans).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.memo import FindingKind, grade_memo

DATA = Path(__file__).resolve().parents[2] / "finance_output"
RISK = "**Risk of inaction:** the cohort stays at $-1.2M a year"


def _grade(tmp_path: Path, old: str, new: str, field: str = "risk_of_inaction"):
    memo = json.loads((DATA / "explain_MortgageCo_board.json").read_text(encoding="utf-8"))
    (opp,) = [o for o in memo["opportunities_explained"] if o["id"] == "opp_03"]
    assert old in opp[field], opp[field]
    opp[field] = opp[field].replace(old, new, 1)
    shutil.copyfile(DATA / "dx_report_MortgageCo.json", tmp_path / "dx_report_MortgageCo.json")
    memo_path = tmp_path / "explain_MortgageCo_board.json"
    memo_path.write_text(json.dumps(memo, ensure_ascii=False), encoding="utf-8")
    return grade_memo(memo_path, tmp_path / "dx_report_MortgageCo.json")


BASE_FIGURES = 41  # README: explain_MortgageCo_board.json prints 41 counted figures


# ---------------------------------------------------------------- handled correctly (guards)


@pytest.mark.parametrize(
    "text",
    [
        "$-1.2M",
        "-$1.2M",
        "\u2212$1.2M",  # unicode minus
        "$\u22121.2M",
        "($1.2M)",
        "$(1.2)M",
        "US$1.2M",
        "USD 1.2M",
        "$1.2 million",
        "$1.25M",
        "$1,249,000",
        "$1.2m",
    ],
)
def test_correct_loss_formats_are_grounded(tmp_path, text):
    ev = _grade(tmp_path, "$-1.2M", text)
    assert ev.totals.figures_total == BASE_FIGURES
    assert ev.totals.figures_cited == BASE_FIGURES, [(f.kind, f.raw) for f in ev.findings]


@pytest.mark.parametrize(
    "text", ["$-7.7M", "-$7.7M", "\u2212$7.7M", "$7,700K", "$7.7 bn", "USD7.7M", "$7.70M"]
)
def test_fabricated_loss_formats_are_flagged(tmp_path, text):
    ev = _grade(tmp_path, "$-1.2M", text)
    assert ev.totals.figures_total == BASE_FIGURES
    assert [f.kind for f in ev.findings] == [FindingKind.UNGROUNDED_FIGURE]


def test_more_precise_but_wrong_rendering_is_flagged(tmp_path):
    # $1,200,000 claims dollar precision; the source is 1,249,000 (4% off): a real error.
    ev = _grade(tmp_path, "$-1.2M", "$1,200,000")
    assert [f.raw for f in ev.findings if f.kind == FindingKind.UNGROUNDED_FIGURE] == ["$1,200,000"]


# ---------------------------------------------- fixed bugs (were silent skips): regression guards


def test_en_dash_negative_fabrication_is_not_silently_skipped(tmp_path):
    ev = _grade(tmp_path, "$-1.2M", "$\u20137.7M")
    assert ev.totals.figures_total == BASE_FIGURES
    assert [f.kind for f in ev.findings] == [FindingKind.UNGROUNDED_FIGURE]


def test_spelled_out_dollars_are_checked(tmp_path):
    ev = _grade(tmp_path, "$-1.2M", "7.7 million dollars")
    assert ev.totals.figures_total == BASE_FIGURES
    assert [f.kind for f in ev.findings] == [FindingKind.UNGROUNDED_FIGURE]


def test_trailing_currency_code_is_checked(tmp_path):
    ev = _grade(tmp_path, "$-1.2M", "7.7M USD")
    assert ev.totals.figures_total == BASE_FIGURES
    assert [f.kind for f in ev.findings] == [FindingKind.UNGROUNDED_FIGURE]


# ------------------------------------------- fixed bugs (were scale lost -> false alarm): guards


@pytest.mark.parametrize("text", ["$1.2\u00a0M", "$1.2\u202fM", "$1.2Million", "$1.2-million"])
def test_attached_scale_variants_keep_their_scale(tmp_path, text):
    ev = _grade(tmp_path, "$-1.2M", text)
    assert ev.findings == [], [(f.kind, f.raw) for f in ev.findings]


def test_space_after_dollar_sign_is_a_figure(tmp_path):
    ev = _grade(
        tmp_path,
        "**$1.2M**",
        "**$ 1.2M**",
        field="narrative",
    )
    assert ev.totals.figures_total == BASE_FIGURES
    assert ev.findings == []


def test_bold_count_with_other_noun_is_not_a_hallucinated_entity(tmp_path):
    ev = _grade(tmp_path, "**3,914 loans**", "**3,914 mortgages**", field="narrative")
    assert not [f for f in ev.findings if f.kind == FindingKind.UNGROUNDED_ENTITY]


def test_underscore_bold_entity_is_checked(tmp_path):
    ev = _grade(
        tmp_path, "Archetype: **routing**", "Archetype: __teleportation__", field="narrative"
    )
    assert [f.raw for f in ev.findings if f.kind == FindingKind.UNGROUNDED_ENTITY] == [
        "teleportation"
    ]
