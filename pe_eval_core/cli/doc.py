"""`pe-eval doc PATH`: grade any of the producer's documents (exit proof pack, DDQ response,
10-K/CIM red flags, or an explainer memo), its kind told from the file or given with --kind.

Prints the scorecard path, the four scores with their n/total, the lowest dimension and the
first findings; ``--json`` prints the seed's shape with every finding (its kind, the raw text
and where it is). Exit 0 ok, 1 below a threshold, 2 input error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pe_eval_core.cli import ExitCode, Subparsers
from pe_eval_core.cli.store_options import add_store_options, store_target
from pe_eval_core.terminal import term
from pe_eval_core.thresholds import MEMO_MINIMUMS, check_fraction, parse_thresholds
from pe_eval_core.wording import DIMENSION_LABELS, DIMENSIONS, fmt_pct

FINDINGS_SHOWN = 5


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "doc",
        help="grade an exit proof pack, DDQ response, red-flag file or memo against its source",
        description="Grade a PE document against its source and write eval_<name>.html/.json "
        "next to it. The kind comes from the file name or its keys, or --kind.",
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
    p.add_argument("--fail-under", metavar="DIM=X,...", help="exit 1 if a score is below X")
    p.add_argument("--max-hallucination", type=float, metavar="X", help="exit 1 above X")
    add_store_options(p)
    p.set_defaults(func=handle)


def failures_of(
    scores: dict[str, float], fail_under: dict[str, float], max_h: float | None
) -> list[str]:
    """One line per threshold the scores miss."""
    out = [
        f"{DIMENSION_LABELS[k]} {fmt_pct(scores[k])} is below the required {fmt_pct(v)}"
        for k, v in fail_under.items()
        if scores[k] < v - 1e-12
    ]
    if max_h is not None and scores["hallucination_rate"] > max_h + 1e-12:
        out.append(f"Hallucination rate {fmt_pct(scores['hallucination_rate'])} is above {max_h}")
    return out


def _memo(args: argparse.Namespace) -> dict[str, Any]:
    """A memo through the memo grader (its own scorecard pair and history record)."""
    from pe_eval_core.cli.memo import source_named_by_memo
    from pe_eval_core.documents.loading import read_document, resolve_named
    from pe_eval_core.history.store import record_or_warn
    from pe_eval_core.memo.explain import lowest_dimension
    from pe_eval_core.memo.grader import grade_memo
    from pe_eval_core.memo.outputs import write_outputs

    named = read_document(args.path).get("source_opportunity_map")
    source = (
        getattr(args, "source", None)
        or resolve_named(args.path, named)  # beside the memo (by its relative path or name)
        or source_named_by_memo(args.path)
    )
    ev = grade_memo(args.path, source)
    html_path, json_path = write_outputs(ev, args.out_dir)
    out: dict[str, Any] = {"kind": "memo", **ev.seed_dict(html_path, json_path)}
    out["document_id"] = f"{ev.portco_id}/{ev.audience}"
    out["findings"] = [f.model_dump(mode="json") for f in ev.findings]
    out["lowest_dimension"] = dict(zip(("name", "sentence"), lowest_dimension(ev), strict=True))
    out["history_run_id"] = record_or_warn(ev, origin="cli", db=store_target(args))
    return out


def grade_one(args: argparse.Namespace, path: Path, kind: str | None) -> dict[str, Any]:
    """Grade one document of any kind; its seed shape with findings and lowest dimension."""
    from pe_eval_core.documents import (
        document_kind,
        grade_document,
        lowest_dimension,
        write_document_outputs,
    )
    from pe_eval_core.history.document_records import record_document_or_warn

    found = document_kind(path, kind)
    if found.value == "memo":
        args.path = path
        return _memo(args)
    ev = grade_document(
        path,
        kind=found.value,
        source=getattr(args, "source", None),
        bx_corpus=getattr(args, "bx_corpus", None),
    )
    html_path, json_path = write_document_outputs(ev, args.out_dir)
    out = ev.seed_dict(html_path, json_path)
    out["findings"] = [f.model_dump(mode="json") for f in ev.findings]
    out["lowest_dimension"] = dict(zip(("name", "sentence"), lowest_dimension(ev), strict=True))
    out["history_run_id"] = record_document_or_warn(ev, origin="cli", db=store_target(args))
    return out


def _where(f: dict[str, Any]) -> str:
    span = f"[{f['start']}:{f['end']}]" if f.get("start") is not None else ""
    item = f.get("item_id") or f.get("opportunity_id")
    return "/".join(str(x) for x in (item, f.get("field")) if x) + span


def _print(out: dict[str, Any], failures: list[str]) -> None:
    print(f"Eval scorecard ({out['kind']}, {out['document_id']}): {out['report_path']}")
    scores = out["scores"]
    for d in DIMENSIONS:
        print(f"  {DIMENSION_LABELS[d] + ':':<20} {fmt_pct(scores[d]):>7}")
    print(term(out["lowest_dimension"]["sentence"]))
    counted = [
        f for f in out["findings"] if f["kind"] not in ("template_exempt", "unreadable_sibling")
    ]
    if counted:
        print(f"Findings ({len(counted)}):")
        for f in counted[:FINDINGS_SHOWN]:
            print(term(f"  - {f['kind']} [{_where(f)}]: {f['message']}"))
        if len(counted) > FINDINGS_SHOWN:
            print(f"  ... and {len(counted) - FINDINGS_SHOWN} more in the scorecard.")
    for line in failures:
        print(term(f"FAIL: {line}"))


def grade_folder(args: argparse.Namespace, folder: Path) -> tuple[list[dict[str, Any]], int]:
    """Every exit proof pack, DDQ response and red-flag file of a folder: rows and errors."""
    from pe_eval_core.documents import find_documents
    from pe_eval_core.errors import PeEvalError

    rows: list[dict[str, Any]] = []
    errors = 0
    for kind, path in find_documents(folder):
        if kind.value == "memo":
            continue
        try:
            rows.append(grade_one(args, path, kind.value))
        except PeEvalError as exc:
            errors += 1
            rows.append({"kind": kind.value, "document": path.name, "error": exc.message})
    return rows, errors


def print_folder_rows(rows: list[dict[str, Any]], failures: dict[str, list[str]]) -> None:
    """One line per document, like ``memo --all``'s."""
    for row in rows:
        name = f"{row['kind']}/{row.get('document_id') or row.get('document')}"
        if "error" in row:
            print(term(f"{name:<48} ERROR  {row['error']}"))
            continue
        cells = "  ".join(f"{d.split('_')[0]} {fmt_pct(row['scores'][d]):>7}" for d in DIMENSIONS)
        bad = failures.get(row["report_path"], [])
        print(term(f"{name:<48} {cells}  {'FAIL' if bad else 'ok'}"))


def handle(args: argparse.Namespace) -> int:
    fail_under = parse_thresholds(args.fail_under, names=MEMO_MINIMUMS, input="fail_under")
    max_h = None
    if args.max_hallucination is not None:
        max_h = check_fraction(
            args.max_hallucination, what="maximum hallucination rate", input="max_hallucination"
        )
    if args.all:
        rows, errors = grade_folder(args, args.path)
        failures = {
            r["report_path"]: failures_of(r["scores"], fail_under, max_h)
            for r in rows
            if "error" not in r
        }
        if args.json:
            print(json.dumps({"documents": rows}, indent=2))
        else:
            print_folder_rows(rows, failures)
            print(f"{len(rows)} documents in {args.path}: {errors} could not be graded.")
        if errors:
            return ExitCode.CANNOT_EVALUATE
        return ExitCode.BELOW_THRESHOLD if any(failures.values()) else ExitCode.OK
    out = grade_one(args, args.path, args.kind)
    missed = failures_of(out["scores"], fail_under, max_h)
    if args.json:
        out["threshold_failures"] = missed
        print(json.dumps(out, indent=2, default=str))
    else:
        _print(out, missed)
    sys.stdout.flush()
    return ExitCode.BELOW_THRESHOLD if missed else ExitCode.OK
