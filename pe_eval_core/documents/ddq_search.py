"""The bounded search that grounds one DDQ figure: the aggregates its wording allows, over the
families its answer cites (and the whole knowledge base where it speaks of the fund).

>>> from pe_eval_core.documents.ddq_figures import stated_figures
>>> from pe_eval_core.documents.ddq_kb import KnowledgeBase
>>> kb = KnowledgeBase.from_records({"dx": [{"portco_id": "A", "opportunities": [
...     {"id": "o1", "current_outcome_usd_annual": -5e6, "difficulty_score_1_to_5": 2},
...     {"id": "o2", "outcome_total_usd_annual": -7e6, "difficulty_score_1_to_5": 4}]}]})
>>> text = "Total observed annual loss: $-5.0M. 1 of 2 findings are rated ≤3."
>>> s = stated_figures(text)
>>> q = Query(kb, text, {"dx": ["dx_report_0.json"]}, fund=False)
>>> v = q.verdict(s[0]); v.ok, v.nearest.describe()
(False, 'sum of current outcome over 2 opportunities in 1 dx_report = −$12.0M')
>>> q.verdict(s[1]).ok
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pe_eval_core.documents.ddq_figures import NOUNS, Stated, ops_in
from pe_eval_core.documents.ddq_kb import (
    BANDS,
    FAMILY_PREFIXES,
    Aggregate,
    KnowledgeBase,
    Predicate,
    field_specs,
)
from pe_eval_core.grading.roles import Cue, Role, claim_in
from pe_eval_core.numbers import FigureKind, extract_figures

ALL_OPS = {"sum", "mean", "median", "min", "max"}

PORTCO_NOUNS = frozenset({"portcos", "portfolio companies", "companies"})
FAMILY_CUES: tuple[tuple[str, str], ...] = (
    ("audit pack", "ai_act"),
    ("proof pack", "pack"),
    ("exit pack", "pack"),
    ("memo", "memo"),
    ("red-flag", "cim"),
    ("sidecar", "dx"),
    ("rollup", "bx"),
)
"""The artifact family a phrase about some portcos names (its files are what is counted)."""
_FAMILY_WORDS = (
    r"(?:[\w()-]+\s+){0,4}?(?:audit\s+packs?|proof\s+packs?|exit\s+packs?|memos?|"
    r"red-flag\s+analys[ie]s|sidecars?|rollups?)"
)
_FAMILY_BEFORE = re.compile(rf"(?i)(?P<family>{_FAMILY_WORDS})\s+(?:on\s+file\s+)?for\s+$")
_FAMILY_AFTER = re.compile(
    rf"(?i)^\s+(?:portfolio\s+companies|portcos|companies)\s+with\s+(?P<family>{_FAMILY_WORDS})"
)
_BAND = re.compile(r"(?i)\bsensitivity\s+(?:band|range|table)|\bmultipliers?\b")
MULTIPLIERS = ("conservative_multiplier", "base_multiplier", "aggressive_multiplier")

DDQ_CUES: tuple[Cue, ...] = (
    Cue(Role.LOSS, before=r"loss|losses|leakage|run-rate|current\s+outcome|observed"),
    Cue(Role.BASELINE, before=r"baseline"),
    Cue(
        Role.IMPACT,
        before=r"recover\w*|impact|headline|base-case|attributable|contribution|uplift",
    ),
)
"""What a DDQ answer's money label names ("Total observed annual loss across documented
cohorts: $X", "headline base-case AI EBITDA contribution is $X"), read by the shared
``grading.roles.claim_in`` (a label, not a clause: the first cue in order that occurs)."""
_THRESHOLD = re.compile(
    r"(?P<op>[≥≤]|>=|<=|>|<|\bat\s+least|\bat\s+most)\s*(?P<value>\d+(?:\.\d+)?)"
    r"(?P<after>\s*[a-z]+)?",
    re.I,
)
_THRESHOLD_CUES = (
    ("persistence", r"score|persist"),
    ("quarters_observed", r"quarter"),
    ("difficulty_score_1_to_5", r"rated|difficult|rating"),
    ("n", r"loans|rows"),
)
_OPS_OF = {"≥": ">=", "≤": "<=", "at least": ">=", "at most": "<="}
AI_TERMS = ("ai ", "artificial intelligence", "machine learning")
QUALIFIERS: dict[str, Predicate] = {
    "ai-adjacent": ("excerpt", "mentions", AI_TERMS),
    "ai-related": ("excerpt", "mentions", AI_TERMS),
}
"""Producer words that restrict what a count counts (beyond ``<value>-<field>`` words such as
"high-severity", read from the fields themselves)."""


def thresholds(sentence: str) -> tuple[Predicate, ...]:
    """The predicates a sentence states (``score ≥0.5 across ≥2 quarters``).

    >>> thresholds("(score ≥0.5 across ≥2 quarters)")
    (('persistence', '>=', 0.5), ('quarters_observed', '>=', 2.0))
    """
    out: list[Predicate] = []
    for m in _THRESHOLD.finditer(sentence):
        context = sentence[max(0, m.start() - 25) : m.start()] + " " + (m["after"] or "")
        near = (m["after"] or "") + " " + sentence[max(0, m.start() - 12) : m.start()]
        field = next((f for f, cue in _THRESHOLD_CUES if re.search(cue, near, re.I)), None)
        field = field or next(
            (f for f, cue in _THRESHOLD_CUES if re.search(cue, context, re.I)), None
        )
        if field is not None:
            op = _OPS_OF.get(m["op"].lower(), m["op"])
            out.append((field, op, float(m["value"])))
    return tuple(out)


def money_claim(text: str, s: Stated) -> tuple[Role, str] | None:
    """What a money figure claims (a role and a sensitivity band): a parenthesised word after
    it ("$461.4M (conservative)"), else the label of its clause before it; None when neither
    names a quantity."""
    after = re.match(r"\s*\(([^)]{1,30})\)", text[s.end :])
    clause = re.split(r"[.;]\s", text[: s.start])[-1][-120:]
    for words in ([after.group(1)] if after else []) + [clause]:
        band = next((b for b in BANDS if re.search(b, words, re.I)), "")
        if band:
            return Role.TOTAL, band
        role = claim_in(words, DDQ_CUES)
        if role is not Role.ANY:
            return role, ""
    return None


def clause_of(text: str, s: Stated) -> str:
    """The clause holding a figure (between ``.``/``;`` boundaries)."""
    start = max(text.rfind(". ", 0, s.start), text.rfind("; ", 0, s.start)) + 1
    ends = [i for i in (text.find(". ", s.end), text.find("; ", s.end)) if i >= 0]
    return text[start : min(ends) if ends else len(text)]


def sentence_of(text: str, s: Stated) -> str:
    start = text.rfind(". ", 0, s.start) + 1
    end = text.find(". ", s.end)
    return text[start : end if end >= 0 else len(text)]


@dataclass(frozen=True)
class Verdict:
    """A figure's search result: grounded (``matched``), or the nearest aggregate."""

    ok: bool
    matched: Aggregate | None
    nearest: Aggregate | None
    searched: int


def _covers(s: Stated, x: float, unit: str, *, loss: bool = False) -> bool:
    """``s`` states ``x`` within its displayed precision (money +-1% too; a whole number may
    be ``x`` rounded or cut, as producers print a median). With ``loss`` an unsigned amount may
    state a negative outcome as its magnitude ("a loss of $67.4M")."""
    if s.sort == "money":
        figs = [f for f in extract_figures(s.raw) if f.kind is FigureKind.USD]
        if figs:
            f = figs[0]
            if loss and x < 0 and not f.negative:
                x = -x
            return f.covers(x) or abs(f.value - x) <= 0.01 * max(abs(x), 1e-9)
        return abs(s.value - x) <= 0.01 * max(abs(x), 1e-9)
    if s.sort == "percent":
        return abs(s.value - x) <= max(0.5 * 10**-s.decimals, 0.15) + 1e-9
    if s.decimals:
        return abs(s.value - x) <= 0.5 * 10**-s.decimals + 1e-9
    return s.value - 0.5 <= x < s.value + 1 if x != int(x) else s.value == x


class Query:
    """The search for one answer: its text, its cited files by family, and the knowledge base."""

    def __init__(self, kb: KnowledgeBase, text: str, cited: dict[str, list[str]], *, fund: bool):
        self.kb = kb
        self.text = text
        # An answer citing nothing may still state an absence ("0 such packs exist"): every
        # family is searched then, absent ones counting 0.
        self.families = sorted(cited) or sorted(FAMILY_PREFIXES)
        scopes: dict[str, dict[str, list[str]]] = {"cited": cited} if cited else {}
        if fund or not cited:
            scopes["knowledge base"] = {f: sorted(kb.files.get(f, {})) for f in self.families}
        self.scopes = scopes

    def _aggs(self, families: list[str] | None = None, **filters: Any) -> list[Aggregate]:
        fams = families or self.families
        cited = [f for f in fams if f in self.families]
        out = list(self.kb.aggregates(cited, scopes=self.scopes, **filters)) if cited else []
        # A family the answer names but does not cite ("covering 0 corpus rollups", "audit
        # packs for 2 portcos"): a statement about the whole knowledge base's files of it.
        rest = [f for f in fams if f not in self.families]
        if rest:
            whole = {"knowledge base": {f: sorted(self.kb.files.get(f, {})) for f in rest}}
            out += self.kb.aggregates(rest, scopes=whole, **filters)
        return out

    def family_named(self, s: Stated) -> str | None:
        """The artifact family a count of portcos is qualified by ("audit packs for 0
        portcos", "3 portcos with proof packs on file"), else None."""
        before = _FAMILY_BEFORE.search(self.text[max(0, s.start - 60) : s.start])
        after = _FAMILY_AFTER.match(self.text[s.end : s.end + 60])
        words = before or after
        if words is None:
            return None
        phrase = words["family"].lower()
        return next((fam for cue, fam in FAMILY_CUES if cue in phrase), None)

    def band_parameter(self, s: Stated) -> bool:
        """A percent of the sensitivity method ("a 50% / 100% / 130% sensitivity band") in a
        knowledge base without a proof pack: the method's stated parameter, nothing to check
        it against (with packs it is compared with their multipliers)."""
        sentence = sentence_of(self.text, s)
        return (
            s.sort == "percent" and bool(_BAND.search(sentence)) and not self.kb.files.get("pack")
        )

    def candidates(self, s: Stated) -> tuple[list[Aggregate], set[str] | None]:
        """The aggregates the figure's wording allows, and the ops it names (for ranking)."""
        clause = clause_of(self.text, s)
        ops = ops_in(clause[: s.start - self.text.find(clause)] if clause else "") or None
        if s.sort == "money":
            claim = money_claim(self.text, s)
            # A fund-level amount that names no statistic is a total ("Across 3 portcos ...
            # contribution is $922.9M"): a median or a maximum must be named to be meant.
            return self._aggs(claim=claim, units={"usd"}, ops=ops or {"sum"}), ops
        if s.sort in ("score", "difficulty"):
            unit = "fraction" if s.sort == "score" else "difficulty"
            return self._aggs(units={unit}, ops=ops or ALL_OPS), ops
        if s.sort == "percent":
            return self._percent(s), ops
        if s.sort in ("count", "part"):
            return self._counts(s, ops), ops
        return self._aggs(units={"count", "quarters", "difficulty"}, ops=None), ops

    def _percent(self, s: Stated) -> list[Aggregate]:
        if _BAND.search(sentence_of(self.text, s)):  # the band's multipliers, nothing else
            return self._aggs(["pack"], fields=set(MULTIPLIERS), ops=ALL_OPS)
        preds = thresholds(sentence_of(self.text, s))
        out = self._aggs(units={"fraction"}, ops=ALL_OPS)
        if preds:
            out += self._aggs(ops={"share"}, units={"percent"}, predicates=preds)
        return out

    def _counts(self, s: Stated, ops: set[str] | None) -> list[Aggregate]:
        out: list[Aggregate] = []
        named = self.family_named(s) if s.noun in PORTCO_NOUNS else None
        for fam, pop, op in NOUNS.get(s.noun, ()):
            families = ([named] if named else self.families) if fam == "*" else [fam]
            if op.startswith("sum:"):
                out += self._aggs(families, populations={pop}, fields={op[4:]}, ops={"sum"})
            elif op.startswith("field:"):
                out += self._aggs(families, populations={pop}, fields={op[6:]}, ops=ops or ALL_OPS)
            elif s.sort == "part":
                for preds in self._part_predicates(s, families, pop):
                    out += self._aggs(families, populations={pop}, ops={op}, predicates=preds)
            else:
                preds = self._qualifiers(s, families, pop)
                out += self._aggs(
                    families, populations={pop}, ops={op}, units={"count"}, predicates=preds
                )
        return out

    def _qualifiers(self, s: Stated, families: list[str], pop: str) -> tuple[Predicate, ...]:
        """Predicates named between a count and its noun ("0 high-severity AI-adjacent")."""
        phrase = self.text[s.end : s.end + 80].lower()
        cut = re.search(re.escape(s.noun).replace(r"\ ", r"\s+"), phrase) if s.noun else None
        phrase = phrase[: cut.start()] if cut else phrase
        preds: list[Predicate] = [p for w, p in QUALIFIERS.items() if w in phrase]
        for fam in families:
            for spec in field_specs(fam, pop):
                if spec.unit != "text":
                    continue
                field_word = spec.name.replace("_", " ")
                m = re.search(rf"\b([a-z]+)[- ]{re.escape(field_word)}\b", phrase)
                if m:
                    preds.append((spec.name, "==", m.group(1)))
        return tuple(dict.fromkeys(preds))

    def _part_predicates(
        self, s: Stated, families: list[str], pop: str
    ) -> list[tuple[Predicate, ...]]:
        """The filters an "N of M" may count: the sentence's thresholds, else the yes/no
        fields it names, else each yes/no field."""
        sentence = sentence_of(self.text, s).lower()
        preds = thresholds(sentence_of(self.text, s))
        if preds:
            return [preds]
        flags = [spec for fam in families for spec in field_specs(fam, pop) if spec.unit == "bool"]
        named = [
            spec
            for spec in flags
            if all(w in sentence for w in spec.name.split("_") if w not in ("has", "data"))
        ]
        return [((spec.name, "==", True),) for spec in (named or flags)] or [()]

    def verdict(self, s: Stated) -> Verdict:
        """Grounded when some allowed aggregate equals the figure within its precision."""
        cands, _ = self.candidates(s)
        for agg in cands:
            if _covers(s, self._value(s, agg), agg.unit, loss=agg.role is Role.LOSS):
                return Verdict(True, agg, agg, len(cands))
        return Verdict(False, None, self._nearest(s, cands), len(cands))

    @staticmethod
    def _value(s: Stated, agg: Aggregate) -> float:
        if s.sort == "percent" and agg.unit == "fraction":
            return agg.value * 100
        return agg.value

    def _nearest(self, s: Stated, cands: list[Aggregate]) -> Aggregate | None:
        def distance(a: Aggregate) -> tuple[int, float]:
            x = self._value(s, a)
            return (
                0 if a.scope == "cited" else 1,
                abs(x - s.value) / max(abs(x), abs(s.value), 1e-9),
            )

        return min(cands, key=distance, default=None)
