"""The range reader's fast paths read exactly what their slow forms read (issue 25, target d).

``readings`` opens the phone and number-word patterns with a consumed first-character set
(``re`` skips to it in C), looks for phones only where a phone's hint is, runs the
identifier-noun regex only where the text before a number can end with a noun, checks
number words against the numbers' spans by bisection, and reads digits through
``numbers.number_spans`` (one loop). Each is compared here with the form it replaced (the
pre-change code, restated) on a table of hostile inputs and on generated ones: the letters
``re.IGNORECASE`` folds (``ſ``, the Kelvin sign, ``İ``), newlines right before a number,
hyphens, phone shapes, identifier nouns with dots, ``#`` and spaces.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_eval_core.numbers import number_spans
from pe_eval_core.numtext.mentions import _scan_numbers
from pe_eval_core.scenarios.scoring import number_reader as rr
from pe_eval_core.scenarios.scoring.range_reader import Range, read_range

OLD_NUMBER_WORD = re.compile(
    rf"""
    (?=[zotfsenZOTFSEN])
    (?<![\w\-\u2010\u2011])
    (?:
        (?P<w>{"|".join(rr._WORD_VALUES)})
      | (?P<no>no)(?=[ \t\u00a0]+(?!(?:{rr._NOT_QUANTIFIER})\b)[^\W\d_])
    )
    (?![\w\-\u2010\u2011])
    """,
    re.VERBOSE | re.IGNORECASE,
)

OLD_PHONE = re.compile(
    r"""
    (?=[+(\d])
    (?<![\w.,])
    (?:
        \+\d{1,3}(?:[ .\-]?\(?\d{1,4}\)?){2,5}
      | \(\d{3}\)[ .\-]?\d{3}[ .\-]\d{4}
      | \d{3}[.\-]\d{3}[.\-]\d{4}
      | \d{3}-\d{4}
    )
    (?![\w,]|\.\d)
    """,
    re.VERBOSE,
)


def old_is_id(raw: str, start: int, bare: bool, text: str) -> bool:
    """``_is_id`` before its fast paths: the identifier-noun regex on every bare number."""
    before = text[max(0, start - 30) : start]
    if before and (before[-1].isalnum() or before[-1] == "_"):
        return True
    tail = before[:-1] if before.endswith("\n") else before
    prefix = rr._HYPHEN_PREFIX.search(before) if tail and tail[-1] in rr._HYPHENS else None
    if prefix is not None and not prefix.group(1)[0].isdigit():
        return True
    bare = bare and raw.replace(",", "").isdigit()
    return bare and rr._ID_BEFORE.search(before) is not None


TABLE = [
    "Invoice INV-4821: lost -$4,820 in 2026; call +1 415 555 4820 or (415) 555-0123.",
    "order #4820, ticket no. 7, case nr. 12, subscription.  \t99, invoice\n4820, acct\u00a0#5",
    "ſix ſeven SIX Seven nine-teen twenty-one one-time someone none No fraud cases, no more",
    "no doubt, No  refunds; eight\u2009of them; 4\u2009820 and 1\u202f234\u00a0567",
    "555-0123 415.555.0123 +44 20 7946 0958 +12% (920) ($920) 12.345.6789",
    "INVOICE 4820 Customer 12 RECEIPT# 9 ID 3 po 4 row 5 user\n6 member.7 ref\n\n8",
    "K 4820 \u212a 12 İnvoice 4820 ınvoice 12 cuſ 7 ſub 9 ticke\u212a 5 charge · 4820",
    "4.8k-5k 10-15% $1.2-1.5M on 2026-04-29 at 10:30, v1.2.3",
    "",
    "call (415) 555 0123 today",  # each phone shape alone: its own hint must find it
    "call +14155554820 today",
    "call 415.555.0123 today",
    "call 555-0123 today",
    "twelve\nthirteen\tfourteen (fifteen) 'sixteen' eighteen—nineteen ten. zero",
]

ALPHABET = st.sampled_from(
    [
        *"0123456789 .,-+()#$%\n\t\u00a0\u2009\u202f\u2010\u2011",
        *("no", "No", "one", "ſix", "seven", "ten", "none", "invoice", "INV", "order", "id"),
        *("nr.", "number", "acct", "sub", "\u212a", "İ", "ı", "cents", "¢", "lost", "USD"),
        *("415", "555", "0123", "4,820", "2026", "x", "_", "é"),
    ]
)
TEXTS = st.lists(ALPHABET, max_size=40).map("".join)


def test_table_fixtures_are_read():
    """The table holds phones, identifiers and number words (as a reader sees the text)."""
    reads = [r for t in TABLE for r in rr.readings(t)]
    assert any(r.kind is rr.Kind.PHONE for r in reads)
    assert any(r.kind is rr.Kind.ID for r in reads)
    assert any(r.word for r in reads)


def old_number_spans(text: str) -> list[tuple[float, int, int, str | None, bool]]:
    """The spans as read before the inline decoding: every part through ``_number_parts``."""
    return [
        (value, start, end, (m["cur1"] or m["cur2"] or "").strip() or None, bool(m["pc"]))
        for m, value, start, end in _scan_numbers(text)
    ]


def _same_everywhere(text: str) -> None:
    assert number_spans(text) == old_number_spans(text)
    old_words = [(m.span(), m.group("no") is not None) for m in OLD_NUMBER_WORD.finditer(text)]
    new_words = [(m.span(), m.group("no") is not None) for m in rr._NUMBER_WORD.finditer(text)]
    assert new_words == old_words
    assert rr._phone_spans(text) == [m.span() for m in OLD_PHONE.finditer(text)]
    for _value, start, end, currency, percent in number_spans(text):
        bare = currency is None and not percent
        raw = text[start:end]
        assert rr._is_id(raw, start, bare, text) == old_is_id(raw, start, bare, text), raw
        for bare_too in (True, False):  # every branch, whatever the scanner read
            assert rr._is_id(raw, start, bare_too, text) == old_is_id(raw, start, bare_too, text)


def test_fast_paths_on_the_table():
    for text in TABLE:
        _same_everywhere(text)


@settings(max_examples=800, deadline=None)
@given(TEXTS)
def test_fast_paths_on_generated_text(text):
    _same_everywhere(text)


def test_ids_before_every_position():
    """The identifier-noun test at every offset of texts built to end in each noun form."""
    nouns = [*rr._ID_NOUNS.split("|"), "nr"]
    for noun in nouns:
        for form in (noun, noun.upper(), noun.title(), f"{noun}.", f"x{noun}", f"{noun}no"):
            for gap in ("", " ", "  \t", "\u00a0", " #", "# ", "\n", " \n", ".\n"):
                text = f"see {form}{gap}4820 and {form}{gap}#12"
                for start in range(len(text) + 1):
                    for bare in (True, False):
                        raw = "4820"
                        assert rr._is_id(raw, start, bare, text) == old_is_id(
                            raw, start, bare, text
                        ), (text, start)


def test_words_after_numbers_are_not_read_twice():
    """A number word inside a number's span is skipped (the bisection over the spans)."""
    text = "1.2million one $5 ten-fold 3 none"
    got = [(r.raw, r.word) for r in rr.readings(text)]
    assert ("one", True) in got and ("none", True) in got
    assert sum(r.word for r in rr.readings(text)) == 2


def test_long_s_number_word_behaves_as_before():
    """``ſix`` matched the old case-insensitive pattern; the new one keeps it a match."""
    assert [m.span() for m in rr._NUMBER_WORD.finditer("ſix")] == [
        m.span() for m in OLD_NUMBER_WORD.finditer("ſix")
    ]


@pytest.mark.parametrize(
    "text,value", [("ſix", 6), ("ſeven", 7), ("nıne", 9), ("NİNE", 9), ("SIX", 6), ("Ten", 10)]
)
def test_number_words_the_pattern_folds_are_read_on_raw_text(text, value):
    """A word the case-insensitive pattern matches through İ, ı or ſ has a value: on raw text
    (not folded first, as the scorer does) ``read_range`` once raised KeyError here."""
    assert [(r.raw, r.value) for r in rr.readings(f"about {text} cases")] == [(text, value)]
    assert read_range(f"about {text} cases", Range(field="cases", min=value, max=value)).satisfied
