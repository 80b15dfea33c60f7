"""Scenario evaluation page (eval engineers): scenarios + target -> scored table -> triage.

Thin by design: choose the inputs, hand them to the core runner, render the run it returns.
The run is kept in session state as a JSON-mode dict; views of it are cached by run id.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import time
from collections.abc import Callable
from hashlib import sha256 as _sha256
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from pe_eval_core.access import paid_run_confirmed
from pe_eval_core.errors import PeEvalError
from pe_eval_core.scenarios.checks import meets_pass_ratio
from pe_eval_core.scenarios.runner import CANCELLED, LIVE_CONFIRM_THRESHOLD
from pe_eval_core.wording import fmt_pct
from ui import access, charts, data, glossary, links, state
from ui.errors import guarded, md_code, md_escape, show_error
from ui.responsive import MAX_CARDS, Card, table_or_cards, text

if TYPE_CHECKING:
    from pe_eval_core.scenarios import Judge, Scenario, ScenarioResult, ScenarioRun, Target
    from pe_eval_core.scenarios.cost import PaidCalls

K = state.Scenarios
SIDEBAR_FILE, UPLOAD = "Sidebar file", "Upload"
RECORDED, ANTHROPIC, HTTP = "Recorded responses", "Anthropic model", "HTTP agent"
LIVE_CONFIRM_OVER = LIVE_CONFIRM_THRESHOLD
MAX_REPEATS = 20
DEFAULT_SKILL = "skills/revenue-recovery/SKILL.md"


SIDEBAR_FIX = (
    "Set the sidebar's Scenarios file to a Mimic export (the demo is "
    ".mimic/exports/mimic-scenarios.json), or choose Upload above."
)
RESPONSES_FIX = (
    "Point the Recorded responses file at a responses.json a previous run saved (the demo is "
    ".mimic/exports/recorded-responses.json), or pick a live target."
)


def load_inputs() -> tuple[Callable[[], list[Scenario]], dict[str, Any]] | None:
    """Where the scenarios come from (sidebar file or upload), validated and summarised.

    Returns a loader (called only when a run starts, so a rerun never copies thousands of
    scenario objects out of the cache) and the origin: label, path, sha256, count, tiers.
    """
    mode = st.radio("Scenarios from", [SIDEBAR_FILE, UPLOAD], key=K.MODE, horizontal=True)
    if mode == UPLOAD:
        up = st.file_uploader("Scenarios file (JSON)", type=["json"], key=K.UPLOAD)
        if up is None:
            st.info("Upload a Mimic scenarios export, or switch back to the sidebar file.")
            return None
        raw, name = up.getvalue(), up.name
        with guarded():
            summary = data.scenarios_upload_summary(raw, name)
        origin = {"label": f"upload {name}", "path": None, "sha256": sha256(raw), **summary}
        return (lambda: data.scenarios_upload(raw, name)), origin
    path = state.scenarios_file()
    with guarded(not_found_fix=SIDEBAR_FIX):
        summary = data.scenarios_summary(path)
    origin = {"label": str(path), "path": str(path), "sha256": data.file_sha256(path), **summary}
    return (lambda: data.scenarios(path)), origin


def sha256(raw: bytes) -> str:
    """Hex digest of uploaded bytes (recorded with the run, like a file's hash)."""
    return _sha256(raw).hexdigest()


def summary_line(origin: dict[str, Any]) -> str:
    """The seed's one-liner: 'Loaded N scenarios across <tiers> from <file>.'"""
    across = ", ".join(f"{n} {t}" for t, n in origin["tiers"].items())
    return f"Loaded {origin['count']} scenarios across {across} from {md_code(origin['label'])}."


def api_key() -> tuple[str | None, str]:
    """The Anthropic key and where it came from: environment, Streamlit secrets, or this session.

    A key typed here lives only in this session's memory (the password widget's state): it is
    never written to disk, logged, or put in a run record. The server's own key (environment,
    secrets) is the operator's: a member of a shared dashboard pastes their own.
    """
    if not access.is_operator():
        typed = st.text_input(
            "Your Anthropic API key",
            type="password",
            key=K.API_KEY,
            help="This shared dashboard runs live models on your key only; it is kept in this "
            "browser session's memory and never written anywhere.",
        )
        return (typed or None), "this session (yours)"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return os.environ["ANTHROPIC_API_KEY"], "the ANTHROPIC_API_KEY environment variable"
    try:
        secret = st.secrets.get("ANTHROPIC_API_KEY")
    except Exception:  # no secrets.toml at all: Streamlit raises its own parse/not-found error
        secret = None
    if secret:
        return str(secret), "Streamlit secrets"
    typed = st.text_input(
        "Anthropic API key",
        type="password",
        key=K.API_KEY,
        help="Kept only in this browser session's memory; never written anywhere.",
    )
    return (typed or None), "this session"


def build_target() -> tuple[Callable[[], Any], bool, str | None] | None:
    """Target chooser: (factory, is_live, api key), or None until it is configured.

    Configuration problems show as an error here without hiding the last run's results.
    """
    from pe_eval_core.scenarios import default_model
    from pe_eval_core.scenarios.setup import make_target

    scenarios_path = state.scenarios_file()

    kind = st.radio("Target", [RECORDED, ANTHROPIC, HTTP], key=K.TARGET, horizontal=True)
    if kind == RECORDED:
        default = scenarios_path.parent / "recorded-responses.json"
        st.session_state.setdefault(K.RESPONSES, str(default))
        path = state.resolve(st.text_input("Recorded responses file", key=K.RESPONSES))
        with guarded(stop=False, not_found_fix=RESPONSES_FIX):
            access.require_path(path, "recorded responses file")
            st.caption(f"{data.recorded_count(path)} recorded responses, replayed offline.")
            return (
                (lambda: make_target("recorded", scenarios_path=scenarios_path, responses=path)),
                False,
                None,
            )
        return None
    if kind == ANTHROPIC:
        left, right = st.columns(2)
        st.session_state.setdefault(K.MODEL, default_model())
        st.session_state.setdefault(K.SKILL, DEFAULT_SKILL)
        model = left.text_input("Model", key=K.MODEL)
        skill = right.text_input("Skill file", key=K.SKILL)
        key, where = api_key()
        if not key:
            st.info(
                "Set ANTHROPIC_API_KEY, add it to Streamlit secrets, or paste a key above."
                if access.is_operator()
                else "Paste your own Anthropic API key above: this shared dashboard never "
                "runs a model on the server's key for you."
            )
            return None
        st.caption(f"Using the API key from {where}.")
        with guarded(stop=False):
            access.require_skill(state.resolve(skill))
            target = make_target(
                "anthropic",
                scenarios_path=scenarios_path,
                skill=state.resolve(skill),
                model=model,
                api_key=key,
                toolbox=agent_toolbox(),
            )
            render_agent_tools(target)
            return (lambda: target), True, key
        return None
    url = st.text_input("Agent URL", key=K.HTTP_URL, placeholder="http://127.0.0.1:8000/agent")
    timeout = st.number_input(
        "Timeout (s)", min_value=1.0, max_value=600.0, value=60.0, key=K.HTTP_TIMEOUT
    )
    if not url:
        st.info("Enter the URL of an agent speaking Mimic's contract: POST {message} -> {text}.")
        return None
    with guarded(
        stop=False,
        fix="Enter the agent's http(s) endpoint in Agent URL, e.g. "
        "http://127.0.0.1:8000/agent (Mimic's test.agent URL).",
    ):
        checked = access.agent_url(url)  # a member's URL: public only, pinned to its address
        target = make_target(
            "http",
            scenarios_path=scenarios_path,
            agent_url=url,
            timeout_s=timeout,
            agent_connect=checked,
        )
        return (lambda: target), True, None
    return None


def build_judge(is_live: bool, key: str | None, target_model: str | None = None) -> Judge | None:
    """Judge on/off; the core's ``choose_judge`` picks which (the same policy as the CLI), its
    default model steered away from the target's. The caption says what the judge can do:
    live calls, recorded verdicts, or (no key) only the verdicts already cached."""
    from pe_eval_core.scenarios.setup import choose_judge

    on = st.toggle(
        "LLM judge on candidate misses",
        value=True,
        key=K.JUDGE,
        help="Off: a substring the strict and rule checks miss stays missed.",
    )
    operator = access.is_operator()
    if key is None:  # the server's key is the operator's; a member judges on their own
        server_key = os.environ.get("ANTHROPIC_API_KEY") if operator else None
        key = server_key or st.session_state.get(K.API_KEY) or None
    with guarded(stop=False):
        judge = choose_judge(
            scenarios_path=state.scenarios_file(),
            use_judge=on,
            recorded_target=not is_live,
            api_key=key,
            target_model=target_model,
            allow_live=operator or key is not None,  # never the environment's key for a member
        )
        st.caption(judge_state(judge, target_model))
        return judge
    return None


def judge_state(judge: Judge | None, target_model: str | None = None) -> str:
    """The judge control's honest state line: what this judge can and cannot answer.

    >>> judge_state(None)
    '**Judge: off.** A phrase the strict and rule checks miss stays missed.'
    """
    from pe_eval_core.scenarios import CachedJudge, RecordedJudge, UnavailableJudge
    from pe_eval_core.scenarios.setup import CacheOnlyJudge

    if judge is None:
        return "**Judge: off.** A phrase the strict and rule checks miss stays missed."
    model = md_code(judge.model)
    if isinstance(judge, RecordedJudge):
        return (
            f"**Judge: recorded verdicts** from {md_code(judge.path.name)} (no live calls); a "
            "response or prompt they were not recorded for is ignored with a warning."
        )
    if isinstance(judge, CachedJudge):
        other = (
            ", not the target's model"
            if target_model is not None and judge.model != target_model
            else ""
        )
        return (
            f"**Judge: on**, Anthropic {model}{other}: live calls, counted in the cost guard; "
            "verdicts are cached, so a re-run asks nothing twice."
        )
    if isinstance(judge, CacheOnlyJudge):
        return (
            f"**Judge: cache only** ({model}, no API key). It can answer a candidate miss it "
            "has already judged for the same response and prompt (from the verdict cache); "
            "any other scenario that needs the judge reports judge error. Set "
            "ANTHROPIC_API_KEY or paste a key under Anthropic model to judge live."
        )
    if isinstance(judge, UnavailableJudge):
        return (
            "**Judge: unavailable** (no API key, no recorded verdicts): a scenario that needs "
            "the judge reports judge error."
        )
    return f"**Judge:** {model}."


def live_row(result: ScenarioResult) -> dict[str, Any]:
    """One row of the table that fills while the run is in progress."""
    return {
        "#": result.index,
        "Scenario": result.name,
        "Tier": result.tier,
        "Result": result.status,
        "Latency (ms)": result.latency_ms,
    }


def run(
    scenarios: list[Scenario],
    target: Target,
    judge: Judge | None,
    origin: dict[str, Any],
    *,
    repeat: int = 1,
    confirmed: bool = False,
    paid: PaidCalls | None = None,
) -> None:
    """Run inside st.status: a progress bar and a table filling as results arrive.

    The runner works on a helper thread while this script thread draws its progress. A click
    during the run (the Stop button) makes Streamlit interrupt the script at its next draw:
    that sets the runner's cancel signal, the runner cancels the scenarios in flight and
    returns the finished ones, and the stopped run is kept and reported before the rerun.
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from pe_eval_core.scenarios import run_scenarios_sync

    concurrency = int(st.session_state.get(K.CONCURRENCY, 3))
    finished: list[ScenarioResult] = []
    cancel = threading.Event()
    total = len(scenarios) * repeat
    runs = f"{len(scenarios)} scenarios" + (f" × {repeat}" if repeat > 1 else "")
    with st.status(f"Running {runs} against {target.name}…", expanded=True) as box:
        bar = st.progress(0.0, text="Starting…")
        table = st.empty()
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pe-eval-run")
        future = pool.submit(
            run_scenarios_sync,
            scenarios,
            target,
            judge=judge,
            concurrency=concurrency,
            progress=lambda done, n, latest: finished.append(latest) if latest else None,
            confirm_live=confirmed,
            repeat=repeat,
            paid_calls=paid,
            cancel=cancel,
            scenarios_path=origin["path"],
            scenarios_sha256=origin["sha256"],
        )
        try:
            drawn = -1
            while not future.done():
                n = len(finished)
                # Every pass draws (a yield point: a Stop click interrupts here, promptly).
                bar.progress(n / total if total else 1.0, text=f"{n}/{total} scored")
                if n != drawn:
                    table.dataframe(
                        pd.DataFrame([live_row(r) for r in finished[:n]]),
                        hide_index=True,
                        height=240,
                    )
                    drawn = n
                time.sleep(0.25)
            result = future.result()
        except PeEvalError as err:
            box.update(label="Run stopped", state="error")
            show_error(err)
            return
        except BaseException:  # Streamlit interrupting the script for a click: stop cleanly
            cancel.set()
            # A run that never started has nothing to keep (its error shows on the next Run).
            with contextlib.suppress(PeEvalError):
                keep(future.result(), origin, stopped=True)
            raise
        finally:
            st.session_state[K.RUNNING] = False
            pool.shutdown(wait=False)
        table.dataframe(pd.DataFrame([live_row(r) for r in finished]), hide_index=True, height=240)
        box.update(
            label=f"Done: {result.passed}/{result.total} passed", state="complete", expanded=False
        )
    keep(result, origin, stopped=False)


def keep(result: ScenarioRun, origin: dict[str, Any], *, stopped: bool) -> None:
    """Make ``result`` the page's run; a finished run is recorded in the history, a stopped
    one is not (its unfinished scenarios would read as errors in the trends)."""
    run_json = result.model_dump_json()
    st.session_state[K.RESULT] = run_json
    st.session_state[K.RESULT_VIEW] = build_view(result, run_json)
    st.session_state[K.RESULT_SOURCE] = origin["label"]
    st.session_state[K.STOPPED] = stopped
    st.session_state[K.HISTORY_ID] = None if stopped else data.record(result)


def start_run() -> None:
    """The Run button's callback: mark the run as started before the page redraws, so Run is
    drawn disabled and Stop enabled while it runs."""
    st.session_state[K.RUNNING] = True


def count_paid(
    load: Callable[[], list[Scenario]],
    make_target: Callable[[], Any],
    judge: Judge | None,
    repeat: int,
    memo: str,
) -> PaidCalls:
    """The cost guard's count (``runner.count_paid_calls_sync``), kept in session state for
    ``memo`` (what it was counted for) so a rerun that changes nothing does not count again.
    A new count clears an earlier confirmation: the user confirms the number shown."""
    from pe_eval_core.scenarios.cost import PaidCalls

    kept = st.session_state.get(K.PAID)
    if kept and kept.get("memo") == memo:
        return PaidCalls(**kept["paid"])
    paid = data.paid_calls(load(), make_target(), judge, repeat)
    if kept and kept["paid"]["target"] + kept["paid"]["judge"] != paid.total:
        st.session_state[K.CONFIRM_LIVE] = False  # a confirmation is for the count it saw
    st.session_state[K.PAID] = {
        "memo": memo,
        "paid": {
            "target": paid.target,
            "judge": paid.judge,
            "judge_measured": paid.judge_measured,
            "usd": paid.usd,
        },
    }
    return paid


def render_controls(load: Callable[[], list[Scenario]], origin: dict[str, Any]) -> None:
    """Target, concurrency, repeats, judge, the cost guard and the run button.

    The cost guard is the core's: the paid target and judge calls are counted before the run
    and shown; any paid call needs the confirmation box with the count (``access.
    paid_run_confirmed``; the CLI's 20-call threshold does not apply here), which is what the
    runner receives as ``confirm_live``.
    """
    with st.container(border=True):
        built = build_target()
        left, mid, right = st.columns([1, 1, 2])
        left.number_input("Concurrency", min_value=1, max_value=32, value=3, key=K.CONCURRENCY)
        mid.number_input(
            "Repeats",
            min_value=1,
            max_value=MAX_REPEATS,
            value=1,
            key=K.REPEAT,
            help="Run every scenario K times: pass counts of K, flaky scenarios and 95% "
            "intervals per tier. Cached judge verdicts keep repeated responses free.",
        )
        target_model = (
            st.session_state.get(K.MODEL) if st.session_state.get(K.TARGET) == ANTHROPIC else None
        )
        with right:
            judge = build_judge(
                built[1] if built else False, built[2] if built else None, target_model
            )
        if built is None:
            return
        make_target, live, _ = built
        repeat = int(st.session_state.get(K.REPEAT) or 1)
        paid: PaidCalls | None = None
        blocked = confirmed = False
        if live or bool(getattr(judge, "live", False)):
            memo = json.dumps(
                [
                    origin["sha256"],
                    origin["label"],
                    st.session_state.get(K.TARGET),
                    st.session_state.get(K.RESPONSES),
                    st.session_state.get(K.HTTP_URL),
                    target_model,
                    None if judge is None else [type(judge).__name__, judge.model],
                    repeat,
                    view_key(st.session_state.get(K.RESULT) or ""),  # a run warms the cache
                ],
                default=str,
            )
            blocked = True  # until the count is known
            with guarded(stop=False):
                paid = count_paid(load, make_target, judge, repeat, memo)
                blocked = False
        if paid is not None:
            st.caption(paid.line() + ".")
            if paid.total > 0:  # every paid run, whatever its size, confirmed for its count
                ticked = st.checkbox(
                    f"I confirm {paid.total} paid calls ({paid.target} target + {paid.judge} "
                    "judge)",
                    key=K.CONFIRM_LIVE,
                )
                confirmed = paid_run_confirmed(paid.total, paid.total if ticked else None)
                blocked = not confirmed
        running = bool(st.session_state.get(K.RUNNING))
        buttons = st.container(horizontal=True)
        clicked = buttons.button(
            "Run evaluation",
            type="primary",
            key=K.RUN,
            icon=":material/play_arrow:",
            disabled=blocked or running,
            on_click=start_run,
        )
        if running:
            buttons.button(
                "Stop",
                key=K.STOP,
                icon=":material/stop:",
                help="Cancel the scenarios in flight; the finished results are kept.",
            )
    if clicked or running:
        with guarded(stop=False):
            run(
                load(),
                make_target(),
                judge,
                origin,
                repeat=repeat,
                confirmed=confirmed,
                paid=paid,
            )
        st.session_state[K.RUNNING] = False
        st.rerun()  # redraw Run enabled, Stop gone, the results below


TABLE_COLUMNS = (
    "#",
    "Scenario",
    "Tier",
    "Strict",
    "Paraphrase",
    "Numeric",
    "Result",
    "Excludes hit",
    "Behaviour",
    "Latency (ms)",
    "Latency warning",
    "Platform",
    "Fact",
)


def build_view(model: ScenarioRun, run_json: str) -> dict[str, Any]:
    """What the results section shows, derived once from a ScenarioRun, kept in session state.

    Compact and picklable: table columns as plain lists, each non-passing scenario as its own
    JSON text (parsed only when drilled into), so a rerun never re-parses or re-validates the
    whole run, however many scenarios it holds.
    """
    columns: dict[str, list[Any]] = {c: [] for c in TABLE_COLUMNS}
    failing: dict[str, str] = {}
    for r in model.results:
        numeric = r.numeric
        for column, value in zip(
            TABLE_COLUMNS,
            (
                r.index,
                r.name,
                r.tier,
                f"{r.strict_satisfied}/{len(r.expectations)}",
                f"{r.paraphrase_satisfied}/{len(r.candidate_misses)}",
                "—" if numeric is None else ("✓" if numeric.satisfied else "✗"),
                r.status,
                ", ".join(r.excluded_hits),
                behaviour_cell(r),
                r.latency_ms,
                r.latency_warning,
                r.platform or "",
                r.source_fact or "",
            ),
            strict=True,
        ):
            columns[column].append(value)
        if r.status != "pass":
            failing[failing_key(r.name, r.repeat, model.repeats)] = r.model_dump_json()
    stats = model.scenario_stats()
    flaky = [x.name for x in stats if x.flaky]
    if model.repeats > 1:  # which of the K runs a row is, and whether its scenario is flaky
        columns["Run"] = [r.repeat for r in model.results]
        columns["Flaky"] = [r.name in flaky for r in model.results]
    return {
        "key": view_key(run_json),
        "run_id": model.run_id,
        "cancelled": model.cancelled,
        "finished": sum(1 for r in model.results if r.error != CANCELLED),
        "total": model.total,
        "passed": model.passed,
        "failed": model.failed,
        "errors": model.errors,
        "pass_rate": model.pass_rate,
        "ran": model.ran,
        "repeats": model.repeats,
        "warnings": list(model.warnings),
        "error_summary": model.error_summary(),
        "tiers": tier_rows(model),
        "flaky": flaky,
        "scenario_stats": scenario_stat_rows(model) if model.repeats > 1 else [],
        "conclusion": model.conclusion(),
        "first_error": next((r.error for r in model.results if r.error), None),
        "target": model.target,
        "judge": model.judge,
        "table": columns,
        "failing": failing,
    }


def failing_key(name: str, repeat: int, repeats: int) -> str:
    """A non-passing result's drill-down key: the scenario's name, plus which run when it
    repeats (each of the K runs is its own result).

    >>> failing_key("a", 1, 1), failing_key("a", 2, 3)
    ('a', 'a · run 2')
    """
    return name if repeats <= 1 else f"{name} · run {repeat}"


def row_key(row: dict[str, Any]) -> str:
    """:func:`failing_key` of a table row (the ``Run`` column exists only with repeats)."""
    run = row.get("Run")
    return str(row["Scenario"]) if run is None else f"{row['Scenario']} · run {run}"


def behaviour_cell(r: ScenarioResult) -> str:
    """The table's behaviour column: checks met of checks asked ("—": none asked).

    >>> from pe_eval_core.scenarios.models import BehaviourResult, ScenarioResult
    >>> r = ScenarioResult(index=1, name="a", tier="smoke", status="fail", behaviour=[
    ...     BehaviourResult(check="tools_called", label="tools_called", satisfied=False)])
    >>> behaviour_cell(r)
    '0/1'
    """
    if not r.behaviour:
        return "—"
    return f"{sum(1 for b in r.behaviour if b.satisfied)}/{len(r.behaviour)}"


def scenario_stat_rows(model: ScenarioRun) -> list[dict[str, Any]]:
    """Per scenario over its K runs (``run.statistics_summary()``): passes of the runs with a
    verdict, pass@k, pass^k, errors and the outcome (pass, fail, flaky, error)."""
    return [
        {
            "Name": row["name"],
            "Tier": row["tier"],
            "Passed": f"{row['passes']}/{row['runs']}",
            "pass@k": "—" if "pass_at_k" not in row else f"{row['pass_at_k']:.0%}",
            "pass^k": "—" if "pass_hat_k" not in row else f"{row['pass_hat_k']:.0%}",
            "Errors": row["errors"],
            "Outcome": row["outcome"],
        }
        for row in model.statistics_summary()["scenarios"]
    ]


def tier_rows(model: ScenarioRun) -> list[dict[str, Any]]:
    """Per tier: passes of the runs that produced a verdict (errors left out), the pass rate,
    its 95% interval and how it was computed (``run.tier_stats()``), and the errors apart."""
    errors = {t.tier: t.errors for t in model.by_tier()}
    return [
        {
            "tier": t.tier,
            "passed": t.passes,
            "total": t.runs,
            "rate": t.rate if t.runs else None,
            "low": t.low if t.runs else None,
            "high": t.high if t.runs else None,
            "method": t.method,
            "errors": errors.get(t.tier, 0),
        }
        for t in model.tier_stats()
    ]


def current_view() -> dict[str, Any] | None:
    """The last run's view; derived from its JSON once if only the JSON is in the session."""
    from pe_eval_core.scenarios import ScenarioRun

    run_json = st.session_state.get(K.RESULT)
    if not run_json:
        return None
    v = st.session_state.get(K.RESULT_VIEW)
    if v is None or v.get("key") != view_key(run_json):
        with st.spinner("Preparing the run's tables…"):
            v = build_view(ScenarioRun.model_validate_json(run_json), run_json)
        st.session_state[K.RESULT_VIEW] = v
    return v


def view_key(run_json: str) -> str:
    """Ties a view to its run cheaply: the JSON opens with the unique run id, plus its length."""
    return f"{run_json[:96]}|{len(run_json)}"


def render_results(
    v: dict[str, Any], run_json: str, source: str, keys: Any = K, history_id: int | None = None
) -> str | None:
    """Metrics, the tier chart, the filterable table, the failure drill-down and downloads.

    ``keys``: the widget keys (``state.Scenarios`` here, ``state.RunView`` for a run reopened
    on the History page). Returns the scenario drilled into (for the page's link).
    """
    st.markdown(f"#### Run {md_code(v['run_id'])}")
    st.caption(
        f"Target {md_escape(v['target'])} · judge {md_escape(v['judge'] or 'off')} · "
        f"scenarios from {md_escape(source)}"
        + (
            ""
            if history_id is None
            else f" · link to this run: {md_code(links.link(run=history_id))}"
        )
    )
    if history_id is not None:
        render_verdict(history_id)
    for warning in v.get("warnings") or []:
        st.warning(md_escape(warning), icon=":material/warning:")
    ran = v.get("ran", v["passed"] + v["failed"])
    repeats = int(v.get("repeats") or 1)
    cols = st.columns(4)
    cols[0].metric(
        "Scenario runs" if repeats > 1 else "Scenarios",
        v["total"],
        help=f"Every scenario ran {repeats} times." if repeats > 1 else None,
        border=True,
    )
    cols[1].metric("Passed", v["passed"], border=True)
    cols[2].metric(
        "Failed",
        v["failed"],
        delta=(f"+{v['errors']} error" + ("s" if v["errors"] != 1 else ""))
        if v["errors"]
        else None,
        delta_color="off",
        delta_arrow="off",
        border=True,
    )
    cols[3].metric(
        "Pass rate",
        fmt_pct(v["pass_rate"]) if ran else "—",
        help=f"Passed of the {ran} runs that produced a verdict; errors are left out.",
        border=True,
    )
    if v.get("cancelled"):
        st.warning(
            f"**Stopped.** {v['finished']} of {v['total']} scenarios finished before the stop; "
            "their results are below, the rest are marked cancelled. A stopped run is not "
            "recorded in the history.",
            icon=":material/stop_circle:",
        )
    elif v["total"] and v["errors"] == v["total"]:
        st.error(
            "**Every scenario errored:** the target never answered, so these numbers say "
            "nothing about the agent. First error: " + md_escape(v.get("first_error") or "unknown"),
            icon=":material/error:",
        )
    if v.get("error_summary"):
        st.warning(
            f"**{md_escape(v['error_summary'])}.** Errors produced no verdict: they are left out "
            f"of every pass rate here (passed of the {ran} runs that did).",
            icon=":material/error:",
        )
    st.info(f"**Conclusion.** {md_escape(v['conclusion'])}", icon=":material/flag:")
    st.markdown("##### Pass rate by tier")
    charts.show(charts.tier_chart, v["tiers"], width="stretch")
    render_tier_table(v["tiers"], repeats, v.get("flaky") or [])
    if v.get("scenario_stats"):
        with st.expander(f"Each scenario over its {repeats} runs (pass@k, pass^k)"):
            st.caption(
                f"pass@k: the chance at least one of k={repeats} runs passes; pass^k: the "
                "chance all of them do (from the runs that produced a verdict)."
            )
            st.table(pd.DataFrame(v["scenario_stats"]).set_index("Name"))
    href = None if history_id is None or keys is K else history_id
    shown, clicked = render_table(pd.DataFrame(v["table"]), keys, v["failing"], href)
    picked = render_failure(v["failing"], keys, shown=shown, clicked=clicked)
    render_downloads(v["run_id"], run_json, keys)
    return picked


def render_verdict(history_id: int) -> None:
    """The scenario verdict vs the pinned baseline (else the previous run on this target), as
    the core words it (``history.compare.scenario_verdict``); nothing when there is none."""
    verdict = data.scenario_verdict(history_id)
    if verdict is None:
        return
    box = st.error if verdict["regressions"] else st.success
    box(
        f"**{md_escape(verdict['sentence'])}** Compared with {verdict['how']}, run "
        f"{md_code(links.link(run=verdict['baseline']))}.",
        icon=":material/compare_arrows:",
    )


def render_tier_table(tiers: list[dict[str, Any]], repeats: int, flaky: list[str]) -> None:
    """Per tier: pass rate with its 95% interval (and which method), runs, errors apart; then
    the flaky scenarios (passed in some repeats, failed in others)."""
    if not tiers:
        return
    rows = [
        {
            "Tier": t["tier"],
            "Pass rate": charts.interval_label(t["passed"], t["total"], None, None),
            "95% interval": "—" if t.get("low") is None else f"{t['low']:.0%}–{t['high']:.0%}",
            "Errors (left out)": t.get("errors", 0),
            "Method": t.get("method") or "",
        }
        for t in tiers
    ]
    st.table(pd.DataFrame(rows).set_index("Tier"))
    if repeats > 1:
        if flaky:
            st.warning(
                f"**{len(flaky)} flaky** (passed in some of the {repeats} runs and failed in "
                "others): " + ", ".join(md_code(n) for n in flaky),
                icon=":material/shuffle:",
            )
        else:
            st.caption(f"No flaky scenario: each gave the same verdict in all {repeats} runs.")


def scenario_card(row: dict[str, Any], failing: dict[str, str], run: int | None) -> Card:
    """A scenario row on a phone: its name, why it did not pass (or that it passed), then its
    checks; on a reopened run, a link to its drill-down."""
    name = row_key(row)
    latency = row["Latency (ms)"]
    why = failure_reasons(json.loads(failing[name])) if name in failing else "passed"
    return Card(
        title=f"{name} · {row['Result']}" + (" · flaky" if row.get("Flaky") else ""),
        lead=why,
        details=[
            ("tier", str(row["Tier"])),
            ("expected phrases found", str(row["Strict"])),
            ("paraphrases accepted", str(row["Paraphrase"])),
            ("number in range", str(row["Numeric"])),
            ("behaviour checks met", str(row.get("Behaviour", "—"))),
            ("latency", f"{float(latency):.0f} ms" if text(latency) else ""),
        ],
        href=None if run is None or name not in failing else links.link(run=run, scenario=name),
        tone="pass" if row["Result"] == "pass" else "fail",
    )


def render_table(
    table: pd.DataFrame,
    keys: Any = K,
    failing: dict[str, str] | None = None,
    run: int | None = None,
) -> tuple[list[str], str | None]:
    """The per-scenario table, filterable by tier, result, platform and source fact (cards on
    a phone; ``run``: the history id whose links the cards carry).

    Returns the names the filters leave (the drill-down offers only those) and the scenario
    whose row was clicked, if any.
    """
    st.markdown("##### Scenarios")
    cols = st.columns(4)
    filters = [
        (cols[0], "Tier", keys.F_TIER),
        (cols[1], "Result", keys.F_RESULT),
        (cols[2], "Platform", keys.F_PLATFORM),
        (cols[3], "Fact", keys.F_FACT),
    ]
    mask = pd.Series(True, index=table.index)
    for col, name, key in filters:
        options = sorted(x for x in table[name].unique() if x)
        chosen = col.multiselect(name, options, key=key, placeholder="All")
        if chosen:
            mask &= table[name].isin(chosen)
    shown = table[mask].reset_index(drop=True)
    st.caption(f"{len(shown)} of {len(table)} scenarios · click a row to drill into it")
    event = table_or_cards(
        f"scenarios-{keys.TABLE}",
        lambda: st.dataframe(
            shown,
            hide_index=True,
            key=keys.TABLE,
            on_select="rerun",
            selection_mode="single-row",
            column_config={
                "Latency (ms)": st.column_config.NumberColumn(format="%.0f"),
                "Latency warning": st.column_config.CheckboxColumn("Over budget"),
                "Behaviour": st.column_config.TextColumn(
                    help="Behaviour checks met of those asked (tools_called, "
                    "confirms_before_action, no_hallucination, response_accurate, custom)"
                ),
            },
        ),
        [scenario_card(r, failing or {}, run) for r in shown.head(MAX_CARDS).to_dict("records")],
        total=len(shown),
    )
    rows = event.selection.rows if event is not None else []
    records = shown.to_dict("records")
    clicked = row_key(records[rows[0]]) if rows and rows[0] < len(records) else None
    return [row_key(r) for r in records], clicked


def expectation_marks(
    response: str, expectations: list[dict[str, Any]], hits: list[str]
) -> list[dict[str, Any]]:
    """Spans to highlight in the response: evidence of found/paraphrased expectations, excludes."""
    lower = response.lower()
    marks: list[dict[str, Any]] = []
    for e in expectations:
        if not e.get("satisfied"):
            continue
        needle = (e.get("evidence") or (e["text"] if e.get("method") == "strict" else "")).lower()
        at = lower.find(needle) if needle else -1
        if at >= 0:
            status = "found" if e.get("method") == "strict" else "paraphrase"
            marks.append(
                {
                    "start": at,
                    "end": at + len(needle),
                    "status": status,
                    "title": f"{status}: expected “{e['text']}”",
                }
            )
    for phrase in hits:
        at = lower.find(phrase.lower())
        if at >= 0:
            marks.append(
                {
                    "start": at,
                    "end": at + len(phrase),
                    "status": "excluded",
                    "title": "excluded phrase",
                }
            )
    return marks


def render_failure(
    failing: dict[str, str],
    keys: Any = K,
    shown: list[str] | None = None,
    clicked: str | None = None,
) -> str | None:
    """Drill into one non-passing scenario: each expectation, excludes, numbers vs range.

    ``shown``: the names the table's filters leave (None: all); ``clicked``: a table row the
    user clicked, drilled into when it did not pass. Returns the scenario drilled into.
    """
    st.markdown("##### Failure drill-down")
    if not failing:
        st.success("Every scenario passed.")
        return None
    keep = None if shown is None else set(shown)
    names = [n for n in failing if keep is None or n in keep]
    if not names:
        st.info("No non-passing scenario matches the table's filters.")
        return None
    if clicked is not None:
        if clicked in names:
            st.session_state[keys.FAILURE] = clicked
        else:
            st.caption(f"{md_code(clicked)} passed: nothing to drill into.")
    picked = st.session_state.get(keys.FAILURE)
    if picked not in names:  # a bare name (a ?scenario= link) picks its first non-passing run
        runs = [n for n in names if picked and n.startswith(f"{picked} · run ")]
        st.session_state[keys.FAILURE] = runs[0] if runs else names[0]
    label = f"Non-passing scenario ({len(names)}" + (
        f" of {len(failing)})" if len(names) != len(failing) else ")"
    )
    name = st.selectbox(label, names, key=keys.FAILURE)
    r = json.loads(failing[name])
    meta = (
        f"{r['tier']} · {r.get('platform') or 'no platform'} · {r.get('source_fact') or 'no fact'}"
    )
    st.caption(f"{r['status']} · {md_escape(meta)}")
    box = st.warning if r.get("error") or r["status"] != "fail" else st.error
    box("**Why it did not pass:** " + md_escape(failure_reasons(r)), icon=":material/help:")
    rows = [
        {
            "Expected": e["text"],
            "Verdict": "found"
            if e.get("method") == "strict"
            else ("paraphrase" if e.get("satisfied") else "missing"),
            "How": e.get("method") or "",
            "Judge's evidence / quote": e.get("evidence") or "",
            "Note": e.get("note") or "",
        }
        for e in r.get("expectations", [])
    ]
    if rows:
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            width="stretch",
            column_config={
                "Judge's evidence / quote": st.column_config.TextColumn(width="medium"),
                "Note": st.column_config.TextColumn(width="large"),
            },
        )
    left, right = st.columns([3, 2])
    with right:
        if r.get("excluded_hits"):
            st.error(
                "Excluded phrases present: "
                + ", ".join(f"“{md_escape(h)}”" for h in r["excluded_hits"])
            )
        for check in r.get("numeric_checks", []):
            st.markdown(f"**Numeric {md_code(check['field'])}:** {numeric_verdict(check)}")
        numbers = r.get("numbers") or []
        st.caption(
            "Numbers extracted: "
            + (", ".join(f"{n:g}" for n in numbers[:40]) or "none")
            + (" …" if len(numbers) > 40 else "")
        )
    with left:
        response = r.get("response") or ""
        if response:
            raw = st.toggle(
                "Raw text",
                key=keys.RAW,
                help="Off: the response rendered as markdown (HTML shown as text, remote "
                "images and links removed). On: exactly as written, with the expected phrases "
                "and excluded phrases marked.",
            )
            if raw:
                marks = expectation_marks(
                    response, r.get("expectations", []), r.get("excluded_hits", [])
                )
                st.html(
                    legend_html()
                    + '<div style="white-space:pre-wrap;font-size:0.9rem;max-height:420px;'
                    'overflow:auto;border:1px solid #e3e7ee;padding:0.6rem;border-radius:6px;">'
                    + response_html(response, marks)
                    + "</div>"
                )
            else:
                with st.container(border=True, height=420):
                    st.markdown(safe_markdown(response))
            missing = [e["text"] for e in r.get("expectations", []) if not e.get("satisfied")]
            if missing:
                st.markdown("**Missing:** " + ", ".join(f"“{md_escape(m)}”" for m in missing))
        else:
            st.caption("No response text (the target errored).")
    render_behaviour(r.get("behaviour") or [])
    render_tool_trace(r.get("trace"))
    return str(name)


def render_behaviour(checks: list[dict[str, Any]]) -> None:
    """One line per behaviour check: met or not, decided from the trace or by the judge, why,
    and its findings (missing tools, write tools called, ungrounded figures)."""
    if not checks:
        return
    st.markdown("**Behaviour checks**")
    for b in checks:
        st.markdown(behaviour_line(b))


def behaviour_line(b: dict[str, Any]) -> str:
    """A behaviour check in one markdown line.

    >>> print(behaviour_line({"label": "tools_called", "satisfied": False, "method": "trace",
    ...                       "detail": "missing refund", "findings": ["create_refund"]}))
    ✗ `tools_called` (from the tool trace): missing refund · create\\_refund
    """
    how = {"trace": "from the tool trace", "judge": "by the judge"}.get(
        b.get("method") or "", "not decided"
    )
    mark = "✓" if b.get("satisfied") else "✗"
    line = f"{mark} {md_code(b['label'])} ({how})"
    if b.get("detail"):
        line += ": " + md_escape(b["detail"])
    findings = b.get("findings") or []
    if findings:
        line += " · " + ", ".join(md_escape(f) for f in findings[:20])
    return line


_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_IMAGE_REF = re.compile(r"!\[([^\]]*)\]\[[^\]]*\]")
_MD_LINK = re.compile(
    r"(?<!!)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([a-z][a-z0-9+.-]*:)?//[^)]*\)", re.IGNORECASE
)
_MD_LINK_DEF = re.compile(
    # a reference definition, also inside blockquotes and list items (``> [x]: url``,
    # ``- [x]: url``, ``1. [x]: url``, nested): the container prefix is kept, the rest dropped
    r"^(?P<prefix>(?:[ \t]*(?:>|[-*+]|\d{1,9}[.)])(?=[ \t>]|$))*[ \t]*)\[[^\]]+\]:[ \t]*\S.*$",
    re.MULTILINE,
)
_AUTOLINK = re.compile(r"<([a-z][a-z0-9+.-]*:[^>\s]*)>", re.IGNORECASE)


def safe_markdown(text: str) -> str:
    """An agent's response as markdown that cannot run or fetch anything: images (inline and
    by reference) become ``[image: alt]`` text, links to remote hosts keep only their text,
    link definitions are dropped, HTML is shown as text (``<`` escaped), and ``$`` is
    escaped so dollar amounts are not read as LaTeX. Rendered with ``st.markdown`` (never
    ``unsafe_allow_html``).

    >>> print(safe_markdown('Hi <script>x</script> ![p](http://x/p.png) [a](https://y) $5'))
    Hi &lt;script>x&lt;/script> [image: p] a \\$5
    >>> print(safe_markdown("> [x]: http://e/i.png\\n- [y]: http://e/j.png\\n![x] ![y]"))
    >
    -
    !\\[x] !\\[y]
    """
    out = _MD_IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", text)
    out = _MD_IMAGE_REF.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", out)
    out = _MD_LINK.sub(lambda m: m.group(1), out)
    out = _MD_LINK_DEF.sub(lambda m: m["prefix"], out)
    out = _AUTOLINK.sub(lambda m: m.group(1), out)
    out = out.replace("&", "&amp;").replace("<", "&lt;")
    # No image can form whatever the definitions: a ``![`` left (``![x]`` naming a definition
    # the line rule missed) is escaped, so the browser never fetches anything.
    out = out.replace("![", "!\\[")
    return out.replace("$", "\\$")


RESPONSE_MARKS = {
    # status: (legend label, inline style)
    "found": ("found (strict)", "background:#d8eddc;border-bottom:2px solid #2e7d4f;"),
    "paraphrase": ("paraphrase", "background:#dbe7f6;border-bottom:2px solid #1f3a5f;"),
    "excluded": ("excluded phrase", "background:#f6d5d3;border-bottom:2px solid #c0392b;"),
}
"""How the drill-down highlights a response: where each expectation and excluded phrase was
found. (Memo prose is marked by the core's scorecard renderer; this is the agent's reply.)"""


def legend_html() -> str:
    """The colour key of :data:`RESPONSE_MARKS`."""
    chips = "".join(
        f'<span style="{style}padding:0 6px;margin-right:10px;">{label}</span>'
        for label, style in RESPONSE_MARKS.values()
    )
    return f'<div style="font-size:0.85rem;margin-bottom:0.5rem;">{chips}</div>'


def response_html(response: str, marks: list[dict[str, Any]]) -> str:
    """The response exactly as written (escaped), each mark's span highlighted with its title;
    a mark overlapping an earlier one, or outside the text, is left out.

    >>> print(response_html("a <b>", [{"start": 2, "end": 5, "status": "found", "title": "t"}]))
    a <span class="pe-mark pe-found" style="..." title="t">&lt;b&gt;</span>
    """
    out: list[str] = []
    pos = 0
    for m in sorted(marks, key=lambda m: (m["start"], -m["end"])):
        start, end = m["start"], m["end"]
        if start < pos or end > len(response) or end <= start:
            continue
        style = RESPONSE_MARKS[m["status"]][1]
        out.append(html.escape(response[pos:start]))
        out.append(
            f'<span class="pe-mark pe-{m["status"]}" style="{style}" '
            f'title="{html.escape(m["title"])}">{html.escape(response[start:end])}</span>'
        )
        pos = end
    out.append(html.escape(response[pos:]))
    return "".join(out)


def numeric_verdict(check: dict[str, Any]) -> str:
    """One numeric range check in words.

    >>> numeric_verdict({"satisfied": False, "nearest": 4280.0, "min": 4800, "max": 4840})
    '✗ nearest number 4280 is outside [4800, 4840]'
    >>> numeric_verdict({"satisfied": True, "matched": 241.0, "min": 240, "max": 242})
    '✓ 241 is inside [240, 242]'
    """
    if check["satisfied"]:
        verdict = f"✓ {check['matched']:g} is inside"
    elif check.get("nearest") is not None:
        verdict = f"✗ nearest number {check['nearest']:g} is outside"
    else:
        verdict = "✗ no number in the response for"
    return f"{verdict} [{check['min']:g}, {check['max']:g}]"


def failure_reasons(r: dict[str, Any]) -> str:
    """Every reason a scenario did not pass, in one line (the triage answer).

    >>> for reason in failure_reasons({"status": "fail", "expectations": [
    ...     {"text": "a", "satisfied": True}, {"text": "b", "satisfied": False}],
    ...     "numeric_checks": [{"field": "mrr", "satisfied": False, "nearest": 4280.0,
    ...                         "min": 4800, "max": 4840}], "excluded_hits": ["refund issued"]}
    ... ).split("; "):
    ...     print(reason)
    1 of 2 expected phrases found (80% needed), missing “b”
    numeric mrr: nearest number 4280 is outside [4800, 4840]
    excluded phrase said: “refund issued”
    >>> failure_reasons({"status": "fail", "behaviour": [{"label": "tools_called",
    ...     "satisfied": False, "detail": "create_refund was not called"}]})
    'tools_called: create_refund was not called'
    """
    reasons: list[str] = []
    if r.get("error"):  # nothing else to say: there was no response to check
        return f"the target errored ({r['error']})"
    expectations = r.get("expectations") or []
    met = sum(1 for e in expectations if e.get("satisfied"))
    if not meets_pass_ratio(met, len(expectations)):  # the core's pass rule, not our own
        missing = ", ".join(f"“{e['text']}”" for e in expectations if not e.get("satisfied"))
        reasons.append(
            f"{met} of {len(expectations)} expected phrases found (80% needed), missing {missing}"
        )
    for check in r.get("numeric_checks") or []:
        if not check.get("satisfied"):
            reasons.append(f"numeric {check['field']}: {numeric_verdict(check)[2:]}")
    if r.get("excluded_hits"):
        reasons.append("excluded phrase said: " + ", ".join(f"“{h}”" for h in r["excluded_hits"]))
    for b in r.get("behaviour") or []:
        if not b.get("satisfied"):
            reasons.append(f"{b['label']}: {b.get('detail') or 'not met'}")
    if not reasons and r["status"] == "judge error":
        reasons.append("the judge could not rule on a candidate miss")
    return "; ".join(reasons) or f"status {r['status']}"


def render_downloads(run_id: str, run_json: str, keys: Any = K) -> None:
    """Markdown report, JSON, CSV and JUnit XML, all through the core's report writers."""
    from pe_eval_core.scenarios import (
        ScenarioRun,
        render_markdown_report,
        run_to_csv,
        run_to_json,
        run_to_junit_xml,
    )

    def model() -> ScenarioRun:
        return ScenarioRun.model_validate_json(run_json)

    stem = f"scenario-run-{run_id}"
    st.markdown("##### Export")
    cols = st.columns(4)
    for col, (label, fn, ext, mime) in zip(
        cols,
        [
            ("Markdown report", render_markdown_report, "md", "text/markdown"),
            ("JSON", run_to_json, "json", "application/json"),
            ("CSV", run_to_csv, "csv", "text/csv"),
            ("JUnit XML", run_to_junit_xml, "xml", "application/xml"),
        ],
        strict=True,
    ):
        col.download_button(
            label,
            data=lambda fn=fn: fn(model()),
            file_name=f"{stem}.{ext}",
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
            key=f"{keys.DOWNLOADS}.{ext}",
        )


def render() -> None:
    """The whole page."""
    st.title("Scenario evaluation")
    links.sync("scenarios")
    st.caption(
        "Mimic scenarios run against an agent, scored by strict substring, paraphrase rules, an "
        "LLM judge on the remaining misses, and numeric ranges."
    )
    glossary.render("scenarios")
    loaded = load_inputs()
    if loaded is None:
        return
    load, origin = loaded
    st.markdown(summary_line(origin))
    render_controls(load, origin)
    v = current_view()
    if v is not None:
        render_results(
            v,
            st.session_state[K.RESULT],
            st.session_state.get(K.RESULT_SOURCE, "?"),
            history_id=st.session_state.get(K.HISTORY_ID),
        )


def agent_toolbox() -> Any:
    """The project's ``.mcp.json`` servers for the anthropic target (None: no tools)."""
    from pe_eval_core.scenarios.agent_loop import McpToolbox
    from pe_eval_core.scenarios.mcp_config import load_mcp_config

    config = load_mcp_config()
    return McpToolbox(config) if config.servers else None


def render_agent_tools(target: Any) -> None:
    """The target panel's MCP servers, tool policy and pre-run cost estimate."""
    from pe_eval_core.scenarios.cost import approx_tokens, estimate_run_cost

    toolbox = getattr(target, "toolbox", None)
    if toolbox is None:
        st.caption(
            "MCP servers: none (no .mcp.json in the project folder): the agent has no tools. "
            "Start Mimic's: `python3 scripts/mimic_stack.py start --mcp-json .mcp.json`."
        )
    else:
        servers = ", ".join(f"{s.name} ({s.where})" for s in toolbox.servers)
        st.caption(f"MCP servers: {md_escape(servers)} · tool policy: {toolbox.policy.describe()}")
    estimate = estimate_run_cost(
        target.model, scenarios=1, prefix_tokens=approx_tokens(target.system_prompt)
    )
    money = (
        "unknown (model not in the price table)"
        if estimate.usd is None
        else (f"~${estimate.usd:.3f}")
    )
    st.caption(
        f"Estimated cost per scenario: {money} (4 turns, cached prompt; tool definitions are "
        "counted once the servers are connected, in the CLI's run header)."
    )


def render_tool_trace(trace: dict[str, Any] | None) -> None:
    """A failed scenario's tool trace: turn, tool, arguments, result excerpt, error."""
    if not trace:
        return
    st.markdown("**Tool trace:** " + md_escape(_trace_summary(trace)))
    rows = [
        {
            "Turn": c.get("turn"),
            "Tool": f"{c['server']}/{c['tool']}" if c.get("server") else c["tool"],
            "Arguments": json.dumps(c.get("arguments") or {}, ensure_ascii=False),
            "Result excerpt": c.get("result_excerpt") or "",
            "Error": "refused write"
            if c.get("write_attempt")
            else ("error" if c.get("is_error") else ""),
        }
        for c in trace.get("calls", [])
    ]
    if rows:
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            width="stretch",
            column_config={"Result excerpt": st.column_config.TextColumn(width="large")},
        )


def _trace_summary(trace: dict[str, Any]) -> str:
    """``2 turns · 3 tool calls · stop end_turn · $0.0123`` from a trace's JSON.

    >>> _trace_summary({"turns": 2, "calls": [{}], "stop": "end_turn", "cost_usd": None})
    '2 turns · 1 tool calls · stop end_turn · cost unknown'
    """
    cost = trace.get("cost_usd")
    money = "cost unknown" if cost is None else f"${cost:.4f}"
    parts = [f"{trace.get('turns', 0)} turns", f"{len(trace.get('calls', []))} tool calls"]
    parts.append(f"stop {trace.get('stop', 'end_turn')}")
    if trace.get("stop_detail"):
        parts.append(str(trace["stop_detail"]))
    return " · ".join([*parts, money])
