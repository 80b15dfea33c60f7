"""Score one response against one scenario: strict, rules, judge, numeric, excludes, latency.

The pass rule is the seed's, exactly: (strict + paraphrase) / total >= 0.8 and every numeric
range satisfied; plus no excluded phrase present (and, with ``enforce_latency``, the latency
budget met). A scenario that asserts nothing is an error, not a pass.

The judge is asked only when its verdict could decide pass or fail: a scenario that fails
anyway (a numeric range missed, an excluded phrase present, an enforced latency budget
exceeded) makes no judge call and fails with its candidate misses left missed. When the judge
is asked and fails, the scenario is ``judge error`` (never a silent pass) unless no verdict
could have passed it: too many misses to reach 0.8 even if every candidate a judge could
accept were a paraphrase (a candidate whose numbers the response states nowhere cannot be
accepted: the evidence check downgrades it). That scenario is a plain ``fail``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pe_eval_core.errors import JudgeError
from pe_eval_core.limits import scoring_work_text
from pe_eval_core.scenarios.assertions import (
    check_contains,
    check_excluded,
    check_span,
    negation_cues,
    negation_scoping,
)
from pe_eval_core.scenarios.behaviour import (
    Behaviour,
    apply_claim_verdict,
    behaviour_checks,
    claim_unjudged,
)
from pe_eval_core.scenarios.checks import (
    failure_reasons,
    latency_exceeded,
    passes,
    write_attempt_failure,
)
from pe_eval_core.scenarios.evidence import check_evidence, injection_markers
from pe_eval_core.scenarios.judge import (
    Judge,
    JudgeContext,
    enforce_evidence,
    numbers_never_stated,
)
from pe_eval_core.scenarios.models import (
    ExpectationResult,
    JudgeOutcome,
    JudgeVerdict,
    Method,
    NumberSeen,
    NumericRange,
    NumericResult,
    Scenario,
    ScenarioResult,
    Status,
    TargetResponse,
)
from pe_eval_core.scenarios.paraphrase import ResponseView, rule_match
from pe_eval_core.scenarios.range_reader import NumberRead, read_numbers, read_range
from pe_eval_core.scenarios.trace import ToolTrace, trace_from_tool_calls

JUDGE_SKIPPED = "judge not called: the outcome is already decided"
"""Note on candidate misses left missed because the outcome was decided without the judge."""

JUDGE_MOOT = "judge error ignored: no verdict could make the scenario pass"
"""Note on candidate misses left missed when the judge failed but could not change the fail."""

NO_JUDGE = "no judge (--no-judge): candidate miss left missed"
"""Note on candidate misses left missed because no judge was given."""

NEGATED_NO_JUDGE = "every match is negated; no judge to decide: left missed (fail closed)"
"""Note on a strict or rule match in a negated sentence when no judge was given."""

EXCLUDED_JUDGE_SAYS = "judge: the response asserts it"
EXCLUDED_INJECTION = "negated hit in a response that addresses its grader: counted (fail closed)"

ASSERTS_NOTHING = (
    "scenario asserts nothing: no response_contains, response_excludes, numeric_range or "
    "behaviour check"
)

CLAIM_NO_JUDGE = "no judge (--no-judge): a judge-decided check fails closed"
"""Detail of a judge-decided behaviour check when no judge was given."""


# --- working records (internal: plain slots dataclasses, no validation) ---------------------


@dataclass(slots=True)
class _Expectation:
    """One ``response_contains`` entry while it is scored; becomes an ``ExpectationResult``."""

    text: str
    method: Method | None = None
    satisfied: bool = False
    evidence: str = ""
    note: str = ""
    judge_model: str | None = None
    judge_prompt_version: str | None = None
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
        }

    def result(self) -> ExpectationResult:
        return ExpectationResult.model_validate(self.fields())


@dataclass(slots=True)
class _Judged:
    """What asking (or not asking) the judge produced."""

    outcome: JudgeOutcome | None = None
    error: str | None = None
    numbers: list[float] | None = None
    """Every number in the response, when the judge step had to read them all."""


@dataclass(slots=True)
class _Decision:
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


# --- the checks, each returning data --------------------------------------------------------


def strict_check(expected: Sequence[str], text: str) -> list[_Expectation]:
    """Strict matching (``assertions.check_contains``): case-insensitive, word-bounded; a
    match whose sentence is negated is left a candidate for the judge, with a note."""
    out = []
    for wanted in expected:
        check = check_contains(text, wanted)
        if check.verdict == "satisfied" and check.hit is not None:
            out.append(_Expectation(wanted, "strict", True, check.hit.text))
        elif check.verdict == "needs judge":
            note = f"strict match negated: {check.reason}"
            out.append(_Expectation(wanted, note=note, negated=True))
        else:
            out.append(_Expectation(wanted))
    return out


def rule_check(found: list[_Expectation], view: ResponseView) -> list[int]:
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
            found[i] = _Expectation(e.text, "rule", True, match.evidence, match.rule)
        else:
            if check.verdict == "needs judge":
                e.note = f"rule {match.rule} matched {match.evidence!r}, but {check.reason}"
                e.negated = True
            remaining.append(i)
    return remaining


def _seen(n: NumberRead) -> NumberSeen:
    return NumberSeen(
        raw=n.raw,
        value=n.value,
        kind=n.kind.value,
        accepted=n.accepted,
        read_as=n.read_as,
        reason=n.reason,
    )


def numeric_check(text: str, ranges: Sequence[NumericRange]) -> list[NumericResult]:
    """The numeric ranges, read with meaning (``range_reader.read_range``): each result
    carries every number the reader saw and why the matched one was accepted."""
    if not ranges:
        return []
    numbers = read_numbers(text)
    out = []
    for rng in ranges:
        read = read_range(text, rng, numbers)
        m = read.matched
        out.append(
            NumericResult(
                field=rng.field,
                min=rng.min,
                max=rng.max,
                satisfied=read.satisfied,
                matched=m.read_as if m is not None else None,
                nearest=read.nearest,
                matched_text=m.raw if m is not None else None,
                read_as=m.read_as if m is not None else None,
                reason=m.reason if m is not None else "out of range",
                read=[_seen(n) for n in read.numbers],
            )
        )
    return out


def excluded_check(text: str, excludes: Sequence[str], judged: bool) -> tuple[list[str], list[str]]:
    """``response_excludes`` (``assertions.check_excluded``): the phrases asserted (fail the
    scenario) and those hit only inside negated sentences (for the judge; with no judge they
    are asserted: fail closed)."""
    hits, pending = [], []
    for phrase in excludes:
        check = check_excluded(text, phrase, judge=judged)
        if check.verdict == "asserted":
            hits.append(phrase)
        elif check.verdict == "needs judge":
            pending.append(phrase)
    return hits, pending


async def judge_on_misses(
    judge: Judge | None,
    scenario: Scenario,
    view: ResponseView,
    found: list[_Expectation],
    remaining: list[int],
    decision: _Decision,
    pending: list[str] | None = None,
) -> _Judged:
    """Ask the judge about the remaining candidate misses and the negated excluded hits
    (``pending``), only if its verdict could decide. Updates ``decision.hits`` in place with
    the excluded phrases the judge says the response asserts."""
    pending = pending or []
    if judge is None:
        decision.close_claims(CLAIM_NO_JUDGE)
        for i in remaining:
            if found[i].negated:
                found[i].note = f"{found[i].note}; {NEGATED_NO_JUDGE}"
            elif not found[i].note:
                found[i].note = NO_JUDGE
        return _Judged()
    decided = decision.reasons(len(found) - len(remaining), reachable=len(remaining))
    if decided:
        note = f"{JUDGE_SKIPPED} ({'; '.join(decided)})"
        for i in remaining:
            found[i].note = f"{found[i].note}; {note}" if found[i].note else note
        decision.close_claims(note)
        return _Judged()
    if pending and injection_markers(view.text):
        decision.hits.extend(pending)  # a response that addresses its grader: fail closed
        decision.notes.append(f"{EXCLUDED_INJECTION}: {', '.join(pending)}")
        pending = []
        decided = decision.reasons(len(found) - len(remaining), reachable=len(remaining))
        if decided:
            decision.close_claims(f"{JUDGE_SKIPPED} ({'; '.join(decided)})")
            return _Judged()
    judged = await _ask_judge(judge, scenario, view.text, found, remaining, pending, decision)
    error = judged.error
    if error is not None and not pending:
        _moot_judge_error(judged, view, found, remaining, decision)
    if error is not None:
        decision.close_claims(f"judge error, failed closed: {error}")
    return judged


def _moot_judge_error(
    judged: _Judged,
    view: ResponseView,
    found: list[_Expectation],
    remaining: list[int],
    decision: _Decision,
) -> None:
    """Drop the judge error when no verdict could have passed the scenario anyway.

    A candidate whose numbers the response states nowhere cannot pass: the evidence check
    downgrades every paraphrase of it.
    """
    numbers = [m.value for m in view.mentions]
    judged.numbers = numbers
    unjudged = [i for i in remaining if found[i].judge_model is None]
    unstated = {
        i: missing for i in unjudged if (missing := numbers_never_stated(found[i].text, numbers))
    }
    met = sum(1 for e in found if e.satisfied)
    decided = decision.reasons(met, reachable=len(unjudged) - len(unstated))
    if not decided:
        return
    for i in unjudged:
        never = unstated.get(i)
        found[i].note = (
            f"{JUDGE_MOOT} ({'; '.join(decided)}"
            + (f"; the response states no {', '.join(never)}" if never else "")
            + f"): {judged.error}"
        )
    judged.error = None


def carried(verdict: JudgeVerdict, text: str, *, negated_match: bool = False) -> JudgeVerdict:
    """A ``paraphrase`` stands only when ``evidence.check_evidence`` says its quote carries the
    fact (verbatim, no injection in the response, its numbers, enough content words, not
    negated); otherwise it becomes ``missed`` with the failing step as its reason.

    ``negated_match``: the phrase matched word for word but only in a negated sentence, and
    the judge was asked exactly whether that negation applies. Its ``paraphrase`` then stands
    when the only failing step is a negation cue *outside* the quote, in its sentence (a cue
    inside the quote still fails, and so does a cue that governs the quote: one before it in
    its clause, ``assertions.negation_scoping``).
    """
    if verdict.verdict != "paraphrase":
        return verdict
    check = check_evidence(verdict.expected, verdict.evidence, text)
    if check.carried:
        return verdict
    if (
        negated_match
        and check.negation is not None
        and not negation_cues(verdict.evidence)
        and not negation_cues(verdict.expected)
        and _quote_ungoverned(verdict.evidence, text)
    ):
        return verdict
    reason = f"evidence quote does not carry the fact: {check.reason} (failed closed)"
    if verdict.reason:
        reason += f"; judge said: {verdict.reason}"
    return verdict.model_copy(update={"verdict": "missed", "reason": reason})


def _quote_ungoverned(quote: str, text: str) -> bool:
    """Whether some occurrence of ``quote`` in ``text`` has no negation governing it
    (``assertions.negation_scoping``): "It is NOT the case that <quote>" never stands, even
    when a judge says the negation does not apply."""
    words = quote.split()
    if not words:
        return False
    pattern = re.compile(r"\s+".join(map(re.escape, words)), re.IGNORECASE)
    return any(negation_scoping(text, m.start(), m.end()) is None for m in pattern.finditer(text))


def judge_context(scenario: Scenario) -> JudgeContext:
    """What the judge is told about the scenario: its name, input and goal."""
    return JudgeContext(name=scenario.name, input=scenario.input, goal=scenario.goal)


async def _ask_judge(
    judge: Judge,
    scenario: Scenario,
    text: str,
    found: list[_Expectation],
    remaining: list[int],
    pending: list[str],
    decision: _Decision,
) -> _Judged:
    """One judge call for the remaining candidate misses and the negated excluded hits;
    updates ``found`` and ``decision.hits`` in place."""
    claims = decision.claims
    asked = list(
        dict.fromkeys(
            [found[i].text for i in remaining] + pending + [b.claim for b in claims if b.claim]
        )
    )
    try:
        outcome = await judge.judge(scenario.name, text, asked, context=judge_context(scenario))
    except JudgeError as exc:
        return _Judged(error=str(exc))
    judged = _Judged(outcome=outcome)
    by_text = {v.expected: v for v in outcome.verdicts}
    for b in claims:
        cv = by_text.get(b.claim or "")
        if cv is None:
            judged.error = f"judge returned no verdict for {b.label}"
            continue
        apply_claim_verdict(b, cv.verdict, cv.evidence, cv.reason, cv.model, text)
    for phrase in pending:
        v = by_text.get(phrase)
        if v is None:
            judged.error = f"judge returned no verdict for excluded {phrase!r}"
            decision.hits.append(phrase)
        elif v.verdict == "paraphrase":  # asserted: no evidence needed to fail
            decision.hits.append(phrase)
            decision.notes.append(f"excluded {phrase!r}: {EXCLUDED_JUDGE_SAYS}")
        else:
            decision.notes.append(f"excluded {phrase!r}: negated hit, judge: not asserted")
    by_text = {t: enforce_evidence(v, text) for t, v in by_text.items()}
    for i in remaining:
        v = by_text.get(found[i].text)
        if v is None:
            judged.error = f"judge returned no verdict for {found[i].text!r}"
            continue
        v = carried(v, text, negated_match=found[i].negated)
        accepted = v.verdict == "paraphrase"
        found[i] = _Expectation(
            text=v.expected,
            method="judge" if accepted else None,
            satisfied=accepted,
            evidence=v.evidence if accepted else "",
            note="; ".join(filter(None, [v.reason, "cached verdict" * v.cached])),
            judge_model=v.model,
            judge_prompt_version=v.prompt_version,
        )
    return judged


# --- composed -------------------------------------------------------------------------------


def _base_fields(
    scenario: Scenario,
    response: TargetResponse,
    latency: float | None,
    over: bool,
    enforce_latency: bool,
    index: int,
) -> dict[str, object]:
    expect = scenario.expect
    return {
        "index": index,
        "name": scenario.name,
        "tier": scenario.tier,
        "platform": scenario.metadata.platform,
        "source_fact": scenario.metadata.source_fact,
        "excludes": list(expect.response_excludes),
        "latency_ms": latency,
        "max_latency_ms": expect.max_latency_ms,
        "latency_warning": over,
        "latency_enforced": enforce_latency,
        "response": response.text,
        "tokens_in": response.tokens_in,
        "tokens_out": response.tokens_out,
        "tool_calls": list(response.tool_calls),
        "trace": response.trace,
    }


def _expected_tools(scenario: Scenario) -> list[str]:
    """``expect.tools_called`` as tool names (bare or ``server/tool``)."""
    return [t.name for t in scenario.expect.tools_called]


def _trace(response: TargetResponse) -> ToolTrace | None:
    """The tool trace to check behaviour on: the target's, else its reported tool calls."""
    if response.trace is not None:
        return response.trace
    return trace_from_tool_calls(response.tool_calls) if response.tool_calls else None


async def ascore_response(
    scenario: Scenario,
    response: TargetResponse,
    judge: Judge | None = None,
    *,
    enforce_latency: bool = False,
    index: int = 0,
    latency_ms: float | None = None,
) -> ScenarioResult:
    """Score ``response`` for ``scenario``; ``latency_ms`` overrides ``response.latency_ms``."""
    expect = scenario.expect
    latency = latency_ms if latency_ms is not None else response.latency_ms
    over = latency_exceeded(latency, expect.max_latency_ms)
    base = _base_fields(scenario, response, latency, over, enforce_latency, index)
    if not expect.asserts_something():
        return ScenarioResult.model_validate({**base, "status": "error", "error": ASSERTS_NOTHING})
    if response.error is not None or response.text is None:
        return ScenarioResult.model_validate(
            {
                **base,
                "status": "error",
                "error": response.error or "the target returned no response",
                "expectations": [ExpectationResult(text=t) for t in expect.response_contains],
            }
        )

    text = response.text
    phrases = len(expect.response_contains) + len(expect.response_excludes)
    too_much = scoring_work_text(phrases, len(text))  # bounded time, decided before any work
    if too_much is not None:
        return ScenarioResult.model_validate({**base, "status": "error", "error": too_much})
    first_notes: list[str] = []
    found = strict_check(expect.response_contains, text)
    hits, pending = excluded_check(text, expect.response_excludes, judge is not None)
    view: ResponseView | None = None
    remaining: list[int] = []
    if len(found) > sum(1 for e in found if e.satisfied):
        view = ResponseView(text, None, text.lower())  # mentions read only if a rule needs them
        remaining = rule_check(found, view)
    numeric = numeric_check(text, expect.numeric_ranges)
    behaviour = (
        behaviour_checks(scenario, text, _trace(response)) if expect.behaviour_checks() else []
    )
    decision = _Decision(len(found), numeric, hits, enforce_latency and over, behaviour=behaviour)
    judged = _Judged()
    if remaining or pending or decision.claims:
        view = view or ResponseView(text, None, text.lower())
        judged = await judge_on_misses(judge, scenario, view, found, remaining, decision, pending)

    status: Status = "pass" if decision.passes(sum(1 for e in found if e.satisfied)) else "fail"
    if judged.error is not None:
        status = "judge error"
    write_failure = write_attempt_failure(response.trace, _expected_tools(scenario))
    if write_failure is not None and status == "pass":
        status = "fail"
    outcome = judged.outcome
    return ScenarioResult.model_validate(
        {
            **base,
            "status": status,
            "expectations": [e.fields() for e in found],  # validated in one call, below
            "numeric_checks": numeric,
            "excluded_hits": decision.hits,
            "notes": [*first_notes, *scenario.load_notes, *decision.notes],
            "behaviour": [b.fields() for b in behaviour],
            "numbers": judged.numbers,
            "error": judged.error,
            "write_failure": write_failure,
            "judge_calls": outcome.calls if outcome else 0,
            "judge_tokens_in": outcome.tokens_in if outcome else 0,
            "judge_tokens_out": outcome.tokens_out if outcome else 0,
        }
    )


def score_response(
    scenario: Scenario,
    response: TargetResponse,
    judge: Judge | None = None,
    *,
    enforce_latency: bool = False,
    index: int = 0,
) -> ScenarioResult:
    """Synchronous ``ascore_response`` (opens the judge's client, if any, for this one call).

    >>> from pe_eval_core.scenarios.models import Expect
    >>> s = Scenario(name="leak", input="?", expect=Expect(
    ...     response_contains=["$4,820", "VP Engineering", "five causes", "double charge", "x"],
    ...     numeric_range={"field": "mrr_lost", "min": 4800, "max": 4840}))
    >>> text = "Lost $4,820 across five causes incl. a double charge; tell the VP of Engineering."
    >>> r = score_response(s, TargetResponse(text=text))
    >>> r.status, [e.method for e in r.expectations], r.numeric.satisfied
    ('pass', ['strict', 'rule', 'strict', 'strict', None], True)
    """

    async def _run() -> ScenarioResult:
        async with contextlib.AsyncExitStack() as stack:
            if judge is not None and hasattr(judge, "__aenter__"):
                await stack.enter_async_context(judge)  # type: ignore[arg-type]
            return await ascore_response(
                scenario, response, judge, enforce_latency=enforce_latency, index=index
            )

    return asyncio.run(_run())
