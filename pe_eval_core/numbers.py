"""Text -> typed numbers with spans: the one place pe-eval decides what a number in prose means.

Two readers share the same digit rules:

* ``extract_figures`` (memo mode) finds only *figures* a memo cites: money, percentages,
  counts of things, quarters, persistence scores and difficulty ratings. Each keeps its raw
  text, its span, and the interval its displayed precision stands for.
* ``extract_numbers`` (scenario mode) finds *every* number in an agent response, signed and
  scaled, and skips dates, clock times, ISO timestamps and version strings.

Decision table (memo mode):

>>> def show(text):
...     return [(f.kind.value, f.value, f.raw) for f in extract_figures(text)]
>>> show("leakage of $564.8M, $-564.8M, -$564.8M, ($5.2M) and $(5.2)M")
[('usd', 564800000.0, '$564.8M'), ('usd', -564800000.0, '$-564.8M'),
 ('usd', -564800000.0, '-$564.8M'), ('usd', -5200000.0, '($5.2M)'),
 ('usd', -5200000.0, '$(5.2)M')]
>>> show("$565K, $12,340, $1.2bn, $1.2 billion, $565 million, $450 thousand, $1.39B")
[('usd', 565000.0, '$565K'), ('usd', 12340.0, '$12,340'), ('usd', 1200000000.0, '$1.2bn'),
 ('usd', 1200000000.0, '$1.2 billion'), ('usd', 565000000.0, '$565 million'),
 ('usd', 450000.0, '$450 thousand'), ('usd', 1390000000.0, '$1.39B')]
>>> show("US$5.3M and USD 5.3M")
[('usd', 5300000.0, 'US$5.3M'), ('usd', 5300000.0, 'USD 5.3M')]

Money may name its currency after the amount, and a dash right after ``$`` is a sign:

>>> show("7.7M USD, -7.7 million dollars, $\u20137.7M, $ 1.2M")
[('usd', 7700000.0, '7.7M USD'), ('usd', -7700000.0, '-7.7 million dollars'),
 ('usd', -7700000.0, '$\u20137.7M'), ('usd', 1200000.0, '$ 1.2M')]

A scale applies only when attached or spelled out right after; a letter that starts a word
is never a scale, and a bare ``$`` before a word is not a figure:

>>> show("$565 by Q3; $5 MoM; $5MoM; Annualized $ at stake: $1.39B")
[('usd', 565.0, '$565'), ('usd', 5.0, '$5'), ('usd', 5.0, '$5'), ('usd', 1390000000.0, '$1.39B')]

Attached includes a no-break space before a letter, a hyphen before a word, a glued word:

>>> show("$1.2\u00a0M, $1.2-million, $1.2Million; not $5\u00a0MoM or $5-millionaires")
[('usd', 1200000.0, '$1.2\xa0M'), ('usd', 1200000.0, '$1.2-million'),
 ('usd', 1200000.0, '$1.2Million'), ('usd', 5.0, '$5'), ('usd', 5.0, '$5')]

Percentages are in percentage points; basis points convert (precision half a bp):

>>> show("12.3%, 12.3 percent, -4.1%, 150 bps, 150 basis points, ~5% of current")
[('percent', 12.3, '12.3%'), ('percent', 12.3, '12.3 percent'), ('percent', -4.1, '-4.1%'),
 ('percent', 1.5, '150 bps'), ('percent', 1.5, '150 basis points'), ('percent', 5.0, '5%')]

Counts need a count noun; quarters, scores and difficulty need their cue words:

>>> show("**23,681 loans** seen in 5 of 5 quarters, across 8 quarters")
[('count', 23681.0, '23,681 loans'), ('quarters', 5.0, '5'), ('quarters', 5.0, '5 quarters'),
 ('quarters', 8.0, '8 quarters')]
>>> show("persistence score of 0.80; rated 4/5; difficulty score of 3")
[('score', 0.8, '0.80'), ('difficulty', 4.0, '4/5'), ('difficulty', 3.0, '3')]

Not figures: bare numbers, schedules, dates, quarters-of-year, ids, row ids, years:

>>> show("weeks 2-8 from 2026-04-29 in Q3 for opp_01; rows: 118204, 40577; since 2019")
[]

A hyphen between two tokens is never a minus sign; a range shares its unit:

>>> show("a 2-8% lift worth $1.2-1.5M")
[('percent', 2.0, '2'), ('percent', 8.0, '8%'), ('usd', 1200000.0, '$1.2'),
 ('usd', 1500000.0, '1.5M')]

``[lo, hi)`` is the interval the displayed precision stands for; ``covers`` is inclusive
because producers round ties either way:

>>> f = extract_figures("$2.3M")[0]
>>> (f.lo, f.hi, f.covers(2_349_999), f.covers(2_360_000))
(2250000.0, 2350000.0, True, False)
>>> f = extract_figures("-$2.3M")[0]
>>> (f.lo, f.hi, f.negative)
(-2350000.0, -2250000.0, True)

Scenario mode (every number, signed and scaled):

>>> def nums(text):
...     return [(m.value, m.currency, m.percent) for m in extract_numbers(text)]
>>> nums("12400 and 12,400 and £12.4k and $1.2M and (1,200) and -$4,820 and 4.8%")
[(12400.0, None, False), (12400.0, None, False), (12400.0, '£', False),
 (1200000.0, '$', False), (-1200.0, None, False), (-4820.0, '$', False), (4.8, None, True)]
>>> nums("on 2026-04-29 at 10:30, 2026-04-29T10:30:00Z, v1.2.3, 3pm, April 29, 2026")
[]
>>> nums("$99 for 9 days, 3.5x, weeks 2-8, COVID-19, step (2)")
[(99.0, '$', False), (9.0, None, False), (3.5, None, False), (2.0, None, False),
 (8.0, None, False), (2.0, None, False)]
>>> nums("a 10-15% cut, $1.2-1.5M, 30m ago, 1.2M users")
[(10.0, None, True), (15.0, None, True), (1200000.0, '$', False), (1500000.0, '$', False),
 (30.0, None, False), (1200000.0, None, False)]

Other decisions on ambiguous input (each is a row in ``tests/numbers/test_numbers.py``):

* Parentheses negate an amount only when they close right after it: ``($45M)`` is -45M even
  where a reader sees an aside, ``($5.2M of leakage)`` is +5.2M. In scenario mode ``(2)`` is
  an enumeration and ``(4.8%)`` an aside; ``(1,200)``, ``(4.5)`` and ``($5)`` are negatives.
* A range shares its unit and only its low end keeps a sign; each end is its own figure
  with role ``low``/``high``. ``weeks 2-8`` and ``2024-2026`` are two positive numbers.
* Counts and quarters are whole and unsigned: ``-3 loans`` still cites 3 loans (checked, not
  dropped); ``5.5 of 8 quarters`` is not a quarters figure.
* Memo money is USD (``$``, ``US$``, ``USD`` before it; ``USD``, ``dollars``, ``US dollars``
  after it): ``£5M`` and a bare ``7.7M`` are not memo figures. A single scale letter after a
  plain space (``$5 M``) is not a scale (after a no-break space it is); ``bn``/``mm``/``mn``
  and words are, also after a hyphen (``$1.2-million``). Before a trailing currency a spaced
  letter is a scale (``7.7 M USD``).
* An en or em dash right after the currency is a sign (``$\u20137.7M``); an en dash before
  ``$`` is one only when glued to it and not after a number (``lost \u2013$3M`` is negative,
  ``$2.5k \u2013$3k`` is a range). A bare en dash before a number is punctuation.
* Scenario mode: a number hyphenated onto a word is a label (``COVID-19``, ``GPT-4``: no
  number), as is one glued to letters (``Q3``, ``opp_01``), except after a scaled number:
  ``5k-6k`` and ``$5k-$6k`` are ranges of two numbers. Bare ``30m`` stays 30 (minutes
  or metres are as likely as millions); ``12.4k``, ``1.2M``, ``1.2B`` scale. Years remain
  numbers (``in 2026``); month-name dates are skipped (``April 29, 2026``, ``May 5``).
  Basis points are not converted (``150 bps`` -> 150).
* A number too large for a float is dropped (memo mode: ``scan_figures`` returns such a
  figure apart, as unreadable, for the grader to name).
"""

from __future__ import annotations

from pe_eval_core.numtext.figures import (
    DEFAULT_COUNT_NOUNS,
    EXACT_KINDS,
    Figure,
    FigureKind,
    extract_figures,
    scan_figures,
)
from pe_eval_core.numtext.labels import extract_labelled_figures
from pe_eval_core.numtext.mentions import (
    NumberMention,
    extract_numbers,
    iter_number_spans,
    iter_number_values,
    iter_numbers,
    number_spans,
    number_values,
)
from pe_eval_core.numtext.words import extract_word_figures

__all__ = [
    "DEFAULT_COUNT_NOUNS",
    "EXACT_KINDS",
    "Figure",
    "FigureKind",
    "NumberMention",
    "extract_figures",
    "extract_labelled_figures",
    "extract_numbers",
    "extract_word_figures",
    "iter_number_spans",
    "iter_number_values",
    "iter_numbers",
    "number_spans",
    "number_values",
    "scan_figures",
]
