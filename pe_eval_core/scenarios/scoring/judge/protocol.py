"""What a judge is: the protocol the scorer, the runner and the cost guard call, the context
it is given, its defaults, and the stand-in used when no judge is configured.

A judge only sees expectations that neither the strict check nor the deterministic rules
satisfied, and decides paraphrase-or-missed for all of a scenario's remaining ones in one go.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pe_eval_core.errors import JudgeError
from pe_eval_core.scenarios.models import JudgeOutcome

if TYPE_CHECKING:
    from pe_eval_core.scenarios.llm.batches import MessageBatcher

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


JudgeKind = Literal["live", "recorded", "cache only", "unavailable", "custom"]
"""Where a judge's verdicts come from: a paid model call (behind the verdict cache), a file
of recorded verdicts, the cache alone (no key), nowhere (every call a judge error), or a
judge of the caller's own."""


@runtime_checkable
class Judge(Protocol):
    """Decides paraphrase-or-missed for a scenario's remaining candidate misses, in one go.

    Everything the scorer, the runner and the cost guard read of a judge is declared here.
    Every judge is an async context manager, opened once per run by the runner.
    """

    @property
    def model(self) -> str:
        """The model id stamped on every verdict (``recorded:<model>`` for recorded ones)."""
        ...

    @property
    def prompt_version(self) -> str:
        """The judge prompt's version (hashes prompt and schema; cached verdicts key on it)."""
        ...

    @property
    def live(self) -> bool:
        """True when a call may cost money (the cost guard counts it)."""
        ...

    @property
    def kind(self) -> JudgeKind:
        """Where its verdicts come from (each surface words this its own way)."""
        ...

    @property
    def source(self) -> str:
        """The file or cache its verdicts come from, safe to show ("" when none)."""
        ...

    @property
    def warnings(self) -> Sequence[str]:
        """What it could not use and why (a recorded verdict for another response), once each."""
        ...

    @property
    def batchable(self) -> bool:
        """True when its calls are plain Messages API calls the Batches API can carry."""
        ...

    def use_batcher(self, batcher: MessageBatcher) -> None:
        """Send its calls through ``batcher`` (called only when :attr:`batchable`)."""
        ...

    def needs_paid_call(self, response: str, expected: Sequence[str]) -> bool:
        """Whether judging ``expected`` for ``response`` would make a paid call (the cost
        guard's count): a live judge unless its cache already holds every verdict."""
        ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc: object) -> None: ...

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


class JudgeBase:
    """Defaults for a :class:`Judge`: free (no paid call), no source, no warnings, nothing to
    open or batch. A judge sets ``model`` and ``prompt_version`` and implements ``judge``."""

    model: str = "judge"
    prompt_version: str = "none"
    live: bool = False
    kind: JudgeKind = "custom"
    source: str = ""
    warnings: Sequence[str] = ()

    @property
    def batchable(self) -> bool:
        return False

    def use_batcher(self, batcher: MessageBatcher) -> None:
        raise TypeError(f"judge {self.model} makes no Messages API call a batch could carry")

    def needs_paid_call(self, response: str, expected: Sequence[str]) -> bool:
        return self.live and bool(expected)

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class UnavailableJudge(JudgeBase):
    """Stands in when no judge is configured: every call is a judge error saying how to fix it."""

    kind: JudgeKind = "unavailable"

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
