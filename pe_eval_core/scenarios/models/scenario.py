"""Scenario inputs: Mimic scenarios and their expectations, and what a target answered.

Loaded tolerantly (unknown keys kept as extras, see :mod:`pe_eval_core.scenarios.loading`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pe_eval_core.files import unicode_text
from pe_eval_core.limits import over_response_limit
from pe_eval_core.redact import redact, redact_data
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

    def allowed_tools(self) -> tuple[str, ...]:
        """The tools this scenario allows by exact name (``allow_tools``: a list of ``tool``
        or ``server/tool``, or one string), on top of the run's tool policy; anything else in
        it is ignored.

        >>> meta = ScenarioMetadata.model_validate({"allow_tools": ["createRefund", 3, " "]})
        >>> meta.allowed_tools()
        ('createRefund',)
        """
        names = (self.model_extra or {}).get("allow_tools")
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list):
            return ()
        return tuple(n for n in names if isinstance(n, str) and n.strip())


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


class RecordedVerdict(BaseModel):
    """A judge verdict saved with the response it judged, keyed so it is used for nothing
    else: the response's sha256, the judge prompt version and the judge model."""

    model_config = ConfigDict(extra="allow")

    expected: str
    verdict: Literal["paraphrase", "missed"]
    evidence: str = ""
    reason: str = ""
    model: str
    prompt_version: str
    response_sha256: str


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
    verdicts: list[RecordedVerdict] = Field(default_factory=list)
    """The judge's verdicts on this response, so a re-score anywhere reproduces them."""


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
