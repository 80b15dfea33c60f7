"""``range_reader.judge`` decides fields with neither cents nor rate rules inline (issue 25);
it must decide exactly as the general loop over ``_readings`` does, for every kind of number
and range (signs written, loss words, cents marks, signed fields, edges within the slack)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pe_eval_core.scenarios.scoring import range_reader as RR


def slow_judge(numbers, rng):
    rules = RR._FieldRules.of(rng.field)
    lo, hi = float(rng.min), float(rng.max)
    out = []
    for n in numbers:
        if n.kind is not RR.Kind.QUANTITY:
            out.append((False, None, RR._REJECTED[n.kind]))
            continue
        hit = next(
            ((v, r) for v, r in RR._readings(n, rules, lo, hi) if RR._within(v, lo, hi)), None
        )
        out.append((False, None, RR._OUT_OF_RANGE) if hit is None else (True, hit[0], hit[1].value))
    return out


values = st.sampled_from(
    [0.0, 1.0, -1.0, 4820.0, -4820.0, 48.2, -48.2, 0.15, 1e-10, -1e-10, 5302.0]
)
reading = st.builds(
    RR.Reading,
    raw=st.just("x"),
    start=st.just(0),
    end=st.just(1),
    value=values,
    kind=st.sampled_from(list(RR.Kind)),
    currency=st.sampled_from([None, "$"]),
    percent=st.booleans(),
    word=st.booleans(),
    sign_written=st.booleans(),
    cents_marked=st.booleans(),
    loss_word=st.sampled_from([None, "lost"]),
)
bounds = st.sampled_from([0.0, 48.2, -48.2, 4820.0, -4820.0, -5302.0, 5302.0])
fields = st.sampled_from(["mrr_lost", "net_change", "mrr_change", "total_cents", "churn_rate", "x"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(reading, max_size=6), fields, bounds, bounds)
def test_judge_equals_the_general_loop(numbers, field, a, b):
    rng = RR.Range(field=field, min=min(a, b), max=max(a, b))
    assert RR.judge(numbers, rng) == slow_judge(numbers, rng)


def test_a_loss_word_flips_a_figure_only_in_a_non_positive_range():
    n = RR.Reading("4,820", 0, 5, 4820.0, RR.Kind.QUANTITY, loss_word="lost")
    for lo, hi in [(-5302.0, 48.2), (-5302.0, 0.0), (-5302.0, -4338.0)]:
        rng = RR.Range(field="mrr_change", min=lo, max=hi)
        assert RR.judge([n], rng) == slow_judge([n], rng)
    assert RR.judge([n], RR.Range(field="mrr_change", min=-5302.0, max=48.2))[0][0] is False
