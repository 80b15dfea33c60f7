"""Per-scenario results: the judge's verdicts, each expectation's outcome, the scenario's
status, and why a scenario produced no verdict (its error kind).

Plain data that round-trips through JSON, so a saved run can be re-rendered or compared
without re-running anything.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field
from typing_extensions import TypedDict

from pe_eval_core.numbers import number_values
from pe_eval_core.scenarios.models.scenario import BehaviourCheck, Method, Status
from pe_eval_core.scenarios.trace import ToolTrace


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
    source: str | None = None
    """Where the verdict came from: ``live call``, ``verdict cache``, a recorded verdicts
    file's name, or ``<responses file> (recorded with the responses)``."""


class JudgeOutcome(BaseModel):
    """One judge call (or cache hit) for one scenario: its verdicts and what it cost."""

    verdicts: list[JudgeVerdict]
    model: str
    prompt_version: str
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0
    """Paid calls made (0 when every verdict came from the cache or a recorded file)."""


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
    judge_source: str | None = None
    """Where the judge's verdict came from (``JudgeVerdict.source``)."""


class NumberSeen(TypedDict):
    """One number as the range reader saw it (``range_reader.NumberRead``, as data): a plain
    dict, keys in this order.

    Not a model and not a dataclass: a response has dozens of numbers per range and a run
    keeps every result, so 10,000 responses hold some 320,000 of these. A dict of strings,
    numbers and booleans is one the garbage collector does not track; a dataclass instance
    is, and every full collection walks all of them (about a third of scoring 10,000
    recorded responses went to the collector). pydantic validates it when a result is built
    or loaded, and serialises and documents it as a field of ``NumericResult``."""

    raw: str
    value: float
    kind: str
    accepted: bool
    read_as: float | None
    reason: str


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
    judge_verdicts: list[JudgeVerdict] = Field(default_factory=list)
    """The judge's answers for this response as it gave them (before the evidence checks,
    which rescoring repeats): saved with the response so a re-score reproduces them."""
    tool_calls: list[Any] = Field(default_factory=list)
    trace: ToolTrace | None = None
    """The agent's tool trace for this scenario (None: the target reported none)."""
    write_failure: str | None = None
    """Why the trace fails a read-only scenario (a write it did not expect: refused, or run
    on the server), or None."""
    write_attempts: list[str] = Field(default_factory=list)
    """Write tools the read-only policy refused (``server/tool``; they never ran)."""
    writes_executed: list[str] = Field(default_factory=list)
    """Write tools that ran (an HTTP agent's reported toolCalls, or ``--allow-writes``): the
    change stays on the server for later scenarios."""
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
