"""Write an evaluation as the seed's two files (HTML scorecard + JSON sidecar), as one pair.

Also the other serialisations surfaces need: the JSON text, a findings CSV, and the seed's
``eval_pe_output`` entry point (grade + write + return the seed's dict).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from pe_eval_core.errors import OutputWriteError
from pe_eval_core.file_sets import commit_files, write_temp
from pe_eval_core.files import (
    SAFE_NAME,
    check_path_text,
    csv_text,
    safe_name,
    utf8,
)
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.grader import grade_memo
from pe_eval_core.memo.result import Finding, MemoEvaluation, SeedResult
from pe_eval_core.memo.verdict import VerdictThresholds, memo_verdict

FINDING_COLUMNS = tuple(Finding.model_fields)


def output_stem(memo_path: str | os.PathLike[str]) -> str:
    """The outputs' name, from the memo's FILE name (never from the ``portco_id`` it holds,
    which another file could claim): ``explain_<rest>.json`` -> ``eval_<rest>``; another name
    -> ``eval_<its stem>``, made safe (other characters become ``_``, plus a hash of the name
    so two such names never collide).

    >>> output_stem("data/explain_MortgageCo_board.json"), output_stem("memo.json")
    ('eval_MortgageCo_board', 'eval_memo')
    >>> output_stem("my memo.json")
    'eval_my_memo_ba1bf262'
    """
    name = Path(memo_path).name
    rest = name[len("explain_") : -len(".json")] if name.startswith("explain_") else None
    if not (rest and name.endswith(".json")):
        rest = Path(name).stem
    if SAFE_NAME.fullmatch(rest) and not set(rest) <= {"."}:
        return f"eval_{rest}"
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", rest)[:80].strip(".") or "memo"
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"eval_{cleaned}_{digest}"


def output_paths(
    evaluation: MemoEvaluation, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """``eval_<portco>_<audience>.html`` and ``.json`` for a memo ``explain_<portco>_<audience>
    .json`` (:func:`output_stem`: from its file name) in ``out_dir`` (default: its folder)."""
    # The names no longer come from these fields, but a memo whose portco or audience could
    # walk a path is refused all the same (they reach the history, links and source lookups).
    safe_name(evaluation.portco_id, "portco_id")
    safe_name(evaluation.audience, "audience")
    stem = output_stem(evaluation.memo_path)
    return pair_paths(stem, Path(evaluation.memo_path).parent, out_dir)


def pair_paths(
    stem: str, beside: Path, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """``<stem>.html`` and ``<stem>.json`` in ``out_dir`` (default: ``beside``, the graded
    document's folder): the scorecard pair of any document kind."""
    folder = Path(out_dir) if out_dir is not None else beside
    check_path_text(folder, "out_dir")
    # The folder is resolved, the file names never are: a symlinked output is refused when
    # written (``files.refuse_symlink``), not followed.
    try:
        folder = folder.resolve()
    except (OSError, RuntimeError) as exc:
        raise OutputWriteError(f"cannot use {folder} as the scorecard folder: {exc}") from None
    return folder / f"{stem}.html", folder / f"{stem}.json"


def evaluation_to_json(evaluation: MemoEvaluation) -> str:
    """The JSON sidecar's text: the whole evaluation, indented (stamp the verdict first with
    :func:`with_verdict`, as ``write_outputs`` does)."""
    return evaluation.model_dump_json(indent=2) + "\n"


def with_verdict(
    evaluation: MemoEvaluation, thresholds: VerdictThresholds | None = None
) -> MemoEvaluation:
    """``evaluation`` carrying its verdict under ``thresholds`` (None: the pass band), as the
    JSON sidecar and the dashboard's JSON download hold it."""
    verdict = memo_verdict(evaluation, thresholds).summary(evaluation)
    return evaluation.model_copy(update={"verdict": verdict})


def load_evaluation(path: str | os.PathLike[str]) -> MemoEvaluation:
    """Read back a JSON sidecar written by ``write_outputs``."""
    return MemoEvaluation.model_validate_json(Path(path).read_bytes())


def findings_to_csv(evaluation: MemoEvaluation) -> str:
    """Every finding as one CSV row (header = the Finding fields)."""
    rows = (f.model_dump(mode="json") for f in evaluation.findings)
    return csv_text([FINDING_COLUMNS, *([row[c] for c in FINDING_COLUMNS] for row in rows)])


def write_outputs(
    evaluation: MemoEvaluation,
    out_dir: str | os.PathLike[str] | None = None,
    thresholds: VerdictThresholds | None = None,
) -> tuple[Path, Path]:
    """Write the HTML scorecard and the JSON sidecar atomically; return (html, json) paths.
    Both state the verdict under ``thresholds`` (None: the pass band)."""
    from pe_eval_core.memo.scorecard import render_scorecard_html

    html_path, json_path = output_paths(evaluation, out_dir)
    stamped = with_verdict(evaluation, thresholds).model_copy(
        update={"report_path": str(html_path), "json_path": str(json_path)}
    )
    # Both rendered before either is written, then written as a pair (see ``write_pair``).
    # a lone surrogate is written as its \\udcff escape (``files.utf8``), never a crash
    html = utf8(render_scorecard_html(stamped, thresholds))
    stamped = stamped.model_copy(update={"html_sha256": _digest(html)})
    body = utf8(evaluation_to_json(stamped))
    commit_pair(html_path, html, json_path, body, chosen=out_dir is not None)
    return html_path, json_path


def commit_pair(
    html_path: Path, html: bytes, json_path: Path, body: bytes, *, chosen: bool
) -> None:
    """Write a scorecard and its sidecar as one pair (``write_pair``), an OS failure as an
    ``OutputWriteError`` naming the folder (and, when the user ``chosen`` it, what to do)."""
    try:
        write_pair([(html_path, html), (json_path, body)])
    except OSError as exc:
        message = f"cannot write {json_path.parent}: {exc.strerror or exc}"
        if not chosen:
            raise OutputWriteError(message) from exc
        raise OutputWriteError(
            message,
            diagnosis="The scorecard could not be written to the chosen scorecard folder",
            fix="Make that folder writable (or creatable), or choose another scorecard folder.",
        ) from exc


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pair_is_committed(html_path: Path, json_path: Path) -> bool:
    """True when the HTML on disk is the one its JSON sidecar was committed with (the
    sidecar's ``html_sha256``); a reader checks this before trusting the pair. A sidecar
    written before the field existed (None) is taken as committed."""
    try:
        evaluation = load_evaluation(json_path)
        html = html_path.read_bytes()
    except (OSError, ValueError):
        return False
    return evaluation.html_sha256 in (None, _digest(html))


_rename = os.replace  # one name for the renames, so tests can make one fail
_write_temp = write_temp  # and for the temp writes


def write_pair(files: list[tuple[Path, bytes]]) -> None:
    """Write every file or none of them: a scorecard never lands without its sidecar
    (``file_sets.commit_files``). The commit point is the last file, the JSON sidecar, which
    carries the HTML's sha256 (a manifest inside the pair, so no third file): a process killed
    between the two renames leaves a new HTML beside the old sidecar, which
    ``pair_is_committed`` reports, so a reader never takes a mismatched pair as one."""
    commit_files(files, rename=lambda a, b: _rename(a, b), temp=lambda t, d: _write_temp(t, d))


def eval_pe_output(
    memo_json_path: str | os.PathLike[str],
    source_json_path: str | os.PathLike[str],
    *,
    config: GraderConfig | None = None,
    thresholds: VerdictThresholds | None = None,
) -> SeedResult:
    """The seed's tool: grade, write ``eval_<portco>_<audience>.html/.json`` (their verdict
    under ``thresholds``), return the dict."""
    evaluation = grade_memo(memo_json_path, source_json_path, config=config)
    html_path, json_path = write_outputs(evaluation, thresholds=thresholds)
    return evaluation.seed_dict(html_path, json_path)
