"""Memo mode, figures written in words: "seven of the last nine quarters", "two out of
five", "a third of", "half"."""

from __future__ import annotations

import re

from pe_eval_core.numtext._shared import _SP, FOLDS_TO_ASCII
from pe_eval_core.numtext.figures import Figure, FigureKind

_CARDINAL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    " fifteen sixteen seventeen eighteen nineteen twenty"
)
_CARDINALS = {w: i for i, w in enumerate(_CARDINAL_WORDS.split(" "))}
_CARD = r"(?:\d{1,2}|" + "|".join(sorted(_CARDINALS, key=len, reverse=True)) + ")"
_WS = rf"{_SP}+"  # [ \t\u00a0\u202f]+, compiled cheaper (``_SP``): 38 times in one pattern
_LAST = (
    rf"(?:(?:the|its|their|our|this\ cohort's|the\ cohort's){_WS})?"
    rf"(?:(?:last|past|prior|previous|most{_WS}recent|latest|observed|tracked|measured){_WS})*"
)
_QTRS = rf"(?:(?:observed|tracked|measured|recent|reporting|fiscal|calendar){_WS})?quarters?"
_WORD_FIGURES = re.compile(
    rf"""(?ix)
    \b(?=[\dzotfsenha])                    # every branch starts a word so (speed)
    (?:
    \b(?P<k>{_CARD})(?:{_WS}out)?{_WS}of{_WS}{_LAST}(?P<m>{_CARD}{_WS}{_QTRS})\b
  | \b(?P<k2>{_CARD}){_WS}quarters?{_WS}(?:out{_WS})?of{_WS}{_LAST}(?P<m2>{_CARD})\b
        (?!{_WS}(?:weeks?|months?|years?|days?|loans?|opportunit))
  | \b(?P<half>half)(?:{_WS}of)?{_WS}{_LAST}(?P<hm>{_CARD}{_WS}{_QTRS})\b
  | \b(?P<all>all|every{_WS}one{_WS}of|each{_WS}of){_WS}{_LAST}(?P<am>{_CARD}{_WS}quarters)\b
  | \b(?P<dk>{_CARD}){_WS}out{_WS}of{_WS}(?:five|5)\b(?!{_WS}quarters?)
  | (?P<frac>
        \b(?:a|one)[ \t-]+(?P<unit>half|third|quarter|fifth)(?={_WS}of\b)
      | (?<=\bby\ )(?:a|one)[ \t-]+(?P<unit2>half|third|quarter|fifth)\b
      | \b(?P<count>two|three|four)[ \t-]+(?P<units>thirds|quarters|fifths)(?={_WS}of\b)
      | \bhalf(?={_WS}of\b)
      | (?<=\bin\ )half\b | (?<=\bby\ )half\b
      | \b(?:halves|halving|halve)\b
    )
    )
    """
)
_FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5}
_FRACTION_HALF_WIDTH = 100 / 24
"""A fraction word stands for its value +- 1/24 (half the gap between a quarter and a third,
the closest pair of the fractions the words name)."""


def _cardinal(word: str) -> int:
    return int(word) if word.isdigit() else _CARDINALS[word.lower()]


def extract_word_figures(text: str) -> list[Figure]:
    """Figures written (partly) in words, sorted by start: ``k of [the last] m quarters``
    with cardinal words up to twenty (QUARTERS, roles observed/total), ``half of the six
    quarters``, ``all eight quarters`` / ``every one of the six quarters`` (k = m),
    ``two out of five`` (DIFFICULTY, unless it counts quarters), and fractions of a whole:
    ``a third of``, ``two thirds of``, ``a quarter of``, ``half of``, ``in half``, ``by a
    third``, ``halves`` (PERCENT, role ``fraction``, value +- 1/24: ``a third`` is
    [29.2, 37.5]). ``a quarter`` as a time unit ("$156K a quarter") is not a fraction.

    >>> def show(t):
    ...     figs = extract_word_figures(t)
    ...     return [(f.kind.value, round(f.value, 2), f.raw, f.role) for f in figs]
    >>> show("loss-making in seven of the last nine quarters")
    [('quarters', 7.0, 'seven', 'observed'), ('quarters', 9.0, 'nine quarters', 'total')]
    >>> show("three out of five quarters; rated two out of five")
    [('quarters', 3.0, 'three', 'observed'), ('quarters', 5.0, 'five quarters', 'total'),
     ('difficulty', 2.0, 'two', '')]
    >>> show("half of the six quarters, every one of the six quarters, all eight quarters")
    [('quarters', 3.0, 'half', 'observed'), ('quarters', 6.0, 'six quarters', 'total'),
     ('quarters', 6.0, 'every one of', 'observed'), ('quarters', 6.0, 'six quarters', 'total'),
     ('quarters', 8.0, 'all', 'observed'), ('quarters', 8.0, 'eight quarters', 'total')]
    >>> show("a third of the loss, two thirds of it, cut in half, $156K a quarter")
    [('percent', 33.33, 'a third', 'fraction'), ('percent', 66.67, 'two thirds', 'fraction'),
     ('percent', 50.0, 'half', 'fraction')]
    >>> show("three-quarters of the total; reduced by a quarter; it halves the loss")
    [('percent', 75.0, 'three-quarters', 'fraction'), ('percent', 25.0, 'a quarter', 'fraction'),
     ('percent', 50.0, 'halves', 'fraction')]
    >>> show("seventeen of twenty quarters, 5 of the last 9 quarters")
    [('quarters', 17.0, 'seventeen', 'observed'), ('quarters', 20.0, 'twenty quarters', 'total'),
     ('quarters', 5.0, '5', 'observed'), ('quarters', 9.0, '9 quarters', 'total')]
    """
    out: list[Figure] = []
    for m in _word_matches(text):
        if m["k"] is not None:
            _word_quarters(out, m, "k", _cardinal(m["k"]), "m")
        elif m["k2"] is not None:
            _word_quarters(out, m, "k2", _cardinal(m["k2"]), "m2")
        elif m["half"] is not None:
            total = _cardinal(m["hm"].split()[0])
            if total % 2 == 0:
                _word_quarters(out, m, "half", total // 2, "hm")
        elif m["all"] is not None:
            _word_quarters(out, m, "all", _cardinal(m["am"].split()[0]), "am")
        elif m["dk"] is not None:
            v = float(_cardinal(m["dk"]))
            s, e = m.span("dk")
            out.append(Figure(FigureKind.DIFFICULTY, v, text[s:e], s, e, v, v, False))
        elif not _is_time_span(m):
            raw = m["frac"]
            low = raw.lower()
            unit = m["unit"] or m["unit2"] or (m["units"] or "half").rstrip("s")
            if low.startswith("halv"):
                unit = "half"
            parts = _CARDINALS[m["count"].lower()] if m["count"] else 1
            v = 100 * parts / _FRACTIONS[unit]
            s, e = m.span("frac")
            w = _FRACTION_HALF_WIDTH
            out.append(Figure(FigureKind.PERCENT, v, raw, s, e, v - w, v + w, False, "fraction"))
    return _with_difficulty(text, out)


_DIFFICULTY_CUE = re.compile(
    r"(?i)\b(?:difficult\w*|ease|easy|effort|complex\w*|hard(?:ness)?|rated|rating|scored?|"
    r"scores|execution\s+risk|implementation)\b"
)
_DIFFICULTY_RATING = re.compile(
    rf"(?i)(?<![\w.$/])(?P<k>[1-5]|one|two|three|four|five)(?:[ \t]*/[ \t]*|{_WS}out{_WS}of{_WS}"
    rf"|{_WS}of{_WS})(?:5|five)\b(?![ \t]*(?:quarters?|%|\.\d|/))"
)

_RATING_TAIL = re.compile(rf"(?i)(?:/|of){_SP}*(?:5|five)")
"""What every ``_DIFFICULTY_RATING`` match ends with (``/ 5``, ``of five``, ``out of 5``)."""


def _with_difficulty(text: str, out: list[Figure]) -> list[Figure]:
    """Add the difficulty ratings worded anywhere in a sentence that speaks of difficulty,
    effort or a rating: "a 2/5 on difficulty", "difficulty sits at 2/5", "one out of five
    for effort" (a digit rating right after "rated"/"difficulty" is read by
    ``extract_figures`` already; overlaps are dropped by the grader).

    >>> [(f.kind.value, f.value, f.raw) for f in extract_word_figures(
    ...     "It scores a 2/5 on difficulty. Effort: one out of five. Ranked 2 of 5 cohorts.")]
    [('difficulty', 2.0, '2/5'), ('difficulty', 1.0, 'one')]
    """
    if _RATING_TAIL.search(text) is None:
        return out  # no "/ 5", "of five" ...: no rating (a cheaper scan than the rating's)
    added = False
    for m in _DIFFICULTY_RATING.finditer(text):
        s, e = m.span()
        if any(f.start < e and s < f.end for f in out):
            continue
        lo = max(text.rfind(".", 0, s), text.rfind("\n", 0, s), text.rfind(";", 0, s)) + 1
        stop = [i for i in (text.find(".", e), text.find("\n", e), text.find(";", e)) if i >= 0]
        if not _DIFFICULTY_CUE.search(text, lo, min(stop) if stop else len(text)):
            continue
        v = float(_cardinal(m["k"]))
        out.append(Figure(FigureKind.DIFFICULTY, v, text[s:e], s, e, v, v, False))
        added = True
    return sorted(out, key=lambda f: f.start) if added else out


_TIME_OBJECT = re.compile(
    rf"""(?ix){_WS}of{_WS}(?:(?:the|its|this|that|their|our|next|coming|first|last|
        second|current|fiscal|calendar|a|an){_WS})*(?P<obj>[\w'-]+)(?:{_WS}(?P<obj2>[\w'-]+))?"""
)
_TIME_NOUNS = frozenset(
    (
        *("data", "post-action", "observation", "observations", "history", "performance"),
        *("monitoring", "runway", "time", "year", "years", "month", "months", "week", "weeks"),
        *("day", "days", "period", "window", "seasoning", "results"),
        *("testing", "test", "trial", "pilot", "lag", "tenure", "backtest", "tracking"),
        *("lookback", "look-back", "evidence", "experience", "follow-up", "fy", "h1", "h2"),
    )
)
"""Objects that make a fraction word a time span ("one quarter of post-action data")."""
_DELAY_BEFORE = re.compile(
    r"(?i)\b(?:delay(?:s|ed|ing)?|push(?:es|ed|ing)?(?:\s+\w+)?|slip(?:s|ped|ping)?|"
    r"postpone[sd]?|defer(?:s|red|ring)?|back|late|later|early|earlier|ahead|extend(?:s|ed)?)"
    r"\s+(?:\w+\s+)?by\s+$"
)


_AFTER_AMOUNT = re.compile(r"(?:\d|\d[KkMmBb]|\dbn|\d[KkMmBb]n)[ \t]+$")


def _is_time_span(m: re.Match[str]) -> bool:
    """A fraction word that measures time, not a share: "one quarter of post-action data",
    "the first half of 2026", "delayed by a quarter".

    >>> [f.raw for f in extract_word_figures("observe one quarter of post-action data; "
    ...     "the first half of 2026; slips back by a quarter; $1.6M a quarter of leakage; "
    ...     "a quarter of the loss")]
    ['a quarter']
    """
    text = m.string
    start, end = m.span("frac")
    after = _TIME_OBJECT.match(text, end)
    if after is not None:
        words = [w.lower() for w in after.group("obj", "obj2") if w]
        if any(w in _TIME_NOUNS or (w.isdigit() and len(w) == 4) for w in words):
            return True
    if _AFTER_AMOUNT.search(text, max(0, start - 12), start) is not None:
        return True  # "$1.6M a quarter of leakage": a run-rate's period
    return _DELAY_BEFORE.search(text, max(0, start - 40), start) is not None


_ANCHOR = re.compile(rf"(?=[qQhHtTfFoO])(?i:quarter|half|halv|third|fifth|out{_WS}of)")
_ANCHOR_WORDS = ("quarter", "half", "halv", "third", "fifth", "out")
_OUT_SPACE = frozenset(" \t\u00a0\u202f")
"""What follows "out" in the anchor "out of" (one of ``_WS``)."""
_QUARTER_WORDS = re.compile(
    r"(?i)\b(?:" + "|".join(_CARDINALS) + r"|half|all|every|each|last|past|prior|previous|a|by)\b"
)
_BEFORE_ANCHOR = 64  # "every one of the previous twenty quarters" fits; cheap windows


def _anchors(text: str, low: str, folds: bool | None = None) -> list[re.Match[str]]:
    """``list(_ANCHOR.finditer(text))``, the pattern tried only where ``low`` (``text``
    lower-cased) holds an anchor word: a substring search per word is C-speed, the pattern's
    scan of every position is not. A text with a character that folds to an ASCII letter
    (``İ ı ſ K``: lower-casing may move positions or hide a match) is scanned whole
    (``folds``: whether it has one, when the caller knows)."""
    if folds is None:
        folds = FOLDS_TO_ASCII.search(text) is not None
    if folds:
        return list(_ANCHOR.finditer(text))
    starts: set[int] = set()
    for word in _ANCHOR_WORDS:
        i = low.find(word)
        while i >= 0:
            if word != "out" or low[i + 3 : i + 4] in _OUT_SPACE:  # not "outcome", "about"
                starts.add(i)
            i = low.find(word, i + 1)
    out: list[re.Match[str]] = []
    end = 0
    for i in sorted(starts):
        if i >= end and (m := _ANCHOR.match(text, i)) is not None:
            out.append(m)  # finditer's matches do not overlap: resume after this one
            end = m.end()
    return out


_SEPARATORS = " \t\u00a0\u202f-"
"""What may stand between a count and its ``quarter`` (``_WS``, and the fractions' ``-``)."""
_WS_CHARS = _SEPARATORS[:4]
"""The characters of ``_WS``."""
_QUARTER_MODIFIERS = frozenset(
    ("observed", "tracked", "measured", "recent", "reporting", "fiscal", "calendar")
)


def _token_before(low: str, i: int, apostrophes: bool = False) -> tuple[str, int] | None:
    """The run of letters and digits (and ``'`` when ``apostrophes``: "cohort's") right
    before the separators right before ``low[i]``, and where it starts; None when no
    separator precedes ``i``."""
    j = i
    while j > 0 and low[j - 1] in _SEPARATORS:
        j -= 1
    if j == i:
        return None
    k = j
    while k > 0 and (low[k - 1].isalnum() or (apostrophes and low[k - 1] == "'")):
        k -= 1
    return low[k:j], k


def _counts(token: str) -> bool:
    """``token`` may be the count or article before a ``quarter`` in a ``_WORD_FIGURES``
    match (a cardinal word, digits, ``a``): loosely, so as never to miss one."""
    return token == "a" or token in _CARDINALS or (token != "" and token[-1].isdigit())


def _live(low: str, start: int, end: int) -> bool:
    """Whether the anchor word at ``low[start:end]`` can be part of a ``_WORD_FIGURES`` match
    (necessary, not sufficient; ``low`` is the lower-cased text, no character folding to
    ASCII). Every match holds an anchor word that passes: ``half``, ``halv``, ``third`` and
    ``fifth`` always; ``quarter`` only right after a count or ``a`` (one modifier such as
    ``observed`` between), as every branch reads it, and then only before ``of`` or after
    ``of``, ``all`` or ``by`` (``_LAST`` words between); ``out of`` only before
    ``five`` or ``5`` (the one branch without a ``quarter``). ``_word_matches`` does not scan
    a window without such a word ("quarter over quarter", "across 8 quarters means").

    >>> t = "compounds quarter over quarter; carve it out of approval; one out of five"
    >>> [t[m.start() : m.end()] for m in _anchors(t, t) if _live(t, m.start(), m.end())]
    ['out of']
    >>> t = "across 8 quarters means; in 5 of the last 8 quarters; a quarter of it"
    >>> [t[m.start() - 2 : m.end()] for m in _anchors(t, t) if _live(t, m.start(), m.end())]
    ['8 quarter', 'a quarter']
    """
    head = low[start : start + 2]
    if head == "ou":
        rest = low[end : end + 12]
        after = rest.lstrip(_WS_CHARS)
        return len(after) < len(rest) and (after.startswith("five") or after.startswith("5"))
    if head != "qu":
        return True
    before = _token_before(low, start)
    if before is None:
        return False
    token, k = before
    if token in _QUARTER_MODIFIERS:
        before = _token_before(low, k)
        if before is None:
            return False
        token, k = before
    return _counts(token) and (_of_after(low, end) or _leads_in(low, k))


_LAST_WORDS = frozenset(
    (
        *("the", "its", "their", "our", "this", "cohort's", "last", "past", "prior"),
        *("previous", "most", "recent", "latest", "observed", "tracked", "measured"),
    )
)
"""The words of ``_LAST`` ("the last", "this cohort's most recent" ...)."""
_LEADS = frozenset(("of", "all", "by"))
"""The word before a count of quarters (``_LAST`` words between) in each branch that has no
``of`` after its ``quarter``: "of the last nine", "all eight", "by a" ("half the six": the
anchor ``half``, always live, is in the window)."""


def _of_after(low: str, end: int) -> bool:
    """``quarter`` ending at ``end`` is followed by ``s``?, spaces, ``out``?, ``of``."""
    after = low[end : end + 32]
    if after[:1] == "s":
        after = after[1:]
    rest = after.lstrip(_WS_CHARS)
    if len(rest) == len(after):
        return False
    if rest.startswith("out"):
        rest = rest[3:].lstrip(_WS_CHARS)
    return rest.startswith("of")


def _leads_in(low: str, k: int) -> bool:
    """The word before ``low[k:]`` (skipping ``_LAST`` words) is one of ``_LEADS``."""
    while (before := _token_before(low, k, apostrophes=True)) is not None:
        word, k = before
        if word not in _LAST_WORDS:
            return word in _LEADS
    return False


def _word_matches(text: str) -> list[re.Match[str]]:
    """``_WORD_FIGURES`` matches, read only in windows around their anchor words (speed: the
    pattern has many branches; most prose has no anchor at all), in order, never overlapping."""
    low = text.lower()
    if not any(w in low for w in _ANCHOR_WORDS):
        return []  # most blocks: one C-speed substring test each
    found: dict[int, re.Match[str]] = {}
    folds = FOLDS_TO_ASCII.search(text) is not None
    anchors = _anchors(text, low, folds)
    live = [a.span() for a in anchors if folds or _live(low, a.start(), a.end())]
    for anchor in anchors:
        lo = max(0, anchor.start() - _BEFORE_ANCHOR)
        hi = min(len(text), anchor.end() + 48)
        if not any(s < hi and lo < e for s, e in live):
            continue  # no anchor word in the window that a match can hold
        if anchor.group()[:1] in "qQ" and not _QUARTER_WORDS.search(text, lo, anchor.start()):
            continue  # "5 of 5 quarters": digits only, read by extract_figures
        for m in _WORD_FIGURES.finditer(text, lo, hi):
            if m.end() >= anchor.end() or m.start() <= anchor.start() < m.end():
                seen = found.get(m.start())
                if seen is None or seen.end() < m.end():  # the longest reading wins
                    found[m.start()] = m
    out: list[re.Match[str]] = []
    end = -1
    for start in sorted(found):
        if start >= end:
            out.append(found[start])
            end = found[start].end()
    return out


def _word_quarters(out: list[Figure], m: re.Match[str], k_group: str, k: int, m_group: str) -> None:
    text = m.string
    ks, ke = m.span(k_group)
    ms, me = m.span(m_group)
    total = float(_cardinal(m[m_group].split()[0]))
    kv, q = float(k), FigureKind.QUARTERS
    out.append(Figure(q, kv, text[ks:ke], ks, ke, kv, kv, False, "observed"))
    out.append(Figure(q, total, text[ms:me], ms, me, total, total, False, "total"))
