"""Markdown tables in memo prose: each data cell is read with its label as its wording.

A drafter who lays figures out in a table (``| Loans | 1,377 |``, ``| Current outcome |
-$41.7K / yr |``) states what each figure is in the table's header or in the row's first
cell, not next to the number. The grader reads a cell as ``<label>: <cell>``, so the figure
readers and the role cues see the same wording as in prose (``Loans: 1,377`` is a count,
``Current outcome: -$41.7K`` claims today's outcome).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

from pe_eval_core.numbers import Figure

_ROW = re.compile(r"^[ \t]*\|(?P<body>.*)\|[ \t]*$")
_SEPARATOR_CELL = re.compile(r"[ \t]*:?-{2,}:?[ \t]*")
_GENERIC_HEADERS = frozenset({"", "value", "values", "figure", "amount", "number", "#", "data"})
"""Column headers that say nothing of what a cell holds: the row's first cell labels it."""
_MARKUP = re.compile(r"[*_`]+")


class Cell(NamedTuple):
    """A table data cell: its span in the block and the label it is read with."""

    start: int
    end: int
    label: str


def _cells(line: str, offset: int) -> list[tuple[int, int, str]]:
    """The cells of a table row (span in the block, stripped text)."""
    m = _ROW.match(line)
    if m is None:
        return []
    out = []
    pos = m.start("body")
    for part in m["body"].split("|"):
        lead = len(part) - len(part.lstrip())
        text = part.strip()
        start = offset + pos + lead
        out.append((start, start + len(text), text))
        pos += len(part) + 1
    return out


def table_cells(text: str) -> list[Cell]:
    """Every data cell of the markdown tables in ``text`` with its label: the column header,
    or the row's first cell where the header is generic (``Value``) or empty.

    >>> t = "### 1\\n\\n| Metric | Value |\\n|---|---|\\n| Loans | 1,377 |\\n| Difficulty | 3/5 |"
    >>> [(t[c.start:c.end], c.label) for c in table_cells(t)]
    [('Loans', 'Metric'), ('1,377', 'Loans'), ('Difficulty', 'Metric'), ('3/5', 'Difficulty')]
    >>> t = "| Cohort | Loans | Mean/loan |\\n|:--|--:|\\n| **C × 36 months** | 2,360 | ($217) |"
    >>> [(t[c.start:c.end], c.label) for c in table_cells(t)]
    [('**C × 36 months**', 'Cohort'), ('2,360', 'Loans'), ('($217)', 'Mean/loan')]
    >>> table_cells("**Pricing** | **B × 36 months** | grade × term")  # no table: no header rule
    []
    """
    if "|" not in text or "--" not in text:
        return []
    lines: list[tuple[int, str]] = []
    pos = 0
    for line in text.split("\n"):
        lines.append((pos, line))
        pos += len(line) + 1
    out: list[Cell] = []
    i = 0
    while i + 1 < len(lines):
        header = _cells(lines[i][1], lines[i][0])
        rule = _cells(lines[i + 1][1], lines[i + 1][0])
        if not header or not rule or not all(_SEPARATOR_CELL.fullmatch(c[2]) for c in rule):
            i += 1
            continue
        names = [_MARKUP.sub("", c[2]).strip() for c in header]
        i += 2
        while i < len(lines) and (row := _cells(lines[i][1], lines[i][0])):
            first = _MARKUP.sub("", row[0][2]).strip()
            for j, (start, end, cell) in enumerate(row):
                name = names[j] if j < len(names) else ""
                label = first if j and name.casefold() in _GENERIC_HEADERS else name
                if cell and label:
                    out.append(Cell(start, end, label))
            i += 1
    return out


def read_cells(
    text: str, figures: list[Figure], cells: list[Cell], read: Callable[[str], list[Figure]]
) -> list[Figure]:
    """``figures`` with those inside table data cells replaced by the figures ``read`` finds
    in ``<label>: <cell>``, moved back to the cell's span (sorted by start)."""
    spans = [(c.start, c.end) for c in cells]
    kept = [f for f in figures if not any(s < f.end and f.start < e for s, e in spans)]
    for cell in cells:
        prefix = f"{cell.label}: "
        shift = cell.start - len(prefix)
        for f in read(prefix + text[cell.start : cell.end]):
            if f.start >= len(prefix):
                kept.append(replace(f, start=f.start + shift, end=f.end + shift))
    kept.sort(key=lambda f: f.start)
    return kept
