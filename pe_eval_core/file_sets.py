"""A set of files written as one unit: every file or none, the last one the commit point.

The scorecard pair (``memo/outputs.py``, ``documents/outputs.py``) and the scenario ``--out``
set (``scenarios/run/report_set.py``) are written through :func:`commit_files`: a kill or a
full disk between two files never leaves one run's file beside another's (issue 23). Built on
``files.atomic_write_bytes`` (no link followed, a killed writer's temps removed).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pe_eval_core.files import atomic_write_bytes, refuse_symlink, remove_stale_temps, temp_name


def _backup(target: Path) -> Path | None:
    """A hard link to the current ``target`` (None if there is none, or links are refused)."""
    if not target.exists():
        return None
    backup = target.with_name(temp_name(target.name)[: -len(".tmp")] + ".bak")
    try:
        os.link(target, backup)
    except OSError:
        return None
    return backup


def write_temp(target: Path, data: bytes) -> Path:
    """``data`` in a fsynced temp file beside ``target`` (``.<name>.<pid>-<random>.tmp``),
    with the permissions a plain ``open()`` would give; the caller renames or removes it."""
    return atomic_write_bytes(target.with_name(temp_name(target.name)), data)


def commit_files(
    files: list[tuple[Path, bytes]],
    *,
    rename: Callable[[Path, Path], None] | None = None,
    temp: Callable[[Path, bytes], Path] | None = None,
) -> None:
    """Write every file or none of them, the last one as the commit point (a manifest that
    names the others' hashes lets a reader tell a committed set from a half-replaced one).

    All contents go to temp files first (the likely failures, a full disk or a read-only
    folder, happen here and leave the targets untouched); then each temp is renamed over its
    target. If a rename fails, the targets already replaced get their previous contents back
    (or are removed if they are new). Temps and backups never outlive the call, and a killed
    writer's are removed by the next call for the same names. No target is a symlink.
    """
    move = rename or os.replace
    stage = temp or write_temp
    folder = files[0][0].parent
    folder.mkdir(parents=True, exist_ok=True)
    files = [(refuse_symlink(t), d) for t, d in files]
    remove_stale_temps(folder, [t.name for t, _ in files])
    temps: list[Path] = []
    backups: list[Path | None] = []
    done: list[Path] = []
    try:
        for target, data in files:
            temps.append(stage(target, data))
        backups = [_backup(target) for target, _ in files]
        for (target, _), tmp in zip(files, temps, strict=True):
            move(tmp, target)
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
