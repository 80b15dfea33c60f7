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

import gc
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pe_eval_core.memo.config import GRADER_VERSION, GraderConfig, TemplateConstant
from pe_eval_core.memo.consistency import assess_consistency, consistency_score
from pe_eval_core.memo.loading import load_pair
from pe_eval_core.memo.prose_names import EntityMention, bold_count, extract_entities
from pe_eval_core.memo.result import (
    Finding,
    FindingKind,
    Mark,
    MemoEvaluation,
    OpportunityRow,
    ProseBlock,
    Scores,
    Totals,
    new_mark,
    new_prose_block,
)
from pe_eval_core.memo.source_names import EntityUniverse, SourceEntity
from pe_eval_core.memo.source_numbers import FigureMatch, NumericUniverse, SourceField
from pe_eval_core.numbers import DEFAULT_COUNT_NOUNS, Figure, FigureKind, extract_figures

_DIGIT = re.compile(r"\d")
_COUNT_START = frozenset("0123456789-+\u2212")
_MARK_STATUS = {"grounded": "grounded", "misattributed": "misattributed"}
"""A figure's mark status by match status (a sign mismatch is ungrounded)."""
_KIND_VALUE = {kind: kind.value for kind in FigureKind}

_Parsed = tuple[list[Figure], list[EntityMention], list[tuple[int, int, str]] | None]
_Verdicts = tuple[list[FigureMatch | None], list[tuple[str, SourceEntity | None]]]


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
    findings: list[Finding] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    prose: list[ProseBlock] = field(default_factory=list)
    _parsed: dict[str, _Parsed] = field(default_factory=dict)
    _uses: dict[str, int] = field(default_factory=dict)
    """Blocks still to grade per text parsed by ``parse_all``."""

    def grade_block(self, opp_id: str, own: int | None, name: str, text: str, t: _OppTally) -> None:
        """Grade one prose block: its figures (exempt or matched), then its entities."""
        self.prose.append(new_prose_block(opp_id, name, text))
        if not text.strip():
            return
        t.has_prose = True
        parsed = self._parsed.get(text)
        if parsed is None:
            parsed = self._parse(text)
        uses = self._uses.get(text)
        if uses is not None:  # forget a parse once its last block is graded (peak memory)
            if uses > 1:
                self._uses[text] = uses - 1
            else:
                del self._uses[text], self._parsed[text]
        figures, mentions, exempt = parsed
        matches, lookups = self._verdicts(parsed, own)
        marks = self.marks
        if figures:
            grounded = 0
            for fig, found in zip(figures, matches, strict=True):
                if found is None:  # inside a template constant
                    self._exempt(opp_id, name, fig, _inside(exempt, fig.start, fig.end), t)
                    continue
                if found[0] == "grounded":  # the common case, inlined (see ``_figure``)
                    f = found[1]
                    grounded += 1
                    marks.append(
                        new_mark(
                            opp_id,
                            name,
                            fig.start,
                            fig.end,
                            fig.raw,
                            "figure",
                            "grounded",
                            _KIND_VALUE[fig.kind],
                            f.path,
                            f.raw_value,
                        )
                    )
                else:
                    self._figure(opp_id, own, name, fig, t, found)
            t.figures_total += grounded
            t.figures_cited += grounded
        if not mentions:
            return
        entity = self._entity
        for mention, found in zip(mentions, lookups, strict=True):
            text_, start, end, category = mention
            if found[0] == "grounded":  # the common case, inlined (see ``_entity``)
                ent = found[1]
                t.entities_total += 1
                t.entities_grounded += 1
                marks.append(
                    new_mark(
                        opp_id,
                        name,
                        start,
                        end,
                        text_,
                        "entity",
                        "grounded",
                        category or ent.category,
                        ent.path,
                        ent.text,
                    )
                )
                continue
            if found[0] == "ungrounded" and mention.category is None:
                # "**3,914 mortgages**" names no source entity (a segment value such as
                # "360 months" would) but the figure parser reads it as a count of its noun.
                fig = bold_count(mention) if mention.text[:1] in _COUNT_START else None
                if fig is not None:
                    if exempt is None:
                        exempt = self._exempt_spans(text)
                    reason = _inside(exempt, fig.start, fig.end)
                    if reason is not None:
                        self._exempt(opp_id, name, fig, reason, t)
                    else:
                        self._figure(opp_id, own, name, fig, t)
                    continue
            entity(opp_id, name, mention, found, t)

    def _parse(self, text: str) -> _Parsed:
        """A block's figures, entity mentions and template spans (None: not looked for, as
        there is no figure), remembered by text: producers repeat whole blocks (section
        templates), and all three depend on nothing but the text and the configuration."""
        figures = extract_figures(text, self.count_nouns) if _DIGIT.search(text) else []
        mentions = extract_entities(text, figures, self.config.section_markers)
        exempt = self._exempt_spans(text) if figures else None
        parsed = (figures, mentions, exempt)
        self._parsed[text] = parsed
        return parsed

    def _verdicts(self, parsed: _Parsed, own: int | None) -> _Verdicts:
        """A parsed block's figure matches (None for a figure inside a template constant)
        and entity lookups, in order, for opportunity ``own``'s prose."""
        figures, mentions, exempt = parsed
        match, config = self.numbers.match, self.config
        if exempt:
            matches = [
                None if _inside(exempt, f.start, f.end) is not None else match(f, own, config)
                for f in figures
            ]
        else:
            matches = [match(f, own, config) for f in figures]
        lookup = self.entities.lookup
        return matches, [lookup(m[0], own, m[3]) for m in mentions]

    def parse_all(self, texts: list[str]) -> None:
        """``_parse`` every distinct non-blank text, one kind of scan at a time, and count
        the blocks of each text: the same results, but each pass keeps its own code and data
        hot (parsing block by block, interleaved with the matching, made a 10,000-opportunity
        grade about a quarter slower)."""
        uses = self._uses
        for t in texts:
            uses[t] = uses.get(t, 0) + 1
        todo = [t for t in uses if t not in self._parsed and t.strip()]
        nouns, digit = self.count_nouns, _DIGIT.search
        all_figures = [extract_figures(t, nouns) if digit(t) else [] for t in todo]
        markers = self.config.section_markers
        all_mentions = [
            extract_entities(t, f, markers) for t, f in zip(todo, all_figures, strict=True)
        ]
        exempt_spans = self._exempt_spans
        for text, figures, mentions in zip(todo, all_figures, all_mentions, strict=True):
            self._parsed[text] = (figures, mentions, exempt_spans(text) if figures else None)

    def _exempt_spans(self, text: str) -> list[tuple[int, int, str]]:
        if self.templates is None:
            return []
        spans = []
        for m in self.templates.finditer(text):
            spans.append((m.start(), m.end(), m.group()))
        return spans

    def _exempt(self, opp_id: str, name: str, fig: Figure, phrase: str, t: _OppTally) -> None:
        self.marks.append(
            new_mark(
                opp_id,
                name,
                fig.start,
                fig.end,
                fig.raw,
                "figure",
                "exempt",
                fig.kind.value,
                None,
                None,
            )
        )
        self._finding(
            t,
            kind=FindingKind.TEMPLATE_EXEMPT,
            opportunity_id=opp_id,
            field=name,
            start=fig.start,
            end=fig.end,
            raw=fig.raw,
            message=f"{fig.raw} is part of the template wording '{phrase}': a recommendation "
            "parameter, not a citation; shown, not counted.",
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
        t.figures_total += 1
        if match is None:
            match = self.numbers.match(fig, own, self.config)
        f = match[1]
        status = _MARK_STATUS.get(match[0], "ungrounded")
        if status != "ungrounded":
            t.figures_cited += 1
        # Positional (Mark's field order): a long memo builds tens of thousands of marks.
        self.marks.append(
            new_mark(
                opp_id,
                name,
                fig.start,
                fig.end,
                fig.raw,
                "figure",
                status,
                _KIND_VALUE[fig.kind],
                f.path if f else None,
                f.raw_value if f else None,
            )
        )
        if status == "grounded":
            return
        common = dict(
            opportunity_id=opp_id,
            field=name,
            start=fig.start,
            end=fig.end,
            raw=fig.raw,
            nearest_value=_shown(f),
            nearest_path=f.path if f else None,
        )
        if match.status == "misattributed":
            other = self._opp_id(f)
            self._finding(
                t,
                kind=FindingKind.MISATTRIBUTED_FIGURE,
                other_opportunity_id=other,
                message=f"{fig.raw} in {opp_id} matches only {other}'s field {f.path} "
                f"({_fmt(f)}): cited, but attributed to the wrong opportunity.",
                **common,
            )
        elif match.status == "sign":
            self._finding(
                t,
                kind=FindingKind.SIGN_MISMATCH,
                other_opportunity_id=self._opp_id(f) if self._opp_id(f) != opp_id else None,
                message=f"{fig.raw} is stated as negative but the source value at {f.path} is "
                f"positive ({_fmt(f)}).",
                **common,
            )
        else:
            near = f" (nearest {fig.kind.value} field: {f.path} = {_fmt(f)})" if f else ""
            self._finding(
                t,
                kind=FindingKind.UNGROUNDED_FIGURE,
                message=f"{fig.raw} in {opp_id} {name} traces to no source field of kind "
                f"{fig.kind.value} within tolerance{near}.",
                **common,
            )

    def _entity(
        self,
        opp_id: str,
        name: str,
        mention: EntityMention,
        found: tuple[str, SourceEntity | None],
        t: _OppTally,
    ) -> None:
        text, start, end, category = mention
        status, ent = found
        t.entities_total += 1
        if status != "ungrounded":
            t.entities_grounded += 1
        self.marks.append(
            new_mark(
                opp_id,
                name,
                start,
                end,
                text,
                "entity",
                status,
                category or (ent.category if ent else ""),
                ent.path if ent else None,
                ent.text if ent else None,
            )
        )
        if status == "misattributed" and ent is not None:
            other = self.opp_ids[ent.opp] if ent.opp is not None else None
            self._finding(
                t,
                kind=FindingKind.MISATTRIBUTED_ENTITY,
                opportunity_id=opp_id,
                field=name,
                start=start,
                end=end,
                raw=text,
                nearest_value=ent.text,
                nearest_path=ent.path,
                other_opportunity_id=other,
                message=f"'{text}' in {opp_id} is {other}'s {ent.category} ({ent.path}), "
                f"not {opp_id}'s: attributed to the wrong opportunity.",
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
                kind=FindingKind.UNGROUNDED_ENTITY,
                opportunity_id=opp_id,
                field=name,
                start=start,
                end=end,
                raw=text,
                message=f"'{text}' in {opp_id} {name} {scope}.",
            )

    def _finding(self, t: _OppTally | None, **kwargs: object) -> None:
        self.findings.append(Finding(**kwargs))  # type: ignore[arg-type]
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


def _inside(spans: list[tuple[int, int, str]], start: int, end: int) -> str | None:
    for s, e, text in spans:  # a handful of template matches per block at most
        if s <= start and end <= e:
            return text
    return None


def grade_memo(
    memo_path: str | os.PathLike[str],
    source_path: str | os.PathLike[str],
    *,
    config: GraderConfig | None = None,
) -> MemoEvaluation:
    """Grade the memo sidecar at ``memo_path`` against the OpportunityMap at ``source_path``.

    Raises the seed's typed errors (``MemoNotFoundError``, ``MalformedSourceError``,
    ``MemoSchemaError``, ``EmptyMemoError`` ...) on bad input; writes nothing.
    """
    with gc_paused():
        return _grade(memo_path, source_path, config or GraderConfig())


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while grading: the grader allocates many small objects and no
    cycles, and generation sweeps over them cost about a fifth of the run (see the bench)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _grade(
    memo_path: str | os.PathLike[str], source_path: str | os.PathLike[str], config: GraderConfig
) -> MemoEvaluation:
    pair = load_pair(memo_path, source_path)
    memo, source = pair.memo, pair.source
    opp_ids = [o.id for o in source.opportunities]
    index = {oid: i for i, oid in enumerate(opp_ids)}
    run = _Run(
        config=config,
        numbers=NumericUniverse(source),
        entities=EntityUniverse(source),
        opp_ids=opp_ids,
        templates=template_regex(config.template_constants),
        count_nouns=config.count_nouns if config.count_nouns is not None else DEFAULT_COUNT_NOUNS,
    )
    tallies: dict[str, _OppTally] = {
        o.id: _OppTally(archetype=o.archetype, cohort=o.cohort) for o in source.opportunities
    }
    phantoms: dict[str, _OppTally] = {}

    if memo.portco_id != source.portco_id:
        run._finding(
            None,
            kind=FindingKind.PORTCO_MISMATCH,
            field="portco_id",
            raw=memo.portco_id,
            nearest_value=source.portco_id,
            nearest_path="portco_id",
            message=f"The memo is about '{memo.portco_id}' but the source is "
            f"'{source.portco_id}': check that the right OpportunityMap was passed.",
        )

    by_folded: dict[str, list[str]] = {}
    for oid in opp_ids:
        by_folded.setdefault(oid.casefold(), []).append(oid)
    # Every distinct block is parsed first, in one pass, then graded: the same work, but
    # each phase runs its own code on its own data (interleaving regex scans with matching
    # costs more than either alone, see the bench).
    fields = config.prose_fields
    explained = memo.opportunities_explained
    texts = [[opp.prose(name) for name in fields] for opp in explained]
    run.parse_all([text for block in texts for text in block])

    entries: dict[str, list[int]] = {}
    for position, opp in enumerate(explained):
        oid, own, case_match = _resolve(opp.id, index, by_folded)
        if own is None:
            t = phantoms.get(oid)
            if t is None:
                t = phantoms[oid] = _OppTally(archetype=opp.archetype, cohort=opp.cohort)
                run._finding(
                    t,
                    kind=FindingKind.PHANTOM_OPPORTUNITY,
                    opportunity_id=oid,
                    field="id",
                    raw=oid,
                    message=f"The memo explains '{oid}', which is not an opportunity in the "
                    "source: invented, or explained from a different OpportunityMap.",
                )
        else:
            t = tallies[oid]
        if case_match is not None:
            run._finding(
                t,
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
        seen_at = entries.setdefault(oid, [])
        seen_at.append(position)
        suffix = f"#{len(seen_at)}" if len(seen_at) > 1 else ""
        if suffix:
            run._finding(
                t,
                kind=FindingKind.DUPLICATE_OPPORTUNITY,
                opportunity_id=oid,
                field="id",
                raw=opp.id,
                message=f"The memo explains '{oid}' more than once (opportunities_explained"
                f"[{seen_at[0]}] and [{position}]): both entries are graded (this one's blocks "
                f"as narrative{suffix} ...); merge them into one.",
            )
        t.seen = True
        for name, text in zip(fields, texts[position], strict=True):
            run.grade_block(oid, own, name + suffix, text, t)
        if own is not None:  # keep memory flat: one opportunity's scope at a time
            run.numbers.release(own)
            run.entities.release(own)

    for oid, t in tallies.items():
        if not t.has_prose:
            why = (
                "has only empty prose blocks in the memo"
                if t.seen
                else "is missing from the memo's opportunities_explained"
            )
            run._finding(
                t,
                kind=FindingKind.DROPPED_OPPORTUNITY,
                opportunity_id=oid,
                field="id",
                raw=oid,
                message=f"Source opportunity {oid} ({t.archetype or 'no archetype'}, "
                f"{t.cohort or 'no cohort'}) {why}: silently dropped.",
            )

    consistency, cons_findings = assess_consistency(memo, pair.memo_path, source, config)
    run.findings.extend(cons_findings)

    rows = [_row(oid, t, in_source=True) for oid, t in tallies.items()]
    rows += [_row(oid, t, in_source=False) for oid, t in phantoms.items()]
    everything = list(tallies.values()) + list(phantoms.values())
    totals = Totals(
        figures_total=sum(t.figures_total for t in everything),
        figures_cited=sum(t.figures_cited for t in everything),
        entities_total=sum(t.entities_total for t in everything),
        entities_grounded=sum(t.entities_grounded for t in everything),
        opps_in_source=len(tallies),
        opps_addressed=sum(1 for t in tallies.values() if t.has_prose),
    )
    scores = Scores(
        citation_accuracy=_ratio(totals.figures_cited, totals.figures_total, 1.0),
        hallucination_rate=_ratio(
            totals.entities_total - totals.entities_grounded, totals.entities_total, 0.0
        ),
        coverage=_ratio(totals.opps_addressed, totals.opps_in_source, 1.0),
        consistency=consistency_score(consistency),
    )
    return MemoEvaluation(
        portco_id=memo.portco_id,
        audience=memo.audience,
        memo_path=str(Path(memo_path).resolve()),
        source_path=str(Path(source_path).resolve()),
        memo_sha256=pair.memo_sha256,
        source_sha256=pair.source_sha256,
        grader_version=GRADER_VERSION,
        evaluated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        scores=scores,
        totals=totals,
        opportunities=rows,
        findings=run.findings,
        marks=run.marks,
        consistency=consistency,
        prose=run.prose,
        config=config,
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
