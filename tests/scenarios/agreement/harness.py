"""The agreement corpus's machinery: case format, a careful scripted judge, the measurement.

A case is one Mimic scenario, one agent answer (with the tool calls it made and, for an
agent driven through MCP, their results) and the verdict the specification calls for, with
why. The corpus is scored three ways:

* ``no judge``: ``score_response(..., judge=None)`` (CI without a key, ``--no-judge``);
* ``careful judge``: a deterministic stand-in (:class:`CarefulJudge`) answering each question
  the scorer asks as a careful human would: the case carries those answers (``judge``), a
  phrase present word for word is a ``paraphrase`` quoting it, anything else ``missed``. A
  behaviour claim (``response_accurate``, ``custom``) may carry two answers: ``seen`` when
  the judge's prompt shows the tool results, ``blind`` when it does not (a careful human
  who cannot see the data cannot tell a wrong total from a right one);
* for reference, the seed's own procedure (``seed_verdict``: lowercase substring, the same
  careful judge on misses with no evidence check, the seed's number regex, 0.8) and Mimic's
  ``mimic test`` runner (``mimic_verdict``: lowercase substring, exact tool names; its LLM
  checks, which see Mimic's ground-truth data, answered as a careful judge that sees it:
  the ``seen`` answers, and ``no_hallucination`` right by construction, which flatters it).

This module imports ``pe_eval_core`` only inside functions, so ``benchmarks/bench_agreement.py
--package-root`` can score the corpus with another checkout of the package (before/after).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = tuple[str, str]
"""``("paraphrase", verbatim quote)`` or ``("missed", "")``."""

CLASSES = ("paraphrase", "strict", "derived", "writes", "names", "evidence")


@dataclass(frozen=True)
class Claim:
    """A careful judge's answer to a behaviour claim, with and without the tool results."""

    seen: Verdict
    blind: Verdict | None = None
    """What it answers when the prompt carries no tool results (default: ``seen``)."""


@dataclass(frozen=True)
class Call:
    """One MCP tool call of the agent under test, with its result (JSON-able or text)."""

    server: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    refused: bool = False


@dataclass(frozen=True)
class Case:
    id: str
    klass: str
    scenario: dict[str, Any]
    response: str
    expected: Literal["pass", "fail"]
    why: str
    calls: tuple[Call, ...] = ()
    """MCP calls with results (an agent driven through MCP)."""
    tool_calls: tuple[Any, ...] = ()
    """An HTTP agent's ``toolCalls`` (names and arguments, no results)."""
    judge: dict[str, Verdict | Claim] = field(default_factory=dict)
    """The careful judge's answers: by expected phrase, or by check label for a claim."""
    writes_allowed: bool = False
    """The run used ``--allow-writes`` (a write in ``calls`` really ran)."""


def S(
    input: str,
    *,
    goal: str | None = None,
    contains: Sequence[str] = (),
    excludes: Sequence[str] = (),
    rng: tuple[str, float, float] | None = None,
    tier: str = "functional",
    **behaviour: Any,
) -> dict[str, Any]:
    """A scenario in Mimic's export shape."""
    expect: dict[str, Any] = {}
    if contains:
        expect["response_contains"] = list(contains)
    if excludes:
        expect["response_excludes"] = list(excludes)
    if rng is not None:
        expect["numeric_range"] = {"field": rng[0], "min": rng[1], "max": rng[2]}
    expect.update(behaviour)
    out: dict[str, Any] = {"input": input, "expect": expect, "metadata": {"tier": tier}}
    if goal is not None:
        out["goal"] = goal
    return out


# --- the careful judge ------------------------------------------------------------------------


class CarefulJudge:
    """A deterministic judge that answers as a careful human would (see the module doc)."""

    live = False
    model = "careful-scripted"
    prompt_version = "careful-v1"

    def __init__(self, case: Case):
        self.case = case
        self.asked: list[str] = []
        self.saw_results: list[bool] = []

    async def judge(
        self, scenario: str, response: str, expected: Sequence[str], *, context: Any = None
    ) -> Any:
        from pe_eval_core.scenarios.models import JudgeOutcome, JudgeVerdict

        seen = bool(getattr(context, "tool_results", None))
        self.saw_results.append(seen)
        verdicts = []
        for phrase in expected:
            self.asked.append(phrase)
            verdict, quote = self.answer(phrase, response, seen)
            verdicts.append(
                JudgeVerdict(
                    expected=phrase,
                    verdict=verdict,  # type: ignore[arg-type]
                    evidence=quote,
                    reason="careful scripted judge",
                    model=self.model,
                    prompt_version=self.prompt_version,
                )
            )
        return JudgeOutcome(
            verdicts=verdicts, model=self.model, prompt_version=self.prompt_version, calls=1
        )

    def answer(self, phrase: str, response: str, seen: bool) -> Verdict:
        if phrase.startswith("CHECK "):
            label = phrase[len("CHECK ") :].split(":", 1)[0]
            given = self.case.judge.get(label)
            if isinstance(given, Claim):
                return given.seen if seen or given.blind is None else given.blind
            return given if isinstance(given, tuple) else ("missed", "")
        given = self.case.judge.get(phrase)
        if isinstance(given, tuple):
            return given
        excludes = self.case.scenario["expect"].get("response_excludes", [])
        if phrase in excludes:
            return ("missed", "")  # not annotated: the careful reading is "not asserted"
        i = response.lower().find(phrase.lower())
        if i >= 0:  # quote the whole words around it ("risk flags" for "risk flag")
            j = i + len(phrase)
            while i > 0 and response[i - 1].isalnum():
                i -= 1
            while j < len(response) and response[j].isalnum():
                j += 1
            return ("paraphrase", response[i:j])
        return ("missed", "")


# --- scoring a case ---------------------------------------------------------------------------


def _module(path: str, before: str) -> Any:
    """``pe_eval_core.scenarios.<path>``, or its name before the issue-18 layout (so
    ``bench_agreement.py --package-root`` can score an older checkout)."""
    import importlib

    try:
        return importlib.import_module(f"pe_eval_core.scenarios.{path}")
    except ModuleNotFoundError:
        return importlib.import_module(f"pe_eval_core.scenarios.{before}")


def scenario_of(case: Case) -> Any:
    from pe_eval_core.scenarios.models import Scenario

    data = {"name": case.id, **case.scenario}
    return Scenario.model_validate(data)


def response_of(case: Case) -> Any:
    from pe_eval_core.scenarios.models import TargetResponse
    from pe_eval_core.scenarios.trace import ToolTrace, TraceCall

    write_reason = _module("agent.tool_policy", "tool_policy").write_reason

    if case.calls:
        calls = []
        for c in case.calls:
            result = (
                c.result if isinstance(c.result, str) or c.result is None else json.dumps(c.result)
            )
            write = write_reason(c.tool) is not None
            refused = c.refused or (write and not case.writes_allowed)
            calls.append(
                TraceCall(
                    server=c.server,
                    tool=c.tool,
                    arguments=c.arguments,
                    result_excerpt=None if refused else result,
                    refused=refused,
                    write_attempt=refused and write,
                    is_error=refused,
                )
            )
        trace = ToolTrace(
            calls=calls, turns=len(calls) + 1, servers=sorted({c.server for c in case.calls})
        )
        return TargetResponse(text=case.response, trace=trace)
    return TargetResponse(text=case.response, tool_calls=list(case.tool_calls))


def verdict(case: Case, judged: bool) -> str:
    """``pass`` or ``fail`` (any other status counts as fail) from pe-eval."""
    ascore_response = _module("scoring.score", "scoring").ascore_response
    judge = CarefulJudge(case) if judged else None
    result = asyncio.run(ascore_response(scenario_of(case), response_of(case), judge))
    return "pass" if result.status == "pass" else "fail"


# --- the reference evaluators -----------------------------------------------------------------

_SEED_NUMBER = re.compile(r"[-+]?\d{1,3}(?:,\d{3})*(?:\.\d+)?|[-+]?\d+(?:\.\d+)?")


def seed_verdict(case: Case) -> str:
    """The seed's procedure as written: strict lowercase substring, the careful judge on the
    misses (no evidence check), the seed's regex for the range, 0.8; nothing else checked."""
    expect = case.scenario["expect"]
    contains = expect.get("response_contains", [])
    text = case.response.lower()
    judge = CarefulJudge(case)
    met = 0
    for phrase in contains:
        if phrase.lower() in text or judge.answer(phrase, case.response, False)[0] == "paraphrase":
            met += 1
    ok = 5 * met >= 4 * len(contains)
    rng = expect.get("numeric_range")
    if rng is not None:
        values = [float(m.replace(",", "")) for m in _SEED_NUMBER.findall(case.response)]
        ok = ok and any(rng["min"] <= v <= rng["max"] for v in values)
    return "pass" if ok else "fail"


def mimic_verdict(case: Case) -> str:
    """``mimic test``'s evaluator: every response_contains as a lowercase substring, every
    tools_called name exactly among the reported tool names, its LLM checks (accuracy,
    hallucination, confirmation) as the careful judge answers them without tool results."""
    expect = case.scenario["expect"]
    text = case.response.lower()
    if not all(p.lower() in text for p in expect.get("response_contains", [])):
        return "fail"
    names = [c.tool for c in case.calls] or [
        t if isinstance(t, str) else t.get("name", "") for t in case.tool_calls
    ]
    wanted = [
        t if isinstance(t, str) else t.get("name", "") for t in expect.get("tools_called", [])
    ]
    if any(w not in names for w in wanted):
        return "fail"
    judge = CarefulJudge(case)
    claims = ["response_accurate", "confirms_before_action"] + [
        f"custom.{k}" for k in expect.get("custom", {})
    ]
    for label in claims:
        asked = label.startswith("custom.") or expect.get(label) is True
        if asked and judge.answer(f"CHECK {label}: ", case.response, True)[0] != "paraphrase":
            return "fail"
    if expect.get("no_hallucination") is True and case.klass == "derived":
        return case.expected  # its judge sees the data: assume it right (flatters Mimic)
    return "pass"


@dataclass
class Agreement:
    """How often an evaluator gives the verdict the specification calls for."""

    name: str
    agree: int = 0
    total: int = 0
    false_fails: int = 0
    """Correct answers (expected pass) it fails."""
    false_passes: int = 0
    wrong: list[str] = field(default_factory=list)

    def add(self, case: Case, got: str) -> None:
        self.total += 1
        if got == case.expected:
            self.agree += 1
            return
        self.wrong.append(f"{case.id} ({case.klass}): expected {case.expected}, got {got}")
        if case.expected == "pass":
            self.false_fails += 1
        else:
            self.false_passes += 1

    def line(self) -> str:
        return (
            f"{self.name:<26} {self.agree:>3}/{self.total}  false fails {self.false_fails:>2}"
            f"  false passes {self.false_passes:>2}"
        )


def measure(cases: Sequence[Case], *, references: bool = True) -> list[Agreement]:
    """Agreement of pe-eval without and with the careful judge (and the references)."""
    out = [Agreement("pe-eval, no judge"), Agreement("pe-eval, careful judge")]
    if references:
        out += [Agreement("seed procedure (reference)"), Agreement("mimic test (reference)")]
    for case in cases:
        out[0].add(case, verdict(case, judged=False))
        out[1].add(case, verdict(case, judged=True))
        if references:
            out[2].add(case, seed_verdict(case))
            out[3].add(case, mimic_verdict(case))
    return out


def by_class(cases: Sequence[Case], judged: bool) -> dict[str, tuple[int, int]]:
    """``{class: (agree, total)}`` for pe-eval with or without the careful judge."""
    out: dict[str, tuple[int, int]] = {}
    for case in cases:
        a, t = out.get(case.klass, (0, 0))
        out[case.klass] = (a + (verdict(case, judged) == case.expected), t + 1)
    return out
