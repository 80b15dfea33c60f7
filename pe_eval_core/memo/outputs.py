"""Write an evaluation as the seed's two files (HTML scorecard + JSON sidecar), atomically.

Also the other serialisations surfaces need: the JSON text, a findings CSV, and the seed's
``eval_pe_output`` entry point (grade + write + return the seed's dict).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from pe_eval_core.files import atomic_write_bytes, safe_name
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.errors import OutputWriteError
from pe_eval_core.memo.grader import gc_paused, grade_memo
from pe_eval_core.memo.result import Finding, MemoEvaluation

FINDING_COLUMNS = tuple(Finding.model_fields)
_FORMULA_START = ("=", "+", "@", "\t", "\r")


def output_paths(
    evaluation: MemoEvaluation, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """``eval_<portco>_<audience>.html`` and ``.json`` in ``out_dir`` (default: memo's folder)."""
    portco = safe_name(evaluation.portco_id, "portco_id")
    audience = safe_name(evaluation.audience, "audience")
    folder = Path(out_dir) if out_dir is not None else Path(evaluation.memo_path).parent
    stem = f"eval_{portco}_{audience}"
    return (folder / f"{stem}.html").resolve(), (folder / f"{stem}.json").resolve()


def evaluation_to_json(evaluation: MemoEvaluation) -> str:
    """The JSON sidecar's text: the whole evaluation, indented."""
    return _json_bytes(evaluation).decode("utf-8")


def _json_bytes(evaluation: MemoEvaluation) -> bytes:
    # Straight to bytes: a 10,000-opportunity sidecar is tens of MB, worth not copying.
    return MemoEvaluation.__pydantic_serializer__.to_json(evaluation, indent=2) + b"\n"


def load_evaluation(path: str | os.PathLike[str]) -> MemoEvaluation:
    """Read back a JSON sidecar written by ``write_outputs``."""
    return MemoEvaluation.model_validate_json(Path(path).read_bytes())


def _csv_cell(value: object) -> object:
    """Neutralise spreadsheet formulas in text cells (``=HYPERLINK(...)`` in hostile prose)."""
    if isinstance(value, str) and (
        value.startswith(_FORMULA_START)
        or (value.startswith("-") and value[1:2] and value[1] not in "0123456789$.(")
    ):
        return "'" + value
    return "" if value is None else value


def findings_to_csv(evaluation: MemoEvaluation) -> str:
    """Every finding as one CSV row (header = the Finding fields)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(FINDING_COLUMNS)
    for f in evaluation.findings:
        row = f.model_dump(mode="json")
        writer.writerow([_csv_cell(row[c]) for c in FINDING_COLUMNS])
    return buf.getvalue()


def write_outputs(
    evaluation: MemoEvaluation, out_dir: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """Write the HTML scorecard and the JSON sidecar atomically; return (html, json) paths."""
    from pe_eval_core.render.scorecard import render_scorecard_html

    html_path, json_path = output_paths(evaluation, out_dir)
    stamped = evaluation.model_copy(
        update={"report_path": str(html_path), "json_path": str(json_path)}
    )
    # Both rendered before either is written: a failure leaves the previous files intact.
    # The cyclic GC is paused meanwhile: rendering allocates many short-lived strings and no
    # cycles, and its generation sweeps cost about a third of a 10,000-opportunity render.
    with gc_paused():
        html = render_scorecard_html(stamped).encode("utf-8")
        body = _json_bytes(stamped)
    try:
        atomic_write_bytes(json_path, body)
        atomic_write_bytes(html_path, html)
    except OSError as exc:
        raise OutputWriteError(f"cannot write {json_path.parent}: {exc.strerror or exc}") from exc
    return html_path, json_path


def eval_pe_output(
    memo_json_path: str | os.PathLike[str],
    source_json_path: str | os.PathLike[str],
    *,
    config: GraderConfig | None = None,
) -> dict:
    """The seed's tool: grade, write ``eval_<portco>_<audience>.html/.json``, return the dict."""
    evaluation = grade_memo(memo_json_path, source_json_path, config=config)
    html_path, json_path = write_outputs(evaluation)
    return evaluation.seed_dict(html_path, json_path)
