"""A folder of memos scanned once: names, sizes and mtimes, and each memo's portco and headline.

Grading a folder asks every memo for its siblings (the other ``explain_*.json`` on the same
``portco_id``). Without an index each memo lists the folder and reads every other memo: N
reads per memo, N^2 per folder. :class:`FolderIndex` lists the folder once, reads each
``explain_*.json`` once (lazily, on first use) and keeps what the sibling search needs, so a
batch costs N reads. Single-memo grading builds a one-folder index and gets the same siblings,
in the same order, with the same notes, as the search it replaces; it parses only the memos
named for the portco and those whose bytes carry its name (a byte search skips the rest).

What a memo file gave is also kept for the life of the process, keyed by its resolved path,
size, mtime and inode (:data:`_SEEN`): a process grading the memos of a folder one by one
(the dashboard, the MCP server, a script) reads each file once until it changes.

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


_Row = tuple[str, int, int, bool, int, bool]
"""A scanned entry as :class:`FileStat`'s fields, in order (compared without building one)."""


def _listing(folder: Path, memos_only: bool) -> list[_Row]:
    """The folder's entries (only ``explain_*.json`` when ``memos_only``) sorted by name; an
    unreadable folder has none, an entry that vanished while listed is left out."""
    rows: list[_Row] = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                if memos_only and not _is_memo_name(e.name):
                    continue
                try:
                    st = e.stat()  # follows symlinks, as Path.is_file does
                    is_file = e.is_file()
                    is_link = e.is_symlink()
                except OSError:
                    continue
                rows.append((e.name, st.st_size, st.st_mtime_ns, is_file, st.st_ino, is_link))
    except OSError:
        pass
    rows.sort()  # names are unique: by name
    return rows


def _is_memo_name(name: str) -> bool:
    """``fnmatch.fnmatchcase(name, MEMO_GLOB)`` without a pattern match per directory entry
    (prefix and suffix cannot overlap: ``_`` is not ``.``)."""
    return name.startswith("explain_") and name.endswith(".json") and len(name) >= 13


@dataclass(frozen=True)
class FileStat:
    """One directory entry as scanned: name, size in bytes, mtime in ns, regular file or not,
    and its inode (a file replaced by a rename is another file)."""

    name: str
    size: int
    mtime_ns: int
    is_file: bool
    ino: int = 0
    is_link: bool = True
    """A symbolic link (its path is resolved before use); True when not known."""


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
    complete: bool = True
    """Every entry of the folder is in ``files`` (False: only its memos, see ``scan``)."""
    _entries: dict[str, MemoEntry] = field(default_factory=dict, repr=False)
    _resolved: dict[str, str] = field(default_factory=dict, repr=False)
    _names: list[str] | None = field(default=None, repr=False)
    _by_portco: dict[str, list[str]] | None = field(default=None, repr=False)
    _stats: dict[str, FileStat] | None = field(default=None, repr=False)
    _root: str | None = field(default=None, repr=False)
    _found: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _heads: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)
    _rows: list[_Row] | None = field(default=None, repr=False)
    _pieces: dict[str, frozenset[bytes]] = field(default_factory=dict, repr=False)
    _pieces_size: int = field(default=0, repr=False)

    @classmethod
    def scan(cls, folder: str | os.PathLike[str], *, memos_only: bool = False) -> FolderIndex:
        """List ``folder`` (names, sizes, mtimes); an unreadable folder is an empty index.
        ``memos_only``: stat only the ``explain_*.json`` names (enough to find siblings, not
        for :meth:`digest`), as grading one memo does."""
        d = Path(folder)
        files = tuple(FileStat(*row) for row in _listing(d, memos_only))
        return cls(folder=d, files=files, complete=not memos_only)

    @classmethod
    def of_memos(cls, folder: Path) -> FolderIndex:
        """The memos-only index of ``folder`` for grading one memo: scanned every time, and
        the index built for the previous memo of the folder reused when the scan is the same
        (every ``explain_*.json``'s name, size, mtime and inode), so a process grading a
        folder's memos one by one does the sibling search's per-file work once per change.

        Not reused when any memo is a link (its target may move without its stat changing)
        or an entry failed to read (a permission fixed by ``chmod`` keeps the mtime).
        """
        rows = _listing(folder, True)
        key = str(folder) if folder.is_absolute() else f"{os.getcwd()}\0{folder}"
        kept = _FOLDERS.get(key)
        if kept is not None and kept._rows == rows and kept._reusable():
            return kept
        fresh = cls(folder=folder, files=tuple(FileStat(*row) for row in rows), complete=False)
        fresh._rows = rows
        if len(_FOLDERS) >= FOLDERS_MAX:
            _FOLDERS.clear()
        if not any(s.is_link for s in fresh.files):
            _FOLDERS[key] = fresh
        return fresh

    def _reusable(self) -> bool:
        """No entry failed to read (a snapshot of the entries: another thread may be adding
        one while it grades a memo of the same folder)."""
        return all(e.error is None for e in list(self._entries.values()))

    def digest(self) -> str:
        """A sha256 of every entry's name, size and mtime: a cache key for the folder's state."""
        if not self.complete:
            raise ValueError("digest() needs a full scan (FolderIndex.scan without memos_only)")
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

    def _resolve(self, name: str) -> str:
        """``str((folder / name).resolve())``; for a name the scan saw is no link, the resolved
        folder joined with it (the same path, without a system call per part)."""
        got = self._resolved.get(name)
        if got is None:
            st = self._stat(name)
            if st is not None and not st.is_link:
                got = os.path.join(self._root_text(), name)
            else:
                got = str((self.folder / name).resolve())
            self._resolved[name] = got
        return got

    def _stat(self, name: str) -> FileStat | None:
        if self._stats is None:
            self._stats = {s.name: s for s in self.files}
        return self._stats.get(name)

    def _root_text(self) -> str:
        if self._root is None:
            self._root = str(self.folder.resolve())
        return self._root

    def _stamp(self, name: str) -> tuple[str, int, int, int] | None:
        """The process cache's key for ``name``: resolved path, size, mtime, inode as scanned
        (None: not a scanned regular file, never cached)."""
        st = self._stat(name)
        if st is None or not st.is_file:
            return None
        return (self._resolve(name), st.size, st.mtime_ns, st.ino)

    def _me(self, memo_path: Path) -> str:
        """``str(memo_path.resolve())``, without system calls for a scanned plain entry."""
        st = self._stat(memo_path.name) if memo_path.parent == self.folder else None
        if st is not None and not st.is_link:
            return self._resolve(memo_path.name)
        return str(memo_path.resolve())

    def _outside(self, name: str) -> bool:
        st = self._stat(name)
        if st is not None and not st.is_link:
            return False  # a plain entry of the folder
        return not Path(self._resolve(name)).is_relative_to(self._root_text())

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
            elif self._outside(name):
                got = MemoEntry(path=self.folder / name, error=OUTSIDE_FOLDER)
            else:
                stamp = self._stamp(name)
                seen = _SEEN.get(stamp) if stamp is not None else None
                if isinstance(seen, MemoEntry):
                    got = seen
                else:
                    got = _read_entry(self.folder / name)
                    _remember(stamp, got)
            self._entries[name] = got
        return got

    def _entry_carrying(self, name: str, portco_id: str) -> MemoEntry | None:
        """The entry for ``name`` if its bytes can name ``portco_id`` (None: they cannot, or
        the file cannot be read: a memo not named for a portco is only ever its sibling
        when it carries the portco's JSON literal). Unread memos are searched as bytes and
        parsed only on a hit; a miss is remembered for the file as it is."""
        got = self._entries.get(name)
        if got is not None:
            return got
        from pe_eval_core.memo.pairs import name_problem

        if name_problem(name) is not None or self._outside(name):
            return None
        stamp = self._stamp(name)
        seen = _SEEN.get(stamp) if stamp is not None else None
        if isinstance(seen, MemoEntry):
            self._entries[name] = seen
            return seen
        if isinstance(seen, set) and portco_id in seen:
            return None
        path = self.folder / name
        literal = json.dumps(portco_id).encode()
        pieces = self._pieces.get(name)
        try:
            check_file_size(path, input="memo")
            if pieces is not None and b'"' not in literal[1:-1]:
                raw = b"" if literal[1:-1] not in pieces else read_bytes(path)
            else:
                raw = read_bytes(path)  # never blocks on a FIFO; confined as opened (MCP)
                if pieces is None:
                    self._keep_pieces(name, raw)
        except (PeEvalError, OSError):
            return None
        if literal not in raw:
            absent = seen if isinstance(seen, set) else set()
            absent.add(portco_id)
            _remember(stamp, absent)
            return None
        got = self._entries[name] = _entry_from_bytes(path, raw)
        _remember(stamp, got)
        return got

    def _keep_pieces(self, name: str, raw: bytes) -> None:
        """Keep what lies between each pair of consecutive quotes of a probed memo: a portco's
        JSON literal ``"X"`` (X without a quote) is in the bytes exactly when X is one of
        them, so the next portco probes memory, not the file (a folder's first pass stays
        linear). One index holds pieces at a time, at most :data:`PIECES_MAX` bytes."""
        if self._pieces_size + len(raw) > PIECES_MAX:
            return
        if _PIECES_HOLDER and _PIECES_HOLDER[0] is not self:
            _PIECES_HOLDER[0]._pieces, _PIECES_HOLDER[0]._pieces_size = {}, 0
            _PIECES_HOLDER.clear()
        if not _PIECES_HOLDER:
            _PIECES_HOLDER.append(self)
        self._pieces[name] = frozenset(raw.split(b'"')[1:-1])
        self._pieces_size += len(raw)

    def load_all(self) -> FolderIndex:
        """Read every memo entry now (before handing the index to worker processes)."""
        for name in self.memo_names():
            self.entry(name)
        return self

    def siblings(self, memo_path: Path, portco_id: str) -> list[Any]:
        """Headlines of the other memos on ``portco_id`` (unreadable ones too), sorted by name.
        What each memo gives on a portco is found once per index (every memo of the portco
        asks for the others); the memo asking is never read for itself."""
        me = self._me(memo_path)
        names = self._found.get(portco_id)
        if names is None:
            names = self._found[portco_id] = self._candidates(portco_id)
        out = []
        for name in names:
            if self._resolve(name) == me:
                continue
            key = (portco_id, name)
            if key not in self._heads:
                self._heads[key] = self._headline(name, portco_id)
            if (headline := self._heads[key]) is not None:
                out.append(headline)
        return out

    def _headline(self, name: str, portco_id: str) -> Any:
        """Memo ``name``'s headline as a sibling on ``portco_id`` (or why it cannot be read);
        None when it is not one."""
        from pe_eval_core.memo.result import SiblingHeadline

        by_name = name.startswith(f"explain_{portco_id}_")
        if by_name:
            e = self.entry(name)
        else:
            found = self._entry_carrying(name, portco_id)
            if found is None:
                return None
            e = found
        if not by_name and e.error is None and not (e.literal and e.portco_id == portco_id):
            return None  # another portco's memo (the common case: no path built for it)
        path = str(self.folder / name)
        if e.error is not None:
            return SiblingHeadline(path=shown_path(path), error=e.error) if by_name else None
        portco = e.portco_id if e.data_ok else None
        if not isinstance(portco, str):
            return SiblingHeadline(path=path, error="no portco_id") if by_name else None
        if portco != portco_id:
            return None
        audience = e.audience if isinstance(e.audience, str) else None
        if not _is_number(e.headline):
            error = f"no numeric {HEADLINE_FIELD}"
            return SiblingHeadline(path=path, audience=audience, error=error)
        return SiblingHeadline(path=path, audience=audience, headline=float(e.headline))


OUTSIDE_FOLDER = "a link to outside the folder"

_SEEN: dict[tuple[str, int, int, int], MemoEntry | set[str]] = {}
"""What each memo file gave, by (resolved path, size, mtime, inode): its parsed entry, or the
portcos its bytes were searched for and lack. Bounded by :data:`SEEN_MAX` files. Only what
:class:`FolderIndex` found inside its folder is kept (links out of it are refused first)."""
SEEN_MAX = 50_000

_FOLDERS: dict[str, FolderIndex] = {}
"""The last memos-only index of each folder (:meth:`FolderIndex.of_memos`), by its path as
given (with the working directory when relative); at most :data:`FOLDERS_MAX` folders."""
FOLDERS_MAX = 64

_PIECES_HOLDER: list[FolderIndex] = []
"""The one index holding probed memos' pieces (:meth:`FolderIndex._keep_pieces`)."""
PIECES_MAX = 16 * 1024 * 1024


def _remember(stamp: tuple[str, int, int, int] | None, value: MemoEntry | set[str]) -> None:
    """Keep what a file gave; an unreadable one is not kept (its reason names the path as
    this index spells it, and it is rare)."""
    if stamp is None or (isinstance(value, MemoEntry) and value.error is not None):
        return
    if len(_SEEN) >= SEEN_MAX:
        _SEEN.clear()  # a process that has seen this many files starts over
    _SEEN[stamp] = value


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
    return _entry_from_bytes(path, raw)


def _entry_from_bytes(path: Path, raw: bytes) -> MemoEntry:
    """A memo entry from a file's bytes (``read_json``'s parse and errors)."""
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
