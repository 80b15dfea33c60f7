"""Read Mimic scenario files and recorded-response files, with errors that name what is wrong.

Scenarios, in every shape Mimic writes:

- the native export (``mimic test --export mimic``): a JSON array, or a ``{"scenarios":
  [...]}`` wrapper;
- ``mimic.json``: its ``test.scenarios``, plain strings (the string is the name and the goal)
  and objects; ``persona`` defaults to the config's first persona, else ``"default"``, as
  Mimic does. A config whose ``test`` holds no scenarios (``auto_scenarios`` only) is an
  error saying how to export them;
- the legacy ``test-scenarios.json``: an array of ``{name, persona, goal, expect}``.

A goal-only scenario sends its goal as the input, with a note. Unknown expectation keys and
other things the scorer cannot check are listed in ``LoadedScenarios.warnings``.

Recorded responses: a JSON array (or ``{"responses": [...]}``) or JSON Lines of ``{name,
response, latency_ms?, error?}``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from pe_eval_core import limits
from pe_eval_core.errors import (
    DuplicateScenarioError,
    EmptyScenariosError,
    MalformedRecordedError,
    MalformedScenariosError,
    RecordedResponsesNotFoundError,
    RecordedSchemaError,
    ScenarioSchemaError,
    ScenariosNotExportedError,
    ScenariosNotFoundError,
)
from pe_eval_core.files import (
    atomic_write_text,
    check_path_text,
    parse_json_text,
    read_bytes,
    read_json,
)
from pe_eval_core.scenarios.models import RecordedResponse, Scenario

PathLike = str | os.PathLike[str]


class LoadedScenarios(list[Scenario]):
    """The scenarios of a file, in order (a ``list``), plus ``warnings``: what the loader
    could not check or had to change (unknown expectation keys, goal used as input, plain
    strings that assert nothing), one sentence each naming the scenario."""

    def __init__(self, scenarios: Iterable[Scenario] = (), warnings: Iterable[str] = ()):
        super().__init__(scenarios)
        self.warnings: list[str] = list(warnings)


def load_scenarios(path: PathLike) -> LoadedScenarios:
    """Load and validate every scenario in ``path``; raise a specific error on the first problem.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> _ = p.write_text(json.dumps({"scenarios": [{"name": "a", "input": "hi",
    ...     "expect": {"response_contains": ["x"]}, "metadata": {"tier": "chaos"}}]}))
    >>> [(s.name, s.tier) for s in load_scenarios(p)]
    [('a', 'chaos')]
    """
    p = check_path_text(path, "scenarios")
    limits.check_file_size(p, input="scenarios")
    if p.is_file() and not read_bytes(p, ScenariosNotFoundError).strip():
        raise EmptyScenariosError(f"{p} is empty")
    data = read_json(p, not_found=ScenariosNotFoundError, malformed=MalformedScenariosError)
    items, persona = _unwrap_scenarios(data, str(p))
    if not items:
        raise EmptyScenariosError(f"{p} holds an empty list of scenarios")
    limits.exceeded(limits.SCENARIOS, where=str(p), field="scenarios", got=len(items),
                    input="scenarios")  # fmt: skip
    return _validate_scenarios(items, p, persona)


def _normalise(item: Any, i: int, p: Path, persona: str | None) -> dict[str, Any]:
    """One scenario entry as the ``Scenario`` model reads it (strings, defaults, checks)."""
    if isinstance(item, str):
        if not item.strip():
            raise ScenarioSchemaError(str(p), "(scenario)", "a blank string names nothing", index=i)
        item = {"name": item, "goal": item}
    if not isinstance(item, dict):
        raise ScenarioSchemaError(
            str(p), "(scenario)", f"expected an object or a string, got {_kind(item)}", index=i
        )
    name = item.get("name") if isinstance(item.get("name"), str) else None
    for key in ("expect", "metadata"):
        if key in item and item[key] is not None and not isinstance(item[key], dict):
            raise ScenarioSchemaError(
                str(p), key, f"expected an object, got {_kind(item[key])}", index=i, name=name
            )
    out = dict(item)
    if persona is not None and not out.get("persona"):
        out["persona"] = persona
    meta = dict(out.get("metadata") or {})
    for key in ("tier", "source_fact", "platform"):  # Mimic's in-memory shape keeps them on top
        if key not in meta and isinstance(out.get(key), str):
            meta[key] = out[key]
    if meta:
        out["metadata"] = meta
    return out


def _warnings(scenario: Scenario, plain: bool) -> list[str]:
    who = f"scenario {scenario.name!r}"
    out = [f"{who}: {note}" for note in scenario.load_notes]
    if plain and not scenario.expect.asserts_something():
        out.append(f"{who}: a plain-string scenario asserts nothing; it reports an error")
    return out


def _validate_scenarios(items: list[Any], p: Path, persona: str | None = None) -> LoadedScenarios:
    scenarios = LoadedScenarios()
    first_index: dict[str, int] = {}
    for i, raw in enumerate(items):
        item = _normalise(raw, i, p, persona)
        name = item.get("name") if isinstance(item.get("name"), str) else None
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as exc:
            field, detail = _first_error(exc)
            expect = item.get("expect")
            if isinstance(expect, dict) and isinstance(expect.get("numeric_range"), dict):
                field = field.replace("numeric_range[0]", "numeric_range")
            raise ScenarioSchemaError(str(p), field, detail, index=i, name=name) from None
        if scenario.name in first_index:
            raise DuplicateScenarioError(
                str(p),
                "name",
                f"duplicate of scenario #{first_index[scenario.name] + 1} "
                f"(index {first_index[scenario.name]})",
                index=i,
                name=scenario.name,
            )
        first_index[scenario.name] = i
        phrases = len(scenario.expect.response_contains) + len(scenario.expect.response_excludes)
        limits.exceeded(limits.EXPECTED, where=str(p), field=f"scenario {scenario.name!r}",
                        got=phrases, input="scenarios")  # fmt: skip
        scenarios.append(scenario)
        scenarios.warnings.extend(_warnings(scenario, isinstance(raw, str)))
    return scenarios


_CONFIG_KEYS = frozenset({"personas", "databases", "apis", "llm", "domain", "test", "generate"})
"""Top-level keys of a ``mimic.json`` config (any two, or ``test``, mark one)."""


def _default_persona(config: dict[str, Any]) -> str:
    """Mimic's default persona for ``test.scenarios``: the first persona's name, else "default"."""
    personas = config.get("personas")
    if isinstance(personas, list) and personas:
        first = personas[0]
        name = first.get("name") if isinstance(first, dict) else first
        if isinstance(name, str) and name.strip():
            return name
    return "default"


def _unwrap_scenarios(data: Any, path: str) -> tuple[list[Any], str | None]:
    """The scenario entries and, for a ``mimic.json`` config, the default persona."""
    if isinstance(data, list):
        return data, None
    if isinstance(data, dict):
        if "scenarios" not in data and ("test" in data or len(_CONFIG_KEYS & set(data)) >= 2):
            return _config_scenarios(data, path), _default_persona(data)
        if "scenarios" in data:
            if isinstance(data["scenarios"], list):
                return data["scenarios"], None
            raise ScenarioSchemaError(
                path, "scenarios", f"expected a list, got {_kind(data['scenarios'])}"
            )
        raise ScenarioSchemaError(
            path,
            "(top level)",
            'expected a JSON array of scenarios or an object with a "scenarios" list; '
            f"found an object with keys {sorted(data)[:8]}",
        )
    raise ScenarioSchemaError(
        path, "(top level)", f"expected a JSON array of scenarios, got {_kind(data)}"
    )


def _config_scenarios(config: dict[str, Any], path: str) -> list[Any]:
    """``test.scenarios`` of a ``mimic.json``; a config without any says how to export them."""
    test = config.get("test")
    if test is not None and not isinstance(test, dict):
        raise ScenarioSchemaError(path, "test", f"expected an object, got {_kind(test)}")
    test = test or {}
    listed = test.get("scenarios")
    if listed is not None and not isinstance(listed, list):
        raise ScenarioSchemaError(path, "test.scenarios", f"expected a list, got {_kind(listed)}")
    if listed:
        return listed
    auto = " (it sets auto_scenarios: Mimic generates them at test time)" * bool(
        test.get("auto_scenarios")
    )
    raise ScenariosNotExportedError(
        f"{path} is a mimic.json config with no test.scenarios{auto}; export the generated "
        "scenarios to a file and load that"
    )


def load_recorded(path: PathLike) -> dict[str, RecordedResponse]:
    """Load a recorded-responses file (JSON array, wrapper object, or JSON Lines) by name.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = p.write_text('{"name": "a", "response": "ok", "latency_ms": 12}\\n'
    ...                  '{"name": "b", "error": "HTTP 500"}\\n')
    >>> rec = load_recorded(p)
    >>> rec["a"].response, rec["a"].latency_ms, rec["b"].error
    ('ok', 12.0, 'HTTP 500')
    """
    p = check_path_text(path, "responses")
    if not p.is_file():
        what = "is a directory, not a file" if p.is_dir() else "does not exist"
        raise RecordedResponsesNotFoundError(f"{p} {what}")
    limits.check_file_size(p, input="responses")
    try:
        text = read_bytes(p, RecordedResponsesNotFoundError).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MalformedRecordedError(str(p), 1, exc.start + 1, "file is not UTF-8 text") from exc
    if not text.strip():
        raise RecordedSchemaError(str(p), "(file)", "the file is empty")
    recorded = _validate_recorded(_parse_json_or_jsonl(text, str(p)), p)
    limits.check_responses(recorded.values(), where=str(p), input="responses")
    return recorded


def _validate_recorded(rows: list[tuple[Any, str]], p: Path) -> dict[str, RecordedResponse]:
    out: dict[str, RecordedResponse] = {}
    for row, where in rows:
        if not isinstance(row, dict):
            raise RecordedSchemaError(str(p), f"{where}", f"expected an object, got {_kind(row)}")
        try:
            rec = RecordedResponse.model_validate(row)
        except ValidationError as exc:
            field, detail = _first_error(exc)
            raise RecordedSchemaError(str(p), f"{where}.{field}", detail) from None
        if rec.name in out:
            raise RecordedSchemaError(
                str(p), f"{where}.name", f"duplicate response for scenario {rec.name!r}"
            )
        out[rec.name] = rec
    return out


def _parse_json_or_jsonl(text: str, path: str) -> list[tuple[Any, str]]:
    """Rows with a location label each (``[3]`` for JSON arrays, ``line 4`` for JSON Lines)."""
    try:
        data = parse_json_text(text)  # strict: NaN and Infinity are errors with a position
    except json.JSONDecodeError as whole:
        if whole.msg != "Extra data":
            raise MalformedRecordedError(path, whole.lineno, whole.colno, whole.msg) from None
        rows = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((parse_json_text(line), f"line {lineno}"))
            except json.JSONDecodeError as exc:
                raise MalformedRecordedError(path, lineno, exc.colno, exc.msg) from None
        return rows
    if isinstance(data, dict) and isinstance(data.get("responses"), list):
        data = data["responses"]
    elif isinstance(data, dict) and "name" in data:
        data = [data]  # a one-line JSON Lines file
    if not isinstance(data, list):
        raise RecordedSchemaError(
            path,
            "(top level)",
            f'expected a JSON array, {{"responses": [...]}} or JSON Lines, got {_kind(data)}',
        )
    return [(row, f"[{i}]") for i, row in enumerate(data)]


def write_recorded(path: PathLike, responses: Iterable[RecordedResponse]) -> Path:
    """Save responses atomically as a JSON array that ``load_recorded`` reads back."""
    rows = _RECORDED_LIST.dump_json(list(responses), indent=2).decode("utf-8")
    return atomic_write_text(path, rows + "\n")


_RECORDED_LIST: TypeAdapter[list[RecordedResponse]] = TypeAdapter(list[RecordedResponse])
"""Serialises a recorded file in pydantic's serializer (the same JSON as ``json.dumps`` with
``indent=2``, without Python's slow pure-Python indenting encoder)."""


def _first_error(exc: ValidationError) -> tuple[str, str]:
    """The dotted field path and message of a pydantic error, e.g. ``expect.numeric_range.min``."""
    err = exc.errors(include_url=False)[0]
    parts = [str(x) if not isinstance(x, int) else f"[{x}]" for x in err["loc"]]
    field = ".".join(parts).replace(".[", "[") or "(object)"
    msg = err["msg"]
    if err["type"] == "missing":
        msg = "required field is missing"
    elif "input" in err and err["type"] not in ("value_error", "assertion_error"):
        msg += f" (got {_kind(err['input'])})"
    return field, msg


def _kind(value: Any) -> str:
    """A short description of a JSON value's type for error messages.

    >>> _kind([1]), _kind(None), _kind("x")
    ('a list', 'null', 'a string')
    """
    if value is None:
        return "null"
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    for t, label in names.items():
        if isinstance(value, t):
            return label
    return "a number" if isinstance(value, int | float) else type(value).__name__
