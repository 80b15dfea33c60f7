"""Scenario evaluation: run Mimic scenarios against an agent, score them, report by tier.

The public API, re-exported once here. Importing it is cheap: the ``anthropic`` and ``httpx2``
clients are imported only when a live target or judge makes its first call.

>>> from pe_eval_core.scenarios import load_scenarios, run_scenarios_sync, RecordedTarget
"""

from __future__ import annotations

from pe_eval_core.paths import pe_eval_home
from pe_eval_core.scenarios.agent.protocol import Target, TargetBase
from pe_eval_core.scenarios.agent.targets import (
    AnthropicTarget,
    HttpTarget,
    RecordedTarget,
    default_model,
)
from pe_eval_core.scenarios.loading import (
    LoadedScenarios,
    load_recorded,
    load_scenarios,
    write_recorded,
)
from pe_eval_core.scenarios.models import (
    KNOWN_TIERS,
    BehaviourResult,
    Expect,
    ExpectationResult,
    JudgeOutcome,
    JudgeVerdict,
    NumericRange,
    NumericResult,
    RecordedResponse,
    Scenario,
    ScenarioMetadata,
    ScenarioResult,
    ScenarioRun,
    TargetResponse,
    TierSummary,
)
from pe_eval_core.scenarios.run.report import (
    render_markdown_report,
    run_from_json,
    run_to_csv,
    run_to_json,
    run_to_junit_xml,
)
from pe_eval_core.scenarios.run.runner import run_scenarios, run_scenarios_sync
from pe_eval_core.scenarios.run.setup import CacheOnlyJudge, choose_judge, make_target
from pe_eval_core.scenarios.scoring.judge import (
    JUDGE_PROMPT_VERSION,
    AnthropicJudge,
    Judge,
    JudgeBase,
    RecordedJudge,
    UnavailableJudge,
)
from pe_eval_core.scenarios.scoring.judge.cache import CachedJudge, default_cache_path
from pe_eval_core.scenarios.scoring.score import ascore_response, score_response

__all__ = [
    "JUDGE_PROMPT_VERSION",
    "KNOWN_TIERS",
    "AnthropicJudge",
    "AnthropicTarget",
    "BehaviourResult",
    "CacheOnlyJudge",
    "CachedJudge",
    "Expect",
    "ExpectationResult",
    "HttpTarget",
    "Judge",
    "JudgeBase",
    "JudgeOutcome",
    "JudgeVerdict",
    "LoadedScenarios",
    "NumericRange",
    "NumericResult",
    "RecordedJudge",
    "RecordedResponse",
    "RecordedTarget",
    "Scenario",
    "ScenarioMetadata",
    "ScenarioResult",
    "ScenarioRun",
    "Target",
    "TargetBase",
    "TargetResponse",
    "TierSummary",
    "UnavailableJudge",
    "ascore_response",
    "choose_judge",
    "default_cache_path",
    "default_model",
    "load_recorded",
    "load_scenarios",
    "make_target",
    "pe_eval_home",
    "render_markdown_report",
    "run_from_json",
    "run_scenarios",
    "run_scenarios_sync",
    "run_to_csv",
    "run_to_json",
    "run_to_junit_xml",
    "score_response",
    "write_recorded",
]
