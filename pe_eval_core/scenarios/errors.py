"""Scenario-evaluation failures the user can fix: each a PeEvalError with diagnosis and fix."""

from __future__ import annotations

from pe_eval_core.errors import (
    InputNotFoundError,
    MalformedJSONError,
    PeEvalError,
    SchemaMismatchError,
)


class ScenariosNotFoundError(InputNotFoundError):
    diagnosis = "The scenarios file doesn't exist"
    fix = "Pass --scenarios PATH, or run `mimic test --export mimic` to create it."


class MalformedScenariosError(MalformedJSONError):
    diagnosis = "The scenarios file is not valid JSON"
    fix = "Re-export it with `mimic test --export mimic`, or fix the JSON at the position shown."


class ScenarioSchemaError(SchemaMismatchError):
    """One scenario (or the file's top level) does not have the Mimic scenario shape."""

    diagnosis = "A scenario does not match Mimic's scenario schema"
    fix = "Fix the named field of that scenario, or re-export the file with Mimic."

    def __init__(
        self,
        path: str,
        field: str,
        detail: str,
        *,
        index: int | None = None,
        name: str | None = None,
        **kwargs: str,
    ):
        super().__init__(path, field, detail, **kwargs)
        self.index = index
        self.name = name
        if index is not None:
            who = f"scenario #{index + 1} (index {index}"
            who += f", name {name!r})" if name else ", no name)"
            self.message = f"{path}: {who}: field {field!r}: {detail}"
            self.args = (self.message,)


class DuplicateScenarioError(ScenarioSchemaError):
    diagnosis = "Two scenarios share a name, so their responses and results would be confused"
    fix = "Give every scenario a unique `name`."


class EmptyScenariosError(PeEvalError):
    diagnosis = "The scenarios file contains no scenarios"
    fix = "Re-export it with `mimic test --export mimic`; check the persona has facts."


class RecordedResponsesNotFoundError(InputNotFoundError):
    diagnosis = "The recorded responses file doesn't exist"
    fix = "Pass --responses PATH (a file a previous run saved), or run a live target first."


class MalformedRecordedError(MalformedJSONError):
    diagnosis = "The recorded responses file is not valid JSON or JSON Lines"
    fix = "Use the file a previous pe-eval run saved, or fix the JSON at the position shown."


class RecordedSchemaError(SchemaMismatchError):
    diagnosis = "The recorded responses file does not have the {name, response} shape"
    fix = "Each entry needs `name` and `response` (or `error`); optional `latency_ms`."


class JudgeVerdictsNotFoundError(InputNotFoundError):
    diagnosis = "The recorded judge verdicts file doesn't exist"
    fix = "Pass --judge-verdicts PATH, use --no-judge, or set ANTHROPIC_API_KEY for a live judge."


class MalformedJudgeVerdictsError(MalformedJSONError):
    diagnosis = "The recorded judge verdicts file is not valid JSON"
    fix = "Fix the JSON at the position shown, or regenerate the verdicts."


class JudgeVerdictsSchemaError(SchemaMismatchError):
    diagnosis = "The recorded judge verdicts file does not have the expected shape"
    fix = (
        'Use {"label", "model", "prompt_version", '
        '"verdicts": [{scenario, expected, verdict, evidence}]}.'
    )


class LiveRunNotConfirmedError(PeEvalError):
    diagnosis = "More than 20 scenarios against a live (paid) target need explicit confirmation"
    fix = (
        "Re-run with --yes (CLI) or tick the confirmation box (dashboard), or pass fewer scenarios."
    )


class TargetConfigError(PeEvalError):
    diagnosis = "The target agent is not configured"
    fix = "Check --target and the options it needs (--skill, --agent-url, ANTHROPIC_API_KEY)."


class SkillNotFoundError(InputNotFoundError):
    diagnosis = "The target skill file doesn't exist"
    fix = "Pass --skill PATH (default skills/revenue-recovery/SKILL.md)."


class JudgeError(Exception):
    """The judge could not give a verdict. Recorded on the scenario as `judge error`, never raised
    to the user: a scenario whose judgement failed must not pass (or crash the run)."""
