"""Numbers read with meaning: the careful reader's table, each rule's rows, the seed beside it."""

from __future__ import annotations

import re
from typing import NamedTuple

import pytest

from pe_eval_core.scenarios.scoring.range_reader import (
    Kind,
    Range,
    Reason,
    normalize_separators,
    range_satisfied,
    read_numbers,
    read_range,
)

# Ranges as Mimic generates them: +-10% around a fact's value.
LOST = ("total_mrr_lost", 4338, 5302)  # fact: $4,820 of MRR lost
LOST_CENTS = ("total_mrr_lost_cents", 433800, 530200)  # the same fact in cents
LOST_CENTS_TIGHT = ("total_mrr_lost_cents", 481000, 483000)
CHANGE = ("mrr_change", -5302, -4338)  # the same fact as a signed change
GROWTH = ("mrr_growth", 4338, 5302)  # a growth of $4,820 (sign is the fact)
FAILED = ("failed_charge_count", 7.2, 8.8)  # fact: 8 failed charges
CUSTOMERS = ("at_risk_customers", 10.8, 13.2)  # fact: 12 customers
ACTIVE = ("active_customers", 1818, 2222)  # fact: 2,020 active customers
FRAUD = ("fraud_case_count", 0, 0)  # fact: no fraud cases
CHURN_RATE = ("churn_rate", 0.135, 0.165)  # fact: 15% churn, stored as a fraction
CHURN_PCT = ("churn_pct", 13.5, 16.5)  # the same fact in percentage points
DISCOUNT = ("avg_discount", 13.5, 16.5)  # not a rate field: no percent/fraction conversion
ORDER_VALUE = ("avg_order_value", 0.135, 0.165)
TICKETS = ("open_ticket_value", 11111, 13580)  # fact: $12,345 in open tickets
DAYS = ("days_overdue", -31.9, -26.1)  # a signed (negative) figure near 29
MINUTES = ("avg_handle_minutes", 27, 33)
SCORE = ("health_score", 4.5, 5.0)


class Case(NamedTuple):
    text: str
    rng: tuple[str, float, float]
    careful: bool
    """What a careful reader decides: does the response state a number in this range?"""
    why: str


# Every row labelled by hand, as a careful reader decides. ``TABLE`` is the 50-case table the
# issue refers to (25 rows each way); ``EXTRA`` are further rows, held apart from the count.
ROWS: list[Case] = [
    # --- satisfied ---------------------------------------------------------------------------
    Case("We lost $4,820 in MRR this month.", LOST, True, "plain amount"),
    Case("MRR impact: -$4,820", LOST, True, "loss by sign vs positive range"),
    Case("MRR impact: ($4,820)", LOST, True, "accounting brackets"),
    Case("Net MRR: \u2212$4,820 this month", LOST, True, "U+2212 minus"),
    Case("MRR impact: $-4,820", LOST, True, "sign after currency"),
    Case("Total MRR lost: $4,820", LOST_CENTS_TIGHT, True, "dollars against cents"),
    Case("Lost MRR (cents): -482000", LOST_CENTS, True, "signed integer cents"),
    Case("Lost MRR: 482000 cents", LOST_CENTS, True, "cents as cents"),
    Case("We lost 482,000 cents of MRR", LOST, True, "cents against dollars"),
    Case("Lost $4\u2009820 of MRR", LOST, True, "thin space separator"),
    Case("Lost $4\u202f820 of MRR", LOST, True, "narrow no-break space separator"),
    Case("Lost $4\u00a0820 of MRR", LOST, True, "no-break space separator"),
    Case("Lost $4.82k of MRR", LOST, True, "scaled amount"),
    Case("Roughly ~$4.8K lost", LOST, True, "approximate scaled amount"),
    Case("4,820 USD lost", LOST, True, "currency code after"),
    Case("Total: $4,820.00", LOST, True, "cents decimals"),
    Case("MRR change: lost $4,820", CHANGE, True, "loss word vs negative range"),
    Case("MRR change: -$4,820", CHANGE, True, "signed vs negative range"),
    Case("MRR dropped by 4,820 dollars", CHANGE, True, "loss word, dollars word"),
    Case("Churn is 15% this quarter", CHURN_RATE, True, "percent vs fraction range"),
    Case("Churn rate: 15.0 percent", CHURN_RATE, True, "percent word vs fraction range"),
    Case("Churn came in at 0.15", CHURN_PCT, True, "fraction vs point range"),
    Case("Churn came in at 15%", CHURN_PCT, True, "percent vs point range"),
    Case("Churn rate 0.15 for the cohort", CHURN_RATE, True, "fraction vs fraction"),
    Case("Eight cards failed to charge", FAILED, True, "number word"),
    Case("8 failed charges in 2026", FAILED, True, "count beside a year"),
    Case("$4,820 churned across 8 customers", FAILED, True, "count after an amount"),
    Case("Twelve customers are at risk", CUSTOMERS, True, "number word, capitalised"),
    Case("No fraud cases were found", FRAUD, True, "'no' as zero"),
    Case("Fraud cases: none", FRAUD, True, "'none' as zero"),
    Case("We saw zero fraud cases", FRAUD, True, "'zero' as zero"),
    Case("0 fraud cases this month", FRAUD, True, "digit zero"),
    Case("2,020 active customers", ACTIVE, True, "count with separator near a year"),
    Case("2020 customers are active", ACTIVE, True, "4-digit count before a count noun"),
    Case("Open tickets are worth $12,345", TICKETS, True, "amount near an id-like value"),
    Case("Average handle time is 30 minutes", MINUTES, True, "minutes"),
    Case("Health score 4.8 of 5", SCORE, True, "decimal score"),
    # --- not satisfied -----------------------------------------------------------------------
    Case("Since 2021 we have grown steadily", ACTIVE, False, "year"),
    Case("Q2 2021 cohort review", ACTIVE, False, "year after a quarter"),
    Case("Invoice INV-4821 is overdue", LOST, False, "invoice number"),
    Case("See invoice 4820 for details", LOST, False, "invoice number after the noun"),
    Case("Invoice #4820 was voided", LOST, False, "invoice number after #"),
    Case("Order 4820 shipped late", LOST, False, "order id"),
    Case("Call +1 415 555 4820 to escalate", LOST, False, "phone number"),
    Case("Support line: (415) 555-4820", LOST, False, "phone number, brackets"),
    Case("Support line 555-4820", LOST, False, "short phone number"),
    Case("Customer cus_GL007 churned", FAILED, False, "customer id"),
    Case("Invoice in_quill_apr2 failed", ("failed_invoice_count", 1.8, 2.2), False, "invoice id"),
    Case("Ticket #12345 is open", TICKETS, False, "ticket id"),
    Case("Renewal due 2026-04-29", DAYS, False, "ISO date"),
    Case("Meeting at 10:30 tomorrow", MINUTES, False, "clock time"),
    Case("Updated 04/29/2026", MINUTES, False, "slash date"),
    Case("Running version 4.8.2", SCORE, False, "version string"),
    Case(
        "$4,820 is the amount",
        ("total_mrr_lost_cents", 4338, 5302),
        False,
        "$4,820 is 482,000 cents, not 4,820",
    ),
    Case("MRR growth: -$4,820", GROWTH, False, "a fall is not a growth"),
    Case("Lost $48,200 of MRR", LOST, False, "ten times the fact"),
    Case("Lost $4,820 of MRR", ("total_mrr_lost", 5000, 6000), False, "out of range"),
    Case("Churn was 15%", ("churn_rate", 0.3, 0.4), False, "rate out of range"),
    Case("Average discount 0.15", DISCOUNT, False, "not a rate field: fraction stays"),
    Case("Average order value 15%", ORDER_VALUE, False, "not a rate field: percent stays"),
    Case("Twenty-one customers are at risk", ("at_risk_customers", 20, 20), False, "21 not 20"),
    Case("No more than 8 retries were made", FRAUD, False, "'no more' is not zero"),
    Case("No, we lost $12,000 to fraud", FRAUD, False, "'No,' is not a quantity"),
    Case("A one-time credit was issued", ("credit_count", 1, 1), False, "hyphenated word"),
    Case("Someone flagged it", ("flag_count", 1, 1), False, "'one' inside a word"),
]


EXTRA_ROWS = frozenset(
    {
        "approximate scaled amount",
        "currency code after",
        "cents decimals",
        "loss word, dollars word",
        "percent word vs fraction range",
        "percent vs point range",
        "fraction vs fraction",
        "count after an amount",
        "digit zero",
        "amount near an id-like value",
        "minutes",
        "decimal score",
        "out of range",
        "rate out of range",
        "'one' inside a word",
    }
)
TABLE = [c for c in ROWS if c.why not in EXTRA_ROWS]
EXTRA = [c for c in ROWS if c.why in EXTRA_ROWS]


def rng_of(case: Case) -> Range:
    field, lo, hi = case.rng
    return Range(field=field, min=lo, max=hi)


def test_table_is_fifty_cases_both_ways() -> None:
    assert len(TABLE) == 50
    assert sum(c.careful for c in TABLE) == 25
    assert len({c.why for c in ROWS}) == len(ROWS)  # ids are unique
    assert len(EXTRA) == len(EXTRA_ROWS)


@pytest.mark.parametrize("case", ROWS, ids=[c.why for c in ROWS])
def test_reader_agrees_with_careful_reader(case: Case) -> None:
    read = read_range(case.text, rng_of(case))
    assert read.satisfied is case.careful, [(n.raw, n.read_as, n.reason) for n in read.numbers]


# --- the seed's regex, side by side -----------------------------------------------------------

SEED_NUMBER = re.compile(r"[-+]?\d{1,3}(,\d{3})*(\.\d+)?|[-+]?\d+(\.\d+)?")
"""The seed's pattern, verbatim: /[-+]?\\d{1,3}(,\\d{3})*(\\.\\d+)?|[-+]?\\d+(\\.\\d+)?/g."""


def seed_satisfied(text: str, lo: float, hi: float) -> bool:
    """The seed's rule: regex-extract, strip commas, any number within [min, max]."""
    values = [float(m.group().replace(",", "")) for m in SEED_NUMBER.finditer(text)]
    return any(lo <= v <= hi for v in values)


SEED_AGREES = 24
"""Measured: the seed's rule agrees with the careful reader on this many of the 50 rows."""


def test_seed_regex_and_reader_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        (c, seed_satisfied(c.text, c.rng[1], c.rng[2]), range_satisfied(c.text, rng_of(c)))
        for c in TABLE
    ]
    seed_agree = sum(seed is c.careful for c, seed, _ in rows)
    reader_agree = sum(reader is c.careful for c, _, reader in rows)
    extra_reader = sum(range_satisfied(c.text, rng_of(c)) is c.careful for c in EXTRA)
    with capsys.disabled():
        print(
            f"\n50-case number table: seed regex agrees {seed_agree}/50, reader {reader_agree}/50"
        )
        print(f"extra rows: reader {extra_reader}/{len(EXTRA)}")
        for c, seed, _ in rows:
            if seed is not c.careful:
                print(f"  seed wrong: {c.text!r} careful={c.careful} ({c.why})")
    assert reader_agree == 50
    assert extra_reader == len(EXTRA)
    assert seed_agree == SEED_AGREES


# --- each rule, with the reason it reports ----------------------------------------------------

REASONS = [
    ("lost $4,820", LOST, "$4,820", Reason.SIGNED, 4820.0),
    ("-$4,820", LOST, "-$4,820", Reason.MAGNITUDE, 4820.0),
    ("($4,820)", LOST, "($4,820)", Reason.MAGNITUDE, 4820.0),
    ("lost $4,820", CHANGE, "$4,820", Reason.LOSS_WORD, -4820.0),
    ("$4,820", LOST_CENTS, "$4,820", Reason.CENTS_FROM_AMOUNT, 482000.0),
    ("-482000", LOST_CENTS, "-482000", Reason.MAGNITUDE, 482000.0),
    ("482,000 cents", LOST, "482,000", Reason.DOLLARS_FROM_CENTS, 4820.0),
    ("15%", CHURN_RATE, "15%", Reason.PERCENT_AS_FRACTION, 0.15),
    ("0.15", CHURN_PCT, "0.15", Reason.FRACTION_AS_PERCENT, 15.0),
    ("eight", FAILED, "eight", Reason.SIGNED, 8.0),
    ("No fraud cases", FRAUD, "No", Reason.SIGNED, 0.0),
]


@pytest.mark.parametrize(("text", "rng", "raw", "reason", "read_as"), REASONS)
def test_accepted_number_reports_its_rule(text, rng, raw, reason, read_as) -> None:
    read = read_range(text, Range(*rng))
    m = read.matched
    assert m is not None
    assert (m.raw, m.reason, m.read_as) == (raw, reason.value, pytest.approx(read_as))


KINDS = [
    ("in 2026", [("2026", Kind.YEAR)]),
    ("2026 customers", [("2026", Kind.QUANTITY)]),
    ("invoice 4820", [("4820", Kind.ID)]),
    ("invoice: $4,820", [("$4,820", Kind.QUANTITY)]),
    ("Invoices: 4820", [("4820", Kind.QUANTITY)]),
    ("ticket no. 77", [("77", Kind.ID)]),
    ("#12345", [("12345", Kind.ID)]),
    ("+44 20 7946 0958", [(r, Kind.PHONE) for r in ("+44", "20", "7946", "0958")]),
    ("(415) 555-0123", [(r, Kind.PHONE) for r in ("415", "555", "0123")]),
    ("$4\u2009820", [("$4\u2009820", Kind.QUANTITY)]),
    ("twenty-one and one-off but twenty", [("twenty", Kind.QUANTITY)]),
    ("no longer, no doubt, no way; no risk", [("no", Kind.QUANTITY)]),
    ("on 2026-04-29 at 10:30", []),
]


@pytest.mark.parametrize(("text", "expected"), KINDS)
def test_what_a_number_is(text: str, expected: list[tuple[str, Kind]]) -> None:
    assert [(n.raw, n.kind) for n in read_numbers(text)] == expected


def test_rejected_numbers_say_why_and_nearest_is_a_quantity() -> None:
    read = read_range("Invoice 4820 from 2026; call 555-4820; lost $3,000", Range(*LOST))
    assert not read.satisfied
    assert [n.reason for n in read.numbers] == [
        Reason.ID.value,
        Reason.YEAR.value,
        Reason.PHONE.value,
        Reason.PHONE.value,
        Reason.OUT_OF_RANGE.value,
    ]
    assert read.nearest == 3000.0
    assert read.matched is None


def test_separators_keep_spans() -> None:
    text = "lost $4\u2009820 and 1\u202f234\u00a0567 users"
    assert len(normalize_separators(text)) == len(text)
    numbers = read_numbers(text)
    assert [text[n.start : n.end] for n in numbers] == [n.raw for n in numbers]
    assert [n.value for n in numbers] == [4820.0, 1234567.0]
