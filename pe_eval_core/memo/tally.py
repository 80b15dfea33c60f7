"""Per-opportunity tallies of one grading pass, the memo-level findings (phantom, dropped,
duplicate, case, portco, empty slot, unreadable figure) and the totals, scores and rows built
from them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pe_eval_core.memo.result import Finding, FindingKind, OpportunityRow, Scores, Totals

if TYPE_CHECKING:
    from pe_eval_core.numbers import Figure


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


def _placeholder(opp_id: str, name: str, slot: re.Match[str]) -> Finding:
    return Finding(
        kind=FindingKind.EMPTY_PLACEHOLDER,
        opportunity_id=opp_id,
        field=name,
        start=slot.start(),
        end=slot.end(),
        raw=slot.group(),
        message=f"'{slot.group()}' in {opp_id} {name} is an empty value where the prose "
        "expects one (a template slot the producer left unfilled, e.g. a missing action).",
    )


def _unreadable_figure(opp_id: str, name: str, fig: Figure) -> Finding:
    digits = sum(c.isdigit() for c in fig.raw)
    return Finding(
        kind=FindingKind.UNREADABLE_FIGURE,
        opportunity_id=opp_id,
        field=name,
        start=fig.start,
        end=fig.end,
        raw=fig.raw if len(fig.raw) <= 40 else f"{fig.raw[:18]}…{fig.raw[-18:]}",
        message=f"A figure written with {digits:,} digits in {opp_id} {name} is too long to "
        "read as a number: no source value can ground it, so it counts as not cited.",
    )


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
