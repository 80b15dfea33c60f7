"""Source names: every name an OpportunityMap knows (archetypes, decision columns, segment
keys and values, evidence row ids, portco id, vertical), and how a name in prose is grounded.

A name is compared case- and whitespace-insensitively (``normalize``) and scoped to its
opportunity: its own opportunity's names or the portfolio's ground it; only another
opportunity's make it mis-attributed; none, ungrounded.
"""

from __future__ import annotations

import heapq
from functools import lru_cache
from typing import Literal, NamedTuple

from pe_eval_core.memo.models import OpportunityMap

DECISION_COLUMN = "decision column"
EVIDENCE_ROW = "evidence row id"
SEGMENT_VALUE = "segment value"
SEGMENT_KEY = "segment key"
ARCHETYPE = "archetype"
PORTCO = "portco id"
VERTICAL = "vertical"

NAME_STRIP = " \t\r\n.,;:!?\"'`“”‘’"


@lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """Case- and whitespace-insensitive key for entity comparison.

    >>> normalize("  360   Months: "), normalize("118204")
    ('360 months', '118204')
    """
    if text.isdigit():  # row ids and numeric codes: the common case, nothing to fold
        return text
    return " ".join(text.split()).strip(NAME_STRIP).casefold()


def _value_text(value: object) -> str | None:
    """How a source value is written in prose (integral floats without the ``.0``)."""
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class SourceEntity(NamedTuple):
    """A name the source knows, with where it comes from."""

    text: str
    category: str
    path: str
    opp: int | None
    """Index of the owning opportunity; None for portfolio-level names."""


EntityStatus = Literal["grounded", "misattributed", "ungrounded"]


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
        self._others: dict[str | None, dict[str, list[SourceEntity]]] | None = None

    def opportunity_entities(self, i: int) -> list[SourceEntity]:
        """The names opportunity ``i`` owns: segment values and keys, archetype, decision
        columns, evidence row ids."""
        opp = self._source.opportunities[i]
        p = f"opportunities[{i}]"
        out: list[SourceEntity] = []
        append = out.append
        for key, value in opp.segment.items():
            text = value if type(value) is str else _value_text(value)
            if text is not None:
                append(SourceEntity(text, SEGMENT_VALUE, f"{p}.segment.{key}", i))
        if opp.archetype:
            append(SourceEntity(opp.archetype, ARCHETYPE, f"{p}.archetype", i))
        for j, col in enumerate(opp.decision_cols):
            append(SourceEntity(col, DECISION_COLUMN, f"{p}.decision_cols[{j}]", i))
        for key in opp.segment:
            append(SourceEntity(str(key), SEGMENT_KEY, f"{p}.segment", i))
        for j, row in enumerate(opp.evidence_row_ids):
            text = _value_text(row)
            if text is not None:
                append(SourceEntity(text, EVIDENCE_ROW, f"{p}.evidence_row_ids[{j}]", i))
        return out

    def local(self, i: int) -> dict[str, list[SourceEntity]]:
        """Opportunity ``i``'s names by normalized text, each list in
        ``opportunity_entities`` order (cached until ``release``)."""
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
        normalizes to ``key`` and is of ``category`` (any when None): one dictionary access
        into the opportunity's table, built once while its prose is graded.

        >>> src = OpportunityMap.model_validate({"portco_id": "X", "opportunities": [
        ...     {"id": "a", "segment": {"grade": "A"}, "evidence_row_ids": list(range(100))},
        ...     {"id": "b", "segment": {"grade": "B"}, "evidence_row_ids": [7]}]})
        >>> u = EntityUniverse(src)
        >>> u.lookup("42", 0)[1].path, u.lookup(" a ", 0)[1].path, u.lookup("B", 0)[0]
        ('opportunities[0].evidence_row_ids[42]', 'opportunities[0].segment.grade', 'misattributed')
        >>> u.lookup("7", 1)[1].path, u.lookup("grade", 1, SEGMENT_KEY)[1].path
        ('opportunities[1].evidence_row_ids[0]', 'opportunities[1].segment')
        """
        for e in self.local(i).get(key, ()):
            if category is None or e.category == category:
                return e
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
