"""The live judge: Claude with one forced tool, temperature 0, the SDK's retries (asked, not
forced, on a model that refuses forced tools)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pe_eval_core.errors import JudgeError
from pe_eval_core.redact import redact
from pe_eval_core.scenarios.llm.client import AnthropicClientOwner
from pe_eval_core.scenarios.llm.sampling import takes_temperature
from pe_eval_core.scenarios.models import JudgeOutcome
from pe_eval_core.scenarios.options import DEFAULTS
from pe_eval_core.scenarios.scoring.judge.prompt import (
    DEFAULT_JUDGE_MAX_TOKENS,
    JUDGE_PROMPT_VERSION,
    JUDGE_SYSTEM_PROMPT,
    JUDGE_TOOL,
    JUDGE_TOOL_NAME,
    build_judge_message,
    verdicts_from_tool_input,
)
from pe_eval_core.scenarios.scoring.judge.protocol import JudgeBase, JudgeContext, JudgeKind

JUDGE_MODEL_ENV = "PE_EVAL_JUDGE_MODEL"

LIVE_SOURCE = "live call"
"""``JudgeVerdict.source`` of a verdict the model gave in this run."""


DEFAULT_JUDGE_MODEL = "claude-opus-5-5"
"""The judge's default: another model than the default target (``targets.DEFAULT_MODEL``),
so an agent is not graded by its own model. Claude Opus 5.5, the current Opus ($4 / $20 per
million tokens) and the replacement Anthropic names for ``claude-opus-4-5`` (the previous
default, deprecated: end of life 2027-01-22 in the SDK's ``DEPRECATED_MODELS``)."""

FALLBACK_JUDGE_MODEL = "claude-sonnet-5-5"
"""The default when the target runs ``DEFAULT_JUDGE_MODEL`` itself."""

NO_FORCED_TOOL_MODELS: tuple[str, ...] = (
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-fable-5-1",
)
"""Models that answer a forced ``tool_choice`` with HTTP 400 (thinking is always on): the
judge offers its one tool with ``tool_choice: auto``, sends no temperature, and a reply that
does not call the tool is a judge error (fail closed, as before). A model not listed that
refuses forced tool use is retried once the same way and remembered for the run."""


def forces_tool(model: str) -> bool:
    """Whether the judge may force its tool on ``model`` (a dated snapshot counts as its alias).

    >>> forces_tool("claude-opus-4-5"), forces_tool("claude-opus-5-5"), forces_tool("x-5-5")
    (True, False, True)
    """
    return not any(model == m or model.startswith(m + "-") for m in NO_FORCED_TOOL_MODELS)


def default_judge_model(target_model: str | None = None) -> str:
    """``$PE_EVAL_JUDGE_MODEL`` if set, else ``DEFAULT_JUDGE_MODEL``, unless that is the
    target's own model (then ``FALLBACK_JUDGE_MODEL``).

    The judge's own setting: a target's ``--model`` never becomes the judge.

    >>> default_judge_model(), default_judge_model("claude-opus-5-5")  # doctest: +SKIP
    ('claude-opus-5-5', 'claude-sonnet-5-5')
    """
    chosen = os.environ.get(JUDGE_MODEL_ENV)
    if chosen:
        return chosen
    if target_model is not None and target_model == DEFAULT_JUDGE_MODEL:
        return FALLBACK_JUDGE_MODEL
    return DEFAULT_JUDGE_MODEL


class AnthropicJudge(AnthropicClientOwner, JudgeBase):
    """The live judge: Claude with one forced tool, temperature 0, the SDK's retries (on a
    model that refuses forced tools, see :data:`NO_FORCED_TOOL_MODELS`: the tool offered
    with ``tool_choice: auto``, no temperature).

    The client lifecycle is ``AnthropicClientOwner``'s (``async with`` opens one per run; a
    bare ``judge()`` call opens and closes its own).
    """

    live = True
    kind: JudgeKind = "live"

    def __init__(
        self,
        model: str | None = None,
        api_key: str | None = None,
        http_client: Any = None,
        *,
        max_retries: int = 3,
        timeout_s: float = DEFAULTS.judge_timeout_s,
        max_tokens: int = DEFAULT_JUDGE_MAX_TOKENS,
    ):
        super().__init__(
            api_key,
            http_client,
            max_retries=max_retries,
            timeout_s=timeout_s,
            max_tokens=max_tokens,
        )
        self.model = model or default_judge_model()
        self.prompt_version = JUDGE_PROMPT_VERSION
        self.force_tool = forces_tool(self.model)

    def request(
        self, response: str, expected: Sequence[str], context: JudgeContext | None = None
    ) -> dict[str, Any]:
        """The exact ``messages.create`` arguments (public so tests and docs can show them)."""
        message = build_judge_message(response, expected, context)
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self._max_tokens,
            "system": JUDGE_SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": message}],
            "tools": [JUDGE_TOOL],
        }
        if self.force_tool:
            request["tool_choice"] = {"type": "tool", "name": JUDGE_TOOL_NAME}
            # The 2.x SDK has no ``temperature`` keyword; the API still takes the field
            # (only before the 5 generation: later models refuse it, ``llm.sampling``).
            if takes_temperature(self.model):
                request["extra_body"] = {"temperature": 0}
        else:
            request["tool_choice"] = {"type": "auto"}
        return request

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        import anthropic

        try:
            try:
                message = await self._create_message(self.request(response, expected, context))
            except anthropic.BadRequestError as exc:
                if not (self.force_tool and "tool_choice" in str(exc.message)):
                    raise
                self.force_tool = False  # this model refuses forced tools: ask, do not force
                message = await self._create_message(self.request(response, expected, context))
        except anthropic.APIStatusError as exc:
            raise JudgeError(
                f"judge call failed: HTTP {exc.status_code}: {_excerpt(str(exc.message))}"
            ) from exc
        except anthropic.APIError as exc:
            raise JudgeError(
                f"judge call failed: {type(exc).__name__}: {_excerpt(str(exc))}"
            ) from exc
        block = next(
            (
                b
                for b in message.content
                if getattr(b, "type", None) == "tool_use" and b.name == JUDGE_TOOL_NAME
            ),
            None,
        )
        if block is None:
            raise JudgeError(
                f"judge did not call {JUDGE_TOOL_NAME} (stop_reason {message.stop_reason})"
            )
        verdicts = [
            v.model_copy(update={"source": LIVE_SOURCE})
            for v in verdicts_from_tool_input(
                block.input,
                expected,
                model=self.model,
                prompt_version=self.prompt_version,
                response=response,
            )
        ]
        return JudgeOutcome(
            verdicts=verdicts,
            model=self.model,
            prompt_version=self.prompt_version,
            tokens_in=message.usage.input_tokens,
            tokens_out=message.usage.output_tokens,
            calls=1,
        )


def _excerpt(text: str, limit: int = 300) -> str:
    text = " ".join(redact(text).split())  # the judge's one choke point for secrets
    return text if len(text) <= limit else text[: limit - 1] + "…"
