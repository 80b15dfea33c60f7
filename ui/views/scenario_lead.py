"""The first screen of a scenario run: which run, its verdict against the baseline, the
failing scenarios by name with their one-line why, and a link to copy (issue 21).

Above the fold at 1440x900 and 390x844: the eval engineer's "did it get worse, and what
fails?" is answered before any table. Each failing name is a link that opens its drill-down,
scrolled into view, with the full why; the colour is the core's tone of the verdict.
"""

from __future__ import annotations

import html
import json
from typing import Any

import streamlit as st

from pe_eval_core.rates import tally_text
from pe_eval_core.tone import Tone, run_tone
from pe_eval_core.wording import count_of, target_words
from ui import links, tones
from ui.errors import md_escape
from ui.views.scenario_failure import failure_reasons

MAX_LISTED = 8
"""Failing scenarios named on the first screen (the rest are counted, and in the table)."""

LEAD_CSS = """<style>
.pe-failing { margin: 0.1rem 0 0.4rem 0 !important; padding: 0 !important; list-style: none;
  font-size: 0.92rem; }
.pe-failing li { margin: 0 !important; }
.pe-failing li { display: flex; gap: 0.6rem; align-items: baseline; padding: 0.12rem 0;
  border-bottom: 1px solid #eef1f5; min-width: 0; }
.pe-failing a { color: #1b1f24; font-weight: 600; white-space: nowrap; text-decoration: none;
  border-bottom: 1px dotted #8a94a6; }
.pe-failing .status { color: #c62828; font-size: 0.8rem; white-space: nowrap; }
.pe-failing .why { color: #3c4550; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; min-width: 0; flex: 1 1 auto; }
.pe-failing .more { color: #5a6472; font-size: 0.85rem; border: none; }
.pe-runlink { font-size: 0.85rem; color: #5a6472; overflow-wrap: anywhere; }
.pe-runlink button { margin-left: 0.5rem; font-size: 0.8rem; padding: 0 0.5rem;
  border: 1px solid #c5ccd6; border-radius: 4px; background: #fff; cursor: pointer; }
@media (max-width: 640px) {
  .pe-failing { font-size: 0.84rem; line-height: 1.3; }
  .pe-failing li { flex-wrap: wrap; gap: 0 0.5rem; padding: 0.08rem 0; }
  .pe-failing a { white-space: normal; overflow-wrap: anywhere; }
  .pe-failing .why { flex-basis: 100%; font-size: 0.8rem; }
  .st-key-scenario-lead h4 { font-size: 1.05rem; padding: 0.2rem 0; }
  .st-key-scenario-lead [data-testid="stAlertContainer"] p { font-size: 0.86rem; }
  .st-key-scenario-lead [data-testid="stAlertContainer"] { padding: 0.6rem 0.75rem; }
}
</style>"""
"""The failing list: one line per scenario at a desk (the why cut with an ellipsis, the full
text one click away in its drill-down), two on a phone."""

COPY_JS = """<script>
for (const button of document.querySelectorAll(".pe-runlink button:not([data-bound])")) {
  button.dataset.bound = "1";
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(button.dataset.url).then(
      () => { button.textContent = "Copied"; }, () => { button.textContent = "Select it"; });
  });
}
</script>"""


def run_link(history_id: int | None, page: str, scenario: str | None = None) -> str | None:
    """The link to this run on ``page`` (``?page=scenarios&run=7``, ``?run=7`` on History)."""
    if history_id is None:
        return None
    if page == "scenarios":
        return links.link(page="scenarios", run=history_id, scenario=scenario)
    return links.link(run=history_id, scenario=scenario)


def outcome_text(v: dict[str, Any]) -> str:
    """The run's outcome in one line: passes of the runs with a verdict, failures, errors.

    >>> outcome_text({"passed": 15, "failed": 3, "errors": 1, "total": 19, "ran": 18})
    '15/18 (83.3%) passed · 3 failed · 1 error, left out of the rate'
    >>> outcome_text({"passed": 0, "failed": 0, "errors": 19, "total": 19, "ran": 0})
    'Every scenario errored (19/19): no verdict on the agent'
    """
    ran = v.get("ran", v["passed"] + v["failed"])
    if v["total"] and v["errors"] >= v["total"]:
        return f"Every scenario errored ({v['errors']}/{v['total']}): no verdict on the agent"
    parts = [f"{tally_text(v['passed'], ran)} passed", f"{v['failed']} failed"]
    if v["errors"]:
        parts.append(f"{count_of(v['errors'], 'error')}, left out of the rate")
    return " · ".join(parts)


def failing_items(v: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(name, status, why) of each non-passing scenario, failures before errors."""
    items = []
    for name, raw in v["failing"].items():
        r = json.loads(raw)
        items.append((name, str(r.get("status") or ""), failure_reasons(r)))
    return sorted(items, key=lambda x: x[1] != "fail")


def failing_html(
    items: list[tuple[str, str, str]], history_id: int | None, page: str, regressed: set[str]
) -> str:
    """The failing list (escaped; each name a link to its drill-down when the run is in the
    history), the why's full text in its title."""
    rows = []
    for name, status, why in items[:MAX_LISTED]:
        base = name.split(" · run ")[0]
        href = run_link(history_id, page, base)
        label = html.escape(name)
        title = f'<a href="{html.escape(href)}" target="_self">{label}</a>' if href else label
        mark = "regressed" if base in regressed else status
        rows.append(
            f'<li data-scenario="{label}">{title}<span class="status">{html.escape(mark)}</span>'
            f'<span class="why" title="{html.escape(why)}">{html.escape(why)}</span></li>'
        )
    rest = len(items) - MAX_LISTED
    if rest > 0:
        rows.append(f'<li class="more">and {rest} more in the table below</li>')
    return f'{LEAD_CSS}<ul class="pe-failing">{"".join(rows)}</ul>'


def copy_link_html(url: str) -> str:
    """A real link to the run and a button that copies it."""
    u = html.escape(url)
    return (
        f'<div class="pe-runlink">Link to this run: <a href="{u}" target="_self">{u}</a>'
        f'<button type="button" data-url="{u}">Copy</button>{COPY_JS}</div>'
    )


def render_lead(
    v: dict[str, Any],
    history_id: int | None,
    *,
    page: str,
    verdict: dict[str, Any] | None,
    source: str,
) -> None:
    """Which run (on the scenario page; History titles it), its verdict (tone from the core's
    rule), the failing scenarios, the link."""
    with st.container(key="scenario-lead"):
        _lead(v, history_id, page=page, verdict=verdict, source=source)


def _lead(
    v: dict[str, Any],
    history_id: int | None,
    *,
    page: str,
    verdict: dict[str, Any] | None,
    source: str,
) -> None:
    when = (v.get("started") or "")[:16].replace("T", " ")
    title = f"Run #{history_id}" if history_id is not None else "This run (not recorded)"
    if page == "scenarios":  # History titles a reopened run itself
        st.markdown(f"#### {title}" + (f" · {md_escape(when)} UTC" if when else ""))
    regressions = int(verdict["regressions"]) if verdict else 0
    tone = run_tone(
        total=v["total"], failed=v["failed"], errors=v["errors"], regressions=regressions
    )
    body = f"**{md_escape(outcome_text(v))}.**"
    if verdict is not None and verdict.get("skipped"):  # a pinned baseline made another way
        body += f" {md_escape(verdict['skipped'])}"
    if verdict is not None and verdict.get("baseline") is not None:
        body += f" {md_escape(verdict['sentence'])}"
        if verdict.get("significance"):
            body += f" {md_escape(verdict['significance'])}"
        body += (
            f" Compared with {verdict['how']}, "
            f"[run #{verdict['baseline']}]({run_link(verdict['baseline'], page)})."
        )
    elif history_id is not None:
        body += " No earlier run with the same setup to compare with."
    if v["total"] and v["errors"] >= v["total"]:
        body += " First error: " + md_escape(v.get("first_error") or "unknown") + "."
    icon = {Tone.GOOD: ":material/check_circle:", Tone.BAD: ":material/error:"}.get(
        tone, ":material/compare_arrows:"
    )
    tones.banner(tone, body, key="scenario-verdict", icon=icon)
    items = failing_items(v)
    if items:
        regressed = set(verdict.get("regressed") or []) if verdict else set()
        with st.container(key="scenario-failing"):
            st.markdown(
                f"**Not passing ({len(items)} of {v['total']})**: click a name for its drill-down."
            )
            st.html(failing_html(items, history_id, page, regressed))
    link = run_link(history_id, page)
    st.caption(
        f"Target {md_escape(target_words(v['target']))} · judge {md_escape(v['judge'] or 'off')}"
        f" · scenarios from {md_escape(source)} · run id {md_escape(v['run_id'])}"
    )
    if link is not None:
        st.html(copy_link_html(links.full(link)), unsafe_allow_javascript=True)
