"""A document's scorecard pair, ``eval_<document stem>.html`` and ``.json``, written next to
the document like the memo pair: atomically, as a pair, never through a symlink."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pe_eval_core.documents.results import DocumentEvaluation
from pe_eval_core.documents.verdict import VerdictThresholds, document_verdict
from pe_eval_core.files import safe_name
from pe_eval_core.memo.outputs import commit_pair, pair_paths


def output_paths(
    ev: DocumentEvaluation, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """``eval_<stem>.html`` / ``.json`` in ``out_dir`` (default: the document's folder)."""
    stem = safe_name(Path(ev.document_path).stem, "document")
    return pair_paths(f"eval_{stem}", Path(ev.document_path).parent, out_dir)


def evaluation_to_json(ev: DocumentEvaluation) -> str:
    """The JSON sidecar's text: the whole evaluation, indented (stamp the verdict first with
    :func:`with_verdict`, as ``write_document_outputs`` does)."""
    return ev.model_dump_json(indent=2) + "\n"


def with_verdict(
    ev: DocumentEvaluation, thresholds: VerdictThresholds | None = None
) -> DocumentEvaluation:
    """``ev`` carrying its verdict under ``thresholds`` (None: the pass band), as the JSON
    sidecar and the dashboard's JSON download hold it."""
    return ev.model_copy(update={"verdict": document_verdict(ev, thresholds).summary(ev)})


def load_document_evaluation(path: str | os.PathLike[str]) -> DocumentEvaluation:
    """Read back a JSON sidecar written by ``write_document_outputs``."""
    return DocumentEvaluation.model_validate_json(Path(path).read_bytes())


def write_document_outputs(
    ev: DocumentEvaluation,
    out_dir: str | os.PathLike[str] | None = None,
    thresholds: VerdictThresholds | None = None,
) -> tuple[Path, Path]:
    """Write the HTML scorecard and its JSON sidecar as one pair; return (html, json). Both
    state the verdict under ``thresholds`` (None: the pass band)."""
    from pe_eval_core.documents.scorecard import render_document_html

    html_path, json_path = output_paths(ev, out_dir)
    stamped = with_verdict(ev, thresholds).model_copy(
        update={"report_path": str(html_path), "json_path": str(json_path)}
    )
    html = render_document_html(stamped, thresholds).encode("utf-8")
    stamped = stamped.model_copy(update={"html_sha256": hashlib.sha256(html).hexdigest()})
    body = evaluation_to_json(stamped).encode("utf-8")
    commit_pair(html_path, html, json_path, body, chosen=out_dir is not None)
    return html_path, json_path
