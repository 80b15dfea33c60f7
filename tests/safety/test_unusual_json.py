"""Valid but unusual JSON (issue 14, class 6): every field of a memo and a source replaced by
each wrong kind of value either grades or raises a typed error naming that field, never
another exception; what is graded can be written (HTML, JSON, CSV). A live agent's lone
surrogate and terminal escapes end up in readable reports and never on the terminal."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import EmptyMemoError, InvalidNameError, PeEvalError
from pe_eval_core.memo import findings_to_csv, grade_memo, write_outputs

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "finance_output"
MIMIC = REPO / ".mimic" / "exports"
MEMO = json.loads((DATA / "explain_MortgageCo_board.json").read_text())
SOURCE = json.loads((DATA / "dx_report_MortgageCo.json").read_text())
WRONG = {
    "array": [],
    "object": {},
    "string": "x",
    "null": None,
    "bool": True,
    "array of objects": [{}],
    "huge int": "HUGE",
}


def _paths(value: Any, loc: tuple = ()) -> list[tuple]:
    """Every location in ``value`` (only the first element of each list)."""
    out = [loc] if loc else []
    if isinstance(value, dict):
        for k, child in value.items():
            out += _paths(child, (*loc, k))
    elif isinstance(value, list) and value:
        out += _paths(value[0], (*loc, 0))
    return out


CASES = [
    (which, loc, kind)
    for which, doc in (("memo", MEMO), ("source", SOURCE))
    for loc in _paths(doc)
    for kind in WRONG
]


def _set(doc: Any, loc: tuple, value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    target = doc
    for part in loc[:-1]:
        target = target[part]
    target[loc[-1]] = value
    return doc


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")


def test_every_field_with_every_wrong_kind_grades_or_names_the_field(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    memo, source = d / "explain_MortgageCo_board.json", d / "dx_report_MortgageCo.json"
    unnamed, graded = [], 0
    for which, loc, kind in CASES:
        doc = _set(MEMO if which == "memo" else SOURCE, loc, WRONG[kind])
        text = json.dumps(doc).replace('"HUGE"', "9" * 400)
        memo.write_text(text if which == "memo" else json.dumps(MEMO))
        source.write_text(text if which == "source" else json.dumps(SOURCE))
        try:
            ev = grade_memo(memo, source)
        except (EmptyMemoError, InvalidNameError):
            continue  # no opportunities left / a name that cannot be a file name: not a field
        except PeEvalError as err:
            last = loc[-1] if isinstance(loc[-1], str) else f"[{loc[-1]}]"
            if last not in err.message or err.input != which:
                unnamed.append((which, loc, kind, err.message[-120:]))
            continue
        write_outputs(ev)  # what grades can be written
        findings_to_csv(ev)
        graded += 1
    assert not unnamed, unnamed[:5]
    assert graded > 20  # tolerated oddities (a null prose block, a string id) still grade


# ----------------------------------------------------------------- a live agent's text


class _Agent(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b'{"text": "Lost \\ud800 $4,820 \\u001b]0;pwned\\u0007\\u001b[2J"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_live_agent_surrogate_and_escape(tmp_path, capsys):
    scenarios = tmp_path / "s.json"
    scenarios.write_text(json.dumps(json.loads((MIMIC / "mimic-scenarios.json").read_text())[:3]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Agent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        rc = main(["scenarios", "run", "--target", "http", "--agent-url",
                   f"http://127.0.0.1:{server.server_port}/chat", "--scenarios", str(scenarios),
                   "--no-judge", "--out", str(tmp_path / "out")])  # fmt: skip
    finally:
        server.shutdown()
    out = capsys.readouterr()
    text = out.out + out.err
    assert rc == 1, text  # evaluated, scenarios failed: a quality result
    assert "Traceback" not in text and "\x1b" not in text and "\x07" not in text
    for name in ("report.md", "report.json", "report.csv", "junit.xml", "responses.json"):
        if name in ("report.csv", "junit.xml"):  # hold no response text
            (tmp_path / "out" / name).read_bytes().decode("utf-8")
            continue
        body = (tmp_path / "out" / name).read_bytes().decode("utf-8")  # valid UTF-8
        assert "Lost" in body, name
        assert "\ud800" not in body
    assert "\ufffd" in (tmp_path / "out" / "report.md").read_text()
