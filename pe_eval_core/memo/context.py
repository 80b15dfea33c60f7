"""What a figure's wording licenses: shares of a loss, of the quarters, of the total, sums
(roles on the ``Figure``), and the quantity it claims (``Figure.claim``, from
``pe_eval_core.grading.roles``)."""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from pe_eval_core.grading.roles import claim_of
from pe_eval_core.memo.config import TemplateConstant
from pe_eval_core.memo.prose_names import EntityMention
from pe_eval_core.memo.tables import read_cells, table_cells
from pe_eval_core.numbers import (
    Figure,
    FigureKind,
    extract_figures,
    extract_labelled_figures,
    extract_word_figures,
    scan_figures,
)
from pe_eval_core.numtext._shared import FOLDS_TO_ASCII

_DIGIT = re.compile(r"\d")


def read_figures(text: str, count_nouns: tuple[str, ...]) -> list[Figure]:
    """Every figure of a prose block, with the roles its wording licenses: digits, words,
    labelled fields (``Loans: 6,742``), and markdown table cells read with their labels
    (``memo.tables``); minus the parameters of a plan the memo proposes. A figure too long
    for a float is kept with its infinite value (``memo.reading`` sets it apart as
    unreadable, wherever it stood, a table cell included)."""
    figures = _read(text, count_nouns)
    cells = table_cells(text)
    if cells:
        figures = read_cells(text, figures, cells, lambda cell: _read(cell, count_nouns))
    return figures


def _read(text: str, count_nouns: tuple[str, ...]) -> list[Figure]:
    extra = extract_word_figures(text)
    figures: list[Figure] = []
    if _DIGIT.search(text) is not None:
        figures, unreadable = scan_figures(text, count_nouns)
        if unreadable:
            figures = sorted([*figures, *unreadable], key=lambda f: f.start)
        extra += extract_labelled_figures(text, count_nouns)
    return with_context(text, without_plan_parameters(text, merge_figures(figures, extra)))


def merge_figures(figures: list[Figure], words: list[Figure]) -> list[Figure]:
    """The figures read from digits plus those read from words that overlap none of them,
    sorted by start (``5 of 9 quarters`` is read once, from its digits)."""
    if not words:
        return figures
    taken = [(f.start, f.end) for f in figures]
    extra = [w for w in words if not any(s < w.end and w.start < e for s, e in taken)]
    return sorted([*figures, *extra], key=lambda f: f.start) if extra else figures


_OF_LOSS_AFTER = re.compile(
    r"""[ 	]*(?:of|in)[ 	]+(?:the[ 	]+|today's[ 	]+|this[ 	]+|its[ 	]+|current[ 	]+)?
        (?!(?:EBITDA|total|programme|program|portfolio|baseline)\b)  # "48% of EBITDA in losses"
        (?:[\w'’-]+[ 	]+){0,2}?(?:loss|losses|leakage|write-offs?|shortfall)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_LOSS_OBJECT = re.compile(  # "halves the loss"
    r"""[ \t]+(?:the|today's|its|this|current)[ \t]+(?:[\w'’-]+[ \t]+){0,2}?
        (?:loss|losses|leakage|write-offs?|shortfall)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_OF_QUARTERS = re.compile(r"[ \t]+of[ \t]+(?:the[ \t]+)?(?:[\w-]+[ \t]+)?quarters\b", re.I)
_OF_TOTAL = re.compile(
    r"""[ \t]*(?:of|in)[ \t]+(?:the[ \t]+|our[ \t]+|its[ \t]+)?(?:[\w'’-]+[ \t]+){0,2}?
        (?:total|programme|program|portfolio|EBITDA|opportunit(?:y|ies))\b""",
    re.IGNORECASE | re.VERBOSE,
)
_OF_LOSS_BEFORE = re.compile(
    r"(?:loss|losses|leakage|write-offs?|shortfall)[ \t]+(?:in|by)[ \t]+$", re.IGNORECASE
)

# "a gain of $1.08M (40%)": a percent alone in brackets right after a USD figure, in a
# sentence about a loss, is that figure as a share of the loss (a recovery ratio)
_BRACKETED_AFTER_USD = re.compile(
    r"[$€£][\d.,]+[ \t]*(?:[KMBkmb]|bn|mm|million|billion)?(?:[ \t]+[\w'’-]+){0,4}[ \t]*\($"
)
"""A USD figure, at most four words ("of annual loss"), then an opening bracket: "recovers
$2.1M of the $3.3M annual loss (65%)"."""
# "in six of eight quarters (75%)": a percent in brackets after a quarters count is k / m
_BRACKETED_AFTER_QUARTERS = re.compile(r"(?i)\bquarters?[ \t]*\($")
_WHOLE = re.compile(
    r"(?i)\b(?:totals?|together|combined|overall|altogether|in[ \t]+all|across|programme|program"
    r"|portfolio|book-wide|entire|whole|identified|headline|sum|all[ \t]+(?:the[ \t]+)?(?:[\w-]+"
    r"[ \t]+)?(?:cohorts|opportunities|segments|fixes|actions))\b"
)
"""A sentence about the whole programme: an impact figure in it may be the total."""
_OF_THE_TIME = re.compile(r"(?i)[ \t]+of[ \t]+the[ \t]+time\b")
_BOUND = re.compile(
    r"(?i)\b(?:(?P<up>more[ \t]+than|over|above|at[ \t]+least|upwards[ \t]+of|in[ \t]+excess"
    r"[ \t]+of|better[ \t]+than)|(?P<down>less[ \t]+than|under|below|at[ \t]+most|fewer"
    r"[ \t]+than|no[ \t]+more[ \t]+than))[ \t]+$"
)
"""A share stated as a bound: "more than halves the loss", "under 0.1% of the total"."""
_PORTFOLIO_SCOPE = re.compile(
    r"(?i)\b(?:across|among|between|for|of)[ \t]+(?:all[ \t]+|the[ \t]+|these[ \t]+|those"
    r"[ \t]+|our[ \t]+)?(?:[\w-]+[ \t]+)?(?:cohorts|opportunities|segments|pockets)\b"
)
"""A sentence about the cohorts together ("across the five cohorts the impacts range from
$26.1K to $186.7K"): its figures may be any cohort's (role ``across``)."""
_LOSS_WORD = re.compile(r"\b(?:loss|losses|leakage|write-offs?|shortfall)\b", re.IGNORECASE)


_SUM_WORDS = re.compile(
    r"\b(?:together|combined|add(?:s|ing)?|make[s]?[ \t]+up|between[ \t]+them"
    r"|in[ \t]+total|sum[ \t]+of)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;!?\n](?:\s|$)")


def with_context(text: str, figures: list[Figure]) -> list[Figure]:
    """Wording that licenses a derivation, as roles: a percent worded as a share of a loss
    gets ``of_loss`` (it may be a recovery ratio, impact / loss: "40% of the cohort's
    loss", "a quarter of the write-off", "cut the loss in half", "halves the loss"); a fraction
    word followed by "of the quarters" gets ``of_quarters`` (k / m of the quarters pair);
    a percent in brackets right after a USD figure in a sentence about a loss ("a gain of
    $1.08M (40%)") gets ``of_loss`` too; a percent "of the total", "of EBITDA", "of the
    programme" gets ``of_total`` (a share:
    its own derivations are tried before another opportunity's field); a USD or percent figure
    in a sentence that says it adds things up ("together", "combined", "add(s)", "make
    up", "between them", "in total", "sum of") gets ``sum`` (it may add two opportunities'
    impacts). Other wording leaves the figure as it is.

    >>> from pe_eval_core.numbers import extract_figures, extract_word_figures
    >>> text = "recovers 40% of the cohort's loss, cuts the loss in half, 7% of EBITDA"
    >>> figs = merge_figures(extract_figures(text), extract_word_figures(text))
    >>> [(f.raw, f.role) for f in with_context(text, figs)]
    [('40%', 'of_loss'), ('half', 'fraction of_loss'), ('7%', 'of_total')]
    >>> text = "it halves the loss; the signal appeared in half of the quarters observed"
    >>> [(f.raw, f.role) for f in with_context(text, extract_word_figures(text))]
    [('halves', 'fraction of_loss'), ('half', 'fraction of_quarters')]
    >>> text = "improves the outcome to $1.6M of loss, a gain of $1.08M (40%)."
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$1.6M', ''), ('$1.08M', ''), ('40%', 'of_loss')]
    >>> text = "Revenue reached $1.08M (40%) this year; $2M (4% of EBITDA) of loss."
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$1.08M', ''), ('40%', ''), ('$2M', ''), ('4%', 'of_total')]
    >>> text = "Revenue reached $1.08M (40%) this year."  # no loss in the sentence
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$1.08M', ''), ('40%', '')]
    >>> text = "Plus $2.6M of relief. Together, these two are worth $7.6M (77% of the total)."
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$2.6M', ''), ('$7.6M', 'sum'), ('77%', 'of_total sum')]
    """
    out = figures
    sentences = _Sentences(text)
    for j, f in enumerate(figures):
        if f.kind is not FigureKind.PERCENT and f.kind is not FigureKind.USD:
            continue
        g = _in_context(text, f, sentences)
        if g is not f:
            if out is figures:
                out = list(figures)
            out[j] = g
    return out


def _claiming(f: Figure, claim: str) -> Figure:
    """``dataclasses.replace(f, claim=claim)`` at a fifth of its cost (most money figures of a
    block get a claim; ``replace`` reads the dataclass's fields each call)."""
    return Figure(f.kind, f.value, f.raw, f.start, f.end, f.lo, f.hi, f.negative, f.role, claim)


def _in_context(text: str, f: Figure, sentences: _Sentences) -> Figure:
    """One USD or percent figure with the claim and roles its wording gives it."""
    if f.kind is FigureKind.USD:
        claim = claim_of(text, f.start, f.end).value
        if claim == "impact" and sentences.says(_WHOLE, f.start, f.end):
            claim = "total"  # "the fixes recover $15.0M in all"
        if claim != "any":
            f = _claiming(f, claim)
    roles = _licensing(text, f, sentences)
    if sentences.says(_SUM_WORDS, f.start, f.end):
        roles.append("sum")
    if sentences.says(_PORTFOLIO_SCOPE, f.start, f.end):
        roles.append("across")
    if f.kind is FigureKind.USD and _aside(text, f):
        roles.append("aside")
    if not roles:
        return f
    return _bounded(text, replace(f, role=" ".join([f.role, *roles]).strip()))


_NAMED_BEFORE = re.compile(
    r"(?i)\b(?:EBITDA|baseline|base|total|programme|program|portfolio|opportunity|impact|"
    r"recovery|uplift|upside|headline|book)[ \t]$"
)
"""Nouns of a positive quantity an amount in brackets may restate ("EBITDA ($14.5M)")."""


def _aside(text: str, f: Figure) -> bool:
    """An amount in brackets right after the noun of a positive quantity, with no minus of its
    own: "EBITDA ($14.5M)" restates what it follows; elsewhere brackets are an accounting
    negative ("earns ($8.9M)", "| ($267,706) |", "Annual outcome: ($267,706)")."""
    raw = f.raw
    return (
        raw[:1] == "("
        and f.negative
        and not any(c in raw for c in "-\u2212\u2013")
        and _NAMED_BEFORE.search(text, max(0, f.start - 40), f.start) is not None
    )


def _bounded(text: str, f: Figure) -> Figure:
    """A share worded as a bound stands for every value on its side: "more than halves the
    loss" is any recovery of at least half, "under 0.1% of the total" any share below (role
    ``bound``: only the share its wording names grounds it, never a field that happens to
    lie on that side).

    >>> from pe_eval_core.numbers import extract_figures, extract_word_figures
    >>> t = "it more than halves the loss; under 0.1% of the total; over 5% of loans"
    >>> figs = merge_figures(extract_figures(t), extract_word_figures(t))
    >>> [(f.raw, round(f.lo, 2), f.hi > 100, f.role) for f in with_context(t, figs)]
    [('halves', 45.83, True, 'fraction of_loss bound'), ('0.1%', 0.0, False, 'of_total bound'),
     ('5%', 4.5, False, '')]
    """
    if f.kind is not FigureKind.PERCENT or not any(r.startswith("of_") for r in f.role.split()):
        return f
    m = _BOUND.search(text, max(0, f.start - 24), f.start)
    if m is None:
        return f
    role = f"{f.role} bound"
    if m["up"] is not None:
        return replace(f, hi=_UNBOUNDED, role=role)
    return replace(f, lo=0.0, role=role)


_UNBOUNDED = 1e15


def _licensing(text: str, f: Figure, sentences: _Sentences) -> list[str]:
    """The one derivation ``f``'s wording licenses, as a role (see ``with_context``)."""
    percent = f.kind is FigureKind.PERCENT
    if percent and _of_loss(text, f, sentences):
        return ["of_loss"]
    if ("fraction" in f.role or percent) and _OF_QUARTERS.match(text, f.end) is not None:
        return ["of_quarters"]
    if percent and _BRACKETED_AFTER_QUARTERS.search(text, max(0, f.start - 12), f.start):
        return ["of_quarters"]
    if percent and _OF_THE_TIME.match(text, f.end) is not None:
        return ["of_quarters"]  # "75% of the time": the share of the quarters observed
    if percent and (base := _of_stated(text, f.end)) is not None:
        return [f"of_usd={base:g}"]
    if percent and _OF_TOTAL.match(text, f.end) is not None:
        return ["of_total"]
    if f.kind is FigureKind.USD and (n := _run_rate(text, f.start, f.end)) is not None:
        return [f"rate:{n}"]
    if f.kind is FigureKind.USD and _PER_YEAR_AFTER.match(text, f.end) is not None:
        return ["annual"]  # "$564.8M p.a.": an annual field, never a run-rate of one
    return []


def _of_loss(text: str, f: Figure, sentences: _Sentences) -> bool:
    """A percent worded as a share of a loss ("40% of the cohort's loss", "halves the
    loss", "a gain of $1.08M (40%)" in a sentence about a loss)."""
    return (
        _OF_LOSS_AFTER.match(text, f.end) is not None
        or _OF_LOSS_BEFORE.search(text, max(0, f.start - 40), f.start) is not None
        or (f.raw[:4].lower() == "halv" and _LOSS_OBJECT.match(text, f.end) is not None)
        or (
            _BRACKETED_AFTER_USD.search(text, max(0, f.start - 60), f.start) is not None
            and text.startswith(")", f.end)  # "(40%)", not "(4.3% of EBITDA)"
            and sentences.says(_LOSS_WORD, f.start, f.end)
        )
    )


_OF_STATED = re.compile(
    r"[ \t]*of[ \t]+(?:the[ \t]+|our[ \t]+|its[ \t]+|that[ \t]+|this[ \t]+)?"
    r"(?:(?:total|combined|annual|identified|overall)[ \t]+)?(?=[$\u2013-]|US\$|USD)"
)
_PER_PERIOD_AFTER = re.compile(
    r"[ \t]*(?:(?:a|per|each|every)[ \t]+(?P<unit>quarter|month|week)"
    r"|/[ \t]*(?P<abbr>q(?:tr)?|quarter|mo(?:nth)?|wk|week)\b)",
    re.IGNORECASE,
)
_HEDGE_WORDS = r"(?:(?:about|roughly|around|some|approximately|nearly|c\.|~)[ \t]*)?"
_PER_PERIOD_BEFORE = re.compile(
    r"(?:\b(?P<unit>quarterly|monthly|weekly)[ \t]+(?:[\w-]+[ \t]+){0,2}?"
    r"(?:of[ \t]+|is[ \t]+|at[ \t]+)?"
    # "each quarter of inaction costs ~$1.7M", "waiting another quarter costs roughly $141M"
    r"|\b(?:each|every|another|a[ \t]+further|a[ \t]+single|per)[ \t]+(?P<each>quarter|month|week)"
    r"\b(?:[ \t]+[\w'-]+){0,4}?[ \t]+(?:costs?|loses|lost|adds|is|runs[ \t]+at)[ \t]+)"
    + _HEDGE_WORDS
    + "$",
    re.IGNORECASE,
)
_PER_YEAR_AFTER = re.compile(
    r"[ \t]*(?:(?:a|per|each|every)[ \t]+year\b|/[ \t]*(?:yr|year)\b|p\.a\.|per[ \t]+annum\b"
    r"|annually\b)",
    re.IGNORECASE,
)
_PERIODS = {"quarter": 4, "quarterly": 4, "q": 4, "qtr": 4, "month": 12, "monthly": 12, "mo": 12,
            "week": 52, "weekly": 52, "wk": 52}  # fmt: skip


def _of_stated(text: str, end: int) -> float | None:
    """The dollar value a percent is worded as a share of ("41% of the $15.0M")."""
    m = _OF_STATED.match(text, end)
    if m is None:
        return None
    stated = extract_figures(text[m.end() : m.end() + 24])
    if stated and stated[0].start == 0 and stated[0].kind is FigureKind.USD:
        return abs(stated[0].value) or None
    return None


def _names_a_period(low: str) -> bool:
    """Whether lower-cased ``low`` holds ``quarter``, ``month`` or ``week``: every
    ``_PER_PERIOD_BEFORE`` match holds one (each character the pattern matches ignoring case
    lower-cases to its letter: the Kelvin sign to ``k``), so a window without one is not
    searched (most money figures)."""
    return "quarter" in low or "month" in low or "week" in low


def _run_rate(text: str, start: int, end: int) -> int | None:
    """Periods a year of a dollar figure worded as a run-rate ("$1.6M a quarter",
    "$520K per month", "a quarterly loss of $1.6M"), else None."""
    m = _PER_PERIOD_AFTER.match(text, end)
    if m is None:
        lo = max(0, start - 64)
        if _names_a_period(text[lo:start].lower()):
            m = _PER_PERIOD_BEFORE.search(text, lo, start)
    if m is None:
        return None
    unit = m.groupdict().get("unit") or m.groupdict().get("abbr") or m.groupdict().get("each")
    return _PERIODS[(unit or "").lower()]


_PLAN = re.compile(
    r"(?i)\b(?:control(?:[ \t-]+(?:group|cell|arm|sample|cohort))?|hold-?outs?|"
    r"hold[ \t]+(?:back|out)|"
    r"(?:test|treatment|pilot|challenger|canary)[ \t-]+(?:group|cell|arm|sample|cohort|batch|book)|"
    r"sample[ \t]+(?:of|size)|randomi[sz]e[ds]?|a/b[ \t]+test|pilot[ \t]+(?:of|on|with))\b"
)
_PLAN_REACH = 40
_PLAN_WORDS = (
    *("control", "hold", "test", "treatment", "pilot", "challenger", "canary", "sample"),
    *("randomi", "a/b"),
)
"""A word every ``_PLAN`` match starts with: a block holding none (case folded) has no plan."""


def _has_plan(text: str) -> bool:
    """``_PLAN.search(text) is not None``, the pattern tried only where one of its words
    starts (every match starts with one): a substring search per word is C-speed, the
    pattern's scan of every position is not."""
    if FOLDS_TO_ASCII.search(text) is not None:
        return _PLAN.search(text) is not None
    low = text.lower()  # the same length and positions: no character folds to ASCII
    for word in _PLAN_WORDS:
        i = low.find(word)
        while i >= 0:
            if _PLAN.match(text, i) is not None:
                return True
            i = low.find(word, i + 1)
    return False


def without_plan_parameters(text: str, figures: list[Figure]) -> list[Figure]:
    """Drop the counts and percents that size a test the memo proposes ("a control group of
    500 loans", "hold out 10%", "a 2,000-account pilot cohort"): parameters of a plan, not
    claims about the source.

    >>> t = "Hold out 10% as a control group of 500 loans; the cohort has 13,436 loans."
    >>> [f.raw for f in without_plan_parameters(t, extract_figures(t))]
    ['13,436 loans']
    """
    if not figures or not _has_plan(text):
        return figures
    keep = []
    for f in figures:
        if f.kind is FigureKind.COUNT or f.kind is FigureKind.PERCENT:
            lo = max(0, f.start - _PLAN_REACH)
            window = text[lo : f.end + _PLAN_REACH]
            cut = [
                i for i in (window.find(";", f.end - lo), window.find(". ", f.end - lo)) if i >= 0
            ]
            window = window[: min(cut)] if cut else window
            head = max(window.rfind(";", 0, f.start - lo), window.rfind(". ", 0, f.start - lo))
            if _PLAN.search(window[head + 1 :]) is not None:
                continue
        keep.append(f)
    return keep


def _outside_names(figures: list[Figure], names: list[EntityMention]) -> list[Figure]:
    """Drop the counts whose number is the tail of a source name written in the prose
    ("route Tier 3 applications": "3 applications" is part of "Tier 3", not a count)."""
    spans = [(m.start, m.end) for m in names if m.key is None]
    if not spans:
        return figures
    return [
        f
        for f in figures
        if f.kind is not FigureKind.COUNT or not any(s < f.start < e for s, e in spans)
    ]


class _Sentences:
    """The sentences of one text (split on . ; ! ? and newlines), found in one pass, so
    looking up the sentence of each of a block's figures stays linear in the block."""

    def __init__(self, text: str):
        self.text = text
        self._starts: list[int] = []
        self._ends: list[int] | None = None  # found on the first lookup
        self._seen: dict[tuple[int, int, int], bool] = {}
        self._may: dict[int, bool] = {}
        self._patterns: list[re.Pattern[str]] = []
        """The patterns asked about, kept so that the ids keying ``_may`` and ``_seen`` (a
        pattern's own hash reads its compiled code every time) name one pattern each."""
        self._spans: dict[tuple[int, int], tuple[int, int]] = {}
        self._low: str | None = None

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The span of the sentence holding ``text[start:end]``.

        >>> t = "One. Two $5M here; three."
        >>> t.__getitem__(slice(*_Sentences(t).around(9, 12)))
        'Two $5M here'
        """
        ends = self._ends
        if ends is None:
            bounds = [(m.start(), m.end()) for m in _SENTENCE_END.finditer(self.text)]
            self._starts = [b[0] for b in bounds]
            ends = self._ends = [b[1] for b in bounds]
        i = bisect.bisect_right(ends, start)  # boundaries ending at or before start
        begin = ends[i - 1] if i else 0
        j = bisect.bisect_left(self._starts, end)  # the first boundary at or after end
        stop = self._starts[j] if j < len(self._starts) else len(self.text)
        return begin, stop

    def _may_say(self, pattern: re.Pattern[str]) -> bool:
        needs = _NEEDS.get(pattern)
        if needs is None:
            return True
        if self._low is None:  # "": a character folds to ASCII, the words cannot tell
            folds = FOLDS_TO_ASCII.search(self.text) is not None
            self._low = "" if folds else self.text.lower()
        low = self._low
        return not low or any(map(low.__contains__, needs))

    def says(self, pattern: re.Pattern[str], start: int, end: int) -> bool:
        """Whether the sentence holding ``text[start:end]`` matches ``pattern``; each
        sentence is searched once per pattern (a block of one long "sentence" of thousands of
        figures stays linear), and not at all when the text holds none of the words every
        match of the pattern holds (``_NEEDS``)."""
        pid = id(pattern)
        may = self._may.get(pid)
        if may is None:
            self._patterns.append(pattern)
            may = self._may[pid] = self._may_say(pattern)
        if not may:
            return False
        span = self._spans.get((start, end))
        if span is None:
            span = self._spans[start, end] = self.around(start, end)
        key = (pid, *span)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = pattern.search(self.text, *span) is not None
        return found


_NEEDS = {
    _SUM_WORDS: ("together", "combined", "add", "make", "between", "total", "sum"),
    _PORTFOLIO_SCOPE: ("cohorts", "opportunities", "segments", "pockets"),
}
"""Words (lower case) one of which every match of a pattern holds: a block with none of them
is not searched sentence by sentence."""


_Spans = list[tuple[int, int, str]]
"""Template-constant matches in a block: (start, end, matched phrase)."""


def template_regex(constants: tuple[TemplateConstant, ...]) -> re.Pattern[str] | None:
    """One case-insensitive alternation of all template constants (whitespace-flexible).

    >>> rx = template_regex((TemplateConstant(phrase="throttle to ~5% of  current"),))
    >>> bool(rx.search("Then Throttle to ~5% of\\ncurrent volume."))
    True
    """
    alternatives = []
    for c in constants:
        if c.regex:
            alternatives.append(f"(?:{c.phrase})")
        else:
            words = c.phrase.split()
            if words:
                alternatives.append(r"\s+".join(re.escape(w) for w in words))
    if not alternatives:
        return None
    return re.compile("|".join(alternatives), re.IGNORECASE)


def _inside(spans: _Spans, start: int, end: int) -> str | None:
    for s, e, text in spans:  # a handful of template matches per block at most
        if s <= start and end <= e:
            return text
    return None
