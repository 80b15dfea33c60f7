"""`pe-eval memo ...`: grade a memo from the shell and gate CI on its scores.

Prints what the seed's "When you finish" asks for: the scorecard path, the four scores with
their n/total, and the lowest dimension in one sentence; then the verdict
(``pe_eval_core.memo.verdict``), under ``--fail-under`` / ``--max-hallucination`` where given.
Exit 0 ready to circulate, 1 not ready, 2 input error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pe_eval_core.cli import ExitCode, Subparsers, add_jobs
from pe_eval_core.cli.store_options import add_store_options, store_target
from pe_eval_core.errors import UsageError
from pe_eval_core.files import shown_path
from pe_eval_core.memo.explain import lowest_dimension, score_lines
from pe_eval_core.memo.outputs import write_outputs
from pe_eval_core.memo.pairs import allowed_roots_from_env, resolve_pair, scan_memo_pairs
from pe_eval_core.memo.result import MemoEvaluation
from pe_eval_core.memo.verdict import (
    NOT_COUNTED,
    Verdict,
    VerdictThresholds,
    memo_verdict,
    verdict_lines,
)
from pe_eval_core.terminal import term, term_json
from pe_eval_core.thresholds import MEMO_MINIMUMS, check_fraction, parse_thresholds
from pe_eval_core.wording import DIMENSIONS, count_of


def parse_fail_under(spec: str | None) -> dict[str, float]:
    """``"citation=1.0,coverage=0.9"`` -> ``{"citation_accuracy": 1.0, "coverage": 0.9}``.

    >>> parse_fail_under("citation=1.0, coverage=0.9")
    {'citation_accuracy': 1.0, 'coverage': 0.9}
    """
    return parse_thresholds(spec, names=MEMO_MINIMUMS, input="fail_under")


def verdict_thresholds(
    fail_under: dict[str, float], max_hallucination: float | None
) -> VerdictThresholds:
    """``--fail-under`` and ``--max-hallucination`` as the verdict's thresholds (the pass band
    for every dimension they leave out; no mis-attribution allowed)."""
    bounds = dict(fail_under)
    if max_hallucination is not None:
        bounds["hallucination_rate"] = max_hallucination
    return VerdictThresholds.from_bounds(bounds)


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "memo",
        help="grade a memo sidecar against its OpportunityMap",
        description="Grade explain_<portco>_<audience>.json against dx_report_<portco>.json "
        "and write eval_<portco>_<audience>.html/.json next to the memo.",
    )
    p.add_argument("portco", nargs="?", help="portco id, e.g. MortgageCo (omit to list pairs)")
    p.add_argument("--audience", default="board", help="memo audience (default: board)")
    p.add_argument("--memo", type=Path, help="memo sidecar path (instead of a portco name)")
    p.add_argument(
        "--source",
        type=Path,
        help="OpportunityMap path (default: the memo's source_opportunity_map)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=Path("finance_output"),
        help="folder of memos and sources (default: finance_output)",
    )
    p.add_argument(
        "--out-dir", type=Path, help="write the scorecard here instead of next to the memo"
    )
    p.add_argument("--list", action="store_true", help="list the memo/source pairs and exit")
    p.add_argument(
        "--all",
        action="store_true",
        help="grade every pair in --data-dir: one line per memo and a summary",
    )
    add_jobs(p)
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    add_verdict_options(p)
    add_store_options(p)
    p.set_defaults(func=handle)


def add_verdict_options(p: argparse.ArgumentParser) -> None:
    """``--fail-under`` and ``--max-hallucination``: the verdict's thresholds (``memo`` and
    ``doc``; read back by :func:`cli_thresholds`)."""
    p.add_argument(
        "--fail-under",
        metavar="DIM=X,...",
        help="the verdict's minimum score for each dimension named (others must be perfect), "
        "e.g. citation=0.95,coverage=1.0; exit 1 when the verdict is not ready",
    )
    p.add_argument(
        "--max-hallucination",
        type=float,
        metavar="X",
        help="the verdict's maximum hallucination rate (default 0)",
    )


def _list(args: argparse.Namespace) -> int:
    pairs, skipped = scan_memo_pairs(args.data_dir)
    for s in skipped:
        print(f"skipped {term(s.path.name)}: {term(s.reason)}", file=sys.stderr)
    if args.json:
        print(
            term_json(
                json.dumps(
                    [
                        {
                            "portco_id": p.portco_id,
                            "audience": p.audience,
                            "memo_path": str(p.memo_path),
                            "source_path": str(p.source_path),
                            "source_exists": p.source_exists,
                        }
                        for p in pairs
                    ],
                    indent=2,
                )
            )
        )
        return ExitCode.OK
    if not pairs:
        print(f"No explain_*.json memos in {args.data_dir}.")
        return ExitCode.OK
    print(f"Memo/source pairs in {args.data_dir}:")
    for p in pairs:
        missing = "" if p.source_exists else "   (source missing)"
        print(term(f"  {p.portco_id:<24} {p.audience:<10} {p.memo_path.name}{missing}"))
    return ExitCode.OK


INFORMATIONAL_KINDS = NOT_COUNTED
"""Findings the CLI leaves to the scorecard (the verdict's ``NOT_COUNTED``)."""

FINDINGS_SHOWN = 5
"""The CLI is a pointer to the scorecard: name the first few offending figures, not all."""


def _print_findings(ev: MemoEvaluation) -> None:
    """List the findings that count against a score (exempt and unreadable notes stay in the
    scorecard), each naming the offending text, so the chat output surfaces what is wrong."""
    shown = [f for f in ev.findings if f.kind not in INFORMATIONAL_KINDS]
    if not shown:
        return
    print(f"Findings ({len(shown)}):")
    for f in shown[:FINDINGS_SHOWN]:
        where = "/".join(x for x in (f.opportunity_id, f.field) if x)
        print(term(f"  - {f.kind}{f' [{where}]' if where else ''}: {f.message}"))
    if len(shown) > FINDINGS_SHOWN:
        print(f"  ... and {len(shown) - FINDINGS_SHOWN} more in the scorecard.")


def source_named_by_memo(memo_path: Path) -> Path:
    """The OpportunityMap a memo says it was drawn from (``source_opportunity_map``), confined
    to the memo's folder and ``$PE_EVAL_ALLOWED_ROOTS`` (``memo.pairs.named_source``)."""
    from pe_eval_core.memo.pairs import named_source

    return named_source(memo_path, allowed_roots_from_env())


def _print_text(ev: MemoEvaluation, html_path: Path, verdict: Verdict, run_id: int | None) -> None:
    print(f"Eval scorecard: {html_path}")
    for line in score_lines(ev):
        print(term(line))
    for line in verdict_lines(verdict):
        print(term(line))
    _print_findings(ev)
    if run_id is not None:
        print(
            f"Recorded in history as run {run_id} (`python -m pe_eval_core history show {run_id}`)."
        )
    for line in verdict.failures:
        print(term(f"FAIL: {line}"))


def cli_thresholds(args: argparse.Namespace) -> tuple[dict[str, float], float | None]:
    """``--fail-under`` and ``--max-hallucination``, checked."""
    fail_under = parse_fail_under(args.fail_under)
    max_h = None
    if args.max_hallucination is not None:
        max_h = check_fraction(
            args.max_hallucination, what="maximum hallucination rate", input="max_hallucination"
        )
    return fail_under, max_h


def handle(args: argparse.Namespace) -> int:
    from pe_eval_core.memo.grader import grade_memo

    fail_under, max_h = cli_thresholds(args)
    if args.list:
        return _list(args)
    if args.all:
        return _grade_all(args, fail_under, max_h)
    if args.source is not None and args.memo is None:
        raise UsageError("--source needs --memo (the memo to grade against it)")
    if args.memo is not None and args.source is None:
        args.source = source_named_by_memo(Path(args.memo))
    if args.memo is not None:
        if args.portco:
            raise UsageError("give either a portco name or --memo/--source, not both")
        memo_path, source_path = args.memo, args.source
    elif args.portco:
        pair = resolve_pair(args.data_dir, args.portco, args.audience)
        memo_path, source_path = pair.memo_path, pair.source_path
    else:
        return _list(args)

    from pe_eval_core.history.store import record_or_warn  # SQLAlchemy: only when recording

    ev = grade_memo(memo_path, source_path)
    thresholds = verdict_thresholds(fail_under, max_h)
    html_path, json_path = write_outputs(ev, args.out_dir, thresholds)
    run_id = record_or_warn(ev, origin="cli", db=store_target(args))
    verdict = memo_verdict(ev, thresholds)
    if args.json:
        lowest_name, sentence = lowest_dimension(ev)
        out: dict[str, object] = dict(ev.seed_dict(html_path, json_path))
        out["lowest_dimension"] = {"name": lowest_name, "sentence": sentence}
        out["threshold_failures"] = verdict.failures
        out["verdict"] = verdict.summary(ev).model_dump()
        out["history_run_id"] = run_id
        print(term_json(json.dumps(out, indent=2)))
    else:
        _print_text(ev, html_path, verdict, run_id)
    return exit_code(verdict)


def exit_code(verdict: Verdict) -> ExitCode:
    """1 exactly when the verdict is not ready, else 0."""
    return ExitCode.OK if verdict.ready else ExitCode.BELOW_THRESHOLD


def _grade_all(args: argparse.Namespace, fail_under: dict[str, float], max_h: float | None) -> int:
    """``memo --all``: every pair of the folder graded on ``--jobs`` processes."""
    from pe_eval_core.history.store import record_many_or_warn
    from pe_eval_core.memo.batch import grade_pairs
    from pe_eval_core.memo.folder_index import FolderIndex

    if args.portco or args.memo is not None or args.source is not None:
        raise UsageError("--all grades the whole --data-dir: give no portco, --memo or --source")
    pairs, skipped = scan_memo_pairs(args.data_dir)
    for s in skipped:  # named, never fatal: the rest of the folder is still graded
        print(f"skipped {term(s.path.name)}: {term(s.reason)}", file=sys.stderr)
    items = grade_pairs(pairs, FolderIndex.scan(Path(args.data_dir)), jobs=args.jobs)
    thresholds = verdict_thresholds(fail_under, max_h)
    rows: list[dict[str, object]] = []
    graded_ok: list[MemoEvaluation] = []
    n_fail = n_error = 0
    for item in items:
        name = f"{item.pair.portco_id}/{item.pair.audience}"
        if item.error is not None:
            n_error += 1
            rows.append({"memo": name, "error": item.error.message, "fix": item.error.fix})
            if not args.json:
                print(term(f"{name:<32} ERROR  {item.error.message}"))
            continue
        ev = item.evaluation
        assert ev is not None
        html_path, _ = write_outputs(ev, args.out_dir, thresholds)
        graded_ok.append(ev)
        verdict = memo_verdict(ev, thresholds)
        summary = verdict.summary(ev)
        n_fail += not verdict.ready
        rows.append(
            {
                "memo": name,
                "scores": ev.scores.model_dump(),
                "scorecard": str(html_path),
                "threshold_failures": verdict.failures,
                "verdict": summary.model_dump(),
            }
        )
        if not args.json:
            cells = "  ".join(f"{d.split('_')[0]} {summary.scores[d]:>7}" for d in DIMENSIONS)
            print(term(f"{name:<32} {cells}  {verdict.headline}"))
    record_many_or_warn(graded_ok, origin="cli", db=store_target(args))  # one transaction
    documents, doc_line, doc_errors, doc_fail = _grade_other_documents(args, thresholds)
    graded = len(items) - n_error
    line = (
        f"{count_of(len(items), 'memo')} in {args.data_dir}: "
        f"{graded:,} graded, {graded - n_fail:,} ready to circulate, {n_fail:,} not ready, "
        f"{n_error:,} could not be graded"
        + (f", {count_of(len(skipped), 'file')} skipped." if skipped else ".")
        + doc_line
    )
    n_error += doc_errors
    n_fail += doc_fail
    if args.json:
        skips = [{"path": shown_path(s.path), "reason": s.reason} for s in skipped]
        out = {"memos": rows, "documents": documents, "skipped": skips, "summary": line}
        print(term_json(json.dumps(out, indent=2)))
    else:
        print(line)
    if n_error:
        return ExitCode.CANNOT_EVALUATE
    return ExitCode.BELOW_THRESHOLD if n_fail else ExitCode.OK


def _grade_other_documents(
    args: argparse.Namespace, thresholds: VerdictThresholds
) -> tuple[list[dict[str, object]], str, int, int]:
    """``memo --all`` grades every other document kind of the folder too (exit proof packs,
    DDQ responses, red flags), each by its verdict under the same thresholds (a line each
    unless ``--json``): their rows, the summary's sentence on them, errors and not ready."""
    from pe_eval_core.cli.doc import folder_json, grade_folder, not_ready, print_folder_rows

    graded, errors = grade_folder(args, Path(args.data_dir), thresholds)
    if not args.json:
        print_folder_rows(graded)
    n_fail = not_ready(graded)
    n_doc = len(graded) - errors
    line = (
        f" {count_of(len(graded), 'other document')}: {n_doc:,} graded, "
        f"{n_doc - n_fail:,} ready to circulate, {n_fail:,} not ready, "
        f"{errors:,} could not be graded."
        if graded
        else ""
    )
    return folder_json(graded), line, errors, n_fail
