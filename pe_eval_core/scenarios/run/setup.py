"""Build the target and choose the judge: the one policy every surface calls.

The CLI, the dashboard (and, later, the gate and the MCP server) describe what the user asked
for; these two functions turn it into a ``Target`` and a ``Judge``, so the surfaces cannot
drift apart.

Judge policy, first match wins:

1. ``use_judge=False``: no judge; candidate misses stay missed.
2. ``verdicts``: recorded verdicts from that file.
3. Recorded responses (``recorded_target``) without ``live_judge``: the verdicts saved with
   the responses (a live run's ``responses.json`` carries them, keyed by response sha256,
   prompt version and model; of ``judge_model`` only when one is named), then a
   ``judge-verdicts.json`` beside the scenarios file (the shipped demo verdicts) for the
   responses it was recorded for (by sha256) and no other, then rule 4 or 5 for whatever
   phrase neither answers (``scoring.judge.chain.ChainJudge``). Neither present: rule 4 or 5.
4. An Anthropic key (``api_key``, else ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_AUTH_TOKEN``) and
   ``allow_live``: the live judge behind its SQLite cache (``cache``, the ``--judge-cache``
   file). Its model is ``options.judge_model``, else ``$PE_EVAL_JUDGE_MODEL``, else the default
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
from pe_eval_core.scenarios.agent.as_of import resolve_as_of
from pe_eval_core.scenarios.agent.targets import (
    DEFAULT_SKILL,
    AnthropicTarget,
    HttpTarget,
    RecordedTarget,
    Target,
)
from pe_eval_core.scenarios.models import JudgeOutcome
from pe_eval_core.scenarios.options import DEFAULTS, RunOptions
from pe_eval_core.scenarios.scoring.judge import (
    JUDGE_PROMPT_VERSION,
    AnthropicJudge,
    Judge,
    JudgeContext,
    JudgeKind,
    RecordedJudge,
    UnavailableJudge,
    default_judge_model,
)
from pe_eval_core.scenarios.scoring.judge.cache import CachedJudge
from pe_eval_core.scenarios.scoring.judge.chain import ChainJudge, embedded_verdicts

if TYPE_CHECKING:
    from pe_eval_core.access import AgentUrl
    from pe_eval_core.scenarios.agent.loop import AgentBounds, McpToolbox
    from pe_eval_core.scenarios.agent.mcp_config import McpConfig

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
    api_key: str | None = None,
    toolbox: McpToolbox | None = None,
    options: RunOptions = DEFAULTS,
    agent_headers: Mapping[str, str] | None = None,
    agent_connect: AgentUrl | None = None,
) -> Target:
    """The agent under test.

    ``recorded`` replays ``responses`` (default: ``recorded-responses.json`` beside
    ``scenarios_path``); ``anthropic`` runs ``model`` on ``skill`` with ``toolbox`` (its MCP
    tools, see :func:`make_toolbox`); ``http`` posts to ``agent_url`` (with ``agent_headers``,
    e.g. its credentials, and ``agent_connect``, the address a member's URL was pinned to).
    The call timeout, the tool-use loop's limits and the analysis date (``options.as_of``,
    default: the Mimic project's, see
    :func:`~pe_eval_core.scenarios.agent.as_of.resolve_as_of`) come from ``options``.
    Configuration problems raise
    ``TargetConfigError`` (or a subclass).

    >>> make_target("recorded", scenarios_path=".mimic/exports/mimic-scenarios.json").name
    'recorded:.mimic/exports/recorded-responses.json'
    """
    if kind == "recorded":
        return RecordedTarget(responses or Path(scenarios_path).parent / RESPONSES_BESIDE)
    if kind == "anthropic":
        return AnthropicTarget(
            skill,
            model=model,
            api_key=api_key,
            timeout_s=options.timeout_s,
            toolbox=toolbox,
            bounds=agent_bounds(options),
            as_of=resolve_as_of(options.as_of, scenarios_path),
        )
    if not agent_url:
        raise TargetConfigError(
            "--target http needs --agent-url",
            diagnosis="The http target posts each scenario to the agent's URL",
            fix="Give the agent URL, e.g. http://host:port/path.",
            input="agent_url",
        )
    return HttpTarget(
        agent_url, timeout_s=options.timeout_s, headers=agent_headers, connect=agent_connect
    )


def agent_bounds(options: RunOptions = DEFAULTS) -> AgentBounds:
    """The tool-use loop's limits of a run."""
    from pe_eval_core.scenarios.agent.loop import AgentBounds

    return AgentBounds(
        max_turns=options.max_turns,
        max_tool_calls=options.max_tool_calls,
        tool_timeout_s=options.tool_timeout_s,
        max_tokens=options.max_tokens,
    )


def make_toolbox(config: McpConfig, options: RunOptions = DEFAULTS) -> McpToolbox | None:
    """The MCP servers of ``config`` behind the run's tool policy (the read allow-list plus
    ``options.allow_tools`` by exact name; off with ``options.allow_writes``); None when it
    names no server."""
    if not config.servers:
        return None
    from pe_eval_core.scenarios.agent.loop import McpToolbox
    from pe_eval_core.scenarios.agent.tool_policy import ToolPolicy

    return McpToolbox(
        config, ToolPolicy(allow=options.allow_tools, allow_writes=options.allow_writes)
    )


def anthropic_key_available(api_key: str | None = None) -> bool:
    """Whether a live Anthropic call has credentials: ``api_key`` or the environment."""
    return bool(
        api_key or os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")
    )


class CacheOnlyJudge(UnavailableJudge):
    """No live judge: answers from the verdict cache, a judge error for anything uncached."""

    kind: JudgeKind = "cache only"

    def __init__(self, reason: str, model: str, cache: str | os.PathLike[str] | None = None):
        super().__init__(reason, model=model, prompt_version=JUDGE_PROMPT_VERSION)
        self.cached = CachedJudge(UnavailableJudge(reason, model, JUDGE_PROMPT_VERSION), cache)
        self.db_path = self.cached.db_path
        self.source = self.cached.location

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
    cache: str | os.PathLike[str] | None = None,
    api_key: str | None = None,
    target_model: str | None = None,
    allow_live: bool = True,
    options: RunOptions = DEFAULTS,
    target: Target | None = None,
) -> Judge | None:
    """The paraphrase judge, by the policy in this module's docstring (None: no judge).

    ``options.judge_model`` is the judge's own model; ``target_model`` (the agent's model,
    when the target is a model) only steers the default away from it. ``cache`` is the verdict cache
    file (default ``$PE_EVAL_HOME/judge_cache.sqlite3``), used with or without a key.
    ``allow_live=False`` never builds a paid judge (the MCP server: no confirmation there).
    ``target``: the recorded target whose responses file may carry saved verdicts (rule 3).

    >>> choose_judge(scenarios_path=".mimic/exports/mimic-scenarios.json").model
    'recorded:claude-sonnet-4-5'
    >>> choose_judge(scenarios_path="x.json", target_model="claude-opus-5-5",
    ...              allow_live=False).model  # doctest: +SKIP
    'claude-sonnet-5-5'
    >>> choose_judge(scenarios_path="x.json", use_judge=False) is None
    True
    """
    if not use_judge:
        return None
    if verdicts is not None:
        return RecordedJudge(verdicts)
    model = options.judge_model or default_judge_model(target_model)
    fallback: Judge
    if allow_live and anthropic_key_available(api_key):
        live = AnthropicJudge(model, api_key=api_key, timeout_s=options.judge_timeout_s)
        fallback = CachedJudge(live, cache)
    else:
        fallback = CacheOnlyJudge(NO_JUDGE_CONFIGURED, model, cache)
    if recorded_target and not live_judge:
        saved = embedded_verdicts(target, options.judge_model) if target is not None else None
        beside = Path(scenarios_path).parent / VERDICTS_BESIDE
        file = RecordedJudge(beside) if beside.is_file() else None
        if saved is not None or file is not None:
            return ChainJudge(saved, file, fallback)
    return fallback
