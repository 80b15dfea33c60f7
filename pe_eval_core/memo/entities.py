"""Named entities: what the prose names (bold labels, decision-column lists, evidence row ids)
and what the source knows (archetypes, decision columns, segment keys/values, row ids, portco).

Extraction decisions, as the producers write prose:

>>> def names(text, figures=()):
...     return [(m.text, m.category) for m in extract_entities(text, figures)]
>>> names("**A × 360 months** (grade × term): **Counterfactual:** see **Texas x FHA**")
[('A', None), ('360 months', None), ('grade', 'decision column'), ('term', 'decision column'),
 ('Texas', None), ('FHA', None)]

Underscore bold counts as bold, but only as markup standing on its own, never inside an
identifier:

>>> names("__Texas__, loan__purpose__x and snake_case_name, __init__")
[('Texas', None), ('init', None)]

A plain ``x`` splits only between spaces, never inside a word; unknown parentheses are prose:

>>> names("**Max term** (see below) and **Texas**")
[('Max term', None), ('Texas', None)]

Evidence row ids listed for spot-checks are entities of their own category:

>>> names("Sample evidence rows for spot-check: 118204, 40577, ...")
[('118204', 'evidence row id'), ('40577', 'evidence row id')]
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache, partial
from operator import itemgetter
from typing import Any, NamedTuple

from pe_eval_core.memo.config import DEFAULT_SECTION_MARKERS
from pe_eval_core.memo.models import OpportunityMap
from pe_eval_core.numbers import Figure, FigureKind, extract_figures

DECISION_COLUMN = "decision column"
EVIDENCE_ROW = "evidence row id"
SEGMENT_VALUE = "segment value"
SEGMENT_KEY = "segment key"
ARCHETYPE = "archetype"
PORTCO = "portco id"
VERTICAL = "vertical"

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
_STRIP = " \t\r\n.,;:!?\"'`“”‘’"


@lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """Case- and whitespace-insensitive key for entity comparison.

    >>> normalize("  360   Months: "), normalize("118204")
    ('360 months', '118204')
    """
    if text.isdigit():  # row ids and numeric codes: the common case, nothing to fold
        return text
    return " ".join(text.split()).strip(_STRIP).casefold()


def _value_text(value: Any) -> str | None:
    """How a source value is written in prose (integral floats without the ``.0``)."""
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class EntityMention(NamedTuple):
    """A name the prose uses, with its span in the prose block."""

    text: str
    start: int
    end: int
    category: str | None
    """None for bold labels (any category may ground them); else the category it must be."""


class SourceEntity(NamedTuple):
    """A name the source knows, with where it comes from."""

    text: str
    category: str
    path: str
    opp: int | None
    """Index of the owning opportunity; None for portfolio-level names."""


_new_entity = partial(tuple.__new__, SourceEntity)

_SCAN_LIMIT = 48
"""Names per opportunity up to which a lookup compares them in place (beyond: a table)."""
_INT_START = frozenset("-0123456789")

EntityStatus = str  # "grounded" | "misattributed" | "ungrounded"


class EntityUniverse:
    """Every name the source knows, by normalized text.

    A name is looked up in its own opportunity (a handful of names), then at portfolio level;
    only a miss there builds (once) the cross-opportunity table that tells a mis-attribution
    from a hallucination. Every lookup is a dictionary access.
    """

    def __init__(self, source: OpportunityMap):
        self._source = source
        self._portfolio: dict[str, SourceEntity] = {}
        for entity in (
            SourceEntity(source.portco_id, PORTCO, "portco_id", None),
            SourceEntity(source.vertical or "", VERTICAL, "vertical", None),
        ):
            if key := normalize(entity.text):
                self._portfolio.setdefault(key, entity)
        self._local: dict[int, dict[str, list[SourceEntity]]] = {}
        self._norm: dict[str, str] = {}
        self._others: dict[str | None, dict[str, list[SourceEntity]]] | None = None

    @classmethod
    def build(cls, source: OpportunityMap) -> EntityUniverse:
        return cls(source)

    def opportunity_entities(self, i: int) -> list[SourceEntity]:
        """The names opportunity ``i`` owns: segment values and keys, archetype, decision
        columns, evidence row ids."""
        opp = self._source.opportunities[i]
        p = f"opportunities[{i}]"
        out = []
        append = out.append
        new = _new_entity  # SourceEntity(*...) without NamedTuple's Python-level __new__
        for key, value in opp.segment.items():
            text = value if type(value) is str else _value_text(value)
            if text is not None:
                append(new((text, SEGMENT_VALUE, f"{p}.segment.{key}", i)))
        if opp.archetype:
            append(new((opp.archetype, ARCHETYPE, f"{p}.archetype", i)))
        for j, col in enumerate(opp.decision_cols):
            append(new((col, DECISION_COLUMN, f"{p}.decision_cols[{j}]", i)))
        for key in opp.segment:
            append(new((str(key), SEGMENT_KEY, f"{p}.segment", i)))
        for j, row in enumerate(opp.evidence_row_ids):
            text = _value_text(row)
            if text is not None:
                append(new((text, EVIDENCE_ROW, f"{p}.evidence_row_ids[{j}]", i)))
        return out

    def local(self, i: int) -> dict[str, list[SourceEntity]]:
        table = self._local.get(i)
        if table is None:
            table = self._local[i] = {}
            for e in self.opportunity_entities(i):
                if key := normalize(e.text):
                    bucket = table.get(key)
                    if bucket is None:
                        table[key] = [e]
                    else:
                        bucket.append(e)
        return table

    def release(self, i: int) -> None:
        """Forget opportunity ``i``'s cached names (rebuilt if asked for again)."""
        self._local.pop(i, None)

    def _own(self, key: str, i: int, category: str | None) -> SourceEntity | None:
        """The first of opportunity ``i``'s names (``opportunity_entities`` order) that
        normalizes to ``key`` and is of ``category`` (any when None).

        An opportunity has a handful of names, so they are compared in place and only the
        match gets its path built; one with many (long row-id lists) gets its table built.

        >>> src = OpportunityMap.model_validate({"portco_id": "X", "opportunities": [
        ...     {"id": "a", "segment": {"grade": "A"}, "evidence_row_ids": list(range(100))},
        ...     {"id": "b", "segment": {"grade": "B"}, "evidence_row_ids": [7]}]})
        >>> u = EntityUniverse(src)
        >>> u.lookup("42", 0)[1].path, u.lookup(" a ", 0)[1].path, u.lookup("B", 0)[0]
        ('opportunities[0].evidence_row_ids[42]', 'opportunities[0].segment.grade', 'misattributed')
        >>> u.lookup("7", 1)[1].path, u.lookup("grade", 1, SEGMENT_KEY)[1].path
        ('opportunities[1].evidence_row_ids[0]', 'opportunities[1].segment')
        """
        opp = self._source.opportunities[i]
        segment = opp.segment
        if len(segment) * 2 + len(opp.decision_cols) + len(opp.evidence_row_ids) > _SCAN_LIMIT:
            for e in self.local(i).get(key, ()):
                if category is None or e.category == category:
                    return e
            return None
        norm = self._norm
        if category is None or category == SEGMENT_VALUE:
            for k, value in segment.items():
                text = value if type(value) is str else _value_text(value)
                if text is not None:
                    n = norm.get(text)
                    if n is None:
                        n = norm[text] = normalize(text)
                    if n == key and n:
                        return _new_entity(
                            (text, SEGMENT_VALUE, f"opportunities[{i}].segment.{k}", i)
                        )
        if (category is None or category == ARCHETYPE) and opp.archetype:
            text = opp.archetype
            n = norm.get(text)
            if n is None:
                n = norm[text] = normalize(text)
            if n == key and n:
                return _new_entity((text, ARCHETYPE, f"opportunities[{i}].archetype", i))
        if category is None or category == DECISION_COLUMN:
            for j, text in enumerate(opp.decision_cols):
                n = norm.get(text)
                if n is None:
                    n = norm[text] = normalize(text)
                if n == key and n:
                    return _new_entity(
                        (text, DECISION_COLUMN, f"opportunities[{i}].decision_cols[{j}]", i)
                    )
        if category is None or category == SEGMENT_KEY:
            for k in segment:
                text = str(k)
                n = norm.get(text)
                if n is None:
                    n = norm[text] = normalize(text)
                if n == key and n:
                    return _new_entity((text, SEGMENT_KEY, f"opportunities[{i}].segment", i))
        if category is None or category == EVIDENCE_ROW:
            for j, row in enumerate(opp.evidence_row_ids):
                if type(row) is int:
                    if key[:1] not in _INT_START:
                        continue  # str(int) is "-?digits", normalized to itself
                    text = str(row)
                    n = text
                else:
                    text = _value_text(row)
                    if text is None:
                        continue
                    n = norm.get(text)
                    if n is None:
                        n = norm[text] = normalize(text)
                if n == key and n:
                    return _new_entity(
                        (text, EVIDENCE_ROW, f"opportunities[{i}].evidence_row_ids[{j}]", i)
                    )
        return None

    def _cross(self) -> dict[str | None, dict[str, list[SourceEntity]]]:
        """category (None = any) -> normalized name -> its two owners with the smallest ids.

        Two are enough: a lookup only ever excludes its own opportunity. Choosing by id (not
        by position) keeps findings independent of the source's opportunity order.
        """
        if self._others is None:
            owners: dict[str | None, dict[str, dict[int, SourceEntity]]] = {}
            for i in range(len(self._source.opportunities)):
                for e in self.opportunity_entities(i):
                    if key := normalize(e.text):
                        for category in (None, e.category):
                            owners.setdefault(category, {}).setdefault(key, {}).setdefault(i, e)
            ids = [o.id for o in self._source.opportunities]
            self._others = {
                category: {
                    key: [
                        e for _, e in heapq.nsmallest(2, ((ids[i], e) for i, e in by_opp.items()))
                    ]
                    for key, by_opp in table.items()
                }
                for category, table in owners.items()
            }
        return self._others

    def lookup(
        self, text: str, opp: int | None, category: str | None = None
    ) -> tuple[EntityStatus, SourceEntity | None]:
        """Ground a name used in opportunity ``opp``'s prose.

        Own opportunity or portfolio level: grounded; only another opportunity's: misattributed
        (still grounded, but a finding); absent: ungrounded. ``category`` restricts the match
        (a decision-column list is checked against decision columns only).
        """
        key = normalize(text)
        if opp is not None:
            e = self._own(key, opp, category)
            if e is not None:
                return "grounded", e
        if category is None and (e := self._portfolio.get(key)) is not None:
            return "grounded", e
        for e in self._cross().get(category, {}).get(key, ()):
            if e.opp != opp:
                return "misattributed", e
        return "ungrounded", None


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    if text[start] not in _STRIP_SET and text[end - 1] not in _STRIP_SET:
        return start, end  # the common case: nothing to trim
    piece = text[start:end]
    left = piece.lstrip(_STRIP)
    start += len(piece) - len(left)
    return start, start + len(left.rstrip(_STRIP))


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
    new = _new_mention
    bold: Iterable[re.Match[str]] = _BOLD.finditer(text) if "**" in text else ()
    if "__" in text:
        bold = sorted([*bold, *_UNDER_BOLD.finditer(text)], key=_start)
    word = _WORD.search
    for m in bold:
        s, e = m.span(1)
        inner = m[1]
        if normalize(inner) in markers:
            continue
        named = False
        for ps, pe in _pieces(text, s, e, inner):
            if ps >= pe or word(text, ps, pe) is None:
                continue
            if starts and _has_figure(starts, figures, ps, pe):
                continue
            out.append(new((text[ps:pe], ps, pe, None)))
            named = True
        if named:
            after = m.end()
            c = text[after : after + 1]
            # ``_PAREN_AFTER`` needs "(" after spaces or tabs: skip the regex when the next
            # character already rules it out (a label followed by a word, the common case)
            if c == "(" or ((c == " " or c == "\t") and text[after + 1 : after + 2] in _PAREN_NEXT):
                columns = _decision_columns(text, after, starts, figures)
                if columns:
                    out.extend(columns)
    if "vidence" in text or "VIDENCE" in text:
        for m in _EVIDENCE.finditer(text):
            for t in _ID_TOKEN.finditer(text, m.start("ids"), m.end("ids")):
                if t.group().lower() != "and":
                    out.append(EntityMention(t.group(), t.start(), t.end(), EVIDENCE_ROW))
    if len(out) > 1:
        out.sort(key=_mention_start)
    return out


_new_mention = partial(tuple.__new__, EntityMention)
_mention_start = itemgetter(1)
_STRIP_SET = frozenset(_STRIP)
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
    token = _COLUMN_TOKEN if len(parts) > 1 else _SNAKE_TOKEN
    if not parts or not all(token.fullmatch(text[a:b]) for a, b in parts):
        return []  # "(see below)", "(FHA)": prose, not a column list
    return [EntityMention(text[a:b], a, b, DECISION_COLUMN) for a, b in parts]
