"""List prices, in one table, and the one function that prices a call.

:func:`call_cost_usd` is the price of a Messages API call: the pre-run estimate, the tool-use
loop's per-scenario trace, the run's end line, its report, the history and the dashboard all
get their dollars from it. A model is priced only when the table lists it:

1. its exact id (``MODEL_PRICES``: the Claude API's published prices, platform.claude.com
   "Model pricing", checked 2026-12), or such an id plus a dated snapshot suffix
   (``-20250929``) or ``-latest``;
2. a family entry (longest prefix first): none built in, because the provider publishes a
   price per model, not per family (a family price would be a guess at the next model's);
   a price file may add them.

A user price file named by ``$PE_EVAL_PRICES`` (JSON, see :func:`load_price_file`) adds
models and families or overrides listed ones; :func:`prices` is the table in force (the
built-in one merged with the file). A model in neither stays unknown: its cost is None,
shown as "unknown" with how to add it (:func:`unknown_price_hint`), never made up.
Cache prices follow the published multipliers for 5-minute ephemeral caching (a write costs
1.25x the input price, a read 0.1x) unless a model's page says otherwise (Opus 5.5 and Sonnet
5.5 read their cache at 0.05x); the Message Batches API costs half.

>>> price("claude-sonnet-4-5-20250929").cache_read
0.3
>>> price("claude-sonnet-4-5-preview") is None, price("claude-sonnet-9") is None
(True, True)
>>> price("claude-opus-5-5").cache_read, price("claude-sonnet-5-5").input
(0.2, 2.0)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pe_eval_core.scenarios.trace import TokenUsage

CACHE_WRITE_MULTIPLIER = 1.25
CACHE_READ_MULTIPLIER = 0.1
BATCH_MULTIPLIER = 0.5
"""A call through the Message Batches API costs half the list price."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def listed(input_usd: float, output_usd: float) -> ModelPrice:
    """A list price with its prompt-cache prices derived by the published multipliers."""
    return ModelPrice(
        input=input_usd,
        output=output_usd,
        cache_write=round(input_usd * CACHE_WRITE_MULTIPLIER, 6),
        cache_read=round(input_usd * CACHE_READ_MULTIPLIER, 6),
    )


MODEL_PRICES: dict[str, ModelPrice] = {
    "claude-fable-5-1": ModelPrice(input=10.0, output=50.0, cache_write=12.5, cache_read=0.25),
    "claude-mythos-5-1": ModelPrice(input=10.0, output=50.0, cache_write=12.5, cache_read=0.25),
    "claude-fable-5": listed(10.0, 50.0),
    "claude-mythos-5": listed(10.0, 50.0),
    # the judge's default; Opus 5.5 reads its cache at 0.05x input ($0.20), not 0.1x
    "claude-opus-5-5": ModelPrice(input=4.0, output=20.0, cache_write=5.0, cache_read=0.2),
    "claude-opus-5": listed(5.0, 25.0),
    "claude-opus-4-8": listed(5.0, 25.0),
    "claude-opus-4-7": listed(5.0, 25.0),
    "claude-opus-4-6": listed(5.0, 25.0),
    "claude-opus-4-5": listed(5.0, 25.0),
    "claude-opus-4-1": listed(15.0, 75.0),
    "claude-opus-4": listed(15.0, 75.0),
    # the target's default; its cache read fell from $0.20 to $0.10 on 2026-10-07
    "claude-sonnet-5-5": ModelPrice(input=2.0, output=10.0, cache_write=2.5, cache_read=0.1),
    "claude-sonnet-5": listed(2.0, 10.0),
    "claude-sonnet-4-6": listed(3.0, 15.0),
    "claude-sonnet-4-5": listed(3.0, 15.0),
    "claude-sonnet-4": listed(3.0, 15.0),
    "claude-3-7-sonnet": listed(3.0, 15.0),
    "claude-haiku-4-5": listed(1.0, 5.0),
    "claude-3-5-haiku": listed(0.8, 4.0),
    # not listed: claude-haiku-5-5 (two price bands by prompt length, per request: a run's
    # summed tokens cannot tell them apart), models whose price is not published
}
"""Exact model ids (aliases); a dated snapshot of one of them is priced the same."""

FAMILY_PRICES: dict[str, ModelPrice] = {}
"""Model-id prefix -> price, for models the exact table does not list: none built in (the
provider prices each model, not a family); a price file's ``families`` go here."""

PRICES_ENV = "PE_EVAL_PRICES"
"""The environment variable naming a user price file (JSON, :func:`load_price_file`)."""

_SNAPSHOT = re.compile(r"-(?:20\d{6}|latest)$")  # a dated snapshot id, or the -latest alias


@dataclass(frozen=True)
class PriceTable:
    """Exact ids first (a snapshot suffix stripped), then families by longest prefix."""

    models: Mapping[str, ModelPrice]
    families: Mapping[str, ModelPrice] = field(default_factory=dict)

    def price(self, model: str | None) -> ModelPrice | None:
        """The model's prices, or None when the table does not list it."""
        if not model:
            return None
        exact = self.models.get(model) or self.models.get(_SNAPSHOT.sub("", model))
        if exact is not None:
            return exact
        prefixes = sorted((p for p in self.families if model.startswith(p)), key=len)
        return self.families[prefixes[-1]] if prefixes else None


PRICES = PriceTable(MODEL_PRICES, FAMILY_PRICES)
"""The built-in table (what :func:`prices` returns when no price file is named)."""


def load_price_file(path: str | os.PathLike[str]) -> PriceTable:
    """A user price file: USD per million tokens, by exact model id and by id prefix.

    ``{"models": {"<model id>": {"input": 0.1, "output": 0.5, "cache_write": 0.125,
    "cache_read": 0.01}}, "families": {"<id prefix>": {...}}}``; ``cache_write`` and
    ``cache_read`` may be left out (1.25x and 0.1x the input price). A file that cannot be
    read is a ``PriceFileError`` naming the file and the field.
    """
    from pe_eval_core.errors import PriceFileError

    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PriceFileError(f"{p} (${PRICES_ENV}) does not exist") from None
    except (OSError, ValueError) as exc:
        raise PriceFileError(f"{p} (${PRICES_ENV}) is not a JSON file: {exc}") from None
    if not isinstance(data, dict) or not set(data) <= {"models", "families"}:
        raise PriceFileError(f'{p}: expected an object with "models" and/or "families"')
    levels: dict[str, dict[str, ModelPrice]] = {"models": {}, "families": {}}
    for level, entries in data.items():
        if not isinstance(entries, dict):
            raise PriceFileError(f"{p}: {level} must be an object of model id -> prices")
        for name, entry in entries.items():
            levels[level][str(name)] = _price_entry(p, f"{level}.{name}", entry)
    return PriceTable(levels["models"], levels["families"])


def _price_entry(path: Path, where: str, entry: Any) -> ModelPrice:
    from pe_eval_core.errors import PriceFileError

    if not isinstance(entry, dict):
        raise PriceFileError(f"{path}: {where} must be an object with input and output")
    unknown = sorted(set(entry) - {"input", "output", "cache_write", "cache_read"})
    if unknown:
        raise PriceFileError(f"{path}: {where}.{unknown[0]} is not a price field")
    values: dict[str, float] = {}
    for key in ("input", "output", "cache_write", "cache_read"):
        value = entry.get(key)
        if value is None and key in ("cache_write", "cache_read"):
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise PriceFileError(
                f"{path}: {where}.{key} must be a number >= 0 (USD per million tokens), "
                f"got {value!r}"
            )
        values[key] = float(value)
    base = listed(values["input"], values["output"])
    return ModelPrice(
        input=base.input,
        output=base.output,
        cache_write=values.get("cache_write", base.cache_write),
        cache_read=values.get("cache_read", base.cache_read),
    )


_LOADED: dict[tuple[str, float], PriceTable] = {}


def prices() -> PriceTable:
    """The table in force: the built-in one, with ``$PE_EVAL_PRICES``'s entries over it."""
    named = os.environ.get(PRICES_ENV)
    if not named:
        return PRICES
    try:
        key = (named, Path(named).stat().st_mtime)
    except OSError:
        key = (named, -1.0)
    if key not in _LOADED:
        user = load_price_file(named)
        _LOADED.clear()
        _LOADED[key] = PriceTable(
            {**PRICES.models, **user.models}, {**PRICES.families, **user.families}
        )
    return _LOADED[key]


def unknown_price_hint(model: str | None) -> str:
    """What the header says about a model the table does not price.

    >>> unknown_price_hint("my-llm")
    'my-llm is not in the price table: add it to a JSON price file named by $PE_EVAL_PRICES'
    """
    return (
        f"{model or 'the model'} is not in the price table: add it to a JSON price file "
        f"named by ${PRICES_ENV}"
    )


def price(model: str | None, table: PriceTable | None = None) -> ModelPrice | None:
    """The model's list prices, or None when it is not in the table (default: :func:`prices`)."""
    return (table or prices()).price(model)


def call_cost_usd(
    model: str | None,
    tokens: TokenUsage,
    *,
    batch: bool = False,
    table: PriceTable | None = None,
) -> float | None:
    """The price of the tokens of one call (or of many of one model): 0.0 for no tokens,
    None for a model the table does not list; half with ``batch`` (Message Batches API).

    >>> call_cost_usd("claude-sonnet-4-5", TokenUsage(input=1_000_000, output=100_000))
    4.5
    >>> call_cost_usd("claude-sonnet-4-5", TokenUsage(cache_read=1_000_000, cache_write=1_000_000))
    4.05
    >>> call_cost_usd("claude-sonnet-4-5", TokenUsage(input=1_000_000), batch=True)
    1.5
    >>> call_cost_usd("my-llm", TokenUsage(input=5)), call_cost_usd("my-llm", TokenUsage())
    (None, 0.0)
    """
    if tokens.total == 0:
        return 0.0
    p = (table or prices()).price(model)
    if p is None:
        return None
    usd = (
        tokens.input * p.input
        + tokens.output * p.output
        + tokens.cache_write * p.cache_write
        + tokens.cache_read * p.cache_read
    ) / 1_000_000
    return round(usd * (BATCH_MULTIPLIER if batch else 1.0), 6)
