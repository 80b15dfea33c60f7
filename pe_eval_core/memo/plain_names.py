"""Names in plain prose (not bold), read with the source's own vocabulary: segment values,
US states where a state column holds states, bands, decision-column lists; and whether a name
points at other cohorts. ``prose_names`` reads the bold labels and lists the producers mark.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pe_eval_core.memo.models import OpportunityMap
from pe_eval_core.memo.prose_names import EntityMention, _mention_start
from pe_eval_core.memo.source_names import DECISION_COLUMN, SEGMENT_VALUE, normalize

_GROUP_AFTER = re.compile(
    r"(?i)(?:[ \t]+(?:and|or|&|[\w-]+,?)){0,3}?[ \t]+(?:cohorts|segments|opportunities|pockets)\b"
)
_COMPARED_BEFORE = re.compile(
    r"(?i)\b(?:unlike|than|versus|vs\.?|compared[ \t]+(?:with|to)|alongside|in[ \t]+parallel"
    r"[ \t]+with|ahead[ \t]+of|behind|as[ \t]+with|like)[ \t]+(?:the[ \t]+)?$"
)


def refers_to_others(text: str, start: int, end: int) -> bool:
    """Whether a name in plain prose points at other cohorts rather than describing this one:
    a group (``the Affiliate_B cohorts``) or a comparison (``unlike Texas``, ``in parallel
    with the Facebook cohort``). Another opportunity's value is then no mis-attribution.

    >>> t = "run it in parallel with the Affiliate_B cohorts; Texas leads; unlike Ohio, it grows"
    >>> [refers_to_others(t, t.index(w), t.index(w) + len(w)) for w in ("Affiliate_B",
    ...     "Texas", "Ohio")]
    [True, False, True]
    """
    return (
        _GROUP_AFTER.match(text, end) is not None
        or _COMPARED_BEFORE.search(text, max(0, start - 30), start) is not None
    )


_XLIST = re.compile(
    r"(?<![\w-])[A-Za-z_]\w*(?:(?:[ \t]*×[ \t]*|[ \t]+[xX][ \t]+)[A-Za-z_]\w*)+(?![\w-])"
)
"""One-word names joined by ``×`` or a standalone ``x``: a candidate decision-column list."""
_XPART = re.compile(r"(?<![\w-])(?![xX](?![\w-]))[A-Za-z_]\w*(?![\w-])")
_SPACE_OR_TAB = " \t"


def _joiners(text: str) -> list[int]:
    """Where each joiner an ``_XLIST`` match can hold starts, sorted: a ``×``, or the space
    or tab before a standalone ``x`` or ``X`` (between a space or tab on each side)."""
    at = []
    for c in "×xX":
        i = text.find(c)
        while i >= 0:
            if c == "×":
                at.append(i)
            elif 0 < i < len(text) - 1 and text[i - 1] in _SPACE_OR_TAB and text[i + 1] in " \t":
                at.append(i - 1)
            i = text.find(c, i + 1)
    return sorted(at)


def _xlists(text: str) -> list[re.Match[str]]:
    """``list(_XLIST.finditer(text))``, the pattern tried only at the word before each joiner
    (every match is a word, then a joiner ...: it starts where the run of word characters
    before its first joiner and the spaces after that run starts), not at every position."""
    out: list[re.Match[str]] = []
    end = 0
    for i in _joiners(text):
        k = i
        while k > 0 and text[k - 1] in _SPACE_OR_TAB:
            k -= 1
        w = k
        while w > 0 and (text[w - 1].isalnum() or text[w - 1] == "_"):
            w -= 1
        if w == k or w < end:
            continue  # no word before it, or inside the last match
        m = _XLIST.match(text, w)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


_COLUMNS_LABEL = re.compile(
    r"(?i)(?:\bcolumns?|\bdimensions?|\bcut(?:[ \t]+by)?|\bsplit[ \t]+by|\bkeyed[ \t]+by|\bby)"
    r"[ \t]*\**[ \t]*[:|]?[ \t]*\**[ \t]*$"
)

US_STATES: dict[str, str] = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia",
    "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois",
    "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan",
    "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
    "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey",
    "NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota",
    "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island",
    "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah",
    "VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
    "WI": "Wisconsin", "WY": "Wyoming", "PR": "Puerto Rico",
}  # fmt: skip
"""Two-letter US state codes and their names (a plain-text token of this shape is read as a
state only where the source has a ``state`` column)."""
_NOT_PLAIN_STATES = frozenset({"ID", "PR"})
"""Codes that plain prose mostly uses for something else (a row ID, PR): read as states only
when they are one of the source's segment values."""
ORDINARY_WORDS = frozenset(
    (
        *("direct", "other", "others", "new", "used", "standard", "prime", "growth", "commercial"),
        *("retail", "online", "branch", "partner", "partners", "agent", "agents", "core"),
        *("general", "basic", "premium", "high", "low", "medium", "small", "large", "mid"),
        *("early", "late", "short", "long", "open", "closed", "active", "fixed", "variable"),
        *("secured", "unsecured", "personal", "business", "home", "auto", "card", "cash"),
        *("credit", "debit", "mobile", "web", "store", "mail", "phone", "email", "referral"),
        *("organic", "paid", "social", "search", "enterprise", "starter", "pro", "plus"),
        *("free", "trial", "annual", "monthly", "weekly", "current", "prior", "single", "joint"),
        *("owner", "rent", "own", "none", "unknown", "approved", "declined", "denied", "pricing"),
        *("allocation", "routing", "timing", "selection", "car", "house", "medical", "moving"),
        *("vacation", "wedding", "major", "minor", "national", "regional", "local", "indirect"),
    )
)
"""Segment values that are ordinary English words (and the archetype names): in plain prose
they are read as names only when written as the source writes them, capital included
("Partner" names the channel, "a partner" does not); a lower-case one never."""

_LETTER = re.compile(r"[A-Za-z]")
_RANGE = re.compile(r"\d+-\d+")


def _is_state(value: str) -> bool:
    return value.upper() in US_STATES or value.title() in US_STATES.values()


def _band_shape(value: str) -> str | None:
    """The regex of values shaped like ``value`` when it is a band: a range of two 3+-digit
    numbers (``660-699``: any ``ddd-ddd``), or a range led by a word (``LTV 80-90%``:
    ``LTV d-d%`` with 1-3 digits a side); None for anything else."""
    m = _RANGE.search(value)
    if m is None or m.group() != value[m.start() : m.end()]:
        return None
    lo, hi = m.group().split("-")
    prefix, suffix = value[: m.start()], value[m.end() :]
    if not prefix and not suffix and len(lo) >= 3 and len(hi) >= 3:
        return rf"\d{{{len(lo)}}}-\d{{{len(hi)}}}"
    if prefix.strip() and _LETTER.fullmatch(prefix.strip()[:1]) and " " in prefix:
        return re.escape(prefix) + r"\d{1,3}-\d{1,3}" + re.escape(suffix)
    return None


class PlainNames:
    """The names a block's plain (not bold) prose uses, read with the source's vocabulary.

    * every segment value of the source that has a letter: as a whole word (not inside a
      hyphenated word), case-insensitively when it has four characters or more, as written
      when shorter (``GA``, ``App``) or an ordinary word (``ORDINARY_WORDS``: ``Partner``
      names the channel, ``a partner`` does not; a lower-case one is never read);
    * where some opportunity has a ``state`` column: any two-letter US state code written in
      capitals (but ``ID`` and ``PR``, which prose uses for other things), and any state's
      name (looked up as its code);
    * where a segment value is a band (``660-699``, ``LTV 80-90%``): any token of the same
      shape (``620-659``, ``LTV 97-105%``).

    The grader reports such a name only when it is not the opportunity's own (another
    opportunity's value, or in no opportunity): plain prose is checked, not counted.

    >>> src = OpportunityMap.model_validate({"portco_id": "X", "opportunities": [
    ...     {"id": "a", "segment": {"credit_band": "660-699", "state": "NV"}},
    ...     {"id": "b", "segment": {"channel": "Online", "ltv": "LTV 80-90%"}}]})
    >>> pn = PlainNames(src)
    >>> [(m.text, m.key) for m in pn.mentions("in NV and OH, Texas, the 620-659 band, online, "
    ...     "Online, LTV 97-105% loans, weeks 2-4, an IC memo, in-online")]
    [('NV', None), ('OH', None), ('Texas', 'TX'), ('620-659', None), ('Online', None),
     ('LTV 97-105%', None)]
    """

    def __init__(self, source: OpportunityMap):
        values: set[str] = set()
        shapes: set[str] = set()
        states = False
        for opp in source.opportunities:
            for key, value in opp.segment.items():
                text = str(value).strip()
                # a state column of state codes or names (not of MSA codes: HMDA's addr_state)
                states = states or ("state" in str(key).lower() and _is_state(text))
                if _LETTER.search(text) and len(text) >= 2:
                    values.add(text)
                if (shape := _band_shape(text)) is not None:
                    shapes.add(shape)
        alternatives = []
        # A one-word value of letters only ("Partner", "Direct", "other") reads as an ordinary
        # word unless written as the source writes it: matched exactly, like short values.
        word = [v for v in values if v.isalpha() and v.lower() in ORDINARY_WORDS]
        long = sorted((v for v in values if len(v) >= 4 and v not in word), key=len, reverse=True)
        short = sorted((v for v in values if len(v) < 4 or v in word), key=len, reverse=True)
        if long:
            alternatives.append("(?i:" + "|".join(re.escape(v) for v in long) + ")")
        if short:
            alternatives.extend(re.escape(v) for v in short)
        alternatives.extend(sorted(shapes))
        self._states = states
        if states:  # two generic classes, checked against the lists in Python (speed)
            alternatives.append("(?P<code>[A-Z]{2})")
            alternatives.append("(?P<state_name>[A-Z][a-z]+)")
        lowers = [v for v in short if v.islower() and v in word]  # "other", "car": words
        short = [v for v in short if v not in lowers]
        firsts = {v[0] for v in short} | {c for v in long for c in (v[0].lower(), v[0].upper())}
        if shapes:
            firsts |= set("0123456789") | {sh[0] for sh in shapes if sh[0] != "\\"}
            firsts |= {sh[1] for sh in shapes if sh[0] == "\\" and sh[1] != "d"}
        if states:
            firsts |= {c for code in US_STATES for c in code[0]}
        first = "[" + "".join(re.escape(c) for c in sorted(firsts)) + "]"
        self._rx = (  # one set test per position rejects most of them (speed)
            re.compile(
                rf"(?={first})(?<![\w$.,-])(?:" + "|".join(alternatives) + r")(?![\w%-]|\.\d)"
            )
            if alternatives
            else None
        )
        self._columns = frozenset(
            normalize(c) for o in source.opportunities for c in o.decision_cols
        )
        self._values = frozenset(
            normalize(str(v)) for o in source.opportunities for v in o.segment.values()
        )
        self._codes = {name: code for code, name in US_STATES.items()}
        self._by_first: dict[str, list[str]] = {}
        for name in sorted(US_STATES.values(), key=len, reverse=True):
            self._by_first.setdefault(name.split(" ")[0], []).append(name)

    def mentions(self, text: str, taken: Sequence[tuple[int, int]] = ()) -> list[EntityMention]:
        """The plain-text names of ``text``, minus any overlapping a span in ``taken`` (bold
        names and figures, graded already): segment values and decision-column lists."""
        out = self._values_in(text, taken)
        if self._columns and ("×" in text or " x " in text or " X " in text):
            out.extend(self.column_lists(text, taken))
            out.sort(key=_mention_start)
        return out

    def column_lists(self, text: str, taken: Sequence[tuple[int, int]] = ()) -> list[EntityMention]:
        """Decision-column lists anywhere in plain prose, told by the source's vocabulary: a
        list of two or more one-word names joined by ``×`` (or a standalone ``x``) is a
        decision-column list when one of them is a decision column of the source (or a
        ``columns:`` / ``dimensions:`` / ``by`` label or table cell introduces it) and none
        is a segment value (``Texas x Broker`` is a cohort, ``state x channel`` its columns).

        >>> src = OpportunityMap.model_validate({"portco_id": "X", "opportunities": [{"id": "a",
        ...     "decision_cols": ["state", "channel"], "segment": {"state": "Texas",
        ...     "channel": "Broker"}}]})
        >>> t = ("Texas x Broker (state x loan_officer); Decision columns: fico × vintage; "
        ...      "a 2 x 2 grid; B × 360 months")
        >>> [m.text for m in PlainNames(src).column_lists(t)]
        ['state', 'loan_officer', 'fico', 'vintage']
        """
        out: list[EntityMention] = []
        for m in _xlists(text):
            s, e = m.span()
            if any(a < e and s < b for a, b in taken):
                continue
            parts = [(p.start(), p.end()) for p in _XPART.finditer(text, s, e)]
            names = [normalize(text[a:b]) for a, b in parts]
            if any(n in self._values for n in names):
                continue  # a cohort, not its columns
            line = text.rfind("\n", 0, s) + 1
            labelled = _COLUMNS_LABEL.search(text, max(line, s - 40), s) is not None
            if labelled or any(n in self._columns for n in names):
                out.extend(EntityMention(text[a:b], a, b, DECISION_COLUMN) for a, b in parts)
        return out

    def _values_in(self, text: str, taken: Sequence[tuple[int, int]]) -> list[EntityMention]:
        """Segment values, state codes and names, and bands in plain prose."""
        if self._rx is None:
            return []
        out: list[EntityMention] = []
        for m in self._rx.finditer(text):
            s, e = m.span()
            key = None
            if self._states:
                if m["code"] is not None:
                    if m["code"] not in US_STATES or m["code"] in _NOT_PLAIN_STATES:
                        continue
                elif m["state_name"] is not None:
                    name = self._state_name(text, s)
                    if name is None:
                        continue
                    e, key = s + len(name), self._codes[name]
            if any(a < e and s < b for a, b in taken):
                continue
            out.append(EntityMention(text[s:e], s, e, SEGMENT_VALUE, key))
        return out

    def _state_name(self, text: str, start: int) -> str | None:
        """The US state name written at ``start`` ("New York", "Texas"), if any."""
        word_end = start
        while word_end < len(text) and text[word_end].isalpha():
            word_end += 1
        for name in self._by_first.get(text[start:word_end], ()):
            end = start + len(name)
            if text.startswith(name, start) and not text[end : end + 1].isalnum():
                return name
        return None


_KEPT: dict[str, PlainNames] = {}
KEPT_MAX = 32


def plain_names_of(source: OpportunityMap, source_sha256: str) -> PlainNames:
    """``PlainNames(source)``, built once per source content (the sha256 of the bytes it was
    read from; at most :data:`KEPT_MAX` kept): it never changes once built, and the board and
    operator memos of a portco read the same source."""
    got = _KEPT.get(source_sha256)
    if got is None:
        if len(_KEPT) >= KEPT_MAX:
            _KEPT.clear()
        got = _KEPT[source_sha256] = PlainNames(source)
    return got
