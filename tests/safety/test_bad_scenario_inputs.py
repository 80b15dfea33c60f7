"""Broken scenario and recorded-response files through the CLI: exit 2 naming the file and the
field, no traceback, no report written; oddities a run can survive become per-scenario errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main

REPO = Path(__file__).resolve().parents[2]
MIMIC = REPO / ".mimic" / "exports"
SCENARIOS = json.loads((MIMIC / "mimic-scenarios.json").read_text(encoding="utf-8"))
RESPONSES = json.loads((MIMIC / "recorded-responses.json").read_text(encoding="utf-8"))


def _copy(obj):
    return json.loads(json.dumps(obj))


def _cli(capsys, args: list[str]) -> tuple[int, str]:
    rc = main(args)
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text
    return rc, text


# ================================================================== scenarios: broken inputs


def _scen_cli(tmp_path, capsys, scen_bytes: bytes, resp_bytes: bytes | None = None):
    s = tmp_path / "scen.json"
    r = tmp_path / "resp.json"
    s.write_bytes(scen_bytes)
    r.write_bytes(json.dumps(RESPONSES).encode() if resp_bytes is None else resp_bytes)
    out = tmp_path / "out"
    rc, text = _cli(
        capsys,
        [
            "scenarios",
            "run",
            "--target",
            "recorded",
            "--scenarios",
            str(s),
            "--responses",
            str(r),
            "--no-judge",
            "--out",
            str(out),
        ],
    )
    written = sorted(p.name for p in out.iterdir()) if out.exists() else []
    return rc, text, written


def _scen(mutate) -> bytes:
    s = _copy(SCENARIOS)
    mutate(s)
    return json.dumps(s).encode()


def _set(path: list, value):
    def mutate(s):
        node = s
        for p in path[:-1]:
            node = node[p]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return mutate


_DELETE = object()

BAD_SCENARIOS = [
    ("malformed", b'[{"name": "x",', ["scen.json", "line 1"]),
    ("empty-file", b"", ["scen.json", "empty"]),
    ("empty-array", b"[]", ["scen.json", "empty"]),
    ("object-without-scenarios", b'{"foo": 1}', ["scen.json", "scenarios"]),
    ("binary", bytes(range(256)), ["scen.json", "UTF-8"]),
    (
        "duplicate-names",
        _scen(lambda s: s[1].update(name=s[0]["name"])),
        ["duplicate", "index 1", SCENARIOS[0]["name"]],
    ),
    (  # no input and no goal to stand in for it (a goal-only scenario sends its goal)
        "missing-input",
        _scen(lambda s: (s[2].pop("input"), s[2].pop("goal", None))),
        ["index 2", "'input'"],
    ),
    (
        "min-gt-max",
        _scen(_set([0, "expect", "numeric_range", "min"], 99999)),
        ["index 0", "numeric_range", "min"],
    ),
    (
        "min-non-numeric",
        _scen(_set([0, "expect", "numeric_range", "min"], "abc")),
        ["index 0", "numeric_range.min"],
    ),
    (
        "contains-as-string",
        _scen(_set([0, "expect", "response_contains"], "$4,820")),
        ["index 0", "response_contains"],
    ),
    (
        "contains-blank-item",
        _scen(_set([0, "expect", "response_contains"], ["  "])),
        ["index 0", "response_contains"],
    ),
    ("expect-null", _scen(_set([0, "expect"], None)), ["index 0", "expect"]),
    ("scenario-is-list", _scen(_set([0], [1])), ["index 0"]),
    ("blank-name", _scen(_set([0, "name"], "")), ["index 0", "name"]),
]


@pytest.mark.parametrize(
    ("scen_bytes", "words"), [pytest.param(b, w, id=i) for i, b, w in BAD_SCENARIOS]
)
def test_bad_scenario_files_exit_2_naming_the_field(tmp_path, capsys, scen_bytes, words):
    rc, text, written = _scen_cli(tmp_path, capsys, scen_bytes)
    assert rc == 2, text
    assert "error:" in text and "diagnosis:" in text and "fix:" in text
    for w in words:
        assert w in text, (w, text)
    assert written == []


def test_unknown_tier_is_kept_under_its_own_name(tmp_path, capsys):
    rc, text, _written = _scen_cli(
        tmp_path, capsys, _scen(_set([0, "metadata", "tier"], "galactic"))
    )
    assert rc == 1
    assert "galactic" in text
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert "galactic" in json.dumps(report)


def test_nan_numeric_bound_is_a_load_error(tmp_path, capsys):
    # Expectation corrected after the fix: a NaN token is not JSON, so the strict reader
    # (files.read_json) now rejects the file first, naming the token and its position; the
    # models refuse non-finite bounds too (checked below), naming the field.
    text = json.dumps(SCENARIOS).replace('"min": 4800', '"min": NaN', 1)
    assert "NaN" in text
    rc, out, written = _scen_cli(tmp_path, capsys, text.encode())
    assert rc == 2, out
    assert "scen.json" in out and "NaN" in out and f"column {text.index('NaN') + 1}" in out
    assert written == []


@pytest.mark.parametrize("bound", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numeric_bound_is_refused_by_the_models(bound):
    from pydantic import ValidationError

    from pe_eval_core.scenarios.models import Scenario

    text = json.dumps(SCENARIOS[0]).replace('"min": 4800', f'"min": {bound}', 1)
    assert bound in text
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate_json(text)
    (err,) = exc.value.errors()
    assert err["loc"] == ("expect", "numeric_range", 0, "min")
    assert "finite" in err["msg"]


BAD_RESPONSES = [
    ("empty", b"", ["resp.json", "empty"]),
    ("object", b'{"a": 1}', ["resp.json", "top level"]),
    ("jsonl-bad-line", None, ["resp.json", "line 4"]),
    (
        "numeric-response",
        json.dumps([{**RESPONSES[0], "response": 42}, *RESPONSES[1:]]).encode(),
        ["[0].response"],
    ),
    ("duplicate", json.dumps([*RESPONSES, RESPONSES[0]]).encode(), ["duplicate", "[19]"]),
]


@pytest.mark.parametrize(
    ("resp_bytes", "words"), [pytest.param(b, w, id=i) for i, b, w in BAD_RESPONSES]
)
def test_bad_recorded_responses_exit_2(tmp_path, capsys, resp_bytes, words):
    if resp_bytes is None:
        lines = [json.dumps(r) for r in RESPONSES]
        lines[3] = '{"name": bad'
        resp_bytes = "\n".join(lines).encode()
    rc, text, written = _scen_cli(tmp_path, capsys, json.dumps(SCENARIOS).encode(), resp_bytes)
    assert rc == 2, text
    for w in words:
        assert w in text, (w, text)
    assert written == []


def test_missing_and_null_responses_are_scenario_errors_not_crashes(tmp_path, capsys):
    missing = SCENARIOS[2]["name"]
    responses = [_copy(r) for r in RESPONSES if r["name"] != missing]
    responses[0]["response"] = None
    responses[0].pop("error", None)
    rc, _text, written = _scen_cli(
        tmp_path, capsys, json.dumps(SCENARIOS).encode(), json.dumps(responses).encode()
    )
    assert rc == 1
    assert "report.json" in written
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    by_name = {r["name"]: r for r in report["results"]}
    assert by_name[missing]["status"] == "error"
    assert missing in by_name[missing]["error"]
    null_one = by_name[responses[0]["name"]]
    assert null_one["status"] == "error" and null_one["error"]


def test_scenario_asserting_nothing_is_an_error(tmp_path, capsys):
    def mutate(s):
        s[0]["expect"] = {"response_contains": []}

    _scen_cli(tmp_path, capsys, _scen(mutate))
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    first = report["results"][0]
    assert first["status"] == "error"
    assert "asserts nothing" in first["error"]
