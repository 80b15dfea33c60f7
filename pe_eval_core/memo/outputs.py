"""Write an evaluation as the seed's two files (HTML scorecard + JSON sidecar), as one pair.

Also the other serialisations surfaces need: the JSON text, a findings CSV, and the seed's
``eval_pe_output`` entry point (grade + write + return the seed's dict).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from pathlib import Path

from pe_eval_core.errors import OutputWriteError
from pe_eval_core.files import (
    SAFE_NAME,
    atomic_write_bytes,
    check_path_text,
    csv_text,
    refuse_symlink,
    safe_name,
    utf8,
)
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.grader import grade_memo
from pe_eval_core.memo.result import Finding, MemoEvaluation, SeedResult

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
    folder = Path(out_dir) if out_dir is not None else Path(evaluation.memo_path).parent
    check_path_text(folder, "out_dir")
    stem = output_stem(evaluation.memo_path)
    # The folder is resolved, the file names never are: a symlinked output is refused when
    # written (``files.refuse_symlink``), not followed.
    try:
        folder = folder.resolve()
    except (OSError, RuntimeError) as exc:
        raise OutputWriteError(f"cannot use {folder} as the scorecard folder: {exc}") from None
    return folder / f"{stem}.html", folder / f"{stem}.json"


def evaluation_to_json(evaluation: MemoEvaluation) -> str:
    """The JSON sidecar's text: the whole evaluation, indented."""
    return evaluation.model_dump_json(indent=2) + "\n"


def load_evaluation(path: str | os.PathLike[str]) -> MemoEvaluation:
    """Read back a JSON sidecar written by ``write_outputs``."""
    return MemoEvaluation.model_validate_json(Path(path).read_bytes())


def findings_to_csv(evaluation: MemoEvaluation) -> str:
    """Every finding as one CSV row (header = the Finding fields)."""
    rows = (f.model_dump(mode="json") for f in evaluation.findings)
    return csv_text([FINDING_COLUMNS, *([row[c] for c in FINDING_COLUMNS] for row in rows)])


def write_outputs(
    evaluation: MemoEvaluation, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """Write the HTML scorecard and the JSON sidecar atomically; return (html, json) paths."""
    from pe_eval_core.memo.scorecard import render_scorecard_html

    html_path, json_path = output_paths(evaluation, out_dir)
    stamped = evaluation.model_copy(
        update={"report_path": str(html_path), "json_path": str(json_path)}
    )
    # Both rendered before either is written, then written as a pair (see ``write_pair``).
    html = utf8(render_scorecard_html(stamped))  # a lone surrogate as its \\udcff escape
    stamped = stamped.model_copy(update={"html_sha256": _digest(html)})
    body = utf8(evaluation_to_json(stamped))
    try:
        write_pair([(html_path, html), (json_path, body)])
    except OSError as exc:
        message = f"cannot write {json_path.parent}: {exc.strerror or exc}"
        if out_dir is None:
            raise OutputWriteError(message) from exc
        raise OutputWriteError(
            message,
            diagnosis="The scorecard could not be written to the chosen scorecard folder",
            fix="Make that folder writable (or creatable), or choose another scorecard folder.",
        ) from exc
    return html_path, json_path


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
) -> SeedResult:
    """The seed's tool: grade, write ``eval_<portco>_<audience>.html/.json``, return the dict."""
    evaluation = grade_memo(memo_json_path, source_json_path, config=config)
    html_path, json_path = write_outputs(evaluation)
    return evaluation.seed_dict(html_path, json_path)
