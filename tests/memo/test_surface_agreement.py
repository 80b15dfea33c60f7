"""One memo, one answer: the verdict headline, the issues and the four score strings are the same
on every surface (CLI text, CLI ``--json``, the exit status, the HTML scorecard, the JSON
sidecar, the gate, the MCP tool, the dashboard's scorecard page, its downloads and Portfolio),
with and without thresholds, for memos that are ready and memos that are not.

Each surface is read the way its user reads it (printed lines, the JSON, the HTML, the MCP
content, the rendered Streamlit elements), never through the function they all call.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, fmt_pct, pct_points

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "finance_output"
READY = "Ready to circulate"


class Case(NamedTuple):
    portco: str
    audience: str
    spec: str | None
    """The gate's thresholds spec (the CLI gets the same as --fail-under/--max-hallucination)."""
    headline: str
    """What every surface must say (pinned, so agreeing on a wrong answer fails too)."""


CASES = [
    Case("southeast_lender", "operator", None, "Not ready: 3 issues"),
    Case("southeast_lender", "board", "citation=0.9,consistency=0,hallucination=0.05",
         "Not ready: 1 issue"),  # only the mis-attributed $-7.9M is left
    Case("southeast_lender", "operator", "coverage=0.75,consistency=0.5,hallucination=0.05",
         READY),
    Case("MortgageCo", "board", None, READY),
]  # fmt: skip


class Shown(NamedTuple):
    """What one surface shows: the verdict headline, its issues, the four score strings."""

    headline: str
    issues: list[str] | int
    """The issue sentences, or only their count where the surface rewrites them (markdown)."""
    scores: dict[str, str]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("agreement") / "finance_output"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("eval_*"))
    return folder


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def cli_flags(spec: str | None) -> list[str]:
    """The spec as the memo command's flags (hallucination is --max-hallucination there)."""
    if spec is None:
        return []
    pairs = dict(p.split("=") for p in spec.split(","))
    flags = []
    if "hallucination" in pairs:
        flags += ["--max-hallucination", pairs.pop("hallucination")]
    if pairs:
        flags += ["--fail-under", ",".join(f"{k}={v}" for k, v in pairs.items())]
    return flags


def parse_text(text: str) -> Shown:
    """The lines ``pe-eval memo`` prints (and the MCP tool's text block repeats)."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Verdict: "))
    issues = []
    for line in lines[at + 1 :]:
        if not line.startswith("  - "):
            break
        issues.append(line[4:])
    scores = {}
    for d, label in DIMENSION_LABELS.items():
        m = re.search(rf"^  {label}:\s+(\S+)  \(", text, re.M)
        assert m, (label, text)
        scores[d] = m.group(1)
    return Shown(lines[at].removeprefix("Verdict: "), issues, scores)


def from_summary(v: dict[str, Any]) -> Shown:
    assert v["issue_count"] == len(v["issues"])
    return Shown(v["headline"], v["issues"], v["scores"])


def parse_html(page: str) -> Shown:
    box = re.search(r'<div class="verdict [a-z]+" id="verdict">(.*?)<div class="thresholds">',
                    page, re.S)  # fmt: skip
    assert box, page[:2000]
    head = re.search(r'<div class="head">(.*?)</div>', box.group(1))
    assert head
    issues = [html.unescape(i) for i in re.findall(r"<li>(.*?)</li>", box.group(1))]
    scores = {
        d: m.group(1)
        for d in DIMENSIONS
        if (m := re.search(rf'id="tile-{d}">.*?<div class="value">(.*?)</div>', page, re.S))
    }
    assert len(scores) == len(DIMENSIONS)
    return Shown(html.unescape(head.group(1)), issues, scores)


# --- the surfaces ---------------------------------------------------------------------------


def cli(data: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> dict[str, Shown]:
    argv = ["memo", case.portco, "--audience", case.audience, "--data-dir", str(data)]
    argv += cli_flags(case.spec)
    code = main(argv)
    shown = {"cli text": parse_text(capsys.readouterr().out)}
    assert main([*argv, "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    shown["cli --json"] = from_summary(out["verdict"])
    # the seed's float scores print as the verdict's strings
    assert {d: fmt_pct(out["scores"][d]) for d in DIMENSIONS} == out["verdict"]["scores"]
    assert out["threshold_failures"] == out["verdict"]["failures"]
    # the exit status follows the verdict: 1 exactly when not ready
    assert code == (0 if case.headline == READY else 1)
    stem = data / f"eval_{case.portco}_{case.audience}"
    shown["html scorecard"] = parse_html(stem.with_suffix(".html").read_text(encoding="utf-8"))
    sidecar = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
    shown["json sidecar"] = from_summary(sidecar["verdict"])
    return shown


def gate(data: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> Shown:
    argv = ["gate", "--data-dir", str(data), "--no-record", "--json", "--jobs", "1"]
    argv += ["--memo-thresholds", case.spec] if case.spec else ["--max-misattributed", "0"]
    main(argv)
    out = json.loads(capsys.readouterr().out)
    [memo] = [m for m in out["memos"] if m["subject"] == f"{case.portco}/{case.audience}"]
    checks = [c for c in out["checks"] if c["subject"] == memo["subject"]]
    assert all(c["passed"] for c in checks) is memo["ready"]  # its check lines agree too
    return from_summary(memo)


def mcp(data: Path, case: Case) -> Shown:
    from mcp import Client

    from pe_eval_core.mcp_server import build_server

    memo = data / f"explain_{case.portco}_{case.audience}.json"
    source = data / f"dx_report_{case.portco}.json"
    args: dict[str, Any] = {"memo_json_path": str(memo), "source_json_path": str(source)}
    if case.spec:
        args["thresholds"] = case.spec

    async def go() -> Any:
        async with Client(build_server([data.parent], record=False)) as client:
            return await client.call_tool("eval_pe_output", args)

    result = asyncio.run(go())
    assert not result.is_error, result.content[0].text
    shown = parse_text(result.content[1].text)
    seed = result.structured_content
    assert {d: fmt_pct(seed["scores"][d]) for d in DIMENSIONS} == shown.scores
    return shown


def dashboard(data: Path, case: Case) -> dict[str, Shown]:
    from streamlit.testing.v1 import AppTest

    from pe_eval_core.memo import grade_memo
    from pe_eval_core.memo.verdict import VerdictThresholds
    from ui import state
    from ui.views import scorecard

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state[state.Sidebar.DATA_DIR] = str(data)
    at.session_state[state.Scorecard.PORTCO] = case.portco
    at.session_state[state.Scorecard.AUDIENCE] = case.audience
    at.session_state[state.Scorecard.VERDICT_SPEC_KEPT] = case.spec or ""
    at.run()
    assert not at.exception
    box = next(b.value for b in (*at.success, *at.error) if b.value.startswith("**Ready")
               or b.value.startswith("**Not ready"))  # fmt: skip
    headline = box.split("**")[1].rstrip(".")
    n_issues = sum(1 for line in box.splitlines() if line.startswith("- "))
    tiles = {m.label: m.value for m in at.metric}
    scores = {d: tiles[label] for d, label in DIMENSION_LABELS.items()}
    shown = {"dashboard scorecard": Shown(headline, n_issues, scores)}

    # the download buttons' bytes, from the functions the buttons are given
    ev = grade_memo(data / f"explain_{case.portco}_{case.audience}.json",
                    data / f"dx_report_{case.portco}.json")  # fmt: skip
    t = VerdictThresholds.from_spec(case.spec)
    shown["dashboard html download"] = parse_html(scorecard.scorecard_html(ev, t))
    shown["dashboard json download"] = from_summary(json.loads(scorecard.scorecard_json(ev, t))
                                                    ["verdict"])  # fmt: skip

    at.switch_page("app_pages/portfolio.py")
    at.run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    [row] = table[(table.portco == case.portco) & (table.audience == case.audience)].to_dict(
        "records"
    )
    points = {d: f"{pct_points(row[d] / 100):g}%" for d in DIMENSIONS}  # shown as %g%%
    count = re.match(r"Not ready: (\d+) issues?$", row["verdict"])
    shown["dashboard portfolio"] = Shown(row["verdict"], int(count.group(1)) if count else 0,
                                         points)  # fmt: skip
    ready = sum(1 for v in table["verdict"] if v == READY)
    assert {m.label: m.value for m in at.metric}["Ready to circulate"] == str(ready)
    return shown


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.portco}/{c.audience} {c.spec}")
def test_every_surface_shows_the_same_verdict_issues_and_scores(
    data: Path, case: Case, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = cli(data, case, capsys)
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
