"""Where pe-eval's database is, how long to wait for its lock, and what a SQLite failure means.

The light half of the connection layer: no SQLAlchemy, so the command that records one memo
(:mod:`.lite`) and the full layer (:mod:`.engine`) share the same locations, timeouts, text
cleaning and error wording without either importing the database toolkit for it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pe_eval_core.errors import HistoryError, HistoryLockedError
from pe_eval_core.paths import home_path

DB_FILENAME = "history.sqlite"
DATABASE_URL_ENV = "PE_EVAL_DATABASE_URL"
LOCK_TIMEOUT_ENV = "PE_EVAL_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 5.0
SQLITE_URL = "sqlite:///"
_SURROGATE = re.compile("[\ud800-\udfff]")


def default_db_path() -> Path:
    """``$PE_EVAL_HOME/history.sqlite`` if set, else ``./.pe_eval/history.sqlite``."""
    return home_path(DB_FILENAME)


def lock_timeout_s() -> float:
    """``$PE_EVAL_LOCK_TIMEOUT`` (seconds, > 0), else 5."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_LOCK_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise HistoryError(
            f"{LOCK_TIMEOUT_ENV}={raw!r} is not a number of seconds between 0 and 3600",
            fix=f"Set {LOCK_TIMEOUT_ENV} to a number of seconds such as 5, or unset it.",
        )
    return value


def plain_sqlite_file(target: str | os.PathLike[str] | None = None) -> Path | None:
    """The SQLite file ``target`` names when it is a plain one: a path, ``sqlite:///PATH``
    (no query, no escapes), or neither given and no ``$PE_EVAL_DATABASE_URL``: the default
    file. None for anything else (a server URL, an unusual SQLite URL): those go through
    the full connection layer (``pe_eval_core.db.engine.database_url``), which reads them.

    >>> plain_sqlite_file("/tmp/h.sqlite"), plain_sqlite_file("sqlite:////tmp/h.sqlite")
    (PosixPath('/tmp/h.sqlite'), PosixPath('/tmp/h.sqlite'))
    >>> plain_sqlite_file("postgresql://u@db/pe") is None
    True
    """
    if target is None:
        raw = os.environ.get(DATABASE_URL_ENV, "").strip()
        if not raw:
            return default_db_path()
    elif isinstance(target, str) and "://" in target:
        raw = target.strip()
    else:
        return Path(target).expanduser()
    if not raw.startswith(SQLITE_URL) or any(c in raw for c in "?%#"):
        return None
    path = raw[len(SQLITE_URL) :]
    return Path(path) if path else None


def text_safe(value: Any) -> Any:
    """A string the database driver can encode: lone surrogates (``"\\ud800"``, valid in
    JSON, not in UTF-8) become U+FFFD; other values pass through.

    >>> text_safe("a\\ud800b"), text_safe(3)
    ('a\\ufffdb', 3)
    """
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return value


def holders(path: Path) -> list[str]:
    """The other processes that have ``path`` (or its WAL) open, as ``pid N (command)``;
    empty where /proc cannot tell (another OS, another user's processes)."""
    wanted = {str(path.resolve()), str(path.resolve()) + "-wal"}
    found: list[str] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fds = list((entry / "fd").iterdir())
            if not any(os.readlink(fd) in wanted for fd in fds):
                continue
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found.append(f"pid {entry.name} ({cmd.strip()[:80]})")
    return found


def sqlite_error(
    detail: str, location: str, path: Path | None, lock_timeout: float
) -> HistoryError | None:
    """The typed error for a SQLite failure described by ``detail`` (the driver's first
    line), or None when it is none of the specific ones (the caller words it)."""
    if "locked" in detail:
        found = holders(path) if path else []
        held = f"; held by {', '.join(found)}" if found else ""
        return HistoryLockedError(
            f"history database {location} stayed locked for {lock_timeout:g} s{held}"
        )
    if "not a database" in detail:
        return HistoryError(f"{location} is not a usable SQLite database: {detail}")
    return None
