"""The scenario pass rate: one rule for its value and one for its text, on every surface.

A pass rate is the scenario runs that passed over the runs that produced a verdict (passed or
failed). Errors (the agent unreachable, a judge error, a scenario that asserts nothing, a
cancelled run) produced none: they are never in the denominator, and are shown apart. The
report JSON, ``history show``/``list``/``compare``, the gate, the MCP tool and the dashboard
all show a run's rate as :func:`rate_text` and a tier's as :func:`tally_text`; only the seed's
markdown report keeps its own specified whole-percent layout (``scenarios.run.report``).

A leaf module (no import of the scenario package), so the history can use it when it records
a memo grading without loading the scenario code.

>>> pass_rate(15, 18), rate_text(15, 18), tally_text(6, 7)
(0.8333333333333334, '83.3%', '6/7 (85.7%)')
>>> pass_rate(0, 0), rate_text(0, 0), tally_text(0, 0)
(None, 'n/a', '0/0 (n/a)')
"""

from __future__ import annotations

from pe_eval_core.wording import fmt_pct, fmt_ratio

VERDICT_STATUSES = frozenset({"pass", "fail"})
"""The statuses that are a verdict: every other one (``error``, ``judge error``) is an error."""


def verdict_count(statuses: list[str]) -> int:
    """How many of ``statuses`` are a verdict (the denominator of their pass rate).

    >>> verdict_count(["pass", "fail", "error", "judge error"])
    2
    """
    return sum(1 for s in statuses if s in VERDICT_STATUSES)


def pass_rate(passed: int, ran: int) -> float | None:
    """Passes over the runs that produced a verdict; None when none did."""
    return passed / ran if ran else None


def rate_text(passed: int, ran: int) -> str:
    """The pass rate as every surface shows it: ``83.3%`` (``n/a``: no verdict)."""
    return fmt_pct(pass_rate(passed, ran))


def tally_text(passed: int, ran: int) -> str:
    """Passes of runs with a verdict, with the rate: ``6/7 (85.7%)`` (a tier, a run)."""
    return fmt_ratio(passed, ran)
