"""Building a run's :class:`~pe_eval_core.scenarios.models.manifest.RunManifest` from the
target and judge the runner holds (the skill text, the toolbox's tool lists, the bounds)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pe_eval_core.files import sha256_file
from pe_eval_core.redact import redact
from pe_eval_core.scenarios.models.manifest import RunManifest, ServerIdentity


def tools_sha256(specs: list[Any]) -> str:
    """A server's tool list as one hash (order-independent)."""
    rows = sorted(
        json.dumps(
            [s.name, s.description, s.input_schema, _jsonable(s.annotations)],
            sort_keys=True,
            default=str,
        )
        for s in specs
    )
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool, dict, list)):
        return value
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else str(value)


def _bounds(target: Any) -> dict[str, Any]:
    bounds = getattr(target, "bounds", None)
    out: dict[str, Any] = {}
    if bounds is not None:
        for name in ("max_turns", "max_tool_calls", "tool_timeout_s", "result_cap_chars"):
            out[name] = getattr(bounds, name, None)
        out["cache"] = getattr(bounds, "cache", None)
    max_tokens = getattr(target, "_max_tokens", None)
    if max_tokens is not None:
        out["max_tokens"] = max_tokens
    return out


def _servers(toolbox: Any) -> list[ServerIdentity]:
    if toolbox is None:
        return []
    by_server: dict[str, list[Any]] = {}
    for spec in toolbox.tools.values():
        by_server.setdefault(spec.server, []).append(spec)
    return [
        ServerIdentity(
            name=s.name,
            where=redact(s.where),
            tools=len(by_server.get(s.name, [])),
            tools_sha256=tools_sha256(by_server.get(s.name, [])),
        )
        for s in toolbox.servers
    ]


def build_manifest(
    target: Any,
    judge: Any,
    *,
    target_label: str,
    scenarios_sha256: str | None,
    repeats: int,
) -> RunManifest:
    """The manifest of a run of ``target`` judged by ``judge``; call it once the target's
    toolbox is open (its tool lists are hashed)."""
    skill_path = getattr(target, "skill_path", None)
    skill_text = getattr(target, "skill", None)
    as_of = getattr(target, "as_of", None)
    toolbox = getattr(target, "toolbox", None)
    policy = getattr(toolbox, "policy", None)
    return RunManifest(
        target_label=target_label,
        model=getattr(target, "model", None),
        skill_path=str(Path(skill_path).resolve()) if skill_path is not None else None,
        skill_sha256=(
            hashlib.sha256(skill_text.encode()).hexdigest() if isinstance(skill_text, str) else None
        ),
        bounds=_bounds(target) if getattr(target, "live", False) else {},
        tool_policy=policy.describe() if policy is not None else None,
        servers=_servers(toolbox),
        scenarios_sha256=scenarios_sha256,
        judge=getattr(judge, "model", None),
        judge_prompt_version=getattr(judge, "prompt_version", None),
        as_of=getattr(as_of, "iso", None),
        repeats=repeats,
    )


def scenarios_digest(scenarios: Sequence[Any], path: str | os.PathLike[str] | None) -> str:
    """sha256 of the scenarios file; of the scenarios themselves when there is no file."""
    if path is not None and Path(path).is_file():
        return sha256_file(path)
    rows = [s.model_dump(mode="json") for s in scenarios]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
