"""Recorded judge verdicts: a file of verdicts keyed by the response they judged, checked
exactly like live ones (the shipped demo verdicts)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pe_eval_core.errors import (
    JudgeError,
    JudgeVerdictsNotFoundError,
    JudgeVerdictsSchemaError,
    MalformedJudgeVerdictsError,
)
from pe_eval_core.files import read_json
from pe_eval_core.scenarios.models import JudgeOutcome, JudgeVerdict
from pe_eval_core.scenarios.scoring.judge.fail_closed import enforce_evidence
from pe_eval_core.scenarios.scoring.judge.prompt import JUDGE_PROMPT_VERSION
from pe_eval_core.scenarios.scoring.judge.protocol import (
    JudgeBase,
    JudgeContext,
    JudgeKind,
    response_sha256,
)


class _RecordedVerdict(BaseModel):
    model_config = ConfigDict(extra="allow")
    scenario: str
    expected: str
    verdict: Literal["paraphrase", "missed"]
    evidence: str = ""
    reason: str = ""
    response_sha256: str | None = None
    """sha256 of the response the verdict judged (hex); a verdict without one is ignored."""
    prompt_version: str | None = None
    """The judge prompt it was given under, when it differs from the file's."""


class _RecordedVerdictsFile(BaseModel):
    model_config = ConfigDict(extra="allow")
    label: str = Field(min_length=1)
    model: str = Field(min_length=1)
    prompt_version: str = Field(min_length=1)
    verdicts: list[_RecordedVerdict]


class RecordedJudge(JudgeBase):
    """Verdicts from a file (e.g. shipped demo verdicts), checked exactly like live ones.

    File shape: ``{"label": "recorded judge verdicts ...", "model": "...", "prompt_version":
    "...", "verdicts": [{"scenario", "expected", "verdict", "evidence", "reason",
    "response_sha256", "prompt_version"?}]}``. A keyed verdict (one with ``response_sha256``)
    is used only for the response it judged under the current judge prompt
    (``JUDGE_PROMPT_VERSION``; the entry's ``prompt_version`` else the file's); when a
    scenario's phrase has keyed verdicts and none matches, it is ignored and the reason is
    added to ``warnings``. An unkeyed (hand-written) verdict is used for any response, with a
    warning; the evidence checks still run against the response it is applied to. Verdicts
    are stamped ``model="recorded:<model>"`` and make no calls. A candidate miss with no
    usable verdict is a judge error naming why (the scenario reports ``judge error``, it
    never passes). ``stamp_recorded_verdicts`` rewrites a file's keys for the responses it
    was made for.
    """

    kind: JudgeKind = "recorded"

    def __init__(self, path: str | os.PathLike[str], *, prompt_version: str | None = None):
        self.path = Path(path)
        data = read_json(
            self.path, not_found=JudgeVerdictsNotFoundError, malformed=MalformedJudgeVerdictsError
        )
        if not isinstance(data, dict):
            raise JudgeVerdictsSchemaError(str(self.path), "(top level)", "expected an object")
        try:
            parsed = _RecordedVerdictsFile.model_validate(data)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = ".".join(str(x) for x in err["loc"]) or "(object)"
            raise JudgeVerdictsSchemaError(str(self.path), field, err["msg"]) from None
        self.label = parsed.label
        self.source = f"{self.path.name} ({self.label})"
        self.recorded_model = parsed.model
        self.model = f"recorded:{parsed.model}"
        self.current_prompt = prompt_version or JUDGE_PROMPT_VERSION
        self.prompt_version = parsed.prompt_version
        self.warnings: list[str] = []
        """Why recorded verdicts were ignored (response or prompt changed), one line each."""
        self._verdicts: dict[tuple[str, str, str], _RecordedVerdict] = {}
        self._unkeyed: dict[tuple[str, str], _RecordedVerdict] = {}
        self._stale: dict[tuple[str, str], str] = {}
        for i, v in enumerate(parsed.verdicts):
            pair = (v.scenario, v.expected)
            if v.response_sha256 is None:
                if pair in self._unkeyed:
                    raise JudgeVerdictsSchemaError(
                        str(self.path),
                        f"verdicts.{i}",
                        f"duplicate verdict for scenario {v.scenario!r}, expected {v.expected!r}",
                    )
                self._unkeyed[pair] = v
                continue
            prompt = v.prompt_version or parsed.prompt_version
            if prompt != self.current_prompt:
                self._stale[pair] = (
                    f"recorded under judge prompt {prompt}, the prompt is now {self.current_prompt}"
                )
                continue
            key = (*pair, v.response_sha256.lower())
            if key in self._verdicts:
                raise JudgeVerdictsSchemaError(
                    str(self.path),
                    f"verdicts.{i}",
                    f"duplicate verdict for scenario {v.scenario!r}, expected {v.expected!r}, "
                    "same response",
                )
            self._verdicts[key] = v
            self._stale.setdefault(pair, "the response changed since it was judged")
        if self._unkeyed:
            self.warnings.append(
                f"{len(self._unkeyed)} verdicts in {self.path.name} carry no response_sha256: "
                "they are used for whatever response their scenario has (re-key them with "
                "judge.stamp_recorded_verdicts)"
            )

    def _verdict(self, scenario: str, expected: str, digest: str) -> _RecordedVerdict | None:
        """The keyed verdict for this response, else an unkeyed one unless keyed ones exist."""
        keyed = self._verdicts.get((scenario, expected, digest))
        if keyed is not None:
            return keyed
        if (scenario, expected) in self._stale:
            return None
        return self._unkeyed.get((scenario, expected))

    def keyed_verdict(
        self, scenario: str | None, expected: str, digest: str
    ) -> JudgeVerdict | None:
        """The verdict recorded for exactly this response (by sha256) and phrase, under the
        current prompt; never an unkeyed one (what a file picked up beside the scenarios may
        answer: only the responses it was recorded for). ``scenario`` None: any scenario."""
        if scenario is not None:
            v = self._verdicts.get((scenario, expected, digest))
        else:
            v = next(
                (v for (_, e, d), v in self._verdicts.items() if e == expected and d == digest),
                None,
            )
        if v is None:
            return None
        return JudgeVerdict(
            expected=expected,
            verdict=v.verdict,
            evidence=v.evidence,
            reason=v.reason,
            model=self.model,
            prompt_version=self.current_prompt,
            source=self.path.name,
        )

    def why_absent(self, scenario: str, expected: str) -> str:
        """Why no keyed verdict answers (also added to ``warnings`` when one was ignored)."""
        return self._why_absent(scenario, expected)

    def _why_absent(self, scenario: str, expected: str) -> str:
        why = self._stale.get((scenario, expected))
        if why is None:
            return "none recorded"
        line = f"recorded verdict for {scenario!r}, {expected!r} ignored: {why}"
        if line not in self.warnings:
            self.warnings.append(line)
        return f"ignored: {why}"

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        digest = response_sha256(response)
        found = {e: self._verdict(scenario, e, digest) for e in expected}
        missing = [e for e, v in found.items() if v is None]
        if missing:
            why = self._why_absent(scenario, missing[0])
            for other in missing[1:]:
                self._why_absent(scenario, other)
            raise JudgeError(
                f"no recorded judge verdict in {self.path.name} for scenario "
                f"{scenario!r}, expected {missing[0]!r}"
                + ("" if why == "none recorded" else f" (the recorded one was {why})")
                + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            )
        verdicts = []
        for text in expected:
            v = found[text]
            assert v is not None
            verdict = JudgeVerdict(
                expected=text,
                verdict=v.verdict,
                evidence=v.evidence,
                reason=v.reason,
                model=self.model,
                prompt_version=self.current_prompt,
                source=self.path.name,
            )
            verdicts.append(enforce_evidence(verdict, response))
        return JudgeOutcome(
            verdicts=verdicts, model=self.model, prompt_version=self.current_prompt, calls=0
        )


def stamp_recorded_verdicts(
    path: str | os.PathLike[str],
    responses: dict[str, str],
    *,
    prompt_version: str | None = None,
) -> list[str]:
    """Key every verdict of the file at ``path`` by the response it was made for.

    ``responses`` maps scenario name to the response text the verdicts judged (e.g. a
    recorded-responses file's). Sets each verdict's ``response_sha256`` and the file's
    ``prompt_version`` (default ``JUDGE_PROMPT_VERSION``); returns the scenarios with
    verdicts but no response (left unkeyed: they will be ignored). Rewrites the file.
    """
    from pe_eval_core.files import atomic_write_text

    p = Path(path)
    data = read_json(p, not_found=JudgeVerdictsNotFoundError, malformed=MalformedJudgeVerdictsError)
    parsed = _RecordedVerdictsFile.model_validate(data)
    unknown = []
    for v in parsed.verdicts:
        text = responses.get(v.scenario)
        if text is None:
            unknown.append(v.scenario)
            continue
        v.response_sha256 = response_sha256(text)
        v.prompt_version = None
    parsed.prompt_version = prompt_version or JUDGE_PROMPT_VERSION
    atomic_write_text(p, parsed.model_dump_json(indent=2, exclude_none=True) + "\n")
    return sorted(set(unknown))
