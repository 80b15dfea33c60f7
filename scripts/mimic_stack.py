"""Mimic's own MCP servers, offline: a private PostgreSQL + ``mimic seed`` + ``mimic host``.

The project folder is ``mimic_stack/`` (``mimic.json``, ``schema.sql``,
``.mimic/data/growth-stage-leak.json``, pinned ``@mimicai/cli`` and ``@mimicai/adapter-stripe``).
``start`` does, with bounded waits:

1. ``npm ci`` in ``mimic_stack/`` when ``node_modules`` is missing;
2. a :class:`LocalPostgres` (private data dir, 127.0.0.1, free port);
3. ``psql -f schema.sql`` (Mimic's seed never creates tables), then ``npx mimic seed``;
4. ``npx mimic host --mcp-base-port P --api-base-port Q`` on ports checked free first
   (``mimic host`` SIGKILLs whatever holds them), with ``localhost-only.cjs`` preloaded so
   every server listens on 127.0.0.1 instead of all interfaces;
5. waits until both MCP endpoints answer an MCP ``initialize`` (official ``mcp`` client).

``mimic host`` serves the database MCP server (``primary``: ``get_<table>``,
``get_<table>_summary``) on P and Stripe's (``list_invoices``, ``create_refund``, ...) on P+1;
Stripe's tools call the mock Stripe REST API on Q. (``--no-api`` would drop the Stripe MCP
server too, so it is not used.)

From Python (pytest)::

    with MimicStack() as stack:
        stack.urls  # {"mimic-database": "http://127.0.0.1:P/mcp", "mimic-stripe": ".../mcp"}

CLI::

    python3 scripts/mimic_stack.py start [--mcp-json .mcp.json] [--mcp-base-port P]
    python3 scripts/mimic_stack.py stop
    python3 scripts/mimic_stack.py bench --runs 3     # start-up time, median of N

``start`` leaves the stack running (state in ``--state-dir``, default
``/tmp/pe-eval-mimic-stack``) and writes a Claude Code ``.mcp.json`` when ``--mcp-json`` is given.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_postgres import LocalPostgres, PostgresUnavailable

REPO = Path(__file__).resolve().parent.parent
PROJECT = REPO / "mimic_stack"
PERSONA = "growth-stage-leak"
DEFAULT_STATE_DIR = Path("/tmp/pe-eval-mimic-stack")
SERVER_NAMES = ("mimic-database", "mimic-stripe")  # the names the skill and seed prompt use

__all__ = ["MimicStack", "StackUnavailable", "missing_prerequisites", "pick_ports"]


class StackUnavailable(RuntimeError):
    """The stack cannot start here; ``str(exc)`` says why."""


def missing_prerequisites(project: Path = PROJECT) -> str | None:
    """Why the stack cannot start (no node/npm, no PostgreSQL, no node_modules), or None."""
    for tool in ("node", "npm", "npx"):
        if not shutil.which(tool):
            return f"{tool} not found on PATH (install Node.js >= 20 and npm)"
    try:
        from local_postgres import find_pg_bindir

        find_pg_bindir()
    except PostgresUnavailable as exc:
        return str(exc)
    if not (project / "node_modules" / "@mimicai" / "cli").is_dir():
        return f"{project}/node_modules is missing: run `npm ci` in {project}"
    return None


# -- ports --------------------------------------------------------------------------------------
def _bindable(port: int) -> bool:
    for host in ("0.0.0.0", "127.0.0.1"):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                return False
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("::", port))
        except OSError:
            return False
    return True


def _lsof_empty(port: int) -> bool:
    """What ``mimic host`` would kill: any process with a TCP socket on ``port``."""
    lsof = shutil.which("lsof")
    if not lsof:
        return True  # mimic host's own clean-up also needs lsof: without it, it kills nothing
    try:
        out = subprocess.run(
            [lsof, "-nP", "-ti", f"tcp:{port}"], capture_output=True, text=True, timeout=10
        ).stdout
    except subprocess.TimeoutExpired:
        return False
    return not out.strip()


def port_free(port: int) -> bool:
    return 1024 < port < 65536 and _bindable(port) and _lsof_empty(port)


def pick_ports(
    mcp_base: int | None = None, api_base: int | None = None, *, n_mcp: int = 2, n_api: int = 1
) -> tuple[int, int]:
    """Base ports whose whole ranges (MCP: base..base+n_mcp-1, API: base..) are free now."""
    rng = random.SystemRandom()

    def block_free(base: int, n: int) -> bool:
        return all(port_free(base + i) for i in range(n))

    if mcp_base is not None and not block_free(mcp_base, n_mcp):
        raise StackUnavailable(
            f"MCP ports {mcp_base}..{mcp_base + n_mcp - 1} are not all free (mimic host would "
            "SIGKILL their owners): choose another --mcp-base-port"
        )
    if api_base is not None and not block_free(api_base, n_api):
        raise StackUnavailable(f"API port(s) from {api_base} are in use: choose --api-base-port")
    for _ in range(200):
        mcp = mcp_base or rng.randrange(20000, 45000)
        api = api_base or rng.randrange(20000, 45000)
        mcp_range = set(range(mcp, mcp + n_mcp))
        if mcp_range & set(range(api, api + n_api)):
            continue
        if block_free(mcp, n_mcp) and block_free(api, n_api):
            return mcp, api
    raise StackUnavailable("could not find free ports for mimic host")


# -- MCP readiness --------------------------------------------------------------------------------
async def _mcp_initialize(url: str, timeout: float) -> str:
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with anyio.fail_after(timeout):
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
            result = await s.initialize()
            return result.server_info.name


def _in_thread(fn, *args):
    """Run an anyio coroutine function in a fresh thread (safe inside a running event loop)."""
    import anyio

    box: dict = {}

    def target() -> None:
        try:
            box["value"] = anyio.run(fn, *args)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def mcp_answers(url: str, timeout: float = 3.0) -> bool:
    """True when ``url`` answers an MCP initialize within ``timeout`` seconds."""
    try:
        _in_thread(_mcp_initialize, url, timeout)
    except Exception:
        return False
    return True


def write_mcp_json(path: Path, urls: dict[str, str]) -> None:
    """Claude Code's ``.mcp.json``: ``{"mcpServers": {name: {"type": "http", "url": ...}}}``."""
    doc = {"mcpServers": {name: {"type": "http", "url": url} for name, url in urls.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


# -- the stack ------------------------------------------------------------------------------
class MimicStack:
    """PostgreSQL + ``mimic seed`` + ``mimic host`` for the persona; a context manager.

    ``urls`` maps ``mimic-database`` / ``mimic-stripe`` to their Streamable HTTP endpoints.
    ``timings`` records how long each step took (seconds). :meth:`stop` kills the host's
    process group and stops PostgreSQL; it is safe to call twice.
    """

    def __init__(
        self,
        project: Path = PROJECT,
        *,
        mcp_base_port: int | None = None,
        api_base_port: int | None = None,
        pg_dir: Path | None = None,
        log_dir: Path | None = None,
        mcp_json: Path | None = None,
        install: bool = True,
        ready_timeout: float = 60.0,
    ) -> None:
        self.project = Path(project)
        self.mcp_base_port = mcp_base_port
        self.api_base_port = api_base_port
        self.pg_dir = pg_dir
        self._made_log_dir = log_dir is None  # removed again by stop()
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.mkdtemp(prefix="pe_eval_mimic_"))
        self.mcp_json = Path(mcp_json) if mcp_json else None
        self.install = install
        self.ready_timeout = ready_timeout
        self.pg: LocalPostgres | None = None
        self.proc: subprocess.Popen | None = None
        self.urls: dict[str, str] = {}
        self.api_url: str | None = None
        self.timings: dict[str, float] = {}
        self.log_file = self.log_dir / "mimic-host.log"

    # helpers
    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        assert self.pg is not None
        env["DATABASE_URL"] = self.pg.url
        preload = f"--require {self.project / 'localhost-only.cjs'}"
        env["NODE_OPTIONS"] = (env.get("NODE_OPTIONS", "") + " " + preload).strip()
        env.update(
            NO_COLOR="1",
            FORCE_COLOR="0",
            NO_UPDATE_NOTIFIER="1",
            npm_config_update_notifier="false",
            npm_config_fund="false",
            npm_config_audit="false",
        )
        return env

    def _step(self, name: str, args: list[str], timeout: float, env=None) -> str:
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                args,
                cwd=self.project,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise StackUnavailable(f"{name} did not finish within {timeout:.0f} s") from exc
        self.timings[name] = time.monotonic() - t0
        (self.log_dir / f"{name}.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            raise StackUnavailable(
                f"{name} failed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-2000:]}"
            )
        return proc.stdout

    def _log_tail(self, n: int = 25) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    # lifecycle
    def start(self, *, detach: bool = False) -> MimicStack:
        t_start = time.monotonic()
        for tool in ("node", "npm", "npx"):
            if not shutil.which(tool):
                raise StackUnavailable(f"{tool} not found on PATH")
        if not (self.project / "node_modules" / "@mimicai" / "cli").is_dir():
            if not self.install:
                raise StackUnavailable(f"{self.project}/node_modules missing: run `npm ci` there")
            self._step("npm-ci", ["npm", "ci", "--no-audit", "--no-fund"], timeout=600)
        try:
            self.pg = LocalPostgres(self.pg_dir, keep=detach or self.pg_dir is not None)
            self.pg.start()
            self.timings["postgres"] = time.monotonic() - t_start
            env = self._env()
            t0 = time.monotonic()
            self.pg.psql("-f", str(self.project / "schema.sql"))
            self.timings["schema"] = time.monotonic() - t0
            self._step("seed", ["npx", "--no-install", "mimic", "seed"], timeout=180, env=env)
            mcp, api = pick_ports(self.mcp_base_port, self.api_base_port)
            self.urls = {
                SERVER_NAMES[0]: f"http://127.0.0.1:{mcp}/mcp",
                SERVER_NAMES[1]: f"http://127.0.0.1:{mcp + 1}/mcp",
            }
            self.api_url = f"http://127.0.0.1:{api}"
            t0 = time.monotonic()
            with self.log_file.open("wb") as log:
                self.proc = subprocess.Popen(
                    [
                        "npx",
                        "--no-install",
                        "mimic",
                        "host",
                        "--mcp-base-port",
                        str(mcp),
                        "--api-base-port",
                        str(api),
                    ],
                    cwd=self.project,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group: stop() kills npx + node
                )
            self._wait_ready()
            self.timings["host_ready"] = time.monotonic() - t0
            self.timings["total"] = time.monotonic() - t_start
            if self.mcp_json:
                write_mcp_json(self.mcp_json, self.urls)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        pending = dict(self.urls)
        while pending:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise StackUnavailable(
                    f"mimic host exited with {self.proc.returncode}:\n{self._log_tail()}"
                )
            for name, url in list(pending.items()):
                if mcp_answers(url, timeout=3.0):
                    pending.pop(name)
            if not pending:
                return
            if time.monotonic() > deadline:
                raise StackUnavailable(
                    f"no MCP answer from {sorted(pending)} within {self.ready_timeout:.0f} s:\n"
                    + self._log_tail()
                )
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            self.proc = None
        if self.pg is not None:
            self.pg.stop()
            self.pg = None
        if self._made_log_dir:
            shutil.rmtree(self.log_dir, ignore_errors=True)

    def state(self) -> dict:
        return {
            "pid": self.proc.pid if self.proc else None,
            "pg_dir": str(self.pg.base_dir) if self.pg else None,
            "database_url": self.pg.url if self.pg else None,
            "urls": self.urls,
            "api_url": self.api_url,
            "log": str(self.log_file),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }

    def __enter__(self) -> MimicStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _kill_group(pgid: int, grace: float = 5.0) -> None:
    """SIGTERM the process group, then SIGKILL what is left after ``grace`` seconds."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _is_our_host(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    return "mimic" in cmdline and "host" in cmdline


# -- CLI ------------------------------------------------------------------------------------------
def _cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start the stack and leave it running")
    start.add_argument("--mcp-base-port", type=int, default=None)
    start.add_argument("--api-base-port", type=int, default=None)
    start.add_argument("--mcp-json", type=Path, default=None, help="write a .mcp.json here")
    start.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    start.add_argument("--no-install", action="store_true", help="never run npm ci")
    stop = sub.add_parser("stop", help="stop a stack started with `start`")
    stop.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    bench = sub.add_parser("bench", help="start and stop N times; print the start-up times")
    bench.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)

    try:
        if args.command == "start":
            state_file = args.state_dir / "state.json"
            if state_file.exists():
                print(f"a stack is recorded in {state_file}: run `stop` first", file=sys.stderr)
                return 1
            args.state_dir.mkdir(parents=True, exist_ok=True)
            stack = MimicStack(
                mcp_base_port=args.mcp_base_port,
                api_base_port=args.api_base_port,
                pg_dir=args.state_dir / "pg",
                log_dir=args.state_dir,
                mcp_json=args.mcp_json,
                install=not args.no_install,
            )
            stack.start(detach=True)
            state_file.write_text(json.dumps(stack.state(), indent=2) + "\n")
            for name, url in stack.urls.items():
                print(f"{name}: {url}")
            print(f"stripe mock API: {stack.api_url}")
            if args.mcp_json:
                print(f"wrote {args.mcp_json}")
            print(f"started in {stack.timings['total']:.2f} s; stop with: {sys.argv[0]} stop")
            return 0
        if args.command == "stop":
            state_file = args.state_dir / "state.json"
            try:
                state = json.loads(state_file.read_text())
            except (OSError, ValueError):
                print(f"no stack recorded in {state_file}", file=sys.stderr)
                return 1
            pid = state.get("pid")
            if pid and _is_our_host(pid):
                _kill_group(pid)
            if state.get("pg_dir"):
                LocalPostgres(state["pg_dir"], keep=False).stop()
                shutil.rmtree(state["pg_dir"], ignore_errors=True)
            state_file.unlink()
            print("stopped")
            return 0
        times = []
        for i in range(args.runs):
            with MimicStack() as stack:
                times.append(stack.timings["total"])
                detail = ", ".join(f"{k} {v:.2f}" for k, v in stack.timings.items())
                print(f"run {i + 1}: {stack.timings['total']:.2f} s ({detail})")
        print(f"median start-up: {statistics.median(times):.2f} s over {len(times)} runs")
        return 0
    except (StackUnavailable, PostgresUnavailable) as exc:
        print(f"mimic stack unavailable: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(_cli())
