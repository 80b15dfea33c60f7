"""The gate's answer: its checks, the problems that kept it from evaluating, one verdict."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from pe_eval_core.errors import PeEvalError

if TYPE_CHECKING:
    from pe_eval_core.memo.result import VerdictSummary

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


class MemoGateVerdict(BaseModel):
    """One memo's verdict as the gate saw it (``memo.verdict.Verdict.summary``, flattened)."""

    subject: str
    """``MortgageCo/board``."""
    ready: bool
    headline: str
    issue_count: int
    issues: list[str]
    scores: dict[str, str]
    """The four scores as every surface prints them."""

    @classmethod
    def of(cls, subject: str, summary: VerdictSummary) -> MemoGateVerdict:
        """A memo's or document's verdict summary under its gate subject."""
        return cls(
            subject=subject,
            ready=summary.ready,
            headline=summary.headline,
            issue_count=summary.issue_count,
            issues=summary.issues,
            scores=summary.scores,
        )


class GatedRun(BaseModel):
    """A scenario run the gate checked, its rates worded as every other surface words them."""

    subject: str
    pass_rate_text: str
    """``83.3%`` (``pe_eval_core.rates.rate_text``: errors never in the denominator)."""
    tally_text: str
    """``15/18 (83.3%)``."""
    tiers: dict[str, str] = Field(default_factory=dict)
    """Tier -> ``6/7 (85.7%)`` (``pe_eval_core.rates.tally_text``)."""
    errors: int = 0

    def line(self) -> str:
        """``RUN   run #2: pass rate 83.3%, 15/18 (83.3%), 1 error apart; smoke 6/6 (100%)``."""
        tiers = ", ".join(f"{t} {tally}" for t, tally in self.tiers.items())
        apart = (
            f", {self.errors} error{'s' if self.errors != 1 else ''} apart" if self.errors else ""
        )
        return (
            f"RUN   {self.subject}: pass rate {self.pass_rate_text}, {self.tally_text}{apart}"
            + (f"; {tiers}" if tiers else "")
        )


class GateResult(BaseModel):
    checks: list[GateCheck] = Field(default_factory=list)
    problems: list[GateProblem] = Field(default_factory=list)
    recorded_run_ids: list[int] = Field(default_factory=list)
    runs: list[GatedRun] = Field(default_factory=list)
    """The scenario runs checked, with their pass rates (shown before the checks)."""
    memos: list[MemoGateVerdict] = Field(default_factory=list)
    """Each graded memo's verdict, in folder order."""
    documents: list[MemoGateVerdict] = Field(default_factory=list)
    """Each other graded document's verdict (exit proof pack, DDQ, red flags), by the same
    rule (``documents.verdict.document_verdict``); subject ``<kind>/<file stem>``."""

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
        lines = [run.line() for run in self.runs]
        lines += [_check_line(c) for c in self.checks]
        lines += [f"MEMO  {m.subject}: {m.headline}" for m in self.memos]
        lines += [f"DOC   {d.subject}: {d.headline}" for d in self.documents]
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
