"""The data of a scenario evaluation: Mimic scenarios in, per-scenario results and a run out.

Inputs (``Scenario``, ``RecordedResponse``) are loaded tolerantly (unknown keys kept as
extras); outputs (``ScenarioResult``, ``ScenarioRun``) are plain data that round-trips through
JSON, so a saved run can be re-rendered or compared without re-running anything.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from pe_eval_core.files import unicode_text
from pe_eval_core.limits import over_response_limit
from pe_eval_core.numbers import number_values
from pe_eval_core.redact import redact, redact_data
from pe_eval_core.scenarios.statistics import ScenarioStats, TierStats, scenario_stats, tier_stats
from pe_eval_core.scenarios.trace import ToolTrace
from pe_eval_core.wording import TIERS

KNOWN_TIERS = TIERS
"""The seed's tiers (``wording.TIERS``), reported in this order; any other tier is kept and
listed after them."""

UNTIERED = "untiered"
"""The tier reported for a scenario whose metadata names none."""

Status = Literal["pass", "fail", "error", "judge error"]
Method = Literal["strict", "rule", "judge"]
BehaviourCheck = Literal[
    "tools_called", "confirms_before_action", "no_hallucination", "response_accurate", "custom"
]


# --- inputs ---------------------------------------------------------------------------------


class NumericRange(BaseModel):
    """``expect.numeric_range``: any number in the response inside [min, max] satisfies it.

    Bounds must be finite (NaN and infinity are refused even where a JSON reader let them in)
    and ordered:

    >>> NumericRange.model_validate_json('{"min": NaN, "max": 5}')
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for NumericRange
    min
      Input should be a finite number ...
    """

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    field: str = ""
    """A label for what the number means (e.g. ``mrr_lost_usd``); not looked up anywhere."""
    min: float
    """Inclusive lower bound."""
    max: float
    """Inclusive upper bound."""

    @model_validator(mode="after")
    def _ordered(self) -> NumericRange:
        if self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is greater than max ({self.max:g})")
        return self


class ToolExpectation(BaseModel):
    """One ``expect.tools_called`` entry: a tool name, optionally with an argument subset.

    Mimic writes plain names (``"create_refund"``); an object ``{"name": ..., "arguments":
    {...}}`` also requires some call of that tool whose arguments include every given key with
    an equal value (``server/tool`` names the server too).
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


MIMIC_EXPECT_KEYS: tuple[str, ...] = (
    "response_contains",
    "response_excludes",
    "numeric_range",
    "max_latency_ms",
    "tools_called",
    "response_accurate",
    "no_hallucination",
    "confirms_before_action",
    "custom",
)
"""Every expectation key Mimic writes (its export and ``mimic.json`` schemas); others warn."""


class Expect(BaseModel):
    """What a response must (and must not) contain, and how the agent must behave."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False)

    response_contains: list[str] = Field(default_factory=list)
    """Substrings the response must surface (case-insensitive; paraphrases may count)."""
    response_excludes: list[str] = Field(default_factory=list)
    """Phrases that fail the scenario if present (case-insensitive)."""
    numeric_ranges: list[NumericRange] = Field(default_factory=list, alias="numeric_range")
    """Mimic writes one ``numeric_range`` object; a list of them is accepted too."""
    max_latency_ms: float | None = None
    """Latency budget: exceeding it is a warning (a failure with ``enforce_latency``)."""
    tools_called: list[ToolExpectation] = Field(default_factory=list)
    """Tools the agent must call (each name must appear in the trace; optional argument subset)."""
    response_accurate: bool | None = None
    """True: the judge decides whether the response accomplishes the goal accurately."""
    no_hallucination: bool | None = None
    """True: every money, count and percent figure must appear in some tool result."""
    confirms_before_action: bool | None = None
    """True: no write tool may be called before the response asks for confirmation."""
    custom: dict[str, Any] | None = None
    """Mimic's free-form checks (key: requirement), each decided by the judge."""

    @field_validator("tools_called", mode="before")
    @classmethod
    def _tool_names(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("numeric_ranges", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, dict) else value

    @field_validator("response_contains", "response_excludes", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("response_contains", "response_excludes")
    @classmethod
    def _no_blank(cls, value: list[str]) -> list[str]:
        for i, text in enumerate(value):
            if not text.strip():
                raise ValueError(f"item {i} is blank; a blank phrase would match every response")
        return value

    @property
    def numeric_range(self) -> NumericRange | None:
        """The first numeric range (Mimic files carry at most one)."""
        return self.numeric_ranges[0] if self.numeric_ranges else None

    def asserts_something(self) -> bool:
        """False when no check exists (a latency budget alone asserts nothing)."""
        return bool(
            self.response_contains
            or self.response_excludes
            or self.numeric_ranges
            or self.behaviour_checks()
        )

    def behaviour_checks(self) -> list[str]:
        """The behaviour checks asked for, by Mimic key, in a fixed order."""
        out = ["tools_called"] if self.tools_called else []
        for key in ("confirms_before_action", "no_hallucination", "response_accurate"):
            if getattr(self, key) is True:
                out.append(key)
        if self.custom:
            out.append("custom")
        return out

    def unknown_keys(self) -> list[str]:
        """Expectation keys that are not Mimic's: kept, never checked (the loader warns)."""
        return sorted(k for k in (self.model_extra or {}) if k not in MIMIC_EXPECT_KEYS)


class ScenarioMetadata(BaseModel):
    """Mimic's ``metadata``: tier, the platform the fact came from, and the fact id."""

    model_config = ConfigDict(extra="allow")

    tier: str = UNTIERED
    platform: str | None = None
    source_fact: str | None = None

    @field_validator("tier", mode="before")
    @classmethod
    def _tier(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return UNTIERED
        return value.strip().lower() if isinstance(value, str) else value


class Scenario(BaseModel):
    """One Mimic scenario: a prompt for the agent and what its response must contain."""

    model_config = ConfigDict(extra="allow")

    name: str
    """Unique within a file; the key that ties a scenario to its recorded response."""
    input: str
    """The prompt sent to the agent (a goal-only scenario sends its goal: ``input_from_goal``)."""
    persona: str | None = None
    goal: str | None = None
    expect: Expect = Field(default_factory=Expect)
    metadata: ScenarioMetadata = Field(default_factory=ScenarioMetadata)
    input_from_goal: bool = False
    """True when the scenario had no ``input`` and its ``goal`` is sent instead (noted)."""

    @model_validator(mode="before")
    @classmethod
    def _goal_as_input(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        given = data.get("input")
        goal = data.get("goal")
        if (given is None or (isinstance(given, str) and not given.strip())) and (
            isinstance(goal, str) and goal.strip()
        ):
            return {**data, "input": goal, "input_from_goal": True}
        return data

    @property
    def load_notes(self) -> list[str]:
        """What loading changed or could not check, for the result's notes."""
        notes = []
        if self.input_from_goal:
            notes.append("no input in the scenario: its goal was sent as the input")
        notes.extend(
            f"expectation key {k!r} is not one Mimic defines: not checked"
            for k in self.expect.unknown_keys()
        )
        return notes

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name is blank")
        return value

    @property
    def tier(self) -> str:
        return self.metadata.tier


class RecordedResponse(BaseModel):
    """One line of a recorded-responses file: ``{name, response, latency_ms?, error?}``."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    name: str
    response: str | None = None
    latency_ms: float | None = None
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    tool_calls: list[Any] = Field(default_factory=list)
    model: str | None = None
    trace: ToolTrace | None = None
    """The agent's tool trace, replayed by the recorded target (re-score offline with tools)."""


class TargetResponse(BaseModel):
    """What a target returned for one scenario: text, or an error, with timing and usage."""

    text: str | None = None
    """The agent's response, verbatim (None when the call failed)."""
    error: str | None = None
    """Why the agent produced no response (HTTP status and body excerpt, timeout, ...)."""
    error_kind: str | None = None
    """``unreachable`` (no connection, a gateway error) or ``auth`` (401/403/407): a
    transport error, not the agent's answer; None for any other error."""
    latency_ms: float | None = None
    """Set by targets that know the latency (recorded files); otherwise the runner measures."""
    tokens_in: int = 0
    tokens_out: int = 0
    tool_calls: list[Any] = Field(default_factory=list)
    """The HTTP agent's ``toolCalls``, kept for the record."""
    model: str | None = None
    trace: ToolTrace | None = None
    """What the agent did: tool calls, turns, tokens and cost (None: the target reports none)."""

    _unicode = field_validator("text", "error")(unicode_text)  # a live agent's lone surrogate
    # The redaction choke point for what a target returned (live or recorded): a key, bearer
    # token or URL password in a response, an error or a tool call never reaches a report,
    # responses.json or the history.
    _redact = field_validator("text", "error")(redact)
    _redact_calls = field_validator("tool_calls")(redact_data)

    @model_validator(mode="after")
    def _bounded(self) -> TargetResponse:
        """A response over the length limit becomes an error (never scored, never a pass)."""
        self.text, self.error = over_response_limit(self.text, self.error)
        return self


# --- judge verdicts -------------------------------------------------------------------------


class JudgeVerdict(BaseModel):
    """A judge's decision on one candidate-miss expectation, after the evidence check."""

    expected: str
    verdict: Literal["paraphrase", "missed"]
    evidence: str = ""
    """A verbatim quote from the response; a paraphrase whose quote is absent fails closed."""
    model: str
    prompt_version: str
    reason: str = ""
    cached: bool = False


class JudgeOutcome(BaseModel):
    """One judge call (or cache hit) for one scenario: its verdicts and what it cost."""

    verdicts: list[JudgeVerdict]
    model: str
    prompt_version: str
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0
    """Paid calls made (0 when every verdict came from the cache or a recorded file)."""


# --- results --------------------------------------------------------------------------------


class ExpectationResult(BaseModel):
    """One ``response_contains`` entry and how (or whether) the response satisfied it."""

    text: str
    method: Method | None = None
    """``strict`` (substring), ``rule`` (deterministic paraphrase), ``judge``; None if missed."""
    satisfied: bool = False
    evidence: str = ""
    """What matched: the response span (strict/rule) or the judge's verbatim quote."""
    note: str = ""
    """Which paraphrase rule matched, the judge's reason, or why a verdict was downgraded."""
    judge_model: str | None = None
    judge_prompt_version: str | None = None


class NumberSeen(BaseModel):
    """One number as the range reader saw it (``range_reader.NumberRead``, as data)."""

    raw: str
    value: float
    kind: str
    accepted: bool = False
    read_as: float | None = None
    reason: str = ""


class NumericResult(BaseModel):
    """A numeric range check: satisfied when any number in the response lies inside it."""

    field: str
    min: float
    max: float
    satisfied: bool
    matched: float | None = None
    """The first in-range number found."""
    nearest: float | None = None
    """When unsatisfied, the extracted number closest to the range (None if no numbers)."""
    matched_text: str | None = None
    """The matched number as written in the response (``-$4,820``, ``eight``, ``No``)."""
    read_as: float | None = None
    """The value that fell in the range after the reader's rules (sign, cents, rate)."""
    reason: str = ""
    """Why the matched number was accepted (``range_reader.Reason``), or "out of range"."""
    read: list[NumberSeen] = Field(default_factory=list)
    """Every number the reader saw for this range, each with its decision."""


class BehaviourResult(BaseModel):
    """One behaviour check (``behaviour.py``): decided from the trace or by the judge."""

    check: BehaviourCheck
    label: str
    """The check's line in reports: its Mimic key (``custom.<key>`` for each custom entry)."""
    satisfied: bool = False
    method: Literal["trace", "judge"] | None = None
    """``trace`` (deterministic) or ``judge``; None when not decided (scenario errored)."""
    detail: str = ""
    """Why, in one line (missing tools, ungrounded figures, the judge's evidence)."""
    findings: list[str] = Field(default_factory=list)
    """Missing tools, write tools called, or ungrounded figures as written."""
    judge_model: str | None = None


class ScenarioResult(BaseModel):
    """Everything known about one scenario's run: verdict, every check, the response."""

    model_config = ConfigDict(validate_by_name=True)  # ``numbers_read`` as well as ``numbers``

    index: int = 0
    """1-based position in the scenarios file (the report's ``#`` column)."""
    repeat: int = 1
    """Which of the run's ``--repeat`` runs of this scenario this is (1-based)."""
    error_kind: str | None = None
    """Why an ``error`` result ran nothing (:data:`ERROR_KINDS`), None for other statuses."""
    name: str
    tier: str
    platform: str | None = None
    source_fact: str | None = None
    status: Status
    expectations: list[ExpectationResult] = Field(default_factory=list)
    numeric_checks: list[NumericResult] = Field(default_factory=list)
    excludes: list[str] = Field(default_factory=list)
    excluded_hits: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """How checks that needed more than a match were decided (e.g. negated excluded hits)."""
    numbers_read: list[float] | None = Field(
        default_factory=list, alias="numbers", exclude=True, repr=False
    )
    """Storage behind ``numbers`` (given as ``numbers``); None: not read yet, read on demand."""
    latency_ms: float | None = None
    max_latency_ms: float | None = None
    latency_warning: bool = False
    latency_enforced: bool = False
    response: str | None = None
    error: str | None = None
    """Target error, "asserts nothing", or the judge error when status is ``judge error``."""
    tokens_in: int = 0
    tokens_out: int = 0
    judge_calls: int = 0
    judge_tokens_in: int = 0
    judge_tokens_out: int = 0
    tool_calls: list[Any] = Field(default_factory=list)
    trace: ToolTrace | None = None
    """The agent's tool trace for this scenario (None: the target reported none)."""
    write_failure: str | None = None
    """Why the trace fails a read-only scenario (a refused write it did not expect), or None."""
    behaviour: list[BehaviourResult] = Field(default_factory=list)
    """Mimic's behaviour checks (tools_called, confirms_before_action, no_hallucination,
    response_accurate, custom), one line each; any unsatisfied one fails the scenario."""

    @property
    def behaviour_failed(self) -> list[BehaviourResult]:
        return [b for b in self.behaviour if not b.satisfied]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def numeric(self) -> NumericResult | None:
        """The numeric check to show: the first unsatisfied one, else the first one."""
        for check in self.numeric_checks:
            if not check.satisfied:
                return check
        return self.numeric_checks[0] if self.numeric_checks else None

    @computed_field(repr=False)  # type: ignore[prop-decorator]  # repr must not read them
    @property
    def numbers(self) -> list[float]:
        """Every number extracted from the response (signed and scaled), in order.

        The scorer stops reading numbers at a numeric range's first hit; the full list is then
        read from ``response`` on first use (serialising, display), once.
        """
        numbers = self.numbers_read
        if numbers is None:
            numbers = number_values(self.response) if self.response else []
            self.numbers_read = numbers
        return numbers

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScenarioResult):  # equal whether or not numbers were read yet
            _ = self.numbers, other.numbers
        return super().__eq__(other)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def strict_satisfied(self) -> int:
        return sum(1 for e in self.expectations if e.method == "strict")

    @property
    def candidate_misses(self) -> list[ExpectationResult]:
        """Expectations the strict substring check missed (the paraphrase candidates)."""
        return [e for e in self.expectations if e.method != "strict"]

    @property
    def paraphrase_satisfied(self) -> int:
        return sum(1 for e in self.expectations if e.method in ("rule", "judge"))

    @property
    def strict_missed(self) -> list[str]:
        return [e.text for e in self.candidate_misses]

    @property
    def paraphrase_missed(self) -> list[str]:
        return [e.text for e in self.expectations if not e.satisfied]


class TierSummary(BaseModel):
    """Pass counts for one tier; errors are counted apart, never in the pass rate."""

    tier: str
    total: int
    passed: int
    failed: int
    errors: int

    @property
    def ran(self) -> int:
        """Scenario runs that produced a verdict (pass or fail): the pass-rate denominator."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None


ERROR_KINDS = {
    "unreachable": "agent unreachable",
    "auth": "authentication refused",
    "target": "agent error",
    "judge": "judge error",
    "cancelled": "cancelled",
    "not_run": "not run (cost limit)",
    "no_checks": "asserts nothing",
}
"""Why a scenario run produced no verdict, as the report names it ("3 errors: agent
unreachable"). ``unreachable`` and ``auth`` are transport errors: the run stops on them."""

TRANSPORT_ERROR_KINDS = frozenset({"unreachable", "auth"})


def error_kind_of(result: ScenarioResult) -> str | None:
    """The :data:`ERROR_KINDS` key of a result that errored (None for pass and fail)."""
    if result.status == "judge error":
        return "judge"
    if result.status != "error":
        return None
    if result.error_kind:
        return result.error_kind
    if result.error and "asserts nothing" in result.error:
        return "no_checks"
    return "target"


def error_summary_line(counts: list[tuple[str, int]]) -> str:
    """``"3 errors: agent unreachable; 1 error: judge error"`` ("" when nothing errored).

    >>> error_summary_line([("unreachable", 3), ("judge", 1)])
    '3 errors: agent unreachable; 1 error: judge error'
    """
    return "; ".join(
        f"{n} {'error' if n == 1 else 'errors'}: {ERROR_KINDS.get(kind, kind)}"
        for kind, n in counts
    )


class ScenarioRun(BaseModel):
    """One evaluation run: where it came from, every result, and what it cost."""

    run_id: str
    started_at: datetime
    finished_at: datetime
    scenarios_path: str | None = None
    scenarios_sha256: str | None = None
    target: str
    """Target description, e.g. ``recorded:.mimic/exports/recorded-responses.json``."""
    target_label: str | None = None
    """A stable label for the agent under test: ``anthropic:<model id>``, ``http:<URL>``,
    ``recorded:<resolved file>``; comparisons of runs whose labels differ say so first."""
    repeats: int = 1
    """``--repeat K``: every scenario ran K times (``results`` holds K results per scenario)."""
    warnings: list[str] = Field(default_factory=list)
    """What the loader or the judge could not check or had to change (unknown expectation
    keys, a goal sent as the input, a recorded verdict for another response), one sentence
    each: shown in the run header, the report and the dashboard, never dropped."""
    stopped: str | None = None
    """Why the run stopped early on transport errors (the target unreachable or refusing
    authentication); None when it ran to the end. Such a run is an infrastructure error."""
    model: str | None = None
    judge: str | None = None
    """Judge description (model or ``recorded:<model>``), None when no judge was used."""
    judge_prompt_version: str | None = None
    concurrency: int = 3
    enforce_latency: bool = False
    cancelled: bool = False
    responses_path: str | None = None
    """Where this run's responses were saved as a recorded file (re-score offline from it)."""
    results: list[ScenarioResult] = Field(default_factory=list)
    tokens_in: int = 0
    """Target tokens (as recorded, for a recorded target)."""
    tokens_out: int = 0
    judge_tokens_in: int = 0
    judge_tokens_out: int = 0
    judge_calls: int = 0
    """Paid judge calls made in this run (cache hits and recorded verdicts make none)."""
    estimated_cost_usd: float | None = None
    """Live target plus judge tokens at list price; None when a used model's price is unknown."""

    def __repr__(self) -> str:
        # A summary, not every result: asyncio reprs a finished main task's result when
        # ``asyncio.run`` restores the SIGINT handler, which for 10,000 results cost seconds.
        return (
            f"ScenarioRun(run_id={self.run_id!r}, target={self.target!r}, total={self.total}, "
            f"passed={self.passed}, failed={self.failed}, errors={self.errors})"
        )

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.status == "pass")

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if r.status == "fail")

    @property
    def errors(self) -> int:
        return sum(1 for r in self.results if r.status in ("error", "judge error"))

    @property
    def ran(self) -> int:
        """Scenario runs with a verdict (pass or fail): the pass-rate denominator."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float:
        """Passed / ran: errors are left out of the denominator (shown apart)."""
        return self.passed / self.ran if self.ran else 0.0

    @property
    def label(self) -> str:
        """:attr:`target_label` when recorded, else the target description."""
        return self.target_label or self.target

    def error_counts(self) -> list[tuple[str, int]]:
        """(error kind, count), most frequent first (see :data:`ERROR_KINDS`)."""
        counts = Counter(k for r in self.results if (k := error_kind_of(r)) is not None)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def error_summary(self) -> str:
        """``"3 errors: agent unreachable"``, or "" when nothing errored."""
        return error_summary_line(self.error_counts())

    def by_tier(self) -> list[TierSummary]:
        """Smoke, functional, adversarial (always, even when empty), then other tiers as met."""
        order = list(KNOWN_TIERS)
        for r in self.results:
            if r.tier not in order:
                order.append(r.tier)
        out = []
        for tier in order:
            rs = [r for r in self.results if r.tier == tier]
            out.append(
                TierSummary(
                    tier=tier,
                    total=len(rs),
                    passed=sum(1 for r in rs if r.status == "pass"),
                    failed=sum(1 for r in rs if r.status == "fail"),
                    errors=sum(1 for r in rs if r.status in ("error", "judge error")),
                )
            )
        return out

    def scenario_stats(self) -> list[ScenarioStats]:
        """Each scenario over its repeats (file order): runs and passes without the errors."""
        groups: dict[str, list[ScenarioResult]] = {}
        for r in self.results:
            groups.setdefault(r.name, []).append(r)
        return [
            scenario_stats(name, rs[0].tier, rs[0].source_fact, [r.status for r in rs])
            for name, rs in groups.items()
        ]

    def tier_stats(self) -> list[TierStats]:
        """Each tier with runs (report order): pass rate over runs that produced a verdict and
        its 95% interval (Wilson; clustered by ``source_fact`` when a scenario repeats)."""
        stats = self.scenario_stats()
        return [
            tier_stats(t.tier, [s for s in stats if s.tier == t.tier])
            for t in self.by_tier()
            if t.total
        ]

    def statistics_summary(self) -> dict[str, Any]:
        """Repeats, intervals, flaky scenarios and errors as plain data (JSON, history)."""
        k = self.repeats
        scenarios = []
        for st in self.scenario_stats():
            row: dict[str, Any] = {
                "name": st.name,
                "tier": st.tier,
                "source_fact": st.source_fact,
                "runs": st.runs,
                "passes": st.passes,
                "errors": st.errors,
                "outcome": st.outcome,
                "flaky": st.flaky,
            }
            if st.runs:
                row["pass_at_k"] = st.pass_at(min(k, st.runs))
                row["pass_hat_k"] = st.pass_hat(min(k, st.runs))
            scenarios.append(row)
        return {
            "repeats": k,
            "target_label": self.label,
            "tiers": [
                {
                    "tier": t.tier,
                    "runs": t.runs,
                    "passes": t.passes,
                    "rate": t.rate,
                    "low": t.low,
                    "high": t.high,
                    "method": t.method,
                    "clusters": t.clusters,
                    "n_eff": t.n_eff,
                }
                for t in self.tier_stats()
            ],
            "scenarios": scenarios,
            "flaky": [row["name"] for row in scenarios if row["flaky"]],
            "errors": dict(self.error_counts()),
            "error_summary": self.error_summary(),
            "stopped": self.stopped,
        }

    def worst_tier(self) -> TierSummary | None:
        """The tier with the lowest pass rate among runs with a verdict (ties: more failures,
        then report order); errors do not make a tier worse."""
        tiers = [t for t in self.by_tier() if t.ran and t.passed < t.ran]
        if not tiers:
            return None
        return min(tiers, key=lambda t: (t.passed / t.ran, -t.failed))

    def struggled_facts(self, limit: int = 3) -> list[tuple[str, int]]:
        """``source_fact`` ids with the most failing scenarios (ties kept, up to ``limit``);
        errored scenarios say nothing about a fact, and repeats count once."""
        failing = {(r.name, r.source_fact) for r in self.results if r.status == "fail"}
        counts = Counter(fact for _, fact in failing if fact)
        if not counts:
            return []
        top = max(counts.values())
        return sorted((fact, n) for fact, n in counts.items() if n == top)[:limit]

    def conclusion(self) -> str:
        """The seed's one-line conclusion: the worst tier and the facts the agent struggled with.

        Only scenarios that ran (pass or fail) are judged; errors are named apart by cause.
        """
        errors = self.error_summary()
        if self.results and self.ran == 0:
            first = next((r.error for r in self.results if r.error), "no error message")
            return (
                f"Every scenario errored ({self.total}/{self.total}), so no tier or fact can be "
                f"judged: the target produced no response to score ({errors}; first error: "
                f"{first})."
            )
        worst = self.worst_tier()
        if worst is None:
            if not self.results:
                return "No scenarios were run."
            if not errors:
                return (
                    f"Every scenario passed ({self.passed}/{self.total}); "
                    "no tier or fact stood out."
                )
            return (
                f"Every scenario that ran passed ({self.passed}/{self.ran}); "
                f"no tier or fact stood out; not judged: {errors}."
            )
        line = (
            f"Worst tier: {worst.tier} ({worst.passed}/{worst.ran} passed, "
            f"{format_pct(worst.passed, worst.ran)})"
        )
        facts = self.struggled_facts()
        if facts:
            named = ", ".join(
                f"[{fact}] ({n} {'scenario' if n == 1 else 'scenarios'})" for fact, n in facts
            )
            line += f"; the agent struggled most with {named}."
        else:
            line += "; the failing scenarios carry no source_fact ids."
        if errors:
            line += f" Not judged: {errors}."
        if self.cancelled:
            line += " (Run cancelled before every scenario finished.)"
        return line


def format_pct(part: int, total: int) -> str:
    """Whole-percent display used by the report.

    >>> format_pct(14, 19), format_pct(0, 0)
    ('74%', '—')
    """
    return f"{part / total:.0%}" if total else "—"
