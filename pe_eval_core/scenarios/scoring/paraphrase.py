"""Deterministic paraphrase rules, tried on strict misses before any (paid) judge call.

Three rules, each a comparison of token sequences; the first that matches is recorded:

1. ``case/whitespace/punctuation``: words, digit groups, currency signs and ``%`` compared
   lower-cased, ignoring every other punctuation mark and spacing.
2. ``number format``: each number or amount (``numbers.extract_numbers``) compared by value,
   currency and percent-ness instead of its spelling (``£240k`` = ``£240,000``).
3. ``function words``: as 2, ignoring a few small function words (``VP Engineering`` =
   ``VP of Engineering``). Negations (``not``, ``no``) are never ignored.
4. ``number words and dates``: as 3, with the number words ``zero`` to ``twenty`` read as
   their values (``3 customers`` = ``Three customers``) and dates compared by day
   (``2026-05-12`` = ``12 May`` = ``May 12, 2026``; a year on both sides must agree).

Anything subtler (synonyms, "Procurement stage" vs "in procurement") is the judge's job.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache

from pe_eval_core.numbers import NumberMention, extract_numbers, iter_numbers
from pe_eval_core.scenarios.scoring.range_reader import prose_value

FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "for", "to", "in", "on", "at", "by", "and"})

_CURRENCY = {"$": "usd", "us$": "usd", "usd": "usd", "£": "gbp", "gbp": "gbp", "€": "eur"}
_CURRENCY |= {"eur": "eur", "¥": "jpy", "jpy": "jpy"}

# One token: a digit group with inner separators kept ("4,820" and "4.820" differ), a run of
# letters, or a sign that changes meaning (currency, percent). Other punctuation is dropped.
_TOKEN = re.compile(
    r"""
      \d+(?:[.,]\d+)*     # digit group, separators kept
    | [^\W\d_]+           # letters (any script)
    | [$£€¥%]             # meaning-bearing signs
    """,
    re.VERBOSE,
)

# Tokens a number mention can contribute besides its digits: currency and percent signs,
# single letters ("A$5", scale letters), scale and percent words, currency codes.
_NUMBER_WORDS = frozenset(
    {"$", "£", "€", "¥", "%", "bn", "mn", "mm", "tn", "thousand", "million", "billion"}
    | {"trillion", "percent", "per", "cent", "us", "usd", "gbp", "eur", "cad", "aud", "jpy"}
    | {"inr", "chf"}
)

RULE_PUNCTUATION = "case/whitespace/punctuation"
RULE_NUMBER = "number format"
RULE_FUNCTION_WORDS = "function words"
RULE_WORDS_AND_DATES = "number words and dates"


_SEP = "\x1f"  # never produced by _TOKEN, so joined token strings cannot match across tokens


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """Which rule matched, and the response text it matched."""

    rule: str
    evidence: str


class _Tokens:
    """Lower-cased tokens, searched as one separator-joined string; a token's span is computed
    on demand (only a match needs spans, and building them is most of the tokenising cost)."""

    __slots__ = ("joined", "span_at", "texts")

    def __init__(self, texts: list[str], span_at: Callable[[int], tuple[int, int]]):
        self.texts = texts
        self.joined = _SEP + _SEP.join(texts) + _SEP
        self.span_at = span_at
        """``span_at(i)``: the (start, end) of token ``i`` in the original text."""

    def find(self, needle: _Tokens) -> tuple[int, int] | None:
        """Token index range where ``needle`` occurs as a contiguous run."""
        if not needle.texts:
            return None
        pos = self.joined.find(needle.joined)
        if pos < 0:
            return None
        first = self.joined.count(_SEP, 0, pos)
        return first, first + len(needle.texts)

    def without_function_words(self) -> _Tokens:
        keep = [i for i, t in enumerate(self.texts) if t not in FUNCTION_WORDS]
        at = self.span_at
        return _Tokens([self.texts[i] for i in keep], lambda j: at(keep[j]))


class _SpansUpTo:
    """The token spans of a text, tokenised only as far as the highest index asked for."""

    __slots__ = ("_matches", "_spans")

    def __init__(self, text: str):
        self._matches = _TOKEN.finditer(text)
        self._spans: list[tuple[int, int]] = []

    def __call__(self, i: int) -> tuple[int, int]:
        spans = self._spans
        while len(spans) <= i:
            spans.append(next(self._matches).span())
        return spans[i]


def _segment_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text, start, end)]


def _segment_texts(text: str, lowered: str, start: int, end: int) -> list[str]:
    if len(lowered) == len(text):  # the usual case: tokenise the lower-cased text in C
        return _TOKEN.findall(lowered, start, end)
    return [m.group().lower() for m in _TOKEN.finditer(text, start, end)]


def _plain_tokens(text: str, lowered: str | None = None) -> _Tokens:
    low = text.lower() if lowered is None else lowered
    return _Tokens(_segment_texts(text, low, 0, len(text)), _SpansUpTo(text))


def _number_token(m: NumberMention, text: str) -> str:
    """A mention's canonical token; brackets negate only in accounting context
    (``range_reader.prose_value``)."""
    currency = _CURRENCY.get((m.currency or "").lower(), (m.currency or "").lower())
    return f"#{prose_value(m, text):.12g}|{currency}|{'%' if m.percent else ''}"


def _value_tokens(text: str, mentions: list[NumberMention], lowered: str | None = None) -> _Tokens:
    """Tokens with each number mention replaced by one canonical value token."""
    low = text.lower() if lowered is None else lowered
    bounds = [m.start for m in mentions] + [len(text)]
    texts = _segment_texts(text, low, 0, bounds[0])
    for i, m in enumerate(mentions):
        texts.append(_number_token(m, text))
        texts += _segment_texts(text, low, m.end, bounds[i + 1])

    spans: list[tuple[int, int]] = []

    def span_at(i: int) -> tuple[int, int]:
        if not spans:
            spans.extend(_segment_spans(text, 0, bounds[0]))
            for k, m in enumerate(mentions):
                spans.append((m.start, m.end))
                spans.extend(_segment_spans(text, m.end, bounds[k + 1]))
        return spans[i]

    return _Tokens(texts, span_at)


class ResponseView:
    """A response tokenised once per rule (lazily), shared by all of a scenario's misses."""

    def __init__(
        self, text: str, mentions: list[NumberMention] | None = None, lowered: str | None = None
    ):
        self.text = text
        self.lowered = text.lower() if lowered is None else lowered
        self._mentions = mentions
        self._read: list[NumberMention] = []  # mentions read so far from ``_stream``
        self._stream: Iterator[NumberMention] | None = None

    @cached_property
    def mentions(self) -> list[NumberMention]:
        if self._mentions is not None:
            return self._mentions
        if self._stream is None:
            return extract_numbers(self.text)
        return self._read + list(self._stream)

    @property
    def has_mentions(self) -> bool:
        """True once the mentions exist (passed in, or read by a rule that needed them)."""
        return self._mentions is not None or "mentions" in self.__dict__

    def first_mention(self, wanted: Callable[[NumberMention], bool]) -> NumberMention | None:
        """The first mention ``wanted`` accepts, reading the response only as far as that."""
        if self._mentions is not None or "mentions" in self.__dict__:
            return next((m for m in self.mentions if wanted(m)), None)
        hit = next((m for m in self._read if wanted(m)), None)
        if hit is not None:
            return hit
        if self._stream is None:
            self._stream = iter_numbers(self.text)
        for m in self._stream:
            self._read.append(m)
            if wanted(m):
                return m
        self.__dict__["mentions"] = self._read  # read to the end: that is all of them
        return None

    @cached_property
    def plain(self) -> _Tokens:
        return _plain_tokens(self.text, self.lowered)

    @cached_property
    def valued(self) -> _Tokens:
        return _value_tokens(self.text, self.mentions, self.lowered)

    @cached_property
    def content(self) -> _Tokens:
        return self.valued.without_function_words()

    @cached_property
    def plain_content(self) -> _Tokens:
        return self.plain.without_function_words()

    def evidence(self, tokens: _Tokens, span: tuple[int, int]) -> str:
        return self.text[tokens.span_at(span[0])[0] : tokens.span_at(span[1] - 1)[1]]


def _could_match(expected: _Tokens, response: ResponseView) -> bool:
    """Cheap necessary condition: every content word of ``expected`` occurs in the response.

    Number mentions (with their scale words) are skipped: rule 2 may match another format.
    """
    return all(
        word in response.lowered
        for word in expected.texts
        if word[0].isalpha() and word not in FUNCTION_WORDS
    )


def rule_match(expected: str, response: ResponseView) -> RuleMatch | None:
    """The first deterministic rule under which ``expected`` appears in the response.

    >>> rule_match("VP Engineering", ResponseView("Escalate to the VP of Engineering today."))
    RuleMatch(rule='function words', evidence='VP of Engineering')
    >>> rule_match("£240k", ResponseView("roughly £240,000 at risk"))
    RuleMatch(rule='number format', evidence='£240,000')
    >>> rule_match("failed-charge recovery", ResponseView("Failed charge  recovery: 8 cards"))
    RuleMatch(rule='case/whitespace/punctuation', evidence='Failed charge  recovery')
    >>> rule_match("not renewing", ResponseView("renewing")) is None
    True
    >>> rule_match("$4,820", ResponseView("4,820 lost")) is None   # currency must agree
    True
    >>> rule_match("4,820", ResponseView("4.820 lost")) is None    # separators are meaningful
    True
    >>> rule_match("3 customers", ResponseView("Three customers were billed twice."))
    RuleMatch(rule='number words and dates', evidence='Three customers')
    >>> rule_match("moved on 2026-05-12", ResponseView("They moved on 12 May."))
    RuleMatch(rule='number words and dates', evidence='moved on 12 May')
    >>> rule_match("2026-05-12", ResponseView("on 12 May 2025")) is None  # another year
    True
    """
    exp_plain, exp_valued = _expected_tokens(expected)
    if exp_valued is None:
        return _rule_match_wordy(exp_plain, response)
    if not _could_match(exp_valued, response):
        return None
    if len(exp_valued.texts) == 1 and exp_valued.texts[0][0] == "#":
        # A bare amount: look it up among the response's number mentions before tokenising.
        token = exp_valued.texts[0]
        hit = response.first_mention(lambda m: _number_token(m, response.text) == token)
        if hit is not None:
            return RuleMatch(RULE_NUMBER, hit.raw)
    span = response.plain.find(exp_plain)
    if span:
        return RuleMatch(RULE_PUNCTUATION, response.evidence(response.plain, span))
    span = response.valued.find(exp_valued)
    if span:
        return RuleMatch(RULE_NUMBER, response.evidence(response.valued, span))
    span = response.content.find(exp_valued.without_function_words())
    if span:
        return RuleMatch(RULE_FUNCTION_WORDS, response.evidence(response.content, span))
    return _rule_words_and_dates(expected, response)


def _rule_words_and_dates(expected: str, response: ResponseView) -> RuleMatch | None:
    """Rule 4: number words as values, dates by day, function words ignored."""
    exp_special = _specials(expected, {})
    if not any(tok for *_, tok in exp_special if tok[0] in "#@"):
        return None
    years = {tok: year for *_, tok, year in _date_years(expected)}
    exp = _special_tokens(expected, exp_special).without_function_words()
    resp = _special_tokens(response.text, _specials(response.text, years))
    span = resp.without_function_words().find(exp)
    if span is None:
        return None
    content = resp.without_function_words()
    return RuleMatch(RULE_WORDS_AND_DATES, response.evidence(content, span))


def _date_years(text: str) -> list[tuple[int, int, str, int | None]]:
    """``(start, end, "@m-d", year)`` per date (a numeric ``a/b/yyyy`` is skipped: either
    order could be meant)."""
    from pe_eval_core.scenarios.scoring.evidence import date_spans

    out = []
    for start, end, days in date_spans(text):
        if len(days) == 1:
            (year, month, day) = next(iter(days))
            out.append((start, end, f"@{month}-{day}", year))
    return out


def _specials(text: str, years: dict[str, int | None]) -> list[tuple[int, int, str]]:
    """Spans read as one token: dates (``@m-d``; ``@m-d!`` when the year contradicts the
    expected one), number mentions and number words (``#value|currency|%``)."""
    from pe_eval_core.scenarios.scoring.range_reader import read_numbers

    out: list[tuple[int, int, str]] = []
    for start, end, tok, year in _date_years(text):
        want = years.get(tok)
        clash = want is not None and year is not None and want != year
        out.append((start, end, tok + "!" if clash else tok))
    taken = [(a, b) for a, b, _ in out]
    for n in read_numbers(text):
        if any(a < n.end and n.start < b for a, b in taken):
            continue
        if n.word and n.raw.lower() in {"no", "none"}:
            continue  # a negation, never a value
        currency = _CURRENCY.get((n.currency or "").lower(), (n.currency or "").lower())
        out.append((n.start, n.end, f"#{n.value:.12g}|{currency}|{'%' if n.percent else ''}"))
    return sorted(out)


def _special_tokens(text: str, specials: list[tuple[int, int, str]]) -> _Tokens:
    low = text.lower()
    texts: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end, tok in specials:
        for m in _TOKEN.finditer(low, pos, start):
            texts.append(m.group())
            spans.append(m.span())
        texts.append(tok)
        spans.append((start, end))
        pos = end
    for m in _TOKEN.finditer(low, pos):
        texts.append(m.group())
        spans.append(m.span())
    return _Tokens(texts, spans.__getitem__)


@lru_cache(maxsize=4096)
def _expected_tokens(expected: str) -> tuple[_Tokens, _Tokens | None]:
    """An expected phrase's plain tokens, and its value tokens (None when it has no number
    and no digit: then they are the plain tokens). Cached: phrases recur across scenarios."""
    mentions = extract_numbers(expected)
    plain = _plain_tokens(expected)
    if not mentions and not any(_has_digit(t) for t in plain.texts):
        return plain, None
    return plain, _value_tokens(expected, mentions)


def _has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)


def _rule_match_wordy(expected: _Tokens, response: ResponseView) -> RuleMatch | None:
    """``rule_match`` for an expected phrase with no number and no digits: the same result,
    found by one regex search of the lower-cased response instead of tokenising all of it.

    Its value tokens are its plain tokens, so rule 2 can only match where rule 1 already did
    (a run of the response's value tokens without a number token is a run of its plain
    tokens). Rule 3 compares the plain tokens instead of the value tokens when no content
    word of the phrase is one a number mention could contribute (``_NUMBER_WORDS``, single
    letters): such a run then crosses no mention, so it matches in both or in neither.
    """
    if not expected.texts or not _could_match(expected, response):
        return None
    text, lowered = response.text, response.lowered
    if len(lowered) != len(text):  # lower-casing moved offsets (rare scripts): tokenise
        span = response.plain.find(expected)
        if span:
            return RuleMatch(RULE_PUNCTUATION, response.evidence(response.plain, span))
    else:
        m = _run_pattern(tuple(expected.texts), False).search(lowered)
        if m:
            return RuleMatch(RULE_PUNCTUATION, text[m.start() : m.end()])
    content = tuple(t for t in expected.texts if t not in FUNCTION_WORDS)
    if not content:
        return None
    if any(len(t) == 1 or t in _NUMBER_WORDS for t in content) or len(lowered) != len(text):
        tokens = response.content  # the comparison as specified, on value tokens
        span = tokens.find(expected.without_function_words())
        if span:
            return RuleMatch(RULE_FUNCTION_WORDS, response.evidence(tokens, span))
        return None
    m = _run_pattern(content, True).search(lowered)
    if m:
        return RuleMatch(RULE_FUNCTION_WORDS, text[m.start() : m.end()])
    return None


_NOT_AFTER_LETTER = r"(?<![^\W\d_])"
_NOT_BEFORE_LETTER = r"(?![^\W\d_])"
_NO_TOKEN = r"(?:[^\w$£€¥%]|_)*"  # characters ``_TOKEN`` drops: no letter, digit or sign
_FUNCTION_WORD = (
    f"{_NOT_AFTER_LETTER}(?:{'|'.join(sorted(FUNCTION_WORDS, key=lambda w: (-len(w), w)))})"
    f"{_NOT_BEFORE_LETTER}"
)


@lru_cache(maxsize=1024)
def _run_pattern(tokens: tuple[str, ...], skip_function_words: bool) -> re.Pattern[str]:
    """A regex matching exactly where ``tokens`` (letter runs and signs, lower-cased) occur as
    consecutive tokens of a lower-cased text, optionally with function words between them."""
    gap = _NO_TOKEN + (f"(?:{_FUNCTION_WORD}{_NO_TOKEN})*" if skip_function_words else "")
    # A word's "no letter before it" is checked after the word (``(?<![letter]word)``), so the
    # pattern opens with a literal and the regex engine can jump between its occurrences.
    parts = [
        re.escape(t)
        if len(t) == 1 and t in "$£€¥%"
        else f"{re.escape(t)}(?<![^\\W\\d_]{re.escape(t)}){_NOT_BEFORE_LETTER}"
        for t in tokens
    ]
    return re.compile(gap.join(parts))
