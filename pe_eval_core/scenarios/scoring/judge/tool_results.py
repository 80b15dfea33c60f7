"""The tool results a judge sees for ``response_accurate`` and ``custom`` claims, cut to a budget.

A judge asked "does the response accomplish the goal accurately?" with only the response in
front of it cannot tell a wrong total from a right one. Mimic's own accuracy check shows its
judge the ground truth; pe-eval shows the judge what the agent read: the trace's tool results.

The budget is shared fairly (``tool_evidence``): every result keeps up to an equal share, and
what a short result does not use goes to the longer ones, so one long listing cannot crowd out
the small result that holds the answer. Each cut result says how much of it was left out, and
``ToolEvidence.cut`` states the cut in one line for the prompt and the report. Results the
trace itself kept cut (``… [N more chars]``) are counted as cut too.

>>> from pe_eval_core.scenarios.trace import ToolTrace, TraceCall
>>> t = ToolTrace(calls=[TraceCall(server="db", tool="get_payments", arguments={"limit": 2},
...                                result_excerpt='[{"amount_cents": 24900}]')])
>>> print(tool_evidence(t).text)
[1] db/get_payments({"limit": 2})
[{"amount_cents": 24900}]
>>> tool_evidence(t).cut is None, tool_evidence(ToolTrace()) is None
(True, True)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pe_eval_core.scenarios.tool_names import display_name
from pe_eval_core.scenarios.trace import ToolTrace

__all__ = ["JUDGE_EVIDENCE_CHARS", "ToolEvidence", "tool_evidence"]

JUDGE_EVIDENCE_CHARS = 12_000
"""Characters of tool results a judge prompt carries (about 3,000 tokens)."""

_TRACE_CUT = re.compile(r"… \[(\d+) more chars\]$")


@dataclass(frozen=True, slots=True)
class ToolEvidence:
    """The rendered results, and the cut in words (None when nothing was left out)."""

    text: str
    cut: str | None
    results: int
    """Tool results shown (refused calls and calls without a result are not)."""


def _shares(lengths: list[int], budget: int) -> list[int]:
    """Water-filling: each gets at most an equal share of what is left; unused share flows on.

    >>> _shares([100, 5000, 50], 1000)
    [100, 850, 50]
    """
    out = [0] * len(lengths)
    left = budget
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for k, i in enumerate(order):
        share = left // (len(order) - k)
        out[i] = min(lengths[i], share)
        left -= out[i]
    return out


def tool_evidence(
    trace: ToolTrace | None, budget: int = JUDGE_EVIDENCE_CHARS
) -> ToolEvidence | None:
    """The trace's tool results for a judge prompt, at most ``budget`` characters of results
    (headers aside), or None when the trace holds none.

    >>> from pe_eval_core.scenarios.trace import ToolTrace, TraceCall
    >>> long = TraceCall(tool="list_invoices", result_excerpt="x" * 5000)
    >>> short = TraceCall(tool="get_mrr", result_excerpt='{"mrr": 4820}')
    >>> ev = tool_evidence(ToolTrace(calls=[long, short]), budget=1000)
    >>> ev.cut.split(": ")[1]
    '1 of 2 shortened, 4,013 characters left out'
    >>> ev.text.endswith('{"mrr": 4820}')
    True
    """
    if trace is None:
        return None
    shown = [c for c in trace.calls if c.result_excerpt is not None and not c.refused]
    if not shown:
        return None
    bodies = []
    dropped_in_trace = 0
    for c in shown:
        body = c.result_excerpt or ""
        m = _TRACE_CUT.search(body)
        if m:
            dropped_in_trace += int(m.group(1))
            body = body[: m.start()]
        bodies.append(body)
    shares = _shares([len(b) for b in bodies], budget)
    blocks = []
    shortened = dropped = 0
    for i, (c, body, keep) in enumerate(zip(shown, bodies, shares, strict=True), 1):
        args = json.dumps(c.arguments, ensure_ascii=False, sort_keys=True, default=str)
        head = f"[{i}] {display_name(c.server, c.tool)}({args if c.arguments else ''})"
        if keep < len(body):
            shortened += 1
            dropped += len(body) - keep
            body = f"{body[:keep]}… [{len(body) - keep} more characters not shown]"
        blocks.append(f"{head}\n{body}")
    cut = None
    if shortened or dropped_in_trace:
        parts = []
        if shortened:
            parts.append(
                f"tool results cut to {budget:,} characters for the judge: {shortened} of "
                f"{len(shown)} shortened, {dropped:,} characters left out"
            )
        if dropped_in_trace:
            parts.append(f"{dropped_in_trace:,} more characters were already cut in the trace")
        cut = "; ".join(parts)
    return ToolEvidence("\n\n".join(blocks), cut, len(shown))
