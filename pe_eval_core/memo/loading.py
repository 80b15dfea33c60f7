"""Read a memo sidecar and its OpportunityMap, turning every failure into the seed's error.

Missing file, malformed JSON (with line and column), a schema mismatch naming the field, an
empty memo: each gets its own exception type carrying the seed's diagnosis and fix. A number
that is not finite (``NaN``, ``Infinity``, ``1e400``) is a schema error naming its field,
whether the field is declared or an extra key the numeric universe would read.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pe_eval_core.errors import (
    EmptyMemoError,
    InputNotFoundError,
    MalformedJSONError,
    MalformedMemoError,
    MalformedSourceError,
    MemoNotFoundError,
    MemoSchemaError,
    SchemaMismatchError,
    SourceNotFoundError,
    SourceSchemaError,
)
from pe_eval_core.files import check_path_text, may_hold_lone_surrogate, read_bytes, read_json
from pe_eval_core.limits import PROSE_CHARS, check_file_size, exceeded
from pe_eval_core.memo.models import MemoSidecar, OpportunityMap

M = TypeVar("M", bound=BaseModel)

# pydantic's JSON parser reads NaN and Infinity, and turns 1e400 into inf. Declared float
# fields refuse them (``allow_inf_nan=False``); values pydantic keeps as ``Any`` (extra keys,
# segment values) and ids are walked here.
_ANY_FIELDS = ("segment", "evidence_row_ids")
_OPPORTUNITY_LISTS = ("opportunities", "opportunities_explained")
_FLOAT_MAX = 1.7976931348623157e308


def loc_to_path(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location as a JSON path.

    >>> loc_to_path(("opportunities", 2, "id"))
    'opportunities[2].id'
    >>> loc_to_path(())
    '$'
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "$"


def _validate(model: type[M], data: Any, path: Path, error: type[SchemaMismatchError]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _schema_error(exc, path, error) from None


def _schema_error(
    exc: ValidationError, path: Path, error: type[SchemaMismatchError]
) -> SchemaMismatchError:
    """The first validation problem, as the seed's schema error naming the JSON path."""
    first = exc.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"] if not _is_union_tag(p))
    if not loc and first["type"] in ("model_type", "model_attributes_type"):
        got = _kind(first.get("input"))
        return error(str(path), "$", f"expected a JSON object at the top level, got {got}")
    detail = first["msg"]
    if first["type"] == "finite_number":
        detail = _non_finite_detail(first.get("input"))
    elif first["type"] != "missing":
        detail += f" (got {_short(first.get('input'))})"
    more = exc.error_count() - 1
    if more:
        detail += f"; {more} more problem{'s' if more > 1 else ''}"
    return error(str(path), loc_to_path(loc), detail)


def _non_finite_detail(value: Any) -> str:
    """Why a NaN/Infinity/out-of-range number is refused, naming the token as JSON spells it."""
    if isinstance(value, float) and math.isnan(value):
        got = "NaN"
    elif isinstance(value, int | float) and value < 0:
        got = "-Infinity or a number below float range"
    else:
        got = "Infinity or a number beyond float range (e.g. 1e400)"
    return (
        f"must be a finite number, got {got}; such values are not valid JSON numbers and "
        "cannot be compared"
    )


def _non_finite(value: Any) -> bool:
    if type(value) is float:
        return not math.isfinite(value)
    return type(value) is int and abs(value) > _FLOAT_MAX


_Location = tuple[int | str, ...]
"""Where a value sits in parsed JSON: keys and list indexes from the root."""


def first_non_finite(value: Any, loc: _Location = ()) -> tuple[_Location, float] | None:
    """(location, value) of the first NaN/Infinity/out-of-range number in parsed JSON.

    >>> first_non_finite({"a": [1, {"b": float("nan")}]})
    (('a', 1, 'b'), nan)
    >>> first_non_finite({"a": 1.5, "b": "NaN"}) is None
    True
    """
    t = type(value)
    if t is dict:
        items: Any = value.items()
    elif t is list:
        items = enumerate(value)
    else:
        return (loc, value) if _non_finite(value) else None
    for key, child in items:
        tc = type(child)
        if tc is str or child is None:
            continue  # the common case, without a call
        if (tc is float or tc is int) and not _non_finite(child):
            continue
        if (found := first_non_finite(child, (*loc, key))) is not None:
            return found
    return None


def undeclared_non_finite(model: BaseModel) -> tuple[_Location, float] | None:
    """(location, value) of the first non-finite number pydantic does not check itself: in
    extra keys, segment values or row ids, at the top level or in any opportunity.

    >>> m = OpportunityMap.model_validate_json(
    ...     '{"portco_id": "X", "opportunities": [{"id": "a", "segment": {"k": NaN}}]}')
    >>> undeclared_non_finite(m)
    (('opportunities', 0, 'segment', 'k'), nan)
    """
    if model.model_extra and (found := first_non_finite(model.model_extra)):
        return found
    for name in _OPPORTUNITY_LISTS:
        for i, opp in enumerate(getattr(model, name, ())):
            declared = type(opp).model_fields
            for key in _ANY_FIELDS:
                value = getattr(opp, key) if key in declared else None
                if (
                    value
                    and not _plain(value.values() if type(value) is dict else value)
                    and (found := first_non_finite(value, (name, i, key)))
                ):
                    return found
            extra = opp.model_extra
            if (
                extra
                and not _plain(extra.values())
                and (found := first_non_finite(extra, (name, i)))
            ):
                return found
    return None


def _plain(values: Iterable[Any]) -> bool:
    """Only strings and finite numbers (the usual case): nothing to look into."""
    for v in values:
        t = type(v)
        if (
            t is str
            or (t is float and v - v == 0.0)
            or (t is int and -_FLOAT_MAX <= v <= _FLOAT_MAX)
        ):
            continue
        return False
    return True


def _check_finite(model: BaseModel, path: Path, error: type[SchemaMismatchError]) -> None:
    """Refuse a non-finite number in the places the models' own validation does not reach."""
    found = undeclared_non_finite(model)
    if found is not None:
        loc, value = found
        raise error(str(path), loc_to_path(loc), _non_finite_detail(value))


def _is_union_tag(part: int | str) -> bool:
    """pydantic adds the union member's type name (``int``, ``str``) to a location; drop it."""
    return isinstance(part, str) and part in {"int", "str", "float", "bool"}


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True, slots=True)
class LoadedPair:
    """A parsed memo and source, with the sha256 of the exact bytes that were parsed."""

    memo_path: Path
    source_path: Path
    memo: MemoSidecar
    source: OpportunityMap
    memo_sha256: str
    source_sha256: str


def _load(
    path: Path,
    model: type[M],
    not_found: type[InputNotFoundError],
    malformed: type[MalformedJSONError],
    schema_error: type[SchemaMismatchError],
    kept: dict[str, Any] | None = None,
) -> tuple[M, str]:
    """Parse and validate in one pass (pydantic's JSON parser); on any JSON-level problem fall
    back to ``read_json`` for the precise line/column error (or to accept a UTF-8 BOM).
    ``kept``: models already validated, by the sha256 of their bytes (reused, never
    re-validated; only a model that passed every check is kept)."""
    check_path_text(path, not_found.input)
    if not path.is_file():
        read_json(path, not_found=not_found, malformed=malformed)  # raises the right error
    check_file_size(path, input=not_found.input)
    raw = read_bytes(path, not_found)
    digest = hashlib.sha256(raw).hexdigest()
    if kept is not None and digest in kept:
        return kept[digest], digest
    if may_hold_lone_surrogate(raw):  # read_json names the field holding a lone surrogate
        data = read_json(path, not_found=not_found, malformed=malformed)
        return _validate(model, data, path, schema_error), digest
    try:
        parsed = model.model_validate_json(raw)
    except ValidationError as exc:
        if not any(e["type"] == "json_invalid" for e in exc.errors(include_url=False)):
            raise _schema_error(exc, path, schema_error) from None
    else:
        _check_finite(parsed, path, schema_error)
        return parsed, digest
    data = read_json(path, not_found=not_found, malformed=malformed)
    return _validate(model, data, path, schema_error), digest


def load_memo(path: str | os.PathLike[str]) -> MemoSidecar:
    """Load and validate a memo sidecar; refuse an empty one."""
    return _load_memo(Path(path))[0]


def _load_memo(p: Path) -> tuple[MemoSidecar, str]:
    memo, digest = _load(p, MemoSidecar, MemoNotFoundError, MalformedMemoError, MemoSchemaError)
    if not memo.opportunities_explained:
        raise EmptyMemoError(f"{p} has zero opportunities_explained")
    _check_prose_length(memo, p)
    return memo, digest


def _check_prose_length(memo: MemoSidecar, p: Path) -> None:
    """Refuse a prose block (any text field of an explained opportunity) over the limit."""
    cap = PROSE_CHARS.value()
    for i, opp in enumerate(memo.opportunities_explained):
        if _longest_text(opp.__dict__) <= cap and _longest_text(opp.model_extra) <= cap:
            continue  # every entry but one over the limit: no field named, nothing built
        fields = {k: getattr(opp, k) for k in type(opp).model_fields}
        fields.update(opp.model_extra or {})
        for name, value in fields.items():
            if type(value) is str and len(value) > cap:
                exceeded(
                    PROSE_CHARS,
                    where=str(p),
                    field=f"opportunities_explained[{i}].{name}",
                    got=len(value),
                    input="memo",
                )


def _longest_text(values: dict[str, Any] | None) -> int:
    """The length of the longest string among ``values``' values (0 when none): a model's
    ``__dict__`` holds its declared fields, as ``getattr`` reads them."""
    if not values:
        return 0
    return max([len(v) for v in values.values() if type(v) is str], default=0)


def load_source(path: str | os.PathLike[str]) -> OpportunityMap:
    """Load and validate an OpportunityMap (opportunity ids must be unique)."""
    return _load_source(Path(path))[0]


_SOURCES: dict[str, OpportunityMap] = {}
"""Sources validated by this process, by the sha256 of their bytes (the board and operator
memos of a portco share one), at most :data:`SOURCES_MAX`; only the grader's own reads use
it, and it never changes a model it hands out."""
SOURCES_MAX = 32


def _load_source(p: Path, *, shared: bool = False) -> tuple[OpportunityMap, str]:
    """The source at ``p``; ``shared``: reuse a model validated from the same bytes (for the
    grader, which only reads it)."""
    source, digest = _load(
        p,
        OpportunityMap,
        SourceNotFoundError,
        MalformedSourceError,
        SourceSchemaError,
        _SOURCES if shared else None,
    )
    seen: dict[str, int] = {}
    for i, opp in enumerate(source.opportunities):
        if opp.id in seen:
            raise SourceSchemaError(
                str(p),
                f"opportunities[{i}].id",
                f"duplicate id {opp.id!r} (also opportunities[{seen[opp.id]}]); "
                "coverage is measured by id, so ids must be unique",
            )
        seen[opp.id] = i
    if shared and digest not in _SOURCES:
        if len(_SOURCES) >= SOURCES_MAX:
            _SOURCES.clear()
        _SOURCES[digest] = source
    return source, digest


def load_pair(memo_path: str | os.PathLike[str], source_path: str | os.PathLike[str]) -> LoadedPair:
    """Load both inputs; the memo first, so its errors are reported first."""
    mp, sp = Path(memo_path), Path(source_path)
    memo, memo_sha = _load_memo(mp)
    source, source_sha = _load_source(sp, shared=True)
    return LoadedPair(mp, sp, memo, source, memo_sha, source_sha)
