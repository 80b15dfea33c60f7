"""Text as figures are read from it: the one normalisation before any extraction, with the
original offsets kept so a finding or a mark still points into the text as written.

A fabricated ``$987.6M`` hid from the grader written with a zero-width space after the
``$``, a full-width ``＄`` or small ``﹩``, a right-to-left override, a full-width ``％``, or
``&#36;``. :func:`normalize` undoes all of them, in one pass:

* HTML character references (``&#36;``, ``&#x24;``, ``&dollar;``, ``&amp;``) are decoded
  (markdown renders them as the character they name);
* a right-to-left override run (``U+202E`` up to its ``U+202C``, or the line's end) is read
  in the order it is *displayed*, reversed (brackets mirrored): ``\u202eM6.789$\u202c``
  shows ``$987.6M`` to a reader, so it reads ``$987.6M``;
* format characters (Unicode category ``Cf``: zero-width space and joiners, bidi embeddings,
  overrides and isolates, the BOM, soft hyphens) are removed, and so are combining marks on
  anything but a letter (a strike-through or keycap on a digit; an accent on a name stays);
* digits of any script become ASCII digits (``٩`` -> ``9``, ``９`` -> ``9``);
* every other character is NFKC-normalised (``＄`` and ``﹩`` -> ``$``, ``％`` -> ``%``,
  ``ｍ`` -> ``m``, ``𝟗`` -> ``9``), except where NFKC would change what the prose *says*:
  space characters stay as written (a thin space between thousands is the readers'
  business), and superscripts, subscripts, vulgar fractions and circled or squared forms
  keep their shape (``$4.8M¹`` is a footnote, not ``$4.8M1``).

ASCII text without ``&`` is returned as is, without a copy (the common case); otherwise only
the characters that change are visited, so the cost follows them, not the text's length.
:meth:`Normalized.span` maps a span of the normalised text back to the original.
"""

from __future__ import annotations

import dataclasses
import html
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

_Item = TypeVar("_Item")

_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)")
_SUSPECT = re.compile(r"[^\x00-\x7f]|&")
_RLO, _PDF = "\u202e", "\u202c"
_RUN_END = re.compile("[\u202c\n\u2029]")
_MIRROR = str.maketrans("()[]{}<>", ")(][}{><")
_KEEP_TAGS = frozenset({"<super>", "<sub>", "<fraction>", "<circle>", "<square>", "<noBreak>"})
"""Compatibility forms whose NFKC would change what the text says: they stay as written."""


@dataclass(frozen=True, slots=True)
class Normalized:
    """The normalised text and where each changed piece of it came from.

    ``pieces`` lists, in order, each replacement as ``(start, end, orig_start, orig_end)``:
    ``text[start:end]`` came from ``original[orig_start:orig_end]`` (an empty replacement is a
    removed character). Between pieces the text is the original, shifted.
    """

    text: str
    pieces: tuple[tuple[int, int, int, int], ...] = ()
    starts: tuple[int, ...] = ()
    """Each piece's start in ``text`` (for bisection)."""

    @property
    def changed(self) -> bool:
        """Whether anything was normalised (False: ``text`` is the original)."""
        return bool(self.pieces)

    def position(self, i: int) -> int:
        """The original index of the normalised character ``i`` (or of the end, for
        ``i == len(text)``)."""
        if not self.pieces:
            return i
        k = bisect_right(self.starts, i) - 1
        if k < 0:
            return i
        _, end, orig_start, orig_end = self.pieces[k]
        if i < end:
            return orig_start
        return orig_end + (i - end)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of ``text[start:end]`` (an empty span maps to a point).

        >>> n = normalize("pay &#36;9.5M now")
        >>> n.text[4:9], n.span(4, 9)
        ('$9.5M', (4, 13))
        >>> n = normalize("$\\u200b987.6M")
        >>> n.text, n.span(0, 7)
        ('$987.6M', (0, 8))
        """
        if start >= end or not self.pieces:
            at = self.position(start)
            return (at, at) if start >= end else (start, end)
        last = end - 1
        k = bisect_right(self.starts, last) - 1
        inside = k >= 0 and last < self.pieces[k][1]  # then all of the replaced source
        stop = self.pieces[k][3] if inside else self.position(last) + 1
        return self.position(start), stop


@lru_cache(maxsize=4096)
def _char(c: str) -> str:
    """What one non-ASCII character reads as (``""``: removed). Combining marks are decided
    by :func:`normalize`, which knows the character before."""
    category = unicodedata.category(c)
    if category == "Cf":
        return ""
    if category == "Zs":
        return c
    if category == "Nd":
        return str(unicodedata.decimal(c))
    if unicodedata.decomposition(c).split(" ", 1)[0] in _KEEP_TAGS:
        return c
    out = unicodedata.normalize("NFKC", c)
    return "".join(d for d in out if unicodedata.category(d) != "Cf")


def _mark(c: str) -> bool:
    return unicodedata.category(c) in ("Mn", "Me")


def _replacement(text: str, i: int, overrides: bool) -> tuple[str, int] | None:
    """What ``text[i]`` (a suspect: non-ASCII or ``&``) reads as and where its source ends;
    None when it reads as itself. ``overrides``: read a right-to-left override run as shown
    (inside one, a nested override is only removed, so the work stays linear)."""
    c = text[i]
    if c == _RLO and overrides:  # displayed right to left: read as shown
        end = _RUN_END.search(text, i + 1)
        stop = len(text) if end is None else end.start()
        inner = _normalize(text[i + 1 : stop], overrides=False).text
        return inner[::-1].translate(_MIRROR), stop + (end is not None and end.group() == _PDF)
    if c == "&":
        m = _ENTITY.match(text, i)
        if m is None:
            return None
        decoded = html.unescape(m.group())
        if decoded == m.group():
            return None
        return "".join(_char(d) if not d.isascii() else d for d in decoded), m.end()
    if _mark(c):
        before = text[i - 1] if i else " "
        return ("", i + 1) if not before.isalpha() or _char(before) == "" else None
    got = _char(c)
    return None if got == c else (got, i + 1)


def normalize(text: str) -> Normalized:
    """``text`` with references decoded, hiding characters removed and look-alikes folded,
    each changed piece remembering its original span (module docstring).

    >>> normalize("$\\u200b987.6M, \\uff04987.6M, \\ufe69987.6M, 12\\uff05, \\u202eM1$").text
    '$987.6M, $987.6M, $987.6M, 12%, $1M'
    >>> normalize("lost \\u202eM6.789$\\u202c, \\u202e(M2.5$)\\u202c").text
    'lost $987.6M, ($5.2M)'
    >>> normalize("\\uff11\\uff12\\uff0c\\uff14\\uff10\\uff10 loans, \\u0669\\u0668 cards").text
    '12,400 loans, 98 cards'
    >>> t = normalize("Jose\\u0301 lost $9\\u03368\\u0336, 4\\u2009820, $4.8M\\u00b9").text
    >>> t == "Jose\\u0301 lost $98, 4\\u2009820, $4.8M\\u00b9"  # accent, space, footnote kept
    True
    """
    return _normalize(text, overrides=True)


def _normalize(text: str, *, overrides: bool) -> Normalized:
    if text.isascii() and "&" not in text:  # nothing to decode or fold: the text as is
        return Normalized(text)
    return _normalize_all(text, overrides=overrides)


def _normalize_all(text: str, *, overrides: bool) -> Normalized:
    """:func:`_normalize` without its fast path (the test of that fast path compares them)."""
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    copied = 0  # original text before this index is in ``out``
    size = 0  # length of the normalised text so far
    for m in _SUSPECT.finditer(text):
        i = m.start()
        if i < copied:
            continue  # inside a reference already decoded
        got = _replacement(text, i, overrides)
        if got is None:
            continue
        piece, stop = got
        out.append(text[copied:i])
        size += i - copied
        out.append(piece)
        pieces.append((size, size + len(piece), i, stop))
        size += len(piece)
        copied = stop
    if not pieces:
        return Normalized(text)
    out.append(text[copied:])
    return Normalized("".join(out), tuple(pieces), tuple(p[0] for p in pieces))


IGNORECASE_FOLD = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))
"""The non-ASCII characters ``re.IGNORECASE`` matches to an ASCII letter (İ, ı, ſ and the
Kelvin sign; tests/hostile/test_fast_paths.py checks this over every code point)."""


def ignorecase_lower(text: str) -> str:
    """``text`` lower-cased as ``re.IGNORECASE`` compares ASCII letters: an ASCII word a
    case-insensitive pattern matches in ``text`` is a substring of the result, at the same
    offset (the folded characters are one character each; lower-casing keeps every other
    character one character long). For a cheap test before a regex scan.

    >>> ignorecase_lower("BeArEr \u212aEY \u0130D")
    'bearer key id'
    """
    if not text.isascii():
        for odd, letter in IGNORECASE_FOLD:
            if odd in text:
                text = text.replace(odd, letter)
    return text.lower()


def is_plain(text: str) -> bool:
    """True when :func:`normalize` would change nothing (the common case: a fast check so
    plain ASCII prose is not copied).

    >>> is_plain("MRR fell $4,820."), is_plain("MRR fell \\uff044,820.")
    (True, False)
    """
    return not normalize(text).changed


def shown(raw: str) -> str:
    """A span as written, with its invisible characters named (for a finding's message).

    >>> shown("$\\u200b987.6M"), shown("\\uff04987.6M")
    ('$<U+200B>987.6M', '＄987.6M')
    """
    return "".join(
        f"<U+{ord(c):04X}>" if unicodedata.category(c) in ("Cf", "Mn", "Me", "Cc") else c
        for c in raw
    )


def moved(item: _Item, norm: Normalized) -> _Item:
    """``item`` (a dataclass or named tuple with ``start``/``end`` in ``norm.text``) with its
    span moved to the text as written: how a reader of the normalised text reports a span.

    >>> from pe_eval_core.numbers import extract_numbers
    >>> n = normalize("lost \\uff04241 today")
    >>> m = moved(extract_numbers(n.text)[0], n)
    >>> m.raw, m.start, m.end
    ('$241', 5, 9)
    """
    if not norm.changed:
        return item
    got: Any = item
    start, end = norm.span(got.start, got.end)
    if dataclasses.is_dataclass(got) and not isinstance(got, type):
        out: Any = dataclasses.replace(got, start=start, end=end)
    else:
        out = got._replace(start=start, end=end)
    return out
