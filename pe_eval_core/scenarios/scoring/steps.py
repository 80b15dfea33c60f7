"""The deterministic steps of scoring one response, each returning data: strict matching, the
paraphrase rules, numeric ranges, excluded phrases; and the working records they fill in
(plain slots dataclasses, no validation, turned into results once at the end)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pe_eval_core.scenarios.models import (
    ExpectationResult,
    JudgeOutcome,
    Method,
    NumericRange,
    NumericResult,
)
from pe_eval_core.scenarios.scoring.assertions import check_contains, check_excluded, check_span
from pe_eval_core.scenarios.scoring.behaviour import Behaviour, claim_unjudged
from pe_eval_core.scenarios.scoring.checks import failure_reasons, passes
from pe_eval_core.scenarios.scoring.paraphrase import ResponseView, rule_match
from pe_eval_core.scenarios.scoring.range_reader import Kind, judge, nearest, readings
from pe_eval_core.text_norm import normalize


@dataclass(slots=True)
class Expectation:
    """One ``response_contains`` entry while it is scored; becomes an ``ExpectationResult``."""

    text: str
    method: Method | None = None
    satisfied: bool = False
    evidence: str = ""
    note: str = ""
    judge_model: str | None = None
    judge_prompt_version: str | None = None
    judge_source: str | None = None
    negated: bool = False
    """A strict match found only in negated sentences: only the judge may accept it."""

    def fields(self) -> dict[str, object]:
        """The ``ExpectationResult`` fields, for pydantic to validate inside the result."""
        return {
            "text": self.text,
            "method": self.method,
            "satisfied": self.satisfied,
            "evidence": self.evidence,
            "note": self.note,
            "judge_model": self.judge_model,
            "judge_prompt_version": self.judge_prompt_version,
            "judge_source": self.judge_source,
        }

    def result(self) -> ExpectationResult:
        return ExpectationResult.model_validate(self.fields())


@dataclass(slots=True)
class Judged:
    """What asking (or not asking) the judge produced."""

    outcome: JudgeOutcome | None = None
    error: str | None = None
    numbers: list[float] | None = None
    """Every number in the response, when the judge step had to read them all."""


@dataclass(slots=True)
class Decision:
    """The facts the pass rule needs besides the expectation counts."""

    total: int
    numeric_checks: Sequence[NumericResult]
    hits: list[str]
    latency_failed: bool
    notes: list[str] = field(default_factory=list)
    """How negated excluded hits were decided (shown in the result's ``notes``)."""
    behaviour: list[Behaviour] = field(default_factory=list)
    """The behaviour checks; judge claims are pending until the judge (or its absence) decides."""

    def reasons(self, satisfied: int, reachable: int) -> list[str]:
        """Why the scenario fails even if ``reachable`` more expectations were met (and every
        pending judge claim were met)."""
        return failure_reasons(
            satisfied=satisfied,
            reachable=reachable,
            total=self.total,
            numeric_checks=self.numeric_checks,
            hits=self.hits,
            latency_failed=self.latency_failed,
            behaviour_failed=[b.label for b in self.behaviour if not b.pending and not b.satisfied],
        )

    def passes(self, satisfied: int) -> bool:
        return passes(
            satisfied=satisfied,
            total=self.total,
            numeric_checks=self.numeric_checks,
            hits=self.hits,
            latency_failed=self.latency_failed,
            behaviour_failed=[b.label for b in self.behaviour if not b.satisfied],
        )

    @property
    def claims(self) -> list[Behaviour]:
        return [b for b in self.behaviour if b.pending]

    def close_claims(self, why: str) -> None:
        """Fail every still-pending judge claim with ``why`` (fail closed)."""
        for b in self.claims:
            claim_unjudged(b, why)


def strict_check(
    expected: Sequence[str], text: str, as_shown: str | None = None
) -> list[Expectation]:
    """Strict matching (``assertions.check_contains``): case-insensitive, word-bounded; a
    match whose sentence is negated is left a candidate for the judge, with a note."""
    out = []
    shown = as_shown_text(text) if as_shown is None else as_shown
    for wanted in expected:
        check = check_contains(text, wanted)
        if check.verdict != "satisfied" and shown != text:
            check = check_contains(shown, wanted)  # the phrase as a reader sees it
        if check.verdict == "satisfied" and check.hit is not None:
            out.append(Expectation(wanted, "strict", True, check.hit.text))
        elif check.verdict == "needs judge":
            note = f"strict match negated: {check.reason}"
            out.append(Expectation(wanted, note=note, negated=True))
        else:
            out.append(Expectation(wanted))
    return out


def rule_check(found: list[Expectation], view: ResponseView) -> list[int]:
    """The deterministic paraphrase rules on the strict misses; returns those still missed.

    A rule's match is checked like a strict one (``assertions.check_span``): a span that cuts
    a word is no match; a span in a negated sentence is left for the judge. A strict match
    that was negated skips the rules (only the judge may accept it)."""
    remaining = []
    for i, e in enumerate(found):
        if e.satisfied:
            continue
        if e.negated:  # a negated strict match: the judge decides
            remaining.append(i)
            continue
        match = rule_match(e.text, view)
        if match is None:
            remaining.append(i)
            continue
        start = view.text.find(match.evidence)
        check = check_span(view.text, e.text, start, start + len(match.evidence))
        if check.verdict == "satisfied":
            found[i] = Expectation(e.text, "rule", True, match.evidence, match.rule)
        else:
            if check.verdict == "needs judge":
                e.note = f"rule {match.rule} matched {match.evidence!r}, but {check.reason}"
                e.negated = True
            remaining.append(i)
    return remaining


_KIND_TEXT = {k: k.value for k in Kind}
"""A reading's kind as stored (``"quantity"``), looked up per number without the enum."""


def numeric_check(
    text: str, ranges: Sequence[NumericRange], as_shown: str | None = None
) -> list[NumericResult]:
    """The numeric ranges, read with meaning (``range_reader.judge``, the decision
    ``read_range`` makes): each result carries every number the reader saw and why the
    matched one was accepted. The numbers stay plain data until the result is built (no
    per-range copy of each reading), and loss words are looked for only when a range needs
    them (a max at most 0)."""
    if not ranges:
        return []
    text = as_shown_text(text) if as_shown is None else as_shown  # hidden figures are read
    numbers = readings(text, loss_words=any(float(r.max) <= 0 for r in ranges))
    quantity = Kind.QUANTITY
    out = []
    for rng in ranges:
        decisions = judge(numbers, rng)
        hit = next((i for i, d in enumerate(decisions) if d[0]), None)
        m = numbers[hit] if hit is not None else None
        read_as = decisions[hit][1] if hit is not None else None
        out.append(
            NumericResult(
                field=rng.field,
                min=rng.min,
                max=rng.max,
                satisfied=hit is not None,
                matched=read_as,
                nearest=None
                if hit is not None  # (the quantities are listed only for a missed range)
                else nearest([n.value for n in numbers if n.kind is quantity], rng.min, rng.max),
                matched_text=m.raw if m is not None else None,
                read_as=read_as,
                reason=decisions[hit][2] if hit is not None else "out of range",
                read=[
                    {
                        "raw": n.raw,
                        "value": n.value,
                        "kind": _KIND_TEXT[n.kind],
                        "accepted": accepted,
                        "read_as": value,
                        "reason": reason,
                    }
                    for n, (accepted, value, reason) in zip(numbers, decisions, strict=True)
                ],
            )
        )
    return out


def excluded_check(
    text: str, excludes: Sequence[str], judged: bool, as_shown: str | None = None
) -> tuple[list[str], list[str]]:
    """``response_excludes`` (``assertions.check_excluded``): the phrases asserted (fail the
    scenario) and those hit only inside negated sentences (for the judge; with no judge they
    are asserted: fail closed)."""
    hits, pending = [], []
    shown = as_shown_text(text) if as_shown is None else as_shown
    for phrase in excludes:
        check = check_excluded(text, phrase, judge=judged)
        if check.verdict != "asserted" and shown != text:
            seen = check_excluded(shown, phrase, judge=judged)  # hidden by invisible characters
            check = seen if seen.verdict != "absent" else check
        if check.verdict == "asserted":
            hits.append(phrase)
        elif check.verdict == "needs judge":
            pending.append(phrase)
    return hits, pending


def as_shown_text(text: str) -> str:
    """The response as a reader sees it (``text_norm.normalize``: zero-width and bidi
    characters removed, look-alikes folded, references decoded). The phrase checks read the
    text as written, then this on a miss; the range check reads this: a phrase or figure hidden
    by a zero-width space is still seen. The scorer computes it once per response."""
    return normalize(text).text
