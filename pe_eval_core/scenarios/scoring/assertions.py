"""Phrase matching that cannot accept the opposite: word boundaries and negation in context.

Three checks share one matcher and two negation detectors:

* ``check_contains`` (strict, ``response_contains``): a word-bounded, case-insensitive hit
  (the last word inflected, British or US spelling: ``inflections.word_forms``) satisfies;
  a hit inside a negation's scope is reported ``needs judge`` (the caller defers to the
  judge instead of passing); no hit is a candidate miss.
* ``check_span`` (rule matches from ``paraphrase.rule_match``): the same decision for a span
  another rule found; a span that starts or ends inside a word is ``missed``.
* ``check_excluded`` (``response_excludes``): a phrase counts only when asserted. Matched
  word for word (no inflections: an exclusion guards one wording). An un-negated hit is
  ``asserted`` (the scenario fails); a hit only inside negated sentences is ``needs
  judge``, and without a judge it fails closed (``asserted``).

Rules:

1. **Word boundaries.** A phrase that starts (ends) with a letter or digit matches only where
   no letter, digit or ``_`` precedes (follows) it: "all paid" is not in "overall paid rate",
   "risk" is not in "risky". Any run of whitespace in the phrase matches any run of
   whitespace; case is ignored.
2. **Sentence.** A hit's sentence runs from the previous ``.``/``!``/``?``/``;`` followed by
   a space (or a line break, or the start) to the next one; a decimal point is not a break.
3. **Negation cues.** ``no``, ``not``, ``never``, ``none``, ``nobody``, ``nothing``,
   ``neither``, ``nor``, ``without``, ``cannot``, a word ending ``n't`` (also with ``’``),
   ``declined``, ``denied``, ``refused``, ``rejected``, ``failed to``, ``no longer``. A cue
   inside the phrase itself is the phrase's own meaning ("not renewing") and does not count.
4. **Scope (strict matches, rule spans, judge quotes).** A cue governs a hit when it comes
   before the hit in the hit's sentence and all of these hold:

   a. *Same clause*: no clause break lies between the cue and the hit: a comma, semicolon,
      colon, bracket, dash or spaced hyphen, or one of ``but``, ``while``, ``whereas``,
      ``though``, ``although``, ``yet``, ``because``, ``since``, ``after``, ``before``,
      ``when``, ``until``, ``unless``, ``so``, ``however``, ``then`` (a break word right
      after the cue is the cue's own: "not because", "not until").
   b. *Not presupposed*: the hit is not a definite noun phrase the clause talks about: it
      is not preceded by ``the``, ``this``, ``these``, ``those``, a possessive (``its``,
      ``their``, ``our``, ``your``, ``his``, ``her``, ``my``, a word ending ``'s``) with at
      most two other words or figures in between that are neither function words nor cues
      ("the $312.50 chargeback"); and it is
      not a name (every word of the hit starts with a capital letter in the response, the
      hit does not open its sentence, and holds no digit). A hit whose last word ends in
      ``-ed`` is a predication ("the payment recovered"), never presupposed. Neither
      applies when ``that``, ``whether`` or ``if`` lies between the cue and the hit: the cue
      then denies a whole proposition ("it is not true that their usage dropped").

   A cue after the hit never governs it ("Risk flags were set; nobody acted" is asserted).
   Excluded phrases keep the stricter rule 3 on the whole sentence: a hit in a sentence
   with any cue outside it goes to the judge (fails closed without one).

>>> check_contains("Procurement declined the renewal.", "procurement").verdict
'satisfied'
>>> check_contains("Nobody followed up on the usage drop flags.", "usage drop").verdict
'satisfied'
>>> check_contains("We saw no usage drop this month.", "usage drop").verdict
'needs judge'
>>> check_contains("Both accounts carried risk flags.", "risk flag").verdict
'satisfied'
>>> check_excluded("Overall paid rate is 91%.", "all paid").verdict
'absent'
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

from pe_eval_core.scenarios.scoring.inflections import word_forms
from pe_eval_core.text_norm import ignorecase_lower

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
    "governing_negation",
    "negation_around",
    "negation_cues",
    "negation_scoping",
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
def _phrase_pattern(phrase: str, inflect: bool = False) -> re.Pattern[str]:
    words = phrase.split()
    if not words:
        raise ValueError("a blank phrase would match every text")
    if inflect:
        body = r"\s+".join(
            _alternatives(word_forms(w, last=i == len(words) - 1)) for i, w in enumerate(words)
        )
    else:
        body = r"\s+".join(re.escape(w) for w in words)
    lead = r"(?<!\w)" if _wordish(words[0][0]) else ""
    tail = r"(?!\w)" if _wordish(words[-1][-1]) else ""
    return re.compile(lead + body + tail, re.IGNORECASE)


@lru_cache(maxsize=2048)
def _first_forms(phrase: str, inflect: bool) -> tuple[str, ...] | None:
    """The lower-cased forms a match of ``_phrase_pattern(phrase, inflect)`` starts with (its
    first word's), when all are ASCII; None otherwise (then every position is tried)."""
    first = phrase.split()[0]
    forms = word_forms(first, last=len(phrase.split()) == 1) if inflect else {first}
    low = tuple(sorted({f.lower() for f in forms}))
    return low if all(f.isascii() for f in low) else None


def _phrase_matches(text: str, phrase: str, inflect: bool) -> Iterator[re.Match[str]]:
    """``_phrase_pattern(phrase, inflect).finditer(text)``, the same matches, tried only where
    a first-word form starts (found by C substring search in the case-folded text): the
    pattern opens with a lookbehind, so ``re`` cannot skip ahead itself and tries every
    position. A match at the earliest candidate at or after the last match's end is the
    leftmost one ``finditer`` finds, and lookbehinds see the text before the position."""
    pattern = _phrase_pattern(phrase, inflect)
    firsts = _first_forms(phrase, inflect)
    low = _index(text).folded if firsts is not None else ""
    if firsts is None or len(low) != len(text):
        yield from pattern.finditer(text)
        return
    starts: set[int] = set()
    for form in firsts:
        at = low.find(form)
        while at >= 0:
            starts.add(at)
            at = low.find(form, at + 1)
    done = 0
    for at in sorted(starts):
        if at < done:
            continue
        m = pattern.match(text, at)
        if m is not None:
            yield m
            done = m.end()


def _alternatives(forms: frozenset[str]) -> str:
    if len(forms) == 1:
        return re.escape(next(iter(forms)))
    return "(?:" + "|".join(re.escape(f) for f in sorted(forms, key=lambda f: (-len(f), f))) + ")"


_BREAK = re.compile(r"[.!?;\n](?:(?<=\n)|(?=\s|$))")
"""A sentence break: ``.!?;`` before a space or the end, or a newline. Written to start with
one character class, which ``re`` skips to in C (half the time of the two-branch form)."""
_END_PUNCT = frozenset(".!?;")


class _TextIndex:
    """A response's sentence breaks and negation cues, found once per text.

    Every occurrence of every phrase asks for its sentence and the cues in it; scanning the
    text again for each (as this module first did) made scoring quadratic: a one-word phrase
    150,000 times in a 900,000-character response ran for more than five minutes. With the
    positions found once, each question is a binary search. Each kind of position is found
    the first time it is asked for: most responses never ask for cues or clause breaks (no
    hit of a phrase, or none near a cue), and scanning for them costs as much as the breaks."""

    def __init__(self, text: str):
        self.text = text
        self._in_sentence: dict[tuple[str, int, int], list[tuple[int, int]]] = {}
        self._sentence_cues: dict[tuple[int, int], tuple[list[int], list[Negation]]] = {}

    def spans_in(self, pattern: re.Pattern[str], lo: int, hi: int) -> list[tuple[int, int]]:
        """``pattern``'s matches in the sentence ``[lo, hi)``, found once per sentence."""
        key = (pattern.pattern, lo, hi)
        got = self._in_sentence.get(key)
        if got is None:
            got = self._in_sentence[key] = [m.span() for m in pattern.finditer(self.text, lo, hi)]
        return got

    def cues_in(self, lo: int, hi: int) -> tuple[list[int], list[Negation]]:
        """The sentence ``[lo, hi)``'s cues and their ends, found once per sentence (none
        without a scan when the sentence holds no cue literal)."""
        got = self._sentence_cues.get((lo, hi))
        if got is None:
            low = self.folded
            cues = []
            if any(low.find(w, lo, hi) >= 0 for w in _CUE_LITERALS):
                found = _CUES.finditer(self.text, lo, hi)
                cues = [Negation(m.group(), m.start(), m.end()) for m in found]
            got = self._sentence_cues[lo, hi] = ([c.end for c in cues], cues)
        return got

    @cached_property
    def folded(self) -> str:
        return ignorecase_lower(self.text)

    @cached_property
    def _breaks(self) -> list[tuple[int, int]]:
        return [m.span() for m in _BREAK.finditer(self.text)]

    @cached_property
    def break_starts(self) -> list[int]:
        return [b[0] for b in self._breaks]

    @cached_property
    def break_ends(self) -> list[int]:
        return [b[1] for b in self._breaks]

    @cached_property
    def cues(self) -> list[Negation]:
        return [Negation(m.group(), m.start(), m.end()) for m in _CUES.finditer(self.text)]

    @cached_property
    def cue_starts(self) -> list[int]:
        return [c.start for c in self.cues]


@lru_cache(maxsize=8)
def _index(text: str) -> _TextIndex:
    return _TextIndex(text)


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


_CUE_LITERALS = (
    *("no", "never", "neither", "without", "declined", "denied", "refused", "rejected"),
    *("failed", "n't", "n\u2019t"),
)
"""Every ``_CUES`` match holds one of these (lower-cased, as ``text_norm.ignorecase_lower``
gives the text): where none is, there is no cue (``no`` covers not, none, nobody, nothing,
nor and cannot)."""


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
    r"|(?<![^\W_])(?:but|while|whereas|though|although|yet|because|since|after|before|when"
    r"|until|unless|so|however|then)(?![^\W_])",
    re.IGNORECASE,
)

_DEFINITE = re.compile(
    r"(?<![^\W_])(?:the|this|these|those|its|their|our|your|his|her|my|\w+['’]s)"
    r"(?P<between>(?:\s+(?:[^\W\d_][\w'’-]*|[$£€¥]?\d[\d,.]*[kKmMbB]?%?)){0,2}?)\s+$",
    re.IGNORECASE,
)
_COMPLEMENTIZER = re.compile(r"(?<![^\W_])(?:that|whether|if)(?![^\W_])", re.IGNORECASE)
_FUNCTION = (
    frozenset({"a", "an", "the", "of", "for", "to", "in", "on", "at", "by", "and", "or", "but"})
    | {"with", "from", "as", "is", "are", "was", "were", "be", "been", "has", "have", "had"}
    | {"do", "does", "did", "will", "would", "that", "which", "who", "this", "these", "those"}
    | {"it", "its", "there"}
)


def _presupposed(text: str, start: int, end: int, sentence_start: int) -> bool:
    """Rule 4b: the hit is a definite noun phrase or a name, which a negation before it in
    its clause does not deny ("nobody followed up on the usage drop flags")."""
    last = re.findall(r"[^\W\d_]+", text[start:end])
    if last and last[-1].lower().endswith("ed") and not last[-1][0].isupper():
        return False  # "without the payment recovered": a predicate, not a noun phrase
    m = _DEFINITE.search(text, max(sentence_start, start - 60), start)
    if m is not None:
        between = m.group("between").split()
        if not any(w.lower() in _FUNCTION or _CUES.fullmatch(w) for w in between):
            return True
    words = re.findall(r"[^\W_]+", text[start:end])
    return (
        start > sentence_start
        and bool(words)
        and all(w[0].isupper() and not any(c.isdigit() for c in w) for w in words)
        and any(c.isalpha() for c in text[start:end])
    )


def governing_negation(text: str, start: int, end: int) -> Negation | None:
    """The negation cue whose scope (rule 4) holds ``text[start:end]``, or None.

    >>> governing_negation("It is NOT the case that 4 cards expired.", 24, 39).cue
    'NOT'
    >>> governing_negation("Nobody followed up on the usage drop flags", 26, 36) is None
    True
    >>> governing_negation("We did not see a usage drop", 17, 27).cue
    'not'
    >>> gov = governing_negation
    >>> gov("Nobody followed up, but both cancelled after a risk flag", 44, 55) is None
    True
    >>> gov("Both cancelled after a risk flag nobody followed up", 21, 32) is None
    True
    >>> gov("Restore it if it was not requested - Northwind Logistics", 37, 56) is None
    True
    >>> governing_negation("We did not call Lumen Dental", 16, 28) is None
    True
    >>> governing_negation("The charge failed not because of insufficient funds", 33, 51).cue
    'not'
    """
    lo, hi = sentence_bounds(text, start, end)
    idx = _index(text)
    governing = _last_governing_cue(idx, lo, hi, start)
    if (
        governing is not None
        and _first_at(idx.spans_in(_COMPLEMENTIZER, lo, hi), governing.end, start) is None
        and _presupposed(text, start, end, lo)
    ):
        return None
    return governing


def _last_governing_cue(idx: _TextIndex, lo: int, hi: int, start: int) -> Negation | None:
    """The cue before ``start`` in the sentence ``[lo, hi)`` with no clause break after it
    (rule 4a).

    Only the last cue can: a clause break after it lies after every earlier cue too (and a
    break that is an earlier cue's own, "not because", ends before the last cue starts).
    Cues and clause breaks are found in the sentence, once per sentence (issue 25: scanning
    the whole text for them was a fifth of scoring): none can hold a sentence break, and the
    characters around a sentence (a break, spaces, the text's ends) are neither letters nor
    digits, so a sentence's matches are the whole text's matches there, and one ending past
    the sentence ends past ``start`` too."""
    ends, cues = idx.cues_in(lo, hi)
    k = bisect_right(ends, start)  # the cues ending by ``start`` (not running into the span)
    if k == 0:
        return None
    cue = cues[k - 1]
    breaks = idx.spans_in(_CLAUSE_BREAK, lo, hi)
    brk = _first_at(breaks, cue.end, start)
    if brk is not None and not idx.text[cue.end : brk[0]].strip() and idx.text[brk[0]].isalpha():
        brk = _first_at(breaks, brk[1], start)  # "not because": the cue's own
    return cue if brk is None else None


def _first_at(spans: list[tuple[int, int]], lo: int, hi: int) -> tuple[int, int] | None:
    """The first of ``spans`` (sorted) at or after ``lo``, if it ends by ``hi``."""
    i = bisect_left(spans, (lo, -1))
    return spans[i] if i < len(spans) and spans[i][1] <= hi else None


def negation_scoping(text: str, start: int, end: int) -> Negation | None:
    """A negation cue inside ``text[start:end]``, else the one governing it (rule 4): for a
    judge's quote, where a cue inside the quote is part of what it says.

    >>> negation_scoping("It is NOT the case that 4 cards expired.", 24, 39).cue
    'NOT'
    >>> negation_scoping("We will not renew", 3, 17).cue
    'not'
    """
    inside = _CUES.search(text, start, end)
    if inside is not None and inside.end() <= end:
        return Negation(inside.group(), inside.start(), inside.end())
    return governing_negation(text, start, end)


def find_hits(text: str, phrase: str, *, inflect: bool = False, scoped: bool = False) -> list[Hit]:
    """Every word-bounded, case-insensitive occurrence of ``phrase`` (rule 1), in order.

    ``inflect``: the last word may be inflected, any word spelled British or US
    (``inflections.word_forms``). ``scoped``: a hit's negation is the cue governing it (rule
    4), else any cue in its sentence outside it (rule 3).

    >>> [h.text for h in find_hits("At risk: 3. Risky: 2. AT  RISK again", "at risk")]
    ['At risk', 'AT  RISK']
    >>> [h.text for h in find_hits("Two risk flags were canceled.", "risk flag", inflect=True)]
    ['risk flags']
    """
    return list(_iter_hits(text, phrase, inflect, scoped))


def _iter_hits(text: str, phrase: str, inflect: bool, scoped: bool) -> Iterator[Hit]:
    """``find_hits`` one hit at a time: a check that needs only the first asserted hit stops
    there instead of scoping the negation of every later one."""
    negation = governing_negation if scoped else negation_around
    for m in _phrase_matches(text, phrase, inflect):
        s, e = m.span()
        yield Hit(s, e, m.group(), sentence_bounds(text, s, e), negation(text, s, e))


# --- the three checks -------------------------------------------------------------------------


def check_contains(response: str, phrase: str) -> ContainsCheck:
    """Strict matching with word boundaries; negated context defers to the judge.

    >>> check_contains("8 cards at risk.", "at risk").verdict
    'satisfied'
    >>> check_contains("There is no risk.", "at risk").verdict
    'missed'
    >>> c = check_contains("No customer is at risk.", "at risk"); c.verdict, c.hit.negation.cue
    ('needs judge', 'No')
    >>> check_contains("Subscriptions were canceled on the 20th.", "subscription cancelled").verdict
    'missed'
    >>> check_contains("The subscription was canceled.", "subscription was cancelled").verdict
    'satisfied'
    """
    first = None  # the first hit, negated: what the judge is shown when none is asserted
    for hit in _iter_hits(response, phrase, True, True):
        if hit.asserted:
            exact = hit.text.lower().split() == phrase.lower().split()
            why = "word-bounded match" + ("" if exact else " (word form)")
            return ContainsCheck(phrase, "satisfied", hit, why)
        first = hit if first is None else first
    if first is not None:
        cue = first.negation.cue if first.negation else ""
        return ContainsCheck(
            phrase, "needs judge", first, f"every match is in a negation's scope ({cue!r})"
        )
    return ContainsCheck(phrase, "missed", None, "no word-bounded match")


def check_span(response: str, phrase: str, start: int, end: int) -> ContainsCheck:
    """A span found by another rule (``paraphrase.rule_match``), checked the same way.

    The span must not cut a word at either end; no negation may govern it (rule 4).

    >>> text = "Procurement was never reached: they declined."
    >>> check_span("There is no risk here.", "at risk", 12, 16).verdict
    'needs judge'
    >>> check_span(text, "in procurement", 0, 11).verdict
    'satisfied'
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
        governing_negation(response, start, end),
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
