"""A 10-K / S-1 HTML filing as items and paragraphs, addressed the way the red-flag producer
addresses them (``item`` + ``paragraph_index``), so a flag's citation can be checked.

The producer's stated sectioning, which a flag's address refers to:

* the HTML becomes text with a paragraph break at every ``p div br tr li h1-h6`` (script
  and style dropped); runs of spaces collapse, blank-line runs become one blank line, each
  line is stripped;
* an item starts at a line ``Item <n>[A-C]`` (``.``, ``:``, ``)``, ``-``, ``—`` or space
  after the number) for the standard 10-K items; when an item header occurs more than once
  (a table of contents), the longest section wins; a section under 200 characters is dropped;
* a section's paragraphs are its blank-line-separated blocks longer than 40 characters,
  the header line included when it is that long (``Item 7. Management's Discussion ...`` is
  paragraph 0 of Item 7; ``Item 1A. Risk Factors`` is not a paragraph).

>>> f = parse_filing("<p>Item 7. Management's Discussion and Analysis of Results</p>"
...     "<p>" + "Revenue rose 9% to $612.3 million in fiscal 2025 on higher volume. " * 3 + "</p>")
>>> list(f.paragraphs), len(f.paragraphs["7"])
(['7'], 2)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser

ITEMS = [
    "1",
    "1A",
    "1B",
    "1C",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "7A",
    "8",
    "9",
    "9A",
    "9B",
    "9C",
    "10",
    "11",
    "12",
    "13",
    "14",
    "15",
]
"""The 10-K items a flag can cite."""

MIN_SECTION_CHARS = 200
MIN_PARAGRAPH_CHARS = 40

_BREAK_TAGS = frozenset({"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6"})


class _Text(HTMLParser):
    """HTML to text with a line break at every block tag (character references decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.hidden += 1
        elif tag in _BREAK_TAGS:
            self.chunks.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BREAK_TAGS:
            self.chunks.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.chunks.append(data)


_SPACES = re.compile(r"[ \t\xa0\u200b]+")
_BLANKS = re.compile(r"\n[ \t]*\n+")
_HEADER = re.compile(r"(?im)^\s*item\s+(?P<num>\d{1,2}[A-C]?)[\.\):\-—\s]+(?P<title>[^\n]{0,120})$")


def filing_text(html_text: str) -> str:
    """The filing's plain text, normalised as the producer normalises it."""
    parser = _Text()
    parser.feed(html_text)
    parser.close()
    text = _SPACES.sub(" ", "".join(parser.chunks))
    text = _BLANKS.sub("\n\n", text)
    return "\n".join(line.strip() for line in text.splitlines()).strip()


@dataclass(frozen=True)
class Filing:
    """A parsed filing: its text, and each item's paragraphs in order."""

    text: str
    paragraphs: dict[str, list[str]] = field(default_factory=dict)

    def paragraph(self, item: str, index: int) -> str | None:
        paras = self.paragraphs.get(item)
        if paras is None or not 0 <= index < len(paras):
            return None
        return paras[index]

    def addresses(self) -> list[tuple[str, int, str]]:
        """Every (item, paragraph index, paragraph), items in filing order."""
        return [(i, k, p) for i, paras in self.paragraphs.items() for k, p in enumerate(paras)]


def parse_filing(html_text: str) -> Filing:
    """The filing's items and paragraphs (see the module docstring for the rule)."""
    text = filing_text(html_text)
    headers = [
        (m.start(), m["num"].upper()) for m in _HEADER.finditer(text) if m["num"].upper() in ITEMS
    ]
    spans: dict[str, list[tuple[int, int]]] = {}
    for i, (start, num) in enumerate(headers):
        end = headers[i + 1][0] if i + 1 < len(headers) else len(text)
        spans.setdefault(num, []).append((start, end))
    order = sorted(spans, key=lambda n: max(spans[n], key=lambda r: r[1] - r[0])[0])
    paragraphs: dict[str, list[str]] = {}
    for num in order:
        s, e = max(spans[num], key=lambda r: r[1] - r[0])
        body = text[s:e].strip()
        if len(body) < MIN_SECTION_CHARS:
            continue
        paragraphs[num] = [
            p.strip() for p in body.split("\n\n") if len(p.strip()) > MIN_PARAGRAPH_CHARS
        ]
    return Filing(text=text, paragraphs=paragraphs)


def squash(text: str) -> str:
    """Text compared verbatim up to whitespace and Unicode compatibility forms.

    >>> squash("a\\u00a0 b\\n c ")
    'a b c'
    """
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()
