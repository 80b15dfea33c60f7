"""What an agent under test is: everything the runner and the cost guard read of a target.

A target declares it rather than being probed for it: its stable label, whether calls cost
money, its model and system prompt (the pre-run estimate), the MCP servers the runner opens
once per run, and whether its calls can go through the Message Batches API. Every target is
an async context manager: the runner opens it once per run (a no-op for most).
:class:`TargetBase` holds the defaults of an offline target with no model and no tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pe_eval_core.scenarios.agent.loop import McpToolbox
    from pe_eval_core.scenarios.llm.batches import MessageBatcher
    from pe_eval_core.scenarios.models import Scenario, TargetResponse


@runtime_checkable
class Target(Protocol):
    """An agent under test."""

    @property
    def name(self) -> str:
        """Description for reports, e.g. ``anthropic:claude-sonnet-5-5``."""
        ...

    @property
    def label(self) -> str:
        """The stable label of the agent under test: ``anthropic:<model id>``, ``http:<URL>``,
        ``recorded:<file name>`` (the same on any machine and from any working directory)."""
        ...

    @property
    def live(self) -> bool:
        """True when each call costs money (the runner's cost guard applies)."""
        ...

    @property
    def model(self) -> str | None:
        """The target's model, when it has one (None for HTTP agents; a recorded file's model
        when all its responses name the same one)."""
        ...

    @property
    def system_prompt(self) -> str:
        """The prompt prefix every model call re-sends ("" when we call no model)."""
        ...

    @property
    def toolbox(self) -> McpToolbox | None:
        """The MCP servers the agent may use, opened by the runner once per run (None: none)."""
        ...

    @property
    def batchable(self) -> bool:
        """True when its calls are plain Messages API calls the Batches API can carry."""
        ...

    def use_batcher(self, batcher: MessageBatcher) -> None:
        """Send its calls through ``batcher`` (called only when :attr:`batchable`)."""
        ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def respond(self, scenario: Scenario) -> TargetResponse:
        """The agent's reply to ``scenario.input``; failures as ``TargetResponse(error=...)``."""
        ...


class TargetBase:
    """Defaults for a :class:`Target`: offline, no model, no tools, nothing to open or batch.

    A target sets ``name`` and implements ``respond``; it overrides what differs.
    """

    name: str = "target"
    live: bool = False
    model: str | None = None
    system_prompt: str = ""
    toolbox: McpToolbox | None = None

    @property
    def label(self) -> str:
        return self.name

    @property
    def batchable(self) -> bool:
        return False

    def use_batcher(self, batcher: MessageBatcher) -> None:
        raise TypeError(f"{self.name} makes no Messages API call a batch could carry")

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None
