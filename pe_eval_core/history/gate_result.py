"""The gate's answer: its checks, the problems that kept it from evaluating, one verdict."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from pe_eval_core.errors import PeEvalError

EPS = 1e-9
"""Slack when comparing a measured value with its threshold."""


class GateVerdict(StrEnum):
    """The gate's one answer."""

    PASSED = "passed"
    BELOW_THRESHOLD = "below threshold"
    CANNOT_EVALUATE = "cannot evaluate"


class GateCheck(BaseModel):
    """One threshold applied to one subject."""

    subject: str
    """``MortgageCo/board`` or ``run #12`` ..."""
    metric: str
    value: float | None
    threshold: float
    op: Literal[">=", "<=", "no regressions"]
    passed: bool
    detail: str = ""


class GateProblem(BaseModel):
    """Something the gate could not evaluate (turns the verdict into "cannot evaluate")."""

    subject: str
    message: str
    diagnosis: str
    fix: str
    input: str | None = None
    """The input at fault (a key of ``pe_eval_core.errors.INPUT_LABELS``), if one is."""


class GateResult(BaseModel):
    checks: list[GateCheck] = Field(default_factory=list)
    problems: list[GateProblem] = Field(default_factory=list)
    recorded_run_ids: list[int] = Field(default_factory=list)

    @property
    def failed(self) -> list[GateCheck]:
        return [c for c in self.checks if not c.passed]

    @property
    def verdict(self) -> GateVerdict:
        if self.problems or not self.checks:
            return GateVerdict.CANNOT_EVALUATE
        return GateVerdict.BELOW_THRESHOLD if self.failed else GateVerdict.PASSED

    def add_problem(self, subject: str, err: PeEvalError) -> None:
        self.problems.append(
            GateProblem(
                subject=subject,
                message=err.message,
                diagnosis=err.diagnosis,
                fix=err.fix,
                input=err.input,
            )
        )

    def render_text(
        self, name_input: Callable[[str], str | None] | None = None, cannot_note: str = ""
    ) -> str:
        """The verdict as lines of text. A surface adds its own words: ``name_input`` names a
        problem's input (the CLI's option, appended to the fix), ``cannot_note`` follows the
        verdict line when the gate could not evaluate everything (the CLI's exit code)."""
        lines = [_check_line(c) for c in self.checks]
        for p in self.problems:
            where = name_input(p.input) if name_input and p.input else None
            lines.append(f"ERROR {p.subject}: {p.message}")
            lines.append(f"        diagnosis: {p.diagnosis}")
            lines.append(f"        fix: {p.fix}" + (f" ({where})" if where else ""))
        verdict = self._verdict_line()
        if cannot_note and self.verdict is GateVerdict.CANNOT_EVALUATE:
            verdict += f" {cannot_note}"
        lines.append(verdict)
        return "\n".join(lines) + "\n"

    def _verdict_line(self) -> str:
        if not self.checks and not self.problems:
            return "gate had nothing to check"
        return {
            GateVerdict.PASSED: "gate passed",
            GateVerdict.BELOW_THRESHOLD: f"gate FAILED: {len(self.failed)} check(s) below "
            "threshold",
            GateVerdict.CANNOT_EVALUATE: "gate could not evaluate everything",
        }[self.verdict]


def _check_line(c: GateCheck) -> str:
    mark = "PASS" if c.passed else "FAIL"
    if c.op == "no regressions":
        return f"{mark}  {c.subject}: {c.metric} {c.detail}".rstrip()
    value = "-" if c.value is None else f"{c.value:.4g}"
    return f"{mark}  {c.subject}: {c.metric} = {value} (needs {c.op} {c.threshold:g})" + (
        f" {c.detail}" if c.detail else ""
    )
