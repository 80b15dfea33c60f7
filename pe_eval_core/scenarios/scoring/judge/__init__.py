"""The paraphrase judge: one forced-tool model call per scenario, verdicts that fail closed.

- :mod:`.protocol`: the ``Judge`` protocol, its context, the stand-in when none is configured;
- :mod:`.prompt`: the prompt, the forced tool, its version, the delimited response;
- :mod:`.fail_closed`: the checks every verdict passes (verbatim quote, numbers stated);
- :mod:`.live`: the Anthropic judge; :mod:`.recorded`: verdicts from a file;
- :mod:`.cache`: verdicts remembered on disk, so re-scoring an unchanged run is free.
"""

from pe_eval_core.scenarios.scoring.judge.cache import (
    CACHE_FILENAME,
    CachedJudge,
    default_cache_path,
)
from pe_eval_core.scenarios.scoring.judge.fail_closed import (
    enforce_evidence,
    evidence_in_response,
    numbers_missing_at_quote,
    numbers_missing_from_evidence,
    numbers_never_stated,
)
from pe_eval_core.scenarios.scoring.judge.live import (
    DEFAULT_JUDGE_MODEL,
    FALLBACK_JUDGE_MODEL,
    JUDGE_MODEL_ENV,
    AnthropicJudge,
    default_judge_model,
)
from pe_eval_core.scenarios.scoring.judge.prompt import (
    DEFAULT_JUDGE_MAX_TOKENS,
    JUDGE_PROMPT_VERSION,
    JUDGE_SYSTEM_PROMPT,
    JUDGE_TOOL,
    JUDGE_TOOL_NAME,
    NO_VERDICT,
    build_judge_message,
    neutralise,
    response_marker_id,
    verdicts_from_tool_input,
)
from pe_eval_core.scenarios.scoring.judge.protocol import (
    CLAIM_PREFIX,
    Judge,
    JudgeBase,
    JudgeContext,
    JudgeKind,
    UnavailableJudge,
    response_sha256,
)
from pe_eval_core.scenarios.scoring.judge.recorded import (
    RecordedJudge,
    stamp_recorded_verdicts,
)

__all__ = [
    "CACHE_FILENAME",
    "CLAIM_PREFIX",
    "DEFAULT_JUDGE_MAX_TOKENS",
    "DEFAULT_JUDGE_MODEL",
    "FALLBACK_JUDGE_MODEL",
    "JUDGE_MODEL_ENV",
    "JUDGE_PROMPT_VERSION",
    "JUDGE_SYSTEM_PROMPT",
    "JUDGE_TOOL",
    "JUDGE_TOOL_NAME",
    "NO_VERDICT",
    "AnthropicJudge",
    "CachedJudge",
    "Judge",
    "JudgeBase",
    "JudgeContext",
    "JudgeKind",
    "RecordedJudge",
    "UnavailableJudge",
    "build_judge_message",
    "default_cache_path",
    "default_judge_model",
    "enforce_evidence",
    "evidence_in_response",
    "neutralise",
    "numbers_missing_at_quote",
    "numbers_missing_from_evidence",
    "numbers_never_stated",
    "response_marker_id",
    "response_sha256",
    "stamp_recorded_verdicts",
    "verdicts_from_tool_input",
]
