"""Write an evaluation as the seed's two files (HTML scorecard + JSON sidecar), as one pair.

Also the other serialisations surfaces need: the JSON text, a findings CSV, and the seed's
``eval_pe_output`` entry point (grade + write + return the seed's dict).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import secrets
from pathlib import Path

from pe_eval_core.errors import OutputWriteError
from pe_eval_core.files import (
    atomic_write_bytes,
    check_path_text,
    csv_cell,
    refuse_symlink,
    safe_name,
)
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.grader import grade_memo
from pe_eval_core.memo.result import Finding, MemoEvaluation, SeedResult
from pe_eval_core.memo.verdict import VerdictThresholds, memo_verdict

FINDING_COLUMNS = tuple(Finding.model_fields)


def output_paths(
    evaluation: MemoEvaluation, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """``eval_<portco>_<audience>.html`` and ``.json`` in ``out_dir`` (default: memo's folder)."""
    portco = safe_name(evaluation.portco_id, "portco_id")
    audience = safe_name(evaluation.audience, "audience")
    return pair_paths(f"eval_{portco}_{audience}", Path(evaluation.memo_path).parent, out_dir)


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
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(FINDING_COLUMNS)
    for f in evaluation.findings:
        row = f.model_dump(mode="json")
        writer.writerow([csv_cell(row[c]) for c in FINDING_COLUMNS])
    return buf.getvalue()


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
    html = render_scorecard_html(stamped, thresholds).encode("utf-8")
    stamped = stamped.model_copy(update={"html_sha256": _digest(html)})
    body = evaluation_to_json(stamped).encode("utf-8")
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


def _write_temp(target: Path, data: bytes) -> Path:
    """``data`` in a fsynced temp file next to ``target`` (``.<name>.<pid>-<random>.tmp``,
    written by ``files.atomic_write_bytes``, so with the permissions a plain ``open()`` would
    give); the caller renames or removes it."""
    return atomic_write_bytes(target.with_name(f".{target.name}.{_tag()}.tmp"), data)


def _tag() -> str:
    """``<pid>-<random>``: the pid lets a later run tell a dead writer's leftovers."""
    return f"{os.getpid()}-{secrets.token_hex(6)}"


_LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]{12}\.(?:tmp|bak)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale_leftovers(folder: Path, names: list[str]) -> list[Path]:
    """Remove the temp/backup files a killed writer left for ``names`` (only those whose
    writing process is gone, so a concurrent writer's temps are kept); return them."""
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for p in entries:
        m = _LEFTOVER.fullmatch(p.name)
        if m and m["name"] in names and not _alive(int(m["pid"])) and not p.is_dir():
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


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


def _backup(target: Path) -> Path | None:
    """A hard link to the current ``target`` (None if there is none, or links are refused)."""
    if not target.exists():
        return None
    backup = target.with_name(f".{target.name}.{_tag()}.bak")
    try:
        os.link(target, backup)
    except OSError:
        return None
    return backup


_rename = os.replace  # one name for the renames, so tests can make one fail


def write_pair(files: list[tuple[Path, bytes]]) -> None:
    """Write every file or none of them: a scorecard never lands without its sidecar.

    All contents go to temp files first (the likely failures, a full disk or a read-only
    folder, happen here and leave the targets untouched); then each temp is renamed over its
    target. If a rename fails, the targets already replaced get their previous contents back
    (or are removed if they are new). Temps and backups never outlive the call.

    The commit point is the last file, the JSON sidecar, which carries the HTML's sha256 (a
    manifest inside the pair, so no third file): a process killed between the two renames
    leaves a new HTML beside the old sidecar, which ``pair_is_committed`` reports, so a
    reader never takes a mismatched pair as one; the next write removes that run's
    leftover temps and backups. No target is a symlink (``files.refuse_symlink``).
    """
    folder = files[0][0].parent
    folder.mkdir(parents=True, exist_ok=True)
    files = [(refuse_symlink(t), d) for t, d in files]
    remove_stale_leftovers(folder, [t.name for t, _ in files])
    temps: list[Path] = []
    backups: list[Path | None] = []
    done: list[Path] = []
    try:
        for target, data in files:
            temps.append(_write_temp(target, data))
        backups = [_backup(target) for target, _ in files]
        for (target, _), tmp in zip(files, temps, strict=True):
            _rename(tmp, target)
            done.append(target)
    except BaseException:
        for target, backup in zip(done, backups, strict=False):
            if backup is not None:
                os.replace(backup, target)
            else:
                target.unlink(missing_ok=True)
        raise
    finally:
        for leftover in [*temps, *(b for b in backups if b is not None)]:
            leftover.unlink(missing_ok=True)


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
