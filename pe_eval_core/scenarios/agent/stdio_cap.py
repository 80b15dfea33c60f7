"""A relay between pe-eval and a stdio MCP server that never holds more of one reply than the
tool result size limit.

The MCP SDK's stdio transport reads a reply line whole before the loop's character cap cuts
it: a 300 MB tool result took 3.4 GB (issue 23). The server is therefore started through this
script (``python -I stdio_cap.py LIMIT VARIABLE -- command args...``, see
:func:`relay_command`): requests pass to the server unchanged; replies pass back line by line,
and a line longer than ``LIMIT`` bytes is discarded as it streams (memory stays bounded by
the limit) and answered in its place with a JSON-RPC error for the same request naming the
limit and its variable. The session lives on, as over HTTP (``capped_http``).

Run as a script it imports nothing but the standard library (``-I``: not even this package),
so the relay starts in a few tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO

_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
_PREFIX = 64 * 1024  # where the id of an over-long reply is looked for
_CHUNK = 64 * 1024


def relay_command(
    command: str, args: Sequence[str], cwd: str | os.PathLike[str] | None = None
) -> tuple[str, list[str]]:
    """The command and arguments that start ``command`` behind the relay, capped at
    ``PE_EVAL_MAX_TOOL_RESULT_BYTES``. A command that cannot be found fails here, as it would
    without the relay (``FileNotFoundError`` naming it)."""
    from pe_eval_core.limits import TOOL_RESULT_BYTES

    if os.sep in command:
        found = os.access(os.path.join(cwd or os.curdir, command), os.X_OK)
    else:
        found = shutil.which(command) is not None
    if not found:
        raise FileNotFoundError(2, "No such file or directory", command)
    script = os.path.abspath(__file__)
    cap = str(TOOL_RESULT_BYTES.value())
    return sys.executable, ["-I", script, cap, TOOL_RESULT_BYTES.env, "--", command, *args]


class _Pending:
    """Request ids sent to the server and not answered yet (to answer a discarded reply)."""

    def __init__(self) -> None:
        self._ids: dict[bytes, None] = {}
        self._lock = threading.Lock()

    def sent(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and "method" in message and "id" in message:
            with self._lock:
                self._ids[json.dumps(message["id"]).encode()] = None

    def answered(self, head: bytes) -> bytes | None:
        """The pending id this reply (its first bytes) answers, removed; else None."""
        with self._lock:
            for match in _ID.finditer(head):
                if match.group(1) in self._ids:
                    del self._ids[match.group(1)]
                    return match.group(1)
            if len(self._ids) == 1 and (b'"result"' in head or b'"error"' in head):
                return self._ids.popitem()[0]  # the only request outstanding
        return None


def _forward_requests(source: IO[bytes], server: IO[bytes], pending: _Pending) -> None:
    try:
        for line in iter(source.readline, b""):
            pending.sent(line)
            server.write(line)
            server.flush()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            server.close()


def _refusal(request_id: bytes, limit: int, variable: str, size: int) -> bytes:
    message = (
        f"reply of more than {limit:,} bytes ({size:,} read) discarded: over the tool result "
        f"size limit {variable}"
    )
    error = {"code": -32000, "message": message}
    return b'{"jsonrpc":"2.0","id":' + request_id + b',"error":' + json.dumps(error).encode() + b"}"


class _Replies:
    """Splits the server's stdout into lines, passing each on or discarding it past the cap."""

    def __init__(self, out: IO[bytes], pending: _Pending, limit: int, variable: str) -> None:
        self.out, self.pending, self.limit, self.variable = out, pending, limit, variable
        self.line = bytearray()
        self.head = b""
        self.dropped = -1  # bytes of the line being discarded; -1 when not discarding

    def feed(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if self.dropped >= 0:
                self.dropped += len(piece)
            else:
                self.line += piece
                if len(self.line) > self.limit:
                    self.head, self.dropped = bytes(self.line[:_PREFIX]), len(self.line)
                    self.line = bytearray()
            if end < 0:
                return
            self._end_of_line()
            start = end + 1

    def _end_of_line(self) -> None:
        if self.dropped >= 0:
            request_id = self.pending.answered(self.head)
            if request_id is not None:
                self._send(_refusal(request_id, self.limit, self.variable, self.dropped))
            self.head, self.dropped = b"", -1
            return
        line = bytes(self.line)
        self.line = bytearray()
        self.pending.answered(line[:_PREFIX])
        self._send(line)

    def _send(self, line: bytes) -> None:
        self.out.write(line + b"\n")
        self.out.flush()


def main(argv: list[str]) -> int:
    """``stdio_cap.py LIMIT VARIABLE -- command args...``: relay until the server exits."""
    if len(argv) < 5 or argv[3] != "--":
        print("usage: stdio_cap.py LIMIT VARIABLE -- command [args...]", file=sys.stderr)
        return 2
    limit, variable, command = int(argv[1]), argv[2], argv[4:]
    try:
        server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as exc:
        print(f"cannot start {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    assert server.stdin is not None and server.stdout is not None
    pending = _Pending()
    threading.Thread(
        target=_forward_requests, args=(sys.stdin.buffer, server.stdin, pending), daemon=True
    ).start()
    replies = _Replies(sys.stdout.buffer, pending, limit, variable)
    try:
        for chunk in iter(lambda: os.read(server.stdout.fileno(), _CHUNK), b""):  # type: ignore[union-attr]
            replies.feed(chunk)
    except (BrokenPipeError, KeyboardInterrupt):
        server.terminate()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
