"""Property tests for pe_eval_core.numbers: round-trips, precision bounds, span invariants."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pe_eval_core.numbers import (
    EXACT_KINDS,
    Figure,
    FigureKind,
    NumberMention,
    extract_figures,
    extract_numbers,
    number_values,
)
from tests.helpers.number_strategies import (
    CONTEXT_WORDS,
    FIGURE_TEXT,
    TRAILING_WORDS,
    Formatted,
    Written,
    producer_money,
    producer_percent,
    written_numbers,
)


def _embed(before: str, core: str, after: str) -> tuple[str, int]:
    prefix = f"{before} " if before else ""
    return f"{prefix}{core}{after}", len(prefix)


def _check_parsed_back(kind: FigureKind, item: Formatted, before: str, after: str) -> Figure:
    text, offset = _embed(before, item.text, after)
    figures = extract_figures(text)
    assert len(figures) == 1, (text, figures)
    figure = figures[0]
    assert figure.kind is kind
    assert (figure.raw, figure.start) == (item.text, offset)
    assert figure.negative is item.negative_sign
    assert figure.lo < figure.hi
    assert figure.lo <= figure.value <= figure.hi
    assert figure.covers(item.true_value), (item, figure)
    return figure


@given(producer_money(), CONTEXT_WORDS, TRAILING_WORDS)
@example(Formatted("$2.2M", 2_250_000.0, False), "", "")  # a tie rounded half to even
@example(Formatted("$1.2M", 1_249_999.0, False), "", "")  # >1% off, inside the precision
@example(Formatted("$45K", 45_499.0, False), "", "")
@example(Formatted("$1K", 500.0, False), "", "")
def test_producer_money_parses_back_within_displayed_precision(
    item: Formatted, before: str, after: str
) -> None:
    figure = _check_parsed_back(FigureKind.USD, item, before, after)
    assert (figure.value < 0) is item.negative_sign


@given(producer_percent(), CONTEXT_WORDS, TRAILING_WORDS)
@example(Formatted("12.3%", 12.25, False), "", "")
@example(Formatted("150 bps", 1.504, False), "", "")
def test_producer_percent_parses_back_within_displayed_precision(
    item: Formatted, before: str, after: str
) -> None:
    _check_parsed_back(FigureKind.PERCENT, item, before, after)


@given(producer_money())
def test_precision_interval_is_symmetric_about_the_value(item: Formatted) -> None:
    (figure,) = extract_figures(item.text)
    low_gap, high_gap = figure.value - figure.lo, figure.hi - figure.value
    assert abs(low_gap - high_gap) <= 1e-9 * max(abs(figure.value), 1.0)


@given(written_numbers(), st.sampled_from(["", "got", "refund of", "(about"]))
@example(Written("12400", Decimal(12400), None, False), "")
@example(Written("-$4,820", Decimal(-4820), "$", False), "got")
@example(Written("(1,200)", Decimal(-1200), None, False), "")
def test_extract_numbers_round_trips_written_numbers(item: Written, before: str) -> None:
    text, offset = _embed(before, item.text, " today")
    mentions = extract_numbers(text)
    assert len(mentions) == 1, (text, mentions)
    mention = mentions[0]
    assert mention.value == float(item.value)
    assert (mention.raw, mention.start) == (item.text, offset)
    assert (mention.currency, mention.percent) == (item.currency, item.percent)


def _assert_span_invariants(text: str, items: list[Figure] | list[NumberMention]) -> None:
    previous_end = 0
    for item in items:
        assert text[item.start : item.end] == item.raw
        assert item.start < item.end
        assert item.start >= previous_end, f"overlap or disorder at {item!r}"
        previous_end = item.end


@given(FIGURE_TEXT)
def test_figure_spans_match_raw_never_overlap_and_bound_the_value(text: str) -> None:
    figures = extract_figures(text)
    _assert_span_invariants(text, figures)
    for figure in figures:
        if figure.kind is FigureKind.COUNT and figure.lo != figure.hi:
            # a count written rounded ("58k loans", "212,000 loans") spans its precision
            assert figure.lo < figure.value < figure.hi
        elif figure.kind in EXACT_KINDS:
            assert figure.lo == figure.value == figure.hi
        else:
            assert figure.lo < figure.value < figure.hi
        if figure.value != 0:
            assert figure.negative is (figure.value < 0)


@given(FIGURE_TEXT)
def test_number_spans_match_raw_and_never_overlap(text: str) -> None:
    _assert_span_invariants(text, extract_numbers(text))


@given(FIGURE_TEXT)
def test_number_values_are_exactly_the_mention_values(text: str) -> None:
    # The scorer's fast path must never disagree with the mentions (signs, scales, -0.0).
    assert [repr(v) for v in number_values(text)] == [repr(m.value) for m in extract_numbers(text)]


@given(FIGURE_TEXT, st.sampled_from([" ", "\n", "  ", "\t"]))
def test_leading_whitespace_only_shifts_spans(text: str, pad: str) -> None:
    """A figure at offset 0 reads exactly as it would after a space (the scanner's two paths)."""

    def shifted(items, by):
        return [(type(i).__name__, i.value, i.raw, i.start + by) for i in items]

    assert shifted(extract_figures(pad + text), 0) == shifted(extract_figures(text), len(pad))
    assert shifted(extract_numbers(pad + text), 0) == shifted(extract_numbers(text), len(pad))


@given(st.lists(producer_money(), min_size=1, max_size=8))
def test_every_figure_in_a_list_is_found_in_order(items: list[Formatted]) -> None:
    text = "; ".join(f"cohort {i} lost {item.text}" for i, item in enumerate(items))
    figures = extract_figures(text)
    assert [f.raw for f in figures] == [item.text for item in items]
    assert all(f.covers(item.true_value) for f, item in zip(figures, items, strict=True))


@given(
    st.integers(min_value=0, max_value=10**9),
    st.sampled_from(["loans", "accounts", "borrowers", "rows"]),
    st.booleans(),
)
def test_counts_parse_back_exactly(n: int, noun: str, bold: bool) -> None:
    written = f"{n:,} {noun}"
    text = f"across **{written}** in total" if bold else f"across {written} in total"
    (figure,) = extract_figures(text)
    assert (figure.kind, figure.value, figure.raw) == (FigureKind.COUNT, float(n), written)
    digits = str(n)
    significant = digits.rstrip("0")
    zeros = len(digits) - len(significant)
    if len(digits) >= 4 and zeros >= 2 and len(significant) >= 2:  # written rounded
        assert (figure.lo, figure.hi) == (n - 10**zeros / 2, n + 10**zeros / 2)
    else:
        assert figure.lo == figure.hi == n


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=40))
def test_k_of_m_quarters_parse_back_exactly(m: int, k: int) -> None:
    observed, total = extract_figures(f"loss observed in {k} of {m} quarters")
    assert (observed.value, observed.role) == (k, "observed")
    assert (total.value, total.role, total.raw) == (m, "total", f"{m} quarters")


@given(st.floats(min_value=0, max_value=1), st.sampled_from([1, 2]))
def test_persistence_score_covers_its_true_value(x: float, places: int) -> None:
    (figure,) = extract_figures(f"(persistence score of {x:.{places}f})")
    assert figure.kind is FigureKind.SCORE
    assert figure.covers(x)
    assert figure.hi - figure.lo == pytest.approx(10.0**-places)
