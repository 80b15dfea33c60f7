"""The one place memo prose is read: normalised first, parsed, every span mapped back.

A figure could hide from the grader behind a zero-width space, a full-width ``＄``, a bidi
control or ``&#36;`` (issue 23). :meth:`ProseReader.read` reads a prose block through
``text_norm.normalize`` (references decoded, hiding characters removed, look-alikes folded),
then finds its figures, names and template spans in the normalised text, and maps every span
back to the block as written, so marks and findings point at the characters the reader sees.
A figure keeps the text it was *read* as (``raw``: ``$987.6M``); :func:`written` says when
that differs from what is written.

A figure written with more digits than a float holds is *unreadable*: no source value can
ground it, and it is returned apart for the grader to name (never dropped in silence).
Plain ASCII prose is read as before, with no copy and no mapping.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from math import isfinite
from typing import NamedTuple

from pe_eval_core.memo.context import _outside_names, _Spans, read_figures
from pe_eval_core.memo.plain_names import PlainNames
from pe_eval_core.memo.prose_names import EntityMention, extract_entities
from pe_eval_core.memo.source_names import SEGMENT_VALUE
from pe_eval_core.numbers import Figure
from pe_eval_core.text_norm import Normalized, normalize, shown


class Reading(NamedTuple):
    """A prose block as read, every span in the block as written."""

    figures: list[Figure]
    mentions: list[EntityMention]
    """Bold labels and other entity mentions (``prose_names.extract_entities``)."""
    exempt: _Spans | None
    """Template-constant spans (None: not looked for, as there is no figure)."""
    names: list[EntityMention]
    """Source names in plain prose (``PlainNames``; empty when not read)."""
    unreadable: list[Figure]
    """Figures too long for any value (infinite ``value``): named, never matched."""


@dataclass(frozen=True, slots=True)
class ProseReader:
    """How one memo's prose is read (its count nouns, section markers, template constants
    and the source's vocabulary of plain names)."""

    count_nouns: tuple[str, ...]
    section_markers: tuple[str, ...]
    templates: re.Pattern[str] | None = None
    plain: PlainNames | None = None

    def read(self, text: str) -> Reading:
        """``text``'s figures, names and template spans (module docstring)."""
        norm = normalize(text)
        read = norm.text
        figures = read_figures(read, self.count_nouns)  # digits, words, labels, table cells
        names = self.plain.mentions(read) if self.plain is not None else []
        if figures and names:
            figures = _outside_names(figures, names)
        mentions = extract_entities(read, figures, self.section_markers)
        if figures and mentions:  # a figure inside a cohort label is a segment value
            figures = _outside_cohorts(figures, mentions)
        unreadable = [f for f in figures if not isfinite(f.value)]
        if unreadable:
            figures = [f for f in figures if isfinite(f.value)]
        exempt = self._templates(read) if figures else None
        reading = Reading(figures, mentions, exempt, names, unreadable)
        return _as_written(reading, norm) if norm.changed else reading

    def exempt_spans(self, text: str) -> _Spans:
        """The template-constant spans of ``text`` (read normalised), as written."""
        norm = normalize(text)
        spans = self._templates(norm.text)
        if not norm.changed:
            return spans
        return [(*norm.span(a, b), phrase) for a, b, phrase in spans]

    def _templates(self, text: str) -> _Spans:
        if self.templates is None:
            return []
        return [(m.start(), m.end(), m.group()) for m in self.templates.finditer(text)]


_KEPT: dict[ProseReader, dict[str, Reading]] = {}
_kept_chars = [0]
KEPT_CHARS_MAX = 2_000_000
"""Characters of prose whose readings a process keeps (:func:`read_kept`), over every reader:
about 6 bytes per character with the text (5 for the readings of the producer's prose), so
at most about 12 MB."""


def read_kept(reader: ProseReader, text: str) -> Reading:
    """``reader.read(text)``, kept by reader and text for the life of the process (at most
    :data:`KEPT_CHARS_MAX` characters of prose, then forgotten at once). A reading is a pure
    function of the two (the reader's plain names are built from one source's content), and a
    producer repeats whole blocks across memos: the board and operator memos of a portco
    share about a third of their blocks (235 distinct of 366 in the shared producer run).
    Each call gets its own lists; figures and mentions are immutable. A reading is the
    block's figures and names before any matching: no grading is kept."""
    by_text = _KEPT.get(reader)
    got = by_text.get(text) if by_text is not None else None
    if got is None:
        got = reader.read(text)
        if _kept_chars[0] + len(text) > KEPT_CHARS_MAX:
            _KEPT.clear()
            _kept_chars[0] = 0
        if len(text) <= KEPT_CHARS_MAX:
            _KEPT.setdefault(reader, {})[text] = got
            _kept_chars[0] += len(text)
    figures, mentions, exempt, names, unreadable = got
    return Reading(
        list(figures),
        list(mentions),
        None if exempt is None else list(exempt),
        list(names),
        list(unreadable),
    )


def _outside_cohorts(figures: list[Figure], mentions: list[EntityMention]) -> list[Figure]:
    """The figures not inside a piece of a bold cohort label (``**30-50% × <50**``)."""
    spans = [(m.start, m.end) for m in mentions if m.category == SEGMENT_VALUE]
    if not spans:
        return figures
    return [f for f in figures if not any(s <= f.start and f.end <= e for s, e in spans)]


def _as_written(reading: Reading, norm: Normalized) -> Reading:
    """``reading`` (of ``norm.text``) with every span moved to the text as written."""

    def figure(f: Figure) -> Figure:
        start, end = norm.span(f.start, f.end)
        return dataclasses.replace(f, start=start, end=end)

    def mention(m: EntityMention) -> EntityMention:
        start, end = norm.span(m.start, m.end)
        return m._replace(start=start, end=end)

    figures, mentions, exempt, names, unreadable = reading
    return Reading(
        [figure(f) for f in figures],
        [mention(m) for m in mentions],
        None if exempt is None else [(*norm.span(a, b), p) for a, b, p in exempt],
        [mention(m) for m in names],
        [figure(f) for f in unreadable],
    )


def written(text: str, fig: Figure) -> str | None:
    """How ``fig`` is written in ``text`` when that is not what it was read as (hidden or
    look-alike characters, an HTML reference), with invisible characters named; else None.

    >>> t = "Lost $\\u200b987.6M."
    >>> fig = ProseReader((), ()).read(t).figures[0]
    >>> fig.raw, written(t, fig)
    ('$987.6M', '$<U+200B>987.6M')
    """
    as_written = text[fig.start : fig.end]
    return None if as_written == fig.raw else shown(as_written)
