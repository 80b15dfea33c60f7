"""Read Mimic scenario files and recorded-response files, with errors that name what is wrong.

Scenarios: Mimic's native JSON array, or a ``{"scenarios": [...]}`` wrapper (also nested under
``"test"``, as in ``mimic.json``). Recorded responses: a JSON array (or ``{"responses": [...]}``)
or JSON Lines of ``{name, response, latency_ms?, error?}``.
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


def load_scenarios(path: PathLike) -> list[Scenario]:
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
    items = _unwrap_scenarios(data, str(p))
    if not items:
        raise EmptyScenariosError(f"{p} holds an empty list of scenarios")
    limits.exceeded(limits.SCENARIOS, where=str(p), field="scenarios", got=len(items),
                    input="scenarios")  # fmt: skip
    return _validate_scenarios(items, p)


def _validate_scenarios(items: list[Any], p: Path) -> list[Scenario]:
    scenarios: list[Scenario] = []
    first_index: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ScenarioSchemaError(
                str(p), "(scenario)", f"expected an object, got {_kind(item)}", index=i
            )
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
        scenarios.append(scenario)
    return scenarios


def _unwrap_scenarios(data: Any, path: str) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        if isinstance(data.get("test"), dict) and "scenarios" in data["test"]:
            data = data["test"]
        if "scenarios" in data:
            if isinstance(data["scenarios"], list):
                return data["scenarios"]
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
