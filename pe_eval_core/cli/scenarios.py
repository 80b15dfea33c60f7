"""`pe-eval scenarios run|score`: run Mimic scenarios against a target, print the seed's report.

Exit codes: 0 every scenario that ran passed (or the pass rate met ``--min-pass-rate``), 1
otherwise, 2 input or configuration errors (printed with a diagnosis and a fix), and a target
that could not be reached or refused authentication: the run stops after 3 such errors in a
row, nothing is written to ``--out`` (earlier reports stay; the responses are saved under
``$PE_EVAL_HOME/runs/``) and the run is not recorded in history.

Pass rates leave errors out (shown apart by cause). ``--repeat K`` runs every scenario K
times and reports each scenario's pass count, pass@K, pass^K and flakiness, and each tier's
95% interval (Wilson, clustered by source_fact when K > 1). More than 20 paid calls (live
target calls plus judge calls, counted before the run) need ``--yes``.

Judge choice, first match wins: ``--no-judge``; ``--judge-verdicts FILE`` (recorded
verdicts); for recorded responses, a ``judge-verdicts.json`` beside the scenarios file (the
shipped demo verdicts; ``--live-judge`` skips this); the live Anthropic judge with its SQLite
cache when ``ANTHROPIC_API_KEY`` is set; otherwise no judge is available and any scenario
that needs one reports ``judge error`` saying how to configure one.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pe_eval_core.cli import plain_doc
from pe_eval_core.cli.agent_options import (
    add_agent_header,
    add_tool_safety,
    agent_headers,
    mcp_config,
)
from pe_eval_core.cli.scenario_output import (
    OUT_FILES,
    cost_line,
    judge_label,
    note,
    rate_line,
    run_header,
    server_lines,
    write_reports,
)
from pe_eval_core.cli.store_options import add_store_options, store_target
from pe_eval_core.errors import PeEvalError
from pe_eval_core.files import sha256_file
from pe_eval_core.history.recording import record_or_warn
from pe_eval_core.scenarios.agent.loop import McpToolbox
from pe_eval_core.scenarios.agent.mcp_config import MCP_CONFIG_FILE
from pe_eval_core.scenarios.agent.protocol import Target
from pe_eval_core.scenarios.agent.targets import DEFAULT_SKILL
from pe_eval_core.scenarios.llm.pricing import prices
from pe_eval_core.scenarios.loading import load_scenarios
from pe_eval_core.scenarios.models import ScenarioResult, ScenarioRun
from pe_eval_core.scenarios.options import DEFAULTS, RunOptions, run_options
from pe_eval_core.scenarios.run.cost_guard import LIVE_CONFIRM_THRESHOLD
from pe_eval_core.scenarios.run.costs import CostEstimate
from pe_eval_core.scenarios.run.report import render_markdown_report
from pe_eval_core.scenarios.run.report_set import MANIFEST
from pe_eval_core.scenarios.run.runner import (
    count_paid_calls_sync,
    infrastructure_error,
    run_scenarios_sync,
)
from pe_eval_core.scenarios.run.setup import (
    RESPONSES_BESIDE,
    VERDICTS_BESIDE,
    choose_judge,
    make_target,
    make_toolbox,
)
from pe_eval_core.scenarios.scoring.judge import (
    DEFAULT_JUDGE_MODEL,
    FALLBACK_JUDGE_MODEL,
    Judge,
)
from pe_eval_core.terminal import term
from pe_eval_core.wording import target_words, tier_order

if TYPE_CHECKING:  # the Anthropic SDK loads only for a run that batches (``--batch``)
    from pe_eval_core.scenarios.llm.batches import MessageBatcher

DEFAULT_SCENARIOS = Path(".mimic/exports/mimic-scenarios.json")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scenarios",
        help="run Mimic scenarios against an agent and score them",
        description="Run Mimic scenarios against a target agent, score, report by tier.",
    )
    sub = parser.add_subparsers(dest="scenarios_command", required=True, metavar="ACTION")

    run = sub.add_parser(
        "run",
        help="run scenarios against a target and print the report",
        description=plain_doc(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(run)
    run.add_argument(
        "--target",
        choices=("recorded", "anthropic", "http"),
        default="recorded",
        help="the agent under test (default: recorded)",
    )
    run.add_argument(
        "--skill",
        type=Path,
        default=DEFAULT_SKILL,
        help=f"anthropic target: the skill file used as system prompt (default {DEFAULT_SKILL})",
    )
    run.add_argument(
        "--as-of",
        metavar="YYYY-MM-DD",
        help="anthropic target: the analysis date the agent is told (default: the persona's "
        "as_of in the Mimic project's mimic.json, else none)",
    )
    run.add_argument("--agent-url", help="http target: the agent's POST endpoint")
    add_agent_header(run)
    run.add_argument(
        "--model", help="anthropic target model (default $PE_EVAL_MODEL or claude-sonnet-5-5)"
    )
    run.add_argument(
        "--timeout",
        type=float,
        help=f"seconds per call to the agent (default {DEFAULTS.timeout_s:g})",
    )
    run.add_argument(
        "--concurrency",
        type=int,
        help=f"calls in flight at once (default {DEFAULTS.concurrency})",
    )
    run.add_argument(
        "--yes",
        action="store_true",
        help="confirm a run of more than 20 paid calls, target and judge (it costs money)",
    )
    _agent_flags(run)
    run.set_defaults(func=handle_run)

    score = sub.add_parser(
        "score",
        help="re-score recorded responses offline (no target calls)",
        description="Re-score a recorded-responses file (any earlier run's responses.json).",
    )
    _common(score)
    score.add_argument(
        "--yes",
        action="store_true",
        help="confirm more than 20 paid judge calls (it costs money)",
    )
    score.add_argument(
        "--concurrency",
        type=int,
        help=f"judge calls in flight at once (default {DEFAULTS.concurrency})",
    )
    score.set_defaults(func=handle_score, target="recorded")


def _agent_flags(run: argparse.ArgumentParser) -> None:
    """The anthropic target's MCP tools, loop bounds, write policy and cost limit."""
    agent = run.add_argument_group("agent tools (anthropic target)")
    agent.add_argument(
        "--mcp-config",
        type=Path,
        help=f"MCP servers for the agent, Claude Code's format (default ./{MCP_CONFIG_FILE} if "
        "present; `python3 scripts/mimic_stack.py start --mcp-json .mcp.json` writes one)",
    )
    agent.add_argument(
        "--mcp-server",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="add or replace one Streamable HTTP MCP server (repeatable)",
    )
    agent.add_argument(
        "--max-turns",
        type=int,
        help=f"model turns per scenario (default {DEFAULTS.max_turns})",
    )
    agent.add_argument(
        "--max-tool-calls",
        type=int,
        help=f"tool calls per scenario (default {DEFAULTS.max_tool_calls})",
    )
    agent.add_argument(
        "--tool-timeout",
        type=float,
        help=f"seconds per tool call (default {DEFAULTS.tool_timeout_s:g})",
    )
    agent.add_argument(
        "--max-tokens",
        type=int,
        help=f"tokens per model reply; a reply cut there is an error "
        f"(default {DEFAULTS.max_tokens})",
    )
    agent.add_argument(
        "--allow-writes",
        action="store_true",
        help="turn the tool allow-list off: every tool runs, writes too (default: only "
        "Mimic's read tools and --allow-tool names run; anything else is refused and fails)",
    )
    add_tool_safety(agent)
    agent.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop starting new scenarios once the target has spent this much (rest: not run)",
    )


def _common(p: argparse.ArgumentParser) -> None:
    add_store_options(p)
    p.add_argument(
        "--scenarios",
        type=Path,
        default=DEFAULT_SCENARIOS,
        help=f"Mimic scenarios file (default {DEFAULT_SCENARIOS})",
    )
    p.add_argument(
        "--responses",
        type=Path,
        help=f"recorded responses (JSON or JSONL; default {RESPONSES_BESIDE} beside --scenarios)",
    )
    judge = p.add_mutually_exclusive_group()
    judge.add_argument(
        "--no-judge", action="store_true", help="no paraphrase judge: candidate misses stay missed"
    )
    judge.add_argument(
        "--judge-verdicts", type=Path, help="use recorded judge verdicts from this file"
    )
    judge.add_argument(
        "--live-judge",
        action="store_true",
        help=f"use the Anthropic judge even if a {VERDICTS_BESIDE} sits beside the scenarios",
    )
    p.add_argument(
        "--judge-model",
        help=f"judge model (default $PE_EVAL_JUDGE_MODEL, else {DEFAULT_JUDGE_MODEL}, or "
        f"{FALLBACK_JUDGE_MODEL} when that is the target's model; the target's --model does not "
        "change it)",
    )
    p.add_argument(
        "--judge-timeout",
        type=float,
        help=f"seconds per judge call (default {DEFAULTS.judge_timeout_s:g})",
    )
    p.add_argument(
        "--judge-cache",
        type=Path,
        help="judge verdict cache (default $PE_EVAL_HOME/judge_cache.sqlite3, ./.pe_eval/)",
    )
    p.add_argument(
        "--enforce-latency",
        action="store_true",
        help="fail scenarios slower than their max_latency_ms (default: warn)",
    )
    p.add_argument(
        "--min-pass-rate",
        type=_rate,
        help="exit 0 when at least this share passes (0..1, or a percentage like 80%%)",
    )
    p.add_argument("--out", type=Path, help="write report.md/.json/.csv, junit.xml, responses.json")
    p.add_argument(
        "--timestamp",
        type=_timestamp,
        help="fix the run timestamp (ISO-8601), for reproducible reports",
    )
    p.add_argument("--verbose", action="store_true", help="one progress line per scenario (stderr)")
    p.add_argument(
        "--batch",
        action="store_true",
        help="send plain target calls and judge calls through the Message Batches API "
        "(half price, results within hours; progress polled)",
    )
    p.add_argument(
        "--repeat",
        type=_repeat,
        metavar="K",
        help="run every scenario K times: pass@K, pass^K, flaky scenarios, tier intervals",
    )


def _rate(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (or 0%..100%), got {text!r}")
    return value


def _repeat(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text!r}")
    return value


def _timestamp(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO-8601 timestamp: {text!r}") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def handle_score(args: argparse.Namespace) -> int:
    return handle_run(args)


def run_options_of(args: argparse.Namespace) -> RunOptions:
    """The run's options from the flags given (``scenarios run`` or ``scores``); every other
    option is the one default (``pe_eval_core.scenarios.options.DEFAULTS``)."""
    given = vars(args)
    return run_options(
        concurrency=given.get("concurrency"),
        repeat=given.get("repeat"),
        enforce_latency=given.get("enforce_latency") or None,
        timeout_s=given.get("timeout"),
        judge_timeout_s=given.get("judge_timeout"),
        judge_model=given.get("judge_model"),
        max_turns=given.get("max_turns"),
        max_tool_calls=given.get("max_tool_calls"),
        tool_timeout_s=given.get("tool_timeout"),
        max_tokens=given.get("max_tokens"),
        allow_writes=given.get("allow_writes") or None,
        max_cost_usd=given.get("max_cost"),
        batch=given.get("batch") or None,
        as_of=given.get("as_of"),
        allow_tools=given.get("allow_tool") or None,
    )


def handle_run(args: argparse.Namespace) -> int:
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise PeEvalError(
            f"--out {args.out} exists and is not a folder",
            diagnosis="The reports are written as files inside the report folder",
            fix="Name a folder (it is created if missing).",
            input="out",
        )
    options = run_options_of(args)
    prices()  # a bad $PE_EVAL_PRICES file stops here, naming its field, before any call
    scenarios = load_scenarios(args.scenarios)
    tiers = tier_order(s.tier for s in scenarios)
    note(f"Loaded {len(scenarios)} scenarios across {', '.join(tiers)} from {args.scenarios}.")
    for warning in scenarios.warnings:
        note(f"warning: {warning}")
    target = _target(args, options)
    judge = _judge(args, options, target)
    note(f"Target: {target_words(target.name)}. Judge: {judge_label(judge)}.")
    if target.toolbox is not None:
        note("MCP servers: " + "; ".join(server_lines(target.toolbox)) + " (connecting...)")

    def progress(done: int, total: int, result: ScenarioResult) -> None:
        if args.verbose:
            note(f"[{done}/{total}] {result.name}: {result.status}")

    paid = count_paid_calls_sync(scenarios, target, judge, options=options)
    if paid.total:
        need = (
            "" if args.yes or paid.total <= LIVE_CONFIRM_THRESHOLD else "; more than 20 need --yes"
        )
        note(f"{paid.line()}{need}.")
    fixed = args.timestamp
    digest = sha256_file(args.scenarios)
    estimates: list[CostEstimate] = []

    def header() -> CostEstimate:
        return run_header(
            target,
            scenarios,
            options,
            judge=judge,
            scenarios_sha256=digest,
            db=store_target(args),
        )

    run = run_scenarios_sync(
        scenarios,
        target,
        judge=judge,
        options=options,
        batcher=_batcher(options, target, judge),
        progress=progress,
        confirm_live=args.yes,
        scenarios_path=args.scenarios,
        scenarios_sha256=digest,
        save_responses=True,  # under $PE_EVAL_HOME/runs/<id>/; copied to --out on success
        clock=(lambda: fixed) if fixed else None,
        on_ready=(lambda: estimates.append(header())) if target.live else None,
        paid_calls=paid,
    )
    if estimates:  # what the header estimated, for the end line and the report
        run.cost_estimate_usd, run.cost_estimate_basis = estimates[0].usd, estimates[0].basis
    outage = infrastructure_error(run)
    if outage is not None:
        note(f"{run.error_summary()}; no tier or fact was judged.")
        where = f"nothing written to {args.out}/ (earlier reports kept); " if args.out else ""
        note(f"{where}responses saved to {run.responses_path}; not recorded in history.")
        raise outage
    report = render_markdown_report(run)
    if args.out is not None:
        write_reports(run, report, args.out)
        note(f"Reports written to {args.out}/ ({', '.join([*OUT_FILES.values(), MANIFEST])}).")
    else:
        note(f"Responses saved to {run.responses_path} (re-score with `scenarios score`).")
    run_id = record_or_warn(run, origin="cli", db=store_target(args))
    note(rate_line(run))
    note(cost_line(run))
    if run_id is not None:
        note(
            f"Recorded in history as run {run_id} (`python -m pe_eval_core history show {run_id}`)."
        )
    sys.stdout.write(term(report))  # no control sequence from a response reaches the terminal
    sys.stdout.flush()
    return _exit_code(run, args.min_pass_rate)


def _batcher(options: RunOptions, target: Target, judge: Judge | None) -> MessageBatcher | None:
    """With ``--batch``: a batcher that reports its progress here, for the parties whose calls
    it can carry (the runner attaches them and lets their calls wait in one batch)."""
    if not options.batch:
        return None
    parties = [
        n for n, p in (("target", target), ("judge", judge)) if p is not None and p.batchable
    ]
    if not parties:
        note("Batch: no plain Anthropic target or live judge in this run; calls made directly.")
        return None
    note(f"Batching {' and '.join(parties)} calls through the Message Batches API (half price).")
    from pe_eval_core.scenarios.llm.batches import MessageBatcher

    return MessageBatcher(progress=note)


def _exit_code(run: ScenarioRun, min_pass_rate: float | None) -> int:
    """0 when every scenario run passed, or the pass rate (errors left out) meets
    ``min_pass_rate`` and no scenario was left without a judge verdict; else 1."""
    if run.total and run.passed == run.total:
        return 0
    undecided = any(r.status == "judge error" for r in run.results)  # could have failed
    if min_pass_rate is not None and run.pass_rate >= min_pass_rate and not undecided:
        return 0
    return 1


def _toolbox(args: argparse.Namespace, options: RunOptions) -> McpToolbox | None:
    """The anthropic target's MCP servers (``--mcp-config``/``.mcp.json`` + ``--mcp-server``)."""
    if args.target != "anthropic":
        return None
    return make_toolbox(mcp_config(args), options)


def _target(args: argparse.Namespace, options: RunOptions | None = None) -> Target:
    options = options or run_options_of(args)
    given = vars(args)
    return make_target(
        args.target,
        scenarios_path=args.scenarios,
        responses=args.responses,
        skill=given.get("skill", DEFAULT_SKILL),
        model=given.get("model"),
        agent_url=given.get("agent_url"),
        toolbox=_toolbox(args, options),
        options=options,
        agent_headers=agent_headers(given.get("agent_header") or []),
    )


def _judge(
    args: argparse.Namespace, options: RunOptions | None = None, target: Target | None = None
) -> Judge | None:
    options = options or run_options_of(args)
    return choose_judge(
        scenarios_path=args.scenarios,
        use_judge=not args.no_judge,
        verdicts=args.judge_verdicts,
        recorded_target=args.target == "recorded",
        live_judge=args.live_judge,
        # the judge's own model is options.judge_model, never the target's --model
        target_model=vars(args).get("model") if args.target == "anthropic" else None,
        cache=args.judge_cache or vars(args).get("database_url"),
        options=options,
        target=target,
    )
