"""What an agent run costs: list prices with prompt-cache prices, exact model ids only.

Unlike :mod:`pe_eval_core.scenarios.llm.pricing` (kept for the judge and the old target), a model
is priced only when its id is in :data:`MODEL_PRICES`, or is such an id plus a dated snapshot
suffix (``-20250929``). There is no family or prefix fallback: an unlisted model's cost is
unknown (None), never guessed.

Cache prices follow Anthropic's published multipliers for 5-minute ephemeral caching: a cache
write costs 1.25x the input price, a cache read 0.1x.

>>> price("claude-sonnet-4-5-20250929").cache_read
0.3
>>> price("claude-sonnet-4-5-preview") is None, price("claude-sonnet-9") is None
(True, True)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pe_eval_core.scenarios.trace import TokenUsage

CACHE_WRITE_MULTIPLIER = 1.25
CACHE_READ_MULTIPLIER = 0.1


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def _listed(input_usd: float, output_usd: float) -> ModelPrice:
    return ModelPrice(
        input=input_usd,
        output=output_usd,
        cache_write=round(input_usd * CACHE_WRITE_MULTIPLIER, 6),
        cache_read=round(input_usd * CACHE_READ_MULTIPLIER, 6),
    )


MODEL_PRICES: dict[str, ModelPrice] = {
    "claude-opus-4-5": _listed(5.0, 25.0),
    "claude-opus-4-1": _listed(15.0, 75.0),
    "claude-opus-4": _listed(15.0, 75.0),
    "claude-sonnet-4-6": _listed(3.0, 15.0),
    "claude-sonnet-4-5": _listed(3.0, 15.0),
    "claude-sonnet-4": _listed(3.0, 15.0),
    "claude-3-7-sonnet": _listed(3.0, 15.0),
    "claude-haiku-4-5": _listed(1.0, 5.0),
    "claude-3-5-haiku": _listed(0.8, 4.0),
}
"""Exact model ids (aliases); a dated snapshot of one of them is priced the same."""

_SNAPSHOT = re.compile(r"-(?:20\d{6}|latest)$")  # a dated snapshot id, or the -latest alias


def price(model: str | None) -> ModelPrice | None:
    """The model's prices, or None when its id (less a snapshot date) is not listed."""
    if not model:
        return None
    return MODEL_PRICES.get(model) or MODEL_PRICES.get(_SNAPSHOT.sub("", model))


def cost_usd(model: str | None, tokens: TokenUsage) -> float | None:
    """The tokens at list price; 0.0 for no tokens; None for an unpriced model.

    >>> cost_usd("claude-sonnet-4-5", TokenUsage(input=1_000_000, output=100_000))
    4.5
    >>> cost_usd("claude-sonnet-4-5", TokenUsage(cache_read=1_000_000, cache_write=1_000_000))
    4.05
    >>> cost_usd("my-llm", TokenUsage(input=5)), cost_usd("my-llm", TokenUsage())
    (None, 0.0)
    """
    if tokens.total == 0:
        return 0.0
    p = price(model)
    if p is None:
        return None
    usd = (
        tokens.input * p.input
        + tokens.output * p.output
        + tokens.cache_write * p.cache_write
        + tokens.cache_read * p.cache_read
    ) / 1_000_000
    return round(usd, 6)


def approx_tokens(text: str) -> int:
    """A rough token count for estimates (about 4 characters a token), never for billing.

    >>> approx_tokens("x" * 4000)
    1000
    """
    return math.ceil(len(text) / 4)


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """A pre-run estimate: the tokens it assumes and their price (None: model unpriced)."""

    scenarios: int
    tokens: TokenUsage
    usd: float | None
    caching: bool

    def line(self) -> str:
        """For the run header: ``Estimated cost: ~$0.42 for 19 scenarios (cached prefix)``."""
        money = (
            "unknown (model not in the price table)" if self.usd is None else f"~${self.usd:.2f}"
        )
        how = "cached prefix" if self.caching else "no caching"
        return f"Estimated cost: {money} for {self.scenarios} scenarios ({how})"


def estimate_run_cost(
    model: str | None,
    *,
    scenarios: int,
    prefix_tokens: int,
    input_tokens_per_turn: int = 1500,
    output_tokens_per_turn: int = 400,
    turns_per_scenario: int = 4,
    caching: bool = True,
) -> CostEstimate:
    """Before a live run: the cost of ``scenarios`` tool-use loops sharing one prompt prefix.

    ``prefix_tokens`` is the system prompt plus the tool definitions (see
    :func:`approx_tokens`); every turn re-sends it. With caching the first turn of the run
    writes it to the cache and every later turn reads it; without, every turn pays full price.
    The per-turn figures (the conversation so far beyond the prefix, the reply) are averages.

    >>> e = estimate_run_cost("claude-sonnet-4-5", scenarios=19, prefix_tokens=6000)
    >>> e.tokens.cache_write, e.tokens.cache_read, e.usd
    (6000, 450000, 0.9555)
    >>> estimate_run_cost("claude-sonnet-4-5", scenarios=19, prefix_tokens=6000,
    ...                   caching=False).usd
    2.166
    """
    turns = scenarios * turns_per_scenario
    fresh = turns * input_tokens_per_turn
    if caching and turns:
        tokens = TokenUsage(
            input=fresh,
            output=turns * output_tokens_per_turn,
            cache_write=prefix_tokens,
            cache_read=prefix_tokens * (turns - 1),
        )
    else:
        tokens = TokenUsage(
            input=fresh + turns * prefix_tokens, output=turns * output_tokens_per_turn
        )
    return CostEstimate(scenarios, tokens, cost_usd(model, tokens), caching)


# --- the cost guard: every paid call, target and judge -------------------------------------

JUDGE_TOKENS_IN_PER_CALL = 1800
"""Average judge prompt: instructions, the scenario's input and goal, the response, phrases."""
JUDGE_TOKENS_OUT_PER_CALL = 350


@dataclass(frozen=True, slots=True)
class PaidCalls:
    """The paid calls a run will make before it starts: what the cost guard counts.

    ``target``: one per scenario run against a live target (tool-use loops make more model
    calls; this counts scenario runs). ``judge``: an upper bound (every scenario run with an
    expected or excluded phrase, one judge call each) unless ``judge_measured``: the
    responses are known (a recorded target), so the calls are counted by scoring them
    against the cache without calling anything.
    """

    target: int
    judge: int
    judge_measured: bool = False
    usd: float | None = None
    """Estimated cost of the judge calls plus the target calls (None: a price is unknown)."""

    @property
    def total(self) -> int:
        return self.target + self.judge

    def line(self) -> str:
        """``"Paid calls: 40 target + at most 38 judge; estimated $1.23"``."""
        how = "" if self.judge_measured else "at most "
        cost = "unknown" if self.usd is None else f"${self.usd:.2f}"
        return f"Paid calls: {self.target} target + {how}{self.judge} judge (estimated cost {cost})"


def judge_cost_usd(model: str | None, calls: int) -> float | None:
    """Judge calls at list price, from the average judge prompt and reply.

    >>> judge_cost_usd("claude-opus-4-5", 10)
    0.1775
    """
    from pe_eval_core.scenarios.llm.pricing import estimate_cost_usd

    return estimate_cost_usd(
        model, calls * JUDGE_TOKENS_IN_PER_CALL, calls * JUDGE_TOKENS_OUT_PER_CALL
    )


def judge_call_upper_bound(expects: list[tuple[int, int]], repeat: int = 1) -> int:
    """One judge call per scenario run that has any expected or excluded phrase or a
    judge-decided behaviour check (all of a scenario's go in one call).

    ``expects``: (expected phrases, excluded phrases + judge-decided checks) per scenario.

    >>> judge_call_upper_bound([(3, 0), (0, 0), (0, 1)], repeat=5)
    10
    """
    return sum(1 for contains, excludes in expects if contains or excludes) * repeat
