"""`pe-eval doc PATH`: grade any of the producer's documents (exit proof pack, DDQ response,
10-K/CIM red flags, or an explainer memo), its kind told from the file or given with --kind.

Prints the scorecard path, the four scores with their n/total, the lowest dimension, the
verdict (``documents.verdict.document_verdict``, the memo's rule; ``memo_verdict`` for a memo)
under ``--fail-under`` / ``--max-hallucination`` where given, and the first findings;
``--json`` prints the seed's shape with the verdict and every finding (its kind, the raw text
and where it is). Exit 0 ready to circulate, 1 not ready, 2 input error.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pe_eval_core.cli import ExitCode, Subparsers
from pe_eval_core.cli.memo import (
    add_verdict_options,
    cli_thresholds,
    exit_code,
    verdict_thresholds,
)
from pe_eval_core.cli.store_options import add_store_options, store_target
from pe_eval_core.memo.verdict import Verdict, VerdictThresholds, verdict_lines
from pe_eval_core.terminal import term, term_json
from pe_eval_core.wording import DIMENSIONS, count_of

FINDINGS_SHOWN = 5
INFORMATIONAL = ("template_exempt", "unreadable_sibling")


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "doc",
        help="grade an exit proof pack, DDQ response, red-flag file or memo against its source",
        description="Grade a PE document against its source and write eval_<name>.html/.json "
        "next to it. The kind comes from the file name or its keys, or --kind. Exit 0 when "
        "the verdict is ready to circulate, 1 when not ready, 2 when it cannot be graded.",
    )
    p.add_argument("path", type=Path, help="the document (a folder with --all)")
    p.add_argument(
        "--kind",
        choices=["memo", "exit_proof_pack", "ddq_response", "cim_redflags"],
        help="the document kind (default: from the file)",
    )
    p.add_argument("--source", type=Path, help="the source (default: the one the document names)")
    p.add_argument("--bx-corpus", type=Path, help="an exit proof pack's BX corpus")
    p.add_argument("--out-dir", type=Path, help="write the scorecard here")
    p.add_argument("--all", action="store_true", help="grade every document in the folder PATH")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    add_verdict_options(p)
    add_store_options(p)
    p.set_defaults(func=handle)


@dataclass
class Graded:
    """One document graded: the seed's shape with findings and verdict (``out``), the
    verdict itself and the text lines the CLI prints (as the MCP tool returns them)."""

    out: dict[str, Any]
    verdict: Verdict
    lines: list[str]


def _memo(args: argparse.Namespace, path: Path, thresholds: VerdictThresholds) -> Graded:
    """A memo through the memo grader (its own scorecard pair, verdict and history record)."""
    from pe_eval_core.cli.memo import source_named_by_memo
    from pe_eval_core.documents.loading import read_document, resolve_named
    from pe_eval_core.history.store import record_or_warn
    from pe_eval_core.memo.explain import lowest_dimension, score_lines
    from pe_eval_core.memo.grader import grade_memo
    from pe_eval_core.memo.outputs import write_outputs
    from pe_eval_core.memo.verdict import memo_verdict

    named = read_document(path).get("source_opportunity_map")
    source = (
        getattr(args, "source", None)
        or resolve_named(path, named)  # beside the memo (by its relative path or name)
        or source_named_by_memo(path)
    )
    ev = grade_memo(path, source)
    html_path, json_path = write_outputs(ev, args.out_dir, thresholds)
    verdict = memo_verdict(ev, thresholds)
    out: dict[str, Any] = {"kind": "memo", **ev.seed_dict(html_path, json_path)}
    out["document_id"] = f"{ev.portco_id}/{ev.audience}"
    out["findings"] = [f.model_dump(mode="json") for f in ev.findings]
    out["lowest_dimension"] = dict(zip(("name", "sentence"), lowest_dimension(ev), strict=True))
    out["threshold_failures"] = verdict.failures
    out["verdict"] = verdict.summary(ev).model_dump()
    out["history_run_id"] = record_or_warn(ev, origin="cli", db=store_target(args))
    head = f"Eval scorecard (memo, {out['document_id']}): {html_path}"
    return Graded(out, verdict, [head, *score_lines(ev), *verdict_lines(verdict)])


def grade_one(
    args: argparse.Namespace, path: Path, kind: str | None, thresholds: VerdictThresholds
) -> Graded:
    """Grade one document of any kind under ``thresholds``; its seed shape with findings,
    lowest dimension and verdict."""
    from pe_eval_core.documents import (
        document_kind,
        document_verdict,
        grade_document,
        lowest_dimension,
        write_document_outputs,
    )
    from pe_eval_core.documents.summary import score_lines
    from pe_eval_core.history.store import record_or_warn

    found = document_kind(path, kind)
    if found.value == "memo":
        return _memo(args, path, thresholds)
    ev = grade_document(
        path,
        kind=found.value,
        source=getattr(args, "source", None),
        bx_corpus=getattr(args, "bx_corpus", None),
    )
    html_path, json_path = write_document_outputs(ev, args.out_dir, thresholds)
    verdict = document_verdict(ev, thresholds)
    out = ev.seed_dict(html_path, json_path)
    out["findings"] = [f.model_dump(mode="json") for f in ev.findings]
    out["lowest_dimension"] = dict(zip(("name", "sentence"), lowest_dimension(ev), strict=True))
    out["threshold_failures"] = verdict.failures
    out["verdict"] = verdict.summary(ev).model_dump()
    out["history_run_id"] = record_or_warn(ev, origin="cli", db=store_target(args))
    head = f"Eval scorecard ({out['kind']}, {out['document_id']}): {html_path}"
    return Graded(out, verdict, [head, *score_lines(ev), *verdict_lines(verdict)])


def _where(f: dict[str, Any]) -> str:
    span = f"[{f['start']}:{f['end']}]" if f.get("start") is not None else ""
    item = f.get("item_id") or f.get("opportunity_id")
    return "/".join(str(x) for x in (item, f.get("field")) if x) + span


def _print(graded: Graded) -> None:
    for line in graded.lines:
        print(term(line))
    counted = [f for f in graded.out["findings"] if f["kind"] not in INFORMATIONAL]
    if counted:
        print(f"Findings ({len(counted)}):")
        for f in counted[:FINDINGS_SHOWN]:
            print(term(f"  - {f['kind']} [{_where(f)}]: {f['message']}"))
        if len(counted) > FINDINGS_SHOWN:
            print(f"  ... and {len(counted) - FINDINGS_SHOWN} more in the scorecard.")
    for line in graded.verdict.failures:
        print(term(f"FAIL: {line}"))


def grade_folder(
    args: argparse.Namespace, folder: Path, thresholds: VerdictThresholds
) -> tuple[list[Graded | dict[str, Any]], int]:
    """Every exit proof pack, DDQ response and red-flag file of a folder (memos are
    ``memo --all``'s): each graded document, or an error row, and the number of errors."""
    from pe_eval_core.documents import find_documents
    from pe_eval_core.documents.api import skipped_documents
    from pe_eval_core.errors import PeEvalError

    for path, why in skipped_documents(folder):  # named, never fatal
        print(f"skipped {term(path.name)}: {term(why)}", file=sys.stderr)
    rows: list[Graded | dict[str, Any]] = []
    errors = 0
    for kind, path in find_documents(folder):
        if kind.value == "memo":
            continue
        try:
            rows.append(grade_one(args, path, kind.value, thresholds))
        except PeEvalError as exc:
            errors += 1
            rows.append({"kind": kind.value, "document": path.name, "error": exc.message})
    return rows, errors


def folder_json(rows: list[Graded | dict[str, Any]]) -> list[dict[str, Any]]:
    """The folder's rows as ``--json`` prints them."""
    return [r.out if isinstance(r, Graded) else r for r in rows]


def print_folder_rows(rows: list[Graded | dict[str, Any]]) -> None:
    """One line per document, like ``memo --all``'s: the four scores, then the verdict."""
    for row in rows:
        if not isinstance(row, Graded):
            print(term(f"{row['kind'] + '/' + row['document']:<48} ERROR  {row['error']}"))
            continue
        out = row.out
        summary = out["verdict"]
        cells = "  ".join(f"{d.split('_')[0]} {summary['scores'][d]:>7}" for d in DIMENSIONS)
        name = f"{out['kind']}/{out['document_id']}"
        print(term(f"{name:<48} {cells}  {row.verdict.headline}"))


def not_ready(rows: list[Graded | dict[str, Any]]) -> int:
    """How many graded documents are not ready to circulate."""
    return sum(1 for r in rows if isinstance(r, Graded) and not r.verdict.ready)


def handle(args: argparse.Namespace) -> int:
    fail_under, max_h = cli_thresholds(args)
    thresholds = verdict_thresholds(fail_under, max_h)
    if args.all:
        rows, errors = grade_folder(args, args.path, thresholds)
        n_fail = not_ready(rows)
        graded = len(rows) - errors
        line = (
            f"{count_of(len(rows), 'document')} in {args.path}: {graded:,} graded, "
            f"{graded - n_fail:,} ready to circulate, {n_fail:,} not ready, "
            f"{errors:,} could not be graded."
        )
        if args.json:
            print(
                term_json(json.dumps({"documents": folder_json(rows), "summary": line}, indent=2))
            )
        else:
            print_folder_rows(rows)
            print(line)
        if errors:
            return ExitCode.CANNOT_EVALUATE
        return ExitCode.BELOW_THRESHOLD if n_fail else ExitCode.OK
    graded_one = grade_one(args, args.path, args.kind, thresholds)
    if args.json:
        print(term_json(json.dumps(graded_one.out, indent=2, default=str)))
    else:
        _print(graded_one)
    sys.stdout.flush()
    return exit_code(graded_one.verdict)
