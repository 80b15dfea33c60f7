"""List prices, in one table, and the one function that prices a call.

:func:`call_cost_usd` is the price of a Messages API call: the pre-run estimate, the tool-use
loop's per-scenario trace, the run's end line, its report, the history and the dashboard all
get their dollars from it. A model is priced only when the table lists it:

1. its exact id (``MODEL_PRICES``), or such an id plus a dated snapshot suffix
   (``-20250929``) or ``-latest``;
2. a family entry (``FAMILY_PRICES``, longest prefix first), empty today: no family or prefix
   is guessed, so an unlisted model's cost is unknown (None), never made up.

A :class:`PriceTable` holds both levels, so a table with family prices or one read from a
user's price file is another ``PriceTable`` passed as ``table=`` (nothing else changes).
Cache prices follow Anthropic's published multipliers for 5-minute ephemeral caching (a write
costs 1.25x the input price, a read 0.1x); the Message Batches API costs half.

>>> price("claude-sonnet-4-5-20250929").cache_read
0.3
>>> price("claude-sonnet-4-5-preview") is None, price("claude-sonnet-9") is None
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

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
    "claude-opus-4-5": listed(5.0, 25.0),
    "claude-opus-4-1": listed(15.0, 75.0),
    "claude-opus-4": listed(15.0, 75.0),
    "claude-sonnet-4-6": listed(3.0, 15.0),
    "claude-sonnet-4-5": listed(3.0, 15.0),
    "claude-sonnet-4": listed(3.0, 15.0),
    "claude-3-7-sonnet": listed(3.0, 15.0),
    "claude-haiku-4-5": listed(1.0, 5.0),
    "claude-3-5-haiku": listed(0.8, 4.0),
}
"""Exact model ids (aliases); a dated snapshot of one of them is priced the same."""

FAMILY_PRICES: dict[str, ModelPrice] = {}
"""Model-id prefix -> price, for models the exact table does not list (none today)."""

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
"""The table every surface prices with."""


def price(model: str | None, table: PriceTable = PRICES) -> ModelPrice | None:
    """The model's list prices, or None when it is not in the table."""
    return table.price(model)


def call_cost_usd(
    model: str | None, tokens: TokenUsage, *, batch: bool = False, table: PriceTable = PRICES
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
    p = table.price(model)
    if p is None:
        return None
    usd = (
        tokens.input * p.input
        + tokens.output * p.output
        + tokens.cache_write * p.cache_write
        + tokens.cache_read * p.cache_read
    ) / 1_000_000
    return round(usd * (BATCH_MULTIPLIER if batch else 1.0), 6)
