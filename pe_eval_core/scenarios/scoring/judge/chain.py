"""Re-scoring that reproduces anywhere: verdicts saved with the responses come first.

A live run saves, with each response in ``responses.json``, the judge's verdicts on it
(:func:`recorded_verdicts`), each keyed by the response's sha256, the judge prompt version and
the judge model. Re-scoring that file (``scenarios score --responses FILE``, on any machine,
with no key) asks :class:`ChainJudge`, which answers each phrase from, in order:

1. the verdicts saved with the responses (:class:`EmbeddedVerdicts`): only for the response
   text they judged, under the current prompt version;
2. a verdicts file (e.g. the demo's ``judge-verdicts.json`` beside the scenarios): only its
   verdicts keyed to this very response, never hand-written unkeyed ones;
3. the judge the policy would otherwise use (the cached live judge with a key, else the
   cache alone), for whatever phrase neither answered.

Every verdict says where it came from (``JudgeVerdict.source``) and the report counts them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios.models import JudgeOutcome, JudgeVerdict, RecordedResponse
from pe_eval_core.scenarios.models.scenario import RecordedVerdict
from pe_eval_core.scenarios.scoring.judge.fail_closed import enforce_evidence
from pe_eval_core.scenarios.scoring.judge.prompt import JUDGE_PROMPT_VERSION
from pe_eval_core.scenarios.scoring.judge.protocol import (
    Judge,
    JudgeBase,
    JudgeContext,
    JudgeKind,
    response_sha256,
)
from pe_eval_core.scenarios.scoring.judge.recorded import RecordedJudge

EMBEDDED = "recorded with the responses"


def recorded_verdicts(response: str, verdicts: Sequence[JudgeVerdict]) -> list[RecordedVerdict]:
    """The judge's verdicts on ``response``, keyed to it, as saved in a responses file."""
    digest = response_sha256(response)
    return [
        RecordedVerdict(
            expected=v.expected,
            verdict=v.verdict,
            evidence=v.evidence,
            reason=v.reason,
            model=v.model,
            prompt_version=v.prompt_version,
            response_sha256=digest,
        )
        for v in verdicts
    ]


class EmbeddedVerdicts:
    """The verdicts a responses file carries, by (response sha256, phrase)."""

    def __init__(
        self,
        records: Mapping[str, RecordedResponse],
        label: str,
        *,
        prompt_version: str = JUDGE_PROMPT_VERSION,
        model: str | None = None,
    ):
        self.source = f"{label} ({EMBEDDED})"
        self._index: dict[tuple[str, str], RecordedVerdict] = {}
        self.stale = 0
        """Saved verdicts left unused: judged under another prompt version."""
        self.models: list[str] = []
        for rec in records.values():
            for v in rec.verdicts:
                if v.prompt_version != prompt_version:
                    self.stale += 1
                    continue
                if model is not None and v.model != model:
                    continue  # another judge model was asked for
                self._index[(v.response_sha256.lower(), v.expected)] = v
                if v.model not in self.models:
                    self.models.append(v.model)

    def __len__(self) -> int:
        return len(self._index)

    def get(self, digest: str, expected: str) -> JudgeVerdict | None:
        v = self._index.get((digest, expected))
        if v is None:
            return None
        return JudgeVerdict(
            expected=expected,
            verdict=v.verdict,
            evidence=v.evidence,
            reason=v.reason,
            model=v.model,
            prompt_version=v.prompt_version,
            source=self.source,
        )

    @property
    def warnings(self) -> list[str]:
        if not self.stale:
            return []
        return [
            f"{self.stale} verdicts saved with the responses were judged under another judge "
            f"prompt (now {JUDGE_PROMPT_VERSION}) and are not used"
        ]


class ChainJudge(JudgeBase):
    """Saved verdicts first, then a verdicts file's keyed ones, then ``fallback`` (see the
    module docstring). Its model is the saved verdicts' (or the file's) when they come from
    one judge model, so a re-score names the judge that actually decided."""

    def __init__(
        self,
        embedded: EmbeddedVerdicts | None,
        recorded: RecordedJudge | None,
        fallback: Judge | None,
    ):
        self.embedded = embedded
        self.recorded = recorded
        self.fallback = fallback
        self.live = bool(getattr(fallback, "live", False))
        self.kind: JudgeKind = "recorded"
        self.prompt_version = JUDGE_PROMPT_VERSION
        if self.embedded is not None and len(self.embedded.models) == 1:
            self.model = self.embedded.models[0]
        elif recorded is not None:
            self.model = recorded.model
        else:
            self.model = getattr(fallback, "model", "none")

    @property
    def warnings(self) -> Sequence[str]:  # type: ignore[override]
        out = list(self.embedded.warnings) if self.embedded is not None else []
        out += self.recorded.warnings if self.recorded is not None else []
        out += list(getattr(self.fallback, "warnings", None) or [])
        return out

    @property
    def sources(self) -> list[str]:
        """Where verdicts may come from, in order (for the run header and the report)."""
        out = [self.embedded.source] if self.embedded is not None else []
        if self.recorded is not None:
            out.append(f"{self.recorded.path.name} (keyed to the responses it judged)")
        if self.fallback is not None:
            out.append(f"the judge {getattr(self.fallback, 'model', '?')} for the rest")
        return out

    @property
    def source(self) -> str:  # type: ignore[override]
        return ", then ".join(self.sources)

    @property
    def batchable(self) -> bool:
        return bool(getattr(self.fallback, "batchable", False))

    def use_batcher(self, batcher: Any) -> None:
        if self.fallback is not None:
            self.fallback.use_batcher(batcher)

    def needs_paid_call(self, response: str, expected: Sequence[str]) -> bool:
        """Only the phrases no saved verdict answers can cost anything (the fallback's call)."""
        digest = response_sha256(response)
        rest = [e for e in expected if self._saved(None, digest, e) is None]
        return (
            bool(rest)
            and self.fallback is not None
            and self.fallback.needs_paid_call(response, rest)
        )

    async def __aenter__(self) -> ChainJudge:
        enter = getattr(self.fallback, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(self, *exc: object) -> None:
        leave = getattr(self.fallback, "__aexit__", None)
        if leave is not None:
            await leave(*exc)

    def _saved(self, scenario: str | None, digest: str, expected: str) -> JudgeVerdict | None:
        if self.embedded is not None:
            found = self.embedded.get(digest, expected)
            if found is not None:
                return found
        if self.recorded is not None:
            return self.recorded.keyed_verdict(scenario, expected, digest)
        return None

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        digest = response_sha256(response)
        found: dict[str, JudgeVerdict] = {}
        for e in expected:
            v = self._saved(scenario, digest, e)
            if v is not None:
                found[e] = enforce_evidence(v, response)
        rest = [e for e in dict.fromkeys(expected) if e not in found]
        tokens_in = tokens_out = calls = 0
        if rest:
            if self.fallback is None:
                raise JudgeError(self._unanswered(scenario, rest))
            try:
                outcome = await self.fallback.judge(scenario, response, rest, context=context)
            except JudgeError as exc:
                raise JudgeError(f"{self._unanswered(scenario, rest)}; {exc}") from exc
            found.update({v.expected: v for v in outcome.verdicts})
            tokens_in, tokens_out, calls = outcome.tokens_in, outcome.tokens_out, outcome.calls
        return JudgeOutcome(
            verdicts=[found[e] for e in expected if e in found],
            model=self.model,
            prompt_version=self.prompt_version,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            calls=calls,
        )

    def _unanswered(self, scenario: str, rest: list[str]) -> str:
        where = " or ".join(s.split(" (")[0] for s in self.sources if not s.startswith("the judge"))
        more = f" (and {len(rest) - 1} more)" if len(rest) > 1 else ""
        why = ""
        if self.recorded is not None:
            why = self.recorded.why_absent(scenario, rest[0])
        return (
            f"no saved verdict{' in ' + where if where else ''} for scenario {scenario!r}, "
            f"expected {rest[0]!r}{more}" + (f" ({why})" if why else "")
        )


def embedded_verdicts(target: Any, model: str | None = None) -> EmbeddedVerdicts | None:
    """The verdicts a recorded target's file carries (of ``model`` only, when given); None
    when it carries none or the target is not a recorded one."""
    records = getattr(target, "records", None)
    path = getattr(target, "path", None)
    if not isinstance(records, Mapping) or not records:
        return None
    label = path.name if path is not None else "the responses"
    found = EmbeddedVerdicts(records, label, model=model)
    return found if len(found) or found.stale else None
