"""What `pe-eval scenarios` prints and writes besides the report: the notes on stderr (the
judge, the MCP servers, the pre-run estimate, the token and cost line) and the report folder."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pe_eval_core.errors import PeEvalError
from pe_eval_core.files import utf8
from pe_eval_core.rates import tally_text
from pe_eval_core.scenarios.agent.loop import McpToolbox
from pe_eval_core.scenarios.agent.protocol import Target
from pe_eval_core.scenarios.models import Scenario, ScenarioRun
from pe_eval_core.scenarios.models.manifest import RunManifest
from pe_eval_core.scenarios.options import RunOptions
from pe_eval_core.scenarios.run.costs import (
    CostEstimate,
    ObservedUsage,
    approx_tokens,
    estimate_run_cost,
    estimate_versus,
)
from pe_eval_core.scenarios.run.manifest import build_manifest
from pe_eval_core.scenarios.run.notices import toolbox_notices
from pe_eval_core.scenarios.run.report import run_to_csv, run_to_json, run_to_junit_xml
from pe_eval_core.scenarios.run.report_set import write_report_set
from pe_eval_core.scenarios.scoring.judge import Judge
from pe_eval_core.terminal import term

OUT_FILES = {
    "markdown": "report.md",
    "json": "report.json",
    "csv": "report.csv",
    "junit": "junit.xml",
    "responses": "responses.json",
}


def note(line: str) -> None:
    """One line on stderr, escaped for the terminal."""
    print(term(line), file=sys.stderr)


def judge_label(judge: Judge | None) -> str:
    """The run header's judge: what it is and where its verdicts come from (by its kind)."""
    if judge is None:
        return "none (--no-judge)"
    unavailable = "unavailable (no ANTHROPIC_API_KEY; scenarios that need one report judge error)"
    return {
        "recorded": f"{judge.model} from {judge.source}",  # the file's name (its label)
        "unavailable": unavailable,
        "cache only": unavailable,
        "live": f"{judge.model}, prompt {judge.prompt_version}, cache {judge.source}",
    }.get(judge.kind, judge.model)


def server_lines(toolbox: McpToolbox) -> list[str]:
    return [f"{s.name} ({s.type} {s.where})" for s in toolbox.servers]


def run_header(
    target: Target,
    scenarios: Sequence[Scenario],
    options: RunOptions,
    *,
    judge: Judge | None = None,
    scenarios_sha256: str | None = None,
    db: str | None = None,
) -> CostEstimate:
    """Before the first scenario of a live run: the attached servers, the policy (and that
    writes persist, with --allow-writes), expected tools no server offers, the analysis date
    and the estimate, which it returns (the end line compares the actual cost with it). The
    estimate multiplies by the repeats and uses the turns and tokens of the last recorded run
    of the same setup (``history.observed``), else says what it assumed."""
    count = len(scenarios)
    toolbox = target.toolbox
    prefix = approx_tokens(target.system_prompt)
    if toolbox is not None:
        counts = Counter(spec.server for spec in toolbox.tools.values())
        note(
            "Attached MCP servers: "
            + ", ".join(f"{name} ({counts.get(name, 0)} tools)" for name in toolbox.server_names)
        )
        note(f"Tool policy: {toolbox.policy.describe()}.")
        for notice in toolbox_notices(scenarios, target):
            note(f"warning: {notice}")
        prefix += approx_tokens(json.dumps(toolbox.tool_definitions(cache=False)))
    elif target.model is not None and target.system_prompt:
        note("Attached MCP servers: none (no .mcp.json and no --mcp-server): no tools.")
    if target.model is not None and target.system_prompt:
        as_of = getattr(target, "as_of", None)
        note(
            f"Analysis date: {as_of.iso} (from {as_of.source})."
            if as_of is not None
            else "Analysis date: none given (no --as-of, no persona as_of in mimic.json)."
        )
    manifest = build_manifest(
        target,
        judge,
        target_label=target.label,
        scenarios_sha256=scenarios_sha256,
        repeats=options.repeat,
    )
    estimate = estimate_run_cost(
        target.model,
        scenarios=count,
        prefix_tokens=prefix,
        repeats=options.repeat,
        observed=_observed(manifest, db),
        batch=options.batch and target.batchable,
    )
    limit = options.max_cost_usd
    note(estimate.line() + (f"; --max-cost ${limit:g}." if limit is not None else "."))
    return estimate


def _observed(manifest: RunManifest, db: str | None) -> ObservedUsage | None:
    """The last recorded run of the same setup's usage; None when there is none or the
    history cannot be read (an estimate never stops a run)."""
    from pe_eval_core.history.observed import observed_usage
    from pe_eval_core.history.store import RunStore

    try:
        return observed_usage(RunStore(db), manifest)
    except (PeEvalError, OSError, ValueError):
        return None


def cost_line(run: ScenarioRun) -> str:
    """The tokens the run used and what they cost (the run's ``estimated_cost_usd``), against
    the estimate shown before it when there was one."""
    cost = "unknown" if run.estimated_cost_usd is None else f"${run.estimated_cost_usd:.4f}"
    line = (
        f"Tokens: target {run.tokens_in} in / {run.tokens_out} out; judge "
        f"{run.judge_tokens_in} in / {run.judge_tokens_out} out in {run.judge_calls} calls; "
        f"estimated cost {cost}"
    )
    if run.cost_estimate_usd is not None or run.cost_estimate_basis is not None:
        line += f" ({estimate_versus(run.cost_estimate_usd, run.estimated_cost_usd)})"
    return line + "."


def rate_line(run: ScenarioRun) -> str:
    """The run's pass rate and each tier's, as every surface but the seed's report writes them
    (``pe_eval_core.rates``): ``Pass rate 83.3%: 15/18 (83.3%), 1 error apart; smoke ...``."""
    apart = f", {run.errors} error{'s' if run.errors != 1 else ''} apart" if run.errors else ""
    tiers = ", ".join(f"{t.tier} {t.tally_text}" for t in run.by_tier() if t.total)
    return f"Pass rate {run.rate_text}: {tally_text(run.passed, run.ran)}{apart}; {tiers}."


def write_reports(run: ScenarioRun, markdown: str, out: Path) -> None:
    """The reports and the responses (copied from where the run saved them) into ``out``, as
    one unit with its manifest (``run.report_set``): a kill never leaves two runs mixed."""
    files: dict[str, bytes] = {}
    if run.responses_path is not None:
        files[OUT_FILES["responses"]] = Path(run.responses_path).read_bytes()
        run.responses_path = str((out / OUT_FILES["responses"]).resolve())
    files[OUT_FILES["markdown"]] = utf8(markdown)
    files[OUT_FILES["json"]] = utf8(run_to_json(run))
    files[OUT_FILES["csv"]] = utf8(run_to_csv(run))
    files[OUT_FILES["junit"]] = utf8(run_to_junit_xml(run))
    write_report_set(out, files, run.run_id)
