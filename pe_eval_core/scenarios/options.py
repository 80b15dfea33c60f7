"""The options of a scenario run: every default in one place, one frozen object per run.

Every surface builds a run's options with :func:`run_options` (the CLI from its flags, the
dashboard from its controls, the MCP server and the gate from their arguments): what the
caller gave, every other field from :data:`DEFAULTS`. The target, the judge, the cost guard
and the runner read that one object, so no surface can default a value differently.

>>> run_options(concurrency=None, timeout_s=30).timeout_s, DEFAULTS.timeout_s
(30.0, 120.0)
>>> run_options(repeat=0)
Traceback (most recent call last):
...
pe_eval_core.errors.PeEvalError: repeat must be a whole number >= 1, got 0 (Each scenario ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pe_eval_core.errors import PeEvalError


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How a scenario run runs (see the module docstring: build one with :func:`run_options`)."""

    concurrency: int = 3
    """Calls in flight at once (the seed's batches of 3, without the batch barrier)."""
    repeat: int = 1
    """Runs of every scenario (pass@k, pass^k, flaky scenarios, tier intervals)."""
    enforce_latency: bool = False
    """Fail a scenario slower than its ``max_latency_ms`` (default: a warning)."""
    timeout_s: float = 120.0
    """One call to the agent under test (an HTTP agent's reply, a model call)."""
    judge_timeout_s: float = 60.0
    """One judge call."""
    judge_model: str | None = None
    """The judge's model; None: ``$PE_EVAL_JUDGE_MODEL``, else the default judge model
    (``judge.default_judge_model``: never the target's own model)."""
    max_turns: int = 12
    """Model calls per scenario of a tool-using agent."""
    max_tool_calls: int = 40
    """Tool calls per scenario (refused ones count)."""
    tool_timeout_s: float = 30.0
    """One tool call."""
    max_tokens: int = 4096
    """Tokens per model reply; a reply cut there is an error."""
    allow_writes: bool = False
    """Turn the tool allow-list off: every tool runs, writes too (default: read-only, as the
    seed requires; a write that runs still fails a scenario that does not expect it)."""
    allow_tools: tuple[str, ...] = ()
    """Tools allowed by exact name beyond Mimic's reads (``tool`` or ``server/tool``; the
    CLI's ``--allow-tool``): everything else not on the read allow-list is refused."""
    max_cost_usd: float | None = None
    """Start no new scenario once the target has spent this much (None: no limit)."""
    batch: bool = False
    """Send plain model calls and judge calls through the Message Batches API (half price)."""
    stop_after_transport_errors: int = 3
    """Transport errors in a row (unreachable, authentication refused) that stop the run."""
    as_of: str | None = None
    """The analysis date (``YYYY-MM-DD``) a model target is told; None: the persona's
    ``as_of`` in the Mimic project's ``mimic.json``, else none (``agent.as_of``)."""


DEFAULTS = RunOptions()
"""Every option's default: the one place a surface reads one from (help texts included)."""

_WHOLE_AT_LEAST = {
    "concurrency": (1, "The worker pool needs at least one worker"),
    "repeat": (1, "Each scenario runs at least once"),
    "max_turns": (1, "A scenario needs at least one model call"),
    "max_tool_calls": (0, "0 allows no tool call"),
    "max_tokens": (1, "A reply needs at least one token"),
    "stop_after_transport_errors": (1, "The run stops after at least one transport error"),
}
_POSITIVE = ("timeout_s", "judge_timeout_s", "tool_timeout_s")
_INPUTS = {
    "concurrency": "concurrency",
    "repeat": "repeat",
    "max_turns": "agent_bounds",
    "max_tool_calls": "agent_bounds",
    "max_tokens": "agent_bounds",
    "tool_timeout_s": "agent_bounds",
    "timeout_s": "timeout",
    "judge_timeout_s": "timeout",
    "max_cost_usd": "max_cost",
    "stop_after_transport_errors": "agent_bounds",
}
"""The input each option is (``pe_eval_core.errors.INPUT_LABELS``), for the error naming it."""
_WORDS = {"repeat": "repeat count"}


def run_options(base: RunOptions | None = None, **given: Any) -> RunOptions:
    """``base`` (default :data:`DEFAULTS`) with the options given; a value of None means "not
    given". A bad value raises ``PeEvalError`` naming the option.

    >>> run_options(DEFAULTS, max_turns=3).max_turns
    3
    """
    fields = {f.name for f in dataclasses.fields(RunOptions)}
    unknown = sorted(set(given) - fields)
    if unknown:
        raise TypeError(f"unknown run options: {', '.join(unknown)}")
    chosen = {k: v for k, v in given.items() if v is not None}
    if "allow_tools" in chosen:
        chosen["allow_tools"] = tuple(str(t) for t in chosen["allow_tools"])
    for name, value in chosen.items():
        _check(name, value)
        if name in _POSITIVE or name == "max_cost_usd":
            chosen[name] = float(value)
    return dataclasses.replace(base or DEFAULTS, **chosen)


def _check(name: str, value: Any) -> None:
    """Refuse a value the run cannot use, naming the option."""
    if name in _WHOLE_AT_LEAST:
        least, why = _WHOLE_AT_LEAST[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise PeEvalError(
                f"{name} must be a whole number >= {least}, got {value!r}",
                diagnosis=why,
                fix=f"Use a {_WORDS.get(name, name.replace('_', ' '))} of {least} or more "
                f"(default {getattr(DEFAULTS, name)}).",
                input=_INPUTS[name],
            )
    elif name in _POSITIVE or name == "max_cost_usd":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        if not ok or (name in _POSITIVE and value == 0):
            raise PeEvalError(
                f"{name} must be a positive number, got {value!r}",
                diagnosis="A limit in seconds or dollars cannot be zero or negative",
                fix=f"Use a positive number (default {getattr(DEFAULTS, name)}).",
                input=_INPUTS[name],
            )
