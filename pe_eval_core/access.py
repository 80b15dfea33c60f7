"""Who may do what on the dashboard: the policy, in pure Python (``ui/access.py`` is the glue).

Two roles. The **operator** runs the server: its configuration, its API key, its files. A
**member** is someone the operator lets in when the dashboard is served to a team.

* Served locally (the default: ``server.address = "127.0.0.1"``) with no login configured,
  whoever reaches the page is on the operator's machine: the operator.
* Served to others (``server.address`` not a loopback address, or ``PE_EVAL_SERVED=1``
  behind a reverse proxy) or with any login configured, every visitor logs in. The operator
  token (``PE_EVAL_OPERATOR_TOKEN``, or ``operator_token`` under ``[pe_eval]`` in Streamlit
  secrets) makes the visitor the operator; the team password (``PE_EVAL_TEAM_PASSWORD`` /
  ``team_password``) makes a member. Both are compared in constant time. Served with neither
  configured, the dashboard shows nothing but how to configure one (it fails closed).

Operator only (a member is refused with :class:`~pe_eval_core.errors.AccessDeniedError`):
data folders, scenario and response files outside the data roots (``PE_EVAL_DATA_ROOTS``);
skill files outside the skills folder (``PE_EVAL_SKILLS_DIR``); live runs on the server's
Anthropic key (a member may paste a key of their own); deleting or pinning history runs; HTTP
agent URLs that are not public (loopback, private, link-local, reserved: refused for a member,
and a member's URL is pinned to the address checked, so DNS rebinding cannot move it). Every
paid run, on any role, is confirmed with its count (:func:`paid_run_confirmed`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pe_eval_core.errors import AccessDeniedError, TargetConfigError

Role = Literal["operator", "member"]
OPERATOR: Role = "operator"
MEMBER: Role = "member"

OPERATOR_TOKEN_ENV = "PE_EVAL_OPERATOR_TOKEN"
TEAM_PASSWORD_ENV = "PE_EVAL_TEAM_PASSWORD"
SERVED_ENV = "PE_EVAL_SERVED"
DATA_ROOTS_ENV = "PE_EVAL_DATA_ROOTS"
SKILLS_DIR_ENV = "PE_EVAL_SKILLS_DIR"
SECRETS_SECTION = "pe_eval"
MIN_SECRET_CHARS = 12
"""A login secret shorter than this is refused as configuration (it could be guessed)."""

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def is_loopback_address(address: str | None) -> bool:
    """Whether a bind address keeps the server on this machine (unset binds every interface).

    >>> [is_loopback_address(a) for a in ("127.0.0.1", "localhost", "::1", "0.0.0.0", None)]
    [True, True, True, False, False]
    """
    if not address:
        return False
    if address.strip().lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


@dataclass(frozen=True)
class AccessConfig:
    """The operator's settings for who may do what (see the module docstring)."""

    served: bool = False
    """Reachable by others: bound beyond loopback, or declared so (``PE_EVAL_SERVED``)."""
    operator_token: str | None = field(default=None, repr=False)
    team_password: str | None = field(default=None, repr=False)
    data_roots: tuple[Path, ...] = ()
    """Folders a member's data folder, scenarios and responses files must lie in."""
    skills_root: Path | None = None
    """The folder a member's skill file must lie in."""

    @property
    def login_required(self) -> bool:
        """Every visitor logs in when served to others or when any login is configured."""
        return self.served or bool(self.operator_token or self.team_password)

    def problem(self) -> str | None:
        """Why this configuration cannot serve anyone safely, or None."""
        if self.served and not (self.operator_token or self.team_password):
            return (
                "the dashboard is served beyond this machine but no login is configured: set "
                f"{OPERATOR_TOKEN_ENV} (and {TEAM_PASSWORD_ENV} for the team), or "
                f"operator_token / team_password under [{SECRETS_SECTION}] in "
                ".streamlit/secrets.toml"
            )
        for name, value in (
            (OPERATOR_TOKEN_ENV, self.operator_token),
            (TEAM_PASSWORD_ENV, self.team_password),
        ):
            if value is not None and len(value) < MIN_SECRET_CHARS:
                return f"{name} is shorter than {MIN_SECRET_CHARS} characters"
        return None

    def login(self, presented: str) -> Role | None:
        """The role ``presented`` logs in as, or None; both secrets are always compared, in
        constant time over their digests (so neither the match nor the length leaks).

        >>> c = AccessConfig(served=True, operator_token="op-" + "x" * 20, team_password="t" * 14)
        >>> c.login("t" * 14), c.login("op-" + "x" * 20), c.login("nope")
        ('member', 'operator', None)
        """
        given = _digest(presented or "")
        as_operator = hmac.compare_digest(given, _digest(self.operator_token or "\0no-token"))
        as_member = hmac.compare_digest(given, _digest(self.team_password or "\0no-password"))
        if as_operator and self.operator_token:
            return OPERATOR
        if as_member and self.team_password:
            return MEMBER
        return None

    def role(self, logged_in: Role | None) -> Role | None:
        """The visitor's role: the operator on a local dashboard without a login, else the role
        they logged in as (None: must log in first)."""
        if not self.login_required:
            return OPERATOR
        return logged_in


def _secret(secrets: Mapping[str, Any], key: str, env: Mapping[str, str], var: str) -> str | None:
    value = env.get(var)
    if not value:
        section = secrets.get(SECRETS_SECTION) if isinstance(secrets, Mapping) else None
        value = section.get(key) if isinstance(section, Mapping) else None
    return str(value) if value else None


def _paths(raw: str) -> list[Path]:
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def access_config(
    *,
    address: str | None,
    secrets: Mapping[str, Any],
    repo_root: Path,
    default_roots: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
) -> AccessConfig:
    """The configuration from the server's own settings: its bind ``address``, Streamlit
    ``secrets`` and the environment (see the module docstring for the names)."""
    env = os.environ if env is None else env
    served = not is_loopback_address(address) or env.get(SERVED_ENV, "").strip() not in ("", "0")
    roots_raw = env.get(DATA_ROOTS_ENV, "").strip()
    roots = _paths(roots_raw) if roots_raw else list(default_roots)
    skills = env.get(SKILLS_DIR_ENV, "").strip()
    return AccessConfig(
        served=served,
        operator_token=_secret(secrets, "operator_token", env, OPERATOR_TOKEN_ENV),
        team_password=_secret(secrets, "team_password", env, TEAM_PASSWORD_ENV),
        data_roots=tuple(_resolve(r if r.is_absolute() else repo_root / r) for r in roots),
        skills_root=_resolve(Path(skills).expanduser() if skills else repo_root / "skills"),
    )


def _resolve(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    resolved = _resolve(path)
    return any(resolved == r or resolved.is_relative_to(r) for r in roots)


OPERATOR_FIX = "Ask the operator, or log in with the operator token."


def check_path(role: Role, config: AccessConfig, path: Path, what: str) -> None:
    """Refuse a member a ``what`` (``"data folder"``, ``"scenarios file"``, ``"recorded
    responses file"``) outside the data roots, links resolved; the operator may use any."""
    if role == OPERATOR or _inside(path, config.data_roots):
        return
    roots = ", ".join(r.name or str(r) for r in config.data_roots) or "none configured"
    raise AccessDeniedError(
        f"the {what} is outside the folders this dashboard shares ({roots})",
        fix="Choose a path inside the shared folders, or upload the files instead. " + OPERATOR_FIX,
    )


def check_skill(role: Role, config: AccessConfig, path: Path) -> None:
    """Refuse a member a skill file outside the skills folder (any other file the server can
    read would be sent to the model)."""
    if role == OPERATOR or (config.skills_root is not None and _inside(path, [config.skills_root])):
        return
    raise AccessDeniedError(
        "the skill file is outside the skills folder this dashboard shares",
        fix=f"Pick a skill under {config.skills_root.name if config.skills_root else 'skills'}/"
        ", or ask the operator.",
    )


def check_operator(role: Role, action: str) -> None:
    """Refuse a member an operator-only ``action`` (delete or pin a run, a live run on the
    server's key)."""
    if role != OPERATOR:
        raise AccessDeniedError(f"only the operator may {action}", fix=OPERATOR_FIX)


def paid_run_confirmed(paid_total: int, confirmed_count: int | None) -> bool:
    """On the dashboard every paid run is confirmed, whatever its size, for the count shown:
    a confirmation of another count (the inputs changed since) does not carry over.

    >>> paid_run_confirmed(0, None), paid_run_confirmed(1, None), paid_run_confirmed(3, 3)
    (True, False, True)
    >>> paid_run_confirmed(19, 12)
    False
    """
    return paid_total == 0 or confirmed_count == paid_total


# --- HTTP agent URLs ---------------------------------------------------------------------

Resolver = Callable[[str, int], list[str]]


def _system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def public_address(address: str) -> bool:
    """Whether an IP address is on the public internet (not loopback, private, link-local,
    reserved, multicast, unspecified, or an IPv4-mapped form of one).

    >>> [public_address(a) for a in ("93.184.216.34", "127.0.0.1", "10.1.2.3", "169.254.169.254",
    ...                               "::ffff:127.0.0.1", "fd00::1", "0.0.0.0")]
    [True, False, False, False, False, False, False]
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


@dataclass(frozen=True)
class AgentUrl:
    """An agent URL as checked: where to connect (``connect_url``, the address pinned for a
    member) and the ``Host`` / TLS name to present (``host_header``, ``sni``)."""

    url: str
    connect_url: str
    host_header: str | None = None
    sni: str | None = None


def check_agent_url(role: Role, url: str, resolve: Resolver | None = None) -> AgentUrl:
    """The operator may post to any http(s) URL. A member may post only to a public address:
    every address the host resolves to must be public, and the request goes to the first one
    (pinned), so a second DNS answer (rebinding) cannot send it elsewhere.

    >>> fake = lambda host, port: {"agent.example": ["93.184.216.34"]}.get(host, ["127.0.0.1"])
    >>> check_agent_url("member", "http://agent.example:8080/chat", fake).connect_url
    'http://93.184.216.34:8080/chat'
    >>> check_agent_url("member", "http://localhost:8080/chat", fake)
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.AccessDeniedError: the agent URL's host localhost is not a public ...
    """
    parts = urlsplit(url)
    if role == OPERATOR:
        return AgentUrl(url, url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise TargetConfigError(
            f"agent URL {url[:200]!r} is not an http(s) URL",
            fix="Give the agent's endpoint, http(s)://host:port/path.",
            input="agent_url",
        )
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = (resolve or _system_resolver)(host, port)
    except (OSError, UnicodeError) as exc:
        raise TargetConfigError(
            f"the agent URL's host {host!r} does not resolve ({type(exc).__name__})",
            fix="Check the host name.",
            input="agent_url",
        ) from None
    private = [a for a in addresses if not public_address(a)]
    if not addresses or private:
        raise AccessDeniedError(
            f"the agent URL's host {host} is not a public address"
            + (f" (it resolves to {private[0]})" if private and private[0] != host else ""),
            diagnosis="Only the operator may point the dashboard at this machine or its network",
            fix="Use the agent's public URL, or ask the operator to run it.",
        )
    pinned = addresses[0]
    shown = f"[{pinned}]" if ":" in pinned else pinned
    netloc = f"{shown}:{parts.port}" if parts.port else shown
    connect = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    host_header = parts.netloc.rpartition("@")[2]
    return AgentUrl(url, connect, host_header, host if parts.scheme == "https" else None)


# --- login throttling ------------------------------------------------------------------


class LoginThrottle:
    """Failed logins slow every next attempt (process-wide: a new browser session does not
    reset it): after ``free`` failures within ``window_s``, each attempt waits ``delay_s``
    more, up to ``max_delay_s``."""

    def __init__(
        self,
        free: int = 5,
        window_s: float = 300.0,
        delay_s: float = 1.0,
        max_delay_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.free, self.window_s, self.delay_s, self.max_delay_s = (
            free,
            window_s,
            delay_s,
            max_delay_s,
        )
        self._clock = clock
        self._failures: list[float] = []
        self._lock = threading.Lock()

    def delay(self) -> float:
        """Seconds the next attempt should wait before it is checked."""
        now = self._clock()
        with self._lock:
            self._failures = [t for t in self._failures if now - t < self.window_s]
            over = len(self._failures) - self.free
        return 0.0 if over < 0 else min(self.max_delay_s, self.delay_s * (over + 1))

    def failed(self) -> None:
        with self._lock:
            self._failures.append(self._clock())
