"""A private, throwaway PostgreSQL server on 127.0.0.1 (stdlib only).

Used by the Mimic stack (``scripts/mimic_stack.py``), its tests and, later, a
PostgreSQL-backed store. Nothing here touches a system cluster: the server gets its own data
directory, its own unix-socket directory and a free port on 127.0.0.1 only.

PostgreSQL refuses to run as root. When this process is root, ``initdb`` and ``pg_ctl`` run as
a non-root system user (``pe_eval_pg``, created with ``useradd`` when missing; ``postgres``
as a fallback) and the base directory is chowned to it, so it must be reachable by that user
(the default, a fresh ``/tmp/pe_eval_pg_*`` directory, is). Otherwise they run as the current
user.

From Python::

    with LocalPostgres() as pg:          # or LocalPostgres("/tmp/mydb")
        print(pg.url)                    # postgresql://pe_eval:...@127.0.0.1:PORT/pe_eval
        pg.psql("-c", "select 1")

A missing installation raises :class:`PostgresUnavailable` with the reason (tests skip on it).

CLI (the server keeps running until ``stop``)::

    python3 scripts/local_postgres.py start --dir /tmp/pgdemo [--port 55432]
    python3 scripts/local_postgres.py url --dir /tmp/pgdemo
    python3 scripts/local_postgres.py stop --dir /tmp/pgdemo

Every wait is bounded (``pg_ctl -w -t``, subprocess timeouts); nothing here can hang.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import pwd
import secrets
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

__all__ = ["LocalPostgres", "PostgresUnavailable", "find_pg_bindir", "free_port"]

PG_OS_USER = "pe_eval_pg"  # the non-root account the server runs as when we are root
FALLBACK_OS_USERS = ("postgres",)
STATE_FILE = "pe_eval_pg.json"  # in base_dir: port, role, password, database, os user
_NEEDED = ("initdb", "pg_ctl", "postgres", "psql")


class PostgresUnavailable(RuntimeError):
    """PostgreSQL cannot be started here; ``str(exc)`` says why and how to fix it."""


def find_pg_bindir() -> Path:
    """The directory holding initdb, pg_ctl, postgres and psql, or PostgresUnavailable.

    Looks at PATH (resolving symlinks, e.g. /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin),
    then /usr/lib/postgresql/<newest>/bin, then /usr/local/bin and /usr/local/pgsql/bin.
    """
    candidates: list[Path] = []
    found = shutil.which("initdb")
    if found:
        candidates.append(Path(found).resolve().parent)
        candidates.append(Path(found).parent)

    def _version(path: str) -> tuple[int, ...]:
        name = Path(path).parent.name
        return tuple(int(p) for p in name.split(".") if p.isdigit()) or (0,)

    for path in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True):
        candidates.append(Path(path))
    candidates += [Path("/usr/local/bin"), Path("/usr/local/pgsql/bin")]
    for directory in candidates:
        if all((directory / tool).is_file() for tool in _NEEDED[:3]):
            return directory
    raise PostgresUnavailable(
        "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found on PATH, in "
        "/usr/lib/postgresql/*/bin or /usr/local/bin; install them with "
        "`apt-get install -y postgresql` (Debian) and retry"
    )


def _psql_path(bindir: Path) -> str:
    if (bindir / "psql").is_file():
        return str(bindir / "psql")
    found = shutil.which("psql")
    if not found:
        raise PostgresUnavailable("psql not found; install `postgresql-client`")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _traversable_by(path: Path, uid: int, gid: int) -> bool:
    """True when every parent of ``path`` can be entered by uid/gid (for a non-root server)."""
    for parent in [path, *path.parents]:
        if not parent.exists():
            continue
        st = parent.stat()
        mode = st.st_mode
        if st.st_uid == uid:
            ok = mode & stat.S_IXUSR
        elif st.st_gid == gid:
            ok = mode & stat.S_IXGRP
        else:
            ok = mode & stat.S_IXOTH
        if not ok:
            return False
    return True


def _ensure_os_user() -> pwd.struct_passwd:
    """The non-root account to run PostgreSQL as (root only): pe_eval_pg, created if missing."""
    with contextlib.suppress(KeyError):
        return pwd.getpwnam(PG_OS_USER)
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    if Path(useradd).exists():
        proc = subprocess.run(
            [
                useradd,
                "--system",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                PG_OS_USER,
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(PG_OS_USER)
        reason = (proc.stderr or proc.stdout).strip()
    else:
        reason = "useradd not found"
    for name in FALLBACK_OS_USERS:
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise PostgresUnavailable(
        f"running as root and could not create the non-root user {PG_OS_USER!r} "
        f"({reason}); PostgreSQL refuses to run as root"
    )


class LocalPostgres:
    """A private PostgreSQL server: initdb (once), start on 127.0.0.1, stop on exit.

    ``base_dir`` holds ``data/`` (PGDATA), ``sock/`` (the unix socket), ``postgres.log`` and
    ``pe_eval_pg.json`` (port and credentials). Without ``base_dir`` a fresh ``/tmp`` directory
    is made and removed again by :meth:`stop`. An existing ``data/`` is reused (a second
    ``start`` keeps the databases). ``port=None`` picks a free port at each start.
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str] | None = None,
        *,
        port: int | None = None,
        user: str = "pe_eval",
        database: str = "pe_eval",
        start_timeout: int = 30,
        keep: bool | None = None,
    ) -> None:
        self._made_dir = base_dir is None
        self.base_dir = Path(base_dir) if base_dir is not None else None
        self.requested_port = port
        self.user = user
        self.database = database
        self.start_timeout = start_timeout
        self.keep = (not self._made_dir) if keep is None else keep
        self.port: int | None = None
        self.password: str | None = None
        self._running = False
        self.bindir = find_pg_bindir()
        self.psql_bin = _psql_path(self.bindir)
        if os.geteuid() == 0:
            self._os_user: pwd.struct_passwd | None = _ensure_os_user()
        else:
            self._os_user = None

    # -- paths --------------------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        assert self.base_dir is not None
        return self.base_dir / "data"

    @property
    def socket_dir(self) -> Path:
        assert self.base_dir is not None
        return self.base_dir / "sock"

    @property
    def log_file(self) -> Path:
        assert self.base_dir is not None
        return self.base_dir / "postgres.log"

    @property
    def state_file(self) -> Path:
        assert self.base_dir is not None
        return self.base_dir / STATE_FILE

    @property
    def url(self) -> str:
        """``postgresql://user:password@127.0.0.1:port/database`` (after :meth:`start`)."""
        if self.port is None or self.password is None:
            raise RuntimeError("LocalPostgres is not started")
        return (
            f"postgresql://{quote(self.user, safe='')}:{quote(self.password, safe='')}"
            f"@127.0.0.1:{self.port}/{quote(self.database, safe='')}"
        )

    @property
    def os_user(self) -> str:
        return self._os_user.pw_name if self._os_user else pwd.getpwuid(os.geteuid()).pw_name

    # -- running tools as the server's user ---------------------------------------------------
    def _run(self, args: list[str], *, timeout: float, check: bool = True) -> str:
        kwargs: dict = {}
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "HOME": str(self.base_dir),
            "TZ": "UTC",
        }
        if self._os_user is not None:
            kwargs.update(user=self._os_user.pw_uid, group=self._os_user.pw_gid, extra_groups=[])
            env["USER"] = env["LOGNAME"] = self._os_user.pw_name
        try:
            proc = subprocess.run(
                args,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=str(self.base_dir),
                env=env,
                stdin=subprocess.DEVNULL,
                check=False,
                **kwargs,
            )
        except subprocess.TimeoutExpired as exc:
            raise PostgresUnavailable(
                f"{Path(args[0]).name} did not finish within {timeout:.0f} s"
            ) from exc
        if check and proc.returncode != 0:
            tail = self._log_tail()
            raise PostgresUnavailable(
                f"{Path(args[0]).name} failed (exit {proc.returncode}): "
                f"{(proc.stderr or proc.stdout).strip()}"
                + (f"\nserver log:\n{tail}" if tail else "")
            )
        return proc.stdout

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except (OSError, AssertionError):
            return ""

    def _chown(self, path: Path) -> None:
        if self._os_user is not None:
            os.chown(path, self._os_user.pw_uid, self._os_user.pw_gid)

    # -- lifecycle ----------------------------------------------------------------------------
    def _prepare_dirs(self) -> None:
        if self.base_dir is None:
            self.base_dir = Path(tempfile.mkdtemp(prefix="pe_eval_pg_", dir="/tmp"))
        self.base_dir = self.base_dir.absolute()
        self.base_dir.mkdir(parents=True, exist_ok=True)
        if self._os_user is not None and not _traversable_by(
            self.base_dir.parent, self._os_user.pw_uid, self._os_user.pw_gid
        ):
            raise PostgresUnavailable(
                f"{self.base_dir.parent} is not reachable by the non-root user "
                f"{self._os_user.pw_name!r} that runs PostgreSQL (we are root); use a "
                "directory under /tmp (the default when no base_dir is given)"
            )
        self.base_dir.chmod(0o700)
        self._chown(self.base_dir)
        for sub in (self.socket_dir,):
            sub.mkdir(exist_ok=True)
            sub.chmod(0o700)
            self._chown(sub)

    def _load_state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _save_state(self) -> None:
        state = {
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "database": self.database,
            "os_user": self.os_user,
            "url": self.url,
            "data_dir": str(self.data_dir),
            "socket_dir": str(self.socket_dir),
        }
        self.state_file.write_text(json.dumps(state, indent=2) + "\n")
        self.state_file.chmod(0o600)

    def _initdb(self) -> None:
        if (self.data_dir / "PG_VERSION").exists():
            return
        if self.data_dir.exists():
            shutil.rmtree(self.data_dir)  # a half-made data dir from an interrupted initdb
        pwfile = self.base_dir / "superuser.pw"  # type: ignore[operator]
        pwfile.write_text(secrets.token_urlsafe(24) + "\n")
        pwfile.chmod(0o600)
        self._chown(pwfile)
        try:
            self._run(
                [
                    str(self.bindir / "initdb"),
                    "-D",
                    str(self.data_dir),
                    "--username=pe_eval_admin",
                    f"--pwfile={pwfile}",
                    "--auth-local=trust",  # the socket dir is 0700: only its owner (and root)
                    "--auth-host=scram-sha-256",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                    "--no-instructions",
                ],
                timeout=120,
            )
        finally:
            pwfile.unlink(missing_ok=True)
        with (self.data_dir / "postgresql.conf").open("a") as conf:
            conf.write(
                "\n# pe-eval LocalPostgres: private, loopback only, throwaway data\n"
                "listen_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 50\nshared_buffers = 32MB\n"
                "logging_collector = off\ntimezone = 'UTC'\n"
            )

    def _pg_ctl_start(self, port: int) -> None:
        opts = f"-p {port} -k {shlex.quote(str(self.socket_dir))} -c listen_addresses=127.0.0.1"
        self._run(
            [
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data_dir),
                "-l",
                str(self.log_file),
                "-o",
                opts,
                "-w",
                "-t",
                str(self.start_timeout),
                "start",
            ],
            timeout=self.start_timeout + 15,
        )

    def _admin_sql(self, sql: str) -> str:
        """Run SQL as the superuser over the private unix socket (as the server's user)."""
        return self._run(
            [
                self.psql_bin,
                "-h",
                str(self.socket_dir),
                "-p",
                str(self.port),
                "-U",
                "pe_eval_admin",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-qAt",
                "-c",
                sql,
            ],
            timeout=30,
        )

    def _ensure_role_and_db(self) -> None:
        role = self.user.replace('"', '""')
        pw = self.password.replace("'", "''")  # type: ignore[union-attr]
        exists = self._admin_sql(f"SELECT 1 FROM pg_roles WHERE rolname = '{role}'").strip()
        verb = "ALTER" if exists else "CREATE"
        self._admin_sql(f"{verb} ROLE \"{role}\" LOGIN CREATEDB PASSWORD '{pw}'")
        db = self.database.replace("'", "''")
        if not self._admin_sql(f"SELECT 1 FROM pg_database WHERE datname = '{db}'").strip():
            quoted_db = self.database.replace('"', '""')
            self._admin_sql(f'CREATE DATABASE "{quoted_db}" OWNER "{role}"')

    def start(self) -> LocalPostgres:
        """initdb if needed, start on 127.0.0.1, create the role and database; returns self."""
        if self._running:
            return self
        self._prepare_dirs()
        self._initdb()
        state = self._load_state()
        self.password = state.get("password") or secrets.token_urlsafe(18)
        if self._is_up():
            raise PostgresUnavailable(
                f"a server is already running on {self.data_dir}; stop it first "
                f"(python3 scripts/local_postgres.py stop --dir {self.base_dir})"
            )
        attempts = 1 if self.requested_port else 3
        last: Exception | None = None
        for _ in range(attempts):
            port = self.requested_port or free_port()
            if not _port_is_free(port):
                last = PostgresUnavailable(f"port {port} on 127.0.0.1 is already in use")
                continue
            try:
                self._pg_ctl_start(port)
            except PostgresUnavailable as exc:  # a port race: try another one
                last = exc
                continue
            self.port = port
            break
        else:
            assert last is not None
            raise last
        self._running = True
        try:
            self._ensure_role_and_db()
            self._save_state()
        except BaseException:
            self.stop()
            raise
        return self

    def _is_up(self) -> bool:
        if not (self.data_dir / "postmaster.pid").exists():
            return False
        proc_out = self._run(
            [str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "status"],
            timeout=15,
            check=False,
        )
        return "server is running" in proc_out

    def stop(self) -> None:
        """Stop the server (fast, then immediate, then SIGKILL); remove a temp base_dir."""
        if self.base_dir is None:
            return
        if (self.data_dir / "postmaster.pid").exists():
            pg_ctl = str(self.bindir / "pg_ctl")
            for mode in ("fast", "immediate"):
                with contextlib.suppress(PostgresUnavailable):
                    self._run(
                        [pg_ctl, "-D", str(self.data_dir), "-m", mode, "-w", "-t", "20", "stop"],
                        timeout=35,
                    )
                if not (self.data_dir / "postmaster.pid").exists():
                    break
            self._kill_leftover()
        self._running = False
        if self._made_dir and not self.keep:
            shutil.rmtree(self.base_dir, ignore_errors=True)

    def _kill_leftover(self) -> None:
        pidfile = self.data_dir / "postmaster.pid"
        try:
            pid = int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                os.kill(pid, 0)
                time.sleep(0.1)

    def psql(self, *args: str, timeout: float = 120) -> str:
        """Run psql against :attr:`url` (TCP, password auth) with ON_ERROR_STOP; returns stdout."""
        try:
            proc = subprocess.run(
                [self.psql_bin, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.url, *args],
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"psql did not finish within {timeout:.0f} s") from exc
        if proc.returncode != 0:
            raise RuntimeError(f"psql failed (exit {proc.returncode}): {proc.stderr.strip()}")
        return proc.stdout

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="initdb if needed and start; prints the URL")
    start.add_argument("--dir", required=True, help="base directory (use one under /tmp)")
    start.add_argument("--port", type=int, default=None, help="default: a free port")
    start.add_argument("--user", default="pe_eval")
    start.add_argument("--database", default="pe_eval")
    for name, text in (("stop", "stop the server"), ("url", "print the URL of a started dir")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("--dir", required=True)
    args = parser.parse_args(argv)
    base = Path(args.dir)
    try:
        if args.command == "start":
            pg = LocalPostgres(
                base, port=args.port, user=args.user, database=args.database, keep=True
            )
            pg.start()
            print(pg.url)
            return 0
        state = {}
        with contextlib.suppress(OSError, ValueError):
            state = json.loads((base / STATE_FILE).read_text())
        if args.command == "url":
            if not state.get("url"):
                print(f"no server state in {base}", file=sys.stderr)
                return 1
            print(state["url"])
            return 0
        pg = LocalPostgres(base, keep=True)
        pg.stop()
        print(f"stopped {base}")
        return 0
    except PostgresUnavailable as exc:
        print(f"PostgreSQL unavailable: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(_cli())
