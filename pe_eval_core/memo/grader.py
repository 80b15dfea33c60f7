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

import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pe_eval_core import limits
from pe_eval_core.limits import exceeded
from pe_eval_core.memo.config import GRADER_VERSION, GraderConfig
from pe_eval_core.memo.consistency import (
    assess_consistency,
    consistency_score,
    header_findings,
)
from pe_eval_core.memo.context import _inside, template_regex
from pe_eval_core.memo.folder_index import FolderIndex
from pe_eval_core.memo.loading import load_pair
from pe_eval_core.memo.models import MemoSidecar
from pe_eval_core.memo.pairs import named_portco
from pe_eval_core.memo.placeholders import find_placeholders
from pe_eval_core.memo.plain_names import PlainNames, plain_names_of, refers_to_others
from pe_eval_core.memo.prose_names import EntityMention, bold_count
from pe_eval_core.memo.reading import ProseReader, Reading, read_kept, written
from pe_eval_core.memo.result import (
    Finding,
    FindingKind,
    Mark,
    MemoEvaluation,
    ProseBlock,
)
from pe_eval_core.memo.roles import field_role
from pe_eval_core.memo.segment_nearest import with_segment_nearest
from pe_eval_core.memo.source_names import SEGMENT_VALUE, EntityUniverse, SourceEntity
from pe_eval_core.memo.source_numbers import FigureMatch, NumericUniverse, SourceField
from pe_eval_core.memo.tally import (
    _case_mismatch,
    _dropped,
    _duplicate,
    _file_name_mismatch,
    _OppTally,
    _phantom,
    _placeholder,
    _portco_mismatch,
    _row,
    _scores,
    _totals,
    _unreadable_figure,
)
from pe_eval_core.numbers import DEFAULT_COUNT_NOUNS, Figure
from pe_eval_core.wording import fmt_number

_COUNT_START = frozenset("0123456789-+\u2212")
_MARK_STATUS = {"grounded": "grounded", "misattributed": "misattributed", "derived": "derived"}
"""A figure's mark status by match status (a sign mismatch is ungrounded)."""

_Parsed = Reading
"""A block as read (``memo.reading``): figures, mentions, template spans, names, unreadable."""
_Lookup = tuple[str, SourceEntity | None]
_Verdicts = tuple[list[FigureMatch | str], list[_Lookup]]
"""Per figure its match, or the template phrase exempting it; per mention its lookup."""


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
    reader: ProseReader = field(init=False)
    """The one reading of prose (normalised, spans as written): ``memo.reading``."""

    def __post_init__(self) -> None:
        markers = self.config.section_markers
        self.reader = ProseReader(self.count_nouns, tuple(markers), self.templates, self.plain)

    def grade_block(self, opp_id: str, own: int | None, name: str, text: str, t: _OppTally) -> None:
        """Grade one prose block: parse it, match what it cites, tally the verdicts."""
        self.prose.append(ProseBlock(opp_id, name, text))
        if not text.strip():
            return
        t.has_prose = True
        parsed = self._take_parse(text)
        matches, lookups = self._verdicts(parsed, own)
        figures, mentions, exempt, _, unreadable = parsed
        for fig, found in zip(figures, matches, strict=True):
            if isinstance(found, str):  # inside a template constant
                self._exempt(opp_id, name, fig, found, t)
            else:
                self._figure(opp_id, own, name, fig, t, found, written(text, fig))
        for fig in unreadable:
            self._unreadable(opp_id, name, fig, t)
        for mention, lookup in zip(mentions, lookups, strict=True):
            count = self._count_label(mention, lookup)
            if count is None:
                self._entity(opp_id, name, mention, lookup, t)
                continue
            if exempt is None:
                exempt = self.reader.exempt_spans(text)
            reason = _inside(exempt, count.start, count.end)
            if reason is not None:
                self._exempt(opp_id, name, count, reason, t)
            else:
                self._figure(opp_id, own, name, count, t)
        if self.plain is not None:
            self._plain_names(self.plain, opp_id, own, name, text, parsed, t)
        for slot in find_placeholders(text):
            self._finding(t, _placeholder(opp_id, name, slot))

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
        figures, mentions, _, names, _ = parsed
        if not names:
            return
        taken = [(m.start, m.end) for m in mentions] + [(f.start, f.end) for f in figures]
        for mention in names:
            if any(a < mention.end and mention.start < b for a, b in taken):
                continue  # read as a bold name or a figure already
            category = mention.category or SEGMENT_VALUE
            found = self.entities.lookup(mention.key or mention.text, own, category)
            if found[0] == "misattributed" and refers_to_others(text, mention.start, mention.end):
                continue  # "in parallel with the Affiliate_B cohorts": other cohorts, named
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
        """A block as read (``ProseReader.read``), remembered by text: producers repeat whole
        blocks (section templates), and its reading depends on nothing but the text and the
        reader (``read_kept``: kept across memos too)."""
        parsed = read_kept(self.reader, text)
        self._parsed[text] = parsed
        return parsed

    def _verdicts(self, parsed: _Parsed, own: int | None) -> _Verdicts:
        """A parsed block's figure matches (the template phrase for a figure inside a
        template constant) and entity lookups, in order, for opportunity ``own``'s prose."""
        figures, mentions, exempt, _, _ = parsed
        match, config = self.numbers.match, self.config
        matches: list[FigureMatch | str] = []
        for f in figures:
            phrase = _inside(exempt, f.start, f.end) if exempt else None
            matches.append(match(f, own, config) if phrase is None else phrase)
        lookup = self.entities.lookup
        return matches, [lookup(m.key or m.text, own, m.category) for m in mentions]

    def parse_all(self, texts: list[str]) -> None:
        """``_parse`` every distinct non-blank text up front, and count the blocks of each
        text (so ``_take_parse`` can forget a parse after its last use)."""
        uses = self._uses
        for t in texts:
            uses[t] = uses.get(t, 0) + 1
        cited = 0  # figures and entities over every block, repeats included
        for text, n in uses.items():
            if text not in self._parsed and text.strip():
                figures, mentions, _, _, unreadable = self._parse(text)
                cited += n * (len(figures) + len(mentions) + len(unreadable))
                exceeded(
                    limits.FIGURES,
                    where=self.where,
                    field="opportunities_explained",
                    got=cited,
                    input="memo",
                )

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
        as_written: str | None = None,
    ) -> None:
        """Tally one counted figure: its mark, and a finding unless it is grounded (saying how
        it is written when hidden or look-alike characters disguise it: ``as_written``)."""
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
            finding = self._figure_finding(opp_id, name, fig, match)
            if as_written is not None:
                note = f" It is written '{as_written}' (disguised characters), read as {fig.raw}."
                finding = finding.model_copy(update={"message": finding.message + note})
            self._finding(t, finding)

    def _unreadable(self, opp_id: str, name: str, fig: Figure, t: _OppTally) -> None:
        """A figure too long for any value: counted, not cited, marked and named."""
        t.figures_total += 1
        kind = fig.kind.value
        self.marks.append(
            Mark(opp_id, name, fig.start, fig.end, fig.raw, "figure", "ungrounded", kind)
        )
        self._finding(t, _unreadable_figure(opp_id, name, fig))

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
        if match.status == "wrong_quantity" and f is not None:
            return self._wrong_quantity(where, fig, match, f)
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

    def _wrong_quantity(
        self, where: dict[str, object], fig: Figure, match: FigureMatch, f: SourceField
    ) -> Finding:
        """A figure whose wording claims one quantity and whose value is another's."""
        e = match.expected
        claimed = fig.claim.replace("_", " ")
        own = (
            f" Its {claimed} field {e.path} is {_fmt(e)}."
            if e is not None
            else f" The source has no {claimed} field for it."
        )
        return Finding.model_validate(
            where
            | {
                "kind": FindingKind.WRONG_QUANTITY,
                "other_opportunity_id": self._opp_id(f)
                if self._opp_id(f) != where["opportunity_id"]
                else None,
                "expected_path": e.path if e is not None else None,
                "expected_value": e.raw_value if e is not None else None,
                "message": f"{fig.raw} is worded as a {claimed} but its value is {f.path} "
                f"({_fmt(f)}), a {_role_name(f)}: the memo states the wrong quantity.{own}",
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


def _role_name(f: SourceField) -> str:
    return field_role(f.path, f.unit).value.replace("_", " ")


def _shown(f: SourceField | None) -> float | None:
    """The source value as stored (a 0.123 fraction stays 0.123)."""
    return f.raw_value if f is not None else None


def _fmt(f: SourceField) -> str:
    """The source value as every surface prints one (``wording.fmt_number``)."""
    return fmt_number(f.raw_value)


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
        plain=plain_names_of(source, pair.source_sha256) if config.plain_names else None,
    )
    tallies = {
        o.id: _OppTally(archetype=o.archetype, cohort=o.cohort) for o in source.opportunities
    }
    if memo.portco_id != source.portco_id:
        run._finding(None, _portco_mismatch(memo.portco_id, source.portco_id))
    if not named_portco(Path(memo_path).name, memo.portco_id):
        run._finding(None, _file_name_mismatch(Path(memo_path).name, memo.portco_id))
    for finding in header_findings(memo, source, config):
        run._finding(None, finding)
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
        findings=with_segment_nearest(run.findings, run.prose, source),
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
