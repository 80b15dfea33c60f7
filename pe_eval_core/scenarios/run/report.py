"""Scenario-run writers: the seed's markdown report, JSON, CSV and JUnit XML for CI systems.

The markdown keeps the seed's structure exactly (title, run timestamp, totals line, the
seven-column table, ``By tier``, ``Failures``, one-line conclusion). Additions, each only when
it applies: ``**Errors:** n (causes)`` on the totals line and an error count on a tier line
(errors are never in a pass rate: rates are passed / runs that produced a verdict), a latency
mark in the Result cell, and the excluded / latency / error causes on a failure line. After
the seed's sections: the run's target label and repeat count, the tier intervals, the
repeated scenarios' pass@k / pass^k / flaky table, and the tool traces of failed scenarios.
Agent text is untrusted: table cells are escaped and response excerpts sit in code fences
longer than any backtick run inside them.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pe_eval_core.files import csv_text
from pe_eval_core.rates import rate_text, tally_text
from pe_eval_core.scenarios.models import (
    ERROR_KINDS,
    NumericResult,
    ScenarioResult,
    ScenarioRun,
    error_kind_of,
    format_pct,
)
from pe_eval_core.scenarios.trace import ToolTrace, executed_write
from pe_eval_core.terminal import term

RESPONSE_EXCERPT_CHARS = 600
JSON_SCHEMA = "pe-eval.scenario-run/1"

_RESULT_CELL = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "error": "⚠️ error",
    "judge error": "⚠️ judge error",
}

# --- markdown ------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\|<>`*]|(?<=\])\()")


def md_inline(text: str) -> str:
    """Escape text for a table cell or list item: one line, no emphasis, links or raw HTML.

    Square brackets stay readable (``["a", "b"]``); a ``](`` that would start a link is broken.

    >>> print(md_inline('a|b <script>*x*</script> [ok](javascript:x) ["$4,820"]\\nnext'))
    a\\|b \\<script\\>\\*x\\*\\</script\\> [ok]\\(javascript:x) ["$4,820"] next
    """
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def fmt_number(value: float) -> str:
    """Plain decimal, no exponent, no trailing zeros.

    >>> fmt_number(4280.0), fmt_number(4.80), fmt_number(-1200), fmt_number(1.5e9)
    ('4280', '4.8', '-1200', '1500000000')
    """
    text = format(Decimal(repr(float(value))).normalize(), "f")
    return "0" if text in ("-0", "") else text


def _strict_cell(r: ScenarioResult) -> str:
    if r.status == "error":
        return "—"
    return f"{r.strict_satisfied}/{len(r.expectations)}"


def _paraphrase_cell(r: ScenarioResult) -> str:
    if r.status == "error":
        return "—"
    return f"{r.paraphrase_satisfied}/{len(r.candidate_misses)}"


def _numeric_cell(r: ScenarioResult) -> str:
    if r.status == "error" or not r.numeric_checks:
        return "—"
    return "✓" if all(c.satisfied for c in r.numeric_checks) else "✗"


def _result_cell(r: ScenarioResult) -> str:
    cell = _RESULT_CELL[r.status]
    if r.latency_warning and r.latency_ms is not None and r.max_latency_ms is not None:
        cell += f" (⏱ {r.latency_ms / 1000:.1f} s > {r.max_latency_ms / 1000:g} s)"
    return cell


def _plain(text: str) -> str:
    return " ".join(str(text).split())


def _numeric_miss(check: NumericResult, esc: Callable[[str], str] = md_inline) -> str:
    value = fmt_number(check.nearest) if check.nearest is not None else "no number found"
    return (
        f"{esc(check.field or 'value')}={value} "
        f"(expected [{fmt_number(check.min)}, {fmt_number(check.max)}])"
    )


def failure_parts(r: ScenarioResult, esc: Callable[[str], str] = md_inline) -> list[str]:
    """Why a scenario did not pass: strict-missed | paraphrase-missed | numeric-out-of-range,
    then excluded phrases, an enforced latency budget, or the error."""

    def listed(items: list[str]) -> str:
        return esc(json.dumps(items, ensure_ascii=False))

    if r.status == "error":
        return [f"error: {esc(r.error or 'unknown error')}"]
    parts = [
        f"strict-missed: {listed(r.strict_missed)}",
        f"paraphrase-missed: {listed(r.paraphrase_missed)}",
    ]
    parts += [
        f"numeric-out-of-range: {_numeric_miss(c, esc)}"
        for c in r.numeric_checks
        if not c.satisfied
    ]
    if r.excluded_hits:
        parts.append(f"excluded-present: {listed(r.excluded_hits)}")
    if r.latency_warning and r.latency_enforced and r.latency_ms is not None:
        parts.append(
            f"latency: {fmt_number(round(r.latency_ms))} ms > "
            f"max {fmt_number(r.max_latency_ms or 0)} ms"
        )
    if r.write_failure:  # "write attempt in a read-only eval: ..." / "write executed ..."
        parts.append(esc(r.write_failure))
    parts += [f"{b.label}: {esc(b.detail)}" for b in r.behaviour_failed]  # behaviour checks
    if r.status == "judge error":
        parts.append(f"judge error: {esc(r.error or 'unknown')}")
    return parts


def failure_line(r: ScenarioResult) -> str:
    """The seed's failure bullet for one scenario."""
    return f"- **{md_inline(r.name)}** — " + " | ".join(failure_parts(r))


def response_block(response: str | None, indent: str = "  ") -> list[str]:
    """The first 600 characters in a code fence no backtick run inside can close."""
    if response is None:
        return []
    if not response.strip():
        return [f"{indent}(empty response)"]
    shown = response[:RESPONSE_EXCERPT_CHARS]
    longest = max((len(m) for m in re.findall(r"`+", shown)), default=0)
    fence = "`" * max(3, longest + 1)
    lines = [f"{indent}{fence}text"]
    lines += [f"{indent}{line}".rstrip() for line in shown.splitlines()]
    if len(response) > RESPONSE_EXCERPT_CHARS:
        lines.append(f"{indent}… ({len(response) - RESPONSE_EXCERPT_CHARS} more characters)")
    lines.append(f"{indent}{fence}")
    return lines


def render_markdown_report(run: ScenarioRun) -> str:
    """The seed's report, structure exactly as specified, plus the one-line conclusion."""
    totals = (
        f"**Scenarios:** {run.total}  |  **Passed:** {run.passed}  |  "
        f"**Failed:** {run.failed}  |  **Pass rate:** {format_pct(run.passed, run.ran)}"
    )
    if run.errors:
        causes = ", ".join(f"{n} {ERROR_KINDS.get(k, k)}" for k, n in run.error_counts())
        totals += f"  |  **Errors:** {run.errors} ({md_inline(causes)}; not in the pass rate)"
    lines = [
        "## Mimic Eval Report",
        "",
        f"**Run:** {run.started_at.isoformat(timespec='seconds')}",
        totals,
        "",
        "| # | Scenario | Tier | Strict | Paraphrase | Numeric | Result |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in run.results:
        cells = [
            str(r.index),
            md_inline(r.name),
            md_inline(r.tier),
            _strict_cell(r),
            _paraphrase_cell(r),
            _numeric_cell(r),
            _result_cell(r),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "### By tier"]
    for t in run.by_tier():
        label = md_inline(t.tier) + ":"
        line = (
            f"- {label.ljust(max(14, len(label) + 1))}{t.passed}/{t.ran} "
            f"({format_pct(t.passed, t.ran)})"
        )
        if t.errors:
            line += f", {t.errors} {'error' if t.errors == 1 else 'errors'} not counted"
        lines.append(line)
    lines += ["", "### Failures"]
    failures = [r for r in run.results if r.status != "pass"]
    if not failures:
        lines.append("- none")
    for r in failures:
        lines.append(failure_line(r))
        lines += response_block(r.response)
    lines += ["", f"**Conclusion:** {md_inline(run.conclusion())}", ""]
    lines += statistics_lines(run)
    lines += tool_trace_lines(run)
    # The file, the MCP reply, the dashboard download and stdout are one text: no raw escape
    # byte, no secret, no line a CI runner would take as a workflow command (``terminal.term``).
    return term("\n".join(lines))


def _pct1(value: float) -> str:
    return f"{value:.1%}"


def statistics_lines(run: ScenarioRun) -> list[str]:
    """After the seed's sections: target, repeats, errors apart, tier intervals, and (with
    repeats) each scenario's pass count, pass@k, pass^k and flakiness."""
    k = run.repeats
    lines = [
        "### Run details",
        f"- Target: {md_inline(run.label)}",
        f"- Repeats: {k} per scenario",
        *_setup_lines(run),
    ]
    if run.errors:
        lines.append(f"- Errors (not in any pass rate): {md_inline(run.error_summary())}")
    if run.stopped:
        lines.append(f"- Stopped early: {md_inline(run.stopped)}")
    for warning in run.warnings:
        lines.append(f"- Warning: {md_inline(warning)}")
    tiers = run.tier_stats()
    if tiers:
        lines += ["", "### Pass rate by tier with 95% interval"]
        for t in tiers:
            if not t.runs:
                lines.append(f"- {md_inline(t.tier)}: no run produced a verdict")
                continue
            how = (
                "Wilson score interval"
                if t.method == "wilson"
                else f"Wilson on effective n={t.n_eff:.1f} from {t.clusters} source_fact clusters"
            )
            lines.append(
                f"- {md_inline(t.tier)}: {t.passes}/{t.runs} = {_pct1(t.rate)}, "
                f"95% CI [{_pct1(t.low)}, {_pct1(t.high)}] ({how})"
            )
    if k > 1:
        lines += [
            "",
            f"### Repeats ({k} per scenario)",
            "",
            f"| Scenario | Tier | Passed | pass@{k} | pass^{k} | Flaky |",
            "|---|---|---|---|---|---|",
        ]
        for st in run.scenario_stats():
            if st.runs:
                kk = min(k, st.runs)
                at, hat = f"{st.pass_at(kk):.2f}", f"{st.pass_hat(kk):.2f}"
            else:
                at = hat = "—"
            passed = f"{st.passes}/{st.runs}" + (f" ({st.errors} errors)" if st.errors else "")
            flaky = "flaky" if st.flaky else ""
            row = [md_inline(st.name), md_inline(st.tier), passed, at, hat, flaky]
            lines.append("| " + " | ".join(row) + " |")
        flaky_names = [st.name for st in run.scenario_stats() if st.flaky]
        if flaky_names:
            lines.append("")
            lines.append(f"Flaky (passed and failed): {md_inline(', '.join(flaky_names))}")
    return [*lines, ""]


def tool_trace_lines(run: ScenarioRun) -> list[str]:
    """After the seed's sections: one compact tool-trace line per failed scenario that has a
    trace (nothing at all when none has one, so the seed's report stays exactly as it was)."""
    traced = [r for r in run.results if r.status != "pass" and r.trace is not None]
    if not traced:
        return []
    lines = ["### Tool traces of failed scenarios"]
    lines += [f"- **{md_inline(r.name)}** — {md_inline(r.trace.compact())}" for r in traced]  # type: ignore[union-attr]
    return [*lines, ""]


# --- JSON ----------------------------------------------------------------------------------


def run_to_dict(run: ScenarioRun) -> dict[str, Any]:
    """Everything: the run, every result and expectation, plus summary and conclusion."""
    data = run.model_dump(mode="json")
    return {
        "schema": JSON_SCHEMA,
        "summary": {
            "total": run.total,
            "passed": run.passed,
            "failed": run.failed,
            "errors": run.errors,
            "pass_rate": run.pass_rate,
            "pass_rate_text": run.rate_text,
            "tally_text": tally_text(run.passed, run.ran),
            "ran": run.ran,
            "error_summary": run.error_summary(),
        },
        "by_tier": [
            t.model_dump()
            | {
                "ran": t.ran,
                "pass_rate": t.pass_rate,
                "pass_rate_text": rate_text(t.passed, t.ran),
                "tally_text": t.tally_text,
            }
            for t in run.by_tier()
        ],
        "statistics": run.statistics_summary(),
        "conclusion": run.conclusion(),
        **data,
    }


def run_to_json(run: ScenarioRun) -> str:
    return json.dumps(run_to_dict(run), indent=2, ensure_ascii=False) + "\n"


def run_from_json(text: str | bytes) -> ScenarioRun:
    """Read back ``run_to_json`` output (summary keys are recomputed, not trusted)."""
    return ScenarioRun.model_validate_json(text)


# --- CSV -----------------------------------------------------------------------------------

CSV_COLUMNS = [
    "index",
    "name",
    "tier",
    "platform",
    "source_fact",
    "status",
    "strict_satisfied",
    "strict_total",
    "paraphrase_satisfied",
    "paraphrase_total",
    "rule_satisfied",
    "judge_satisfied",
    "numeric",
    "numeric_detail",
    "strict_missed",
    "paraphrase_missed",
    "excluded_hits",
    "latency_ms",
    "max_latency_ms",
    "latency_warning",
    "tokens_in",
    "tokens_out",
    "judge_calls",
    "error",
    "tool_call_count",
    "tool_names",
    "repeat",
    "error_kind",
    "write_attempts",
    "writes_executed",
]


def run_to_csv(run: ScenarioRun) -> str:
    """One row per scenario."""
    rows: list[list[Any]] = [list(CSV_COLUMNS)]
    for r in run.results:
        numeric = "" if not r.numeric_checks else ("pass" if r.numeric.satisfied else "fail")  # type: ignore[union-attr]
        detail = "; ".join(
            f"{c.field}: "
            + (
                f"{fmt_number(c.matched)} in [{fmt_number(c.min)}, {fmt_number(c.max)}]"
                if c.satisfied and c.matched is not None
                else _numeric_miss(c, _plain)
            )
            for c in r.numeric_checks
        )
        row = [
            r.index,
            r.name,
            r.tier,
            r.platform or "",
            r.source_fact or "",
            r.status,
            r.strict_satisfied,
            len(r.expectations),
            r.paraphrase_satisfied,
            len(r.candidate_misses),
            sum(1 for e in r.expectations if e.method == "rule"),
            sum(1 for e in r.expectations if e.method == "judge"),
            numeric,
            detail,
            json.dumps(r.strict_missed, ensure_ascii=False),
            json.dumps(r.paraphrase_missed, ensure_ascii=False),
            json.dumps(r.excluded_hits, ensure_ascii=False),
            "" if r.latency_ms is None else round(r.latency_ms, 1),
            "" if r.max_latency_ms is None else r.max_latency_ms,
            r.latency_warning,
            r.tokens_in,
            r.tokens_out,
            r.judge_calls,
            r.error or "",
            len(r.trace.calls) if r.trace is not None else len(r.tool_calls),
            " ".join(r.trace.tool_names()) if r.trace is not None else "",
            r.repeat,
            error_kind_of(r) or "",
            " ".join(r.write_attempts),
            " ".join(r.writes_executed),
        ]
        rows.append(row)
    return csv_text(rows)  # every cell through files.csv_cell, \r and \n quoted


# --- JUnit XML -----------------------------------------------------------------------------

_XML_INVALID = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Drop characters XML 1.0 cannot carry (NUL, escape codes, ...); etree escapes the rest.

    >>> xml_text("ok\\x00\\x1b[31m")
    'ok[31m'
    """
    return _XML_INVALID.sub("", text)


def _seconds(ms: float | None) -> str:
    return f"{(ms or 0.0) / 1000:.3f}"


def trace_text(trace: ToolTrace) -> str:
    """A plain-text tool trace: a summary line, then one line per call."""
    lines = [f"tool trace: {trace.compact()}"]
    for c in trace.calls:
        name = f"{c.server}/{c.tool}" if c.server else c.tool
        args = json.dumps(c.arguments, ensure_ascii=False, default=str)
        mark = (
            " [refused write]"
            if c.write_attempt
            else " [write ran]"
            if executed_write(c)
            else " [error]"
            if c.is_error
            else ""
        )
        lines.append(f"  turn {c.turn or '?'}: {name} {args}{mark} -> {c.result_excerpt or ''}")
    return "\n".join(lines)


def _system_out(r: ScenarioResult) -> str | None:
    """The response, then the tool trace (when there is one)."""
    parts = [p for p in (r.response, trace_text(r.trace) if r.trace else None) if p is not None]
    return "\n\n".join(parts) if parts else None


def _interval_properties(props: ET.Element, run: ScenarioRun, tier: str) -> None:
    """A tier suite's pass rate (errors left out) and 95% interval, as properties."""
    for st in run.tier_stats():
        if st.tier != tier or not st.runs:
            continue
        for key, val in (("pass_rate", st.rate), ("ci95_low", st.low), ("ci95_high", st.high)):
            ET.SubElement(props, "property", {"name": key, "value": f"{val:.4f}"})
        ET.SubElement(props, "property", {"name": "ci_method", "value": st.method})


def run_to_junit_xml(run: ScenarioRun) -> str:
    """JUnit XML: one ``testsuite`` per tier, one ``testcase`` per scenario."""
    root = ET.Element(
        "testsuites",
        {
            "name": "pe-eval scenarios",
            "tests": str(run.total),
            "failures": str(run.failed),
            "errors": str(run.errors),
            "time": _seconds(sum(r.latency_ms or 0 for r in run.results)),
            "timestamp": run.started_at.isoformat(timespec="seconds"),
        },
    )
    for tier in run.by_tier():
        if not tier.total:
            continue
        results = [r for r in run.results if r.tier == tier.tier]
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": xml_text(tier.tier),
                "tests": str(tier.total),
                "failures": str(tier.failed),
                "errors": str(tier.errors),
                "skipped": "0",
                "time": _seconds(sum(r.latency_ms or 0 for r in results)),
                "timestamp": run.started_at.isoformat(timespec="seconds"),
            },
        )
        props = ET.SubElement(suite, "properties")
        _interval_properties(props, run, tier.tier)
        for key, value in (
            ("run_id", run.run_id),
            ("target", run.target),
            ("target_label", run.label),
            ("repeats", str(run.repeats)),
            ("model", run.model),
            ("judge", run.judge),
            ("scenarios_path", run.scenarios_path),
        ):
            if value:
                ET.SubElement(props, "property", {"name": key, "value": xml_text(value)})
        for r in results:
            case = ET.SubElement(
                suite,
                "testcase",
                {
                    "name": xml_text(r.name),
                    "classname": xml_text(f"pe_eval.scenarios.{r.tier}"),
                    **({"repeat": str(r.repeat)} if run.repeats > 1 else {}),
                    "time": _seconds(r.latency_ms),
                },
            )
            summary = " | ".join(failure_parts(r, _plain))
            if r.status == "fail":
                node = ET.SubElement(
                    case, "failure", {"message": xml_text(summary), "type": "fail"}
                )
                node.text = xml_text(summary)
            elif r.status in ("error", "judge error"):
                node = ET.SubElement(
                    case, "error", {"message": xml_text(r.error or summary), "type": r.status}
                )
                node.text = xml_text(summary)
            out = _system_out(r)
            if out is not None:
                ET.SubElement(case, "system-out").text = xml_text(out)
            if r.latency_warning:
                ET.SubElement(case, "system-err").text = (
                    f"latency warning: {fmt_number(round(r.latency_ms or 0))} ms > "
                    f"max {fmt_number(r.max_latency_ms or 0)} ms"
                )
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _setup_lines(run: ScenarioRun) -> list[str]:
    """What produced the run (its manifest) and where every judge verdict came from."""
    lines = []
    m = run.manifest
    if m is not None and m.skill_path:
        lines.append(f"- Skill: {md_inline(m.skill_path)} (sha256 {(m.skill_sha256 or '?')[:12]})")
    if run.as_of:
        lines.append(f"- Analysis date: {run.as_of} (from {md_inline(run.as_of_source or '?')})")
    for server in m.servers if m is not None else []:
        lines.append(
            f"- MCP server {md_inline(server.name)}: {server.tools} tools "
            f"(sha256 {server.tools_sha256[:12]})"
        )
    if run.judge:
        version = f", prompt {run.judge_prompt_version}" if run.judge_prompt_version else ""
        lines.append(f"- Judge: {md_inline(run.judge)}{version}")
    sources = run.verdict_sources()
    if sources:
        shown = "; ".join(f"{n} from {md_inline(src)}" for src, n in sources)
        lines.append(f"- Judge verdicts: {shown}")
    return lines
