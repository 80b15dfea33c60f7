"""The deterministic checks and the pass rule: strict substring, numeric range, excluded
phrases, latency budget, and the seed's decision built from them.

Same inputs, same verdict: nothing here calls a model. The pass rule lives here and only
here (``meets_pass_ratio``, ``failure_reasons``, ``passes``); the scorer calls it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pe_eval_core.scenarios.models import NumericRange, NumericResult
from pe_eval_core.scenarios.tool_names import display_name, same_tool
from pe_eval_core.scenarios.trace import ToolTrace, executed_write


def strict_span(response: str, expected: str, lowered: str | None = None) -> tuple[int, int] | None:
    """The seed's strict check: case-insensitive substring. Returns the matched span or None.

    >>> strict_span("Lost $4,820 of MRR", "$4,820 OF mrr")
    (5, 18)
    >>> strict_span("Lost $4,820", "$4,800") is None
    True
    """
    hay = response.lower() if lowered is None else lowered
    needle = expected.lower()
    i = hay.find(needle)
    if i < 0:
        return None
    if len(hay) != len(response):  # lowercasing changed lengths (rare scripts): no exact span
        return (0, 0)
    return (i, i + len(needle))


def check_numeric(numbers: Sequence[float], rng: NumericRange) -> NumericResult:
    """Any extracted number inside [min, max] (inclusive) satisfies the range; never judged.

    Values are signed: a response that writes ``-$4,820`` offers -4820, which a range of
    [4800, 4840] does not contain.

    >>> r = NumericRange(field="mrr_lost", min=4800, max=4840)
    >>> check_numeric([8, 4840.0], r).satisfied, check_numeric([4800], r).matched
    (True, 4800.0)
    >>> res = check_numeric([99, 4280, -4820], r)
    >>> res.satisfied, res.nearest
    (False, 4280.0)
    >>> check_numeric([], r).nearest is None
    True
    """
    lo, hi = rng.min, rng.max
    for value in numbers:
        if lo <= value <= hi:
            return NumericResult(field=rng.field, min=lo, max=hi, satisfied=True, matched=value)
    nearest = min(numbers, key=lambda v: _distance(v, rng), default=None)
    return NumericResult(field=rng.field, min=lo, max=hi, satisfied=False, nearest=nearest)


def check_numeric_ranges(
    values: Iterable[float], ranges: Sequence[NumericRange]
) -> tuple[list[NumericResult], list[float] | None]:
    """``[check_numeric(numbers, r) for r in ranges]``, reading ``values`` only as far as needed.

    Reading stops once every range has its first in-range number; an unsatisfied range needs
    every number (for its nearest miss). Returns the checks and the full list of numbers when
    it was read to the end, else None (the caller reads the rest later if it wants them).

    >>> r = NumericRange(field="mrr_lost", min=4800, max=4840)
    >>> values = iter([15.0, 4820.0, 99.0])
    >>> checks, numbers = check_numeric_ranges(values, [r])
    >>> checks[0].matched, numbers, list(values)
    (4820.0, None, [99.0])
    >>> checks, numbers = check_numeric_ranges(iter([15.0, 4280.0]), [r])
    >>> checks[0].nearest, numbers
    (4280.0, [15.0, 4280.0])
    >>> check_numeric_ranges(iter([1.0]), [])
    ([], None)
    """
    if not ranges:
        return [], None
    it = iter(values)
    seen: list[float] = []
    append = seen.append
    if len(ranges) == 1:
        lo, hi = ranges[0].min, ranges[0].max
        for value in it:
            append(value)
            if lo <= value <= hi:
                return [check_numeric((value,), ranges[0])], None
    else:
        pending = list(ranges)
        for value in it:
            append(value)
            pending = [r for r in pending if not r.min <= value <= r.max]
            if not pending:
                return [check_numeric(seen, r) for r in ranges], None
    return [check_numeric(seen, r) for r in ranges], seen


def _distance(value: float, rng: NumericRange) -> float:
    return rng.min - value if value < rng.min else value - rng.max


def excluded_hits(response: str, excludes: Iterable[str], lowered: str | None = None) -> list[str]:
    """The ``response_excludes`` phrases present in the response (case-insensitive).

    >>> excluded_hits("We will Refund the customer.", ["refund the customer", "cancel"])
    ['refund the customer']
    """
    hay = response.lower() if lowered is None else lowered
    return [phrase for phrase in excludes if phrase.lower() in hay]


def latency_exceeded(latency_ms: float | None, max_latency_ms: float | None) -> bool:
    """True when a budget exists and the measured latency is above it (equal is within budget).

    >>> latency_exceeded(3000.0, 3000), latency_exceeded(3000.1, 3000), latency_exceeded(5, None)
    (False, True, False)
    """
    return max_latency_ms is not None and latency_ms is not None and latency_ms > max_latency_ms


def meets_pass_ratio(satisfied: int, total: int) -> bool:
    """The seed's rule, (satisfied + paraphrase) / total >= 0.8, in exact integer arithmetic.

    A scenario with no ``response_contains`` meets it vacuously (its other checks decide).

    >>> [meets_pass_ratio(s, t) for s, t in [(4, 5), (8, 10), (7, 9), (3, 4), (0, 0)]]
    [True, True, False, False, True]
    """
    return 5 * satisfied >= 4 * total


def failure_reasons(
    *,
    satisfied: int,
    total: int,
    numeric_checks: Sequence[NumericResult],
    hits: Sequence[str],
    latency_failed: bool,
    reachable: int = 0,
    behaviour_failed: Sequence[str] = (),
) -> list[str]:
    """Why the scenario fails by the seed's rule (empty: it passes), counting ``reachable``
    more expectations as met: the candidate misses a judge could still accept. With
    ``reachable`` > 0 an empty list means "a judge could still make it pass".

    >>> failure_reasons(satisfied=2, reachable=1, total=4, numeric_checks=[],
    ...                 hits=["refund issued"], latency_failed=False)
    ['excluded phrase present: "refund issued"', 'at most 3 of 4 expectations can be met (< 80%)']
    >>> failure_reasons(satisfied=3, reachable=2, total=5, numeric_checks=[], hits=[],
    ...                 latency_failed=False)
    []
    """
    reasons = [
        f"numeric range {c.field or 'value'} out of range"
        for c in numeric_checks
        if not c.satisfied
    ]
    if hits:
        reasons.append("excluded phrase present: " + ", ".join(f'"{h}"' for h in hits))
    best = satisfied + reachable
    if not meets_pass_ratio(best, total):
        reasons.append(f"at most {best} of {total} expectations can be met (< 80%)")
    if latency_failed:
        reasons.append("latency over the enforced budget")
    reasons.extend(f"behaviour check failed: {label}" for label in behaviour_failed)
    return reasons


def passes(
    *,
    satisfied: int,
    total: int,
    numeric_checks: Sequence[NumericResult],
    hits: Sequence[str],
    latency_failed: bool,
    behaviour_failed: Sequence[str] = (),
) -> bool:
    """The seed's pass rule: (satisfied + paraphrase) / total >= 0.8, every numeric range
    satisfied, no excluded phrase present, and (when enforced) the latency budget met; plus
    every behaviour check met (``behaviour_failed`` names those that are not).

    >>> r = NumericRange(field="mrr", min=1, max=2)
    >>> passes(satisfied=4, total=5, numeric_checks=[check_numeric([1.5], r)], hits=[],
    ...        latency_failed=False)
    True
    >>> passes(satisfied=5, total=5, numeric_checks=[check_numeric([3.0], r)], hits=[],
    ...        latency_failed=False)
    False
    """
    return not failure_reasons(
        satisfied=satisfied,
        total=total,
        numeric_checks=numeric_checks,
        hits=hits,
        latency_failed=latency_failed,
        behaviour_failed=behaviour_failed,
    )


def write_attempt_failure(
    trace: ToolTrace | None, expected_tools: Iterable[str] = ()
) -> str | None:
    """Why a read-only scenario fails on its tool trace, or None.

    The seed's critical rule is read-only. Two kinds of write fail the scenario unless it
    expects that tool (``expect.tools_called`` naming it in any form,
    ``tool_names.same_tool``):

    * a *write attempt*: a write tool the read-only policy refused (it never ran);
    * an *executed write*: a write tool that ran, because the target ran its own loop and
      reports it in ``toolCalls`` (an HTTP agent) or because ``--allow-writes`` let it run.
      A tool is a write by its name (``trace.write_reason``, on the bare tool name of
      ``mcp__server__tool`` too).

    A tool allowed by exact name (``--allow-tool``, ``metadata.allow_tools``: the call's
    ``allowed_by_name``, or a name in ``expected_tools``, which the scorer extends with the
    scenario's allowed names) ran on purpose and fails nothing.

    >>> from pe_eval_core.scenarios.trace import TraceCall
    >>> t = ToolTrace(calls=[TraceCall(server="mimic-stripe", tool="create_refund",
    ...                                refused=True, write_attempt=True, is_error=True)])
    >>> write_attempt_failure(t)
    'write attempt in a read-only eval: mimic-stripe/create_refund'
    >>> write_attempt_failure(t, ["create_refund"]) is None, write_attempt_failure(None)
    (True, None)
    >>> ran = ToolTrace(calls=[TraceCall(tool="mcp__mimic-stripe__create_refund")])
    >>> write_attempt_failure(ran)
    'write executed in a read-only eval: mimic-stripe/create_refund (it ran on the server)'
    """
    if trace is None:
        return None
    expected = list(expected_tools)
    servers = [c.server for c in trace.calls]
    attempted: list[str] = []
    executed: list[str] = []
    for c in trace.calls:
        if c.allowed_by_name or any(same_tool(e, c.server, c.tool, servers) for e in expected):
            continue
        if c.write_attempt:
            attempted.append(display_name(c.server, c.tool))
        elif executed_write(c):
            executed.append(display_name(c.server, c.tool))
    parts = []
    if attempted:
        parts.append("write attempt in a read-only eval: " + ", ".join(dict.fromkeys(attempted)))
    if executed:
        parts.append(
            "write executed in a read-only eval: "
            + ", ".join(dict.fromkeys(executed))
            + " (it ran on the server)"
        )
    return "; ".join(parts) or None


def executed_writes(trace: ToolTrace | None) -> list[str]:
    """The write tools that ran in ``trace`` (``server/tool`` each, in order, repeats kept).

    >>> from pe_eval_core.scenarios.trace import trace_from_tool_calls
    >>> executed_writes(trace_from_tool_calls(["list_charges", "mcp__stripe__create_refund"]))
    ['stripe/create_refund']
    """
    if trace is None:
        return []
    return [display_name(c.server, c.tool) for c in trace.calls if executed_write(c)]


def attempted_writes(trace: ToolTrace | None) -> list[str]:
    """The write tools the read-only policy refused in ``trace`` (``server/tool`` each)."""
    if trace is None:
        return []
    return [display_name(c.server, c.tool) for c in trace.calls if c.write_attempt]


def write_fields(trace: ToolTrace | None, expected_tools: Iterable[str]) -> dict[str, object]:
    """The result's write fields: ``write_failure``, ``write_attempts``, ``writes_executed``
    (one call for the scorer; every surface reads these fields)."""
    return {
        "write_failure": write_attempt_failure(trace, expected_tools),
        "write_attempts": attempted_writes(trace),
        "writes_executed": executed_writes(trace),
    }
