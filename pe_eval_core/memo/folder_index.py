"""A folder of memos scanned once: names, sizes and mtimes, and each memo's portco and headline.

Grading a folder asks every memo for its siblings (the other ``explain_*.json`` on the same
``portco_id``). Without an index each memo lists the folder and reads every other memo: N
reads per memo, N^2 per folder. :class:`FolderIndex` lists the folder once, reads each
``explain_*.json`` once (lazily, on first use) and keeps what the sibling search needs, so a
batch costs N reads. Single-memo grading builds a one-folder index and gets the same siblings,
in the same order, with the same notes, as the search it replaces.

:meth:`FolderIndex.digest` names the folder's state (every file's name, size and mtime) for
caches: any write, rename or deletion in the folder changes it.
"""

from __future__ import annotations

import bisect
import fnmatch
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pe_eval_core.errors import MalformedJSONError, PeEvalError
from pe_eval_core.files import parse_json_text, read_bytes, shown_path
from pe_eval_core.limits import check_file_size

MEMO_GLOB = "explain_*.json"
HEADLINE_FIELD = "total_projected_impact_usd_annual"


@dataclass(frozen=True)
class FileStat:
    """One directory entry as scanned: name, size in bytes, mtime in ns, regular file or not."""

    name: str
    size: int
    mtime_ns: int
    is_file: bool


@dataclass(frozen=True)
class MemoEntry:
    """What the sibling search needs from one ``explain_*.json``, read once.

    ``error`` is the reason the file could not be read or parsed (then nothing else is set);
    ``data_ok`` is False when the JSON is not an object. ``literal`` is whether the file's
    bytes carry the portco as ``json.dumps`` spells it (the old search skipped files of
    another name without that literal, and single-memo results must not change).
    """

    path: Path
    error: str | None = None
    data_ok: bool = False
    portco_id: Any = None
    audience: Any = None
    headline: Any = None
    literal: bool = False


@dataclass
class FolderIndex:
    """One folder, listed once; memo entries read once, on first use."""

    folder: Path
    files: tuple[FileStat, ...]
    _entries: dict[str, MemoEntry] = field(default_factory=dict, repr=False)
    _resolved: dict[str, Path] = field(default_factory=dict, repr=False)
    _names: list[str] | None = field(default=None, repr=False)
    _by_portco: dict[str, list[str]] | None = field(default=None, repr=False)

    @classmethod
    def scan(cls, folder: str | os.PathLike[str]) -> FolderIndex:
        """List ``folder`` (names, sizes, mtimes); an unreadable folder is an empty index."""
        d = Path(folder)
        stats: list[FileStat] = []
        try:
            with os.scandir(d) as it:
                for e in it:
                    try:
                        st = e.stat()  # follows symlinks, as Path.is_file does
                        is_file = e.is_file()
                    except OSError:
                        continue
                    stats.append(FileStat(e.name, st.st_size, st.st_mtime_ns, is_file))
        except OSError:
            pass
        stats.sort(key=lambda s: s.name)
        return cls(folder=d, files=tuple(stats))

    def digest(self) -> str:
        """A sha256 of every entry's name, size and mtime: a cache key for the folder's state."""
        h = hashlib.sha256(str(self.folder.resolve()).encode("utf-8", "surrogateescape"))
        for s in self.files:
            line = f"\0{s.name}\0{s.size}\0{s.mtime_ns}\0{int(s.is_file)}"
            h.update(line.encode("utf-8", "surrogateescape"))  # a name that is not UTF-8
        return h.hexdigest()

    def memo_names(self) -> list[str]:
        """Names of the regular files matching ``explain_*.json``, sorted."""
        if self._names is None:
            self._names = [
                s.name for s in self.files if s.is_file and fnmatch.fnmatchcase(s.name, MEMO_GLOB)
            ]
        return self._names

    def _candidates(self, portco_id: str) -> list[str]:
        """Names that can be siblings on ``portco_id``: named for it, or carrying it (sorted).
        Once every entry is read this is a lookup, so a batch stays linear."""
        names = self.memo_names()
        if self._by_portco is None:
            if len(self._entries) < len(names):
                return names  # not all read: every name is a candidate
            by: dict[str, list[str]] = {}
            for n in names:
                e = self._entries[n]
                if e.literal and isinstance(e.portco_id, str):
                    by.setdefault(e.portco_id, []).append(n)
            self._by_portco = by
        prefix = f"explain_{portco_id}_"
        lo = bisect.bisect_left(names, prefix)
        named = []
        for n in names[lo:]:
            if not n.startswith(prefix):
                break
            named.append(n)
        return sorted(set(named) | set(self._by_portco.get(portco_id, ())))

    def _resolve(self, name: str) -> Path:
        got = self._resolved.get(name)
        if got is None:
            got = self._resolved[name] = (self.folder / name).resolve()
        return got

    def entry(self, name: str) -> MemoEntry:
        """The memo entry for ``name`` (read and parsed the first time it is asked for).

        A name that is a link to a file outside the folder is never read (its entry carries
        the reason), so a folder cannot be used to read files elsewhere through siblings.
        """
        got = self._entries.get(name)
        if got is None:
            from pe_eval_core.memo.pairs import name_problem

            problem = name_problem(name)
            if problem is not None:  # never read: it cannot be named in any output
                got = MemoEntry(path=self.folder / name, error=problem)
            elif not self._resolve(name).is_relative_to(self.folder.resolve()):
                got = MemoEntry(path=self.folder / name, error=OUTSIDE_FOLDER)
            else:
                got = _read_entry(self.folder / name)
            self._entries[name] = got
        return got

    def load_all(self) -> FolderIndex:
        """Read every memo entry now (before handing the index to worker processes)."""
        for name in self.memo_names():
            self.entry(name)
        return self

    def siblings(self, memo_path: Path, portco_id: str) -> list[Any]:
        """Headlines of the other memos on ``portco_id`` (unreadable ones too), sorted by name."""
        from pe_eval_core.memo.result import SiblingHeadline

        me = memo_path.resolve()
        out: list[SiblingHeadline] = []
        for name in self._candidates(portco_id):
            path = self.folder / name
            if self._resolve(name) == me:
                continue
            by_name = name.startswith(f"explain_{portco_id}_")
            e = self.entry(name)
            if e.error is not None:
                if by_name:
                    out.append(SiblingHeadline(path=shown_path(path), error=e.error))
                continue
            if not by_name and not (e.literal and e.portco_id == portco_id):
                continue
            portco = e.portco_id if e.data_ok else None
            if not isinstance(portco, str):
                if by_name:
                    out.append(SiblingHeadline(path=str(path), error="no portco_id"))
                continue
            if portco != portco_id:
                continue
            audience = e.audience if isinstance(e.audience, str) else None
            if not _is_number(e.headline):
                out.append(
                    SiblingHeadline(
                        path=str(path), audience=audience, error=f"no numeric {HEADLINE_FIELD}"
                    )
                )
                continue
            out.append(
                SiblingHeadline(path=str(path), audience=audience, headline=float(e.headline))
            )
        return out


OUTSIDE_FOLDER = "a link to outside the folder"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _read_entry(path: Path) -> MemoEntry:
    """Read and parse one memo file once, with ``read_json``'s errors (and its size limit)."""
    try:
        check_file_size(path, input="memo")
    except PeEvalError as exc:
        return MemoEntry(path=path, error=error_reason(exc))
    try:
        raw = read_bytes(path)  # never blocks on a FIFO; confined as opened (MCP)
    except PeEvalError as exc:
        return MemoEntry(path=path, error=f"unreadable ({exc.message.rpartition(': ')[2]})")
    try:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise MalformedJSONError(str(path), 1, exc.start + 1, "file is not UTF-8 text") from exc
        try:
            data = parse_json_text(text)
        except json.JSONDecodeError as exc:
            raise MalformedJSONError(str(path), exc.lineno, exc.colno, exc.msg) from exc
    except PeEvalError as exc:
        return MemoEntry(path=path, error=error_reason(exc))
    if not isinstance(data, dict):
        return MemoEntry(path=path)
    portco = data.get("portco_id")
    literal = isinstance(portco, str) and json.dumps(portco).encode() in raw
    return MemoEntry(
        path=path,
        data_ok=True,
        portco_id=portco,
        audience=data.get("audience"),
        headline=data.get(HEADLINE_FIELD),
        literal=literal,
    )


def error_reason(exc: BaseException) -> str:
    """A sibling's unreadable reason as the consistency note states it."""
    if isinstance(exc, PeEvalError):
        msg = exc.message
        if "malformed JSON at" in msg:
            return "malformed JSON at" + msg.split("malformed JSON at", 1)[1]
        return msg
    return f"unreadable ({type(exc).__name__})"
