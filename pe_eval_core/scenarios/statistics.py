"""Repeats and statistics: pass@k, pass^k, flaky scenarios, tier intervals, paired comparisons.

Definitions (``n`` runs of a scenario that did not error, ``c`` of them passed):

* **pass@k** (Chen et al. 2021, unbiased): ``1 - C(n-c, k) / C(n, k)``, the chance that at
  least one of ``k`` runs drawn without replacement passes.
* **pass^k** (Yao et al. 2024, tau-bench): ``C(c, k) / C(n, k)``, the chance that all ``k``
  drawn runs pass.
* **flaky**: ``0 < c < n`` (it both passed and failed).
* **Tier pass rate**: passed runs / runs. With one run per scenario, a Wilson 95% score
  interval on ``(passes, runs)``. With repeats, runs of one ``source_fact`` are correlated
  (same fact, same scenario), so the interval is a Wilson interval on a cluster-adjusted
  effective sample size: ``n_eff = N / deff``, where the design effect ``deff`` is the ratio
  of the cluster-robust variance of the ratio estimator to the binomial variance,
  ``deff = [G/(G-1) * sum_g (y_g - p m_g)^2 / N^2] / [p(1-p)/N]`` (``G`` clusters by
  ``source_fact``, a scenario without one is its own cluster; ``y_g`` passes and ``m_g``
  runs of cluster ``g``; ``N`` runs). ``n_eff`` is clamped to ``[G, S]``, ``S`` the
  scenarios with a verdict: repeats measure how reliably each scenario passes, they never
  count as new scenarios, so the interval is never narrower than one run of each scenario
  at the same rate, ``wilson(p, S)`` (nor than ``wilson(p, N)``, the runs taken as
  independent). When ``p`` is 0 or 1 (no variance to estimate) ``n_eff = G``, each fact
  counted once. The interval is ``wilson(p, n_eff)``.
* **Comparing two runs**: an exact McNemar test, i.e. a two-sided binomial sign test on the
  discordant scenarios. A scenario's outcome in a run is *pass* when all its runs passed,
  *fail* when none did, *flaky* otherwise. The test pairs one binary outcome, "always
  fails" or not (:func:`pair_change`): a *regression* is a scenario that now always fails
  and did not (pass -> fail, and flaky -> fail: what sometimes worked never does now); a
  *fix* the reverse (fail -> pass, fail -> flaky). A scenario that passes at least once in
  both runs but was flaky in either (pass -> flaky, flaky -> pass, flaky -> flaky) is listed
  apart as *flaky* and is concordant, as are scenarios present in only one run or erroring
  in every repeat of one. With ``b`` regressions and ``c`` fixes,
  ``p = min(1, 2 * P[X <= min(b, c)])`` for ``X ~ Binomial(b + c, 1/2)`` (1 when
  ``b + c = 0``); ``p_regression = P[X >= b]`` is the one-sided p-value for "got worse". A
  change is significant when ``p < alpha`` (0.05).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pe_eval_core.rates import pass_rate

__all__ = [
    "Z95",
    "PairedComparison",
    "ScenarioStats",
    "TierStats",
    "compare_runs",
    "exact_mcnemar",
    "pair_change",
    "pass_at_k",
    "pass_hat_k",
    "scenario_stats",
    "tier_stats",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: ``1 - C(n-c, k) / C(n, k)``.

    >>> pass_at_k(5, 3, 1), pass_at_k(5, 3, 3), pass_at_k(5, 0, 2)
    (0.6, 1.0, 0.0)
    """
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: ``C(c, k) / C(n, k)``, every one of ``k`` drawn runs passes.

    >>> pass_hat_k(5, 3, 1), pass_hat_k(5, 3, 2), pass_hat_k(5, 5, 5)
    (0.6, 0.3, 1.0)
    """
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")


def wilson_interval(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` observed on ``n`` (possibly effective) trials.

    >>> lo, hi = wilson_interval(3 / 5, 5); round(lo, 4), round(hi, 4)
    (0.2307, 0.8824)
    >>> wilson_interval(0.0, 0)
    (0.0, 1.0)
    """
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class ScenarioStats:
    """One scenario over its repeats (errors left out)."""

    name: str
    tier: str
    source_fact: str | None
    runs: int
    passes: int
    errors: int = 0

    @property
    def flaky(self) -> bool:
        return 0 < self.passes < self.runs

    @property
    def outcome(self) -> str:
        """``pass`` (every run passed), ``fail`` (none did), ``flaky``, or ``error`` (no runs)."""
        if self.runs == 0:
            return "error"
        if self.passes == self.runs:
            return "pass"
        return "fail" if self.passes == 0 else "flaky"

    def pass_at(self, k: int) -> float:
        return pass_at_k(self.runs, self.passes, k)

    def pass_hat(self, k: int) -> float:
        return pass_hat_k(self.runs, self.passes, k)


def scenario_stats(
    name: str,
    tier: str,
    source_fact: str | None,
    statuses: Iterable[str],
) -> ScenarioStats:
    """Count one scenario's statuses (``pass``, ``fail``, ``error``, ``judge error``, ...).

    Errors (``error``, ``judge error``) are not runs: they are counted apart.

    >>> s = scenario_stats("a", "smoke", "fact_1", ["pass", "fail", "error", "pass"])
    >>> s.runs, s.passes, s.errors, s.flaky
    (3, 2, 1, True)
    """
    runs = passes = errors = 0
    for status in statuses:
        if status in ("error", "judge error"):
            errors += 1
            continue
        runs += 1
        passes += status == "pass"
    return ScenarioStats(name, tier, source_fact, runs, passes, errors)


@dataclass(frozen=True, slots=True)
class TierStats:
    """A tier's pass rate over every run, with its 95% interval and how it was computed."""

    tier: str
    scenarios: int
    runs: int
    passes: int
    rate: float
    low: float
    high: float
    method: str
    """``wilson`` (one run per scenario) or ``wilson, clustered by source_fact (design effect)``."""
    clusters: int
    n_eff: float
    deff: float


def tier_stats(tier: str, scenarios: Sequence[ScenarioStats], z: float = Z95) -> TierStats:
    """A tier's pass rate and interval (see the module docstring for the clustering).

    >>> s = [ScenarioStats("a", "t", None, 1, 1), ScenarioStats("b", "t", None, 1, 0)]
    >>> t = tier_stats("t", s); t.rate, t.method, round(t.low, 4)
    (0.5, 'wilson', 0.0945)
    """
    ran = [s for s in scenarios if s.runs > 0]
    n = sum(s.runs for s in ran)
    y = sum(s.passes for s in ran)
    rate = pass_rate(y, n)
    if rate is None:
        return TierStats(tier, len(scenarios), 0, 0, 0.0, 0.0, 1.0, "none", 0, 0.0, 1.0)
    p = rate
    if all(s.runs == 1 for s in ran):
        lo, hi = wilson_interval(p, n, z)
        return TierStats(tier, len(scenarios), n, y, p, lo, hi, "wilson", n, float(n), 1.0)
    clusters: dict[str, list[int]] = {}
    for s in ran:
        key = s.source_fact or f"scenario:{s.name}"
        acc = clusters.setdefault(key, [0, 0])
        acc[0] += s.passes
        acc[1] += s.runs
    g, units = len(clusters), len(ran)
    if p in (0.0, 1.0) or g < 2:
        deff = n / g
    else:
        robust = g / (g - 1) * sum((yg - p * mg) ** 2 for yg, mg in clusters.values()) / n**2
        deff = robust / (p * (1 - p) / n)
    n_eff = min(float(units), max(float(g), n / deff)) if deff > 0 else float(units)
    lo, hi = wilson_interval(p, n_eff, z)
    method = "wilson, clustered by source_fact (design effect)"
    return TierStats(tier, len(scenarios), n, y, p, lo, hi, method, g, n_eff, n / n_eff)


def exact_mcnemar(b: int, c: int) -> tuple[float, float]:
    """Exact McNemar on ``b`` regressions and ``c`` improvements: (two-sided p, P[X >= b]).

    >>> exact_mcnemar(5, 0)
    (0.0625, 0.03125)
    >>> exact_mcnemar(0, 0)
    (1.0, 1.0)
    """
    m = b + c
    if m == 0:
        return 1.0, 1.0
    total = 2**m
    low_tail = sum(math.comb(m, i) for i in range(min(b, c) + 1)) / total
    upper_b = sum(math.comb(m, i) for i in range(b, m + 1)) / total
    return min(1.0, 2 * low_tail), upper_b


PairChange = Literal["regression", "fix", "flaky", "pass", "fail", "error"]


def pair_change(before: ScenarioStats | None, after: ScenarioStats | None) -> PairChange:
    """How one scenario moved between two runs: the one rule every comparison uses.

    ``error``: absent from a run, or no verdict in every repeat of one; ``regression``: it
    now always fails and did not; ``fix``: it always failed and now passes at least once;
    ``pass`` / ``fail``: unchanged; ``flaky``: passing at least once in both runs, flaky in
    one of them.

    >>> S = ScenarioStats
    >>> [pair_change(S("a", "t", None, 3, x), S("a", "t", None, 3, y))
    ...  for x, y in ((3, 0), (2, 0), (0, 1), (3, 2), (2, 2), (0, 0), (3, 3))]
    ['regression', 'regression', 'fix', 'flaky', 'flaky', 'fail', 'pass']
    """
    if before is None or after is None or "error" in (before.outcome, after.outcome):
        return "error"
    was_failing, now_failing = before.outcome == "fail", after.outcome == "fail"
    if was_failing != now_failing:
        return "regression" if now_failing else "fix"
    if before.flaky or after.flaky:
        return "flaky"
    return "fail" if now_failing else "pass"


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Two runs compared scenario by scenario, with an exact paired test."""

    regressions: tuple[str, ...]
    """Always failing after, passing at least once before (pass or flaky -> fail)."""
    improvements: tuple[str, ...]
    """Always failing before, passing at least once after."""
    flaky: tuple[str, ...]
    """Passing at least once in both runs, flaky in either: listed apart, concordant."""
    unchanged: tuple[str, ...]
    only_in_one: tuple[str, ...]
    """In one run only, or erroring in every repeat of one run."""
    p_value: float
    """Two-sided exact McNemar p-value."""
    p_regression: float
    """One-sided: the chance of at least this many regressions if nothing changed."""
    significant: bool
    test: str = "exact McNemar (two-sided binomial sign test on discordant scenarios)"


def compare_runs(
    before: Mapping[str, ScenarioStats],
    after: Mapping[str, ScenarioStats],
    alpha: float = 0.05,
) -> PairedComparison:
    """Compare two runs keyed by scenario name (see the module docstring).

    >>> a = {n: ScenarioStats(n, "t", None, 1, 1) for n in "abcde"}
    >>> b = {n: ScenarioStats(n, "t", None, 1, 0) for n in "abcde"}
    >>> r = compare_runs(a, b); r.regressions, r.p_value, r.significant
    (('a', 'b', 'c', 'd', 'e'), 0.0625, False)
    """
    groups: dict[PairChange, list[str]] = {
        k: [] for k in ("regression", "fix", "flaky", "pass", "fail", "error")
    }
    for name in sorted(set(before) | set(after)):
        groups[pair_change(before.get(name), after.get(name))].append(name)
    regressions, improvements, flaky = groups["regression"], groups["fix"], groups["flaky"]
    unchanged = sorted(groups["pass"] + groups["fail"])
    only = groups["error"]
    p, p_reg = exact_mcnemar(len(regressions), len(improvements))
    return PairedComparison(
        tuple(regressions),
        tuple(improvements),
        tuple(flaky),
        tuple(unchanged),
        tuple(only),
        p,
        p_reg,
        p < alpha,
    )
