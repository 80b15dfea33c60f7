"""Phrase matching that cannot accept the opposite: word boundaries and negation in context.

Three checks share one matcher and one negation detector:

* ``check_contains`` (strict, ``response_contains``): a word-bounded, case-insensitive hit
  satisfies; a hit whose sentence is negated is reported ``needs judge`` (the caller defers to
  the judge instead of passing); no hit is a candidate miss.
* ``check_span`` (rule matches from ``paraphrase.rule_match``): the same decision for a span
  another rule found; a span that starts or ends inside a word is ``missed``.
* ``check_excluded`` (``response_excludes``): a phrase counts only when asserted. An
  un-negated hit is ``asserted`` (the scenario fails); a hit only inside negated sentences is
  ``needs judge``, and without a judge it fails closed (``asserted``).

Rules:

1. **Word boundaries.** A phrase that starts (ends) with a letter or digit matches only where
   no letter, digit or ``_`` precedes (follows) it: "all paid" is not in "overall paid rate",
   "risk" is not in "risky". Any run of whitespace in the phrase matches any run of
   whitespace; case is ignored.
2. **Sentence.** A hit's sentence runs from the previous ``.``/``!``/``?``/``;`` followed by
   a space (or a line break, or the start) to the next one; a decimal point is not a break.
3. **Negation.** A sentence is negated around a hit when a cue occurs in it *outside the
   hit*: ``no``, ``not``, ``never``, ``none``, ``nobody``, ``nothing``, ``neither``, ``nor``,
   ``without``, ``cannot``, a word ending ``n't`` (also with ``’``), ``declined``,
   ``denied``, ``refused``, ``rejected``, ``failed to``, ``no longer``. A cue inside the
   phrase itself is the phrase's own meaning ("not renewing") and does not count.

>>> check_contains("Procurement declined the renewal.", "procurement").verdict
'needs judge'
>>> check_excluded("Overall paid rate is 91%.", "all paid").verdict
'absent'
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = [
    "ContainsCheck",
    "ContainsVerdict",
    "ExcludedCheck",
    "ExcludedVerdict",
    "Hit",
    "Negation",
    "check_contains",
    "check_excluded",
    "check_span",
    "find_hits",
    "negation_around",
    "negation_cues",
    "sentence_bounds",
]

ContainsVerdict = Literal["satisfied", "needs judge", "missed"]
ExcludedVerdict = Literal["absent", "asserted", "needs judge"]


@dataclass(frozen=True, slots=True)
class Negation:
    """A negation cue found in the sentence around a hit."""

    cue: str
    """The cue as written (``not``, ``declined``, ``isn't``)."""
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Hit:
    """One word-bounded occurrence of a phrase in a text."""

    start: int
    end: int
    text: str
    """``text[start:end]`` of the searched text."""
    sentence: tuple[int, int]
    """The span of the sentence holding the hit."""
    negation: Negation | None
    """The first cue negating the sentence outside the hit, or None (asserted)."""

    @property
    def asserted(self) -> bool:
        return self.negation is None


@dataclass(frozen=True, slots=True)
class ContainsCheck:
    """A ``response_contains`` phrase (or a rule's span) decided deterministically."""

    phrase: str
    verdict: ContainsVerdict
    hit: Hit | None
    """The asserted hit when satisfied; else the first negated hit (needs judge); else None."""
    reason: str


@dataclass(frozen=True, slots=True)
class ExcludedCheck:
    """A ``response_excludes`` phrase decided deterministically."""

    phrase: str
    verdict: ExcludedVerdict
    hits: tuple[Hit, ...]
    reason: str

    @property
    def fails(self) -> bool:
        """True when the phrase fails the scenario without asking anyone."""
        return self.verdict == "asserted"


# --- the matcher ------------------------------------------------------------------------------


@lru_cache(maxsize=2048)
def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = phrase.split()
    if not words:
        raise ValueError("a blank phrase would match every text")
    body = r"\s+".join(re.escape(w) for w in words)
    lead = r"(?<!\w)" if _wordish(words[0][0]) else ""
    tail = r"(?!\w)" if _wordish(words[-1][-1]) else ""
    return re.compile(lead + body + tail, re.IGNORECASE)


_BREAK = re.compile(r"[.!?;](?=\s|$)|\n")
_END_PUNCT = frozenset(".!?;")


@dataclass(frozen=True, slots=True)
class _TextIndex:
    """A response's sentence breaks and negation cues, found once per text.

    Every occurrence of every phrase asks for its sentence and the cues in it; scanning the
    text again for each (as this module first did) made scoring quadratic: a one-word phrase
    150,000 times in a 900,000-character response ran for more than five minutes. With the
    positions found once, each question is a binary search."""

    break_starts: list[int]
    break_ends: list[int]
    cues: list[Negation]
    cue_starts: list[int]


@lru_cache(maxsize=8)
def _index(text: str) -> _TextIndex:
    breaks = [m.span() for m in _BREAK.finditer(text)]
    cues = [Negation(m.group(), m.start(), m.end()) for m in _CUES.finditer(text)]
    return _TextIndex([b[0] for b in breaks], [b[1] for b in breaks], cues, [c.start for c in cues])


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence holding ``text[start:end]`` (rule 2).

    >>> t = "MRR is $4.8k. Procurement declined; the deal is at risk."
    >>> s, e = sentence_bounds(t, 14, 25); t[s:e]
    'Procurement declined'
    """
    idx = _index(text)
    i = bisect_right(idx.break_ends, start)
    lo = idx.break_ends[i - 1] if i else 0
    if start and text[start - 1] in _END_PUNCT:  # a break just before the span counts
        lo = start
    j = bisect_left(idx.break_starts, end)
    hi = idx.break_starts[j] if j < len(idx.break_starts) else len(text)
    while lo < hi and text[lo].isspace():
        lo += 1
    return lo, hi


_CUES = re.compile(
    r"""
    (?<![^\W_])
    (?:
        no(?:[ \t]+longer)? | not | never | none | nobody | nothing | neither | nor
      | without | cannot | declined | denied | refused | rejected | failed[ \t]+to
      | [^\W\d_]+n['’]t                  # isn't, don't, won't, can’t
    )
    (?![^\W_])
    """,
    re.VERBOSE | re.IGNORECASE,
)


def negation_cues(text: str) -> list[Negation]:
    """Every negation cue in ``text`` (rule 3's list), in order.

    >>> [n.cue for n in negation_cues("Procurement declined; we can't renew, not now")]
    ['declined', "can't", 'not']
    """
    return [Negation(m.group(), m.start(), m.end()) for m in _CUES.finditer(text)]


def negation_around(text: str, start: int, end: int) -> Negation | None:
    """The first negation cue in the sentence of ``text[start:end]``, outside that span.

    >>> negation_around("We see no risk here", 10, 14)
    Negation(cue='no', start=7, end=9)
    >>> negation_around("The customer is not renewing", 16, 28) is None  # the cue is the span's
    True
    """
    lo, hi = sentence_bounds(text, start, end)
    idx = _index(text)
    for k in range(bisect_left(idx.cue_starts, lo), len(idx.cues)):
        cue = idx.cues[k]
        if cue.end > hi:
            return None
        if cue.end <= start or cue.start >= end:
            return cue
    return None


_CLAUSE_BREAK = re.compile(
    r"[,;:()\[\]\u2013\u2014]|\s-\s"
    r"|(?<![^\W_])(?:but|while|whereas|though|although|yet)(?![^\W_])",
    re.IGNORECASE,
)


def negation_scoping(text: str, start: int, end: int) -> Negation | None:
    """A negation cue that governs ``text[start:end]``: one before the span, in its sentence,
    with no clause break (comma, semicolon, colon, bracket, dash or spaced hyphen, "but",
    "while", ...)
    between the cue and the span; or one inside the span.

    >>> negation_scoping("It is NOT the case that 4 cards expired.", 24, 39).cue
    'NOT'
    >>> negation_scoping("Nobody followed up, but both cancelled after a risk flag", 44, 55) is None
    True
    >>> negation_scoping("Both cancelled after a risk flag nobody followed up", 21, 32) is None
    True
    >>> negation_scoping("Restore it if it was not requested - Northwind Logistics", 37, 56) is None
    True
    """
    lo, _ = sentence_bounds(text, start, end)
    idx = _index(text)
    first = bisect_left(idx.cue_starts, lo)
    inside = bisect_left(idx.cue_starts, start)  # the first cue starting in the span
    if inside < len(idx.cues) and idx.cues[inside].end <= end:
        return idx.cues[inside]
    if inside == first:
        return None
    # Only the last cue before the span can govern it: a clause break after an earlier cue
    # lies after that one too.
    last = idx.cues[inside - 1]
    return None if _CLAUSE_BREAK.search(text, last.end, start) else last


def find_hits(text: str, phrase: str) -> list[Hit]:
    """Every word-bounded, case-insensitive occurrence of ``phrase`` (rule 1), in order.

    >>> [h.text for h in find_hits("At risk: 3. Risky: 2. AT  RISK again", "at risk")]
    ['At risk', 'AT  RISK']
    """
    out = []
    for m in _phrase_pattern(phrase).finditer(text):
        s, e = m.span()
        out.append(Hit(s, e, m.group(), sentence_bounds(text, s, e), negation_around(text, s, e)))
    return out


# --- the three checks -------------------------------------------------------------------------


def check_contains(response: str, phrase: str) -> ContainsCheck:
    """Strict matching with word boundaries; negated context defers to the judge.

    >>> check_contains("8 cards at risk.", "at risk").verdict
    'satisfied'
    >>> check_contains("There is no risk.", "at risk").verdict
    'missed'
    >>> c = check_contains("No customer is at risk.", "at risk"); c.verdict, c.hit.negation.cue
    ('needs judge', 'No')
    """
    hits = find_hits(response, phrase)
    asserted = next((h for h in hits if h.asserted), None)
    if asserted is not None:
        return ContainsCheck(phrase, "satisfied", asserted, "word-bounded match")
    if hits:
        cue = hits[0].negation.cue if hits[0].negation else ""
        return ContainsCheck(phrase, "needs judge", hits[0], f"every match is negated ({cue!r})")
    return ContainsCheck(phrase, "missed", None, "no word-bounded match")


def check_span(response: str, phrase: str, start: int, end: int) -> ContainsCheck:
    """A span found by another rule (``paraphrase.rule_match``), checked the same way.

    The span must not cut a word at either end; its sentence must not be negated outside it.

    >>> text = "Procurement declined the renewal."
    >>> check_span(text, "in procurement", 0, 11).verdict
    'needs judge'
    >>> check_span("Overall paid rate", "all paid", 4, 12).verdict
    'missed'
    """
    if not 0 <= start < end <= len(response):
        return ContainsCheck(phrase, "missed", None, "empty or invalid span")
    inner = response[start:end]
    cut_start = start > 0 and _wordish(response[start - 1]) and _wordish(inner[0])
    cut_end = end < len(response) and _wordish(response[end]) and _wordish(inner[-1])
    if cut_start or cut_end:
        return ContainsCheck(phrase, "missed", None, "span cuts a word")
    hit = Hit(
        start,
        end,
        inner,
        sentence_bounds(response, start, end),
        negation_around(response, start, end),
    )
    if hit.negation is not None:
        return ContainsCheck(phrase, "needs judge", hit, f"negated ({hit.negation.cue!r})")
    return ContainsCheck(phrase, "satisfied", hit, "rule match, not negated")


def check_excluded(response: str, phrase: str, *, judge: bool = True) -> ExcludedCheck:
    """An excluded phrase counts only when asserted; negated hits go to the judge.

    With ``judge=False`` (no judge configured) a negated-only hit fails closed.

    >>> check_excluded("We will refund the customer.", "refund the customer").verdict
    'asserted'
    >>> check_excluded("We will not refund the customer.", "refund the customer").verdict
    'needs judge'
    >>> check_excluded("We will not refund the customer.", "refund the customer", judge=False)
    ... # doctest: +ELLIPSIS
    ExcludedCheck(phrase='refund the customer', verdict='asserted', ..., reason='...fail closed')
    """
    hits = tuple(find_hits(response, phrase))
    if not hits:
        return ExcludedCheck(phrase, "absent", hits, "no word-bounded match")
    if any(h.asserted for h in hits):
        return ExcludedCheck(phrase, "asserted", hits, "asserted")
    if judge:
        return ExcludedCheck(phrase, "needs judge", hits, "every match is negated")
    return ExcludedCheck(phrase, "asserted", hits, "every match is negated; no judge: fail closed")


def _wordish(ch: str) -> bool:
    return ch.isalnum() or ch == "_"
