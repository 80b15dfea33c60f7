"""`pe-eval mcp`: the grader and the scenario scorer as MCP tools over stdio (official SDK).

Tools:

- ``eval_pe_output(memo_json_path, source_json_path, thresholds=None)`` returns exactly the
  seed's dict as structured content and writes ``eval_<portco>_<audience>.html/.json`` next to
  the memo; a second text block carries the scores and the verdict as ``pe-eval memo`` prints
  them (``thresholds``: the gate's spec, e.g. ``citation=0.95,coverage=1``);
- ``list_memo_pairs(data_dir)`` lists the memo/source pairs in a folder;
- ``score_scenarios(scenarios_path, responses_path, judge_verdicts_path=None)`` scores a
  scenarios file against recorded responses (and optionally recorded judge verdicts; no
  network) and returns the summary plus the markdown report.

Every path is confined to the allowed roots (default: the working directory; ``--allow-root``
or ``PE_EVAL_ALLOWED_ROOTS``, ``os.pathsep``-separated). A ``PeEvalError`` comes back as an
MCP tool error whose text and structured content carry the message, diagnosis and fix.
Evaluations are recorded in the run history unless ``--no-record``. An error names the tool
argument at fault (``argument``), in the tool's own words.

This module holds the tools only; ``pe_eval_core.cli.mcp`` is the ``pe-eval mcp`` command.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pe_eval_core.errors import (
    AllowedRootError,
    InputNotFoundError,
    InvalidNameError,
    MemoNotFoundError,
    PathOutsideRootError,
    PeEvalError,
    SourceNotFoundError,
    input_of,
)
from pe_eval_core.files import confine, confined_to, shown_path
from pe_eval_core.history.recording import record_or_warn

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult

SERVER_NAME = "pe-eval"
ALLOWED_ROOTS_ENV = "PE_EVAL_ALLOWED_ROOTS"
INSTRUCTIONS = (
    "Deterministic grading of AI-written PE memos against their DX OpportunityMap "
    "(citation accuracy, hallucination rate, coverage, consistency) and scoring of Mimic "
    "scenarios against recorded agent responses. Paths must lie inside the server's allowed "
    "roots. Report the HTML scorecard path, the four scores with their n/total context, the "
    "lowest-scoring dimension and the verdict (ready to circulate, or not ready with its issues)."
)
TOOL_ARGUMENTS: dict[str, str] = {
    "memo": "memo_json_path",
    "source": "source_json_path",
    "data_dir": "data_dir",
    "scenarios": "scenarios_path",
    "responses": "responses_path",
    "judge_verdicts": "judge_verdicts_path",
    "document": "document_path",
    "document_kind": "kind",
    "memo_thresholds": "thresholds",
}
"""Each input an error can name (``pe_eval_core.errors.INPUT_LABELS``) as a tool argument."""


def allowed_roots(cli_roots: Sequence[str] | None = None) -> list[Path]:
    """``--allow-root`` values, else ``$PE_EVAL_ALLOWED_ROOTS``, else the working directory."""
    raw: Sequence[str]
    if cli_roots:
        raw = cli_roots
    elif os.environ.get(ALLOWED_ROOTS_ENV, "").strip():
        raw = [r for r in os.environ[ALLOWED_ROOTS_ENV].split(os.pathsep) if r.strip()]
    else:
        raw = [os.getcwd()]
    roots = []
    for r in raw:
        p = Path(r).expanduser().resolve()
        if not p.is_dir():
            raise AllowedRootError(f"allowed root {r!r} ({p}) is not a folder")
        roots.append(p)
    return roots


class PeEvalTools:
    """The tool bodies as plain methods: confinement, the core call, history recording."""

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]],
        *,
        db: str | os.PathLike[str] | None = None,
        record: bool = True,
        judge_cache: str | os.PathLike[str] | None = None,
    ):
        self.roots = [Path(r).expanduser().resolve() for r in roots]
        self.db = db
        self.record = record
        self.judge_cache = judge_cache
        """The judge verdict cache (None: ``$PE_EVAL_HOME/judge_cache.sqlite3``)."""

    def _confine(self, path: str, input: str) -> Path:
        try:
            return confine(path, self.roots)
        except (PathOutsideRootError, InvalidNameError) as err:
            err.input = input
            raise

    def _dir(self, path: str) -> Path:
        folder = self._confine(path, "data_dir")
        if folder.exists() and not folder.is_dir():
            raise InputNotFoundError(
                f"data folder {path} is a file, not a folder",
                fix="Choose the folder holding explain_*.json and dx_report_*.json.",
                input="data_dir",
            )
        return folder

    @staticmethod
    def _file(path: Path, given: str, error: type[InputNotFoundError]) -> None:
        if path.is_dir():
            raise error(f"{given} is a folder, not a file")
        if not path.is_file():
            raise error(f"{given} does not exist")

    def eval_pe_output(
        self, memo_json_path: str, source_json_path: str, thresholds: str | None = None
    ) -> dict[str, Any]:
        """Exactly the seed's dict (the verdict is in the files written and :meth:`grade`)."""
        return self.grade(memo_json_path, source_json_path, thresholds)[0]

    def grade(
        self, memo_json_path: str, source_json_path: str, thresholds: str | None = None
    ) -> tuple[dict[str, Any], list[str]]:
        """Grade and write the pair; the seed's dict and the text ``pe-eval memo`` prints
        (scorecard path, scores, weakest dimension, verdict under ``thresholds``)."""
        from pe_eval_core.memo import grade_memo, write_outputs
        from pe_eval_core.memo.explain import score_lines
        from pe_eval_core.memo.verdict import VerdictThresholds, memo_verdict, verdict_lines

        bounds = VerdictThresholds.from_spec(thresholds)
        memo = self._confine(memo_json_path, "memo")
        source = self._confine(source_json_path, "source")
        # The seed's failure table names a missing memo before a missing source.
        self._file(memo, memo_json_path, MemoNotFoundError)
        self._file(source, source_json_path, SourceNotFoundError)
        with confined_to(self.roots):  # every open checked as opened: no swap leads out
            evaluation = grade_memo(memo, source)
            html_path, json_path = write_outputs(evaluation, thresholds=bounds)
        if self.record:
            record_or_warn(evaluation, origin="mcp", db=self.db)
        verdict = memo_verdict(evaluation, bounds)
        text = [f"Eval scorecard: {html_path}", *score_lines(evaluation), *verdict_lines(verdict)]
        return dict(evaluation.seed_dict(html_path, json_path)), text

    def eval_pe_output_result(
        self, memo_json_path: str, source_json_path: str, thresholds: str | None = None
    ) -> CallToolResult:
        """The tool's result: the seed's dict as structured content and as the first text
        block (as a plain dict return would give), the scores and verdict as the second."""
        from mcp.types import CallToolResult, TextContent

        seed, text = self.grade(memo_json_path, source_json_path, thresholds)
        return CallToolResult(
            content=[
                TextContent(type="text", text=json.dumps(seed, indent=2)),
                TextContent(type="text", text="\n".join(text)),
            ],
            structured_content=seed,
        )

    def eval_document(
        self,
        document_path: str,
        kind: str | None = None,
        source_path: str | None = None,
        thresholds: str | None = None,
    ) -> dict[str, Any]:
        """The seed's dict with the kind, document id, findings and verdict (see
        :meth:`grade_any`)."""
        return self.grade_any(document_path, kind, source_path, thresholds)[0]

    def grade_any(
        self,
        document_path: str,
        kind: str | None = None,
        source_path: str | None = None,
        thresholds: str | None = None,
    ) -> tuple[dict[str, Any], list[str]]:
        """Any producer document: a memo through :meth:`grade`, the others through the
        document graders; the document and every source it reads confined to the roots. The
        dict and the text ``pe-eval doc`` prints (scores, weakest dimension, the verdict
        under ``thresholds``)."""
        from pe_eval_core.documents import document_kind, grade_document, write_document_outputs
        from pe_eval_core.documents.api import source_paths
        from pe_eval_core.documents.summary import score_lines
        from pe_eval_core.documents.verdict import document_verdict
        from pe_eval_core.errors import DocumentNotFoundError
        from pe_eval_core.memo.verdict import VerdictThresholds, verdict_lines

        bounds = VerdictThresholds.from_spec(thresholds)
        doc = self._confine(document_path, "document")
        self._file(doc, document_path, DocumentNotFoundError)
        found = document_kind(doc, kind)
        if found.value == "memo":
            from pe_eval_core.documents.loading import read_document, resolve_named

            named = resolve_named(doc, read_document(doc).get("source_opportunity_map"))
            source = source_path or (str(named) if named else "")
            seed, text = self.grade(str(doc), source, thresholds)
            return {"kind": "memo", **seed}, text
        sources = {k: self._confine(str(v), "source") for k, v in source_paths(doc, kind).items()}
        if source_path:
            sources["source"] = self._confine(source_path, "source")
        ev = grade_document(doc, kind=found.value, **sources)
        html_path, json_path = write_document_outputs(ev, thresholds=bounds)
        if self.record:
            record_or_warn(ev, origin="mcp", db=self.db)
        verdict = document_verdict(ev, bounds)
        out = ev.seed_dict(html_path, json_path)
        out["findings"] = [f.model_dump(mode="json") for f in ev.counted_findings()]
        out["verdict"] = verdict.summary(ev).model_dump()
        text = [f"Eval scorecard: {html_path}", *score_lines(ev), *verdict_lines(verdict)]
        return out, text

    def eval_document_result(
        self,
        document_path: str,
        kind: str | None = None,
        source_path: str | None = None,
        thresholds: str | None = None,
    ) -> CallToolResult:
        """The tool's result: the dict as structured content and first text block, the
        scores and verdict as the second (as ``eval_pe_output``'s)."""
        from mcp.types import CallToolResult, TextContent

        out, text = self.grade_any(document_path, kind, source_path, thresholds)
        return CallToolResult(
            content=[
                TextContent(type="text", text=json.dumps(out, indent=2)),
                TextContent(type="text", text="\n".join(text)),
            ],
            structured_content=out,
        )

    def list_memo_pairs(self, data_dir: str) -> dict[str, Any]:
        from pe_eval_core.memo.pairs import scan_memo_pairs

        folder = self._dir(data_dir)
        with confined_to(self.roots):
            pairs, skipped = scan_memo_pairs(folder)
        return {
            "data_dir": str(folder),
            "skipped": [{"path": shown_path(s.path), "reason": s.reason} for s in skipped],
            "pairs": [
                {
                    "portco_id": p.portco_id,
                    "audience": p.audience,
                    "memo_path": str(p.memo_path),
                    "source_path": str(p.source_path),
                    "source_exists": p.source_path.is_file(),
                }
                for p in pairs
            ],
        }

    def score_scenarios(
        self, scenarios_path: str, responses_path: str, judge_verdicts_path: str | None = None
    ) -> dict[str, Any]:
        from pe_eval_core.rates import rate_text, tally_text
        from pe_eval_core.scenarios import (
            RecordedTarget,
            load_scenarios,
            render_markdown_report,
            run_scenarios_sync,
        )
        from pe_eval_core.scenarios.options import run_options
        from pe_eval_core.scenarios.run.setup import VERDICTS_BESIDE, choose_judge

        scenarios = self._confine(scenarios_path, "scenarios")
        responses = self._confine(responses_path, "responses")
        beside = scenarios.parent / VERDICTS_BESIDE
        verdicts = None
        if judge_verdicts_path:
            verdicts = self._confine(judge_verdicts_path, "judge_verdicts")
        elif beside.is_file():
            self._confine(str(beside), "judge_verdicts")  # read by the policy: confined too
        with confined_to(self.roots):  # every open checked as opened: no swap leads out
            target = RecordedTarget(responses)
            options = run_options()  # the one set of defaults; the tool takes no run option
            # the policy every surface uses; no paid judge here (an MCP call has no confirmation):
            # the verdicts saved with the responses, then those beside the scenarios for the
            # responses they were recorded for; cached verdicts, else judge errors, for the rest
            judge = choose_judge(
                scenarios_path=scenarios,
                verdicts=verdicts,
                recorded_target=True,
                cache=self.judge_cache,
                allow_live=False,
                options=options,
                target=target,
            )
            loaded = load_scenarios(scenarios)
            run = run_scenarios_sync(
                loaded,
                target,
                judge=judge,
                options=options,
                scenarios_path=scenarios,
                save_responses=False,  # they are already on disk
            )
        history_id = record_or_warn(run, origin="mcp", db=self.db) if self.record else None
        tiers = [
            {
                "tier": t.tier,
                "total": t.total,
                "passed": t.passed,
                "failed": t.failed,
                "errors": t.errors,
                "pass_rate": t.pass_rate,
                "pass_rate_text": rate_text(t.passed, t.ran),
                "tally_text": t.tally_text,
            }
            for t in run.by_tier()
        ]
        summary = {
            "run_id": run.run_id,
            "scenarios_path": str(scenarios),
            "responses_path": str(responses),
            "target": run.target,
            "total": run.total,
            "passed": run.passed,
            "failed": run.failed,
            "errors": run.errors,
            "pass_rate": run.pass_rate,
            "pass_rate_text": run.rate_text,
            "tally_text": tally_text(run.passed, run.ran),
            "by_tier": tiers,
            "conclusion": run.conclusion(),
            "history_run_id": history_id,
            "target_label": run.label,
            "errors_apart": run.error_summary() if run.errors else None,
            # per-tier 95% intervals, per-scenario pass@k / pass^k / flaky: as in report.json
            "statistics": run.statistics_summary(),
            "warnings": run.warnings,
        }
        return {"summary": summary, "report_markdown": render_markdown_report(run)}


def tool_error(err: PeEvalError) -> CallToolResult:
    """An MCP tool error (``isError``) carrying the error's message, diagnosis and fix, and the
    tool argument at fault (``argument``) when the error names one."""
    from mcp.types import CallToolResult, TextContent

    data = err.as_dict()
    argument = TOOL_ARGUMENTS.get(input_of(err) or "")
    data["argument"] = argument
    fix = err.fix + (f" (argument {argument})" if argument else "")
    text = f"{err.message}\ndiagnosis: {err.diagnosis}\nfix: {fix}\n{json.dumps(data)}"
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=data, is_error=True
    )


def _guard(fn: Callable[..., object], *args: str | None) -> Any:
    """``fn(*args)``, or the tool error it raised. ``Any``: the tools are annotated with what
    they return on success (the SDK derives their output schema from it), and the SDK passes
    a ``CallToolResult`` through as is."""
    try:
        return fn(*args)
    except PeEvalError as err:
        return tool_error(err)
    except Exception as exc:  # the last resort: a named tool error, never a bare one
        from pe_eval_core.redact import redact

        return tool_error(
            PeEvalError(
                f"unexpected {type(exc).__name__}: {redact(str(exc))[:300]}",
                diagnosis="pe-eval hit a failure it has no specific advice for",
                fix="Check the inputs and free disk space, and report the message if it stays.",
            )
        )


def build_server(
    roots: Sequence[str | os.PathLike[str]] | None = None,
    *,
    db: str | os.PathLike[str] | None = None,
    record: bool = True,
    judge_cache: str | os.PathLike[str] | None = None,
) -> MCPServer:
    """The MCP server with its four tools; ``roots`` default as in :func:`allowed_roots`."""
    from mcp.server.mcpserver import MCPServer

    tools = PeEvalTools(
        roots if roots is not None else allowed_roots(),
        db=db,
        record=record,
        judge_cache=judge_cache,
    )
    server = MCPServer(name=SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(
        name="eval_pe_output",
        description=(
            "Grade a PE memo sidecar (explain_<portco>_<audience>.json) against its DX "
            "OpportunityMap (dx_report_<portco>.json) on citation accuracy, hallucination "
            "rate, coverage and consistency, with no LLM call. Writes eval_<portco>_<audience>"
            ".html/.json next to the memo and returns report_path, json_path, portco_id, "
            "audience, scores, totals and consistency_note; a second text block gives the "
            "scores and the verdict (ready to circulate, or not ready with its issues). "
            "thresholds (optional, as for pe-eval gate --memo-thresholds, e.g. "
            "'citation=0.95,coverage=1'): the verdict's bounds; dimensions left out must be "
            "perfect."
        ),
    )
    def eval_pe_output(
        memo_json_path: str, source_json_path: str, thresholds: str | None = None
    ) -> dict[str, Any]:
        return _guard(tools.eval_pe_output_result, memo_json_path, source_json_path, thresholds)

    @server.tool(
        name="eval_document",
        description=(
            "Grade any PE document of the producer against its source with no LLM call: an "
            "exit proof pack (exit_proof_pack_<portco>.json, against its dx_report and BX "
            "corpus), a DDQ response (ddq_response_<fund>.json, against its knowledge-base "
            "folder), 10-K/CIM red flags (cim_redflags_<doc>.json, against the filing) or an "
            "explainer memo. kind is detected from the file unless given. Writes "
            "eval_<name>.html/.json next to the document; returns report_path, json_path, "
            "kind, document_id, scores, totals, consistency_note, the findings and the "
            "verdict; a second text block gives the scores and the verdict. thresholds "
            "(optional, as for eval_pe_output): the verdict's bounds."
        ),
    )
    def eval_document(
        document_path: str,
        kind: str | None = None,
        source_path: str | None = None,
        thresholds: str | None = None,
    ) -> dict[str, Any]:
        return _guard(tools.eval_document_result, document_path, kind, source_path, thresholds)

    @server.tool(
        name="list_memo_pairs",
        description=(
            "List the memo/source pairs (explain_*.json with their dx_report_*.json) in a "
            "data folder, e.g. finance_output."
        ),
    )
    def list_memo_pairs(data_dir: str = "finance_output") -> dict[str, Any]:
        return _guard(tools.list_memo_pairs, data_dir)

    @server.tool(
        name="score_scenarios",
        description=(
            "Score a Mimic scenarios file against a recorded-responses file (strict substring, "
            "deterministic paraphrase rules, numeric ranges and behaviour checks from recorded "
            "tool traces; no network). Returns a summary (pass counts, pass rate by tier, "
            "conclusion, warnings) and the markdown report. Judge verdicts come from "
            "judge_verdicts_path, else a judge-verdicts.json beside the scenarios file, else "
            "the verdict cache; a scenario needing any other verdict reports judge error."
        ),
    )
    def score_scenarios(
        scenarios_path: str, responses_path: str, judge_verdicts_path: str | None = None
    ) -> dict[str, Any]:
        return _guard(tools.score_scenarios, scenarios_path, responses_path, judge_verdicts_path)

    return server
