"""Tier intervals with repeats: clustering by source_fact only ever widens them.

The reference intervals on the same data: every run taken as independent (Wilson on N runs)
and one run of each scenario at the same rate (Wilson on S scenarios). Repeats measure how
reliably each scenario passes and never count as new scenarios, so neither reference may be
wider than the tier's interval.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pe_eval_core.scenarios.statistics import ScenarioStats, tier_stats, wilson_interval

EPS = 1e-9


@st.composite
def tiers(draw: st.DrawFn) -> list[ScenarioStats]:
    """1-12 scenarios over a few facts (or none), 1-6 repeats each, some erroring."""
    n = draw(st.integers(1, 12))
    facts = draw(st.lists(st.sampled_from(["f1", "f2", "f3", "f4", None]), min_size=n, max_size=n))
    out = []
    for i, fact in enumerate(facts):
        runs = draw(st.integers(0, 6))
        passes = draw(st.integers(0, runs))
        errors = draw(st.integers(0, 2)) if runs else draw(st.integers(1, 2))
        out.append(ScenarioStats(f"s{i}", "t", fact, runs, passes, errors))
    return out


def width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]


@given(tiers())
def test_clustered_interval_is_never_narrower_than_the_unclustered_ones(scenarios) -> None:
    t = tier_stats("t", scenarios)
    ran = [s for s in scenarios if s.runs]
    if not ran:
        assert (t.low, t.high, t.method) == (0.0, 1.0, "none")
        return
    n, units = t.runs, len(ran)
    assert t.low - EPS <= t.rate <= t.high + EPS
    assert width((t.low, t.high)) >= width(wilson_interval(t.rate, n)) - EPS
    assert width((t.low, t.high)) >= width(wilson_interval(t.rate, units)) - EPS
    if all(s.runs == 1 for s in ran):  # no repeats: the plain Wilson interval on the runs
        assert (t.low, t.high) == wilson_interval(t.rate, n)
    else:
        assert t.clusters - EPS <= t.n_eff <= units + EPS


def test_repeats_no_longer_narrow_a_tier_below_its_single_run() -> None:
    """The issue's case: 8 scenarios, 3 repeats, 23/24 passes came out [79.3%, 99.3%],
    narrower than one run's 8/8 [67.6%, 100%]."""
    scenarios = [ScenarioStats(f"s{i}", "t", f"f{i}", 3, 3) for i in range(7)]
    scenarios.append(ScenarioStats("s7", "t", "f7", 3, 2))
    t = tier_stats("t", scenarios)
    single = tier_stats("t", [ScenarioStats(f"s{i}", "t", f"f{i}", 1, 1) for i in range(8)])
    assert (round(single.low, 3), single.high) == (0.676, 1.0)
    assert t.n_eff == 8.0
    assert width((t.low, t.high)) > width((single.low, single.high))
    assert (round(t.low, 3), round(t.high, 3)) == (0.622, 0.997)
