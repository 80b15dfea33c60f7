"""Find memo/source pairs in a data folder, and resolve a named portco + audience to one.

Names the user types become file names, so they go through ``safe_name`` and the resulting
paths through ``confine``: nothing here can read outside the data folder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pe_eval_core.errors import (
    InputLimitError,
    InputNotFoundError,
    InvalidNameError,
    MemoNotFoundError,
    PairNotFoundError,
    SourceNotFoundError,
)
from pe_eval_core.files import SAFE_NAME, check_path_text, confine, safe_name
from pe_eval_core.limits import check_file_size

MEMO_GLOB = "explain_*.json"
_MEMO_NAME = re.compile(r"explain_(?P<portco>.+)_(?P<audience>[^_]+)\.json")


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
    """(portco, audience) from the memo's own fields, else from its file name."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
        portco, audience = data.get("portco_id"), data.get("audience")
        if (
            isinstance(portco, str)
            and isinstance(audience, str)
            and SAFE_NAME.fullmatch(portco)
            and SAFE_NAME.fullmatch(audience)
        ):
            return portco, audience
    except (OSError, ValueError, AttributeError):
        pass
    m = _MEMO_NAME.fullmatch(path.name)
    return (m["portco"], m["audience"]) if m else None


class SkippedMemo(BaseModel):
    """A file that looks like a memo but cannot be listed or graded, and why."""

    model_config = ConfigDict(frozen=True)

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
    its reason: a name that cannot become a file name, a symlink leading out of the folder."""
    d = _data_dir(data_dir)
    pairs = []
    skipped = []
    try:
        root: Path | None = d.resolve()  # once, not once per memo
    except (OSError, RuntimeError):
        root = None
    for memo in d.glob(MEMO_GLOB):
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
