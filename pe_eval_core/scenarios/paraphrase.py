"""Deterministic paraphrase rules, tried on strict misses before any (paid) judge call.

Three rules, each a comparison of token sequences; the first that matches is recorded:

1. ``case/whitespace/punctuation``: words, digit groups, currency signs and ``%`` compared
   lower-cased, ignoring every other punctuation mark and spacing.
2. ``number format``: each number or amount (``numbers.extract_numbers``) compared by value,
   currency and percent-ness instead of its spelling (``£240k`` = ``£240,000``).
3. ``function words``: as 2, ignoring a few small function words (``VP Engineering`` =
   ``VP of Engineering``). Negations (``not``, ``no``) are never ignored.

Anything subtler (synonyms, "Procurement stage" vs "in procurement") is the judge's job.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from pe_eval_core.numbers import NumberMention, extract_numbers

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

RULE_PUNCTUATION = "case/whitespace/punctuation"
RULE_NUMBER = "number format"
RULE_FUNCTION_WORDS = "function words"


_SEP = "\x1f"  # never produced by _TOKEN, so joined token strings cannot match across tokens


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """Which rule matched, and the response text it matched."""

    rule: str
    evidence: str


class _Tokens:
    """Lower-cased tokens, searched as one separator-joined string; spans computed on demand
    (only a match needs them, and building them is most of the tokenising cost)."""

    __slots__ = ("_spans", "_spans_fn", "joined", "texts")

    def __init__(self, texts: list[str], spans_fn: Callable[[], list[tuple[int, int]]]):
        self.texts = texts
        self.joined = _SEP + _SEP.join(texts) + _SEP
        self._spans_fn = spans_fn
        self._spans: list[tuple[int, int]] | None = None

    @property
    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = self._spans_fn()
        return self._spans

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
        return _Tokens([self.texts[i] for i in keep], lambda: [self.spans[i] for i in keep])


def _segment_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text, start, end)]


def _segment_texts(text: str, lowered: str, start: int, end: int) -> list[str]:
    if len(lowered) == len(text):  # the usual case: tokenise the lower-cased text in C
        return _TOKEN.findall(lowered, start, end)
    return [m.group().lower() for m in _TOKEN.finditer(text, start, end)]


def _plain_tokens(text: str, lowered: str | None = None) -> _Tokens:
    low = text.lower() if lowered is None else lowered
    return _Tokens(
        _segment_texts(text, low, 0, len(text)), lambda: _segment_spans(text, 0, len(text))
    )


def _number_token(m: NumberMention) -> str:
    currency = _CURRENCY.get((m.currency or "").lower(), (m.currency or "").lower())
    return f"#{m.value:.12g}|{currency}|{'%' if m.percent else ''}"


def _value_tokens(text: str, mentions: list[NumberMention], lowered: str | None = None) -> _Tokens:
    """Tokens with each number mention replaced by one canonical value token."""
    low = text.lower() if lowered is None else lowered
    bounds = [m.start for m in mentions] + [len(text)]
    texts = _segment_texts(text, low, 0, bounds[0])
    for i, m in enumerate(mentions):
        texts.append(_number_token(m))
        texts += _segment_texts(text, low, m.end, bounds[i + 1])

    def spans() -> list[tuple[int, int]]:
        out = _segment_spans(text, 0, bounds[0])
        for i, m in enumerate(mentions):
            out.append((m.start, m.end))
            out += _segment_spans(text, m.end, bounds[i + 1])
        return out

    return _Tokens(texts, spans)


class ResponseView:
    """A response tokenised once per rule (lazily), shared by all of a scenario's misses."""

    def __init__(
        self, text: str, mentions: list[NumberMention] | None = None, lowered: str | None = None
    ):
        self.text = text
        self.lowered = text.lower() if lowered is None else lowered
        self._mentions = mentions

    @cached_property
    def mentions(self) -> list[NumberMention]:
        return extract_numbers(self.text) if self._mentions is None else self._mentions

    @property
    def has_mentions(self) -> bool:
        """True once the mentions exist (passed in, or read by a rule that needed them)."""
        return self._mentions is not None or "mentions" in self.__dict__

    @cached_property
    def plain(self) -> _Tokens:
        return _plain_tokens(self.text, self.lowered)

    @cached_property
    def valued(self) -> _Tokens:
        return _value_tokens(self.text, self.mentions, self.lowered)

    @cached_property
    def content(self) -> _Tokens:
        return self.valued.without_function_words()

    def evidence(self, tokens: _Tokens, span: tuple[int, int]) -> str:
        spans = tokens.spans
        return self.text[spans[span[0]][0] : spans[span[1] - 1][1]]


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
    """
    exp_valued = _value_tokens(expected, extract_numbers(expected))
    if not _could_match(exp_valued, response):
        return None
    if len(exp_valued.texts) == 1 and exp_valued.texts[0][0] == "#":
        # A bare amount: look it up among the response's number mentions before tokenising.
        token = exp_valued.texts[0]
        hit = next((m for m in response.mentions if _number_token(m) == token), None)
        if hit is not None:
            return RuleMatch(RULE_NUMBER, hit.raw)
    exp_plain = _plain_tokens(expected)
    span = response.plain.find(exp_plain)
    if span:
        return RuleMatch(RULE_PUNCTUATION, response.evidence(response.plain, span))
    span = response.valued.find(exp_valued)
    if span:
        return RuleMatch(RULE_NUMBER, response.evidence(response.valued, span))
    span = response.content.find(exp_valued.without_function_words())
    if span:
        return RuleMatch(RULE_FUNCTION_WORDS, response.evidence(response.content, span))
    return None
