"""Drilling into one scenario that did not pass: why, each expectation with the judge's
quote, the numbers read against the range, the response (rendered safely, or raw with the
matches marked), the behaviour checks and the tool trace."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pandas as pd
import streamlit as st

from pe_eval_core.scenarios.scoring.checks import meets_pass_ratio
from pe_eval_core.scenarios.trace import TraceCall, executed_write
from ui import state
from ui.errors import md_code, md_escape
from ui.responsive import table_with_detail

K = state.Scenarios


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
    user clicked, drilled into when it did not pass. Returns the scenario drilled into when
    someone chose it (a link, a click, the picker), None for the first one shown by default
    (so the address bar names a scenario only when one was asked for).
    """
    st.markdown("##### Failure drill-down")
    name = pick_failure(failing, keys, shown, clicked)
    if name is None:
        return None
    r = json.loads(failing[name])
    meta = (
        f"{r['tier']} · {r.get('platform') or 'no platform'} · {r.get('source_fact') or 'no fact'}"
    )
    st.caption(f"{r['status']} · {md_escape(meta)}")
    box = st.warning if r.get("error") or r["status"] != "fail" else st.error
    box("**Why it did not pass:** " + md_escape(failure_reasons(r)), icon=":material/help:")
    chosen = bool(st.session_state.get(chosen_key(keys)))
    render_expectations(r.get("expectations", []), keys)
    left, right = st.columns([3, 2])
    with right:
        render_checks(r)
    with left:
        render_response(r, keys)
    render_behaviour(r.get("behaviour") or [])
    render_tool_trace(r.get("trace"))
    return str(name) if chosen else None


def chosen_key(keys: Any) -> str:
    """Session key: whether the drill-down's scenario was asked for (not the default)."""
    return f"{keys.FAILURE}.chosen"


def choose(keys: Any, name: str) -> None:
    """Drill into ``name`` (a link's scenario: a bare name opens its first non-passing run)."""
    st.session_state[keys.FAILURE] = name
    st.session_state[chosen_key(keys)] = True


def _mark_chosen(key: str) -> None:
    st.session_state[key] = True


def pick_failure(
    failing: dict[str, str], keys: Any, shown: list[str] | None, clicked: str | None
) -> str | None:
    """The non-passing scenario to drill into (the selectbox), among those the table's
    filters leave; a clicked row that did not pass is selected. None: nothing to drill into."""
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
            choose(keys, clicked)
        else:
            st.caption(f"{md_code(clicked)} passed: nothing to drill into.")
    picked = st.session_state.get(keys.FAILURE)
    if picked not in names:  # a bare name (a ?scenario= link) picks its first non-passing run
        runs = [n for n in names if picked and n.startswith(f"{picked} · run ")]
        st.session_state[keys.FAILURE] = runs[0] if runs else names[0]
        if not runs:
            st.session_state[chosen_key(keys)] = False  # the default, not asked for
    label = f"Non-passing scenario ({len(names)}" + (
        f" of {len(failing)})" if len(names) != len(failing) else ")"
    )
    return str(
        st.selectbox(
            label, names, key=keys.FAILURE, on_change=_mark_chosen, args=(chosen_key(keys),)
        )
    )


def render_expectations(expectations: list[dict[str, Any]], keys: Any = K) -> None:
    """One row per expected phrase: found, paraphrase or missing, how, the judge's quote (a
    row clicked is written out in full: the judge's note is often longer than its cell)."""
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
        for e in expectations
    ]
    if rows:
        table_with_detail(
            pd.DataFrame(rows),
            f"{keys.FAILURE}.expectations",
            column_config={
                "Judge's evidence / quote": st.column_config.TextColumn(width="medium"),
                "Note": st.column_config.TextColumn(width="large"),
            },
        )


def render_checks(r: dict[str, Any]) -> None:
    """Excluded phrases present, each numeric range against the numbers read."""
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


def render_response(r: dict[str, Any], keys: Any = K) -> None:
    """The response, rendered safely as markdown, or raw with the matches marked; then the
    expected phrases still missing."""
    response = r.get("response") or ""
    if not response:
        st.caption("No response text (the target errored).")
        return
    raw = st.toggle(
        "Raw text",
        key=keys.RAW,
        help="Off: the response rendered as markdown (HTML shown as text, remote "
        "images and links removed). On: exactly as written, with the expected phrases "
        "and excluded phrases marked.",
    )
    if raw:
        marks = expectation_marks(response, r.get("expectations", []), r.get("excluded_hits", []))
        st.html(
            legend_html() + '<div style="white-space:pre-wrap;font-size:0.9rem;max-height:420px;'
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
    missing “b” (1 of 2 expected phrases found, 80% needed)
    numeric mrr: nearest number 4280 is outside [4800, 4840]
    excluded phrase said: “refund issued”
    >>> failure_reasons({"status": "fail", "behaviour": [{"label": "tools_called",
    ...     "satisfied": False, "detail": "create_refund was not called"}]})
    'tools_called: create_refund was not called'
    >>> failure_reasons({"status": "fail", "write_failure": "write executed in a read-only "
    ...                  "eval: mimic-stripe/create_refund (it ran on the server)"})
    'write executed in a read-only eval: mimic-stripe/create_refund (it ran on the server)'
    """
    reasons: list[str] = []
    if r.get("error"):  # nothing else to say: there was no response to check
        return f"the target errored ({r['error']})"
    expectations = r.get("expectations") or []
    met = sum(1 for e in expectations if e.get("satisfied"))
    if not meets_pass_ratio(met, len(expectations)):  # the core's pass rule, not our own
        missing = ", ".join(f"“{e['text']}”" for e in expectations if not e.get("satisfied"))
        reasons.append(  # what is missing first: the one line a phone shows
            f"missing {missing} ({met} of {len(expectations)} expected phrases found, 80% needed)"
        )
    for check in r.get("numeric_checks") or []:
        if not check.get("satisfied"):
            reasons.append(f"numeric {check['field']}: {numeric_verdict(check)[2:]}")
    if r.get("excluded_hits"):
        reasons.append("excluded phrase said: " + ", ".join(f"“{h}”" for h in r["excluded_hits"]))
    for b in r.get("behaviour") or []:
        if not b.get("satisfied"):
            reasons.append(f"{b['label']}: {b.get('detail') or 'not met'}")
    if r.get("write_failure"):  # a write the scenario did not expect, refused or run
        reasons.append(r["write_failure"])
    if not reasons and r["status"] == "judge error":
        reasons.append("the judge could not rule on a candidate miss")
    return "; ".join(reasons) or f"status {r['status']}"


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
            else "write ran"
            if executed_write(TraceCall.model_validate(c))
            else ("error" if c.get("is_error") else ""),
        }
        for c in trace.get("calls", [])
    ]
    if rows:
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            placeholder="",
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
