"""Grade one memo against its source: figures, entities, coverage, consistency -> MemoEvaluation.

Pure: reads the two inputs (and sibling memos for consistency) and writes nothing. The work
is linear in the prose: both universes are built once, each figure is a bisection and each
entity a dictionary lookup.

Definitions (every score comes with its n/total):

* citation accuracy = cited figures / figures. Cited = grounded in the opportunity's own or
  portfolio-level fields, or mis-attributed (matches only another opportunity's field: cited,
  with a finding). Figures inside template constants are exempt: shown, not counted.
* hallucination rate = ungrounded entities / entities (mis-attributed entities are grounded).
* coverage = source opportunities with non-empty prose in the memo / source opportunities.
* consistency = agreeing headline comparisons / comparisons (see ``consistency``).
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from pe_eval_core import limits
from pe_eval_core.limits import exceeded
from pe_eval_core.memo.config import GRADER_VERSION, GraderConfig, TemplateConstant
from pe_eval_core.memo.consistency import assess_consistency, consistency_score
from pe_eval_core.memo.folder_index import FolderIndex
from pe_eval_core.memo.loading import load_pair
from pe_eval_core.memo.models import MemoSidecar
from pe_eval_core.memo.pairs import named_portco
from pe_eval_core.memo.prose_names import (
    EntityMention,
    PlainNames,
    bold_count,
    extract_entities,
)
from pe_eval_core.memo.result import (
    Finding,
    FindingKind,
    Mark,
    MemoEvaluation,
    OpportunityRow,
    ProseBlock,
    Scores,
    Totals,
)
from pe_eval_core.memo.source_names import SEGMENT_VALUE, EntityUniverse, SourceEntity
from pe_eval_core.memo.source_numbers import FigureMatch, NumericUniverse, SourceField
from pe_eval_core.numbers import (
    DEFAULT_COUNT_NOUNS,
    Figure,
    FigureKind,
    extract_figures,
    extract_word_figures,
)

_DIGIT = re.compile(r"\d")
_COUNT_START = frozenset("0123456789-+\u2212")
_MARK_STATUS = {"grounded": "grounded", "misattributed": "misattributed", "derived": "derived"}
"""A figure's mark status by match status (a sign mismatch is ungrounded)."""

_Spans = list[tuple[int, int, str]]
"""Template-constant matches in a block: (start, end, matched phrase)."""
_Parsed = tuple[list[Figure], list[EntityMention], _Spans | None, list[EntityMention]]
"""A block's figures, entity mentions and template spans (None: not looked for)."""
_Lookup = tuple[str, SourceEntity | None]
_Verdicts = tuple[list[FigureMatch | str], list[_Lookup]]
"""Per figure its match, or the template phrase exempting it; per mention its lookup."""


def merge_figures(figures: list[Figure], words: list[Figure]) -> list[Figure]:
    """The figures read from digits plus those read from words that overlap none of them,
    sorted by start (``5 of 9 quarters`` is read once, from its digits)."""
    if not words:
        return figures
    taken = [(f.start, f.end) for f in figures]
    extra = [w for w in words if not any(s < w.end and w.start < e for s, e in taken)]
    return sorted([*figures, *extra], key=lambda f: f.start) if extra else figures


_OF_LOSS_AFTER = re.compile(
    r"""[ 	]*(?:of|in)[ 	]+(?:the[ 	]+|today's[ 	]+|this[ 	]+|its[ 	]+|current[ 	]+)?
        (?:[\w'’-]+[ 	]+){0,2}?(?:loss|losses|leakage|write-offs?|shortfall)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_LOSS_OBJECT = re.compile(  # "halves the loss"
    r"""[ \t]+(?:the|today's|its|this|current)[ \t]+(?:[\w'’-]+[ \t]+){0,2}?
        (?:loss|losses|leakage|write-offs?|shortfall)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_OF_QUARTERS = re.compile(r"[ \t]+of[ \t]+(?:the[ \t]+)?(?:[\w-]+[ \t]+)?quarters\b", re.I)
_OF_TOTAL = re.compile(
    r"""[ \t]*(?:of|in)[ \t]+(?:the[ \t]+|our[ \t]+|its[ \t]+)?(?:[\w'’-]+[ \t]+){0,2}?
        (?:total|programme|program|portfolio|EBITDA|opportunit(?:y|ies))\b""",
    re.IGNORECASE | re.VERBOSE,
)
_OF_LOSS_BEFORE = re.compile(
    r"(?:loss|losses|leakage|write-offs?|shortfall)[ \t]+(?:in|by)[ \t]+$", re.IGNORECASE
)

# "a gain of $1.08M (40%)": a percent alone in brackets right after a USD figure, in a
# sentence about a loss, is that figure as a share of the loss (a recovery ratio)
_BRACKETED_AFTER_USD = re.compile(r"[$€£][\d.,]+[ \t]*(?:[KMBkmb]|bn|mm)?[ \t]*\($")
_LOSS_WORD = re.compile(r"\b(?:loss|losses|leakage|write-offs?|shortfall)\b", re.IGNORECASE)


_SUM_WORDS = re.compile(
    r"\b(?:together|combined|add(?:s|ing)?|make[s]?[ \t]+up|between[ \t]+them"
    r"|in[ \t]+total|sum[ \t]+of)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;!?\n](?:\s|$)")


def with_context(text: str, figures: list[Figure]) -> list[Figure]:
    """Wording that licenses a derivation, as roles: a percent worded as a share of a loss
    gets ``of_loss`` (it may be a recovery ratio, impact / loss: "40% of the cohort's
    loss", "a quarter of the write-off", "cut the loss in half", "halves the loss"); a fraction
    word followed by "of the quarters" gets ``of_quarters`` (k / m of the quarters pair);
    a percent in brackets right after a USD figure in a sentence about a loss ("a gain of
    $1.08M (40%)") gets ``of_loss`` too; a percent "of the total", "of EBITDA", "of the
    programme" gets ``of_total`` (a share:
    its own derivations are tried before another opportunity's field); a USD or percent figure
    in a sentence that says it adds things up ("together", "combined", "add(s)", "make
    up", "between them", "in total", "sum of") gets ``sum`` (it may add two opportunities'
    impacts). Other wording leaves the figure as it is.

    >>> text = "recovers 40% of the cohort's loss, cuts the loss in half, 7% of EBITDA"
    >>> figs = merge_figures(extract_figures(text), extract_word_figures(text))
    >>> [(f.raw, f.role) for f in with_context(text, figs)]
    [('40%', 'of_loss'), ('half', 'fraction of_loss'), ('7%', 'of_total')]
    >>> text = "it halves the loss; the signal appeared in half of the quarters observed"
    >>> [(f.raw, f.role) for f in with_context(text, extract_word_figures(text))]
    [('halves', 'fraction of_loss'), ('half', 'fraction of_quarters')]
    >>> text = "improves the outcome to $1.6M of loss, a gain of $1.08M (40%)."
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$1.6M', ''), ('$1.08M', ''), ('40%', 'of_loss')]
    >>> text = "Revenue reached $1.08M (40%) this year; $2M (4% of EBITDA) of loss."
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$1.08M', ''), ('40%', ''), ('$2M', ''), ('4%', 'of_total')]
    >>> text = "Revenue reached $1.08M (40%) this year."  # no loss in the sentence
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$1.08M', ''), ('40%', '')]
    >>> text = "Plus $2.6M of relief. Together, these two are worth $7.6M (77% of the total)."
    >>> [(f.raw, f.role) for f in with_context(text, extract_figures(text))]
    [('$2.6M', ''), ('$7.6M', 'sum'), ('77%', 'of_total sum')]
    """
    out = figures
    sentences = _Sentences(text)
    for j, f in enumerate(figures):
        if f.kind is not FigureKind.PERCENT and f.kind is not FigureKind.USD:
            continue
        roles = []
        if f.kind is FigureKind.PERCENT and (
            _OF_LOSS_AFTER.match(text, f.end) is not None
            or _OF_LOSS_BEFORE.search(text, max(0, f.start - 40), f.start) is not None
            or (f.raw[:4].lower() == "halv" and _LOSS_OBJECT.match(text, f.end) is not None)
            or (
                _BRACKETED_AFTER_USD.search(text, max(0, f.start - 24), f.start) is not None
                and text.startswith(")", f.end)  # "(40%)", not "(4.3% of EBITDA)"
                and sentences.says(_LOSS_WORD, f.start, f.end)
            )
        ):
            roles.append("of_loss")
        elif "fraction" in f.role and _OF_QUARTERS.match(text, f.end) is not None:
            roles.append("of_quarters")
        elif f.kind is FigureKind.PERCENT and _OF_TOTAL.match(text, f.end) is not None:
            roles.append("of_total")
        if sentences.says(_SUM_WORDS, f.start, f.end):
            roles.append("sum")
        if roles:
            if out is figures:
                out = list(figures)
            out[j] = replace(f, role=" ".join([f.role, *roles]).strip())
    return out


def _outside_names(figures: list[Figure], names: list[EntityMention]) -> list[Figure]:
    """Drop the counts whose number is the tail of a source name written in the prose
    ("route Tier 3 applications": "3 applications" is part of "Tier 3", not a count)."""
    spans = [(m.start, m.end) for m in names if m.key is None]
    if not spans:
        return figures
    return [
        f
        for f in figures
        if f.kind is not FigureKind.COUNT or not any(s < f.start < e for s, e in spans)
    ]


class _Sentences:
    """The sentences of one text (split on . ; ! ? and newlines), found in one pass, so
    looking up the sentence of each of a block's figures stays linear in the block."""

    def __init__(self, text: str):
        self.text = text
        bounds = [(m.start(), m.end()) for m in _SENTENCE_END.finditer(text)]
        self._starts = [b[0] for b in bounds]
        self._ends = [b[1] for b in bounds]

        self._seen: dict[tuple[re.Pattern[str], int, int], bool] = {}

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The span of the sentence holding ``text[start:end]``.

        >>> t = "One. Two $5M here; three."
        >>> t.__getitem__(slice(*_Sentences(t).around(9, 12)))
        'Two $5M here'
        """
        i = bisect.bisect_right(self._ends, start)  # boundaries ending at or before start
        begin = self._ends[i - 1] if i else 0
        j = bisect.bisect_left(self._starts, end)  # the first boundary at or after end
        stop = self._starts[j] if j < len(self._starts) else len(self.text)
        return begin, stop

    def says(self, pattern: re.Pattern[str], start: int, end: int) -> bool:
        """Whether the sentence holding ``text[start:end]`` matches ``pattern``; each
        sentence is searched once per pattern (a block of one long "sentence" of thousands of
        figures stays linear)."""
        begin, stop = self.around(start, end)
        key = (pattern, begin, stop)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = pattern.search(self.text, begin, stop) is not None
        return found


def template_regex(constants: tuple[TemplateConstant, ...]) -> re.Pattern[str] | None:
    """One case-insensitive alternation of all template constants (whitespace-flexible).

    >>> rx = template_regex((TemplateConstant(phrase="throttle to ~5% of  current"),))
    >>> bool(rx.search("Then Throttle to ~5% of\\ncurrent volume."))
    True
    """
    alternatives = []
    for c in constants:
        if c.regex:
            alternatives.append(f"(?:{c.phrase})")
        else:
            words = c.phrase.split()
            if words:
                alternatives.append(r"\s+".join(re.escape(w) for w in words))
    if not alternatives:
        return None
    return re.compile("|".join(alternatives), re.IGNORECASE)


@dataclass
class _OppTally:
    """Per-opportunity counters while grading."""

    figures_total: int = 0
    figures_cited: int = 0
    entities_total: int = 0
    entities_grounded: int = 0
    findings: int = 0
    has_prose: bool = False
    archetype: str | None = None
    cohort: str = ""
    seen: bool = False


@dataclass
class _Run:
    """Mutable state of one grading pass."""

    config: GraderConfig
    numbers: NumericUniverse
    entities: EntityUniverse
    opp_ids: list[str]
    templates: re.Pattern[str] | None
    count_nouns: tuple[str, ...]
    plain: PlainNames | None = None
    """The source's vocabulary for names in plain prose (None: plain prose is not read)."""
    findings: list[Finding] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    prose: list[ProseBlock] = field(default_factory=list)
    _parsed: dict[str, _Parsed] = field(default_factory=dict)
    _uses: dict[str, int] = field(default_factory=dict)
    """Blocks still to grade per text parsed by ``parse_all``."""
    where: str = ""
    """The memo's path, for a limit error."""
    _max_findings: int = field(default_factory=limits.FINDINGS.value)

    def grade_block(self, opp_id: str, own: int | None, name: str, text: str, t: _OppTally) -> None:
        """Grade one prose block: parse it, match what it cites, tally the verdicts."""
        self.prose.append(ProseBlock(opp_id, name, text))
        if not text.strip():
            return
        t.has_prose = True
        parsed = self._take_parse(text)
        matches, lookups = self._verdicts(parsed, own)
        figures, mentions, exempt, _ = parsed
        for fig, found in zip(figures, matches, strict=True):
            if isinstance(found, str):  # inside a template constant
                self._exempt(opp_id, name, fig, found, t)
            else:
                self._figure(opp_id, own, name, fig, t, found)
        for mention, lookup in zip(mentions, lookups, strict=True):
            count = self._count_label(mention, lookup)
            if count is None:
                self._entity(opp_id, name, mention, lookup, t)
                continue
            if exempt is None:
                exempt = self._exempt_spans(text)
            reason = _inside(exempt, count.start, count.end)
            if reason is not None:
                self._exempt(opp_id, name, count, reason, t)
            else:
                self._figure(opp_id, own, name, count, t)
        if self.plain is not None:
            self._plain_names(self.plain, opp_id, own, name, text, parsed, t)

    def _plain_names(
        self,
        plain: PlainNames,
        opp_id: str,
        own: int | None,
        name: str,
        text: str,
        parsed: _Parsed,
        t: _OppTally,
    ) -> None:
        """Names in plain prose (``PlainNames``): checked, not counted. One that is not the
        opportunity's own (another opportunity's value, or no opportunity's) is tallied as an
        entity with its finding; a correct one adds nothing."""
        figures, mentions, _, names = parsed
        if not names:
            return
        taken = [(m.start, m.end) for m in mentions] + [(f.start, f.end) for f in figures]
        for mention in names:
            if any(a < mention.end and mention.start < b for a, b in taken):
                continue  # read as a bold name or a figure already
            found = self.entities.lookup(mention.key or mention.text, own, SEGMENT_VALUE)
            if found[0] != "grounded":
                self._entity(opp_id, name, mention, found, t)

    def _take_parse(self, text: str) -> _Parsed:
        """The block's parse (from ``parse_all``, or made now), forgotten once the last block
        with this text is graded (peak memory stays one opportunity's worth)."""
        parsed = self._parsed.get(text)
        if parsed is None:
            parsed = self._parse(text)
        uses = self._uses.get(text)
        if uses is not None:
            if uses > 1:
                self._uses[text] = uses - 1
            else:
                del self._uses[text], self._parsed[text]
        return parsed

    @staticmethod
    def _count_label(mention: EntityMention, lookup: _Lookup) -> Figure | None:
        """The COUNT figure an ungrounded bold label is (``**3,914 mortgages**`` names no
        source entity, but the figure parser reads it as a count of its noun), else None.
        A segment value such as "360 months" would have grounded it as an entity."""
        if lookup[0] != "ungrounded" or mention.category is not None:
            return None
        return bold_count(mention) if mention.text[:1] in _COUNT_START else None

    def _parse(self, text: str) -> _Parsed:
        """A block's figures, entity mentions and template spans (None: not looked for, as
        there is no figure), remembered by text: producers repeat whole blocks (section
        templates), and all three depend on nothing but the text and the configuration."""
        figures = extract_figures(text, self.count_nouns) if _DIGIT.search(text) else []
        figures = with_context(text, merge_figures(figures, extract_word_figures(text)))
        names = self.plain.mentions(text) if self.plain is not None else []
        if figures and names:
            figures = _outside_names(figures, names)
        mentions = extract_entities(text, figures, self.config.section_markers)
        exempt = self._exempt_spans(text) if figures else None
        parsed = (figures, mentions, exempt, names)
        self._parsed[text] = parsed
        return parsed

    def _verdicts(self, parsed: _Parsed, own: int | None) -> _Verdicts:
        """A parsed block's figure matches (the template phrase for a figure inside a
        template constant) and entity lookups, in order, for opportunity ``own``'s prose."""
        figures, mentions, exempt, _ = parsed
        match, config = self.numbers.match, self.config
        matches: list[FigureMatch | str] = []
        for f in figures:
            phrase = _inside(exempt, f.start, f.end) if exempt else None
            matches.append(match(f, own, config) if phrase is None else phrase)
        lookup = self.entities.lookup
        return matches, [lookup(m.text, own, m.category) for m in mentions]

    def parse_all(self, texts: list[str]) -> None:
        """``_parse`` every distinct non-blank text up front, and count the blocks of each
        text (so ``_take_parse`` can forget a parse after its last use)."""
        uses = self._uses
        for t in texts:
            uses[t] = uses.get(t, 0) + 1
        cited = 0  # figures and entities over every block, repeats included
        for text, n in uses.items():
            if text not in self._parsed and text.strip():
                figures, mentions, _, _ = self._parse(text)
                cited += n * (len(figures) + len(mentions))
                exceeded(
                    limits.FIGURES,
                    where=self.where,
                    field="opportunities_explained",
                    got=cited,
                    input="memo",
                )

    def _exempt_spans(self, text: str) -> _Spans:
        if self.templates is None:
            return []
        return [(m.start(), m.end(), m.group()) for m in self.templates.finditer(text)]

    def _exempt(self, opp_id: str, name: str, fig: Figure, phrase: str, t: _OppTally) -> None:
        self.marks.append(
            Mark(opp_id, name, fig.start, fig.end, fig.raw, "figure", "exempt", fig.kind.value)
        )
        self._finding(
            t,
            Finding(
                kind=FindingKind.TEMPLATE_EXEMPT,
                opportunity_id=opp_id,
                field=name,
                start=fig.start,
                end=fig.end,
                raw=fig.raw,
                message=f"{fig.raw} is part of the template wording '{phrase}': a recommendation "
                "parameter, not a citation; shown, not counted.",
            ),
        )

    def _figure(
        self,
        opp_id: str,
        own: int | None,
        name: str,
        fig: Figure,
        t: _OppTally,
        match: FigureMatch | None = None,
    ) -> None:
        """Tally one counted figure: its mark, and a finding unless it is grounded."""
        t.figures_total += 1
        if match is None:
            match = self.numbers.match(fig, own, self.config)
        f = match.field
        status = _MARK_STATUS.get(match.status, "ungrounded")
        strict = status == "derived" and self.config.strict_derivations
        if status != "ungrounded" and not strict:
            t.figures_cited += 1
        self.marks.append(
            Mark(
                opp_id,
                name,
                fig.start,
                fig.end,
                fig.raw,
                "figure",
                status,  # type: ignore[arg-type]  # a MarkStatus by construction
                fig.kind.value,
                f.path if f else None,
                f.raw_value if f else None,
            )
        )
        if status != "grounded" and (status != "derived" or strict):
            self._finding(t, self._figure_finding(opp_id, name, fig, match))

    def _figure_finding(self, opp_id: str, name: str, fig: Figure, match: FigureMatch) -> Finding:
        """Why a figure is not grounded in its own opportunity: mis-attributed, of the wrong
        sign, or ungrounded (with the nearest field of its kind)."""
        f = match.field
        where = {
            "opportunity_id": opp_id,
            "field": name,
            "start": fig.start,
            "end": fig.end,
            "raw": fig.raw,
            "nearest_value": _shown(f),
            "nearest_path": f.path if f else None,
        }
        if match.status == "misattributed" and f is not None:
            other = self._opp_id(f)
            return Finding.model_validate(
                where
                | {
                    "kind": FindingKind.MISATTRIBUTED_FIGURE,
                    "other_opportunity_id": other,
                    "message": f"{fig.raw} in {opp_id} matches only {other}'s field {f.path} "
                    f"({_fmt(f)}): cited, but attributed to the wrong opportunity.",
                }
            )
        if match.status == "derived" and f is not None:
            return Finding.model_validate(
                where
                | {
                    "kind": FindingKind.DERIVED_FIGURE,
                    "message": f"{fig.raw} is derived, not cited: {f.path} = {_fmt(f)} "
                    "(strict mode counts derivations as uncited).",
                }
            )
        if match.status == "sign" and f is not None:
            other = self._opp_id(f)
            return Finding.model_validate(
                where
                | {
                    "kind": FindingKind.SIGN_MISMATCH,
                    "other_opportunity_id": other if other != opp_id else None,
                    "message": (
                        f"{fig.raw} is stated as negative but the source value at "
                        f"{f.path} is positive ({_fmt(f)})."
                        if f.value >= 0
                        else f"{fig.raw} is stated with a '+' but the source value at "
                        f"{f.path} is negative ({_fmt(f)})."
                    ),
                }
            )
        near = f" (nearest {fig.kind.value} field: {f.path} = {_fmt(f)})" if f else ""
        return Finding.model_validate(
            where
            | {
                "kind": FindingKind.UNGROUNDED_FIGURE,
                "message": f"{fig.raw} in {opp_id} {name} traces to no source field of kind "
                f"{fig.kind.value} within tolerance{near}.",
            }
        )

    def _entity(
        self, opp_id: str, name: str, mention: EntityMention, found: _Lookup, t: _OppTally
    ) -> None:
        """Tally one entity mention: its mark, and a finding unless it is grounded in place."""
        text, start, end, category = mention[:4]
        status, ent = found
        t.entities_total += 1
        if status != "ungrounded":
            t.entities_grounded += 1
        self.marks.append(
            Mark(
                opp_id,
                name,
                start,
                end,
                text,
                "entity",
                status,  # type: ignore[arg-type]  # an EntityStatus is a MarkStatus
                category or (ent.category if ent else ""),
                ent.path if ent else None,
                ent.text if ent else None,
            )
        )
        if status == "misattributed" and ent is not None:
            other = self.opp_ids[ent.opp] if ent.opp is not None else None
            message = (
                f"'{text}' in {opp_id} is {other}'s {ent.category} ({ent.path}), "
                f"not {opp_id}'s: attributed to the wrong opportunity."
            )
            self._finding(
                t,
                Finding(
                    kind=FindingKind.MISATTRIBUTED_ENTITY,
                    opportunity_id=opp_id,
                    field=name,
                    start=start,
                    end=end,
                    raw=text,
                    nearest_value=ent.text,
                    nearest_path=ent.path,
                    other_opportunity_id=other,
                    message=message,
                ),
            )
        elif status == "ungrounded":
            scope = (
                f"is not among any opportunity's {category}s in the source"
                if category
                else "names nothing in the source (no segment value or key, archetype, "
                "decision column, evidence row, portco or vertical)"
            )
            self._finding(
                t,
                Finding(
                    kind=FindingKind.UNGROUNDED_ENTITY,
                    opportunity_id=opp_id,
                    field=name,
                    start=start,
                    end=end,
                    raw=text,
                    message=f"'{text}' in {opp_id} {name} {scope}.",
                ),
            )

    def _finding(self, t: _OppTally | None, finding: Finding) -> None:
        self.findings.append(finding)
        if len(self.findings) > self._max_findings:
            exceeded(
                limits.FINDINGS,
                where=self.where,
                field="opportunities_explained",
                got=len(self.findings),
                input="memo",
            )
        if t is not None:
            t.findings += 1

    def _opp_id(self, f: SourceField | None) -> str | None:
        if f is None or f.opp is None:
            return None
        return self.opp_ids[f.opp]


def _shown(f: SourceField | None) -> float | None:
    """The source value as stored (a 0.123 fraction stays 0.123)."""
    return f.raw_value if f is not None else None


def _fmt(f: SourceField) -> str:
    v = f.raw_value
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.6g}"


def _inside(spans: _Spans, start: int, end: int) -> str | None:
    for s, e, text in spans:  # a handful of template matches per block at most
        if s <= start and end <= e:
            return text
    return None


def grade_memo(
    memo_path: str | os.PathLike[str],
    source_path: str | os.PathLike[str],
    *,
    config: GraderConfig | None = None,
    index: FolderIndex | None = None,
) -> MemoEvaluation:
    """Grade the memo sidecar at ``memo_path`` against the OpportunityMap at ``source_path``.

    ``index`` is the memo folder's :class:`FolderIndex` when grading a batch (siblings come
    from it); without one the folder is scanned for this memo alone.

    Raises the seed's typed errors (``MemoNotFoundError``, ``MalformedSourceError``,
    ``MemoSchemaError``, ``EmptyMemoError`` ...) on bad input; writes nothing.
    """
    config = config or GraderConfig()
    pair = load_pair(memo_path, source_path)
    memo, source = pair.memo, pair.source
    run = _Run(
        config=config,
        numbers=NumericUniverse(source),
        entities=EntityUniverse(source),
        opp_ids=[o.id for o in source.opportunities],
        templates=template_regex(config.template_constants),
        count_nouns=config.count_nouns if config.count_nouns is not None else DEFAULT_COUNT_NOUNS,
        where=str(memo_path),
        plain=PlainNames(source) if config.plain_names else None,
    )
    tallies = {
        o.id: _OppTally(archetype=o.archetype, cohort=o.cohort) for o in source.opportunities
    }
    if memo.portco_id != source.portco_id:
        run._finding(None, _portco_mismatch(memo.portco_id, source.portco_id))
    if not named_portco(Path(memo_path).name, memo.portco_id):
        run._finding(None, _file_name_mismatch(Path(memo_path).name, memo.portco_id))
    phantoms = _grade_opportunities(run, memo, tallies)
    for oid, t in tallies.items():
        if not t.has_prose:
            run._finding(t, _dropped(oid, t))
    consistency, cons_findings = assess_consistency(memo, pair.memo_path, source, config, index)
    run.findings.extend(cons_findings)
    rows = [_row(oid, t, in_source=True) for oid, t in tallies.items()]
    rows += [_row(oid, t, in_source=False) for oid, t in phantoms.items()]
    totals = _totals(tallies, phantoms)
    return MemoEvaluation(
        portco_id=memo.portco_id,
        audience=memo.audience,
        memo_path=str(Path(memo_path).resolve()),
        source_path=str(Path(source_path).resolve()),
        memo_sha256=pair.memo_sha256,
        source_sha256=pair.source_sha256,
        grader_version=GRADER_VERSION,
        evaluated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        scores=_scores(totals, consistency_score(consistency)),
        totals=totals,
        opportunities=rows,
        findings=run.findings,
        marks=run.marks,
        consistency=consistency,
        prose=run.prose,
        config=config,
    )


def _grade_opportunities(
    run: _Run, memo: MemoSidecar, tallies: dict[str, _OppTally]
) -> dict[str, _OppTally]:
    """Grade every memo entry's prose blocks into its opportunity's tally (phantoms get their
    own tallies, returned); id findings (phantom, case, duplicate) come first per entry."""
    index = {oid: i for i, oid in enumerate(run.opp_ids)}
    by_folded: dict[str, list[str]] = {}
    for oid in run.opp_ids:
        by_folded.setdefault(oid.casefold(), []).append(oid)
    fields = run.config.prose_fields
    explained = memo.opportunities_explained
    texts = [[opp.prose(name) for name in fields] for opp in explained]
    run.parse_all([text for block in texts for text in block])  # parse, then match and tally
    phantoms: dict[str, _OppTally] = {}
    entries: dict[str, list[int]] = {}
    for position, opp in enumerate(explained):
        oid, own, case_match = _resolve(opp.id, index, by_folded)
        if own is not None:
            t = tallies[oid]
        elif oid in phantoms:
            t = phantoms[oid]
        else:
            t = phantoms[oid] = _OppTally(archetype=opp.archetype, cohort=opp.cohort)
            run._finding(t, _phantom(oid))
        if case_match is not None:
            run._finding(t, _case_mismatch(oid, own, case_match, position))
        seen_at = entries.setdefault(oid, [])
        seen_at.append(position)
        suffix = f"#{len(seen_at)}" if len(seen_at) > 1 else ""
        if suffix:
            run._finding(t, _duplicate(oid, opp.id, seen_at[0], position, suffix))
        t.seen = True
        for name, text in zip(fields, texts[position], strict=True):
            run.grade_block(oid, own, name + suffix, text, t)
        if own is not None:  # keep memory flat: one opportunity's scope at a time
            run.numbers.release(own)
            run.entities.release(own)
    return phantoms


def _portco_mismatch(memo_portco: str, source_portco: str) -> Finding:
    return Finding(
        kind=FindingKind.PORTCO_MISMATCH,
        field="portco_id",
        raw=memo_portco,
        nearest_value=source_portco,
        nearest_path="portco_id",
        message=f"The memo is about '{memo_portco}' but the source is "
        f"'{source_portco}': check that the right OpportunityMap was passed.",
    )


def _file_name_mismatch(name: str, memo_portco: str) -> Finding:
    return Finding(
        kind=FindingKind.FILE_NAME_MISMATCH,
        field="portco_id",
        raw=memo_portco,
        nearest_value=name,
        message=f"The memo says it is about '{memo_portco}' but its file is {name}: its "
        "scorecard is named after the file, and the memo may be mislabelled or planted.",
    )


def _phantom(oid: str) -> Finding:
    return Finding(
        kind=FindingKind.PHANTOM_OPPORTUNITY,
        opportunity_id=oid,
        field="id",
        raw=oid,
        message=f"The memo explains '{oid}', which is not an opportunity in the "
        "source: invented, or explained from a different OpportunityMap.",
    )


def _case_mismatch(oid: str, own: int | None, case_match: str, position: int) -> Finding:
    return Finding(
        kind=FindingKind.ID_CASE_MISMATCH,
        opportunity_id=oid,
        field="id",
        raw=case_match,
        nearest_value=oid,
        nearest_path=f"opportunities[{own}].id",
        message=f"The memo's id '{case_match}' (opportunities_explained[{position}]) "
        f"matches the source's '{oid}' only when case is ignored: graded as {oid}; "
        "ids are compared exactly, so correct it in the memo.",
    )


def _duplicate(oid: str, raw: str, first: int, position: int, suffix: str) -> Finding:
    return Finding(
        kind=FindingKind.DUPLICATE_OPPORTUNITY,
        opportunity_id=oid,
        field="id",
        raw=raw,
        message=f"The memo explains '{oid}' more than once (opportunities_explained"
        f"[{first}] and [{position}]): both entries are graded (this one's blocks "
        f"as narrative{suffix} ...); merge them into one.",
    )


def _dropped(oid: str, t: _OppTally) -> Finding:
    why = (
        "has only empty prose blocks in the memo"
        if t.seen
        else "is missing from the memo's opportunities_explained"
    )
    return Finding(
        kind=FindingKind.DROPPED_OPPORTUNITY,
        opportunity_id=oid,
        field="id",
        raw=oid,
        message=f"Source opportunity {oid} ({t.archetype or 'no archetype'}, "
        f"{t.cohort or 'no cohort'}) {why}: silently dropped.",
    )


def _totals(tallies: dict[str, _OppTally], phantoms: dict[str, _OppTally]) -> Totals:
    everything = [*tallies.values(), *phantoms.values()]
    return Totals(
        figures_total=sum(t.figures_total for t in everything),
        figures_cited=sum(t.figures_cited for t in everything),
        entities_total=sum(t.entities_total for t in everything),
        entities_grounded=sum(t.entities_grounded for t in everything),
        opps_in_source=len(tallies),
        opps_addressed=sum(1 for t in tallies.values() if t.has_prose),
    )


def _scores(totals: Totals, consistency: float) -> Scores:
    return Scores(
        citation_accuracy=_ratio(totals.figures_cited, totals.figures_total, 1.0),
        hallucination_rate=_ratio(
            totals.entities_total - totals.entities_grounded, totals.entities_total, 0.0
        ),
        coverage=_ratio(totals.opps_addressed, totals.opps_in_source, 1.0),
        consistency=consistency,
    )


def _resolve(
    oid: str, index: dict[str, int], by_folded: dict[str, list[str]]
) -> tuple[str, int | None, str | None]:
    """(source id, its index or None for a phantom, the memo's id if it matched only when
    case is ignored) for a memo opportunity id (already stripped by the model)."""
    own = index.get(oid)
    case_match = None
    if own is None:
        same = by_folded.get(oid.casefold(), ())
        if len(same) == 1:  # unambiguous: "OPP_01" for "opp_01"
            case_match, oid = oid, same[0]
            own = index[oid]
    return oid, own, case_match


def _ratio(num: int, den: int, empty: float) -> float:
    return num / den if den else empty


def _row(oid: str, t: _OppTally, *, in_source: bool) -> OpportunityRow:
    return OpportunityRow(
        id=oid,
        archetype=t.archetype,
        cohort=t.cohort,
        in_source=in_source,
        addressed=in_source and t.has_prose,
        figures_total=t.figures_total,
        figures_cited=t.figures_cited,
        entities_total=t.entities_total,
        entities_grounded=t.entities_grounded,
        findings=t.findings,
    )
