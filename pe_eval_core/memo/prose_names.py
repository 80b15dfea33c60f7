"""Prose names: the entities a memo's prose names (bold labels, decision-column lists,
evidence row ids), each with its span; ``source_names`` grounds them.

Extraction decisions, as the producers write prose:

>>> def names(text, figures=()):
...     return [(m.text, m.category) for m in extract_entities(text, figures)]
>>> names("**A × 360 months** (grade × term): **Counterfactual:** see **Texas x FHA**")
[('A', 'segment value'), ('360 months', 'segment value'), ('grade', 'decision column'),
 ('term', 'decision column'), ('Texas', 'segment value'), ('FHA', 'segment value')]

Every piece of a cohort label is a segment value, figures included; a column list after the
cohort may be spelled with spaces:

>>> names("**30-50% × <50** (discount bucket × employee_bucket)")
[('30-50%', 'segment value'), ('<50', 'segment value'), ('discount bucket', 'decision column'),
 ('employee_bucket', 'decision column')]

Underscore bold counts as bold, but only as markup standing on its own, never inside an
identifier:

>>> names("__Texas__, loan__purpose__x and snake_case_name, __init__")
[('Texas', None), ('init', None)]

A plain ``x`` splits only between spaces, never inside a word; unknown parentheses are prose:

>>> names("**Max term** (see below) and **Texas**")
[('Max term', None), ('Texas', None)]

Section labels name nothing: a bold span ending with a colon (``**Next step:**``,
``**If we wait**:``, ``**Q3 2026:**``) of at most six words and no ``×``; or a bold span of
two to six words, no digit, that is a line of its own (``**Where the money is**``). A cohort
is still a name, however it stands:

>>> names("**If we wait:** x. **What we would do**: y")
[]
>>> names("**Where the money is**\\n\\n- **Texas × FHA** loans")
[('Texas', 'segment value'), ('FHA', 'segment value')]
>>> names("**Texas × FHA:** loans; Cohort: **Ohio**")
[('Texas', 'segment value'), ('FHA', 'segment value'), ('Ohio', None)]
>>> names("**Texas**\\n**A × 360 months**\\n**Lead:** **Q3 2026:**")
[('Texas', None), ('A', 'segment value'), ('360 months', 'segment value')]

Evidence row ids listed for spot-checks are entities of their own category:

>>> names("Sample evidence rows for spot-check: 118204, 40577, ...")
[('118204', 'evidence row id'), ('40577', 'evidence row id')]

A decision-column list is read wherever it follows the bold cohort in the block, if it has
two or more ``×``-separated column names, however spelled (a remark in parentheses is left
alone):

>>> names("**NV × Retail** segment (state × credit_band), (see A × B) and (Tier 3 × GA)")
[('NV', 'segment value'), ('Retail', 'segment value'), ('state', 'decision column'),
 ('credit_band', 'decision column')]
>>> names("Sample evidence rows for spot-check: 118204, 40577, ...")
[('118204', 'evidence row id'), ('40577', 'evidence row id')]
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from pe_eval_core.memo.config import DEFAULT_SECTION_MARKERS
from pe_eval_core.memo.source_names import (
    DECISION_COLUMN,
    EVIDENCE_ROW,
    NAME_STRIP,
    SEGMENT_VALUE,
    normalize,
)
from pe_eval_core.numbers import Figure, FigureKind, extract_figures

_BOLD = re.compile(r"\*\*(?P<inner>[^*\n]+?)\*\*")
# Underscore bold "__x__" standing as a word of its own: underscores inside a word are an
# identifier, not markup ("loan__purpose__x", "snake_case"), and the delimiters need non-space
# text right inside them, as in CommonMark. (The lookbehind follows the "__" so the regex
# engine can still skip to candidate positions.)
_UNDER_BOLD = re.compile(r"__(?<![\w\\]__)(?P<inner>[^_\s](?:[^\n]*?[^_\s])??)__(?!\w)")
# Separators inside a bold label: the multiplication sign, or an "x" standing alone.
_SPLIT = re.compile(r"\s*×\s*|\s+[xX]\s+")
# "(grade × term)" right after a bold cohort label.
_PAREN_AFTER = re.compile(r"[ \t]*\((?P<inner>[^()\n]{1,200})\)")
_COLUMN_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_SNAKE_TOKEN = re.compile(r"[a-z_][a-z0-9_]*")
_COLUMN_NAME = re.compile(
    r"(?!(?i:see|e\.g|i\.e|like|cf|vs|versus|not|about|as|per|and|or|the|an?|unlike|"
    r"including|excluding|with|without|compare|note)\b)"
    r"[A-Za-z_][A-Za-z0-9_.\-]*(?: [A-Za-z_][A-Za-z0-9_.\-]*){0,2}"
)
"""A decision column as prose names it: one to three words (``grade``, ``loan term``,
``acquisition_source``), not a parenthetical remark (``see A``)."""
_EVIDENCE = re.compile(
    r"""evidence[ \t]+rows?\b[^:\n]{0,60}:[ \t]*       # "Sample evidence rows for spot-check:"
        (?P<ids>[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*         # first id (must contain a digit)
           (?:[ \t]*,[ \t]*(?:and[ \t]+)?              # ", " or ", and "
              [A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)*)        # more ids
    """,
    re.IGNORECASE | re.VERBOSE,
)
_WORD = re.compile(r"[^\W_]")  # a letter or digit
_ID_TOKEN = re.compile(r"[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*")


class EntityMention(NamedTuple):
    """A name the prose uses, with its span in the prose block."""

    text: str
    start: int
    end: int
    category: str | None
    """None for bold labels (any category may ground them); else the category it must be."""
    key: str | None = None
    """What to look up when it is not ``text``: the state code of a state's name."""


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    if text[start] not in _STRIP_SET and text[end - 1] not in _STRIP_SET:
        return start, end  # the common case: nothing to trim
    piece = text[start:end]
    left = piece.lstrip(NAME_STRIP)
    start += len(piece) - len(left)
    return start, start + len(left.rstrip(NAME_STRIP))


def _parts(text: str, start: int, end: int) -> Iterable[tuple[int, int]]:
    """Spans of the pieces of ``text[start:end]`` split on ``×`` / standalone ``x``."""
    pos = start
    for sep in _SPLIT.finditer(text, start, end):
        yield _trimmed(text, pos, sep.start()) if pos < sep.start() else (pos, pos)
        pos = sep.end()
    yield _trimmed(text, pos, end) if pos < end else (pos, pos)


def _pieces(text: str, start: int, end: int, inner: str) -> Iterable[tuple[int, int]]:
    """``_parts``, without the regex for a label with no separator character in it."""
    if "×" in inner or "x" in inner or "X" in inner:
        return _parts(text, start, end)
    return (_trimmed(text, start, end) if start < end else (start, start),)


def extract_entities(
    text: str,
    figures: Sequence[Figure] = (),
    section_markers: Iterable[str] = DEFAULT_SECTION_MARKERS,
) -> list[EntityMention]:
    """Entities named in one prose block, in text order.

    Bold labels (minus section markers and minus any piece holding a figure, which is
    graded as a figure), the decision-column list printed in parentheses right after a
    bold label, and the ids of an ``evidence rows ...:`` list.
    """
    markers = _markers(
        section_markers if type(section_markers) is tuple else tuple(section_markers)
    )
    starts = [f.start for f in figures] if figures else []
    out: list[EntityMention] = []
    for m in _bold_labels(text):
        if normalize(m[1]) in markers or is_section_label(text, m):
            continue
        if _label_pieces(text, m, starts, figures, out):
            out.extend(_columns_after(text, m.end(), starts, figures))
    if out and "(" in text and ("×" in text or " x " in text or " X " in text):
        out.extend(_later_column_lists(text, out, starts, figures))
    if "vidence" in text or "VIDENCE" in text:
        out.extend(_evidence_ids(text))
    if len(out) > 1:
        out.sort(key=_mention_start)
    return out


_LABEL_WORDS = 6


def is_section_label(text: str, m: re.Match[str]) -> bool:
    """A bold span that structures the prose: it ends with ``:`` (inside or right after the
    markup) and has at most six words and no ``×``; or it is a line of its own, of two to six
    words with no digit and no ``×``."""
    inner = m[1].strip()
    if not inner:
        return False
    if "×" in inner or _SPLIT.search(inner):
        return False  # a cohort: "**A × 360 months**", "**Texas x FHA:**"
    words = len(inner.rstrip(":").split())
    if inner.endswith(":") or text[m.end() : m.end() + 1] == ":":
        return words <= _LABEL_WORDS
    if _DIGIT_RE.search(inner):
        return False
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    # a heading of two words or more: the bold span is the whole line
    alone = not text[line_start : m.start()].strip() and not text[m.end() : line_end].strip()
    return alone and 2 <= words <= _LABEL_WORDS


_DIGIT_RE = re.compile(r"\d")


def _bold_labels(text: str) -> Iterable[re.Match[str]]:
    """``**bold**`` and ``__bold__`` labels, in text order (no regex for text without them)."""
    bold: Iterable[re.Match[str]] = _BOLD.finditer(text) if "**" in text else ()
    if "__" in text:
        bold = sorted([*bold, *_UNDER_BOLD.finditer(text)], key=_start)
    return bold


def _label_pieces(
    text: str,
    m: re.Match[str],
    starts: list[int],
    figures: Sequence[Figure],
    out: list[EntityMention],
) -> bool:
    """Append the named pieces of bold label ``m`` (split on ``×``/``x``; a piece with no
    letter or digit names nothing); True if any was appended. In a cohort label (two pieces
    or more) every piece is a segment value, whatever it looks like (``**30-50% × <50**``,
    ``**A × 180 months**``: an invented one is a hallucination, not a figure); a label of
    one piece holding a figure is graded as that figure (``**$6.2M of leakage**``)."""
    s, e = m.span(1)
    pieces = [(ps, pe) for ps, pe in _pieces(text, s, e, m[1]) if ps < pe]
    cohort = len(pieces) > 1
    named = False
    for ps, pe in pieces:
        if _WORD.search(text, ps, pe) is None and not (cohort and text[ps:pe].strip()):
            continue
        if not cohort and starts and _has_figure(starts, figures, ps, pe):
            continue
        out.append(EntityMention(text[ps:pe], ps, pe, SEGMENT_VALUE if cohort else None))
        named = True
    return named


def _columns_after(
    text: str, after: int, starts: list[int], figures: Sequence[Figure]
) -> list[EntityMention]:
    """The decision-column list printed in parentheses right after a bold label, if any."""
    c = text[after : after + 1]
    # ``_PAREN_AFTER`` needs "(" after spaces or tabs: skip the regex when the next
    # character already rules it out (a label followed by a word, the common case)
    if c == "(" or ((c == " " or c == "\t") and text[after + 1 : after + 2] in _PAREN_NEXT):
        return _decision_columns(text, after, starts, figures)
    return []


_PAREN_ANY = re.compile(r"\((?P<inner>[^()\n]{1,200})\)")


def _later_column_lists(
    text: str, named: list[EntityMention], starts: list[int], figures: Sequence[Figure]
) -> list[EntityMention]:
    """Decision-column lists that do not follow a bold label directly
    (``**NV × Retail** segment (state × channel)``): a parenthesised list after the first
    bold name of two or more ``×``-separated column names (a name: one to three words of
    letters, digits and underscores, as ``grade``, ``loan term``, ``acquisition_source``)."""
    first = named[0].end
    seen = {m.start for m in named if m.category == DECISION_COLUMN}
    out: list[EntityMention] = []
    for m in _PAREN_ANY.finditer(text, first):
        s, e = m.span("inner")
        parts = [p for p in _parts(text, s, e) if p[0] < p[1]]
        if len(parts) < 2 or parts[0][0] in seen or _has_figure(starts, figures, s, e):
            continue
        if all(_COLUMN_NAME.fullmatch(text[a:b]) for a, b in parts):
            out.extend(_column(text, a, b) for a, b in parts)
    return out


def _column(text: str, a: int, b: int) -> EntityMention:
    """A decision column named in prose, looked up with spaces as underscores
    (``loan term`` is ``loan_term``)."""
    name = text[a:b]
    key = "_".join(name.split()) if " " in name else None
    return EntityMention(name, a, b, DECISION_COLUMN, key)


def _evidence_ids(text: str) -> Iterable[EntityMention]:
    """The ids listed after ``evidence rows ...:``."""
    for m in _EVIDENCE.finditer(text):
        for t in _ID_TOKEN.finditer(text, m.start("ids"), m.end("ids")):
            if t.group().lower() != "and":
                yield EntityMention(t.group(), t.start(), t.end(), EVIDENCE_ROW)


_mention_start = itemgetter(1)
_STRIP_SET = frozenset(NAME_STRIP)
_PAREN_NEXT = frozenset({"(", " ", "\t"})


# "3,914 mortgages": a number, then the words it counts.
_COUNT_SHAPE = re.compile(
    r"[-−+]?\d[\d,]*(?:\.\d+)?\s+(?P<noun>[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*){0,2})"
)


def bold_count(mention: EntityMention) -> Figure | None:
    """The COUNT figure a bold label is when it is "<number> <noun>" for a noun outside the
    configured count nouns (``**3,914 mortgages**``), as the figure parser reads it with that
    noun; None when the parser does not read the whole label as one count.

    >>> f = bold_count(EntityMention("3,914 mortgages", 10, 25, None))
    >>> (f.kind.value, f.value, f.raw, f.start, f.end)
    ('count', 3914.0, '3,914 mortgages', 10, 25)
    >>> bold_count(EntityMention("Texas", 0, 5, None)) is None
    True
    """
    text = mention.text
    m = _COUNT_SHAPE.fullmatch(text)
    if m is None:
        return None
    figures = extract_figures(text, (m["noun"],))
    if len(figures) != 1 or figures[0].kind is not FigureKind.COUNT or figures[0].raw != text:
        return None
    return replace(figures[0], start=mention.start, end=mention.end)


@lru_cache(maxsize=16)
def _markers(section_markers: tuple[str, ...]) -> frozenset[str]:
    return frozenset(normalize(m) for m in section_markers)


def _start(m: re.Match[str]) -> int:
    return m.start()


def _has_figure(starts: list[int], figures: Sequence[Figure], s: int, e: int) -> bool:
    i = bisect_left(starts, s)
    if i > 0 and figures[i - 1].end > s:  # a figure starting before and running into the span
        return True
    return i < len(starts) and starts[i] < e


def _decision_columns(
    text: str, pos: int, starts: list[int], figures: Sequence[Figure]
) -> list[EntityMention]:
    m = _PAREN_AFTER.match(text, pos)
    if m is None:
        return []
    s, e = m.span("inner")
    if _has_figure(starts, figures, s, e):
        return []
    parts = [p for p in _parts(text, s, e) if p[0] < p[1]]
    token = _COLUMN_NAME if len(parts) > 1 else _SNAKE_TOKEN
    if not parts or not all(token.fullmatch(text[a:b]) for a, b in parts):
        return []  # "(see below)", "(FHA)": prose, not a column list
    return [_column(text, a, b) for a, b in parts]
