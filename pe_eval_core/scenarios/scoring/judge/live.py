"""The live judge: Claude with one forced tool, temperature 0, the SDK's retries."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pe_eval_core.errors import JudgeError
from pe_eval_core.redact import redact
from pe_eval_core.scenarios.llm.client import AnthropicClientOwner
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


DEFAULT_JUDGE_MODEL = "claude-opus-4-5"
"""The judge's default: another model than the default target (``targets.DEFAULT_MODEL``),
so an agent is not graded by its own model."""

FALLBACK_JUDGE_MODEL = "claude-sonnet-4-5"
"""The default when the target runs ``DEFAULT_JUDGE_MODEL`` itself."""


def default_judge_model(target_model: str | None = None) -> str:
    """``$PE_EVAL_JUDGE_MODEL`` if set, else ``DEFAULT_JUDGE_MODEL``, unless that is the
    target's own model (then ``FALLBACK_JUDGE_MODEL``).

    The judge's own setting: a target's ``--model`` never becomes the judge.

    >>> default_judge_model(), default_judge_model("claude-opus-4-5")  # doctest: +SKIP
    ('claude-opus-4-5', 'claude-sonnet-4-5')
    """
    chosen = os.environ.get(JUDGE_MODEL_ENV)
    if chosen:
        return chosen
    if target_model is not None and target_model == DEFAULT_JUDGE_MODEL:
        return FALLBACK_JUDGE_MODEL
    return DEFAULT_JUDGE_MODEL


class AnthropicJudge(AnthropicClientOwner, JudgeBase):
    """The live judge: Claude with one forced tool, temperature 0, the SDK's retries.

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

    def request(
        self, response: str, expected: Sequence[str], context: JudgeContext | None = None
    ) -> dict[str, Any]:
        """The exact ``messages.create`` arguments (public so tests and docs can show them)."""
        message = build_judge_message(response, expected, context)
        return {
            "model": self.model,
            "max_tokens": self._max_tokens,
            "system": JUDGE_SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": message}],
            "tools": [JUDGE_TOOL],
            "tool_choice": {"type": "tool", "name": JUDGE_TOOL_NAME},
            # The 2.x SDK has no ``temperature`` keyword; the API still takes the field.
            "extra_body": {"temperature": 0},
        }

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
        verdicts = verdicts_from_tool_input(
            block.input,
            expected,
            model=self.model,
            prompt_version=self.prompt_version,
            response=response,
        )
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
