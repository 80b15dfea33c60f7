"""List prices for estimating what a run cost; an unpriced model gives no estimate, not a guess.

Exact model ids first; then the Sonnet and Haiku families, whose list price has held across
generations ($3/$15 and $1/$5 per million tokens). Opus prices changed between generations,
so an unlisted Opus gets no estimate.
"""

from __future__ import annotations

# USD per million tokens (input, output), by model-id prefix; longest prefix wins.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-sonnet-": (3.0, 15.0),
    "claude-haiku-": (1.0, 5.0),
}


def price_for(model: str | None) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, or None for an unknown model.

    >>> price_for("claude-sonnet-4-5-20250929"), price_for("claude-opus-9"), price_for("my-llm")
    ((3.0, 15.0), None, None)
    """
    if not model:
        return None
    matches = [p for p in PRICES_PER_MTOK if model.startswith(p)]
    return PRICES_PER_MTOK[max(matches, key=len)] if matches else None


def estimate_cost_usd(model: str | None, tokens_in: int, tokens_out: int) -> float | None:
    """Tokens at list price; 0 for no tokens; None when tokens were used by an unpriced model.

    >>> estimate_cost_usd("claude-sonnet-4-5", 1_000_000, 100_000)
    4.5
    >>> estimate_cost_usd("unknown", 0, 0), estimate_cost_usd("unknown", 5, 5)
    (0.0, None)
    """
    if not tokens_in and not tokens_out:
        return 0.0
    price = price_for(model)
    if price is None:
        return None
    return round((tokens_in * price[0] + tokens_out * price[1]) / 1_000_000, 6)
