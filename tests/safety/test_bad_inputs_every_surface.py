"""Hostile inputs across every surface (issue 14): each class of bad memo, source or scenarios
file goes through the library, the CLI (a real subprocess), the MCP server (over stdio with the
official client, one session for all cases) and the dashboard's upload (AppTest).

For every case and surface: the error type / exit code (2, never 1), the message names the
field, no traceback text, nothing written in the data folder on an error and nothing anywhere
else in the tree (snapshot before and after), and no ``sk-ant-`` key in any file (the outputs
and the history database are grepped for the canary set as ``ANTHROPIC_API_KEY``).

All cases share one set of lowered limits (``PE_EVAL_MAX_*``), set for every surface, so the
size classes stay small: inputs are generated here, never committed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pe_eval_core.errors import (
    InputLimitError,
    MalformedMemoError,
    MalformedScenariosError,
    MalformedSourceError,
    MemoSchemaError,
    PeEvalError,
    ScenarioSchemaError,
    SourceSchemaError,
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "finance_output"
MIMIC = REPO / ".mimic" / "exports"
MEMO = "explain_MortgageCo_board.json"
SOURCE = "dx_report_MortgageCo.json"
CANARY = "sk-ant-api03-CANARY0123456789abcdefghijKLMNOP"
LIMITS = {
    "PE_EVAL_MAX_INPUT_BYTES": "200000",
    "PE_EVAL_MAX_PROSE_CHARS": "5000",
    "PE_EVAL_MAX_SCENARIOS": "25",
}
ESC = "\x1b]0;pwned\x07\x1b[2J"


def _memo() -> dict[str, Any]:
    return json.loads((DATA / MEMO).read_text())


def _source() -> dict[str, Any]:
    return json.loads((DATA / SOURCE).read_text())


def _opp0(doc: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    doc["opportunities_explained" if "opportunities_explained" in doc else "opportunities"][0][
        key
    ] = value
    return doc


DEEP = "[" * 3000 + "]" * 3000


@dataclass(frozen=True)
class Case:
    """One hostile input: the memo and source texts, what must happen, the field named."""

    name: str
    memo: str
    source: str
    error: type[PeEvalError] | None  # None: graded
    field: str


def _cases() -> list[Case]:
    m, s = json.dumps(_memo()), json.dumps(_source())
    padded = _memo()
    padded["padding"] = " " * 250_000
    return [
        Case("file over the size limit", json.dumps(padded), s, InputLimitError, "(file)"),
        Case(
            "prose block over the limit",
            json.dumps(_opp0(_memo(), "narrative", "1% " * 2000)),
            s,
            InputLimitError,
            "opportunities_explained[0].narrative",
        ),
        Case(
            "lone surrogate in prose",
            json.dumps(_opp0(_memo(), "narrative", "Leak \ud800 of 1%")),
            s,
            MalformedMemoError,
            "opportunities_explained[0].narrative",
        ),
        Case(
            "lone surrogate in a segment value",
            m,
            json.dumps(_opp0(_source(), "segment", {"grade": "A\udfff"})),
            MalformedSourceError,
            "opportunities[0].segment.grade",
        ),
        Case(
            "nesting 3000 deep",
            json.dumps(_opp0(_memo(), "segment", "DEEP")).replace('"DEEP"', DEEP),
            s,
            MalformedMemoError,
            "opportunities_explained[0].segment",
        ),
        Case(
            "an array where an object belongs",
            json.dumps({**_memo(), "opportunities_explained": {"a": 1}}),
            s,
            MemoSchemaError,
            "opportunities_explained",
        ),
        Case(
            "a string where a number belongs",
            m,
            json.dumps(_opp0(_source(), "persistence_score", "high")),
            SourceSchemaError,
            "opportunities[0].persistence_score",
        ),
        Case(
            "an integer beyond float range",
            json.dumps(_memo()).replace(
                '"total_projected_impact_usd_annual": ',
                '"total_projected_impact_usd_annual": ' + "9" * 400 + ', "x": ',
                1,
            ),
            s,
            MemoSchemaError,
            "field 'total_projected_impact_usd_annual'",
        ),
        Case(
            "NaN in the source",
            m,
            json.dumps(_opp0(_source(), "n", "NAN")).replace('"NAN"', "NaN"),
            SourceSchemaError,
            "field 'opportunities[0].n'",
        ),
        Case(
            "terminal escapes in an id (graded)",
            json.dumps(_opp0(_memo(), "id", "X" + ESC)),
            s,
            None,
            "",
        ),
    ]


CASES = _cases()
IDS = [c.name for c in CASES]


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
    for k, v in LIMITS.items():
        monkeypatch.setenv(k, v)


def _write_case(root: Path, case: Case) -> Path:
    d = root / "data"
    d.mkdir(parents=True)
    (d / MEMO).write_text(case.memo)
    (d / SOURCE).write_text(case.source)
    (root / "outside.txt").write_text("untouched")
    return d


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` except the history folder, by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "home" not in p.relative_to(root).parts
    }


def _assert_contained(root: Path, before: dict[str, bytes], case: Case) -> None:
    """On an error nothing changed; when graded only the eval_ pair was added next to it."""
    after = _snapshot(root)
    added = set(after) - set(before)
    if case.error is None:
        assert added == {"data/eval_MortgageCo_board.html", "data/eval_MortgageCo_board.json"}
    else:
        assert added == set(), added
    assert {k: after[k] for k in before} == before
    for p in root.rglob("*"):  # outputs and the history database alike
        if p.is_file():
            assert CANARY.encode() not in p.read_bytes(), p


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text and "\x1b" not in text and "\x07" not in text


# ------------------------------------------------------------------------------ library


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_library(tmp_path, case):
    from pe_eval_core import eval_pe_output

    d = _write_case(tmp_path, case)
    before = _snapshot(tmp_path)
    if case.error is None:
        out = eval_pe_output(d / MEMO, d / SOURCE)
        assert Path(out["report_path"]).is_file()
    else:
        with pytest.raises(case.error) as err:
            eval_pe_output(d / MEMO, d / SOURCE)
        assert case.field in err.value.message
        assert err.value.input in ("memo", "source")
    _assert_contained(tmp_path, before, case)


# ------------------------------------------------------------------------ CLI subprocess


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cli_subprocess(tmp_path, case):
    d = _write_case(tmp_path, case)
    before = _snapshot(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_eval_core", "memo", "--memo", str(d / MEMO),
         "--source", str(d / SOURCE)],
        cwd=tmp_path, capture_output=True, text=True, errors="backslashreplace",
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )  # fmt: skip
    text = proc.stdout + proc.stderr
    _no_traceback(text)
    if case.error is None:  # graded: exit 1 exactly when the verdict is not ready, never 2
        assert proc.returncode == (1 if "Verdict: Not ready" in text else 0), text
        assert "\\x1b" in text  # the escape is shown, not obeyed
    else:
        assert proc.returncode == 2, text
        assert case.field in text
        assert "option --memo" in text or "option --source" in text
    _assert_contained(tmp_path, before, case)


# ----------------------------------------------------------------- MCP server over stdio


def test_mcp_server_over_stdio(tmp_path):
    from mcp import Client, StdioServerParameters

    roots = []
    for i, case in enumerate(CASES):
        roots.append((tmp_path / f"c{i}", case))
        _write_case(tmp_path / f"c{i}", case)
    before = {i: _snapshot(r) for i, (r, _) in enumerate(roots)}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(tmp_path)],
        cwd=str(tmp_path),
        env={**{k: v for k, v in os.environ.items() if k.startswith(("PE_EVAL", "PATH"))},
             "PYTHONPATH": str(REPO), "ANTHROPIC_API_KEY": CANARY},
    )  # fmt: skip

    async def go():
        out = []
        async with Client(params) as client:
            for root, _case in roots:
                d = root / "data"
                out.append(
                    await client.call_tool(
                        "eval_pe_output",
                        {"memo_json_path": str(d / MEMO), "source_json_path": str(d / SOURCE)},
                    )
                )
        return out

    results = asyncio.run(go())
    for i, ((root, case), result) in enumerate(zip(roots, results, strict=True)):
        text = result.content[0].text
        assert "Traceback" not in text, case.name
        if case.error is None:
            assert not result.is_error, text
        else:
            assert result.is_error, case.name
            assert result.structured_content["error"] == case.error.__name__, text
            assert case.field in text, case.name
            assert result.structured_content["argument"] in ("memo_json_path", "source_json_path")
        _assert_contained(root, before[i], case)


# ------------------------------------------------------------ dashboard upload (AppTest)


def test_dashboard_upload(tmp_path):
    sys.path.insert(0, str(REPO))
    from streamlit.testing.v1 import AppTest

    from ui import state

    sc = state.Scorecard
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.session_state[sc.MODE] = "Upload"
    at.run()
    before = _snapshot(tmp_path)
    for case in CASES:
        if case.name == "nesting 3000 deep":
            continue  # its own test: test_dashboard_upload_nested_3000_deep
        uploads = ((sc.MEMO_UPLOAD, MEMO, case.memo), (sc.SOURCE_UPLOAD, SOURCE, case.source))
        for key, name, text in uploads:
            at.file_uploader(key=key).set_value((name, text.encode(), "application/json"))
        at.run()
        assert not at.exception, (case.name, at.exception)
        errors = "\n".join(e.value for e in at.error).replace("\\", "")
        if case.error is None:  # graded: the verdict box, never an input error
            assert "Diagnosis" not in errors and "Not ready" in errors, (case.name, errors)
        else:
            assert case.field.replace("\\", "") in errors, (case.name, errors)
            assert "Traceback" not in errors
    after = _snapshot(tmp_path)
    assert set(after) == set(before)
    for p in tmp_path.rglob("*"):
        if p.is_file():
            assert CANARY.encode() not in p.read_bytes(), p


def test_dashboard_upload_nested_3000_deep(tmp_path):
    sys.path.insert(0, str(REPO))
    from streamlit.testing.v1 import AppTest

    from ui import state

    case = next(c for c in CASES if c.name == "nesting 3000 deep")
    sc = state.Scorecard
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.session_state[sc.MODE] = "Upload"
    at.run()
    at.file_uploader(key=sc.MEMO_UPLOAD).set_value((MEMO, case.memo.encode(), "application/json"))
    at.file_uploader(key=sc.SOURCE_UPLOAD).set_value(
        (SOURCE, case.source.encode(), "application/json")
    )
    at.run()
    errors = "\n".join(e.value for e in at.error).replace("\\", "")
    assert case.field in errors  # the right error is shown ...
    assert not at.exception  # ... and nothing raises after it (no RecursionError)


# ------------------------------------------------------------------- scenario files


def _scenarios() -> list[dict[str, Any]]:
    return json.loads((MIMIC / "mimic-scenarios.json").read_text())


def _scen_with(i: int, key: str, value: Any) -> str:
    s = _scenarios()
    s[i][key] = value
    return json.dumps(s)


SCENARIO_CASES = [
    ("expect is a string", _scen_with(0, "expect", "x"), ScenarioSchemaError, "'expect'"),
    ("expect is an array", _scen_with(0, "expect", ["x"]), ScenarioSchemaError, "'expect'"),
    ("lone surrogate in a name", _scen_with(1, "name", "n\ud800"), MalformedScenariosError,
     "[1].name"),
    ("lone surrogate in a tier", _scen_with(2, "metadata", {"tier": "t\udc00"}),
     MalformedScenariosError, "[2].metadata.tier"),
    ("more scenarios than the limit",
     json.dumps([{**_scenarios()[0], "name": f"s{i}"} for i in range(30)]), InputLimitError,
     "over the scenarios per file limit of 25"),
    ("nesting 3000 deep", DEEP, MalformedScenariosError, "[0][0][0]"),
]  # fmt: skip
SCENARIO_IDS = [c[0] for c in SCENARIO_CASES]


@pytest.mark.parametrize(("name", "text", "error", "field"), SCENARIO_CASES, ids=SCENARIO_IDS)
def test_scenarios_library_and_cli(tmp_path, name, text, error, field):
    from pe_eval_core.scenarios import load_scenarios

    p = tmp_path / "scen.json"
    p.write_text(text)
    with pytest.raises(error) as err:
        load_scenarios(p)
    assert field in err.value.message and err.value.input == "scenarios"
    before = _snapshot(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_eval_core", "scenarios", "run", "--target", "recorded",
         "--scenarios", str(p), "--responses", str(MIMIC / "recorded-responses.json"),
         "--no-judge", "--out", str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, errors="backslashreplace",
        env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    _no_traceback(out)
    assert proc.returncode == 2 and field in out and "option --scenarios" in out, out
    assert _snapshot(tmp_path) == before and not (tmp_path / "out").exists()


def test_scenarios_mcp_and_dashboard(tmp_path):
    from mcp import Client, StdioServerParameters

    paths = []
    for i, (_, text, _, _) in enumerate(SCENARIO_CASES):
        paths.append(tmp_path / f"scen{i}.json")
        paths[-1].write_text(text)
    responses = tmp_path / "resp.json"
    shutil.copy(MIMIC / "recorded-responses.json", responses)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pe_eval_core", "mcp", "--allow-root", str(tmp_path), "--no-record"],
        cwd=str(tmp_path),
        env={**{k: v for k, v in os.environ.items() if k.startswith(("PE_EVAL", "PATH"))},
             "PYTHONPATH": str(REPO)},
    )  # fmt: skip

    async def go():
        async with Client(params) as client:
            return [
                await client.call_tool(
                    "score_scenarios",
                    {"scenarios_path": str(p), "responses_path": str(responses)},
                )
                for p in paths
            ]

    for (name, _, error, field), result in zip(SCENARIO_CASES, asyncio.run(go()), strict=True):
        text = result.content[0].text
        assert result.is_error and "Traceback" not in text, name
        assert result.structured_content["error"] == error.__name__, (name, text)
        assert field in text and result.structured_content["argument"] == "scenarios_path"

    sys.path.insert(0, str(REPO))
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/scenario_eval.py")
    at.session_state[state.Scenarios.MODE] = "Upload"
    at.run()
    for name, text, _, field in SCENARIO_CASES:
        at.file_uploader(key=state.Scenarios.UPLOAD).set_value(
            ("s.json", text.encode(), "application/json")
        )
        at.run()
        assert not at.exception, (name, at.exception)
        errors = "\n".join(e.value for e in at.error).replace("\\", "")
        assert field.replace("\\", "") in errors, (name, errors)
