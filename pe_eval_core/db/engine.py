"""Connections to pe-eval's database: the embedded SQLite file or a PostgreSQL server.

:func:`database_url` decides where (an explicit path or URL, else ``$PE_EVAL_DATABASE_URL``,
else ``$PE_EVAL_HOME/history.sqlite``); :class:`Database` hands out short read and write
transactions on a per-process engine, migrates the schema on first use, and turns every
driver error into a typed :class:`~pe_eval_core.errors.HistoryError`. A lock held by another
process is waited for at most ``$PE_EVAL_LOCK_TIMEOUT`` seconds (default 5); then
:class:`~pe_eval_core.errors.HistoryLockedError` names the processes holding the file.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from pe_eval_core.db.schema import migrate
from pe_eval_core.errors import HistoryError, HistoryLockedError, PeEvalError
from pe_eval_core.paths import home_path
from pe_eval_core.redact import redact, register_secret

DB_FILENAME = "history.sqlite"
DATABASE_URL_ENV = "PE_EVAL_DATABASE_URL"
LOCK_TIMEOUT_ENV = "PE_EVAL_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 5.0
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


def database_url(target: str | os.PathLike[str] | None = None) -> URL:
    """The database a store opens: ``target`` (a path or URL), else ``$PE_EVAL_DATABASE_URL``,
    else the default SQLite file. ``postgresql://`` URLs use the psycopg (3) driver.

    >>> database_url("/tmp/h.sqlite").render_as_string()
    'sqlite:////tmp/h.sqlite'
    >>> database_url("postgresql://u:secret@db:5432/pe").render_as_string()
    'postgresql+psycopg://u:***@db:5432/pe'
    """
    raw: str | None = None
    if target is None:
        raw = os.environ.get(DATABASE_URL_ENV, "").strip() or None
        path = default_db_path()
    elif isinstance(target, str) and "://" in target:
        raw = target.strip()
        path = None
    else:
        path = Path(target).expanduser()
    if raw is None:
        assert path is not None
        return URL.create("sqlite", database=str(path))
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError) as exc:
        raise HistoryError(
            f"{_redacted(raw)!r} is not a database URL ({redact(str(exc))})",
            fix="Give postgresql://USER:PASSWORD@HOST:PORT/DATABASE, sqlite:///PATH, or a file "
            "path.",
        ) from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    if backend == "sqlite" and url.database:
        return url
    raise HistoryError(
        f"unsupported history database URL {url.render_as_string(hide_password=True)!r}",
        fix="Use postgresql://USER:PASSWORD@HOST:PORT/DATABASE, sqlite:///PATH, or a file path.",
    )


def _redacted(raw: str) -> str:
    return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", raw)


# --- engines: one per database and process, set up for short bounded locks ----------------

_ENGINES: dict[tuple[str, int, float], Engine] = {}


def _engine(url: URL, timeout: float) -> Engine:
    key = (url.render_as_string(hide_password=False), os.getpid(), timeout)
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _sqlite_engine(url, timeout) if url.get_backend_name() == "sqlite" else None
        if engine is None:
            engine = _server_engine(url, timeout)
        _ENGINES[key] = engine
    return engine


WRITE_LOCK_KEY = 0x70655F6576616C  # "pe_eval": the one advisory lock of pe-eval's writers
"""On PostgreSQL every write transaction holds this transaction-level advisory lock: shared
for recording, deleting and pinning (they may run side by side), exclusive for ``gc``. So a
``gc`` never runs while a recorder has found a blob it means to reuse but not yet committed
the run that references it (in one race 25 of 30 runs lost their verdict details), and a
recorder waits for a ``gc`` under way. The wait is bounded by ``lock_timeout``, as any lock's
(then ``HistoryLockedError``). SQLite gets the same order from ``BEGIN IMMEDIATE``."""


def _server_engine(url: URL, timeout: float) -> Engine:
    ms = int(timeout * 1000)
    engine = create_engine(
        url,
        connect_args={
            "connect_timeout": max(1, round(timeout)),
            "options": f"-c lock_timeout={ms}",
        },
        pool_pre_ping=True,
        pool_size=2,  # a CLI command needs one; a dashboard a few
        max_overflow=6,
    )

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("pe_write")
        if mode == EXCLUSIVE:
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")
        elif mode:
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock_shared({WRITE_LOCK_KEY})")

    return engine


EXCLUSIVE = "exclusive"
"""``pe_write`` of a write that must run alone (``gc``)."""


def _sqlite_engine(url: URL, timeout: float) -> Engine:
    # No pool: a SQLite connection is cheap to open, and a pooled one would keep the file (and
    # its WAL) open in a long-lived process after the user deleted or replaced it.
    engine = create_engine(
        url,
        connect_args={"timeout": timeout, "check_same_thread": False},
        poolclass=NullPool,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun below, not by the driver
        dbapi_conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        _enable_wal(dbapi_conn, timeout)
        dbapi_conn.execute("PRAGMA foreign_keys = ON")
        dbapi_conn.execute("PRAGMA synchronous = NORMAL")

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # A write takes the lock up front, so two writers never deadlock upgrading a read lock.
        write = conn.get_execution_options().get("pe_write")
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _enable_wal(conn: sqlite3.Connection, timeout: float) -> None:
    # Switching the journal mode needs a moment of exclusive access the busy handler does not
    # always cover, so retry briefly while another process is creating the file.
    deadline = time.monotonic() + timeout
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
            continue
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"SQLite refused WAL mode (got {mode!r})")
        return


def _holders(path: Path) -> list[str]:
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


class Database:
    """One database (see :func:`database_url`), created and migrated on first use.

    Connections come from a per-process pool and are held only for one transaction, so one
    ``Database`` may be shared across threads and several processes (or machines, on
    PostgreSQL) can write at once.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | None = None,
        *,
        lock_timeout: float | None = None,
    ):
        self.url = database_url(target)
        register_secret(self.url.password)  # a driver error may quote the connection string
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        self.path: Path | None = Path(self.url.database or "") if self.is_sqlite else None
        """The SQLite file, or None for a server database."""
        self.lock_timeout = lock_timeout if lock_timeout is not None else lock_timeout_s()
        self._ready = False

    @property
    def location(self) -> str:
        """Where the history lives, safe to show (a path, or the URL without its password)."""
        if self.path is not None:
            return str(self.path)
        return self.url.render_as_string(hide_password=True)

    def exists(self) -> bool:
        """Whether there is a history to read (reading never creates a SQLite file)."""
        return self.path.is_file() if self.path is not None else True

    # connection management

    @contextmanager
    def errors(self) -> Iterator[None]:
        try:
            yield
        except PeEvalError:
            raise
        except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
            raise self._typed(exc) from exc

    def _typed(self, exc: BaseException) -> HistoryError:
        orig = exc.orig if isinstance(exc, DBAPIError) else exc
        detail = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
        detail = redact(detail)
        if self.is_sqlite and "locked" in detail:
            holders = _holders(self.path) if self.path else []
            held = f"; held by {', '.join(holders)}" if holders else ""
            return HistoryLockedError(
                f"history database {self.location} stayed locked for {self.lock_timeout:g} s{held}"
            )
        if getattr(orig, "sqlstate", None) == "55P03":  # PostgreSQL lock_not_available
            return HistoryLockedError(
                f"history database {self.location}: a lock stayed held for "
                f"{self.lock_timeout:g} s by another session ({detail})"
            )
        if self.is_sqlite and "not a database" in detail:
            return HistoryError(f"{self.location} is not a usable SQLite database: {detail}")
        if (isinstance(exc, DBAPIError) and exc.connection_invalidated) or "connect" in detail:
            return HistoryError(f"cannot connect to history database {self.location}: {detail}")
        return HistoryError(f"history database {self.location}: {detail}")

    def engine(self) -> Engine:
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise HistoryError(f"cannot create the folder of {self.location}: {exc}") from exc
        engine = _engine(self.url, self.lock_timeout)
        if not self._ready:  # once per Database object: a file replaced meanwhile is migrated
            with self.errors(), engine.execution_options(pe_write=True).begin() as conn:
                migrate(conn, self.location)
            self._ready = True
        return engine

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.errors():
            engine = self.engine()
            with engine.connect() as conn:
                yield conn

    @contextmanager
    def write(self, *, exclusive: bool = False) -> Iterator[Connection]:
        """One write transaction: on SQLite it takes the write lock up front; on PostgreSQL the
        writers' advisory lock, shared, or ``exclusive`` for a write that must run alone."""
        with self.errors():
            engine = self.engine()
            mode = EXCLUSIVE if exclusive else True
            with engine.execution_options(pe_write=mode).begin() as conn:
                yield conn


def upsert(conn: Connection, table: Any) -> Any:
    """An INSERT that takes ``ON CONFLICT`` clauses, in the connection's dialect."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


def insert_ignore(conn: Connection, table: Any) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING in the connection's dialect."""
    return upsert(conn, table).on_conflict_do_nothing()


def text_safe(value: Any) -> Any:
    """A string the database driver can encode: lone surrogates (``"\\ud800"``, valid in
    JSON, not in UTF-8) become U+FFFD; other values pass through."""
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return value
