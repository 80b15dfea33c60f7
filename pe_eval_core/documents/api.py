"""Grade any of the producer's documents: one entry point per surface to call.

``grade_document`` reads a file, tells its kind (or takes the kind given) and runs the kind's
grader; ``eval_document`` also writes the scorecard pair and returns the seed's shape.
``find_documents`` lists a folder's gradable documents of every kind (memos included).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pe_eval_core.documents.ddq import grade_ddq
from pe_eval_core.documents.exit_pack import grade_exit_pack
from pe_eval_core.documents.loading import PREFIXES, detect_kind, kind_of, read_document
from pe_eval_core.documents.outputs import write_document_outputs
from pe_eval_core.documents.redflags import grade_redflags
from pe_eval_core.documents.results import DocumentEvaluation, DocumentKind
from pe_eval_core.documents.verdict import VerdictThresholds
from pe_eval_core.errors import DocumentKindError
from pe_eval_core.files import check_path_text

GRADERS: dict[DocumentKind, Callable[..., DocumentEvaluation]] = {
    DocumentKind.EXIT_PROOF_PACK: grade_exit_pack,
    DocumentKind.DDQ_RESPONSE: grade_ddq,
    DocumentKind.CIM_REDFLAGS: grade_redflags,
}
"""One grader per kind; adding a kind is one module (its grader and role table) and a line here."""


def document_kind(path: str | os.PathLike[str], kind: str | None = None) -> DocumentKind:
    """The kind of a document file (from ``kind``, its name, else its keys)."""
    p = check_path_text(path, "document")
    return kind_of(p, read_document(p), kind)


def grade_document(
    path: str | os.PathLike[str],
    *,
    kind: str | None = None,
    source: str | os.PathLike[str] | None = None,
    bx_corpus: str | os.PathLike[str] | None = None,
) -> DocumentEvaluation:
    """Grade one exit proof pack, DDQ response or red-flag file; writes nothing.

    ``source`` overrides the source the document names (its OpportunityMap, knowledge-base
    folder or filing); ``bx_corpus`` the BX corpus of an exit proof pack. A memo is graded by
    ``pe_eval_core.memo.grade_memo`` (a DocumentKindError says so).
    """
    p = check_path_text(path, "document")
    data = read_document(p)
    found = kind_of(p, data, kind)
    grader = GRADERS.get(found)
    if grader is None:
        raise DocumentKindError(
            f"{p.name} is a {found.value}: grade it with the memo grader",
            fix="Grade memos with the memo grader (it writes eval_<portco>_<audience>.*).",
        )
    extra: dict[str, Any] = {"source": Path(source) if source is not None else None}
    if found is DocumentKind.EXIT_PROOF_PACK:
        extra["bx_corpus"] = Path(bx_corpus) if bx_corpus is not None else None
    return grader(p, data, **extra)


def eval_document(
    path: str | os.PathLike[str], thresholds: VerdictThresholds | None = None, **options: Any
) -> dict[str, Any]:
    """Grade, write ``eval_<stem>.html/.json`` next to the document (their verdict under
    ``thresholds``, None: the pass band), return the seed's shape (``report_path``,
    ``json_path``, ``scores``, ``totals``, ``consistency_note``) plus the kind and document id."""
    ev = grade_document(path, **options)
    html_path, json_path = write_document_outputs(ev, thresholds=thresholds)
    return ev.seed_dict(html_path, json_path)


def find_documents(folder: str | os.PathLike[str]) -> list[tuple[DocumentKind, Path]]:
    """Every gradable document in a folder, by kind then name (memos included; pe-eval's own
    ``eval_*`` files and the sources are not documents)."""
    d = check_path_text(folder, "data_dir")
    out: list[tuple[DocumentKind, Path]] = []
    for kind, prefix in PREFIXES.items():
        for p in sorted(d.glob(f"{prefix}*.json")):
            if p.is_file() and not p.is_symlink() and detect_kind(p, None) is kind:
                out.append((kind, p))
    return out


def skipped_documents(folder: str | os.PathLike[str]) -> list[tuple[Path, str]]:
    """The entries of a folder named like documents that ``find_documents`` leaves out, each
    with why (a link is never followed; a folder is no document), for a surface to name."""
    d = check_path_text(folder, "data_dir")
    out: list[tuple[Path, str]] = []
    for prefix in PREFIXES.values():
        for p in sorted(d.glob(f"{prefix}*.json")):
            if p.is_symlink():
                out.append((p, "a link (documents are read only as files of the folder)"))
            elif p.is_dir():
                out.append((p, "a folder, not a file"))
    return out


def source_paths(path: str | os.PathLike[str], kind: str | None = None) -> dict[str, Path]:
    """The sources a document's grading would read, as the grader resolves them (its map and
    BX corpus, knowledge-base folder or filing), for a surface to confine before grading."""
    from pe_eval_core.documents.ddq import _kb_dir
    from pe_eval_core.documents.exit_pack import _map_path
    from pe_eval_core.documents.loading import resolve_named
    from pe_eval_core.documents.redflags import _filing_path

    p = check_path_text(path, "document")
    data = read_document(p)
    found = kind_of(p, data, kind)
    if found is DocumentKind.EXIT_PROOF_PACK:
        out = {"source": _map_path(p, data, None)}
        bx = resolve_named(p, data.get("source_bx_corpus"), field="source_bx_corpus")
        return out | ({"bx_corpus": bx} if bx is not None else {})
    if found is DocumentKind.DDQ_RESPONSE:
        return {"source": _kb_dir(p, data, None)}
    if found is DocumentKind.CIM_REDFLAGS:
        return {"source": _filing_path(p, data, None)}
    return {}
