"""What a judge is: the protocol the scorer and the runner call, the context it is given, and
the stand-in used when no judge is configured.

A judge only sees expectations that neither the strict check nor the deterministic rules
satisfied, and decides paraphrase-or-missed for all of a scenario's remaining ones in one go.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios.models import JudgeOutcome

CLAIM_PREFIX = "CHECK "
"""An expected phrase starting with this is a behaviour claim about the whole response
(``behaviour.claim_text``), not a fact to find: the judge prompt says so, and the evidence
number check does not apply to it (its goal may quote numbers the answer need not repeat)."""


def response_sha256(response: str) -> str:
    """The key a recorded or cached verdict carries for the response it judged.

    ``surrogatepass``: a lone surrogate (``"\\ud800"``, valid in JSON) hashes instead of raising.
    """
    return hashlib.sha256(response.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class JudgeContext:
    """What the judge is told about the scenario besides the response (not evidence)."""

    name: str = ""
    input: str = ""
    goal: str | None = None
    tool_results: str | None = None
    """The agent's tool results (``judge.tool_results.tool_evidence``), shown for
    ``response_accurate`` and ``custom`` claims so a wrong total can be caught; never evidence."""
    tool_results_cut: str | None = None
    """How the tool results were cut to the prompt's budget, in words (None: shown whole)."""


@runtime_checkable
class Judge(Protocol):
    """Decides paraphrase-or-missed for a scenario's remaining candidate misses, in one go.

    Implementations may also be async context managers (opened once per run by the runner).
    """

    @property
    def model(self) -> str:
        """The model id stamped on every verdict (``recorded:<model>`` for recorded ones)."""
        ...

    @property
    def prompt_version(self) -> str:
        """The judge prompt's version (hashes prompt and schema; cached verdicts key on it)."""
        ...

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        """One verdict per ``expected`` entry. Raise ``JudgeError`` when no verdict is possible.

        ``context`` carries the scenario's input and goal for the prompt (not evidence)."""
        ...


class UnavailableJudge:
    """Stands in when no judge is configured: every call is a judge error saying how to fix it."""

    live = False

    def __init__(self, reason: str, model: str = "unavailable", prompt_version: str = "none"):
        self.reason = reason
        self.model = model
        self.prompt_version = prompt_version

    async def judge(
        self,
        scenario: str,
        response: str,
        expected: Sequence[str],
        *,
        context: JudgeContext | None = None,
    ) -> JudgeOutcome:
        raise JudgeError(self.reason)
