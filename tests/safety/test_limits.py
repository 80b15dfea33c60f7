"""Limits (issue 14, class 5): every limit in ``pe_eval_core.limits`` refuses an input over it
with ``InputLimitError`` naming the field and the limit's variable, on the library, the CLI
(exit 2, no traceback, nothing written) and the MCP tools; an input at the limit still passes.

Inputs are generated here (never committed); the issue's own case, a 2 MB memo of ``"1% "``,
runs at the default limits. Timings live in ``benchmarks/bench_hostile.py``, not here."""

from __future__ import annotations

import asyncio
import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest

from pe_eval_core import limits
from pe_eval_core.cli.main import main
from pe_eval_core.errors import InputLimitError, LimitConfigError
from pe_eval_core.mcp_server import PeEvalTools
from pe_eval_core.memo import grade_memo
from pe_eval_core.scenarios import load_recorded, load_scenarios

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "finance_output"
MIMIC = REPO / ".mimic" / "exports"
MEMO = "explain_MortgageCo_board.json"
SOURCE = "dx_report_MortgageCo.json"


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    for lim in limits.ALL:
        monkeypatch.delenv(lim.env, raising=False)


def _pair(tmp_path: Path, mutate=None) -> Path:
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    shutil.copy(DATA / SOURCE, d / SOURCE)
    memo = json.loads((DATA / MEMO).read_text())
    if mutate:
        mutate(memo)
    (d / MEMO).write_text(json.dumps(memo))
    return d


def _cli(capsys, args):
    rc = main(args)
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text
    return rc, text


def _ones(n_chars: int) -> str:
    return "1% " * (n_chars // 3)


def _narrative(text: str):
    def mutate(memo):
        memo["opportunities_explained"][0]["narrative"] = text

    return mutate


def _blocks(text: str, size: int):
    def mutate(memo):
        first = memo["opportunities_explained"][0]
        memo["opportunities_explained"] = [
            {**first, "narrative": text[i : i + size], "counterfactual": "", "rollout": ""}
            for i in range(0, len(text), size)
        ]

    return mutate


def _grade_refused(d: Path, capsys, field: str, env: str) -> InputLimitError:
    """The library raises InputLimitError naming ``field``; the CLI exits 2 naming ``env``
    and writes nothing; the MCP tool raises the same error."""
    with pytest.raises(InputLimitError) as err:
        grade_memo(d / MEMO, d / SOURCE)
    assert err.value.field == field and err.value.input == "memo"
    assert env in err.value.fix and "--" not in err.value.fix
    rc, text = _cli(capsys, ["memo", "--memo", str(d / MEMO), "--source", str(d / SOURCE)])
    assert rc == 2 and field in text and env in text, text
    with pytest.raises(InputLimitError):
        PeEvalTools([d], record=False).eval_pe_output(str(d / MEMO), str(d / SOURCE))
    assert not list(d.glob("eval_*")) and not list(d.glob(".*"))
    return err.value


def test_the_issues_2mb_memo_of_one_percent_is_refused_at_the_default_limits(tmp_path, capsys):
    d = _pair(tmp_path, _narrative(_ones(2_000_000)))
    field = "opportunities_explained[0].narrative"
    err = _grade_refused(d, capsys, field, "PE_EVAL_MAX_PROSE_CHARS")
    assert "1,999,998 characters" in err.message and "100,000" in err.message


def test_the_same_bytes_spread_over_legal_blocks_hit_the_figures_limit(tmp_path, capsys):
    d = _pair(tmp_path, _blocks(_ones(2_000_000), 50_000))
    err = _grade_refused(d, capsys, "opportunities_explained", "PE_EVAL_MAX_FIGURES")
    assert "150,000" in err.message


def test_repeated_blocks_count_every_repeat(tmp_path, monkeypatch):
    # The parser reads a repeated text once; the limit still counts each block it is in.
    one = "Leakage of 1% and 2% and 3%."
    d = _pair(tmp_path, lambda m: m.update(opportunities_explained=[
        {**m["opportunities_explained"][0], "narrative": one, "counterfactual": "",
         "risk_of_inaction": "", "rollout": ""}] * 40))  # fmt: skip
    monkeypatch.setenv("PE_EVAL_MAX_FIGURES", "100")
    with pytest.raises(InputLimitError, match="figures and entities"):
        grade_memo(d / MEMO, d / SOURCE)
    monkeypatch.setenv("PE_EVAL_MAX_FIGURES", "120")  # 40 blocks x 3 figures: at the limit
    grade_memo(d / MEMO, d / SOURCE)


def test_findings_limit(tmp_path, capsys, monkeypatch):
    d = _pair(tmp_path, _narrative("We cite 7.77% and 8.88% and 9.99% and 6.66% here."))
    monkeypatch.setenv("PE_EVAL_MAX_FINDINGS", "3")
    _grade_refused(d, capsys, "opportunities_explained", "PE_EVAL_MAX_FINDINGS")
    monkeypatch.setenv("PE_EVAL_MAX_FINDINGS", "1000")
    assert len(grade_memo(d / MEMO, d / SOURCE).findings) >= 4


def test_prose_limit_is_exact(tmp_path, monkeypatch):
    d = _pair(tmp_path, _narrative("x" * 500))
    monkeypatch.setenv("PE_EVAL_MAX_PROSE_CHARS", "500")
    grade_memo(d / MEMO, d / SOURCE)  # at the limit: graded
    monkeypatch.setenv("PE_EVAL_MAX_PROSE_CHARS", "499")
    with pytest.raises(InputLimitError, match=r"500 characters .* limit of 499"):
        grade_memo(d / MEMO, d / SOURCE)


@pytest.mark.parametrize("which", ["memo", "source"])
def test_input_file_size_is_checked_before_reading(tmp_path, capsys, monkeypatch, which):
    d = _pair(tmp_path)
    if which == "source":  # a memo smaller than the source, so only the source is over
        shutil.copy(DATA / SOURCE, d / SOURCE)
    size = (d / (MEMO if which == "memo" else SOURCE)).stat().st_size
    assert (d / MEMO).stat().st_size < (d / SOURCE).stat().st_size
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", str(size - 1))
    real = Path.read_bytes

    def no_read(self):
        assert self.name != which_name, f"{self.name} was read"
        return real(self)

    which_name = MEMO if which == "memo" else SOURCE
    monkeypatch.setattr(Path, "read_bytes", no_read)  # refused before a byte is read
    with pytest.raises(InputLimitError) as err:
        grade_memo(d / MEMO, d / SOURCE)
    assert err.value.input == which and err.value.field == "(file)"
    monkeypatch.undo()
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", str(size - 1))
    rc, text = _cli(capsys, ["memo", "--memo", str(d / MEMO), "--source", str(d / SOURCE)])
    assert rc == 2 and "PE_EVAL_MAX_INPUT_BYTES" in text
    assert f"option --{which}" in text
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", str((d / SOURCE).stat().st_size))
    grade_memo(d / MEMO, d / SOURCE)  # both at or under the limit


def _scenarios(tmp_path: Path, n: int) -> Path:
    base = json.loads((MIMIC / "mimic-scenarios.json").read_text())[0]
    p = tmp_path / "scen.json"
    p.write_text(json.dumps([{**base, "name": f"s{i}"} for i in range(n)]))
    return p


def test_scenarios_per_file_and_scenario_file_size(tmp_path, capsys, monkeypatch):
    p = _scenarios(tmp_path, 3)
    monkeypatch.setenv("PE_EVAL_MAX_SCENARIOS", "3")
    assert len(load_scenarios(p)) == 3
    monkeypatch.setenv("PE_EVAL_MAX_SCENARIOS", "2")
    with pytest.raises(InputLimitError, match="3 is over the scenarios per file limit of 2"):
        load_scenarios(p)
    rc, text = _cli(capsys, ["scenarios", "run", "--target", "recorded", "--scenarios", str(p),
                             "--no-judge", "--out", str(tmp_path / "out")])  # fmt: skip
    assert rc == 2 and "PE_EVAL_MAX_SCENARIOS" in text and "option --scenarios" in text
    assert not (tmp_path / "out").exists()
    monkeypatch.delenv("PE_EVAL_MAX_SCENARIOS")
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", "100")
    with pytest.raises(InputLimitError) as err:
        load_scenarios(p)
    assert err.value.input == "scenarios"


def test_response_length_and_responses_file_size(tmp_path, capsys, monkeypatch):
    p = tmp_path / "resp.json"
    p.write_text(json.dumps([{"name": "a", "response": "x" * 50}, {"name": "b", "response": "ok"}]))
    monkeypatch.setenv("PE_EVAL_MAX_RESPONSE_CHARS", "50")
    assert len(load_recorded(p)) == 2
    monkeypatch.setenv("PE_EVAL_MAX_RESPONSE_CHARS", "49")
    with pytest.raises(InputLimitError) as err:
        load_recorded(p)
    assert err.value.field == "response of scenario 'a'" and err.value.input == "responses"
    monkeypatch.delenv("PE_EVAL_MAX_RESPONSE_CHARS")
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", "10")
    with pytest.raises(InputLimitError):
        load_recorded(p)
    tools = PeEvalTools([tmp_path], record=False)
    with pytest.raises(InputLimitError):
        tools.score_scenarios(str(_scenarios(tmp_path, 1)), str(p))


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1e9"])
def test_a_bad_limit_setting_is_a_typed_error(tmp_path, capsys, monkeypatch, value):
    d = _pair(tmp_path)
    monkeypatch.setenv("PE_EVAL_MAX_FIGURES", value)
    with pytest.raises(LimitConfigError, match="PE_EVAL_MAX_FIGURES"):
        grade_memo(d / MEMO, d / SOURCE)
    rc, text = _cli(capsys, ["memo", "--memo", str(d / MEMO), "--source", str(d / SOURCE)])
    assert rc == 2 and "PE_EVAL_MAX_FIGURES" in text


def test_underscored_limit_values_are_read(monkeypatch):
    monkeypatch.setenv("PE_EVAL_MAX_SCENARIOS", "50_000")
    assert limits.SCENARIOS.value() == 50_000


def test_demo_data_grades_at_the_default_limits():
    for memo in DATA.glob("explain_*.json"):
        portco = memo.stem.split("_", 1)[1].rsplit("_", 1)[0]
        grade_memo(memo, DATA / f"dx_report_{portco}.json")
    assert len(load_scenarios(MIMIC / "mimic-scenarios.json")) == 19


def test_a_sibling_over_the_size_limit_is_named_not_read(tmp_path, monkeypatch):
    d = _pair(tmp_path)
    sibling = json.loads((DATA / "explain_MortgageCo_operator.json").read_text())
    sibling["padding"] = " " * 20_000
    (d / "explain_MortgageCo_operator.json").write_text(json.dumps(sibling))
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", "10000")  # memo and source are under it
    ev = grade_memo(d / MEMO, d / SOURCE)
    notes = [f.message for f in ev.findings if f.kind == "unreadable_sibling"]
    assert any("explain_MortgageCo_operator.json" in n and "input file size" in n for n in notes)


class _LongAgent(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"text": "$4,820 " * 300}).encode()  # 2,100 characters
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize(("cap", "errors"), [(1000, 2), (5000, 0)])
def test_a_live_response_over_the_limit_is_an_error_not_scored(tmp_path, capsys, monkeypatch,
                                                                cap, errors):  # fmt: skip
    monkeypatch.setenv("PE_EVAL_MAX_RESPONSE_CHARS", str(cap))
    scen = tmp_path / "s.json"
    scen.write_text(json.dumps(json.loads((MIMIC / "mimic-scenarios.json").read_text())[:2]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _LongAgent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/chat"
        args = ["--target", "http", "--agent-url", url, "--scenarios", str(scen), "--no-judge"]
        rc, text = _cli(capsys, ["scenarios", "run", *args, "--out", str(tmp_path / "out")])
    finally:
        server.shutdown()
    assert rc in (0, 1), text
    results = json.loads((tmp_path / "out" / "report.json").read_text())["results"]
    cut = [r for r in results if "over the response length limit of 1,000" in (r["error"] or "")]
    assert len(cut) == errors and all(r["status"] != "pass" and not r["response"] for r in cut)
    if not errors:
        assert all(r["response"] for r in results)


class _EndlessAgent(http.server.BaseHTTPRequestHandler):
    """Streams a reply far over the cap; counts how much it managed to send."""

    sent = 0

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        chunk = b"9" * 65536
        try:
            self.wfile.write(b'{"text": "')
            for _ in range(2000):  # 128 MB if it were all read
                self.wfile.write(chunk)
                type(self).sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


def test_a_huge_live_reply_is_refused_without_reading_it_all(monkeypatch):
    from pe_eval_core.scenarios.agent.targets import HttpTarget, reply_byte_cap
    from tests.helpers.scenario_helpers import make_scenario

    monkeypatch.setenv("PE_EVAL_MAX_RESPONSE_CHARS", "1000")
    assert reply_byte_cap() == 8000
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EndlessAgent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        target = HttpTarget(f"http://127.0.0.1:{server.server_port}/chat")
        response = asyncio.run(target.respond(make_scenario(response_contains=["x"])))
    finally:
        server.shutdown()
    assert response.text is None
    assert "over 8,000 bytes" in (response.error or "") and "PE_EVAL_MAX_RESPONSE_CHARS" in (
        response.error or ""
    )
    assert _EndlessAgent.sent < 64 * 1024 * 1024  # the client hung up long before the end


def test_the_prose_limit_names_the_first_long_field_declared_or_extra(monkeypatch) -> None:
    """``_check_prose_length`` skips an entry whose every text is short (its fast path) and
    names the first field over the limit, as reading every field did: declared fields in
    model order, then extra keys; generated entries, compared with that reading."""
    import random

    from pe_eval_core.memo.loading import _check_prose_length
    from pe_eval_core.memo.models import MemoSidecar

    def first_over(memo: MemoSidecar, cap: int) -> str | None:
        for i, opp in enumerate(memo.opportunities_explained):
            fields = {k: getattr(opp, k) for k in type(opp).model_fields}
            fields.update(opp.model_extra or {})
            for name, value in fields.items():
                if type(value) is str and len(value) > cap:
                    return f"opportunities_explained[{i}].{name}"
        return None

    monkeypatch.setenv("PE_EVAL_MAX_PROSE_CHARS", "40")
    rng = random.Random(7)
    names = ("narrative", "counterfactual", "risk_of_inaction", "rollout", "note", "extra_text")
    refused = 0
    for _ in range(300):
        entries = [
            {"id": f"o{j}", **{n: "x" * rng.choice((0, 5, 40, 41, 90)) for n in names}}
            for j in range(rng.randint(1, 4))
        ]
        memo = MemoSidecar.model_validate(
            {
                "portco_id": "P",
                "audience": "board",
                "total_projected_impact_usd_annual": 1.0,
                "opportunities_explained": entries,
            }
        )
        expected = first_over(memo, 40)
        if expected is None:
            _check_prose_length(memo, Path("m.json"))
            continue
        refused += 1
        with pytest.raises(InputLimitError) as err:
            _check_prose_length(memo, Path("m.json"))
        assert err.value.field == expected
    assert 50 < refused < 300


@pytest.mark.parametrize("bad_env", [False, True])
def test_the_file_size_check_with_one_stat_is_the_two_path_calls(tmp_path, monkeypatch, bad_env):
    """``check_file_size`` (one ``os.stat``) does what ``Path.is_file`` then ``Path.stat`` did
    for every kind of path: a file under and over the limit, a directory, a missing path, a
    path under a file, a link loop, a link to a file, a NUL in the path; with a valid and an
    invalid limit in the environment (the check reads it only where the old one did)."""
    from pe_eval_core.limits import check_file_size

    def old(path):
        try:
            size = Path(path).stat().st_size if Path(path).is_file() else 0
        except (OSError, ValueError):
            return None
        limits.exceeded(limits.INPUT_BYTES, where=str(path), field="(file)", got=size, input="m")
        return None

    def outcome(fn, path):
        try:
            fn(path)
        except (InputLimitError, LimitConfigError) as exc:
            return type(exc).__name__, str(exc)
        return "ok"

    (tmp_path / "small.json").write_text("{}", encoding="utf-8")
    (tmp_path / "big.json").write_text("x" * 64, encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "link.json").symlink_to(tmp_path / "big.json")
    paths = ["small.json", "big.json", "dir", "missing.json", "small.json/under", "loop"]
    paths += ["link.json", "nul\0.json"]
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", "zero" if bad_env else "10")
    outcomes = set()
    for name in paths:
        path = str(tmp_path / name)
        new_outcome = outcome(lambda p: check_file_size(p, input="m"), path)
        assert new_outcome == outcome(old, path), name
        outcomes.add(new_outcome if new_outcome == "ok" else new_outcome[0])
    assert outcomes == ({"LimitConfigError"} if bad_env else {"ok", "InputLimitError"})
