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
from pe_eval_core.files import read_json

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
    if kind:
        try:
            return DocumentKind(kind)
        except ValueError:
            names = ", ".join(k.value for k in DocumentKind)
            raise DocumentKindError(f"unknown document kind {kind!r} (kinds: {names})") from None
    found = detect_kind(path, data)
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
    """A source JSON object, or None when it cannot be read (a sibling that is only compared)."""
    try:
        return read_source(path, "file")
    except (PeEvalError, InputNotFoundError):
        return None


def resolve_named(document: Path, named: object) -> Path | None:
    """The file a document names (``finance_output/dx_report_X.json``, relative to the tool's
    working folder): beside the document by that relative path, then by its base name.
    None when it names nothing or nothing is found."""
    if not isinstance(named, str) or not named.strip() or "\x00" in named:
        return None
    candidate = Path(named.strip())
    folder = document.parent
    tries = [candidate] if candidate.is_absolute() else [folder / candidate]
    tries.append(folder / candidate.name)
    for p in tries:
        try:
            if p.is_file():
                return p
        except OSError:
            continue
    return None
