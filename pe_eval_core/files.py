"""File-system helpers every surface shares: JSON reading with precise errors, atomic writes,
hashing, and the name/path guards that keep user-supplied names inside the data folder."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pe_eval_core.errors import (
    InputNotFoundError,
    InvalidNameError,
    MalformedJSONError,
    OutputWriteError,
    PathOutsideRootError,
)
from pe_eval_core.limits import check_file_size

SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


class _NonFiniteNumber(ValueError):
    """Raised from inside json.loads for NaN, Infinity or a number too large for a float."""

    def __init__(self, token: str):
        super().__init__(token)
        self.token = token


def _reject_constant(token: str) -> float:
    raise _NonFiniteNumber(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NonFiniteNumber(token)
    return value


def _bounded_int(token: str) -> int:
    # Anything past float range would turn into inf the moment a score touches it.
    if len(token.lstrip("-")) > 308:
        raise _NonFiniteNumber(token[:20] + "...")
    return int(token)


# A \uD800-\uDFFF escape not part of a surrogate pair: valid JSON syntax, but no Unicode text
# (it cannot be written as UTF-8, so every output would fail on it).
_LONE_SURROGATE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_CHAR = re.compile(r"[\ud800-\udfff]")


def unicode_text(text: str | None) -> str | None:
    """``text`` with each lone surrogate (which no output can encode) replaced by U+FFFD, the
    replacement character; for text that arrives at run time (a live agent's response), where
    refusing is not an option.

    >>> unicode_text("a\\ud800b")
    'a\\ufffdb'
    """
    if text is None or _SURROGATE_CHAR.search(text) is None:
        return text
    return _SURROGATE_CHAR.sub("\ufffd", text)


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as text any output can hold: the bytes of a name that is not UTF-8 (decoded by
    Python as lone surrogates) written as ``\\udcff``-style escapes.

    >>> shown_path(os.fsdecode(b"d/explain_\\xff_board.json"))
    'd/explain_\\\\udcff_board.json'
    """
    return os.fspath(path).encode("utf-8", "backslashreplace").decode("utf-8")


def may_hold_lone_surrogate(raw: bytes) -> bool:
    """A cheap test on a JSON file's bytes: False means no string in it can hold a lone
    surrogate (UTF-8 cannot encode one, so only a ``\\uD8xx`` escape can make one)."""
    return _SURROGATE_ESCAPE.search(raw) is not None


def first_lone_surrogate(value: Any, loc: str = "") -> tuple[str, str] | None:
    """(JSON path, character) of the first key or string holding a lone surrogate.

    >>> first_lone_surrogate({"a": [1, {"b": "x\\ud800"}]})
    ('a[1].b', '\\\\ud800')
    >>> first_lone_surrogate({"ok": "\\U0001f600"}) is None
    True
    """
    if isinstance(value, str):
        m = _SURROGATE_CHAR.search(value)
        return (loc or "$", f"\\u{ord(m[0]):04x}") if m else None
    if isinstance(value, dict):
        for key, child in value.items():
            shown = _SURROGATE_CHAR.sub(lambda c: f"\\u{ord(c[0]):04x}", str(key))
            where = f"{loc}.{shown}" if loc else shown
            if (m := _SURROGATE_CHAR.search(str(key))) is not None:
                return (f"{where} (the key)", f"\\u{ord(m[0]):04x}")
            if (found := first_lone_surrogate(child, where)) is not None:
                return found
    elif isinstance(value, list):
        for i, child in enumerate(value):
            if (found := first_lone_surrogate(child, f"{loc}[{i}]")) is not None:
                return found
    return None


MAX_NESTING = 500
"""Nesting depth reported when a document is too deep to parse (Python's parser gives up near
its recursion limit; ``too_deep`` names the field where the depth passes this)."""


def too_deep(text: str, limit: int = MAX_NESTING) -> tuple[str, int]:
    """(JSON path, index) where ``text`` first nests deeper than ``limit``, found with a flat
    scan (no recursion), so the error can name the field.

    >>> too_deep('{"a": [1, {"b": [[[[0]]]]}]}', limit=4)
    ('a[1].b[0]', 17)
    """
    return _scan(text, limit=limit)


def path_at(text: str, index: int) -> str:
    """The JSON path of the value at ``index`` of ``text`` (a flat scan, no recursion).

    >>> path_at('{"a": [1, {"b": NaN}]}', 16)
    'a[1].b'
    """
    return _scan(text, stop=index)[0]


def _scan(text: str, *, limit: int | None = None, stop: int | None = None) -> tuple[str, int]:
    path: list[str | int] = []
    key: str | None = None
    i, n = 0, len(text) if stop is None else min(stop, len(text))
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            key = text[i + 1 : j]
            i = j
        elif c in "[{":
            if limit is not None and len(path) >= limit:
                return _render_path(path), i
            path.append(0 if c == "[" else "")
        elif c in "]}":
            if path:
                path.pop()
        elif c == ":" and path and isinstance(path[-1], str):
            path[-1] = key or ""
        elif c == "," and path and isinstance(path[-1], int):
            path[-1] += 1
        i += 1
    return _render_path(path), 0


def _render_path(path: list[str | int]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "$"


def parse_json_text(text: str) -> Any:
    """Strict JSON: NaN, Infinity and numbers beyond float range are errors, as in RFC 8259,
    and so is a lone surrogate escape (``"\\ud800"``): it is no Unicode character.

    Raises ``json.JSONDecodeError`` with a position for every problem, so callers keep one
    error path.

    >>> parse_json_text('{"a": 1.5}')
    {'a': 1.5}
    >>> parse_json_text('{"a": NaN}')
    Traceback (most recent call last):
    ...
    json.decoder.JSONDecodeError: field 'a': non-finite number NaN ...: line 1 column 7 (char 6)
    """
    try:
        data = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except _NonFiniteNumber as exc:
        index = max(text.find(exc.token.rstrip(".")), 0)
        raise json.JSONDecodeError(
            f"field '{path_at(text, index)}': non-finite number {exc.token} (NaN, Infinity and "
            "numbers beyond float range are not JSON)",
            text,
            index,
        ) from None
    except RecursionError:
        where, index = too_deep(text)
        if len(where) > 80:
            where = f"{where[:40]}...{where[-30:]}"
        raise json.JSONDecodeError(
            f"field '{where}' nests arrays/objects more than {MAX_NESTING} levels deep",
            text,
            index,
        ) from None
    # A lone surrogate can only come from a ``\uD8xx``-``\uDFxx`` escape: most documents have
    # none, so C-speed substring tests spare them the regex (6x the cost of json.loads itself;
    # ``\u`` alone is in any file written with ASCII escapes, e.g. an em dash ``\u2014``).
    maybe = "\\ud" in text or "\\uD" in text
    if maybe and (m := _LONE_SURROGATE.search(text)) is not None:
        try:
            found = first_lone_surrogate(data)
        except RecursionError:
            found = None
        if found is not None:
            raise json.JSONDecodeError(
                f"field '{found[0]}' holds a lone surrogate {found[1]} (half of a UTF-16 "
                "pair), which is not Unicode text",
                text,
                m.start(),
            ) from None
    return data


def read_json(
    path: str | os.PathLike[str],
    *,
    not_found: type[InputNotFoundError] = InputNotFoundError,
    malformed: type[MalformedJSONError] = MalformedJSONError,
) -> Any:
    """Parse a JSON file, turning every failure into a typed pe-eval error.

    The error classes are parameters so the memo grader can raise the seed's
    memo-specific or source-specific diagnosis.
    """
    p = check_path_text(path, not_found.input)
    if not p.is_file():
        what = "is a directory, not a file" if p.is_dir() else "does not exist"
        raise not_found(f"{p} {what}")
    check_file_size(p, input=not_found.input)
    raw = read_bytes(p, not_found)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise malformed(str(p), 1, exc.start + 1, "file is not UTF-8 text") from exc
    try:
        return parse_json_text(text)
    except json.JSONDecodeError as exc:
        raise malformed(str(p), exc.lineno, exc.colno, exc.msg) from exc


_CONFINED: ContextVar[tuple[Path, ...] | None] = ContextVar("pe_eval_confined", default=None)


@contextmanager
def confined_to(roots: Iterable[str | os.PathLike[str]]) -> Iterator[None]:
    """Within this block (this thread or task only: a context variable, not a global), every
    file :func:`read_bytes` opens and every folder :func:`atomic_write_bytes` writes into must
    be inside ``roots`` *as opened*: the check is made on the open file descriptor, so a
    folder or link swapped between a path check and the open cannot redirect it."""
    token = _CONFINED.set(tuple(Path(r).expanduser().resolve() for r in roots))
    try:
        yield
    finally:
        _CONFINED.reset(token)


def fd_path(fd: int) -> Path | None:
    """The path an open descriptor really refers to (Linux ``/proc``, macOS ``F_GETPATH``),
    or None where the platform cannot say."""
    if sys.platform.startswith("linux"):
        try:
            return Path(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            return None
    if sys.platform == "darwin":  # pragma: no cover - not this CI's platform
        import fcntl

        try:
            raw = fcntl.fcntl(fd, 50, b"\0" * 1024)  # F_GETPATH
        except OSError:
            return None
        return Path(os.fsdecode(raw.split(b"\0", 1)[0]))
    return None  # pragma: no cover


def _check_confined(fd: int, shown: str | os.PathLike[str], input: str | None) -> None:
    roots = _CONFINED.get()
    if roots is None:
        return
    real = fd_path(fd)
    if real is None or not any(real == r or real.is_relative_to(r) for r in roots):
        raise PathOutsideRootError(
            f"{shown_path(shown)} is outside the allowed folders as opened (a link or folder "
            "was swapped in, or it leads out)",
            **({"input": input} if input else {}),
        )


_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read_bytes(path: Path, not_found: type[InputNotFoundError] = InputNotFoundError) -> bytes:
    """The file's bytes, read through one descriptor: opened with ``O_NONBLOCK`` (a FIFO
    swapped in cannot hang the read), refused unless it is a regular file, checked against
    the confinement roots (:func:`confined_to`) and the input size limit as opened, and read
    no further than that limit. A typed error names the input when it cannot be read."""
    from pe_eval_core.limits import INPUT_BYTES, exceeded

    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise not_found(f"{shown_path(path)} does not exist") from None
    except OSError as exc:
        raise not_found(
            f"{shown_path(path)} cannot be read: {exc.strerror or type(exc).__name__}",
            diagnosis="The file exists but cannot be read",
            fix="Make the file readable by this user, or pass a readable copy.",
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise not_found(
                f"{shown_path(path)} is {what} (a FIFO, device or folder is never read)",
                diagnosis="The path is not a regular file",
                fix="Pass the path of a regular file.",
            )
        _check_confined(fd, path, not_found.input)
        where, name = str(path), not_found.input
        exceeded(INPUT_BYTES, where=where, field="(file)", got=st.st_size, input=name)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):  # the file may grow after fstat: keep counting
            size += len(chunk)
            exceeded(INPUT_BYTES, where=where, field="(file)", got=size, input=name)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise not_found(
            f"{shown_path(path)} cannot be read: {exc.strerror or type(exc).__name__}",
            diagnosis="The file exists but cannot be read",
            fix="Make the file readable by this user, or pass a readable copy.",
        ) from None
    finally:
        os.close(fd)


@contextmanager
def open_regular(path: str | os.PathLike[str], *, encoding: str = "utf-8") -> Iterator[Any]:
    """A text file opened as :func:`read_bytes` opens one (never blocks on a FIFO, regular
    files only, confinement checked), for readers that stream (``json.load``)."""
    yield io.StringIO(read_bytes(Path(path)).decode(encoding))


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` so readers see the old file or the new one, never half of either.

    A lone surrogate (no UTF-8 encoding exists) is written as its ``\\ud800`` escape rather
    than failing the whole write.
    """
    return atomic_write_bytes(path, utf8(text))


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone surrogate as its visible ``\\ud800`` escape.

    >>> utf8("a\\ud800\\xe9")
    b'a\\\\ud800\\xc3\\xa9'
    """
    return text.encode("utf-8", "backslashreplace")


def refuse_symlink(path: str | os.PathLike[str], input: str = "out_dir") -> Path:
    """``path`` with its folder resolved and its last part kept as is; an error if that last
    part is a symlink (live or dangling), so a write can never land on the link's target.

    >>> refuse_symlink("/tmp/x.json").name
    'x.json'
    """
    p = Path(path)
    try:
        target = p.parent.resolve() / p.name
        is_link = target.is_symlink()
    except (OSError, ValueError) as exc:
        raise OutputWriteError(f"cannot write {p}: {exc}", input=input) from None
    if is_link:
        raise OutputWriteError(
            f"refusing to write {target}: it is a symbolic link (to {os.readlink(target)})",
            diagnosis="An output file is a symbolic link, which could point anywhere",
            fix="Remove the link (or choose another output folder) and run again.",
            input=input,
        )
    return target


_TEMP = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]{12}\.(?:tmp|bak)")


def temp_name(target: str) -> str:
    """``.<name>.<pid>-<random>.tmp``: the pid lets a later writer tell a dead one's leftover."""
    return f".{target}.{os.getpid()}-{secrets.token_hex(6)}.tmp"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale_temps(
    folder: Path, names: Iterable[str], *, dir_fd: int | None = None
) -> list[str]:
    """Remove the temp and backup files that writers of ``names`` killed mid-write left in
    ``folder`` (only those whose process is gone: a live writer's temp is kept)."""
    wanted = set(names)
    removed: list[str] = []
    try:
        entries = os.listdir(dir_fd if dir_fd is not None else folder)
    except OSError:
        return removed
    for entry in entries:
        m = _TEMP.fullmatch(entry)
        if m and m["name"] in wanted and not _alive(int(m["pid"])):
            with suppress(OSError):
                if dir_fd is not None:
                    os.unlink(entry, dir_fd=dir_fd)
                else:
                    (folder / entry).unlink()
                removed.append(entry)
    return removed


_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, clean: bool = True) -> Path:
    """Write ``data`` so readers see the old file or the new one, never half of either.

    The folder is resolved and opened once; the temp file is created in it through that
    descriptor (``O_EXCL | O_NOFOLLOW``), fsynced and renamed over the target through it, so
    a folder swapped for a link mid-write cannot redirect the write, and neither can a link
    planted as the target (refused, ``refuse_symlink``; the rename replaces a name, never
    follows one). Within :func:`confined_to` the folder must be inside the roots as opened.
    A killed writer's temp file is removed by the next write of the same name (that lists
    the folder: ``clean=False`` skips it for a caller that cleaned the folder once for all
    its writes, or whose name is a fresh temp name that no killed writer can have used).
    """
    target = refuse_symlink(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    dir_fd = os.open(target.parent, _DIR_FLAGS)
    tmp = temp_name(target.name)
    try:
        _check_confined(dir_fd, target.parent, "out_dir")
        if clean:
            remove_stale_temps(target.parent, [target.name], dir_fd=dir_fd)
        umask = os.umask(0)
        os.umask(umask)
        fd = os.open(tmp, _WRITE_FLAGS, 0o666 & ~umask, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            if os.path.islink(target):  # a link planted while we wrote
                refuse_symlink(target)
            os.replace(tmp, target.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)
    return target


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes, recorded so a result can be tied to its exact inputs
    (opened as :func:`read_bytes` opens: never blocks on a FIFO, regular files only)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(f"{shown_path(path)} is not a regular file")
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def safe_name(name: str, what: str = "name") -> str:
    """Accept only ``[A-Za-z0-9_.-]`` and no dot-only names, so a name can never walk a path.

    >>> safe_name("HMDA_GA")
    'HMDA_GA'
    >>> safe_name("../etc")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.InvalidNameError: invalid name '../etc' ...
    """
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name) or set(name) <= {"."}:
        raise InvalidNameError(f"invalid {what} {name!r}")
    return name


def check_path_text(path: str | os.PathLike[str], input: str | None = None) -> Path:
    """``path`` as a Path, or a typed error naming ``input`` if no file system could hold it:
    a NUL byte, or a part longer than 255 bytes (``ENAMETOOLONG``)."""
    text = os.fspath(path)
    if "\x00" in str(text):
        raise InvalidNameError(
            f"path {str(text)[:80]!r} contains a NUL byte",
            diagnosis="A path cannot contain a NUL byte",
            fix="Pass the path of an existing file.",
            input=input,
        )
    for part in Path(text).parts:
        if len(os.fsencode(part)) > 255:
            raise InvalidNameError(
                f"path part {part[:40]!r}... is {len(os.fsencode(part))} bytes long",
                diagnosis="A file or folder name can be at most 255 bytes",
                fix="Pass the path of an existing file.",
                input=input,
            )
    return Path(text)


def confine(path: str | os.PathLike[str], roots: list[Path] | tuple[Path, ...]) -> Path:
    """Resolve ``path`` (following symlinks); refuse it unless it lies inside one of ``roots``."""
    resolved = check_path_text(path).expanduser().resolve()
    for root in roots:
        if resolved.is_relative_to(Path(root).expanduser().resolve()):
            return resolved
    allowed = ", ".join(str(Path(r).resolve()) for r in roots)
    # never the resolved path: where a link outside the roots leads is not for the caller
    raise PathOutsideRootError(f"{shown_path(path)} is outside the allowed folders ({allowed})")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value: object) -> object:
    """The one CSV cell escaper (:func:`csv_text` applies it to every cell): a text cell a
    spreadsheet could read as a formula (leading ``= + - @``, tab or newline, also after
    leading spaces) gets a ``'`` prefix; numbers pass through, None becomes empty.

    >>> csv_cell("-2+3+cmd|' /C calc'!A0"), csv_cell(-3), csv_cell(" =1"), csv_cell(None)
    ("'-2+3+cmd|' /C calc'!A0", -3, "' =1", '')
    """
    if value is None:
        return ""
    if isinstance(value, str) and value.lstrip(" ").startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """The one CSV writer: every cell through :func:`csv_cell`, rows ended by ``\\n``, and any
    cell holding ``\\r`` or ``\\n`` quoted (the ``csv`` module quotes only the characters of
    its line terminator, so a bare ``\\r`` would split the row and start the next "row" with
    whatever followed it, a formula included).

    >>> print(csv_text([["a", "b"], ["x\\r=1+1", 2]]), end="")
    a,b
    "x\r=1+1",2
    """
    line = io.StringIO()
    writer = csv.writer(line, lineterminator="\r\n")  # \r and \n both force quoting
    out: list[str] = []
    for row in rows:
        line.seek(0)
        line.truncate()
        writer.writerow([csv_cell(v) for v in row])
        out.append(line.getvalue()[:-2] + "\n")
    return "".join(out)
