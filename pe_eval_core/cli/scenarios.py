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
import json
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from pe_eval_core.cli import plain_doc
from pe_eval_core.cli.agent_options import (
    add_agent_header,
    add_tool_safety,
    agent_headers,
    mcp_config,
)
from pe_eval_core.cli.store_options import add_store_options, store_target
from pe_eval_core.errors import PeEvalError
from pe_eval_core.files import sha256_file, utf8
from pe_eval_core.history.store import record_or_warn
from pe_eval_core.scenarios.agent_loop import AgentBounds, McpToolbox
from pe_eval_core.scenarios.batches import MessageBatcher
from pe_eval_core.scenarios.cost import approx_tokens, estimate_run_cost
from pe_eval_core.scenarios.judge import Judge, RecordedJudge, UnavailableJudge
from pe_eval_core.scenarios.judge_cache import CachedJudge
from pe_eval_core.scenarios.loading import load_scenarios
from pe_eval_core.scenarios.mcp_config import MCP_CONFIG_FILE
from pe_eval_core.scenarios.models import ScenarioResult, ScenarioRun
from pe_eval_core.scenarios.report import (
    render_markdown_report,
    run_to_csv,
    run_to_json,
    run_to_junit_xml,
)
from pe_eval_core.scenarios.report_set import MANIFEST, write_report_set
from pe_eval_core.scenarios.runner import (
    count_paid_calls_sync,
    infrastructure_error,
    run_scenarios_sync,
)
from pe_eval_core.scenarios.setup import (
    RESPONSES_BESIDE,
    VERDICTS_BESIDE,
    choose_judge,
    make_target,
)
from pe_eval_core.scenarios.targets import DEFAULT_SKILL, AnthropicTarget, Target
from pe_eval_core.scenarios.tool_policy import ToolPolicy
from pe_eval_core.terminal import term
from pe_eval_core.wording import tier_order

DEFAULT_SCENARIOS = Path(".mimic/exports/mimic-scenarios.json")

OUT_FILES = {
    "markdown": "report.md",
    "json": "report.json",
    "csv": "report.csv",
    "junit": "junit.xml",
    "responses": "responses.json",
}


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
    run.add_argument("--agent-url", help="http target: the agent's POST endpoint")
    add_agent_header(run)
    run.add_argument(
        "--model", help="anthropic target model (default $PE_EVAL_MODEL or claude-sonnet-5-5)"
    )
    run.add_argument(
        "--timeout", type=float, default=120.0, help="per-call timeout in seconds (default 120)"
    )
    run.add_argument(
        "--concurrency", type=int, default=3, help="calls in flight at once (default 3)"
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
    score.set_defaults(func=handle_score, target="recorded", concurrency=8)


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
        "--max-turns", type=int, default=12, help="model turns per scenario (default 12)"
    )
    agent.add_argument(
        "--max-tool-calls", type=int, default=40, help="tool calls per scenario (default 40)"
    )
    agent.add_argument(
        "--tool-timeout", type=float, default=30.0, help="seconds per tool call (default 30)"
    )
    agent.add_argument(
        "--max-tokens",
        type=int,
        default=4096,
        help="tokens per model reply; a reply cut there is an error (default 4096)",
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
        help="judge model (default $PE_EVAL_JUDGE_MODEL, else $PE_EVAL_MODEL or claude-sonnet-5-5;"
        " the target's --model does not change it)",
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
        default=1,
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


def handle_run(args: argparse.Namespace) -> int:
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise PeEvalError(
            f"--out {args.out} exists and is not a folder",
            diagnosis="The reports are written as files inside the report folder",
            fix="Name a folder (it is created if missing).",
            input="out",
        )
    scenarios = load_scenarios(args.scenarios)
    tiers = tier_order(s.tier for s in scenarios)
    _note(f"Loaded {len(scenarios)} scenarios across {', '.join(tiers)} from {args.scenarios}.")
    for warning in getattr(scenarios, "warnings", ()):
        _note(f"warning: {warning}")
    target = _target(args)
    judge = _judge(args)
    _note(f"Target: {target.name}. Judge: {_judge_label(judge)}.")
    toolbox = getattr(target, "toolbox", None)
    if toolbox is not None:
        _note("MCP servers: " + "; ".join(_server_lines(toolbox)) + " (connecting...)")

    def progress(done: int, total: int, result: ScenarioResult) -> None:
        if args.verbose:
            _note(f"[{done}/{total}] {result.name}: {result.status}")

    paid = count_paid_calls_sync(scenarios, target, judge, repeat=args.repeat)
    if paid.total:
        half = "; batched, about half that" if getattr(args, "batch", False) else ""
        need = "" if args.yes or paid.total <= 20 else "; more than 20 need --yes"
        _note(f"{paid.line()}{half}{need}.")
    fixed = args.timestamp
    batcher, concurrency = _batcher(args, target, judge, len(scenarios) * args.repeat)
    run = run_scenarios_sync(
        scenarios,
        target,
        judge=judge,
        concurrency=concurrency,
        batcher=batcher,
        progress=progress,
        enforce_latency=args.enforce_latency,
        confirm_live=args.yes,
        scenarios_path=args.scenarios,
        scenarios_sha256=sha256_file(args.scenarios),
        save_responses=True,  # under $PE_EVAL_HOME/runs/<id>/; copied to --out on success
        clock=(lambda: fixed) if fixed else None,
        max_cost_usd=getattr(args, "max_cost", None),
        on_ready=(lambda: _run_header(target, len(scenarios), args)) if target.live else None,
        repeat=args.repeat,
        paid_calls=paid,
    )
    outage = infrastructure_error(run)
    if outage is not None:
        _note(f"{run.error_summary()}; no tier or fact was judged.")
        where = f"nothing written to {args.out}/ (earlier reports kept); " if args.out else ""
        _note(f"{where}responses saved to {run.responses_path}; not recorded in history.")
        raise outage
    report = render_markdown_report(run)
    if args.out is not None:
        _write_reports(run, report, args.out)
        _note(f"Reports written to {args.out}/ ({', '.join([*OUT_FILES.values(), MANIFEST])}).")
    else:
        _note(f"Responses saved to {run.responses_path} (re-score with `scenarios score`).")
    run_id = record_or_warn(run, origin="cli", db=store_target(args))
    _note(_cost_line(run))
    if run_id is not None:
        _note(
            f"Recorded in history as run {run_id} (`python -m pe_eval_core history show {run_id}`)."
        )
    sys.stdout.write(term(report))  # no control sequence from a response reaches the terminal
    sys.stdout.flush()
    return _exit_code(run, args.min_pass_rate)


def _batcher(
    args: argparse.Namespace, target: Target, judge: Judge | None, runs: int
) -> tuple[MessageBatcher | None, int]:
    """With ``--batch``: the batcher for the plain Anthropic target and the live judge, and a
    concurrency that lets every scenario's call wait in the same batch (an HTTP agent keeps
    its own concurrency: only its judge calls are batched)."""
    if not getattr(args, "batch", False):
        return None, args.concurrency
    from pe_eval_core.scenarios.anthropic_client import AnthropicClientOwner
    from pe_eval_core.scenarios.batches import MessageBatcher

    owners = [
        o
        for o in (target, getattr(judge, "inner", judge))
        if isinstance(o, AnthropicClientOwner) and getattr(o, "toolbox", None) is None
    ]
    if not owners:
        _note("Batch: no plain Anthropic target or live judge in this run; calls made directly.")
        return None, args.concurrency
    batcher = MessageBatcher(owners[0]._new_client, progress=_note)
    batchable_target = not target.live or target in owners
    concurrency = max(args.concurrency, runs) if batchable_target else args.concurrency
    what = " and ".join(
        name
        for name, owner in (("target", target), ("judge", getattr(judge, "inner", judge)))
        if owner in owners
    )
    _note(f"Batching {what} calls through the Message Batches API.")
    return batcher, concurrency


def _exit_code(run: ScenarioRun, min_pass_rate: float | None) -> int:
    """0 when every scenario run passed, or the pass rate (errors left out) meets
    ``min_pass_rate`` and no scenario was left without a judge verdict; else 1."""
    if run.total and run.passed == run.total:
        return 0
    undecided = any(r.status == "judge error" for r in run.results)  # could have failed
    if min_pass_rate is not None and run.pass_rate >= min_pass_rate and not undecided:
        return 0
    return 1


def _write_reports(run: ScenarioRun, markdown: str, out: Path) -> None:
    """The reports and the responses (copied from where the run saved them) into ``out``, as
    one unit with its manifest (``scenarios.report_set``): a kill never leaves two runs mixed."""
    files: dict[str, bytes] = {}
    if run.responses_path is not None:
        files[OUT_FILES["responses"]] = Path(run.responses_path).read_bytes()
        run.responses_path = str((out / OUT_FILES["responses"]).resolve())
    files[OUT_FILES["markdown"]] = utf8(markdown)
    files[OUT_FILES["json"]] = utf8(run_to_json(run))
    files[OUT_FILES["csv"]] = utf8(run_to_csv(run))
    files[OUT_FILES["junit"]] = utf8(run_to_junit_xml(run))
    write_report_set(out, files, run.run_id)


def _server_lines(toolbox: McpToolbox) -> list[str]:
    return [f"{s.name} ({s.type} {s.where})" for s in toolbox.servers]


def _run_header(target: Target, count: int, args: argparse.Namespace) -> None:
    """Before the first scenario of a live run: the attached servers, the policy, the estimate."""
    toolbox: McpToolbox | None = getattr(target, "toolbox", None)
    prefix = approx_tokens(getattr(target, "system_prompt", ""))
    if toolbox is not None:
        counts = Counter(spec.server for spec in toolbox.tools.values())
        _note(
            "Attached MCP servers: "
            + ", ".join(f"{name} ({counts.get(name, 0)} tools)" for name in toolbox.server_names)
        )
        _note(f"Tool policy: {toolbox.policy.describe()}.")
        prefix += approx_tokens(json.dumps(toolbox.tool_definitions(cache=False)))
    elif isinstance(target, AnthropicTarget):
        _note("Attached MCP servers: none (no .mcp.json and no --mcp-server): no tools.")
    estimate = estimate_run_cost(target.model, scenarios=count, prefix_tokens=prefix)
    limit = getattr(args, "max_cost", None)
    _note(estimate.line() + (f"; --max-cost ${limit:g}." if limit is not None else "."))


def _toolbox(args: argparse.Namespace) -> McpToolbox | None:
    """The anthropic target's MCP servers (``--mcp-config``/``.mcp.json`` + ``--mcp-server``)."""
    if getattr(args, "target", None) != "anthropic":
        return None
    config = mcp_config(args)
    if not config.servers:
        return None
    policy = ToolPolicy(allow=tuple(args.allow_tool), allow_writes=args.allow_writes)
    return McpToolbox(config, policy)


def _bounds(args: argparse.Namespace) -> AgentBounds | None:
    if getattr(args, "target", None) != "anthropic":
        return None
    return AgentBounds(
        max_turns=args.max_turns,
        max_tool_calls=args.max_tool_calls,
        tool_timeout_s=args.tool_timeout,
        max_tokens=args.max_tokens,
    )


def _target(args: argparse.Namespace) -> Target:
    return make_target(
        args.target,
        scenarios_path=args.scenarios,
        responses=args.responses,
        skill=getattr(args, "skill", DEFAULT_SKILL),
        model=getattr(args, "model", None),
        agent_url=getattr(args, "agent_url", None),
        timeout_s=getattr(args, "timeout", 120.0),
        toolbox=_toolbox(args),
        bounds=_bounds(args),
        agent_headers=agent_headers(getattr(args, "agent_header", None) or []),
    )


def _judge(args: argparse.Namespace) -> Judge | None:
    return choose_judge(
        scenarios_path=args.scenarios,
        use_judge=not args.no_judge,
        verdicts=args.judge_verdicts,
        recorded_target=args.target == "recorded",
        live_judge=args.live_judge,
        judge_model=args.judge_model,  # the judge's own model, never the target's --model
        target_model=getattr(args, "model", None) if args.target == "anthropic" else None,
        cache=args.judge_cache or getattr(args, "database_url", None),
        timeout_s=getattr(args, "timeout", 60.0),
    )


def _judge_label(judge: Judge | None) -> str:
    if judge is None:
        return "none (--no-judge)"
    if isinstance(judge, RecordedJudge):
        return f"{judge.model} from {judge.path} ({judge.label})"
    if isinstance(judge, UnavailableJudge):
        return "unavailable (no ANTHROPIC_API_KEY; scenarios that need one report judge error)"
    if isinstance(judge, CachedJudge):
        return f"{judge.model}, prompt {judge.prompt_version}, cache {judge.location}"
    return judge.model


def _cost_line(run: ScenarioRun) -> str:
    cost = "unknown" if run.estimated_cost_usd is None else f"${run.estimated_cost_usd:.4f}"
    return (
        f"Tokens: target {run.tokens_in} in / {run.tokens_out} out; judge "
        f"{run.judge_tokens_in} in / {run.judge_tokens_out} out in {run.judge_calls} calls; "
        f"estimated cost {cost}."
    )


def _note(line: str) -> None:
    print(term(line), file=sys.stderr)
