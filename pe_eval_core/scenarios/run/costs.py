"""What a run costs: the estimate before it (the run header, the cost guard's paid calls) and
its tokens at list price after it. Every dollar comes from
:func:`pe_eval_core.scenarios.llm.pricing.call_cost_usd`.

>>> print(estimate_run_cost("my-llm", scenarios=3, prefix_tokens=10).line())
... # doctest: +ELLIPSIS
Estimated cost: unknown (my-llm is not in the price table: add it to a JSON price file named
by $PE_EVAL_PRICES) for 3 scenarios (cached prefix; assumed 6 turns a scenario run ...)
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pe_eval_core.scenarios.llm.pricing import call_cost_usd, unknown_price_hint
from pe_eval_core.scenarios.models import ScenarioResult
from pe_eval_core.scenarios.trace import TokenUsage


def approx_tokens(text: str) -> int:
    """A rough token count for estimates (about 4 characters a token), never for billing.

    >>> approx_tokens("x" * 4000)
    1000
    """
    return math.ceil(len(text) / 4)


ASSUMED_TURNS = 6
"""Model calls a scenario is assumed to take when no earlier run of the setup was observed:
the bundled skill's real runs took 5 to 6 (issue 20), and 4 estimated them 2.4x too low; the
upper end, so a first estimate errs high rather than low."""
ASSUMED_INPUT_PER_TURN = 1500
"""Fresh input tokens a turn is assumed to send beyond the cached prefix (the conversation)."""
ASSUMED_OUTPUT_PER_TURN = 400


@dataclass(frozen=True, slots=True)
class ObservedUsage:
    """What the scenario runs of an earlier run of the same setup used: its tool traces'
    totals over ``runs`` scenario runs (the estimate scales them to this run)."""

    run_id: int
    runs: int
    turns: int
    tokens: TokenUsage

    @property
    def turns_per_run(self) -> float:
        return self.turns / self.runs if self.runs else 0.0


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """A pre-run estimate: the tokens it assumes and their price (None: model unpriced)."""

    scenarios: int
    tokens: TokenUsage
    usd: float | None
    caching: bool
    repeats: int = 1
    model: str | None = None
    basis: str = ""
    """How the tokens were estimated: the earlier run observed, or the stated assumption."""

    @property
    def runs(self) -> int:
        return self.scenarios * self.repeats

    def line(self) -> str:
        """For the run header: ``Estimated cost: ~$0.42 for 19 scenarios (cached prefix;
        assumed 6 turns a scenario run ...: no earlier run of this setup)``."""
        money = (
            f"unknown ({unknown_price_hint(self.model)})"
            if self.usd is None
            else (f"~${self.usd:.2f}")
        )
        what = f"{self.scenarios} scenarios"
        if self.repeats > 1:
            what += f" x {self.repeats} repeats ({self.runs} scenario runs)"
        how = "cached prefix" if self.caching else "no caching"
        return f"Estimated cost: {money} for {what} ({how}; {self.basis})"


def estimate_run_cost(
    model: str | None,
    *,
    scenarios: int,
    prefix_tokens: int,
    repeats: int = 1,
    observed: ObservedUsage | None = None,
    input_tokens_per_turn: int = ASSUMED_INPUT_PER_TURN,
    output_tokens_per_turn: int = ASSUMED_OUTPUT_PER_TURN,
    turns_per_scenario: int = ASSUMED_TURNS,
    caching: bool = True,
    batch: bool = False,
) -> CostEstimate:
    """Before a live run: the cost of ``scenarios`` x ``repeats`` tool-use loops sharing one
    prompt prefix.

    ``observed`` (an earlier run of the same setup, from the history): its traces' tokens,
    scaled to this run's scenario runs. Otherwise the stated assumption: ``turns_per_scenario``
    turns, each sending the prefix (the system prompt and the tool definitions, see
    :func:`approx_tokens`) plus ``input_tokens_per_turn`` of conversation and replying
    ``output_tokens_per_turn``; with caching the first turn of the run writes the prefix to
    the cache and every later turn reads it, without every turn pays full price.
    ``batch``: the calls go through the Message Batches API (half price).

    >>> e = estimate_run_cost("claude-sonnet-4-5", scenarios=19, prefix_tokens=6000)
    >>> e.tokens.cache_write, e.tokens.cache_read, e.usd
    (6000, 678000, 1.4229)
    >>> estimate_run_cost("claude-sonnet-4-5", scenarios=19, prefix_tokens=6000,
    ...                   caching=False).usd
    3.249
    >>> estimate_run_cost("claude-sonnet-4-5", scenarios=19, prefix_tokens=6000, repeats=3).usd
    4.2273
    """
    runs = scenarios * repeats
    if observed is not None and observed.runs:
        scale = runs / observed.runs
        seen = observed.tokens
        tokens = TokenUsage(
            input=round(seen.input * scale),
            output=round(seen.output * scale),
            cache_write=round(seen.cache_write * scale),
            cache_read=round(seen.cache_read * scale),
        )
        basis = (
            f"{observed.turns_per_run:.1f} turns a scenario run, as observed in run "
            f"#{observed.run_id} of this setup"
        )
        usd = call_cost_usd(model, tokens, batch=batch)
        return CostEstimate(scenarios, tokens, usd, caching, repeats, model, basis)
    turns = runs * turns_per_scenario
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
    basis = (
        f"assumed {turns_per_scenario} turns a scenario run of {input_tokens_per_turn} new "
        f"input and {output_tokens_per_turn} output tokens: no earlier run of this setup"
    )
    usd = call_cost_usd(model, tokens, batch=batch)
    return CostEstimate(scenarios, tokens, usd, caching, repeats, model, basis)


def estimate_versus(estimate: float | None, actual: float | None) -> str:
    """The end line's comparison of the actual cost with the estimate shown before the run.

    >>> estimate_versus(0.38, 0.41)
    'estimated ~$0.3800 before the run; actual 1.08x the estimate'
    >>> estimate_versus(None, 0.41)
    'estimated unknown before the run'
    """
    before = "unknown" if estimate is None else f"~${estimate:.4f}"
    if estimate is None or actual is None or not estimate:
        return f"estimated {before} before the run"
    return f"estimated {before} before the run; actual {actual / estimate:.2f}x the estimate"


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
    >>> is_local_agent("http:http://bot:[redacted]@127.0.0.1:9/chat?token=[redacted]")
    True
    >>> is_local_agent("http:http://bot:[redacted]@agents.example.com/chat")
    False
    """
    if not label.startswith("http:"):
        return False
    # the host by hand: urllib reads a redacted label's userinfo ("bot:[redacted]@") as an
    # IPv6 literal and refuses it
    url = label.removeprefix("http:")
    netloc = re.split(r"[/?#]", url.partition("://")[2], maxsplit=1)[0]
    host = netloc.rpartition("@")[2]
    host = host[: host.index("]") + 1] if host.startswith("[") else host.partition(":")[0]
    return host.lower() in LOOPBACK_HOSTS or host.startswith("127.")


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
