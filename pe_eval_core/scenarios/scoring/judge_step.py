"""Asking the judge about a scenario's candidate misses: only when its verdict could decide,
and every ``paraphrase`` it returns must carry the fact (``evidence.check_evidence``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios.models import JudgeVerdict, Scenario
from pe_eval_core.scenarios.scoring.assertions import negation_cues, negation_scoping
from pe_eval_core.scenarios.scoring.behaviour import Behaviour, apply_claim_verdict
from pe_eval_core.scenarios.scoring.evidence import check_evidence, injection_markers
from pe_eval_core.scenarios.scoring.judge import (
    Judge,
    JudgeContext,
    enforce_evidence,
    numbers_never_stated,
)
from pe_eval_core.scenarios.scoring.paraphrase import ResponseView
from pe_eval_core.scenarios.scoring.steps import Decision, Expectation, Judged

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

CLAIM_NO_JUDGE = "no judge (--no-judge): a judge-decided check fails closed"
"""Detail of a judge-decided behaviour check when no judge was given."""


@dataclass(frozen=True, slots=True)
class JudgeRoute:
    """Whether the judge is asked about a scenario, and what: the one rule the scorer follows
    and the cost guard reads (it asks nothing, it only says what would be asked)."""

    asked: list[str]
    """The phrases and claims the judge is asked about, in order ([]: no call)."""
    decided: list[str]
    """Why no call is needed: the reasons the outcome is decided without the judge."""
    injected: list[str]
    """Negated excluded hits counted as asserted, unasked: the response addresses its grader."""


def judge_route(
    text: str,
    found: list[Expectation],
    remaining: list[int],
    decision: Decision,
    pending: list[str],
) -> JudgeRoute:
    """The judge is asked only when its verdict could decide pass or fail: not when the
    scenario fails anyway, and negated excluded hits in a response that addresses its grader
    are counted without asking (fail closed)."""
    met = len(found) - len(remaining)
    decided = decision.reasons(met, reachable=len(remaining))
    if decided:
        return JudgeRoute([], decided, [])
    injected: list[str] = []
    if pending and injection_markers(text):
        injected, pending = list(pending), []
        decided = replace(decision, hits=[*decision.hits, *injected]).reasons(
            met, reachable=len(remaining)
        )
        if decided:
            return JudgeRoute([], decided, injected)
    claims = [b.claim for b in decision.claims if b.claim]
    asked = list(dict.fromkeys([found[i].text for i in remaining] + pending + claims))
    return JudgeRoute(asked, [], injected)


async def judge_on_misses(
    judge: Judge | None,
    scenario: Scenario,
    view: ResponseView,
    found: list[Expectation],
    remaining: list[int],
    decision: Decision,
    pending: list[str] | None = None,
) -> Judged:
    """Ask the judge about the remaining candidate misses and the negated excluded hits
    (``pending``), only if its verdict could decide (:func:`judge_route`). Updates
    ``decision.hits`` in place with the excluded phrases the judge says the response asserts."""
    pending = pending or []
    if judge is None:
        decision.close_claims(CLAIM_NO_JUDGE)
        for i in remaining:
            if found[i].negated:
                found[i].note = f"{found[i].note}; {NEGATED_NO_JUDGE}"
            elif not found[i].note:
                found[i].note = NO_JUDGE
        return Judged()
    route = judge_route(view.text, found, remaining, decision, pending)
    if route.injected:
        decision.hits.extend(route.injected)  # a response that addresses its grader: fail closed
        decision.notes.append(f"{EXCLUDED_INJECTION}: {', '.join(route.injected)}")
        pending = []
    if route.decided:
        note = f"{JUDGE_SKIPPED} ({'; '.join(route.decided)})"
        if not route.injected:
            for i in remaining:
                found[i].note = f"{found[i].note}; {note}" if found[i].note else note
        decision.close_claims(note)
        return Judged()
    judged = await _ask_judge(
        judge, scenario, view.text, found, remaining, route.asked, pending, decision
    )
    judged_error = judged.error
    if judged_error is not None and not pending:
        _moot_judge_error(judged, view, found, remaining, decision)
    if judged_error is not None:
        decision.close_claims(f"judge error, failed closed: {judged_error}")
    return judged


def _moot_judge_error(
    judged: Judged,
    view: ResponseView,
    found: list[Expectation],
    remaining: list[int],
    decision: Decision,
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
    fact (verbatim, no injection in the response, its numbers, names and dates, not negated);
    otherwise it becomes ``missed`` with the failing step as its reason.

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


def judge_context(scenario: Scenario, claims: Sequence[Behaviour] = ()) -> JudgeContext:
    """What the judge is told about the scenario: its name, input and goal, and the agent's
    tool results when a pending claim needs them (``response_accurate``, ``custom``)."""
    evidence = next((b.evidence for b in claims if b.evidence is not None), None)
    return JudgeContext(
        name=scenario.name,
        input=scenario.input,
        goal=scenario.goal,
        tool_results=evidence.text if evidence else None,
        tool_results_cut=evidence.cut if evidence else None,
    )


async def _ask_judge(
    judge: Judge,
    scenario: Scenario,
    text: str,
    found: list[Expectation],
    remaining: list[int],
    asked: list[str],
    pending: list[str],
    decision: Decision,
) -> Judged:
    """One judge call about ``asked`` (the remaining candidate misses, the negated excluded
    hits ``pending``, the pending claims); updates ``found`` and ``decision.hits`` in place."""
    claims = decision.claims
    try:
        outcome = await judge.judge(
            scenario.name, text, asked, context=judge_context(scenario, claims)
        )
    except JudgeError as exc:
        return Judged(error=str(exc))
    judged = Judged(outcome=outcome)
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
        found[i] = Expectation(
            text=v.expected,
            method="judge" if accepted else None,
            satisfied=accepted,
            evidence=v.evidence if accepted else "",
            note="; ".join(filter(None, [v.reason, "cached verdict" * v.cached])),
            judge_model=v.model,
            judge_prompt_version=v.prompt_version,
            judge_source=v.source,
        )
    return judged
