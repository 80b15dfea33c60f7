"""What a run costs: the estimate before it (the run header, the cost guard's paid calls) and
its tokens at list price after it. Every dollar comes from
:func:`pe_eval_core.scenarios.llm.pricing.call_cost_usd`.

>>> estimate_run_cost("claude-sonnet-5-5", scenarios=3, prefix_tokens=10).line()
'Estimated cost: unknown (model not in the price table) for 3 scenarios (cached prefix)'
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pe_eval_core.scenarios.llm.pricing import call_cost_usd
from pe_eval_core.scenarios.models import ScenarioResult
from pe_eval_core.scenarios.trace import TokenUsage


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
    batch: bool = False,
) -> CostEstimate:
    """Before a live run: the cost of ``scenarios`` tool-use loops sharing one prompt prefix.

    ``prefix_tokens`` is the system prompt plus the tool definitions (see
    :func:`approx_tokens`); every turn re-sends it. With caching the first turn of the run
    writes it to the cache and every later turn reads it; without, every turn pays full price.
    The per-turn figures (the conversation so far beyond the prefix, the reply) are averages.
    ``batch``: the calls go through the Message Batches API (half price).

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
    return CostEstimate(scenarios, tokens, call_cost_usd(model, tokens, batch=batch), caching)


# --- before a run: the cost guard's paid calls ------------------------------------------------

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
    local_target: bool = False
    """The target is an agent on this machine (loopback): its calls are calls, not billed."""

    @property
    def total(self) -> int:
        return self.target + self.judge

    def line(self) -> str:
        """``"Paid calls: 40 target + at most 38 judge (estimated cost $1.23)"``; for an agent on
        this machine ``"Calls: 19 to the local agent + at most 19 paid judge (...)"``.

        >>> PaidCalls(19, 19, local_target=True).line()
        'Calls: 19 to the local agent + at most 19 paid judge (estimated cost unknown)'
        """
        how = "" if self.judge_measured else "at most "
        cost = "unknown" if self.usd is None else f"${self.usd:.2f}"
        if self.local_target:
            return (
                f"Calls: {self.target} to the local agent + {how}{self.judge} paid judge "
                f"(estimated cost {cost})"
            )
        return f"Paid calls: {self.target} target + {how}{self.judge} judge (estimated cost {cost})"


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"})


def is_local_agent(label: str) -> bool:
    """True for an HTTP agent on this machine (``http:http://127.0.0.1:8000/agent``).

    >>> is_local_agent("http:http://127.0.0.1:8000/a"), is_local_agent("http:https://x.io/a")
    (True, False)
    >>> is_local_agent("anthropic:claude-sonnet-4-5"), is_local_agent("http:http://[::1]:9/a")
    (False, True)
    """
    from urllib.parse import urlparse

    if not label.startswith("http:"):
        return False
    host = urlparse(label.removeprefix("http:")).hostname or ""
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def judge_cost_usd(model: str | None, calls: int, *, batch: bool = False) -> float | None:
    """Judge calls at list price, from the average judge prompt and reply.

    >>> judge_cost_usd("claude-opus-4-5", 10), judge_cost_usd("claude-opus-4-5", 10, batch=True)
    (0.1775, 0.08875)
    """
    tokens = TokenUsage(
        input=calls * JUDGE_TOKENS_IN_PER_CALL, output=calls * JUDGE_TOKENS_OUT_PER_CALL
    )
    return call_cost_usd(model, tokens, batch=batch)


def judge_call_upper_bound(expects: list[tuple[int, int]], repeat: int = 1) -> int:
    """One judge call per scenario run that has any expected or excluded phrase or a
    judge-decided behaviour check (all of a scenario's go in one call).

    ``expects``: (expected phrases, excluded phrases + judge-decided checks) per scenario.

    >>> judge_call_upper_bound([(3, 0), (0, 0), (0, 1)], repeat=5)
    10
    """
    return sum(1 for contains, excludes in expects if contains or excludes) * repeat


# --- after a run: its tokens at list price --------------------------------------------------


def run_cost_usd(
    results: Sequence[ScenarioResult],
    *,
    live: bool,
    target_model: str | None,
    judge_model: str | None,
    batched: Collection[str] = (),
) -> float | None:
    """Live target plus judge tokens at list price; None when a used model's price is unknown.

    A target whose results carry tool traces is priced from them (each scenario's loop priced
    call by call, cache reads and writes at their own prices); otherwise from the plain token
    counts. ``batched``: the parties (``"target"``, ``"judge"``) whose calls went through the
    Message Batches API, at half price.
    """
    traces = [r.trace for r in results if r.trace is not None and r.trace.turns]
    if live and traces:
        costs = [t.cost_usd for t in traces]
        target_cost = None if None in costs else sum(c for c in costs if c is not None)
    elif live:
        tokens = TokenUsage(
            input=sum(r.tokens_in for r in results), output=sum(r.tokens_out for r in results)
        )
        target_cost = call_cost_usd(target_model, tokens, batch="target" in batched)
    else:
        target_cost = 0.0
    judge_tokens = TokenUsage(
        input=sum(r.judge_tokens_in for r in results),
        output=sum(r.judge_tokens_out for r in results),
    )
    judge_cost = call_cost_usd(judge_model, judge_tokens, batch="judge" in batched)
    if target_cost is None or judge_cost is None:
        return None
    return round(target_cost + judge_cost, 6)
