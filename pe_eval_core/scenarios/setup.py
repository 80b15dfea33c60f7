"""Build the target and choose the judge: the one policy every surface calls.

The CLI, the dashboard (and, later, the gate and the MCP server) describe what the user asked
for; these two functions turn it into a ``Target`` and a ``Judge``, so the surfaces cannot
drift apart.

Judge policy, first match wins:

1. ``use_judge=False``: no judge; candidate misses stay missed.
2. ``verdicts``: recorded verdicts from that file.
3. Recorded responses (``recorded_target``) without ``live_judge``: a ``judge-verdicts.json``
   beside the scenarios file, when present (the shipped demo verdicts).
4. An Anthropic key (``api_key``, else ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_AUTH_TOKEN``) and
   ``allow_live``: the live judge behind its SQLite cache (``cache``, the ``--judge-cache``
   file). Its model is ``judge_model``, else ``$PE_EVAL_JUDGE_MODEL``, else the default
   judge model, which differs from ``target_model`` (``judge.default_judge_model``).
5. Otherwise a ``CacheOnlyJudge`` (an ``UnavailableJudge``): verdicts already in the cache
   for that judge model and prompt are used; a scenario that needs any other verdict reports
   ``judge error`` saying how to configure a judge (never a silent pass or a silent miss).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pe_eval_core.errors import TargetConfigError
from pe_eval_core.scenarios.judge import (
    JUDGE_PROMPT_VERSION,
    AnthropicJudge,
    Judge,
    JudgeContext,
    RecordedJudge,
    UnavailableJudge,
    default_judge_model,
)
from pe_eval_core.scenarios.judge_cache import CachedJudge
from pe_eval_core.scenarios.models import JudgeOutcome
from pe_eval_core.scenarios.targets import (
    DEFAULT_SKILL,
    AnthropicTarget,
    HttpTarget,
    RecordedTarget,
    Target,
)

if TYPE_CHECKING:
    from pe_eval_core.access import AgentUrl
    from pe_eval_core.scenarios.agent_loop import AgentBounds, McpToolbox

TargetKind = Literal["recorded", "anthropic", "http"]
"""The agents under test a surface can pick."""

RESPONSES_BESIDE = "recorded-responses.json"
"""The recorded responses looked for beside the scenarios file when none is named."""

VERDICTS_BESIDE = "judge-verdicts.json"
"""The recorded judge verdicts used beside the scenarios file for recorded responses."""

NO_JUDGE_CONFIGURED = (
    "no paraphrase judge is configured: set ANTHROPIC_API_KEY for the live judge, pass "
    "--judge-verdicts FILE, or pass --no-judge to leave candidate misses missed"
)
"""The reason an ``UnavailableJudge`` gives (the CLI's wording, kept as it was)."""


def make_target(
    kind: TargetKind,
    *,
    scenarios_path: str | os.PathLike[str],
    responses: str | os.PathLike[str] | None = None,
    skill: str | os.PathLike[str] = DEFAULT_SKILL,
    model: str | None = None,
    agent_url: str | None = None,
    timeout_s: float = 120.0,
    api_key: str | None = None,
    toolbox: McpToolbox | None = None,
    bounds: AgentBounds | None = None,
    agent_headers: Mapping[str, str] | None = None,
    agent_connect: AgentUrl | None = None,
) -> Target:
    """The agent under test.

    ``recorded`` replays ``responses`` (default: ``recorded-responses.json`` beside
    ``scenarios_path``); ``anthropic`` runs ``model`` on ``skill``; ``http`` posts to
    ``agent_url`` (with ``agent_headers``, e.g. its credentials, and ``agent_connect``, the
    address a member's URL was pinned to); ``toolbox`` and ``bounds`` give the anthropic
    target its MCP tools and loop limits. Configuration problems raise
    ``TargetConfigError`` (or a subclass).

    >>> make_target("recorded", scenarios_path=".mimic/exports/mimic-scenarios.json").name
    'recorded:.mimic/exports/recorded-responses.json'
    """
    if kind == "recorded":
        return RecordedTarget(responses or Path(scenarios_path).parent / RESPONSES_BESIDE)
    if kind == "anthropic":
        return AnthropicTarget(
            skill, model=model, api_key=api_key, timeout_s=timeout_s, toolbox=toolbox, bounds=bounds
        )
    if not agent_url:
        raise TargetConfigError(
            "--target http needs --agent-url",
            diagnosis="The http target posts each scenario to the agent's URL",
            fix="Give the agent URL, e.g. http://host:port/path.",
            input="agent_url",
        )
    return HttpTarget(agent_url, timeout_s=timeout_s, headers=agent_headers, connect=agent_connect)


def anthropic_key_available(api_key: str | None = None) -> bool:
    """Whether a live Anthropic call has credentials: ``api_key`` or the environment."""
    return bool(
        api_key or os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")
    )


class CacheOnlyJudge(UnavailableJudge):
    """No live judge: answers from the verdict cache, a judge error for anything uncached."""

    def __init__(self, reason: str, model: str, cache: str | os.PathLike[str] | None = None):
        super().__init__(reason, model=model, prompt_version=JUDGE_PROMPT_VERSION)
        self.cached = CachedJudge(UnavailableJudge(reason, model, JUDGE_PROMPT_VERSION), cache)
        self.db_path = self.cached.db_path

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        return await self.cached.judge(scenario, response, expected, context=context)


def choose_judge(
    *,
    scenarios_path: str | os.PathLike[str],
    use_judge: bool = True,
    verdicts: str | os.PathLike[str] | None = None,
    recorded_target: bool = True,
    live_judge: bool = False,
    judge_model: str | None = None,
    cache: str | os.PathLike[str] | None = None,
    api_key: str | None = None,
    timeout_s: float = 60.0,
    target_model: str | None = None,
    allow_live: bool = True,
) -> Judge | None:
    """The paraphrase judge, by the policy in this module's docstring (None: no judge).

    ``judge_model`` is the judge's own model; ``target_model`` (the agent's model, when the
    target is a model) only steers the default away from it. ``cache`` is the verdict cache
    file (default ``$PE_EVAL_HOME/judge_cache.sqlite3``), used with or without a key.
    ``allow_live=False`` never builds a paid judge (the MCP server: no confirmation there).

    >>> choose_judge(scenarios_path=".mimic/exports/mimic-scenarios.json").model
    'recorded:claude-sonnet-4-5'
    >>> choose_judge(scenarios_path="x.json", target_model="claude-opus-4-5",
    ...              allow_live=False).model  # doctest: +SKIP
    'claude-sonnet-4-5'
    >>> choose_judge(scenarios_path="x.json", use_judge=False) is None
    True
    """
    if not use_judge:
        return None
    if verdicts is not None:
        return RecordedJudge(verdicts)
    beside = Path(scenarios_path).parent / VERDICTS_BESIDE
    if recorded_target and not live_judge and beside.is_file():
        return RecordedJudge(beside)
    model = judge_model or default_judge_model(target_model)
    if allow_live and anthropic_key_available(api_key):
        return CachedJudge(AnthropicJudge(model, api_key=api_key, timeout_s=timeout_s), cache)
    return CacheOnlyJudge(NO_JUDGE_CONFIGURED, model, cache)
