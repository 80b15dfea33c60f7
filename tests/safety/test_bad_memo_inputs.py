"""Broken and hostile memo and source files through the CLI and the API: clear errors, no
tracebacks, no debris.

Every bad input must exit 2 with a message naming the file and field, never a Python
traceback, and must leave no half-written output behind. Hostile text must reach the HTML
scorecard escaped and un-evaluated, and CSV cells must not start formulas.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import MemoSchemaError
from pe_eval_core.memo import grade_memo, write_outputs

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "finance_output"
MEMO = json.loads((DATA / "explain_MortgageCo_board.json").read_text(encoding="utf-8"))
SOURCE = json.loads((DATA / "dx_report_MortgageCo.json").read_text(encoding="utf-8"))


def _copy(obj):
    return json.loads(json.dumps(obj))


def _cli(capsys, args: list[str]) -> tuple[int, str]:
    rc = main(args)
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text
    return rc, text


def _eval_files(folder: Path) -> list[str]:
    """Output files and temp leftovers (atomic writes use '.<name>.*.tmp')."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(("eval_", ".")))


# ================================================================== memo: broken inputs


def _memo_bytes(**top) -> bytes:
    memo = _copy(MEMO)
    memo.update(top)
    return json.dumps(memo).encode()


def _memo_with_opp(**fields) -> bytes:
    memo = _copy(MEMO)
    memo["opportunities_explained"][0].update(fields)
    return json.dumps(memo).encode()


def _memo_without(key: str) -> bytes:
    memo = _copy(MEMO)
    del memo[key]
    return json.dumps(memo).encode()


def _source_with_opp(**fields) -> bytes:
    src = _copy(SOURCE)
    src["opportunities"][0].update(fields)
    return json.dumps(src).encode()


FULL_MEMO = (DATA / "explain_MortgageCo_board.json").read_bytes()

# (id, memo bytes or None, source bytes or None, words the message must contain)
BAD_MEMO_INPUTS = [
    ("truncated", FULL_MEMO[:300], None, ["explain_MortgageCo_board.json", "line"]),
    ("array", b"[1, 2, 3]", None, ["explain_MortgageCo_board.json", "array"]),
    ("empty-file", b"", None, ["explain_MortgageCo_board.json", "line 1"]),
    ("whitespace-only", b"  \n\t ", None, ["explain_MortgageCo_board.json"]),
    ("binary", bytes(range(256)) * 3, None, ["explain_MortgageCo_board.json", "UTF-8"]),
    ("utf16", FULL_MEMO.decode().encode("utf-16"), None, ["explain_MortgageCo_board.json"]),
    (
        "opps-as-dict",
        _memo_bytes(opportunities_explained={"opp_01": {}}),
        None,
        ["opportunities_explained"],
    ),
    ("opps-empty", _memo_bytes(opportunities_explained=[]), None, ["opportunities_explained"]),
    ("prose-number", _memo_with_opp(narrative=12345), None, ["opportunities_explained[0]"]),
    ("opp-id-missing", _memo_with_opp(id=None), None, ["opportunities_explained[0].id"]),
    (
        "headline-abc",
        _memo_bytes(total_projected_impact_usd_annual="abc"),
        None,
        ["total_projected_impact_usd_annual"],
    ),
    ("portco-missing", _memo_without("portco_id"), None, ["portco_id"]),
    ("portco-int", _memo_bytes(portco_id=123), None, ["portco_id"]),
    ("portco-dotdot", _memo_bytes(portco_id="../../etc"), None, ["portco_id", "../../etc"]),
    ("portco-slash", _memo_bytes(portco_id="a/b"), None, ["portco_id", "a/b"]),
    ("portco-unicode", _memo_bytes(portco_id="Soci\u00e9t\u00e9"), None, ["portco_id"]),
    ("audience-dotdot", _memo_bytes(audience=".."), None, ["audience"]),
    ("source-array", None, b"[]", ["dx_report_MortgageCo.json", "array"]),
    ("source-truncated", None, b'{"portco_id": "MortgageCo", "opp', ["dx_report_MortgageCo.json"]),
    ("source-n-abc", None, _source_with_opp(n="abc"), ["opportunities[0].n"]),
    (
        "source-opps-dict",
        None,
        json.dumps({**SOURCE, "opportunities": {"a": 1}}).encode(),
        ["opportunities"],
    ),
]


@pytest.mark.parametrize(
    ("memo_bytes", "source_bytes", "words"),
    [pytest.param(m, s, w, id=i) for i, m, s, w in BAD_MEMO_INPUTS],
)
def test_bad_memo_inputs_exit_2_with_specific_message(
    tmp_path, capsys, memo_bytes, source_bytes, words
):
    memo = tmp_path / "explain_MortgageCo_board.json"
    src = tmp_path / "dx_report_MortgageCo.json"
    memo.write_bytes(FULL_MEMO if memo_bytes is None else memo_bytes)
    src.write_bytes((DATA / src.name).read_bytes() if source_bytes is None else source_bytes)
    rc, text = _cli(capsys, ["memo", "--memo", str(memo), "--source", str(src)])
    assert rc == 2, text
    assert text.startswith("error: ")
    assert "diagnosis:" in text and "fix:" in text
    for w in words:
        assert w in text, (w, text)
    assert _eval_files(tmp_path) == []


def test_zero_byte_memo_through_api_raises_typed_error(tmp_path):
    from pe_eval_core.errors import PeEvalError

    memo = tmp_path / "explain_X_board.json"
    memo.write_bytes(b"")
    with pytest.raises(PeEvalError) as exc:
        grade_memo(memo, DATA / "dx_report_MortgageCo.json")
    assert "explain_X_board.json" in exc.value.message


@pytest.mark.parametrize(
    "args",
    [
        ["memo", "../../etc"],
        ["memo", "a/b"],
        ["memo", "CON"],
        ["memo", "\u00e9t\u00e9"],
        ["memo", "MortgageCo", "--audience", "../board"],
        ["memo", "MortgageCo", "--audience", ""],
        ["memo", "MortgageCo", "--data-dir", "/nonexistent/dir"],
        ["memo", "--memo", "/nonexistent.json"],
        ["memo", "MortgageCo", "--fail-under", "citation=abc"],
        ["memo", "MortgageCo", "--fail-under", "hallucination=0.1"],
        ["memo", "MortgageCo", "--fail-under", "citation=1.5"],
        ["memo", "MortgageCo", "--max-hallucination", "2"],
    ],
    ids=lambda a: " ".join(a),
)
def test_bad_memo_cli_arguments_exit_2(tmp_path, capsys, args):
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("eval_*"))
    if "--data-dir" not in args:
        args = [*args, "--data-dir", str(data)]
    rc, text = _cli(capsys, args)
    assert rc == 2, text
    assert "error:" in text
    assert _eval_files(data) == []


@pytest.mark.parametrize(
    ("memo_bytes", "what"),
    [
        (b"\xef\xbb\xbf" + FULL_MEMO, "BOM"),
        (_memo_bytes(portco_id="CON"), "Windows device name is a fine name on POSIX"),
        (_memo_with_opp(narrative=None), "null prose block = empty block"),
    ],
    ids=["bom", "con", "null-prose"],
)
def test_tolerated_oddities_grade_normally(tmp_path, capsys, memo_bytes, what):
    memo = tmp_path / "explain_MortgageCo_board.json"
    memo.write_bytes(memo_bytes)
    shutil.copyfile(DATA / "dx_report_MortgageCo.json", tmp_path / "dx_report_MortgageCo.json")
    rc, text = _cli(
        capsys,
        ["memo", "--memo", str(memo), "--source", str(tmp_path / "dx_report_MortgageCo.json")],
    )
    assert rc == 0, (what, text)
    assert len([n for n in _eval_files(tmp_path) if not n.startswith(".")]) == 2


# ------------------------------------------------------------------ memo: fixed bugs (guards)


def test_deeply_nested_json_is_a_clear_error(tmp_path, capsys):
    memo = tmp_path / "explain_MortgageCo_board.json"
    memo.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    try:
        rc, _ = _cli(
            capsys,
            ["memo", "--memo", str(memo), "--source", str(DATA / "dx_report_MortgageCo.json")],
        )
    except RecursionError:
        pytest.fail("RecursionError escaped")
    assert rc == 2


@pytest.mark.parametrize("headline", ["Infinity", "1e400", "-Infinity"])
def test_infinite_headline_never_agrees(tmp_path, headline):
    """Fixed (bug 1): an infinite headline can never agree, because it is never graded: the
    memo is refused with a schema error naming the headline field (the CLI exits 2)."""
    text = FULL_MEMO.decode().replace(
        '"total_projected_impact_usd_annual": 1449903240',
        f'"total_projected_impact_usd_annual": {headline}',
    )
    assert headline in text
    memo = tmp_path / "explain_MortgageCo_board.json"
    memo.write_text(text, encoding="utf-8")
    with pytest.raises(MemoSchemaError) as info:
        grade_memo(memo, DATA / "dx_report_MortgageCo.json")
    assert info.value.field == "total_projected_impact_usd_annual"
    assert "finite" in info.value.message


@pytest.mark.parametrize(
    "which", ["memo-headline-NaN", "source-total-NaN", "source-n-NaN", "source-outcome-Infinity"]
)
def test_nan_and_infinity_numbers_are_schema_errors(tmp_path, capsys, which):
    memo_text = FULL_MEMO.decode()
    src_text = (DATA / "dx_report_MortgageCo.json").read_text(encoding="utf-8")
    if which == "memo-headline-NaN":
        memo_text = memo_text.replace("1449903240", "NaN", 1)
    elif which == "source-total-NaN":
        src_text = src_text.replace(
            '"total_projected_impact_usd_annual": 1449903240',
            '"total_projected_impact_usd_annual": NaN',
        )
    elif which == "source-n-NaN":
        src_text = src_text.replace('"n": 23681', '"n": NaN')
    else:
        src_text = src_text.replace("-1387460000", "-Infinity")
    assert "NaN" in memo_text + src_text or "Infinity" in src_text
    (tmp_path / "explain_MortgageCo_board.json").write_text(memo_text, encoding="utf-8")
    (tmp_path / "dx_report_MortgageCo.json").write_text(src_text, encoding="utf-8")
    rc, text = _cli(
        capsys,
        [
            "memo",
            "--memo",
            str(tmp_path / "explain_MortgageCo_board.json"),
            "--source",
            str(tmp_path / "dx_report_MortgageCo.json"),
        ],
    )
    assert rc == 2, text
    # A schema error naming the field (fixed, bug 7), never a '$nan ... +nan%' scorecard.
    field = {
        "memo-headline-NaN": "'total_projected_impact_usd_annual'",
        "source-total-NaN": "'total_projected_impact_usd_annual'",
        "source-n-NaN": "'opportunities[0].n'",
        "source-outcome-Infinity": "'opportunities[0].outcome_total_usd_annual'",
    }[which]
    assert "must be a finite number" in text and field in text, text
    assert "$nan" not in text.lower() and "nan%" not in text.lower()
    assert _eval_files(tmp_path) == []


def test_huge_but_finite_headline_is_graded(tmp_path):
    memo = tmp_path / "explain_MortgageCo_board.json"
    memo.write_bytes(_memo_bytes(total_projected_impact_usd_annual=1e300))
    ev = grade_memo(memo, DATA / "dx_report_MortgageCo.json")
    assert ev.consistency.agrees_with_source is False
    assert math.isfinite(ev.scores.consistency)


# ------------------------------------------------------------------ memo: output failures


def test_unwritable_out_dir_is_a_clear_error_and_leaves_nothing(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("eval_*"))
    rc, text = _cli(
        capsys,
        ["memo", "MortgageCo", "--data-dir", str(data), "--out-dir", str(blocker / "sub")],
    )
    assert rc == 2
    assert "cannot write" in text and str(blocker) in text
    assert _eval_files(data) == []
    assert _eval_files(tmp_path) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_memo_folder_is_a_clear_error(tmp_path, capsys):
    data = tmp_path / "ro"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("eval_*"))
    data.chmod(0o555)
    try:
        rc, text = _cli(capsys, ["memo", "MortgageCo", "--data-dir", str(data)])
    finally:
        data.chmod(0o755)
    assert rc == 2 and "cannot write" in text
    assert _eval_files(data) == []


def test_failed_html_write_leaves_no_new_json(tmp_path, capsys, monkeypatch):
    """Fixed (bug 8): the pair is written both-or-neither (temps first, then renames)."""
    import pe_eval_core.memo.outputs as outputs

    real = outputs._write_temp

    def disk_full_on_html(path, data):
        if str(path).endswith(".html"):
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(outputs, "_write_temp", disk_full_on_html)
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("eval_*"))
    rc, text = _cli(capsys, ["memo", "MortgageCo", "--data-dir", str(data)])
    assert rc == 2 and "No space left" in text
    assert _eval_files(data) == []


# ------------------------------------------------------------------ memo: hostile prose

HOSTILE = (
    " <script>alert('x')</script> <img src=x onerror=alert(1)> {{ 7*7 }} {% raw %}"
    " {{ config }} {%- for i in range(3) %}JINJA{% endfor %} </textarea>"
)


def test_hostile_prose_is_escaped_and_not_evaluated(tmp_path):
    memo = _copy(MEMO)
    opp = memo["opportunities_explained"][0]
    opp["narrative"] += HOSTILE
    opp["counterfactual"] = "**Counterfactual:** **<b>{{ 7*7 }}</b>**" + HOSTILE
    memo_path = tmp_path / "explain_MortgageCo_board.json"
    memo_path.write_text(json.dumps(memo), encoding="utf-8")
    shutil.copyfile(DATA / "dx_report_MortgageCo.json", tmp_path / "dx_report_MortgageCo.json")
    ev = grade_memo(memo_path, tmp_path / "dx_report_MortgageCo.json")
    html_path, json_path = write_outputs(ev)
    html = html_path.read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "<b>{{" not in html
    assert "&lt;script&gt;alert(" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    # Jinja syntax from the input is shown literally, never evaluated.
    assert "{{ 7*7 }}" in html
    assert "{% raw %}" in html
    assert "JINJAJINJA" not in html
    assert "{{ config }}" in html
    # The JSON sidecar keeps the text verbatim.
    prose = json.loads(json_path.read_text(encoding="utf-8"))["prose"]
    assert any(HOSTILE in b["text"] for b in prose)


@pytest.mark.parametrize(
    "field", ["portco_id", "entity", "segment"], ids=["portco_id", "bold-entity", "segment"]
)
def test_hostile_names_are_escaped_in_html(tmp_path, field):
    bad = "<svg onload=alert(1)>"
    memo = _copy(MEMO)
    src = _copy(SOURCE)
    if field == "portco_id":
        # Not a safe file name: grading works, writing must refuse without a traceback.
        memo["portco_id"] = src["portco_id"] = bad
    elif field == "entity":
        memo["opportunities_explained"][0]["narrative"] += f" **{bad}**"
    else:
        src["opportunities"][0]["segment"]["grade"] = bad
        memo["opportunities_explained"][0]["narrative"] = memo["opportunities_explained"][0][
            "narrative"
        ].replace("**A \u00d7", f"**{bad} \u00d7")
    (tmp_path / "m.json").write_text(json.dumps(memo), encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(src), encoding="utf-8")
    ev = grade_memo(tmp_path / "m.json", tmp_path / "s.json")
    from pe_eval_core.memo import render_scorecard_html

    html = render_scorecard_html(ev)
    assert "<svg" not in html
    assert "&lt;svg onload=alert(1)&gt;" in html


def test_findings_csv_neutralises_formulas(tmp_path):
    from pe_eval_core.memo import findings_to_csv

    memo = _copy(MEMO)
    memo["opportunities_explained"][0]["narrative"] += ' **=HYPERLINK("http://x","y")**'
    (tmp_path / "m.json").write_text(json.dumps(memo), encoding="utf-8")
    ev = grade_memo(tmp_path / "m.json", DATA / "dx_report_MortgageCo.json")
    csv_text = findings_to_csv(ev)
    assert "=HYPERLINK" in csv_text
    for line in csv_text.splitlines():
        for cell in line.split(","):
            assert not cell.lstrip('"').startswith("=")
