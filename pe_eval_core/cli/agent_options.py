"""The agent-safety options of ``scenarios run``: agent credentials, the tool allow-list, which
variables ``.mcp.json`` may read and the confirmation of a found ``.mcp.json``.

Kept apart from ``cli/scenarios.py`` so the safety surface reads in one place:
``--agent-header NAME=VALUE`` (``VALUE`` may be ``env:VAR`` so the secret stays off the
command line), ``--allow-tool NAME``, ``--mcp-env NAME``, ``--trust-mcp-config SHA256``.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from pe_eval_core.errors import TargetConfigError
from pe_eval_core.redact import register_secret

if TYPE_CHECKING:
    from pe_eval_core.scenarios.agent.mcp_config import McpConfig

_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")  # an RFC 9110 token
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def add_agent_header(run: argparse.ArgumentParser) -> None:
    """``--agent-header NAME=VALUE`` for the http target."""
    run.add_argument(
        "--agent-header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="http target: a header sent with every request, e.g. "
        "'Authorization=env:AGENT_AUTH' (VALUE env:VAR reads the variable; values are "
        "redacted from every output; repeatable)",
    )


def add_tool_safety(agent: argparse._ArgumentGroup) -> None:
    """The allow-list and ``.mcp.json`` options of the anthropic target's agent group."""
    agent.add_argument(
        "--allow-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="let one more tool run, by exact name (tool or server/tool; repeatable); "
        "otherwise only Mimic's read tools run",
    )
    agent.add_argument(
        "--mcp-env",
        action="append",
        default=[],
        metavar="NAME",
        help="let .mcp.json expand ${NAME} (repeatable; default: no variable, so no key "
        "reaches a URL or command the file chose; also $PE_EVAL_MCP_ENV)",
    )
    agent.add_argument(
        "--trust-mcp-config",
        metavar="SHA256",
        help="confirm the ./.mcp.json found in the working folder by its sha256 (printed "
        "when it is refused): its commands may start, now and until it changes",
    )


def agent_headers(specs: list[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs as headers; ``VALUE`` ``env:VAR`` reads ``$VAR``. Every value is
    registered with the redactor before anything can print it.

    >>> agent_headers(["X-Team=blue"])
    {'X-Team': 'blue'}
    """
    headers: dict[str, str] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        name = name.strip()
        if not sep or not _HEADER_NAME.fullmatch(name):
            raise TargetConfigError(
                f"--agent-header {name[:40]!r}... is not NAME=VALUE with a header name",
                fix="Write the header as NAME=VALUE, e.g. Authorization=env:AGENT_AUTH.",
                input="agent_header",
            )
        if value.startswith("env:"):
            var = value[4:]
            if not _ENV_NAME.fullmatch(var) or var not in os.environ:
                raise TargetConfigError(
                    f"--agent-header {name}: the variable {var[:40]!r} is not set",
                    fix=f"export {var}=... before the run, or give the value itself.",
                    input="agent_header",
                )
            value = os.environ[var]
        if "\r" in value or "\n" in value or "\0" in value:
            register_secret(value)
            raise TargetConfigError(
                f"--agent-header {name}: the value holds a line break or NUL",
                fix="Give the header value on one line.",
                input="agent_header",
            )
        register_secret(value)
        headers[name] = value
    return headers


def mcp_config(args: argparse.Namespace) -> McpConfig:
    """The agent's MCP servers: ``--mcp-config`` (explicit) or a found ``./.mcp.json``
    (confirmed by hash if it starts commands), plus ``--mcp-server`` overrides."""
    from pe_eval_core.scenarios.agent.mcp_config import load_mcp_config, with_overrides

    explicit: Path | None = args.mcp_config
    config = load_mcp_config(
        explicit,
        expand=getattr(args, "mcp_env", None) or (),
        confirm_sha256=getattr(args, "trust_mcp_config", None),
    )
    return with_overrides(config, args.mcp_server)
