"""What produced a scenario run, recorded with it, so runs of different setups are never mixed.

A v1 and a v2 skill run look alike by target label alone: comparing them reported "No
regression" while the skill had changed. Each run records a :class:`RunManifest` (the skill
file and its sha256, the model, the loop's bounds and tool policy, each MCP server's name,
address and tool-list hash, the scenarios file's sha256, the judge and its prompt version,
the pe-eval version, the analysis date, the repeat count). Its :attr:`RunManifest.identity`
hashes the fields that change what a run measures (not where it ran: a server's address and
the skill's path are recorded but not compared, since ``mimic host`` gets new ports on every
start and a copied skill is the same skill). Comparisons, the gate and the dashboard's
baseline use the identity to compare like with like, and :func:`unlike_line` says in one line
what differs when asked to compare unlike runs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pe_eval_core import __version__
from pe_eval_core.redact import redact

SHORT = 8
"""Hex digits of a sha256 shown in messages."""


class ServerIdentity(BaseModel):
    """One MCP server the agent was given: what it offered is the tool-list hash."""

    model_config = ConfigDict(frozen=True)

    name: str
    where: str
    """URL or command line (recorded; not part of the identity)."""
    tools: int
    tools_sha256: str
    """sha256 of the tools' names, descriptions, input schemas and annotations, sorted."""

    # a URL's token or password never comes back from the history, however it was recorded
    _redact = field_validator("where")(redact)


class RunManifest(BaseModel):
    """Everything that produced a scenario run (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    target_label: str
    model: str | None = None
    skill_path: str | None = None
    skill_sha256: str | None = None
    bounds: dict[str, Any] = Field(default_factory=dict)
    """The tool loop's limits (``max_turns``, ``max_tool_calls``, ...) and ``max_tokens``."""
    tool_policy: str | None = None
    servers: list[ServerIdentity] = Field(default_factory=list)
    scenarios_sha256: str | None = None
    judge: str | None = None
    judge_prompt_version: str | None = None
    pe_eval_version: str = __version__
    as_of: str | None = None
    repeats: int = 1

    def identity_fields(self) -> dict[str, Any]:
        """The fields two runs must share to be compared like for like."""
        data = self.model_dump(exclude={"skill_path", "servers"})
        data["servers"] = sorted((s.name, s.tools_sha256) for s in self.servers)
        return data

    def agent_fields(self) -> dict[str, Any]:
        """What decides how the agent runs (its turns and tokens): the identity's fields less
        the judge, the repeat count and the pe-eval version (the cost estimate's like for like)."""
        data = self.identity_fields()
        for name in ("judge", "judge_prompt_version", "repeats", "pe_eval_version"):
            data.pop(name, None)
        return data

    @property
    def identity(self) -> str:
        """sha256 of :meth:`identity_fields` (what ``RunSummary.identity`` stores)."""
        text = json.dumps(self.identity_fields(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


# --- comparing two manifests ------------------------------------------------------------------


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def _short(sha: str | None) -> str:
    return sha[:SHORT] if sha else "none"


def _skill_names(a: RunManifest, b: RunManifest) -> tuple[str, str]:
    """The two skill files, each with its sha256, named by the shortest path tails that tell
    them apart (``v1/revenue-recovery/SKILL.md`` vs ``v2/revenue-recovery/SKILL.md``)."""
    pa = Path(a.skill_path).parts if a.skill_path else ()
    pb = Path(b.skill_path).parts if b.skill_path else ()
    n = 2
    while n < max(len(pa), len(pb)) and pa[-n:] == pb[-n:]:
        n += 1

    def name(parts: tuple[str, ...], sha: str | None) -> str:
        shown = "/".join(parts[-n:]).lstrip("/") if parts else "no skill"
        return f"{shown} (sha256 {_short(sha)})"

    return name(pa, a.skill_sha256), name(pb, b.skill_sha256)


def differences(a: RunManifest, b: RunManifest) -> list[str]:
    """What differs between two runs' setups, one short phrase each (``A vs B``), in the
    order an eval engineer changes things; empty when they are like for like."""
    out = []
    if a.skill_sha256 != b.skill_sha256:
        out.append("skill {} vs {}".format(*_skill_names(a, b)))
    for label, field in (
        ("target", "target_label"),
        ("model", "model"),
        ("analysis date", "as_of"),
        ("tool policy", "tool_policy"),
        ("judge", "judge"),
        ("judge prompt", "judge_prompt_version"),
        ("repeats", "repeats"),
        ("pe-eval", "pe_eval_version"),
    ):
        x, y = getattr(a, field), getattr(b, field)
        if x != y:
            out.append(
                f"{label} {x if x is not None else 'none'} vs {y if y is not None else 'none'}"
            )
    if a.scenarios_sha256 != b.scenarios_sha256:
        out.append(
            f"scenarios file sha256 {_short(a.scenarios_sha256)} vs {_short(b.scenarios_sha256)}"
        )
    for name in sorted(set(a.bounds) | set(b.bounds)):
        x, y = a.bounds.get(name), b.bounds.get(name)
        if x != y:
            out.append(f"{name} {x} vs {y}")
    out += _server_differences(a.servers, b.servers)
    return out


def _server_differences(xs: list[ServerIdentity], ys: list[ServerIdentity]) -> list[str]:
    a, b = {s.name: s for s in xs}, {s.name: s for s in ys}
    out = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if x is None or y is None:
            out.append(f"server {name} {'only in B' if x is None else 'only in A'}")
        elif x.tools_sha256 != y.tools_sha256:
            out.append(
                f"server {name} tools {x.tools} (sha256 {_short(x.tools_sha256)}) vs "
                f"{y.tools} (sha256 {_short(y.tools_sha256)})"
            )
    return out


def unlike_line(a: RunManifest | None, b: RunManifest | None) -> str | None:
    """One line saying what differs (``Not like for like: skill ... vs ...; model ...``), or
    None when the runs are like for like or either predates manifests (nothing to compare).

    >>> m = RunManifest(target_label="anthropic:m", model="m", judge="j1")
    >>> unlike_line(m, m.model_copy(update={"model": "n", "judge": "j2"}))
    'Not like for like: model m vs n; judge j1 vs j2.'
    >>> unlike_line(m, None) is None
    True
    """
    if a is None or b is None or a.identity == b.identity:
        return None
    diffs = differences(a, b)
    return f"Not like for like: {'; '.join(diffs) or 'the recorded setups differ'}."
