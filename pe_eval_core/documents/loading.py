"""Reading documents and the sources they name, tolerantly (other tools' files), with errors
that name the file and field; and telling a document's kind from its name or its keys.

>>> detect_kind(Path("exit_proof_pack_MortgageCo.json"), {})
<DocumentKind.EXIT_PROOF_PACK: 'exit_proof_pack'>
>>> detect_kind(Path("renamed.json"), {"answers": [], "knowledge_base_artifacts": []})
<DocumentKind.DDQ_RESPONSE: 'ddq_response'>
>>> detect_kind(Path("dx_report_X.json"), {"opportunities": []}) is None
True
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pe_eval_core.documents.results import DocumentKind
from pe_eval_core.errors import (
    DocumentKindError,
    DocumentNotFoundError,
    DocumentSchemaError,
    DocumentSourceError,
    InputNotFoundError,
    MalformedDocumentError,
    PeEvalError,
)
from pe_eval_core.files import read_bytes, read_json
from pe_eval_core.limits import check_file_size

PREFIXES: dict[DocumentKind, str] = {
    DocumentKind.MEMO: "explain_",
    DocumentKind.EXIT_PROOF_PACK: "exit_proof_pack_",
    DocumentKind.DDQ_RESPONSE: "ddq_response_",
    DocumentKind.CIM_REDFLAGS: "cim_redflags_",
}
"""The producer's file name prefix of each kind (a document is ``<prefix><id>.json``)."""

_KEYS: tuple[tuple[DocumentKind, frozenset[str]], ...] = (
    (DocumentKind.EXIT_PROOF_PACK, frozenset({"provenance_ledger"})),
    (DocumentKind.DDQ_RESPONSE, frozenset({"answers", "knowledge_base_artifacts"})),
    (DocumentKind.CIM_REDFLAGS, frozenset({"flags", "summary"})),
    (DocumentKind.MEMO, frozenset({"opportunities_explained"})),
)


def detect_kind(path: Path, data: Any) -> DocumentKind | None:
    """The kind from the file name's prefix, else from the keys it holds; None if neither."""
    name = path.name
    if name.startswith("eval_"):
        return None  # pe-eval's own scorecards
    for kind, prefix in PREFIXES.items():
        if name.startswith(prefix) and name.endswith(".json"):
            return kind
    if isinstance(data, dict):
        for kind, keys in _KEYS:
            if keys <= data.keys():
                return kind
    return None


def read_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The document's JSON object (typed errors for a missing, malformed or non-object file)."""
    data = read_json(path, not_found=DocumentNotFoundError, malformed=MalformedDocumentError)
    if not isinstance(data, dict):
        raise DocumentSchemaError(
            str(path), "$", f"expected a JSON object, got {type(data).__name__}"
        )
    return data


def kind_of(path: Path, data: dict[str, Any], kind: str | None) -> DocumentKind:
    """The kind asked for (checked), else the one detected; an error naming the file if none."""
    found = detect_kind(path, data)
    if kind:
        try:
            asked = DocumentKind(kind)
        except ValueError:
            names = ", ".join(k.value for k in DocumentKind)
            raise DocumentKindError(f"unknown document kind {kind!r} (kinds: {names})") from None
        if found is not None and found is not asked:
            raise DocumentKindError(
                f"{path.name} is a {found.value} (by its name or keys), not a {asked.value}",
                fix="Leave the kind out (it is told from the file), or pass the right one.",
            )
        return asked
    if found is None:
        raise DocumentKindError(f"{path.name} is not a document pe-eval grades")
    return found


def require_list(data: dict[str, Any], key: str, path: Path) -> list[Any]:
    """``data[key]`` as a list (a missing key is an empty list; anything else an error)."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DocumentSchemaError(str(path), key, f"expected a list, got {type(value).__name__}")
    return value


def read_source(path: Path, what: str) -> dict[str, Any]:
    """A source JSON object (OpportunityMap, BX corpus, knowledge-base file), errors naming it."""
    try:
        data = read_json(path, not_found=DocumentSourceError, malformed=MalformedDocumentError)
    except MalformedDocumentError as exc:
        raise DocumentSourceError(
            f"{what} {path} is not valid JSON: {exc.message}",
            diagnosis="The source the document was drawn from is malformed",
        ) from None
    if not isinstance(data, dict):
        raise DocumentSourceError(f"{what} {path} is not a JSON object")
    return data


def try_read_source(path: Path) -> dict[str, Any] | None:
    """A source JSON object, or None when it cannot be read (a sibling that is only compared,
    a knowledge-base file): a link leading out of its folder is not read."""
    if not inside(path, [path.parent]):
        return None
    try:
        return read_source(path, "file")
    except (PeEvalError, InputNotFoundError):
        return None


INPUTS = Path("..") / "inputs"
"""Where the producer keeps the filings it read, beside the documents' folder."""


def inside(path: Path, folders: Sequence[Path]) -> bool:
    """Whether ``path``, links followed, lies inside one of ``folders`` (links followed)."""
    try:
        real = path.resolve()
        return any(real.is_relative_to(f.resolve()) for f in folders)
    except (OSError, RuntimeError, ValueError):
        return False


def allowed_folders(document: Path, *, inputs: bool = False) -> list[Path]:
    """The folders a document's named sources may be read from: its own folder, and for a
    filing the producer's ``../inputs`` beside it."""
    folder = document.parent
    return [folder, folder / INPUTS] if inputs else [folder]


def resolve_named(
    document: Path, named: object, *, field: str = "source", inputs: bool = False
) -> Path | None:
    """The file a document names (``finance_output/dx_report_X.json``,
    ``file:///home/x/inputs/10k.htm``), looked up only where the document may read from
    (``allowed_folders``): by its relative path when that stays inside the document's folder,
    else by its base name there (and in ``../inputs`` for a filing). An absolute path or a
    ``..`` in the name is never followed (the producer writes the absolute paths of the machine
    it ran on; only the name is used). A file found there that is a link leading outside is
    refused, naming ``field``; the value is never quoted back. None when nothing is found."""
    if not isinstance(named, str) or not named.strip() or "\x00" in named or len(named) > 4096:
        return None
    candidate = Path(named.strip().removeprefix("file://"))
    folders = allowed_folders(document, inputs=inputs)
    tries: list[Path] = []
    if not candidate.is_absolute() and ".." not in candidate.parts:
        tries.append(document.parent / candidate)
    if candidate.name and candidate.name not in (".", ".."):
        tries += [f / candidate.name for f in folders]
    for p in tries:
        try:
            if not p.is_file():
                continue
        except (OSError, ValueError):
            continue
        if not inside(p, folders):
            raise DocumentSourceError(
                f"{document.name}: the file named in {field} is a link that leads outside "
                "the document's folder",
                diagnosis="A document's sources are read only from its own folder",
                fix="Put the source itself (not a link to it) beside the document, or name it.",
            )
        return p
    return None


def named_folder(document: Path, named: object) -> Path | None:
    """The folder a document names (a DDQ's ``knowledge_base_dir``) when it is the document's
    folder or inside it; None otherwise (another machine's absolute path, a ``..``: the
    document's own folder is used instead)."""
    if not isinstance(named, str) or not named.strip() or "\x00" in named or len(named) > 4096:
        return None
    p = Path(named.strip())
    candidate = p if p.is_absolute() else document.parent / p
    try:
        if candidate.is_dir() and inside(candidate, [document.parent]):
            return candidate
    except (OSError, ValueError):
        return None
    return None


def read_text_source(path: Path) -> str:
    """A source text file (a filing, a pack's HTML) under the input size limit, its bytes
    decoded as UTF-8 with undecodable bytes replaced; typed errors naming the source."""
    check_file_size(path, input="source")
    return read_bytes(path, DocumentSourceError).decode("utf-8", errors="replace")
