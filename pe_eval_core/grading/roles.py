"""Roles: what quantity a figure claims, what quantity a source field holds, and which may
ground which. Document-independent: a grader for a new document kind declares one
``RoleTable`` for its source's fields (and, if its prose has wording of its own, extra
``Cue``s) and calls ``claim_of`` / ``accepts`` / ``pick``.

A figure's role comes from its wording ("$0 of annual loss" claims a loss, "recovering $6.2M"
an impact, "an EBITDA baseline of $14.5M" a baseline); a figure whose wording claims nothing
has role ``ANY``. A field's role comes from its key, by the first rule of its table that
matches. Only a field of a role the figure's role accepts grounds it; a value that matches
only a field of another role is a *wrong quantity*. Fields whose role never grounds (``PROSE``
written by the producer, ``IDENTIFIER``) are not data.

>>> table = RoleTable("demo", (FieldRule(r"narrative_\\w+", Role.PROSE),
...     FieldRule(r"current_outcome_usd_annual", Role.LOSS),
...     FieldRule(r"projected_outcome_usd_annual", Role.PROJECTED)))
>>> table.role_of("current_outcome_usd_annual"), table.role_of("narrative_board")
(<Role.LOSS: 'loss'>, <Role.PROSE: 'prose'>)
>>> table.role_of("cure_rate")  # no rule: unknown, accepted by every claim
<Role.ANY: 'any'>
>>> text = "continues producing $0 of annual loss, recovering $88K per year"
>>> claim_of(text, 20, 22), claim_of(text, 51, 55)
(<Role.LOSS: 'loss'>, <Role.IMPACT: 'impact'>)
>>> accepts(Role.LOSS, Role.PROJECTED), accepts(Role.IMPACT, Role.TOTAL)
(False, False)
>>> accepts(Role.TOTAL, Role.IMPACT)
True
>>> accepts(Role.ANY, Role.PROSE)
False
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

__all__ = [
    "DEFAULT_CUES",
    "Cue",
    "FieldRule",
    "Role",
    "RoleTable",
    "accepts",
    "claim_in",
    "claim_of",
    "pick",
]


class Role(StrEnum):
    """The quantity a figure claims or a source field holds."""

    ANY = "any"
    """No claim (a figure whose wording names no quantity) or no declared role (a field no
    rule covers): accepted by, and accepting, every data role."""
    LOSS = "loss"
    """Today's outcome or loss (``outcome_total_usd_annual``, ``current_outcome_usd_annual``)."""
    PROJECTED = "projected_outcome"
    """The outcome after the action (``projected_outcome_usd_annual``)."""
    IMPACT = "impact"
    """The improvement the action brings (``projected_impact_usd_annual``)."""
    TOTAL = "total"
    """A portfolio total of impacts (``total_projected_impact_usd_annual``)."""
    BASELINE = "baseline"
    """A baseline the others are measured against (``ebitda_baseline_usd``)."""
    PER_UNIT = "per_unit"
    """A mean per row (``outcome_mean_usd``)."""
    COST = "cost"
    """A cost or spend (``implementation_cost_usd_annual``)."""
    COUNT = "count"
    SCORE = "score"
    QUARTERS = "quarters"
    QUARTERS_OBSERVED = "quarters_observed"
    """Quarters in which a pattern was seen (the k of k/m): a document states k and m in two
    fields (an exit proof pack's ``persistence_quarters`` / ``persistence_total_quarters``),
    so swapping them must not ground. Added for the document graders; ``QUARTERS`` accepts
    both."""
    QUARTERS_TOTAL = "quarters_total"
    """Quarters in the observation window (the m of k/m); see ``QUARTERS_OBSERVED``."""
    EVIDENCE_COUNT = "evidence_count"
    """How many evidence row ids a source lists ("5 sample row IDs"): a count of another thing
    than the cohort's rows (``n``), derived by the document graders from ``evidence_row_ids``."""
    DIFFICULTY = "difficulty"
    RATE = "rate"
    DURATION = "duration"
    """A time span (``time_to_implement_weeks``): durations are not figures."""
    PARAMETER = "parameter"
    """A recommendation's stated parameters (figures quoted in ``recommendation``)."""
    LABEL = "label"
    """A segment value (``LTV 80-90%``): figures quoted in it ground figures of their kind."""
    IDENTIFIER = "identifier"
    """Ids, evidence rows, column names: never a quantity."""
    PROSE = "prose"
    """Prose the producer wrote (``narrative_*``): not data, grounds nothing."""


NEVER_GROUNDS = frozenset({Role.PROSE, Role.IDENTIFIER})

_DATA = frozenset(Role) - NEVER_GROUNDS
ACCEPTS: Mapping[Role, frozenset[Role]] = {
    Role.ANY: _DATA,
    Role.LOSS: frozenset({Role.LOSS, Role.ANY}),
    Role.PROJECTED: frozenset({Role.PROJECTED, Role.ANY}),
    Role.IMPACT: frozenset({Role.IMPACT, Role.ANY}),
    Role.TOTAL: frozenset({Role.TOTAL, Role.IMPACT, Role.ANY}),
    Role.BASELINE: frozenset({Role.BASELINE, Role.ANY}),
    Role.PER_UNIT: frozenset({Role.PER_UNIT, Role.ANY}),
    Role.COST: frozenset({Role.COST, Role.ANY}),
    Role.QUARTERS: frozenset(
        {Role.QUARTERS, Role.QUARTERS_OBSERVED, Role.QUARTERS_TOTAL, Role.ANY}
    ),
}
"""Which field roles ground a figure of each claimed role (a claim not listed accepts its own
role and unknown fields). One cohort's impact is not the portfolio total ("the fix recovers
$1.4B" where only the total is 1.4B states the wrong quantity); a figure worded as the total
may be an impact (a one-opportunity map). A grader upgrades an impact claim to ``TOTAL`` where
the wording speaks of the whole programme, or the map has one opportunity."""


def accepts(claim: Role, field_role: Role) -> bool:
    """Whether a field of ``field_role`` may ground a figure claiming ``claim``."""
    if field_role in NEVER_GROUNDS:
        return False
    allowed = ACCEPTS.get(claim)
    if allowed is None:
        return field_role in (claim, Role.ANY)
    return field_role in allowed


@dataclass(frozen=True)
class FieldRule:
    """Fields whose key fully matches ``key`` (a regex, case-insensitive) hold ``role``."""

    key: str
    role: Role
    note: str = ""
    """What the rule is for (printed in ``docs/memo_rules.md``)."""


@dataclass(frozen=True)
class RoleTable:
    """The roles of one source kind's fields: the first rule whose ``key`` matches wins.

    A key is a field's name, without its path and list index (``persistence_quarters_out_of
    _total`` for ``opportunities[0].persistence_quarters_out_of_total[1]``). Extend a table
    with ``extend`` (new rules are tried first)."""

    name: str
    rules: tuple[FieldRule, ...]
    default: Role = Role.ANY
    _compiled: tuple[tuple[re.Pattern[str], Role], ...] = field(
        init=False, repr=False, compare=False, default=()
    )
    _cache: dict[str, Role] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        compiled = tuple((re.compile(r.key, re.IGNORECASE), r.role) for r in self.rules)
        object.__setattr__(self, "_compiled", compiled)

    def role_of(self, key: str) -> Role:
        """The role of the field named ``key``."""
        role = self._cache.get(key)
        if role is None:
            role = next((r for rx, r in self._compiled if rx.fullmatch(key)), self.default)
            if len(self._cache) < 4096:
                self._cache[key] = role
        return role

    def role_of_path(self, path: str) -> Role:
        """The role of the field at a JSON path: its own key's, else the nearest enclosing
        key's that a rule names (``segment.state`` is a label by ``segment``).

        >>> t = RoleTable("t", (FieldRule("segment", Role.LABEL), FieldRule("n", Role.COUNT)))
        >>> t.role_of_path("opportunities[2].segment.state"), t.role_of_path("opportunities[0].n")
        (<Role.LABEL: 'label'>, <Role.COUNT: 'count'>)
        """
        keys = [k.split("[", 1)[0] for k in path.split(".")]
        for key in reversed(keys):
            role = self.role_of(key)
            if role is not self.default:
                return role
        return self.default

    def grounds(self, key: str) -> bool:
        """Whether a field named ``key`` is data (not producer prose or an identifier)."""
        return self.role_of(key) not in NEVER_GROUNDS

    def extend(self, *rules: FieldRule) -> RoleTable:
        """A table with ``rules`` tried before this one's."""
        return RoleTable(self.name, (*rules, *self.rules), self.default)


# ---------------------------------------------------------------------------------------------
# What a figure claims, from its wording
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cue:
    """Wording that makes a figure claim ``role``: ``after`` matches the words right after
    the figure, ``before`` the words right before it (up to the figure), both regexes,
    case-insensitive, read with markdown emphasis removed and within the clause."""

    role: Role
    after: str = ""
    before: str = ""


_HEDGE = (
    r"(?:(?:about|roughly|nearly|around|approximately|some|almost|over|under|~|an?|the|full)\s+)*"
)
_YEAR = r"(?:(?:a|per|each)\s+year\s+|annually\s+|/\s*yr\s+)?"
_LOSS_WORDS = r"(?:loss(?:es)?|leakage|write-?offs?|shortfall|deficit|drag|bleed)"

DEFAULT_CUES: tuple[Cue, ...] = (
    Cue(
        Role.PER_UNIT,
        after=r"(?:a|per|each|for\s+each|for\s+every|/)\s*(?:loan|account|borrower|customer|polic"
        r"y|deal|unit|application|lead|member|claim|row|case|mortgage|household|contract)\b",
        before=r"(?:average|mean|median|per-(?:loan|account|unit)|typical|"
        r"^\s*per\s+(?:loan|account|unit|borrower|customer|deal|row))\b[^$\d]{0,40}",
    ),
    Cue(
        Role.PROJECTED,
        after=r"(?:of\s+)?(?:projected|residual|remaining|post-action|expected)\s+(?:annual\s+)?"
        r"(?:outcome|loss(?:es)?|result)\b",
        before=r"(?:projected\s+(?:annual\s+)?(?:outcome|loss(?:es)?|write-?offs?|leakage)"
        r"(?:(?:\s+[\w-]+){0,4}?\s*:)?|"  # a label: "Projected outcome after the fix:"
        r"(?:action|change|reroute|fix)\s+projects|"
        r"residual(?:\s+loss)?|remaining\s+loss|"
        r"(?<!up\s)(?<!close\s)(?<!equal\s)(?<!amounts\s)(?<!comes\s)(?<!add\s)(?<!adds\s)"
        r"(?<=(?-i:[a-z'\u2019])\s)to|leav(?:e|es|ing)(?:\s+\w+){0,3}?\s+(?:at|with)|"
        r"would\s+(?:still\s+)?(?:lose|be))\s+(?:is\s+|of\s+|at\s+)?" + _HEDGE,
    ),
    Cue(
        Role.BASELINE,
        after=r"(?:of\s+)?(?:EBITDA\s+)?(?:baseline|base)\b|EBITDA\s+(?:baseline|base)\b",
        before=r"(?:(?<!\bon\s)(?<!\bto\s)(?<!\bin\s)EBITDA(?:\s+(?:baseline|base))?|"
        r"baseline(?:\s+EBITDA)?)\s*(?:of|is|at|was|:|"
        r"=|stands\s+at|sits\s+at|runs\s+at)?\s*" + _HEDGE,
    ),
    Cue(
        Role.COST,
        after=r"(?:of\s+)?(?:(?:annual|one-off|implementation|build|run)\s+)*(?:cost|spend|"
        r"investment|capex|opex)\b",
        before=r"(?:costs?|spend|investment|budget|capex|opex)\s+(?:of|is|at|:|runs\s+at)\s+"
        + _HEDGE,
    ),
    Cue(
        Role.LOSS,
        after=_YEAR + r"(?:(?:of|in)\s+(?:the\s+|its\s+|their\s+)?)?(?:(?:annual(?:ized)?|yearly|"
        r"current|today's|ongoing|cohort|net|structural|recurring|credit)\s+)*"
        + _LOSS_WORDS
        + r"\b",
        before=r"(?:(?:"
        + _LOSS_WORDS
        + r"|(?:current|today's|annual|total|observed)(?:\s+annuali[sz]ed)?"
        r"\s+outcome|outcome\s+today)"
        r"(?:\s+\w+){0,2}?\s*(?:of|is|was|at|runs?\s+at|stands\s+at|totals?|:)?|"
        r"(?:loses|lose|lost|losing|bleeds?|bleeding|leaks?|leaking|burns?|burning|drains?|"
        r"draining|costs?\s+us|continues\s+producing|producing))\s*" + _HEDGE,
    ),
    Cue(
        Role.IMPACT,
        after=_YEAR + r"(?:of\s+)?(?:(?:annual(?:ized)?|yearly|projected|potential|net|EBITDA|"
        r"recoverable|run-rate)\s+)*(?:impact|uplift|upside|improvement|recovery|savings?|benefit|"
        r"gain|value\s+creation)\b",
        before=r"(?:recover(?:s|ing|ed)?|captur(?:e|es|ing|ed)|sav(?:e|es|ing|ed)|unlock(?:s|ing|ed)?"
        r"|add(?:s|ing)?|(?:impact|uplift|upside|improvement|benefit|gain|savings?|recovery)"
        r"(?:\s*:|\s+(?:of|is|at|worth))?|worth|(?:improv|lift|rais)(?:e|es|s|ing)?\s+"
        r"(?:\w+\s+){0,2}?by)\s+" + _HEDGE,
    ),
    Cue(
        Role.TOTAL,
        after=r"(?:in\s+total|combined|overall|in\s+all|across\s+(?:all|the\s+(?:book|portfolio|"
        r"programme|program)))\b",
        before=r"(?:total|headline|combined|overall|in\s+all|altogether|programme|program|portfolio)"
        r"(?:\s+\w+){0,3}?\s+(?:of|is|at|comes\s+to|reaches|totals?|:)\s*" + _HEDGE,
    ),
)
"""English wording of the quantities in PE value-creation prose (first match in order wins
among ``before`` cues, then ``after`` cues; see ``claim_of``)."""

_CLAUSE_END = re.compile(r"[.;!?\n\u2014()]|\s-\s|,\s(?:and|but|while|with|which)\b")
_MARKUP = str.maketrans("*_`", "   ")
_WINDOW = 80
_LABEL_WORDS = 5
"""A colon ends the clause unless what precedes it is a label of this many words or fewer
("Annual loss: -$6.22M")."""


@dataclass(frozen=True)
class _CueReader:
    after: tuple[tuple[re.Pattern[str], Role], ...]
    before: tuple[tuple[re.Pattern[str], Role], ...]
    claims: dict[tuple[str, str], Role] = field(default_factory=dict, compare=False)
    """The role read from each (clause before, clause after) pair seen, at most
    :data:`_CLAIMS_MAX`: templated producers repeat a handful of clauses in every memo, and
    the end-anchored ``before`` searches are the costly part of reading a figure."""


_READERS: dict[tuple[Cue, ...], _CueReader] = {}
_CLAIMS_MAX = 4096


def _reader(cues: tuple[Cue, ...]) -> _CueReader:
    if cues is DEFAULT_CUES and _DEFAULT_READER:
        return _DEFAULT_READER[0]  # no hash of seven cues per figure
    reader = _READERS.get(cues)
    if reader is None:
        after = tuple(
            (re.compile(r"\s*(?:" + c.after + ")", re.IGNORECASE), c.role) for c in cues if c.after
        )
        before = tuple(
            (re.compile(r"(?:\b|^)(?:" + c.before + r")$", re.IGNORECASE), c.role)
            for c in cues
            if c.before
        )
        reader = _READERS[cues] = _CueReader(after, before)
        if cues is DEFAULT_CUES:
            _DEFAULT_READER.append(reader)
    return reader


_DEFAULT_READER: list[_CueReader] = []


def _unmarked(window: str) -> str:
    """``window.translate(_MARKUP)`` (markdown's ``*``, ``_`` and a backtick as spaces) by a
    replace per character present: ``translate`` reads a mapping per character (1.7 us for
    80 characters of prose with a non-ASCII character; most windows hold none of the three)."""
    if "*" in window:
        window = window.replace("*", " ")
    if "_" in window:
        window = window.replace("_", " ")
    if "`" in window:
        window = window.replace("`", " ")
    return window


def _clause_after(text: str, end: int) -> str:
    window = _unmarked(text[end : end + _WINDOW])
    stop = _CLAUSE_END.search(window)
    return window[: stop.start()] if stop else window


def _clause_before(text: str, start: int) -> str:
    window = _unmarked(text[max(0, start - _WINDOW) : start])
    ends = [m.end() for m in _CLAUSE_END.finditer(window)]
    window = window[ends[-1] :] if ends else window
    colon = window.rfind(":")
    if colon >= 0 and len(window[:colon].split()) > _LABEL_WORDS:
        window = window[colon + 1 :]  # "halves the loss: $1.4M": a colon after a clause
    return (window).rstrip(" \t$(\u00a0+-\u2212") + " "


def claim_of(text: str, start: int, end: int, cues: tuple[Cue, ...] = DEFAULT_CUES) -> Role:
    """The quantity the figure at ``text[start:end]`` claims, from the words of its clause.

    A per-unit or projected wording before the figure wins ("the average loan loses $2,369",
    "improves to $-1.1M"); then an impact verb right before a loss phrase ("recovers $2.1M of
    the loss" is an impact); then the words after the figure ("$0 of annual loss"), then
    those before it ("loses $3.3M").

    >>> t = "the average loan loses $2,369; recovers $2.1M of the loss; EBITDA of $14.5M"
    >>> [claim_of(t, t.index(s), t.index(s) + len(s)).value for s in ("$2,369", "$2.1M", "$14.5M")]
    ['per_unit', 'impact', 'baseline']
    >>> claim_of("the cohort stays at $-3.3M a year", 20, 26)
    <Role.ANY: 'any'>
    >>> t = "takes the cohort to about $6.2M of annual loss; $1.2M to $1.5M"
    >>> claim_of(t, 26, 31), claim_of(t, 57, 62)
    (<Role.PROJECTED: 'projected_outcome'>, <Role.ANY: 'any'>)
    """
    reader = _reader(cues)
    key = (_clause_before(text, start), _clause_after(text, end))
    role = reader.claims.get(key)
    if role is None:
        if len(reader.claims) >= _CLAIMS_MAX:
            reader.claims.clear()
        role = reader.claims[key] = _claim(reader, *key)
    return role


def _claim(reader: _CueReader, before_text: str, after_text: str) -> Role:
    """``claim_of`` for a figure's clause before it and after it."""
    before, nearest = Role.ANY, -1
    for rx, r in reader.before:  # the cue nearest the figure wins ("notice of loss saves $X")
        m = rx.search(before_text)
        if m is not None and r in (Role.PER_UNIT, Role.PROJECTED):
            return r
        if m is not None and m.start() > nearest:
            before, nearest = r, m.start()
    after = next((r for rx, r in reader.after if rx.match(after_text)), Role.ANY)
    if after is Role.PER_UNIT:
        return after
    if before is Role.IMPACT and after is Role.LOSS:
        return before
    return after if after is not Role.ANY else before


def claim_in(label: str, cues: tuple[Cue, ...]) -> Role:
    """The quantity a label names anywhere in it, by the first cue (in order) whose ``before``
    wording occurs in ``label``: for documents whose figures follow a label rather than a
    sentence ("Total observed annual loss across documented cohorts: $-990.9M", a DDQ
    answer), which ``claim_of`` reads as a clause ended by its colon.

    >>> cues = (Cue(Role.LOSS, before=r"loss|observed"), Cue(Role.IMPACT, before=r"recovery"))
    >>> claim_in("Total observed annual loss across documented cohorts", cues)
    <Role.LOSS: 'loss'>
    >>> claim_in("the fund-wide range", cues)
    <Role.ANY: 'any'>
    """
    text = label.translate(_MARKUP)
    for cue in cues:
        if cue.before and re.search(r"\b(?:" + cue.before + r")\b", text, re.IGNORECASE):
            return cue.role
    return Role.ANY


# ---------------------------------------------------------------------------------------------
# The role-aware choice among candidate fields
# ---------------------------------------------------------------------------------------------


class Candidate(Protocol):
    """What ``pick`` reads of a source field."""

    @property
    def value(self) -> float: ...
    @property
    def magnitude(self) -> float: ...


C = TypeVar("C", bound=Candidate)


@dataclass
class Picked(Generic[C]):
    """``pick``'s answer: the grounding field, the nearest field of another role the value
    matches (a wrong quantity), and the first field of the right role but the wrong sign."""

    best: C | None = None
    wrong_role: C | None = None
    wrong_sign: C | None = None


def pick(
    fields: Iterable[C],
    role_of: Callable[[C], Role],
    claim: Role,
    mag: float,
    lo: float,
    hi: float,
    sign: int,
) -> Picked[C]:
    """Choose among ``fields`` for a figure of magnitude ``mag`` (accepting [lo, hi]),
    claiming ``claim``, signed ``sign`` (-1 written negative, 1 written with ``+``, 0 unsigned).

    ``role_of(field)`` gives a field's role. A field of an accepted role, in the window and of
    the figure's sign, nearest ``mag``, grounds it. A zero is grounded by a zero-valued field
    only in a role the figure claims (never by a coincidence in an unclaimed one).

    >>> from typing import NamedTuple
    >>> class F(NamedTuple):
    ...     value: float
    ...     magnitude: float
    ...     role: Role
    >>> fs = [F(-87655.85, 87655.85, Role.LOSS), F(0.0, 0.0, Role.PROJECTED)]
    >>> p = pick(fs, lambda f: f.role, Role.LOSS, 0.0, -0.5, 0.5, 0)
    >>> p.best, p.wrong_role
    (None, None)
    >>> p = pick(fs, lambda f: f.role, Role.IMPACT, 87655.0, 87000, 88000, 0)
    >>> p.best, p.wrong_role.role
    (None, <Role.LOSS: 'loss'>)
    """
    out: Picked[C] = Picked()
    zero = mag == 0
    for f in fields:
        m = f.magnitude
        if not lo <= m <= hi:
            continue
        role = role_of(f)
        if role in NEVER_GROUNDS:
            continue
        if zero and (claim is Role.ANY or role is not claim):
            continue  # a zero is grounded only in the role it claims
        if not accepts(claim, role):
            if out.wrong_role is None or abs(m - mag) < abs(out.wrong_role.magnitude - mag):
                out.wrong_role = f
            continue
        if (sign < 0 and f.value >= 0) or (sign > 0 and f.value < 0):
            out.wrong_sign = out.wrong_sign or f
        elif out.best is None or abs(m - mag) < abs(out.best.magnitude - mag):
            out.best = f
    return out
