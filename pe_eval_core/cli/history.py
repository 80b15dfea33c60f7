"""`pe-eval history list|show|compare|delete|pin|unpin|gc` and `pe-eval gate`: run history and
the CI gate on the CLI.

``history compare A B --fail-on-regression`` exits 1 when anything regressed (without A, the
pinned baseline is compared with B, or with the latest run); ``gate`` exits 0 (all checks
pass), 1 (quality below a threshold) or 2 (something could not be evaluated). Every command
reads the history from ``--db FILE``, ``--database-url URL`` or ``$PE_EVAL_DATABASE_URL``.
"""

from __future__ import annotations

import argparse
import json
import sys

from pe_eval_core.cli import ExitCode, Subparsers, add_jobs, flag_for, plain_doc
from pe_eval_core.cli.store_options import add_store_options, store_target
from pe_eval_core.errors import RunNotFoundError
from pe_eval_core.history.compare import (
    compare_runs,
    comparison_to_dict,
    render_comparison_markdown,
)
from pe_eval_core.history.gate import GateRequest, GateVerdict, evaluate_gate
from pe_eval_core.history.records import RunFilters, RunKind, RunRecord, RunSummary
from pe_eval_core.history.store import RunStore
from pe_eval_core.terminal import term, term_json
from pe_eval_core.thresholds import MEMO_BOUNDS, check_fraction, parse_thresholds
from pe_eval_core.wording import fmt_pct

GATE_EXIT_CODES = {
    GateVerdict.PASSED: ExitCode.OK,
    GateVerdict.BELOW_THRESHOLD: ExitCode.BELOW_THRESHOLD,
    GateVerdict.CANNOT_EVALUATE: ExitCode.CANNOT_EVALUATE,
}


def _add_db(parser: argparse.ArgumentParser) -> None:
    add_store_options(parser)


def register(subparsers: Subparsers) -> None:
    """Add the ``history`` and ``gate`` subcommands."""
    history = subparsers.add_parser(
        "history", help="list, show and compare recorded runs", description=plain_doc(__doc__)
    )
    hsub = history.add_subparsers(dest="history_command", required=True, metavar="ACTION")

    ls = hsub.add_parser("list", help="recorded runs, newest first")
    ls.add_argument("--kind", choices=("memo", "scenarios"))
    ls.add_argument("--portco")
    ls.add_argument("--audience")
    ls.add_argument("--scenarios", help="scenarios file the run used")
    ls.add_argument("--target")
    ls.add_argument("--model", help="scenario runs of this target model")
    ls.add_argument("--skill", metavar="PATH", help="scenario runs that followed this skill file")
    ls.add_argument("--limit", type=int, default=20)
    ls.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _add_db(ls)
    ls.set_defaults(func=_list)

    show = hsub.add_parser("show", help="one run with its detail")
    show.add_argument("run", help="run id, 'latest', 'latest~N' or a uid prefix")
    show.add_argument("--json", action="store_true")
    _add_db(show)
    show.set_defaults(func=_show)

    cmp = hsub.add_parser(
        "compare",
        help="what changed from run A to run B",
        description="Compare two runs. With one run, it is compared with the pinned baseline "
        "of its kind; with none, the pinned baseline with the latest run of its kind.",
    )
    cmp.add_argument("run_a", nargs="?", help="the earlier run (id, 'latest~1', uid prefix)")
    cmp.add_argument("run_b", nargs="?", help="the later run (id, 'latest', uid prefix)")
    cmp.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 when anything regressed"
    )
    cmp.add_argument(
        "--kind",
        choices=("memo", "scenarios"),
        help="resolve latest / latest~N among runs of this kind only",
    )
    cmp.add_argument(
        "--allow-unlike",
        action="store_true",
        help="compare scenario runs made with different setups (skill, model, tools, "
        "scenarios, judge); the report says first what differs",
    )
    cmp.add_argument("--json", action="store_true")
    _add_db(cmp)
    cmp.set_defaults(func=_compare)

    rm = hsub.add_parser("delete", help="remove one run and its detail")
    rm.add_argument("run", help="run id, 'latest', 'latest~N' or a uid prefix")
    _add_db(rm)
    rm.set_defaults(func=_delete)

    pin = hsub.add_parser(
        "pin", help="make a run the baseline the gate and compare use when given none"
    )
    pin.add_argument("run", help="run id, 'latest', 'latest~N' or a uid prefix")
    _add_db(pin)
    pin.set_defaults(func=_pin)

    unpin = hsub.add_parser("unpin", help="remove the pinned baseline")
    unpin.add_argument(
        "--kind", choices=("memo", "scenarios"), default="scenarios", help="default: scenarios"
    )
    _add_db(unpin)
    unpin.set_defaults(func=_unpin)

    collect = hsub.add_parser("gc", help="remove stored responses no run references any more")
    _add_db(collect)
    collect.set_defaults(func=_gc)

    gate = subparsers.add_parser(
        "gate",
        help="CI gate: fail when memo scores or scenario pass rates fall below thresholds",
        description="Exit 0: all checks pass. 1: quality below threshold or a regression "
        "against --baseline. 2: could not evaluate (bad input or configuration).",
    )
    gate.add_argument("--data-dir", help="folder of explain_*.json memos and dx_report_*.json")
    gate.add_argument(
        "--memo-thresholds",
        help="minimum memo scores, e.g. citation=1.0,coverage=1.0,consistency=1.0 "
        "(hallucination=X is a maximum)",
    )
    gate.add_argument("--max-hallucination", type=float, help="maximum hallucination rate")
    gate.add_argument(
        "--max-misattributed",
        type=int,
        metavar="N",
        help="maximum mis-attributed figures/entities per memo (they count as cited, so only "
        "this check fails on them)",
    )
    gate.add_argument(
        "--scenario-run", help="a recorded run (id, 'latest', uid) or a scenario run JSON file"
    )
    gate.add_argument("--scenarios", help="scenarios file to score against --responses")
    gate.add_argument("--responses", help="recorded responses JSON for --scenarios")
    gate.add_argument(
        "--judge-verdicts", help="recorded judge verdicts JSON for --scenarios (no network)"
    )
    gate.add_argument(
        "--judge-cache",
        help="judge verdict cache (default $PE_EVAL_HOME/judge_cache.sqlite3; the team store "
        "with --database-url)",
    )
    gate.add_argument(
        "--min-pass-rate",
        help="minimum pass rate per tier, e.g. smoke=1.0,functional=0.9 (overall=X for all)",
    )
    gate.add_argument(
        "--on",
        choices=("rate", "lower"),
        default="rate",
        help="compare --min-pass-rate with the pass rate (default) or with the lower bound of "
        "its 95%% interval",
    )
    gate.add_argument(
        "--baseline",
        help="fail on any scenario that passed in this recorded run and now fails "
        "(default: the pinned scenarios baseline, if any)",
    )
    gate.add_argument(
        "--allow-unlike",
        action="store_true",
        help="check against a baseline made with another setup (skill, model, tools, "
        "scenarios, judge) instead of refusing it",
    )
    gate.add_argument(
        "--yes", action="store_true", help="confirm more than 20 paid judge calls (it costs money)"
    )
    gate.add_argument("--no-record", action="store_true", help="do not record runs in history")
    gate.add_argument(
        "--write-reports", action="store_true", help="also write eval_* scorecards beside memos"
    )
    gate.add_argument("--json", action="store_true", help="print the verdict as JSON")
    add_jobs(gate)
    _add_db(gate)
    gate.set_defaults(func=_gate)


# --- handlers -----------------------------------------------------------------------------


def _existing_store(args: argparse.Namespace) -> RunStore:
    """The history to read; reading never creates a database file."""
    store = RunStore(store_target(args))
    if not store.exists():
        raise RunNotFoundError(f"no run history at {store.location} (nothing recorded yet)")
    return store


def _warn_skipped(store: RunStore) -> None:
    for message in store.warnings:
        print(f"warning: {term(message)}", file=sys.stderr)


def _list(args: argparse.Namespace) -> int:
    store = RunStore(store_target(args))
    if not store.exists():
        print(f"no runs recorded in {term(store.location)}")
        return ExitCode.OK
    filters = RunFilters(
        kind=args.kind,
        portco_id=args.portco,
        audience=args.audience,
        scenarios_path=args.scenarios,
        target=args.target,
        model=args.model,
        skill_path=args.skill,
    )
    runs = store.list_runs(filters, limit=args.limit)
    _warn_skipped(store)
    if args.json:
        print(term_json(json.dumps([r.model_dump(mode="json") for r in runs], indent=2)))
        return ExitCode.OK
    if not runs:
        print(f"no runs recorded in {term(store.location)}")
        return ExitCode.OK
    print(term(format_runs_table(runs)))
    total = store.count_runs(filters)
    if total > len(runs):
        print(f"({len(runs)} of {total} runs shown; use --limit)")
    return ExitCode.OK


def format_runs_table(runs: list[RunSummary]) -> str:
    """A fixed-width table: id, when, kind, subject, headline numbers."""
    rows = [("ID", "CREATED (UTC)", "KIND", "SUBJECT", "RESULT")]
    for r in runs:
        rows.append(
            (
                str(r.id),
                term(r.created_at[:19].replace("T", " ")),
                r.kind,
                term(r.subject),
                term(_headline(r)),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip()
        for row in rows
    )


def _headline(r: RunSummary) -> str:
    if r.kind == "memo":  # the scores as the memo command and the scorecard print them
        return (
            f"citation {fmt_pct(r.citation_accuracy)}  halluc {fmt_pct(r.hallucination_rate)}  "
            f"coverage {fmt_pct(r.coverage)}  consistency {fmt_pct(r.consistency)}"
        )
    if r.infra_error:
        return f"infrastructure error: all {r.n_total} scenarios errored (left out of trends)"
    # errors are left out of the rate (rates.pass_rate), shown apart
    errors = f"; {r.n_errors} error{'s' if r.n_errors != 1 else ''} apart" if r.n_errors else ""
    model = f"  model {r.model}" if r.model else ""
    return f"{r.n_passed}/{r.ran} passed ({r.rate_text}{errors}){model}"


def _show(args: argparse.Namespace) -> int:
    store = _existing_store(args)
    record = store.get_run(args.run)
    _warn_skipped(store)
    if args.json:
        print(term_json(record.model_dump_json(indent=2)))
        return ExitCode.OK
    for line in show_lines(record, pinned=store.pinned_baseline(record.summary.kind)):
        print(term(line))
    return ExitCode.OK


def show_lines(record: RunRecord, *, pinned: int | None = None) -> list[str]:
    """``history show`` as lines of plain text (the caller escapes them for the terminal)."""
    s = record.summary
    mark = ", the pinned baseline" if pinned == s.id else ""
    out = [
        f"run #{s.id} ({s.kind}, uid {s.uid}{mark}) created {s.created_at}, recorded by {s.origin}"
    ]
    out.append(f"  {s.subject}: {_headline(s)}")
    if s.kind == "memo":
        out.append(f"  memo   {s.memo_path}  sha256 {(s.memo_sha256 or '-')[:12]}")
        out.append(f"  source {s.source_path}  sha256 {(s.source_sha256 or '-')[:12]}")
        out.append(f"  grader {s.grader_version}")
        if s.note:
            out.append(f"  consistency: {s.note}")
        out.append(f"  findings ({len(record.findings)}):")
        for f in record.findings:
            where = f"{f.opportunity_id or 'memo'}{'.' + f.field if f.field else ''}"
            out.append(f"    - {f.kind} [{where}] {f.raw!r}: {f.message or ''}".rstrip())
    else:
        out.append(f"  scenarios {s.scenarios_path}  target {s.target}  model {s.model or '-'}")
        for t in record.tiers:
            errors = t.total - t.ran
            apart = f", {errors} error{'s' if errors != 1 else ''} apart" if errors else ""
            out.append(f"  {t.tier}: {t.tally_text}{apart}")
        for r in record.results:
            if r.status != "pass":
                error = f": {r.error}" if r.error else ""
                out.append(f"    - {r.name} ({r.tier}): {r.status}{error}")
    return out


def _compare_refs(store: RunStore, args: argparse.Namespace) -> tuple[int, int]:
    """Run A and run B: as given, or the pinned baseline of the kind and the latest run."""
    if args.run_a is not None and args.run_b is not None:
        return store.resolve(args.run_a, args.kind), store.resolve(args.run_b, args.kind)
    ref_b = args.run_a if args.run_a is not None else "latest"
    b = store.resolve(ref_b, args.kind)
    kind: RunKind = args.kind or store.get_run(b).summary.kind
    if args.kind is None and ref_b == "latest":
        b = store.resolve("latest", kind)
    a = store.pinned_baseline(kind)
    if a is None:
        raise RunNotFoundError(
            f"no {kind} baseline is pinned to compare run {b} with",
            fix="Give the two runs to compare, or pin a baseline run first (history pin).",
        )
    return a, b


def _compare(args: argparse.Namespace) -> int:
    store = _existing_store(args)
    run_a, run_b = _compare_refs(store, args)
    cmp = compare_runs(store, run_a, run_b, allow_unlike=args.allow_unlike)
    infra = [
        f"run #{r.id} is an infrastructure error (every scenario errored): its failures are "
        "not regressions"
        for r in (cmp.a, cmp.b)
        if r.infra_error
    ]
    if args.json:
        data = comparison_to_dict(cmp)
        data["infra_errors"] = infra
        print(term_json(json.dumps(data, indent=2)))
    else:
        for note in infra:
            print(term(f"note: {note}"))
        sys.stdout.write(term(render_comparison_markdown(cmp)))
    if infra:
        return ExitCode.CANNOT_EVALUATE if args.fail_on_regression else ExitCode.OK
    if args.fail_on_regression and cmp.has_regressions:
        return ExitCode.BELOW_THRESHOLD
    return ExitCode.OK


def _delete(args: argparse.Namespace) -> int:
    rid = _existing_store(args).delete_run(args.run)
    print(f"deleted run #{rid} (its stored responses go at the next history gc)")
    return ExitCode.OK


def _pin(args: argparse.Namespace) -> int:
    store = _existing_store(args)
    rid = store.pin_baseline(args.run)
    kind = store.get_run(rid).summary.kind
    print(f"run #{rid} is now the pinned {kind} baseline")
    return ExitCode.OK


def _unpin(args: argparse.Namespace) -> int:
    store = _existing_store(args)
    was = store.unpin_baseline(args.kind)
    print(f"unpinned run #{was} ({args.kind})" if was else f"no {args.kind} baseline was pinned")
    return ExitCode.OK


def _gc(args: argparse.Namespace) -> int:
    done = _existing_store(args).gc()
    print(f"removed {done.blobs_removed} unreferenced blob(s), {done.bytes_removed:,} bytes")
    return ExitCode.OK


def gate_request(args: argparse.Namespace) -> GateRequest:
    """The gate's typed request from the command line (thresholds read by the one parser)."""
    memo = parse_thresholds(args.memo_thresholds, names=MEMO_BOUNDS, input="memo_thresholds")
    if args.max_hallucination is not None:
        memo["hallucination_rate"] = check_fraction(
            args.max_hallucination, what="maximum hallucination rate", input="max_hallucination"
        )
    return GateRequest(
        data_dir=args.data_dir,
        memo_thresholds=memo,
        max_misattributed=args.max_misattributed,
        scenario_run=args.scenario_run,
        scenarios=args.scenarios,
        responses=args.responses,
        judge_verdicts=args.judge_verdicts,
        judge_cache=args.judge_cache or getattr(args, "database_url", None),
        min_pass_rate=parse_thresholds(args.min_pass_rate, input="min_pass_rate"),
        baseline=args.baseline,
        allow_unlike=args.allow_unlike,
        on=args.on,
        confirm=args.yes,
        record=not args.no_record,
        write_reports=args.write_reports,
        jobs=args.jobs,
    )


def _gate(args: argparse.Namespace) -> int:
    result = evaluate_gate(gate_request(args), RunStore(store_target(args)))
    code = GATE_EXIT_CODES[result.verdict]
    if args.json:
        data = result.model_dump(mode="json")
        data["verdict"] = result.verdict.value
        data["exit_code"] = int(code)
        print(term_json(json.dumps(data, indent=2)))
    else:
        sys.stdout.write(term(result.render_text(flag_for, cannot_note=f"(exit {int(code)})")))
    return code
