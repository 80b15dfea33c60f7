"""Find memo/source pairs in a data folder, and resolve a named portco + audience to one.

Names the user types become file names, so they go through ``safe_name`` and the resulting
paths through ``confine``: nothing here can read outside the data folder.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pe_eval_core.errors import (
    InputLimitError,
    InputNotFoundError,
    InvalidNameError,
    MemoNotFoundError,
    PairNotFoundError,
    SourceNotFoundError,
    UsageError,
)
from pe_eval_core.files import (
    SAFE_NAME,
    check_path_text,
    confine,
    open_regular,
    safe_name,
    shown_path,
)
from pe_eval_core.limits import check_file_size

MEMO_GLOB = "explain_*.json"
_MEMO_NAME = re.compile(r"explain_(?P<portco>.+)_(?P<audience>[^_]+)\.json")
_MEMO_STEM = re.compile(r"explain_(?P<rest>.+)\.json")


def name_problem(name: str) -> str | None:
    """Why a memo file name cannot name its outputs (``eval_<rest>``), or None.

    >>> name_problem("explain_MortgageCo_board.json") is None
    True
    >>> name_problem(os.fsdecode(b"explain_\\xff_board.json"))
    'its file name is not UTF-8 text'
    >>> name_problem("explain_a b_board.json")
    "its file name holds characters other than letters, digits, '_', '.' and '-'"
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "its file name is not UTF-8 text"
    m = _MEMO_STEM.fullmatch(name)
    if m is None or not SAFE_NAME.fullmatch(m["rest"]) or set(m["rest"]) <= {"."}:
        return "its file name holds characters other than letters, digits, '_', '.' and '-'"
    return None


def named_portco(name: str, portco_id: str) -> bool:
    """Whether a memo's file name agrees with the ``portco_id`` it holds: a name not of the
    ``explain_<portco>_<audience>.json`` shape names nobody (an upload's ``memo.json``); one of
    that shape must start ``explain_<portco_id>_``.

    >>> named_portco("explain_HMDA_GA_board.json", "HMDA_GA"), named_portco("memo.json", "X")
    (True, True)
    >>> named_portco("explain_Zzz_board.json", "MortgageCo")
    False
    """
    if _MEMO_NAME.fullmatch(name) is None:
        return True
    return name.startswith(f"explain_{portco_id}_")


class MemoPair(BaseModel):
    """A memo sidecar and the OpportunityMap it should be graded against."""

    model_config = ConfigDict(frozen=True)

    portco_id: str
    audience: str
    memo_path: Path
    source_path: Path

    @property
    def source_exists(self) -> bool:
        return self.source_path.is_file()


def memo_filename(portco: str, audience: str) -> str:
    """``explain_<portco>_<audience>.json``, with both names checked."""
    return f"explain_{safe_name(portco, 'portco')}_{safe_name(audience, 'audience')}.json"


def source_filename(portco: str) -> str:
    """``dx_report_<portco>.json``, with the name checked."""
    return f"dx_report_{safe_name(portco, 'portco')}.json"


def _data_dir(data_dir: str | os.PathLike[str]) -> Path:
    d = check_path_text(data_dir, "data_dir")
    if not d.is_dir():
        raise InputNotFoundError(
            f"data folder {d} does not exist",
            fix="Choose the folder holding explain_*.json and dx_report_*.json.",
            input="data_dir",
        )
    return d


def _identify(path: Path) -> tuple[str, str] | None:
    """(portco, audience) from the memo's own fields when its file name agrees with them
    (:func:`named_portco`), else from its file name: a file named for one company that says
    it is another is listed (and paired, and its outputs named) under its file name."""
    try:
        with open_regular(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
        portco, audience = data.get("portco_id"), data.get("audience")
        if (
            isinstance(portco, str)
            and isinstance(audience, str)
            and SAFE_NAME.fullmatch(portco)
            and SAFE_NAME.fullmatch(audience)
            and named_portco(path.name, portco)
        ):
            return portco, audience
    except (OSError, ValueError, AttributeError, RecursionError):
        pass  # the grader names what is wrong with it; here only its name is used
    m = _MEMO_NAME.fullmatch(path.name)
    return (m["portco"], m["audience"]) if m else None


class SkippedMemo(BaseModel):
    """A file that looks like a memo but cannot be listed or graded, and why."""

    model_config = ConfigDict(frozen=True, defer_build=True)  # built when a file is skipped

    path: Path
    reason: str


def inside_folder(path: Path, folder: Path) -> bool:
    """True when ``path`` (links resolved) lies inside ``folder`` (links resolved)."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError, RuntimeError):
        return False


def _resolves_under(path: Path, root: Path) -> bool:
    """:func:`inside_folder` with the folder already resolved."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, ValueError, RuntimeError):
        return False


def scan_memo_pairs(
    data_dir: str | os.PathLike[str],
) -> tuple[list[MemoPair], list[SkippedMemo]]:
    """The pairs in ``data_dir`` (as :func:`find_memo_pairs`) and the files skipped, each with
    its reason: a file name that is not UTF-8 or cannot name the outputs (``eval_<rest>``), a
    symlink leading out of the folder, a folder or special file, a file over the size limit.
    A memo whose content cannot be read (encoding, nesting, syntax) is listed under its file
    name, and grading it reports the typed error that names the file."""
    d = _data_dir(data_dir)
    pairs = []
    skipped = []
    try:
        root: Path | None = d.resolve()  # once, not once per memo
    except (OSError, RuntimeError):
        root = None
    for memo in d.glob(MEMO_GLOB):
        problem = name_problem(memo.name)
        if problem is not None:
            skipped.append(SkippedMemo(path=memo, reason=problem))
            continue
        if root is None or not _resolves_under(memo, root):
            skipped.append(SkippedMemo(path=memo, reason="a link to a file outside the folder"))
            continue
        if not memo.is_file():
            reason = "a folder, not a file" if memo.is_dir() else "not a regular file"
            skipped.append(SkippedMemo(path=memo, reason=reason))
            continue
        try:
            check_file_size(memo, input="memo")
        except InputLimitError as err:
            skipped.append(SkippedMemo(path=memo, reason=err.detail))
            continue
        ident = _identify(memo)
        if ident is None:
            skipped.append(SkippedMemo(path=memo, reason="no portco and audience in its name"))
            continue
        portco, audience = ident
        try:
            source = d / source_filename(portco)
            safe_name(audience, "audience")
        except InvalidNameError as err:
            skipped.append(SkippedMemo(path=memo, reason=err.message))
            continue
        pairs.append(
            MemoPair(portco_id=portco, audience=audience, memo_path=memo, source_path=source)
        )
    pairs.sort(key=lambda p: (p.portco_id, p.audience, p.memo_path.name))
    return pairs, sorted(skipped, key=lambda s: s.path.name)


def find_memo_pairs(data_dir: str | os.PathLike[str]) -> list[MemoPair]:
    """Every ``explain_*.json`` in ``data_dir`` with its expected ``dx_report_<portco>.json``.

    Pairs whose source is missing are included (see ``MemoPair.source_exists``), so a listing
    can say what is missing. Sorted by portco, then audience. Files that cannot be paired are
    left out; :func:`scan_memo_pairs` names them.
    """
    return scan_memo_pairs(data_dir)[0]


def resolve_pair(
    data_dir: str | os.PathLike[str], portco: str, audience: str = "board"
) -> MemoPair:
    """The memo and source for a named portco and audience, both confined to ``data_dir``."""
    d = _data_dir(data_dir)
    memo = d / memo_filename(portco, audience)
    source = d / source_filename(portco)
    if not memo.is_file():
        pairs = find_memo_pairs(d)
        if not pairs:  # nothing explained here yet: the seed's advice applies
            raise MemoNotFoundError(f"{memo} does not exist; memos in {d}: none")
        known = ", ".join(sorted({f"{p.portco_id} ({p.audience})" for p in pairs}))
        audiences = sorted({p.audience for p in pairs if p.portco_id == portco})
        portcos = ", ".join(sorted({p.portco_id for p in pairs}))
        if audiences:
            fix = f"{portco} has memos for: {', '.join(audiences)}; pick audience {audiences[0]}."
        else:
            fix = f"No memo is about {portco!r}. Portcos with memos in {d}: {portcos}."
        raise PairNotFoundError(
            f"{memo.name} not found in {d}; memos there: {known}",
            fix=fix + " (Listing the memo pairs shows every one.)",
            input="audience" if audiences else "portco",
        )
    if not source.is_file():
        raise SourceNotFoundError(f"{source} does not exist (needed to grade {memo.name})")
    roots = [d]
    return MemoPair(
        portco_id=portco,
        audience=audience,
        memo_path=confine(memo, roots),
        source_path=confine(source, roots),
    )


ALLOWED_ROOTS_ENV = "PE_EVAL_ALLOWED_ROOTS"


def allowed_roots_from_env() -> list[Path]:
    """``$PE_EVAL_ALLOWED_ROOTS`` (``os.pathsep``-separated folders), resolved; empty if unset."""
    raw = os.environ.get(ALLOWED_ROOTS_ENV, "")
    return [Path(r).expanduser().resolve() for r in raw.split(os.pathsep) if r.strip()]


def named_source(memo_path: Path, roots: Sequence[Path] = ()) -> Path:
    """The OpportunityMap a memo names (``source_opportunity_map``), looked up beside the memo
    (as named, then by its file name: producers often write it relative to their own working
    folder, ``finance_output/dx_report_X.json``, with the memo in that folder) and, for a
    relative name, from the working folder; accepted only inside the memo's folder or
    ``roots``, links resolved. The value is the memo's text: no error quotes it.
    """
    from pe_eval_core.memo.loading import load_memo

    named = load_memo(memo_path).source_opportunity_map
    if not named:
        raise UsageError(
            f"{shown_path(memo_path)} names no source_opportunity_map, so a source is needed",
            fix="Name the source file (the dx_report_<portco>.json the memo was drawn from).",
            input="source",
        )
    folder = memo_path.resolve().parent
    allowed = [folder, *roots]
    try:
        given = Path(named)
        candidates = [folder / given, folder / given.name]
        if not given.is_absolute():
            candidates.append(given)
        resolved = [c.resolve() for c in candidates]
    except (OSError, ValueError, RuntimeError):
        resolved = []
    inside = [r for r in resolved if any(r == a or r.is_relative_to(a) for a in allowed)]
    found = next((r for r in inside if r.is_file()), None)
    if found is not None:
        return found
    outside = [r for r in resolved if r not in inside and r.is_file()]
    where = "outside the memo's folder and the allowed folders" if outside else "missing"
    raise SourceNotFoundError(
        f"the source {shown_path(memo_path.name)} names (its source_opportunity_map) is "
        f"{where}; it is not read",
        diagnosis="The memo's source_opportunity_map does not name a file beside the memo",
        fix="Pass the source file explicitly (the dx_report_<portco>.json the memo was drawn "
        "from), or put it beside the memo.",
        input="source",
    )
