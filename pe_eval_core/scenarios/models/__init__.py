"""The data of a scenario evaluation: Mimic scenarios in, per-scenario results and a run out.

Inputs (:mod:`.scenario`: ``Scenario``, ``RecordedResponse``, ``TargetResponse``) are loaded
tolerantly (unknown keys kept as extras); outputs (:mod:`.result`: ``ScenarioResult``;
:mod:`.scenario_run`: ``ScenarioRun``) are plain data that round-trips through JSON, so a saved
run can be re-rendered or compared without re-running anything.
"""

from pe_eval_core.scenarios.models.manifest import RunManifest, ServerIdentity
from pe_eval_core.scenarios.models.result import (
    ERROR_KINDS,
    TRANSPORT_ERROR_KINDS,
    BehaviourResult,
    ExpectationResult,
    JudgeOutcome,
    JudgeVerdict,
    NumberSeen,
    NumericResult,
    ScenarioResult,
    error_kind_of,
    error_summary_line,
)
from pe_eval_core.scenarios.models.scenario import (
    KNOWN_TIERS,
    MIMIC_EXPECT_KEYS,
    UNTIERED,
    BehaviourCheck,
    Expect,
    Method,
    NumericRange,
    RecordedResponse,
    RecordedVerdict,
    Scenario,
    ScenarioMetadata,
    Status,
    TargetResponse,
    ToolExpectation,
)
from pe_eval_core.scenarios.models.scenario_run import (
    ScenarioRun,
    TierSummary,
    format_pct,
)

__all__ = [
    "ERROR_KINDS",
    "KNOWN_TIERS",
    "MIMIC_EXPECT_KEYS",
    "TRANSPORT_ERROR_KINDS",
    "UNTIERED",
    "BehaviourCheck",
    "BehaviourResult",
    "Expect",
    "ExpectationResult",
    "JudgeOutcome",
    "JudgeVerdict",
    "Method",
    "NumberSeen",
    "NumericRange",
    "NumericResult",
    "RecordedResponse",
    "RecordedVerdict",
    "RunManifest",
    "Scenario",
    "ScenarioMetadata",
    "ScenarioResult",
    "ScenarioRun",
    "ServerIdentity",
    "Status",
    "TargetResponse",
    "TierSummary",
    "ToolExpectation",
    "error_kind_of",
    "error_summary_line",
    "format_pct",
]
