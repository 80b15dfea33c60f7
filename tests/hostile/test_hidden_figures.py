"""Class 4: figures that hide from the grader (issue 23).

A fabricated figure written so a reader sees it and a regex does not: a zero-width space after
the ``$``, a full-width ``＄`` or small ``﹩``, a right-to-left override, a full-width ``％``,
``&#36;`` and its kin, digits of another script or style, invisible marks inside the digits.
Each must be read (``text_norm.normalize`` in ``memo.reading``, the one place prose is read),
graded as the figure the reader sees, and marked at the characters as written. A figure too
long for any value is a finding of its own kind (``unreadable_figure``), never silence.

Surfaces: ``text_norm.normalize``, the library (``grade_memo``), the CLI (``memo`` text and
``--json``), the HTML scorecard written beside the memo, and the MCP server over stdio
(``eval_pe_output``). Clean corpora read exactly as before (no prose block changes)."""

from __future__ import annotations

import asyncio
import html
import json
import shutil
import sys
from pathlib import Path

import pytest

from pe_eval_core.text_norm import is_plain, normalize
from tests.helpers.hostile_kit import REPO, run_cli

# form -> (as written, what a reader sees, the span the figure is marked at)
HIDDEN: dict[str, tuple[str, str, str]] = {
    "zero-width space": ("$\u200b987.6M", "$987.6M", "$\u200b987.6M"),
    "full-width dollar": ("\uff04987.6M", "$987.6M", "\uff04987.6M"),
    "small dollar": ("\ufe69987.6M", "$987.6M", "\ufe69987.6M"),
    "right-to-left override": ("\u202eM6.789$\u202c", "$987.6M", "\u202eM6.789$\u202c"),
    "full-width percent": ("91.3\uff05", "91.3%", "91.3\uff05"),
    "numeric reference": ("&#36;987.6M", "$987.6M", "&#36;987.6M"),
    "hex reference": ("&#x24;987.6M", "$987.6M", "&#x24;987.6M"),
    "named reference": ("&dollar;987.6M", "$987.6M", "&dollar;987.6M"),
    "word joiner in digits": ("$98\u20607.6M", "$987.6M", "$98\u20607.6M"),
    "bidi isolate": ("$\u2066987.6M\u2069", "$987.6M", "$\u2066987.6M"),
    "byte order mark": ("$\ufeff987.6M", "$987.6M", "$\ufeff987.6M"),
    "soft hyphen": ("$98\u00ad7.6M", "$987.6M", "$98\u00ad7.6M"),
    "full-width digits": ("$\uff19\uff18\uff17.\uff16M", "$987.6M", "$\uff19\uff18\uff17.\uff16M"),
    "mathematical digits": ("$\U0001d7d7\U0001d7d6\U0001d7d5.\U0001d7d4M", "$987.6M",
                            "$\U0001d7d7\U0001d7d6\U0001d7d5.\U0001d7d4M"),
    "arabic-indic digits": ("$\u0669\u0668\u0667.\u0666M", "$987.6M",
                            "$\u0669\u0668\u0667.\u0666M"),
    "strike-through marks": ("$9\u03368\u03367\u0336.6M", "$987.6M", "$9\u03368\u03367\u0336.6M"),
}  # fmt: skip
LONG = "$" + "9" * 400  # beyond any float: was graded as nothing at all
MEMO, SOURCE = "explain_MortgageCo_board.json", "dx_report_MortgageCo.json"


@pytest.mark.parametrize("name", list(HIDDEN))
def test_normalize_reveals_the_figure_and_keeps_its_place(name):
    hidden, seen, marked = HIDDEN[name]
    prose = f"Last year we lost {hidden} to defaults."
    n = normalize(prose)
    assert seen in n.text, (name, n.text)
    start = n.text.index(seen)
    a, b = n.span(start, start + len(seen))
    assert prose[a:b] == marked, name  # the figure as written
    assert not is_plain(prose)


def test_plain_text_is_unchanged():
    prose = "Annualized $ at stake: $1.39B; 23,681 loans (5 of 6 quarters) & rated 4/5."
    assert normalize(prose).text == prose and not normalize(prose).changed
    kept = "Jose\u0301 \u2014 **A \u00d7 360 months** ~5% \u2248 $4\u2009820, $4.8M\u00b9 \u00bd"
    assert normalize(kept).text == kept  # accents, dashes, x, spaces, footnotes, fractions


def test_clean_corpora_read_as_written():
    """No prose block of the demo data or of any memo corpus changes when normalised, so
    their grading is what it was (findings compared one by one before and after: identical)."""
    folders = [REPO / "finance_output", *sorted((REPO / "tests" / "corpus").glob("*"))]
    blocks = 0
    for memo in (p for f in folders for p in f.rglob("explain_*.json")):
        for opp in json.loads(memo.read_text(encoding="utf-8"))["opportunities_explained"]:
            for text in opp.values():
                if isinstance(text, str):
                    blocks += 1
                    assert not normalize(text).changed, (memo, text[:80])
    assert blocks > 1000


def _copy(tmp_path: Path) -> Path:
    for f in (MEMO, SOURCE):
        shutil.copy(REPO / "finance_output" / f, tmp_path / f)
    return tmp_path / MEMO


def _add(memo_path: Path, *sentences: str) -> None:
    memo = json.loads(memo_path.read_text())
    memo["opportunities_explained"][0]["narrative"] += "".join(f" {s}" for s in sentences)
    memo_path.write_text(json.dumps(memo, ensure_ascii=False))


def _baseline(tmp_path: Path):
    from pe_eval_core.memo import grade_memo

    memo = _copy(tmp_path)
    return memo, grade_memo(memo, tmp_path / SOURCE)


@pytest.mark.parametrize("name", list(HIDDEN))
def test_the_grader_sees_a_hidden_fabricated_figure(name, tmp_path):
    from pe_eval_core.memo import grade_memo

    memo, before = _baseline(tmp_path)
    hidden, seen, marked = HIDDEN[name]
    _add(memo, f"We also lost {hidden} last year.")
    ev = grade_memo(memo, tmp_path / SOURCE)
    assert ev.scores.citation_accuracy < before.scores.citation_accuracy == 1.0
    assert ev.totals.figures_total == before.totals.figures_total + 1
    new = [f for f in ev.findings if f not in before.findings]
    assert [(f.kind.value, f.raw) for f in new] == [("ungrounded_figure", seen)], name
    prose = next(b.text for b in ev.prose if b.field == new[0].field)
    assert prose[new[0].start : new[0].end] == marked  # marked where it is written
    assert "It is written" in new[0].message and "read as " + seen in new[0].message


def test_a_figure_too_long_to_read_is_a_finding_of_its_own(tmp_path):
    from pe_eval_core.memo import grade_memo
    from pe_eval_core.memo.verdict import KIND_LABELS, VerdictThresholds, memo_verdict

    memo, before = _baseline(tmp_path)
    _add(memo, f"We also lost {LONG} last year.")
    ev = grade_memo(memo, tmp_path / SOURCE)
    (new,) = [f for f in ev.findings if f not in before.findings]
    assert new.kind.value == "unreadable_figure" and "400 digits" in new.message
    assert KIND_LABELS[new.kind] == "Figure too long to read"
    assert ev.totals.figures_total == before.totals.figures_total + 1
    assert ev.scores.citation_accuracy < 1.0
    lenient = VerdictThresholds.from_spec("citation=0.5")  # still not ready: no one can check it
    verdict = memo_verdict(ev, lenient)
    assert not verdict.ready and any("too long to read" in i for i in verdict.issues)


def test_every_surface_sees_them(tmp_path, capsys, monkeypatch):
    """One memo with every hidden form and a too-long figure: the CLI (text, ``--json``), the
    HTML scorecard and the MCP server all count them, and agree."""
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    memo, before = _baseline(tmp_path)
    _add(memo, *(f"We also lost {h} in {n}." for n, (h, _, _) in HIDDEN.items()), LONG + " too.")
    added = len(HIDDEN) + 1
    source = tmp_path / SOURCE

    code, out, _ = run_cli(capsys, "memo", "--memo", str(memo), "--source", str(source), "--json")
    data = json.loads(out)
    assert code == 1 and not data["verdict"]["ready"]
    totals = data["totals"]
    assert totals["figures_total"] == before.totals.figures_total + added
    assert totals["figures_cited"] == before.totals.figures_cited
    issues = "\n".join(data["verdict"]["issues"])
    # each opportunity by its cohort, the id second (issue 21's plain words)
    assert issues.count("$987.6M in A × 360 months (opp_01) matches no source figure") == (
        len(HIDDEN) - 1
    )
    assert "91.3% in A × 360 months (opp_01) matches no source figure" in issues
    assert "too long to read" in issues

    code, out, _ = run_cli(capsys, "memo", "--memo", str(memo), "--source", str(source))
    assert code == 1 and out.count("$987.6M") >= len(HIDDEN) - 1 and "91.3%" in out

    page = (tmp_path / "eval_MortgageCo_board.html").read_text(encoding="utf-8")
    for name, (_, _, marked) in HIDDEN.items():
        assert f">{html.escape(marked, quote=False)}</span>" in page, name  # marked as written
    assert "Figure too long to read" in page

    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(tmp_path), "--no-record"],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PE_EVAL_HOME": str(tmp_path)},
    )

    async def go():
        async with Client(params) as client:
            return await client.call_tool(
                "eval_pe_output", {"memo_json_path": str(memo), "source_json_path": str(source)}
            )

    graded = asyncio.run(go())
    assert not graded.is_error
    assert graded.structured_content["totals"] == totals  # the same reading on every surface
    assert "too long to read" in graded.content[1].text


# --- agent responses: the scenario readers of figures read the same way ---------------------


def test_a_scenario_numeric_range_reads_the_figure_a_reader_sees():
    from pe_eval_core.scenarios.models import NumericRange
    from pe_eval_core.scenarios.scoring.steps import numeric_check

    rng = NumericRange(field="mrr_lost", min=240, max=242)
    # each read wrong without normalising: "$2" and "41.00", "50" and "41.00", "142"
    for written in ("$2\u200b41.00", "$&#50;41.00", "\u202e00.142$\u202c"):
        (check,) = numeric_check(f"MRR fell {written} this month.", [rng])
        assert check.satisfied and check.matched == 241.0, written


@pytest.mark.parametrize(
    "written",
    [
        "We will re\u200bfund the customer today.",  # zero-width space inside a word
        "We will refund\u2060 the customer today.",  # word joiner
        "We will &#114;efund the customer today.",  # a numeric reference
        "We will \uff52\uff45\uff46\uff55\uff4e\uff44 the customer today.",  # full-width letters
    ],
)
def test_a_scenario_phrase_check_reads_the_phrase_a_reader_sees(written):
    """A disguised excluded phrase still fails the scenario; a disguised expected phrase is
    still found (the substring check would see neither)."""
    from pe_eval_core.scenarios.models import Expect, Scenario, TargetResponse
    from pe_eval_core.scenarios.scoring.score import score_response

    banned = Scenario(
        name="no refund", input="?", expect=Expect(response_excludes=["refund the customer"])
    )
    result = score_response(banned, TargetResponse(text=written))
    assert result.status == "fail" and result.excluded_hits == ["refund the customer"]
    wanted = Scenario(
        name="refund", input="?", expect=Expect(response_contains=["refund the customer"])
    )
    result = score_response(wanted, TargetResponse(text=written))
    assert result.status == "pass", result.expectations
    plain = score_response(banned, TargetResponse(text="We will call the customer today."))
    assert plain.status == "pass"


@pytest.mark.parametrize("name", ["zero-width space", "full-width dollar", "numeric reference"])
def test_no_hallucination_sees_a_hidden_invented_figure(name):
    from pe_eval_core.scenarios.models import Scenario
    from pe_eval_core.scenarios.scoring.behaviour import hallucination_check
    from pe_eval_core.scenarios.trace import ToolTrace, TraceCall

    call = TraceCall(server="db", tool="get_payments", result_excerpt='[{"amount": 241}]')
    scenario = Scenario(name="s", input="Why did MRR fall?")
    hidden, seen, _ = HIDDEN[name]
    check = hallucination_check(f"MRR fell $241; we also lost {hidden}.", ToolTrace(calls=[call]),
                                scenario)  # fmt: skip
    assert check.satisfied is False and any(seen in f for f in check.findings), check.findings


# --- documents (exit proof pack, DDQ response, red flags): their prose is read the same way --

DOCUMENTS = {
    "exit_proof_pack_MortgageCo.json": ("provenance_ledger", 0, "methodology_note", "$-440.7M"),
    "ddq_response_Bolnet_Capital_Partners_I.json": ("answers", None, "answer", "$-990.9M"),
    "cim_redflags_harbor_ridge_10k.json": ("flags", 0, "excerpt", "$42.0 million"),
}


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_a_document_figure_disguised_is_graded_as_shown(name, tmp_path):
    """The figure changed to a fabricated one, written plainly and written disguised: the
    document's grading finds the same thing at the same field, read as shown, marked where
    it is written."""
    from pe_eval_core.documents import grade_document

    shutil.copytree(REPO / "tests" / "corpus" / "producer_run", tmp_path / "run")
    path = tmp_path / "run" / "finance_output" / name
    original = path.read_text(encoding="utf-8")
    section, index, key, figure = DOCUMENTS[name]
    doc = json.loads(original)
    if index is None:
        index = next(i for i, a in enumerate(doc[section]) if figure in a.get(key, ""))
    fake = figure.replace("4", "7", 1).replace("9", "7", 1)

    def graded(written: str) -> tuple[set[tuple[str, str | None, str]], dict[str, str]]:
        edited = json.loads(original)
        edited[section][index][key] = edited[section][index][key].replace(figure, written, 1)
        path.write_text(json.dumps(edited, ensure_ascii=False), encoding="utf-8")
        text = edited[section][index][key]
        ev = grade_document(path)
        at = f"{section}[{index}].{key}"
        spans = {f.raw: text[f.start : f.end] for f in ev.findings if f.field == at and f.start}
        found = {(f.kind.value, f.field, f.raw if f.start is not None else "") for f in ev.findings}
        return found, spans  # prose figures by their reading; whole-field findings by place

    plain, _ = graded(fake)
    assert any(raw == fake for _, _, raw in plain), plain  # the fabricated figure is caught
    for written in (fake.replace("$", "$\u200b"), fake.replace("$", "\uff04"),
                    fake.replace("$", "&#36;"), fake.replace("7", "\uff17")):  # fmt: skip
        found, spans = graded(written)
        assert found == plain, (written, found ^ plain)
        assert spans[fake] == written, written  # marked over the characters as written
