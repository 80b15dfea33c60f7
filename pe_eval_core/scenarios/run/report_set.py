"""The scenario ``--out`` folder as one unit: the reports, the saved responses and a manifest.

Written file by file, a run killed between two writes left one run's ``report.md`` beside
another's ``report.json`` (30 of 30 kills, issue 23). Now every file goes to a temp first and
the set is renamed in; the last file renamed, :data:`MANIFEST`, names the run and each
file's sha256 (the commit point, as the scorecard pair's sidecar is). A reader calls
:func:`report_set_committed`: a set whose files do not match its manifest is not one run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from pe_eval_core.file_sets import commit_files

MANIFEST = "report-set.json"
"""The commit point of an ``--out`` folder: ``{"run_id", "files": {name: sha256}}``."""


def write_report_set(out: Path, files: Mapping[str, bytes], run_id: str) -> Path:
    """Write ``files`` (name -> bytes) into ``out`` as one unit, the manifest last."""
    manifest = {
        "run_id": run_id,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
    }
    body = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    commit_files([*((out / name, data) for name, data in files.items()), (out / MANIFEST, body)])
    return out / MANIFEST


def report_set_committed(out: Path) -> bool:
    """True when every file the folder's manifest names holds the bytes it was committed with
    (a reader checks this before trusting the reports as one run)."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
        return bool(files) and all(
            hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
            for name, digest in files.items()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
