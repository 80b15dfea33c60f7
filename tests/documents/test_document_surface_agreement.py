"""One document, one answer: an exit proof pack's, DDQ response's or red-flag file's verdict
headline, issues and four score strings are the same on every surface (`pe-eval doc` text,
``--json``, the exit status, the HTML scorecard, the JSON sidecar, the gate, the MCP tool
``eval_document``, the dashboard's Document page, its downloads and the Portfolio's document
table), with and without thresholds, for documents that are ready and documents that are not.

Modelled on tests/memo/test_surface_agreement.py: each surface is read the way its user reads
it (printed lines, the JSON, the HTML, the MCP content, the rendered Streamlit elements),
never through the function they all call.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, fmt_pct
from tests.memo.test_surface_agreement import (
    READY,
    Shown,
    cli_flags,
    from_summary,
    parse_html,
    parse_text,
)

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "tests" / "corpus" / "producer_run"


class Case(NamedTuple):
    document: str
    """The file name in the producer folder."""
    spec: str | None
    """The gate's thresholds spec (the CLI gets the same as --fail-under/--max-hallucination)."""
    headline: str
    """What every surface must say (pinned, so agreeing on a wrong answer fails too)."""


CASES = [
    Case("cim_redflags_harbor_ridge_10k.json", None, "Not ready: 2 issues"),
    Case("cim_redflags_harbor_ridge_10k.json", "coverage=0.8,hallucination=0.05",
         "Not ready: 1 issue"),  # only the Florida share labelled customer concentration
    Case("cim_redflags_harbor_ridge_10k.json", "coverage=0.8,hallucination=0.2", READY),
    Case("ddq_response_Bolnet_Capital_Partners_I.json", None, "Not ready: 3 issues"),
    Case("ddq_response_Bolnet_Capital_Partners_I.json", "citation=0.9", READY),
    Case("exit_proof_pack_MortgageCo.json", None, READY),
]  # fmt: skip


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doc_agreement")
    shutil.copytree(RUN, root / "run", ignore=shutil.ignore_patterns("eval_*"))
    return root / "run" / "finance_output"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def _stem(case: Case) -> str:
    return Path(case.document).stem


def cli(data: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> dict[str, Shown]:
    argv = ["doc", str(data / case.document), *cli_flags(case.spec)]
    code = main(argv)
    shown = {"cli text": parse_text(capsys.readouterr().out)}
    assert main([*argv, "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    shown["cli --json"] = from_summary(out["verdict"])
    assert {d: fmt_pct(out["scores"][d]) for d in DIMENSIONS} == out["verdict"]["scores"]
    assert out["threshold_failures"] == out["verdict"]["failures"]
    # the exit status follows the verdict: 1 exactly when not ready
    assert code == (0 if case.headline == READY else 1)
    stem = data / f"eval_{_stem(case)}"
    shown["html scorecard"] = parse_html(stem.with_suffix(".html").read_text(encoding="utf-8"))
    sidecar = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
    shown["json sidecar"] = from_summary(sidecar["verdict"])
    return shown


def doc_all(data: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> Shown:
    """``doc --all`` (the rows ``memo --all`` prints for the other documents)."""
    main(["doc", str(data), "--all", "--json", *cli_flags(case.spec)])
    rows = json.loads(capsys.readouterr().out)["documents"]
    [row] = [r for r in rows if Path(r["report_path"]).name == f"eval_{_stem(case)}.html"]
    return from_summary(row["verdict"])


def gate(data: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> Shown:
    argv = ["gate", "--data-dir", str(data), "--no-record", "--json", "--jobs", "1"]
    argv += ["--memo-thresholds", case.spec] if case.spec else ["--max-misattributed", "0"]
    main(argv)
    out = json.loads(capsys.readouterr().out)
    [doc] = [d for d in out["documents"] if d["subject"].endswith("/" + _stem(case))]
    checks = [c for c in out["checks"] if c["subject"] == doc["subject"]]
    assert checks and all(c["passed"] for c in checks) is doc["ready"]  # its check lines agree
    return from_summary(doc)


def mcp(data: Path, case: Case) -> Shown:
    from mcp import Client

    from pe_eval_core.mcp_server import build_server

    args: dict[str, Any] = {"document_path": str(data / case.document)}
    if case.spec:
        args["thresholds"] = case.spec

    async def go() -> Any:
        async with Client(build_server([data.parent], record=False)) as client:
            return await client.call_tool("eval_document", args)

    result = asyncio.run(go())
    assert not result.is_error, result.content[0].text
    shown = parse_text(result.content[1].text)
    seed = result.structured_content
    assert {d: fmt_pct(seed["scores"][d]) for d in DIMENSIONS} == shown.scores
    assert from_summary(seed["verdict"]) == shown
    return shown


def dashboard(data: Path, case: Case) -> dict[str, Shown]:
    from streamlit.testing.v1 import AppTest

    from pe_eval_core.documents import evaluation_to_json, grade_document, with_verdict
    from pe_eval_core.documents.scorecard import render_document_html
    from pe_eval_core.memo.verdict import VerdictThresholds
    from ui import state
    from ui.views.documents import label

    kind = {"cim": "cim_redflags", "ddq": "ddq_response", "exit": "exit_proof_pack"}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state[state.Sidebar.DATA_DIR] = str(data)
    at.session_state[state.Scorecard.VERDICT_SPEC_KEPT] = case.spec or ""
    at.run()
    at.switch_page("app_pages/document_scorecard.py")
    at.session_state[state.Documents.PICK] = label(
        kind[case.document.split("_")[0]], str(data / case.document)
    )
    at.run()
    assert not at.exception
    box = next(b.value for b in (*at.success, *at.error) if b.value.startswith("**Ready")
               or b.value.startswith("**Not ready"))  # fmt: skip
    headline = box.split("**")[1].rstrip(".")
    n_issues = sum(1 for line in box.splitlines() if line.startswith("- "))
    tiles = {m.label: m.value for m in at.metric}
    scores = {d: tiles[lab] for d, lab in DIMENSION_LABELS.items()}
    shown = {"dashboard document page": Shown(headline, n_issues, scores)}

    # the download buttons' bytes, from the functions the buttons are given
    ev = grade_document(data / case.document)
    t = VerdictThresholds.from_spec(case.spec)
    shown["dashboard html download"] = parse_html(render_document_html(ev, t))
    sidecar = json.loads(evaluation_to_json(with_verdict(ev, t)))
    shown["dashboard json download"] = from_summary(sidecar["verdict"])

    at.switch_page("app_pages/portfolio.py")
    at.run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "document" in d.value.columns)
    [row] = table[table.document == case.document].to_dict("records")
    points = {d: f"{row[d]:g}%" for d in DIMENSIONS}  # pct_points, shown as %g%%
    count = re.match(r"Not ready: (\d+) issues?$", row["verdict"])
    shown["dashboard portfolio"] = Shown(row["verdict"], int(count.group(1)) if count else 0,
                                         points)  # fmt: skip
    return shown


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.document} {c.spec}")
def test_every_surface_shows_the_same_document_verdict(
    data: Path, case: Case, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = cli(data, case, capsys)
    shown["doc --all"] = doc_all(data, case, capsys)
    shown["gate"] = gate(data, case, capsys)
    shown["mcp tool"] = mcp(data, case)
    shown.update(dashboard(data, case))

    reference = shown["cli text"]
    assert reference.headline == case.headline
    issues = reference.issues
    assert isinstance(issues, list)
    for surface, s in shown.items():
        assert s.headline == case.headline, surface
        if isinstance(s.issues, list):
            assert s.issues == issues, surface
        else:
            assert s.issues == len(issues), surface
        assert s.scores == reference.scores, surface
    assert (reference.headline == READY) == (len(issues) == 0)
