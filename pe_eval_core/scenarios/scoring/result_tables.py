"""Tool results read as tables: the rows, columns and groups ``derivations`` aggregates.

A database tool returns JSON (Mimic's: pretty-printed rows; PostgreSQL's bigint and numeric
columns as strings); Stripe's tools return bullet lines (``• pi_1 — 349.00 usd [succeeded]``).
Both become :class:`Table` s: numeric columns (identifier columns left out), grouping columns
(strings and booleans), and a row count. Timestamps are read wherever they appear.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pe_eval_core.scenarios.scoring.range_reader import Kind, read_numbers

__all__ = [
    "ROWS",
    "SCALAR",
    "Pooled",
    "Table",
    "fmt",
    "json_tables",
    "list_lengths",
    "parse_json",
    "text_table",
    "timestamps",
    "top_scalars",
]

_CUT = re.compile(r"… \[\d+ more chars\]$")
_TIMESTAMP = re.compile(
    r"(?<!\d)(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?(?!\d)"
)
_BULLET = re.compile(r"^\s*(?:[•*\-–]|\d+[.)])\s+")
_BRACKETED = re.compile(r"\[([^\]\n]{1,40})\]")
_ID_KEY = re.compile(r"(?:^|_)(?:id|ids|number|no|phone|zip|postcode)$", re.IGNORECASE)


def parse_json(text: str) -> Any:
    """A result's JSON (a cut marker at its end removed first), or None when it is not JSON.

    >>> parse_json('[{"a": 1}]'), parse_json("Payment intents (2):")
    ([{'a': 1}], None)
    """
    body = _CUT.sub("", text).strip()
    if body[:1] in "[{":
        try:
            return json.loads(body)
        except (json.JSONDecodeError, RecursionError):  # a hostile nesting depth
            return None
    return None


_NUMERIC_STRING = re.compile(r"-?\d+(?:\.\d+)?")


def number(value: Any) -> float | None:
    """A JSON number, or a string holding one (PostgreSQL's bigint and numeric columns reach
    JSON as strings: ``"count": "4"``, ``"amount": "249.00"``)."""
    if isinstance(value, str) and _NUMERIC_STRING.fullmatch(value):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


@dataclass(slots=True)
class Table:
    """Rows of one list of objects (or bullet lines), column by column."""

    label: str
    rows: int = 0
    numeric: dict[str, list[tuple[int, float]]] = field(default_factory=lambda: defaultdict(list))
    groups: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))


def json_tables(doc: Any, path: str, out: dict[str, Table]) -> None:
    """Every list of objects in ``doc``, by path (list indices dropped), merged into ``out``."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            json_tables(v, f"{path}.{k}" if path else str(k), out)
        return
    if not isinstance(doc, list):
        return
    rows = [r for r in doc if isinstance(r, dict)]
    if rows:
        table = out.setdefault(path or "rows", Table(path or "rows"))
        for row in rows:
            _add_row(table, row)
    for item in doc:
        if isinstance(item, dict):  # nested lists inside the rows: "data.lines"
            for k, v in item.items():
                if isinstance(v, dict | list):
                    json_tables(v, f"{path}.{k}" if path else str(k), out)
        elif isinstance(item, list):
            json_tables(item, path, out)


def _add_row(table: Table, row: dict[str, Any]) -> None:
    i = table.rows
    table.rows += 1
    for key, value in row.items():
        n = number(value)
        if n is not None:
            if not _ID_KEY.search(key):
                table.numeric[key].append((i, n))
        elif isinstance(value, bool):
            table.groups[key].append((i, str(value).lower()))
        elif isinstance(value, str) and value and not _TIMESTAMP.fullmatch(value):
            table.groups[key].append((i, value))


def text_table(text: str, label: str, out: dict[str, Table]) -> None:
    """Bullet lines of a text result as a table: the k-th quantity of each line a column,
    a ``[bracketed]`` word its group."""
    table = out.setdefault(label, Table(label))
    for line in text.splitlines():
        if not _BULLET.match(line):
            continue
        numbers = [n for n in read_numbers(line) if n.kind is Kind.QUANTITY]
        if not numbers:
            continue
        i = table.rows
        table.rows += 1
        for k, n in enumerate(numbers):
            table.numeric[f"value {k + 1}"].append((i, n.value))
        tag = _BRACKETED.search(line)
        if tag:
            table.groups["status"].append((i, tag.group(1)))


def list_lengths(value: Any) -> Iterator[int]:
    if isinstance(value, list):
        yield len(value)
        for v in value:
            yield from list_lengths(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from list_lengths(v)


def timestamps(text: str) -> Iterator[datetime]:
    for m in _TIMESTAMP.finditer(text):
        try:
            day = datetime.fromisoformat(m.group(1))
        except ValueError:
            continue
        hh, mm, ss = (int(g) if g else 0 for g in m.group(2, 3, 4))
        if hh < 24 and mm < 60 and ss < 60:
            yield day.replace(hour=hh, minute=mm, second=ss, tzinfo=UTC)


SCALAR = "\x00scalar"
ROWS = "\x00rows"


@dataclass(frozen=True, slots=True)
class Pooled:
    """A number in a result set's pair pool, with its unit (column, rows or scalar)."""

    value: float
    what: str
    unit: str


def top_scalars(doc: Any) -> Iterator[Pooled]:
    """The numbers of a JSON result outside its tables: its summary fields."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            n = number(value)
            if n is not None and not _ID_KEY.search(key):
                yield Pooled(n, f"{key} {fmt(n)}", SCALAR)
            elif isinstance(value, dict):
                yield from top_scalars(value)


def fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.4g}"
