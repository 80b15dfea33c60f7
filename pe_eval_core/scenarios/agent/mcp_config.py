"""The MCP servers the agent under test may use: ``.mcp.json`` (Claude Code's format) + overrides.

``.mcp.json``::

    {"mcpServers": {
        "mimic-database": {"type": "http", "url": "http://localhost:4201/mcp"},
        "local-tools":    {"command": "python3", "args": ["srv.py"], "env": {"K": "${HOME}"}}}}

An entry with ``url`` (``type`` ``http``, or ``streamable-http``; omitted means http when a
``url`` is given) is a Streamable HTTP server; an entry with ``command`` (``type`` ``stdio`` or
omitted) is spawned over stdio. ``${VAR}`` and ``${VAR:-default}`` are expanded in ``url``,
``headers``, ``command``, ``args`` and ``env`` as Claude Code does; an unset variable without a
default is an error, not an empty string. ``sse`` servers are refused by name.

``--mcp-server NAME=URL`` adds an http server or replaces the entry of that name.

Every configured server is attached by default. :func:`resolve_platforms` maps the scenarios'
``metadata.platform`` values to server names the way the seed's prompt names them
(``stripe`` -> ``mimic-stripe``, ``database`` -> ``mimic-database``; ``cross-platform`` needs
no server of its own), so a run header can say which platform has no server.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pe_eval_core.errors import McpConfigError

MCP_CONFIG_FILE = ".mcp.json"

PLATFORM_ALIASES: dict[str, tuple[str, ...]] = {
    # platform -> server names that serve it, in order of preference. The seed's prompt says
    # ``mimic-database``; Mimic's example .mcp.json says ``mimic-postgres``; ``mimic host``
    # itself calls the server ``primary``.
    "database": ("mimic-database", "mimic-postgres", "database", "primary"),
    "stripe": ("mimic-stripe", "stripe"),
}
CROSS_PLATFORM = "cross-platform"
"""The platform of a scenario that spans sources: served by the other platforms' servers."""


class HttpServerConfig(BaseModel):
    """A Streamable HTTP MCP server."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    type: Literal["http"] = "http"
    url: str
    """The MCP endpoint, e.g. ``http://127.0.0.1:4201/mcp``."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers (e.g. authorisation) sent with every MCP request."""

    @property
    def where(self) -> str:
        """The URL, for messages."""
        return self.url


class StdioServerConfig(BaseModel):
    """An MCP server spawned as a subprocess, spoken to over stdin/stdout."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    type: Literal["stdio"] = "stdio"
    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    """Merged over the SDK's default (minimal) environment."""
    cwd: str | None = None

    @property
    def where(self) -> str:
        """The command line, for messages."""
        return " ".join([self.command, *self.args])


ServerConfig = Annotated[HttpServerConfig | StdioServerConfig, Field(discriminator="type")]


class McpConfig(BaseModel):
    """The configured servers by name (in file order), and where they came from."""

    model_config = ConfigDict(frozen=True)

    servers: dict[str, ServerConfig] = Field(default_factory=dict)
    source: str | None = None
    """The ``.mcp.json`` read, or None when every server came from overrides."""

    def names(self) -> list[str]:
        return list(self.servers)

    def describe(self) -> list[str]:
        """One line per server for a run header: ``mimic-stripe  http  http://.../mcp``."""
        return [f"{name}  {cfg.type}  {cfg.where}" for name, cfg in self.servers.items()]


class PlatformResolution(BaseModel):
    """Which configured server serves each scenario platform (the seed's naming)."""

    model_config = ConfigDict(frozen=True)

    by_platform: dict[str, str] = Field(default_factory=dict)
    """platform -> server name."""
    missing: list[str] = Field(default_factory=list)
    """Platforms the scenarios name for which no server is configured."""
    attached: list[str] = Field(default_factory=list)
    """Every server the agent gets (all configured servers)."""


_VAR = re.compile(
    r"""\$\{
        (?P<name>[A-Za-z_][A-Za-z0-9_]*)   # the variable
        (?::-(?P<default>[^}]*))?           # optional :-default
    \}""",
    re.VERBOSE,
)


def expand_vars(value: str, env: Mapping[str, str] | None = None, *, where: str = "") -> str:
    """Claude Code's ``${VAR}`` / ``${VAR:-default}`` expansion; an unset VAR is an error.

    >>> expand_vars("http://${HOST:-localhost}:${PORT}/mcp", {"PORT": "4201"})
    'http://localhost:4201/mcp'
    >>> expand_vars("${NOPE}", {}, where="x.url")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.McpConfigError: x.url: ${NOPE} is not set and has no default ...
    """
    env = os.environ if env is None else env

    def sub(m: re.Match[str]) -> str:
        name, default = m.group("name"), m.group("default")
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise McpConfigError(
            f"{where}: ${{{name}}} is not set and has no default",
            fix=f"export {name}=..., or write ${{{name}:-default}} in .mcp.json.",
        )

    return _VAR.sub(sub, value)


def _expand(value: Any, env: Mapping[str, str], where: str) -> Any:
    if isinstance(value, str):
        return expand_vars(value, env, where=where)
    if isinstance(value, list):
        return [_expand(v, env, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _expand(v, env, f"{where}.{k}") for k, v in value.items()}
    return value


def _check_url(url: str, where: str) -> None:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise McpConfigError(
            f"{where}: {url!r} is not an http(s) URL",
            fix="Use the server's MCP endpoint, e.g. http://127.0.0.1:4201/mcp.",
        )


def server_from_entry(
    name: str, entry: Any, *, env: Mapping[str, str] | None = None, source: str = MCP_CONFIG_FILE
) -> HttpServerConfig | StdioServerConfig:
    """One ``mcpServers`` entry as a typed config; every problem names the server and field."""
    where = f"{source}: mcpServers.{name}"
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where} is {type(entry).__name__}, not an object")
    env = os.environ if env is None else env
    kind = entry.get("type")
    if kind == "sse":
        raise McpConfigError(
            f"{where}: type 'sse' is not supported",
            fix="Serve it over Streamable HTTP (type 'http'), or over stdio.",
        )
    if kind is None:
        kind = "http" if "url" in entry else "stdio" if "command" in entry else None
    if kind == "streamable-http":
        kind = "http"
    if kind not in ("http", "stdio"):
        raise McpConfigError(
            f"{where}: cannot tell the transport (type {entry.get('type')!r}, "
            f"keys {sorted(entry)})",
            fix='Give "type": "http" with "url", or "command" (and "args", "env") for stdio.',
        )
    data = _expand(dict(entry), env, where)
    data["name"], data["type"] = name, kind
    try:
        if kind == "http":
            http = HttpServerConfig.model_validate(data)
            _check_url(http.url, f"{where}.url")
            config: HttpServerConfig | StdioServerConfig = http
        else:
            config = StdioServerConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(entry)"
        raise McpConfigError(f"{where}.{field}: {first['msg']}") from None
    return config


def find_mcp_config(path: str | os.PathLike[str] | None = None) -> Path | None:
    """``path`` itself (a file, or a folder holding ``.mcp.json``), else ``./.mcp.json``.

    A named path that does not exist is an error; no file in the current folder is None.
    """
    if path is None:
        default = Path.cwd() / MCP_CONFIG_FILE
        return default if default.is_file() else None
    p = Path(path)
    if p.is_dir():
        p = p / MCP_CONFIG_FILE
    if not p.is_file():
        raise McpConfigError(
            f"{p} does not exist",
            diagnosis="The MCP configuration file named does not exist",
            fix="Name a .mcp.json file (or the folder holding one).",
        )
    return p


def load_mcp_config(
    path: str | os.PathLike[str] | None = None, *, env: Mapping[str, str] | None = None
) -> McpConfig:
    """Read ``.mcp.json`` (see :func:`find_mcp_config`); an empty config when there is none."""
    found = find_mcp_config(path)
    if found is None:
        return McpConfig()
    try:
        doc = json.loads(found.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise McpConfigError(
            f"{found} is malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except OSError as exc:
        raise McpConfigError(f"{found} could not be read: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("mcpServers"), dict):
        raise McpConfigError(f'{found}: no "mcpServers" object at the top level')
    servers = {
        name: server_from_entry(name, entry, env=env, source=str(found))
        for name, entry in doc["mcpServers"].items()
    }
    return McpConfig(servers=servers, source=str(found))


def parse_server_override(spec: str) -> HttpServerConfig:
    """``NAME=URL`` (``--mcp-server``) as an http server.

    >>> parse_server_override("mimic-stripe=http://127.0.0.1:4202/mcp").url
    'http://127.0.0.1:4202/mcp'
    >>> parse_server_override("http://x/mcp")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.McpConfigError: --mcp-server 'http://x/mcp' is not NAME=URL ...
    """
    name, sep, url = spec.partition("=")
    name, url = name.strip(), url.strip()
    if not sep or not name or not url or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise McpConfigError(
            f"--mcp-server {spec!r} is not NAME=URL",
            fix="Write the override as NAME=URL, e.g. mimic-stripe=http://127.0.0.1:4202/mcp.",
        )
    _check_url(url, f"--mcp-server {name}")
    return HttpServerConfig(name=name, url=url)


def with_overrides(config: McpConfig, overrides: Iterable[str]) -> McpConfig:
    """``config`` with each ``NAME=URL`` added, or replacing the entry of that name."""
    servers = dict(config.servers)
    for spec in overrides:
        server = parse_server_override(spec)
        servers[server.name] = server
    return McpConfig(servers=servers, source=config.source)


def resolve_platforms(config: McpConfig, platforms: Iterable[str | None]) -> PlatformResolution:
    """Map scenario platforms to configured servers (``mimic-<platform>`` and known aliases).

    >>> cfg = with_overrides(McpConfig(), ["mimic-stripe=http://h/mcp", "extra=http://e/mcp"])
    >>> r = resolve_platforms(cfg, ["stripe", "database", "cross-platform", None])
    >>> r.by_platform, r.missing, r.attached
    ({'stripe': 'mimic-stripe'}, ['database'], ['mimic-stripe', 'extra'])
    """
    by_platform: dict[str, str] = {}
    missing: list[str] = []
    for platform in dict.fromkeys(p for p in platforms if p):
        if platform == CROSS_PLATFORM:
            continue
        candidates = PLATFORM_ALIASES.get(platform, (f"mimic-{platform}", platform))
        hit = next((c for c in candidates if c in config.servers), None)
        if hit is None:
            missing.append(platform)
        else:
            by_platform[platform] = hit
    return PlatformResolution(by_platform=by_platform, missing=missing, attached=config.names())


def select_servers(config: McpConfig, names: Sequence[str] | None = None) -> McpConfig:
    """Only the named servers (all of them when ``names`` is None); an unknown name is an error."""
    if names is None:
        return config
    unknown = [n for n in names if n not in config.servers]
    if unknown:
        raise McpConfigError(
            f"no MCP server named {', '.join(map(repr, unknown))}; configured: "
            f"{', '.join(config.servers) or 'none'}"
        )
    return McpConfig(servers={n: config.servers[n] for n in names}, source=config.source)
