"""Repeats and statistics against hand-computed values (the arithmetic is written out)."""

from __future__ import annotations

import math

import pytest

from pe_eval_core.scenarios.statistics import (
    Z95,
    ScenarioStats,
    compare_runs,
    exact_mcnemar,
    pass_at_k,
    pass_hat_k,
    scenario_stats,
    tier_stats,
    wilson_interval,
)

S = ScenarioStats


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        # 1 - C(n-c, k)/C(n, k)
        (5, 3, 1, 1 - 2 / 5),  # C(2,1)/C(5,1) = 2/5            -> 0.6
        (5, 3, 2, 1 - 1 / 10),  # C(2,2)/C(5,2) = 1/10          -> 0.9
        (5, 3, 3, 1.0),  # n-c = 2 < k = 3: some pass always drawn
        (5, 1, 2, 1 - 6 / 10),  # C(4,2)/C(5,2) = 6/10          -> 0.4
        (10, 2, 3, 1 - 56 / 120),  # C(8,3)/C(10,3) = 56/120    -> 0.5333
        (4, 0, 4, 0.0),
        (1, 1, 1, 1.0),
    ],
)
def test_pass_at_k(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        # C(c, k)/C(n, k)
        (5, 3, 1, 3 / 5),
        (5, 3, 2, 3 / 10),  # C(3,2)/C(5,2) = 3/10
        (5, 3, 3, 1 / 10),  # C(3,3)/C(5,3) = 1/10
        (5, 3, 4, 0.0),  # C(3,4) = 0
        (10, 8, 3, 56 / 120),  # C(8,3)/C(10,3) = 56/120
        (3, 3, 3, 1.0),
    ],
)
def test_pass_hat_k(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, 3, 0), (5, 3, 6), (0, 0, 1)])
def test_pass_at_k_refuses_impossible_counts(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_wilson_by_hand() -> None:
    # 3 of 5: p = 0.6, z^2 = 3.841459, z^2/n = 0.768292, denominator 1.768292
    # centre = (0.6 + 0.384146) / 1.768292 = 0.984146 / 1.768292 = 0.556552
    # half = 1.959964 * sqrt(0.24/5 + 3.841459/100) / 1.768292
    #      = 1.959964 * sqrt(0.048 + 0.0384146) / 1.768292 = 1.959964 * 0.293963 / 1.768292
    #      = 0.325827  -> [0.230725, 0.882379]
    lo, hi = wilson_interval(0.6, 5)
    assert (lo, hi) == pytest.approx((0.556552 - 0.325827, 0.556552 + 0.325827), abs=1e-5)
    # 5 of 5: centre = (1 + 0.384146)/1.768292 = 0.782758, half = 1.959964*sqrt(0.0384146)/
    # 1.768292 = 1.959964*0.195996/1.768292 = 0.217242 -> [0.565516, 1.0]
    assert wilson_interval(1.0, 5) == pytest.approx((0.565516, 1.0), abs=1e-5)
    assert wilson_interval(0.5, 0) == (0.0, 1.0)
    assert abs(Z95 - 1.96) < 1e-3


def test_scenario_counts_flaky_and_errors() -> None:
    s = scenario_stats("a", "smoke", "fact_1", ["pass", "fail", "pass", "judge error", "pass"])
    assert (s.runs, s.passes, s.errors, s.flaky, s.outcome) == (4, 3, 1, True, "flaky")
    assert s.pass_at(2) == pytest.approx(1.0)  # C(1,2) = 0
    assert s.pass_hat(2) == pytest.approx(3 / 6)  # C(3,2)/C(4,2)
    assert scenario_stats("b", "t", None, ["pass"] * 3).outcome == "pass"
    assert scenario_stats("c", "t", None, ["fail"] * 3).outcome == "fail"
    assert scenario_stats("d", "t", None, ["error"] * 3).outcome == "error"


def test_tier_one_run_each_is_plain_wilson() -> None:
    scenarios = [S(n, "adversarial", None, 1, int(n in "abc")) for n in "abcde"]
    t = tier_stats("adversarial", scenarios)
    assert (t.runs, t.passes, t.rate, t.method) == (5, 3, 0.6, "wilson")
    assert (t.low, t.high) == pytest.approx(wilson_interval(0.6, 5))


def test_tier_clustered_by_source_fact_by_hand() -> None:
    scenarios = [
        S("a", "functional", "f1", 3, 3),
        S("b", "functional", "f1", 3, 2),
        S("c", "functional", "f2", 3, 0),
        S("d", "functional", "f3", 3, 1),
    ]
    # clusters: f1 y=5 m=6; f2 y=0 m=3; f3 y=1 m=3.  N = 12, p = 6/12 = 0.5, G = 3
    # residuals y - p*m: 5-3 = 2, 0-1.5 = -1.5, 1-1.5 = -0.5; squares 4 + 2.25 + 0.25 = 6.5
    # robust variance = G/(G-1) * 6.5 / N^2 = 1.5 * 6.5 / 144 = 0.0677083
    # binomial variance = p(1-p)/N = 0.25/12 = 0.0208333
    # deff = 0.0677083 / 0.0208333 = 3.25; n_eff = 12 / 3.25 = 3.6923 (inside [3, 12])
    # Wilson(0.5, 3.6923): z^2/n = 3.841459/3.6923 = 1.040395, denominator 2.040395
    # centre = (0.5 + 0.520198)/2.040395 = 0.5
    # half = 1.959964*sqrt(0.25/3.6923 + 3.841459/(4*13.6331))/2.040395
    #      = 1.959964*sqrt(0.0677083 + 0.0704432)/2.040395 = 1.959964*0.371687/2.040395
    #      = 0.357036
    t = tier_stats("functional", scenarios)
    assert t.method.startswith("wilson, clustered by source_fact")
    assert (t.clusters, t.runs, t.passes, t.rate) == (3, 12, 6, 0.5)
    assert t.deff == pytest.approx(3.25)
    assert t.n_eff == pytest.approx(12 / 3.25)
    assert (t.low, t.high) == pytest.approx((0.5 - 0.357036, 0.5 + 0.357036), abs=1e-5)
    # independent runs would claim a much narrower interval
    naive = wilson_interval(0.5, 12)
    assert naive[0] > t.low


def test_tier_all_passing_counts_each_fact_once() -> None:
    # p = 1: no variance to estimate the design effect from; n_eff = G = 2 clusters
    scenarios = [
        S("a", "smoke", "f1", 5, 5),
        S("b", "smoke", "f1", 5, 5),
        S("c", "smoke", "f2", 5, 5),
    ]
    t = tier_stats("smoke", scenarios)
    assert (t.n_eff, t.clusters) == (2.0, 2)
    assert (t.low, t.high) == pytest.approx(wilson_interval(1.0, 2))


def test_tier_without_runs() -> None:
    t = tier_stats("smoke", [S("a", "smoke", None, 0, 0, errors=3)])
    assert (t.runs, t.low, t.high, t.method) == (0, 0.0, 1.0, "none")


@pytest.mark.parametrize(
    ("b", "c", "two_sided", "one_sided"),
    [
        # X ~ Bin(b+c, 1/2); two-sided = 2 * P[X <= min(b, c)], one-sided = P[X >= b]
        (5, 0, 2 * 1 / 32, 1 / 32),  # 2 * C(5,0)/32
        (6, 0, 2 * 1 / 64, 1 / 64),  # 0.03125: significant
        (4, 1, 2 * (1 + 5) / 32, (5 + 1) / 32),  # 2 * (C(5,0)+C(5,1))/32 = 0.375
        (3, 3, 1.0, (20 + 15 + 6 + 1) / 64),  # min(1, 2 * 42/64); P[X>=3] = 42/64
        (0, 2, 2 * 1 / 4, 1.0),
        (0, 0, 1.0, 1.0),
    ],
)
def test_exact_mcnemar(b: int, c: int, two_sided: float, one_sided: float) -> None:
    p, p_reg = exact_mcnemar(b, c)
    assert p == pytest.approx(min(1.0, two_sided))
    assert p_reg == pytest.approx(one_sided)


def test_compare_lists_flaky_apart_from_regressions() -> None:
    before = {
        "r1": S("r1", "t", None, 3, 3),
        "r2": S("r2", "t", None, 3, 3),
        "fl": S("fl", "t", None, 3, 3),
        "im": S("im", "t", None, 3, 0),
        "same": S("same", "t", None, 3, 3),
        "gone": S("gone", "t", None, 3, 3),
        "err": S("err", "t", None, 3, 3),
    }
    after = {
        "r1": S("r1", "t", None, 3, 0),
        "r2": S("r2", "t", None, 3, 0),
        "fl": S("fl", "t", None, 3, 1),
        "im": S("im", "t", None, 3, 3),
        "same": S("same", "t", None, 3, 3),
        "new": S("new", "t", None, 3, 3),
        "err": S("err", "t", None, 0, 0, errors=3),
    }
    r = compare_runs(before, after)
    assert r.regressions == ("r1", "r2")
    assert r.improvements == ("im",)
    assert r.flaky == ("fl",)
    assert r.unchanged == ("same",)
    assert r.only_in_one == ("err", "gone", "new")
    # b = 2, c = 1: two-sided 2 * P[X <= 1] = 2 * (1 + 3)/8 = 1.0; P[X >= 2] = (3 + 1)/8 = 0.5
    assert (r.p_value, r.p_regression, r.significant) == (1.0, 0.5, False)
    assert "McNemar" in r.test


def test_flaky_to_always_failing_is_a_regression() -> None:
    before = {"down": S("down", "t", None, 3, 2), "up": S("up", "t", None, 3, 0)}
    after = {"down": S("down", "t", None, 3, 0), "up": S("up", "t", None, 3, 1)}
    r = compare_runs(before, after)
    assert (r.regressions, r.improvements, r.flaky) == (("down",), ("up",), ())
    # pass <-> flaky stays apart: it still passes at least once
    r = compare_runs({"w": S("w", "t", None, 3, 3)}, {"w": S("w", "t", None, 3, 1)})
    assert (r.regressions, r.flaky, r.p_value) == ((), ("w",), 1.0)


def test_six_clean_regressions_are_significant() -> None:
    before = {n: S(n, "t", None, 1, 1) for n in "abcdef"}
    after = {n: S(n, "t", None, 1, 0) for n in "abcdef"}
    r = compare_runs(before, after)
    assert r.p_value == pytest.approx(2 / 64)  # 2 * C(6,0) / 2^6
    assert r.significant
    assert math.isclose(r.p_regression, 1 / 64)
