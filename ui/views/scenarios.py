"""Scenario evaluation page (eval engineers): scenarios + target -> scored table -> triage.

Thin by design: choose the inputs, hand them to the core runner, render the run it returns.
The run is kept in session state as a JSON-mode dict; views of it are cached by run id.
This module holds the page and its controls (inputs, target, judge, the cost guard, the run);
the results are :mod:`ui.views.scenario_results`, the drill-down
:mod:`ui.views.scenario_failure`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from hashlib import sha256 as _sha256
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from pe_eval_core.access import paid_run_confirmed
from pe_eval_core.errors import PeEvalError
from pe_eval_core.scenarios.options import DEFAULTS, RunOptions, run_options
from pe_eval_core.scenarios.run.runner import LIVE_CONFIRM_THRESHOLD
from pe_eval_core.wording import target_words
from ui import access, data, glossary, links, state
from ui.errors import guarded, md_code, md_escape, show_error
from ui.views.scenario_failure import choose
from ui.views.scenario_results import build_view, current_view, render_results, view_key

if TYPE_CHECKING:
    from pe_eval_core.scenarios import Judge, Scenario, ScenarioResult, ScenarioRun, Target
    from pe_eval_core.scenarios.run.costs import PaidCalls

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
        up = st.file_uploader(
            "Scenarios file (JSON)",
            type=["json"],
            key=K.UPLOAD,
            max_upload_size=data.upload_limit_mb(),
            help=data.upload_help(),
        )
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


def page_options() -> RunOptions:
    """The run's options from this page's controls (read from the session, so the target, the
    cost guard and the run see the same ones); every other option is the one default."""
    ss = st.session_state
    http = ss.get(K.TARGET) == HTTP and ss.get(K.HTTP_TIMEOUT) is not None
    return run_options(
        concurrency=ss.get(K.CONCURRENCY),
        repeat=ss.get(K.REPEAT) or None,
        timeout_s=float(ss[K.HTTP_TIMEOUT]) if http else None,
    )


def build_target(
    options: RunOptions = DEFAULTS,
) -> tuple[Callable[[], Any], bool, str | None] | None:
    """Target chooser: (factory, is_live, api key), or None until it is configured.

    Configuration problems show as an error here without hiding the last run's results.
    """
    from pe_eval_core.scenarios import default_model
    from pe_eval_core.scenarios.agent.mcp_config import load_mcp_config
    from pe_eval_core.scenarios.run.setup import make_target, make_toolbox

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
                toolbox=make_toolbox(load_mcp_config(), options),
                options=options,
            )
            render_agent_tools(target)
            return (lambda: target), True, key
        return None
    url = st.text_input("Agent URL", key=K.HTTP_URL, placeholder="http://127.0.0.1:8000/agent")
    st.number_input(
        "Timeout (s)",
        min_value=1.0,
        max_value=600.0,
        value=float(DEFAULTS.timeout_s),
        key=K.HTTP_TIMEOUT,
        help="Seconds to wait for each reply of the agent.",
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
            options=options,
            agent_connect=checked,
        )
        return (lambda: target), True, None
    return None


def build_judge(
    is_live: bool,
    key: str | None,
    target_model: str | None = None,
    options: RunOptions = DEFAULTS,
    target: Target | None = None,
) -> Judge | None:
    """Judge on/off; the core's ``choose_judge`` picks which (the same policy as the CLI), its
    default model steered away from the target's. The caption says what the judge can do:
    live calls, recorded verdicts, or (no key) only the verdicts already cached."""
    from pe_eval_core.scenarios.run.setup import choose_judge

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
            options=options,
            target=target,  # a recorded file's saved verdicts come first
        )
        st.caption(judge_state(judge, target_model))
        return judge
    return None


def judge_state(judge: Judge | None, target_model: str | None = None) -> str:
    """The judge control's honest state line: what this judge can and cannot answer.

    >>> judge_state(None)
    '**Judge: off.** A phrase the strict and rule checks miss stays missed.'
    """
    if judge is None:
        return "**Judge: off.** A phrase the strict and rule checks miss stays missed."
    fallback = getattr(judge, "fallback", None)  # recorded verdicts first, then this judge
    if judge.kind == "recorded" and fallback is not None:
        saved = ", then ".join(md_code(x) for x in getattr(judge, "sources", [])[:-1])
        rest = judge_state(fallback, target_model)
        return (
            f"**Judge: recorded verdicts** from {saved or 'none'}, each used only for the "
            "response it judged (no live calls for them); anything else: "
            f"{rest.removeprefix('**Judge: ').replace('**', '', 1)}"
        )
    model = md_code(judge.model)
    other = (
        ", not the target's model"
        if target_model is not None and judge.model != target_model
        else ""
    )
    lines = {
        "recorded": f"**Judge: recorded verdicts** from {md_escape(judge.source)} (no live "
        "calls); a response or prompt they were not recorded for is ignored with a warning.",
        "live": f"**Judge: on**, Anthropic {model}{other}: live calls, counted in the cost "
        "guard; verdicts are cached, so a re-run asks nothing twice.",
        "cache only": f"**Judge: cache only** ({model}, no API key). It can answer a candidate "
        "miss it has already judged for the same response and prompt (from the verdict "
        "cache); any other scenario that needs the judge reports judge error. Set "
        "ANTHROPIC_API_KEY or paste a key under Anthropic model to judge live.",
        "unavailable": "**Judge: unavailable** (no API key, no recorded verdicts): a scenario "
        "that needs the judge reports judge error.",
    }
    return lines.get(judge.kind, f"**Judge:** {model}.")


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
    options: RunOptions = DEFAULTS,
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

    finished: list[ScenarioResult] = []
    repeat = options.repeat
    cancel = threading.Event()
    total = len(scenarios) * repeat
    runs = f"{len(scenarios)} scenarios" + (f" × {repeat}" if repeat > 1 else "")
    with st.status(f"Running {runs} against {target_words(target.name)}…", expanded=True) as box:
        bar = st.progress(0.0, text="Starting…")
        table = st.empty()
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pe-eval-run")
        future = pool.submit(
            run_scenarios_sync,
            scenarios,
            target,
            judge=judge,
            options=options,
            progress=lambda done, n, latest: finished.append(latest) if latest else None,
            confirm_live=confirmed,
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
    drawn disabled and Stop enabled while it runs (in the run form, kept open)."""
    st.session_state[K.RUNNING] = True
    st.session_state[K.FORM] = True


def count_paid(
    load: Callable[[], list[Scenario]],
    make_target: Callable[[], Any],
    judge: Judge | None,
    options: RunOptions,
    memo: str,
) -> PaidCalls:
    """The cost guard's count (``runner.count_paid_calls_sync``), kept in session state for
    ``memo`` (what it was counted for) so a rerun that changes nothing does not count again.
    A new count clears an earlier confirmation: the user confirms the number shown."""
    from pe_eval_core.scenarios.run.costs import PaidCalls

    kept = st.session_state.get(K.PAID)
    if kept and kept.get("memo") == memo:
        return PaidCalls(**kept["paid"])
    paid = data.paid_calls(load(), make_target(), judge, options)
    if kept and kept["paid"]["target"] + kept["paid"]["judge"] != paid.total:
        st.session_state[K.CONFIRM_LIVE] = False  # a confirmation is for the count it saw
    st.session_state[K.PAID] = {
        "memo": memo,
        "paid": {
            "target": paid.target,
            "judge": paid.judge,
            "judge_measured": paid.judge_measured,
            "usd": paid.usd,
            "local_target": paid.local_target,
        },
    }
    return paid


def confirm_label(paid: PaidCalls) -> str:
    """The confirmation box's words, as the count's line says them (a local agent's calls are
    calls, the judge's paid).

    >>> from pe_eval_core.scenarios.run.costs import PaidCalls
    >>> confirm_label(PaidCalls(19, 2, local_target=True))
    'I confirm 21 calls (19 to the local agent + 2 paid judge)'
    >>> confirm_label(PaidCalls(19, 2))
    'I confirm 21 paid calls (19 target + 2 judge)'
    """
    if paid.local_target:
        return (
            f"I confirm {paid.total} calls ({paid.target} to the local agent + {paid.judge} "
            "paid judge)"
        )
    return f"I confirm {paid.total} paid calls ({paid.target} target + {paid.judge} judge)"


def render_controls(load: Callable[[], list[Scenario]], origin: dict[str, Any]) -> None:
    """Target, concurrency, repeats, judge, the cost guard and the run button.

    The cost guard is the core's: the paid target and judge calls are counted before the run
    and shown; any paid call needs the confirmation box with the count (``access.
    paid_run_confirmed``; the CLI's 20-call threshold does not apply here), which is what the
    runner receives as ``confirm_live``.
    """
    options = page_options()
    with st.container(border=True):
        built = build_target(options)
        left, mid, right = st.columns([1, 1, 2])
        left.number_input(
            "Concurrency",
            min_value=1,
            max_value=32,
            value=DEFAULTS.concurrency,
            key=K.CONCURRENCY,
        )
        mid.number_input(
            "Repeats",
            min_value=1,
            max_value=MAX_REPEATS,
            value=DEFAULTS.repeat,
            key=K.REPEAT,
            help="Run every scenario K times: pass counts of K, flaky scenarios and 95% "
            "intervals per tier. Cached judge verdicts keep repeated responses free.",
        )
        target_model = (
            st.session_state.get(K.MODEL) if st.session_state.get(K.TARGET) == ANTHROPIC else None
        )
        with right:
            judge = build_judge(
                built[1] if built else False,
                built[2] if built else None,
                target_model,
                options,
                built[0]() if built and not built[1] else None,
            )
        if built is None:
            return
        make_target, live, _ = built
        paid: PaidCalls | None = None
        blocked = confirmed = False
        if live or (judge is not None and judge.live):
            memo = json.dumps(
                [
                    origin["sha256"],
                    origin["label"],
                    st.session_state.get(K.TARGET),
                    st.session_state.get(K.RESPONSES),
                    st.session_state.get(K.HTTP_URL),
                    target_model,
                    None if judge is None else [judge.kind, judge.model],
                    options.repeat,
                    options.timeout_s,
                    view_key(st.session_state.get(K.RESULT) or ""),  # a run warms the cache
                ],
                default=str,
            )
            blocked = True  # until the count is known
            with guarded(stop=False):
                paid = count_paid(load, make_target, judge, options, memo)
                blocked = False
        if paid is not None:
            st.caption(paid.line() + ".")
            if paid.total > 0:  # every paid run, whatever its size, confirmed for its count
                ticked = st.checkbox(confirm_label(paid), key=K.CONFIRM_LIVE)
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
                options=options,
                confirmed=confirmed,
                paid=paid,
            )
        st.session_state[K.RUNNING] = False
        st.rerun()  # redraw Run enabled, Stop gone, the results below


def render() -> None:
    """The whole page: the run it opens on (a link's, this session's, else the latest
    recorded) answered on the first screen, the run form one click away, then the details."""
    st.title("Scenario evaluation")
    scroll_to = open_run()
    v = current_view()
    history_id = st.session_state.get(K.HISTORY_ID)
    if v is None:
        links.sync("scenarios")
        st.caption(
            "No scenario run recorded yet: run the scenarios below (the demo replays recorded "
            "responses offline, no key needed)."
        )
        render_run_form(expanded=True)
        return
    picked = render_results(
        v,
        st.session_state[K.RESULT],
        st.session_state.get(K.RESULT_SOURCE, "?"),
        history_id=history_id,
        page="scenarios",
        scroll_to=scroll_to,
        after_lead=lambda: render_run_form(expanded=bool(st.session_state.get(K.RUNNING))),
    )
    links.sync("scenarios", run=history_id, scenario=picked)


def render_run_form(*, expanded: bool) -> None:
    """The inputs, target, judge, cost guard and Run button, in an expander (one click away
    from the run on screen; open when there is no run yet). The expander's state is kept
    under its key, so it stays as the user left it whatever the run above it shows; while
    it is closed its controls are not drawn (nothing is loaded or counted)."""
    if expanded:
        st.session_state[K.FORM] = True
    st.session_state.setdefault(K.FORM, False)
    form = st.expander(
        "Run an evaluation", key=K.FORM, on_change="rerun", icon=":material/play_arrow:"
    )
    if not form.open:
        glossary.render("scenarios")
        return
    with form:
        st.caption(
            "Mimic scenarios run against an agent, scored by strict substring, paraphrase "
            "rules, an LLM judge on the remaining misses, and numeric ranges."
        )
        loaded = load_inputs()
        if loaded is None:
            return
        load, origin = loaded
        st.markdown(summary_line(origin))
        render_controls(load, origin)
    glossary.render("scenarios")


def open_run() -> str | None:
    """Put the run the page opens on in the session: a link's (``?page=scenarios&run=ID``,
    its ``scenario`` drilled into), else this session's last, else the latest recorded
    scenario run. Returns the scenario a new link asked for (to scroll to)."""
    if links.is_new("scenarios"):
        params = links.current()
        ref = links.run_ref(params)
        if ref is not None and show_recorded(ref):
            scenario = params.get("scenario")
            if scenario:
                choose(K, scenario)  # a bare name opens its first non-passing run
            return scenario
    if st.session_state.get(K.RESULT) is None:
        show_recorded(None)
    return None


def show_recorded(ref: str | None) -> bool:
    """Make recorded run ``ref`` (None: the latest) the page's run; False when there is none
    or it cannot be opened (said on the page; the session's run stays)."""
    try:
        opened = data.recorded_scenario_run(ref)
    except PeEvalError as err:
        show_error(
            err,
            fix="Open a run from the History page; the link may name a run recorded in "
            "another history database.",
        )
        return False
    if opened is None:
        return False
    st.session_state[K.RESULT] = opened["run_json"]
    st.session_state[K.RESULT_VIEW] = opened["view"]
    st.session_state[K.RESULT_SOURCE] = opened["source"]
    st.session_state[K.HISTORY_ID] = opened["id"]
    st.session_state[K.STOPPED] = False
    return True


def render_agent_tools(target: Target) -> None:
    """The target panel's MCP servers, tool policy and pre-run cost estimate."""
    from pe_eval_core.scenarios.run.costs import approx_tokens, estimate_run_cost

    toolbox = target.toolbox
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
