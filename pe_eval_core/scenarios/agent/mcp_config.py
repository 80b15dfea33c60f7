"""The MCP servers the agent under test may use: ``.mcp.json`` (Claude Code's format) + overrides.

``.mcp.json``::

    {"mcpServers": {
        "mimic-database": {"type": "http", "url": "http://localhost:4201/mcp"},
        "local-tools":    {"command": "python3", "args": ["srv.py"], "env": {"K": "${HOME}"}}}}

An entry with ``url`` (``type`` ``http``, or ``streamable-http``; omitted means http when a
``url`` is given) is a Streamable HTTP server; an entry with ``command`` (``type`` ``stdio`` or
omitted) is spawned over stdio. ``sse`` servers are refused by name.

A configuration does not run itself (a repository one clones may ship a ``.mcp.json``):

* ``${VAR}`` and ``${VAR:-default}`` in ``url``, ``headers``, ``command``, ``args`` and
  ``env`` expand **only the variables the user names** (``--mcp-env NAME``, or the operator's
  ``PE_EVAL_MCP_ENV=NAME,NAME``): an unnamed ``${VAR:-default}`` takes its default without
  reading VAR, an unnamed ``${VAR}`` is an error naming it. No variable is named by default,
  so no provider key (``ANTHROPIC_API_KEY``, ``GITHUB_TOKEN``) reaches a URL or command the
  file chose. Expanded values and header values are registered with :mod:`pe_eval_core.redact`
  so they are scrubbed from everything stored or printed.
* A stdio server (a command pe-eval would start) from a ``.mcp.json`` found in the working
  folder runs only when the file was passed explicitly, or when the user confirmed that
  file's exact content by its sha256 (:func:`trust_config`, kept in
  ``$PE_EVAL_HOME/trusted_mcp_configs.json``); an edit changes the hash and asks again.

``--mcp-server NAME=URL`` adds an http server or replaces the entry of that name.

Every configured server is attached by default. :func:`resolve_platforms` maps the scenarios'
``metadata.platform`` values to server names the way the seed's prompt names them
(``stripe`` -> ``mimic-stripe``, ``database`` -> ``mimic-database``; ``cross-platform`` needs
no server of its own), so a run header can say which platform has no server.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pe_eval_core.errors import McpConfigError, McpConfigNotTrustedError
from pe_eval_core.redact import register_secret, register_url_secrets

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

EXPAND_ENV = "PE_EVAL_MCP_ENV"
"""Comma-separated variable names the operator lets ``.mcp.json`` expand (beside
``--mcp-env``); unset: none."""


def named_variables(names: Iterable[str] = ()) -> frozenset[str]:
    """The variables ``${VAR}`` may expand: ``names`` plus ``$PE_EVAL_MCP_ENV``'s.

    >>> sorted(named_variables(["PORT", " HOST "]))
    ['HOST', 'PORT']
    """
    from_env = os.environ.get(EXPAND_ENV, "").replace(";", ",").split(",")
    return frozenset(n.strip() for n in [*names, *from_env] if n and n.strip())


def expand_vars(
    value: str,
    env: Mapping[str, str] | None = None,
    *,
    where: str = "",
    names: Collection[str] | None = None,
) -> str:
    """Claude Code's ``${VAR}`` / ``${VAR:-default}`` expansion, for the named variables only
    (``names``; None: every variable, for callers that chose the text themselves).

    >>> expand_vars("http://${HOST:-localhost}:${PORT}/mcp", {"PORT": "4201"}, names={"PORT"})
    'http://localhost:4201/mcp'
    >>> expand_vars("http://h/?k=${KEY:-none}", {"KEY": "secret"}, names=set())
    'http://h/?k=none'
    >>> expand_vars("${GITHUB_TOKEN}", {"GITHUB_TOKEN": "t"}, where="x.url", names=set())
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.McpConfigError: x.url: ${GITHUB_TOKEN} is not expanded: no one named it ...
    >>> expand_vars("${NOPE}", {}, where="x.url", names={"NOPE"})
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.McpConfigError: x.url: ${NOPE} is not set and has no default ...
    """
    env = os.environ if env is None else env

    def sub(m: re.Match[str]) -> str:
        name, default = m.group("name"), m.group("default")
        if names is not None and name not in names:
            if default is not None:
                return default
            raise McpConfigError(
                f"{where}: ${{{name}}} is not expanded: no one named it as a variable the "
                "configuration may read",
                diagnosis="The MCP configuration asks for an environment variable the user did "
                "not name",
                fix=f"Name {name} as a variable the MCP configuration may read (only if you "
                "trust where the configuration sends it), or write the value into the file.",
                input="mcp_env",
            )
        if name in env:
            register_secret(env[name])
            return env[name]
        if default is not None:
            return default
        raise McpConfigError(
            f"{where}: ${{{name}}} is not set and has no default",
            fix=f"export {name}=..., or write ${{{name}:-default}} in .mcp.json.",
        )

    return _VAR.sub(sub, value)


def _expand(value: Any, env: Mapping[str, str], where: str, names: Collection[str]) -> Any:
    if isinstance(value, str):
        return expand_vars(value, env, where=where, names=names)
    if isinstance(value, list):
        return [_expand(v, env, f"{where}[{i}]", names) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _expand(v, env, f"{where}.{k}", names) for k, v in value.items()}
    return value


def _check_url(url: str, where: str) -> None:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise McpConfigError(
            f"{where}: {url!r} is not an http(s) URL",
            fix="Use the server's MCP endpoint, e.g. http://127.0.0.1:4201/mcp.",
        )


def server_from_entry(
    name: str,
    entry: Any,
    *,
    env: Mapping[str, str] | None = None,
    source: str = MCP_CONFIG_FILE,
    names: Collection[str] = (),
) -> HttpServerConfig | StdioServerConfig:
    """One ``mcpServers`` entry as a typed config; every problem names the server and field.
    ``names``: the variables ``${VAR}`` may expand (see :func:`expand_vars`)."""
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
    data = _expand(dict(entry), env, where, frozenset(names))
    data["name"], data["type"] = name, kind
    try:
        if kind == "http":
            http = HttpServerConfig.model_validate(data)
            _check_url(http.url, f"{where}.url")
            for value in http.headers.values():
                register_secret(value)  # authorisation and keys: never printed or stored
            register_url_secrets(http.url)
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


TRUST_FILE = "trusted_mcp_configs.json"
"""Under ``$PE_EVAL_HOME``: ``{"<resolved path>": "<sha256>"}`` of the ``.mcp.json`` files the
user confirmed."""


def config_sha256(path: str | os.PathLike[str]) -> str:
    """sha256 of a configuration file's bytes (what a confirmation is for)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _trust_path() -> Path:
    from pe_eval_core.paths import home_path

    return home_path(TRUST_FILE)


def _trusted() -> dict[str, str]:
    try:
        data = json.loads(_trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def is_trusted(path: str | os.PathLike[str], sha256: str) -> bool:
    """True when the user confirmed this file with exactly this content."""
    return _trusted().get(str(Path(path).resolve())) == sha256


def trust_config(path: str | os.PathLike[str], sha256: str) -> None:
    """Record the user's confirmation of ``path`` at ``sha256`` (atomically)."""
    from pe_eval_core.files import atomic_write_text

    trusted = _trusted()
    trusted[str(Path(path).resolve())] = sha256
    atomic_write_text(_trust_path(), json.dumps(trusted, indent=2, sort_keys=True) + "\n")


def _check_trust(config: McpConfig, found: Path, confirm_sha256: str | None) -> None:
    """Refuse an implicitly found file that would start commands, unless confirmed by hash."""
    commands = [s for s in config.servers.values() if isinstance(s, StdioServerConfig)]
    if not commands:
        return
    digest = config_sha256(found)
    if confirm_sha256 is not None:
        if confirm_sha256.strip().lower() not in (digest, digest[:12]):
            raise McpConfigNotTrustedError(
                f"{found} has sha256 {digest}, not the {confirm_sha256.strip()[:64]!r} you "
                "confirmed: it changed, or another file was meant; nothing was started",
                fix="Read the file again and confirm its current hash if you trust it.",
            )
        trust_config(found, digest)
        return
    if is_trusted(found, digest):
        return
    shown = "; ".join(f"{s.name}: {s.where}" for s in commands)
    raise McpConfigNotTrustedError(
        f"{found} (sha256 {digest}) would start {len(commands)} command(s) found in the "
        f"working folder, not named by you: {shown[:300]}; nothing was started",
        fix=f"Pass the configuration file explicitly if you trust it, or confirm this file "
        f"once by its hash {digest[:12]} (a later edit asks again).",
    )


def load_mcp_config(
    path: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    expand: Iterable[str] | None = None,
    confirm_sha256: str | None = None,
) -> McpConfig:
    """Read ``.mcp.json`` (see :func:`find_mcp_config`); an empty config when there is none.

    ``expand``: the variables ``${VAR}`` may read (with ``$PE_EVAL_MCP_ENV``'s; None: none
    named but those). A file found in the working folder (``path`` None) that would start a
    command is refused unless confirmed by its sha256 (``confirm_sha256``, recorded for next
    time) or confirmed before; a file passed as ``path`` is the user's explicit choice.
    """
    found = find_mcp_config(path)
    if found is None:
        return McpConfig()
    try:
        doc = json.loads(found.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise McpConfigError(
            f"{found} is malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except (OSError, UnicodeDecodeError, RecursionError) as exc:
        raise McpConfigError(f"{found} could not be read: {type(exc).__name__}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("mcpServers"), dict):
        raise McpConfigError(f'{found}: no "mcpServers" object at the top level')
    names = named_variables(expand or ())
    servers = {
        name: server_from_entry(name, entry, env=env, source=str(found), names=names)
        for name, entry in doc["mcpServers"].items()
    }
    config = McpConfig(servers=servers, source=str(found))
    if path is None:
        _check_trust(config, found, confirm_sha256)
    return config


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
    register_url_secrets(url)
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
