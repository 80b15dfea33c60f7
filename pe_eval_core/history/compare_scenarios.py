"""Comparing two scenario runs: regressions first, each with the reason it flipped.

Runs are aligned by scenario name, each scenario's repeats pooled into an outcome (pass: every
run passed, fail: none did, flaky: both, error: no run produced a verdict) and classified by
``scenarios.statistics.pair_change``: a regression now always fails and did not (pass -> fail,
flaky -> fail), a fix the reverse; scenarios flaky in either run but passing at least once in
both, and scenarios that errored in either run, are listed apart and never counted as
regressions. The change is tested with an exact McNemar test on the paired outcomes
(``scenarios.statistics.compare_runs``). A comparison of runs with
different targets, scenario sets or repeat counts says so first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, Field

from pe_eval_core.errors import UnlikeRunsError
from pe_eval_core.history.records import (
    RunRecord,
    RunSummary,
    ScenarioResultRow,
    recorded_manifest,
)
from pe_eval_core.rates import pass_rate, tally_text
from pe_eval_core.scenarios import statistics
from pe_eval_core.scenarios.models.manifest import differences as manifest_differences
from pe_eval_core.scenarios.statistics import ScenarioStats


class ExpectationChange(BaseModel):
    """One ``response_contains`` line whose verdict differs between the runs."""

    text: str
    before: bool | None
    after: bool | None
    method_before: str | None = None
    method_after: str | None = None


class NumericChange(BaseModel):
    """A numeric range check whose verdict differs between the runs."""

    field: str
    min: float | None = None
    max: float | None = None
    before: bool | None
    after: bool | None
    matched_before: float | None = None
    matched_after: float | None = None
    nearest_after: float | None = None

    def describe(self) -> str:
        bounds = (
            f" [{self.min:g}, {self.max:g}]"
            if self.min is not None and self.max is not None
            else ""
        )
        text = f"numeric range {self.field or 'value'}{bounds}: {_ok_word(self.before)}"
        if self.matched_before is not None:
            text += f" ({self.matched_before:g})"
        text += f" -> {_ok_word(self.after)}"
        if self.after and self.matched_after is not None:
            text += f" ({self.matched_after:g})"
        elif self.after is False and self.nearest_after is not None:
            text += f" (nearest {self.nearest_after:g})"
        return text


class ScenarioChange(BaseModel):
    """One scenario present in either run, with what differs between its two verdicts."""

    name: str
    tier: str | None = None
    source_fact: str | None = None
    before: str | None
    """Status in run A (None: not in run A)."""
    after: str | None
    """Status in run B (None: not in run B)."""
    expectations: list[ExpectationChange] = Field(default_factory=list)
    numeric: list[NumericChange] = Field(default_factory=list)
    numbers_added: list[float] = Field(default_factory=list)
    numbers_removed: list[float] = Field(default_factory=list)
    excluded_hits_added: list[str] = Field(default_factory=list)
    excluded_hits_removed: list[str] = Field(default_factory=list)
    error_before: str | None = None
    error_after: str | None = None
    passes_before: int | None = None
    runs_before: int | None = None
    """Repeats of the scenario in run A that produced a verdict (None: not in run A)."""
    passes_after: int | None = None
    runs_after: int | None = None

    def reasons(self) -> list[str]:
        """What changed, one short sentence each (empty when nothing detectable changed)."""
        out = []
        for e in self.expectations:
            out.append(
                f"expectation {e.text!r}: {_verdict(e.before, e.method_before)} -> "
                f"{_verdict(e.after, e.method_after)}"
            )
        out += [n.describe() for n in self.numeric]
        if self.numbers_removed:
            out.append(f"numbers no longer in the response: {_fmt_numbers(self.numbers_removed)}")
        if self.numbers_added:
            out.append(f"numbers new in the response: {_fmt_numbers(self.numbers_added)}")
        if self.excluded_hits_added:
            out.append(f"now mentions excluded text: {self.excluded_hits_added}")
        if self.excluded_hits_removed:
            out.append(f"no longer mentions excluded text: {self.excluded_hits_removed}")
        if self.error_after and self.error_after != self.error_before:
            out.append(f"error: {self.error_after}")
        elif self.error_before and not self.error_after:
            out.append(f"error cleared (was: {self.error_before})")
        return out


class TierDelta(BaseModel):
    """A tier in runs A and B: runs (errors included), runs with a verdict, passes."""

    tier: str
    a_passed: int = 0
    a_total: int = 0
    b_passed: int = 0
    b_total: int = 0
    a_ran: int = 0
    """Runs of the tier in A that produced a verdict: its pass rate's denominator."""
    b_ran: int = 0

    @property
    def a_rate(self) -> float | None:
        return pass_rate(self.a_passed, self.a_ran)

    @property
    def b_rate(self) -> float | None:
        return pass_rate(self.b_passed, self.b_ran)

    @property
    def a_tally(self) -> str:
        """``6/7 (85.7%)`` (:func:`pe_eval_core.rates.tally_text`), errors left out."""
        return tally_text(self.a_passed, self.a_ran)

    @property
    def b_tally(self) -> str:
        return tally_text(self.b_passed, self.b_ran)

    @property
    def delta(self) -> float | None:
        if self.a_rate is None or self.b_rate is None:
            return None
        return self.b_rate - self.a_rate


class PairedTest(BaseModel):
    """The exact paired test on the scenarios that passed or failed consistently in both."""

    test: str
    regressions: int
    improvements: int
    p_value: float
    """Two-sided exact McNemar p-value."""
    p_regression: float
    """One-sided: the chance of at least this many regressions if nothing changed."""
    significant: bool
    """``p_value`` < ``alpha``."""
    alpha: float = 0.05


class ScenarioComparison(BaseModel):
    kind: Literal["scenarios"] = "scenarios"
    a: RunSummary
    b: RunSummary
    differences: list[str] = Field(default_factory=list)
    """Why runs recorded without a manifest are not like for like (target, scenario set,
    repeats), one sentence each."""
    unlike: list[str] = Field(default_factory=list)
    """What differs between the two runs' manifests (``skill a vs b``, ``model x vs y``):
    empty when they are like for like or either has no manifest."""
    """What makes the runs not like for like (target, scenario set, repeats): said first."""
    regressions: list[ScenarioChange] = Field(default_factory=list)
    """Passed in every run of A, failed in every run of B."""
    fixes: list[ScenarioChange] = Field(default_factory=list)
    """Failed in every run of A, passed in every run of B."""
    flaky: list[ScenarioChange] = Field(default_factory=list)
    """Passed and failed across the repeats of A or of B: apart, not a regression or a fix."""
    errored: list[ScenarioChange] = Field(default_factory=list)
    """No verdict in A or in B (every repeat errored): not comparable, never a regression."""
    paired: PairedTest | None = None
    still_failing: list[ScenarioChange] = Field(default_factory=list)
    new: list[ScenarioChange] = Field(default_factory=list)
    removed: list[ScenarioChange] = Field(default_factory=list)
    unchanged_passing: int = 0
    tiers: list[TierDelta] = Field(default_factory=list)

    @property
    def has_regressions(self) -> bool:
        return bool(self.regressions)


def compare_scenario_records(a: RunRecord, b: RunRecord) -> ScenarioComparison:
    """Align two scenario runs by scenario name and classify every scenario."""
    left, right = _by_name(a.results), _by_name(b.results)
    stats_a = {n: _stats(rows) for n, rows in left.items()}
    stats_b = {n: _stats(rows) for n, rows in right.items()}
    out = ScenarioComparison(a=a.summary, b=b.summary)
    ma, mb = recorded_manifest(a.summary), recorded_manifest(b.summary)
    if ma is not None and mb is not None:
        out.unlike = manifest_differences(ma, mb) if ma.identity != mb.identity else []
        if ma.identity != mb.identity and not out.unlike:
            out.unlike = ["the recorded setups differ"]
    else:
        out.differences = run_differences(a, b)
    groups = {
        "pass": "unchanged",
        "regression": "regressions",
        "fix": "fixes",
        "fail": "still_failing",
        "flaky": "flaky",
        "error": "errored",
    }
    for name in [*left, *(n for n in right if n not in left)]:
        ra, rb = left.get(name), right.get(name)
        change = _scenario_change(name, ra[0] if ra else None, rb[0] if rb else None)
        sa, sb = stats_a.get(name), stats_b.get(name)
        if sa is not None:
            change.passes_before, change.runs_before = sa.passes, sa.runs
        if sb is not None:
            change.passes_after, change.runs_after = sb.passes, sb.runs
        if sa is None:
            out.new.append(change)
        elif sb is None:
            out.removed.append(change)
        elif (group := groups[statistics.pair_change(sa, sb)]) == "unchanged":
            out.unchanged_passing += 1
        else:
            getattr(out, group).append(change)
    test = statistics.compare_runs(stats_a, stats_b)
    out.paired = PairedTest(
        test=test.test,
        regressions=len(test.regressions),
        improvements=len(test.improvements),
        p_value=test.p_value,
        p_regression=test.p_regression,
        significant=test.significant,
    )
    tiers: dict[str, TierDelta] = {}
    for t in a.tiers:
        tiers[t.tier] = TierDelta(tier=t.tier, a_passed=t.passed, a_total=t.total, a_ran=t.ran)
    for t in b.tiers:
        d = tiers.setdefault(t.tier, TierDelta(tier=t.tier))
        d.b_passed, d.b_total, d.b_ran = t.passed, t.total, t.ran
    out.tiers = [tiers[k] for k in sorted(tiers, key=_tier_order)]
    return out


def _by_name(rows: list[ScenarioResultRow]) -> dict[str, list[ScenarioResultRow]]:
    """Rows grouped by scenario name (a scenario's repeats together), in file order."""
    out: dict[str, list[ScenarioResultRow]] = {}
    for r in rows:
        out.setdefault(r.name, []).append(r)
    return out


def _stats(rows: list[ScenarioResultRow]) -> ScenarioStats:
    first = rows[0]
    return statistics.scenario_stats(
        first.name, first.tier or "untiered", first.source_fact, [r.status for r in rows]
    )


def target_label(summary: RunSummary) -> str:
    """The run's stable target label (recorded with the run), else its target description."""
    label = summary.scores.get("target_label") if isinstance(summary.scores, dict) else None
    return str(label or summary.target or "?")


def run_differences(a: RunRecord, b: RunRecord) -> list[str]:
    """Why two scenario runs are not like for like, one sentence each (empty: they are)."""
    out = []
    la, lb = target_label(a.summary), target_label(b.summary)
    if la != lb:
        out.append(f"The runs used different targets: A {la}, B {lb}.")
    names_a = {r.name for r in a.results}
    names_b = {r.name for r in b.results}
    if names_a != names_b:
        out.append(
            f"The runs used different scenario sets: {len(names_b - names_a)} only in B, "
            f"{len(names_a - names_b)} only in A."
        )
    elif (
        a.summary.scenarios_sha256
        and b.summary.scenarios_sha256
        and a.summary.scenarios_sha256 != b.summary.scenarios_sha256
    ):
        out.append("The scenarios file changed between the runs (same names, other content).")
    ka, kb = a.summary.scores.get("repeats", 1), b.summary.scores.get("repeats", 1)
    if ka != kb:
        out.append(f"The runs repeated each scenario a different number of times: A {ka}, B {kb}.")
    return out


def not_like_for_like(cmp: ScenarioComparison) -> str:
    """What makes the two runs not like for like, in one line ("" when they are): the
    manifests' differences, else (runs recorded before manifests) the legacy sentences."""
    if cmp.unlike:
        return f"Not like for like: {'; '.join(cmp.unlike)}."
    return " ".join(cmp.differences)


def scenario_verdict(cmp: ScenarioComparison) -> str:
    """The one-sentence scenario verdict every surface shows: "No regression vs baseline", or
    the regressions with their exact McNemar significance; runs that are not like for like
    say so first; flaky and errored scenarios are named apart.

    >>> from pe_eval_core.history.records import RunSummary
    >>> s = RunSummary(id=1, uid="u", kind="scenarios", created_at="", recorded_at="",
    ...                origin="api")
    >>> scenario_verdict(ScenarioComparison(a=s, b=s))
    'No regression vs baseline.'
    """
    lead = not_like_for_like(cmp)
    if not cmp.regressions:
        line = "No regression vs baseline"
    else:
        n = len(cmp.regressions)
        names = ", ".join(c.name for c in cmp.regressions)
        line = f"{n} {'regression' if n == 1 else 'regressions'} vs baseline: {names}"
        if cmp.paired is not None:
            t = cmp.paired
            word = "significant" if t.significant else "not significant"
            line += (
                f" ({word} at {t.alpha:.0%}: exact McNemar p = {t.p_value:.3g} on "
                f"{t.regressions} worse vs {t.improvements} better)"
            )
    apart = []
    if cmp.flaky:
        apart.append(f"{len(cmp.flaky)} flaky ({', '.join(c.name for c in cmp.flaky)})")
    if cmp.errored:
        apart.append(f"{len(cmp.errored)} errored, not compared")
    if apart:
        line += "; apart: " + "; ".join(apart)
    line += "."
    return f"{lead} {line}" if lead else line


def significance_sentence(pt: PairedTest) -> str:
    """The paired test in one sentence, as ``history compare`` prints it (CLI and dashboard).

    >>> print(significance_sentence(PairedTest(test="exact McNemar", regressions=2,
    ...     improvements=0, p_value=0.5, p_regression=0.25, significant=False)))
    Significance: exact McNemar: 2 worse, 0 better, p = 0.5 (one-sided for worse: 0.25); not
    significant at 5%.
    """
    return (
        f"Significance: {pt.test}: {pt.regressions} worse, {pt.improvements} better, "
        f"p = {pt.p_value:.3g} (one-sided for worse: {pt.p_regression:.3g}); "
        f"{'significant' if pt.significant else 'not significant'} at {pt.alpha:.0%}."
    )


def _scenario_change(
    name: str, ra: ScenarioResultRow | None, rb: ScenarioResultRow | None
) -> ScenarioChange:
    da = ra.detail if ra else {}
    db = rb.detail if rb else {}
    any_row = rb or ra
    change = ScenarioChange(
        name=name,
        tier=any_row.tier if any_row else None,
        source_fact=any_row.source_fact if any_row else None,
        before=ra.status if ra else None,
        after=rb.status if rb else None,
        error_before=ra.error if ra else None,
        error_after=rb.error if rb else None,
    )
    if not (ra and rb):
        return change
    ea = {e.get("text"): e for e in da.get("expectations") or [] if isinstance(e, dict)}
    eb = {e.get("text"): e for e in db.get("expectations") or [] if isinstance(e, dict)}
    for text in [*ea, *(t for t in eb if t not in ea)]:
        xa, xb = ea.get(text) or {}, eb.get(text) or {}
        before, after = xa.get("satisfied"), xb.get("satisfied")
        if bool(before) != bool(after) or (text in ea) != (text in eb):
            change.expectations.append(
                ExpectationChange(
                    text=str(text),
                    before=before if text in ea else None,
                    after=after if text in eb else None,
                    method_before=xa.get("method"),
                    method_after=xb.get("method"),
                )
            )
    change.numeric = _numeric_changes(_checks(da), _checks(db))
    na, nb = Counter(_floats(da.get("numbers"))), Counter(_floats(db.get("numbers")))
    change.numbers_removed = sorted((na - nb).elements())
    change.numbers_added = sorted((nb - na).elements())
    ha, hb = set(da.get("excluded_hits") or []), set(db.get("excluded_hits") or [])
    change.excluded_hits_added = sorted(hb - ha)
    change.excluded_hits_removed = sorted(ha - hb)
    return change


def _checks(detail: dict[str, Any]) -> list[dict[str, Any]]:
    checks = detail.get("numeric_checks")
    if checks is None and detail.get("numeric"):
        checks = [detail["numeric"]]
    return [c for c in checks or [] if isinstance(c, dict)]


def _numeric_changes(xs: list[dict[str, Any]], ys: list[dict[str, Any]]) -> list[NumericChange]:
    """Pair checks by position (a scenario's ranges keep their order) and keep the flips."""
    out = []
    for i in range(max(len(xs), len(ys))):
        x = xs[i] if i < len(xs) else {}
        y = ys[i] if i < len(ys) else {}
        before = bool(x["satisfied"]) if "satisfied" in x else None
        after = bool(y["satisfied"]) if "satisfied" in y else None
        if before == after:
            continue
        ref = y or x
        out.append(
            NumericChange(
                field=str(ref.get("field") or ""),
                min=ref.get("min"),
                max=ref.get("max"),
                before=before,
                after=after,
                matched_before=x.get("matched"),
                matched_after=y.get("matched"),
                nearest_after=y.get("nearest"),
            )
        )
    return out


def render_scenario_comparison(c: ScenarioComparison) -> str:
    lines = [f"## Scenario run comparison: #{c.a.id} -> #{c.b.id}", ""]
    if c.unlike:
        lines.append(f"**Not like for like:** {'; '.join(c.unlike)}.")
    lines += [f"**Not like for like:** {d}" for d in c.differences]
    lines += [
        *([""] if c.differences or c.unlike else []),
        f"- A: #{c.a.id} {c.a.created_at} {c.a.subject} ({c.a.rate_text})",
        f"- B: #{c.b.id} {c.b.created_at} {c.b.subject} ({c.b.rate_text})",
        "",
        f"**Verdict:** {scenario_verdict(c)}",
        "",
        f"**Regressions:** {len(c.regressions)}  |  **Fixes:** {len(c.fixes)}  |  "
        f"**Flaky:** {len(c.flaky)}  |  **Errored:** {len(c.errored)}  |  "
        f"**Still failing:** {len(c.still_failing)}  |  **New:** {len(c.new)}  |  "
        f"**Removed:** {len(c.removed)}  |  **Unchanged passing:** {c.unchanged_passing}",
        "",
    ]
    if c.paired is not None:
        lines += [significance_sentence(c.paired), ""]
    for title, group in (
        ("Regressions (now always failing)", c.regressions),
        ("Fixes (now passing at least once)", c.fixes),
        ("Flaky (passed and failed across repeats; not regressions)", c.flaky),
        ("Errored in one run (not compared)", c.errored),
        ("Still failing", c.still_failing),
        ("New in B", c.new),
        ("Removed since A", c.removed),
    ):
        if not group:
            continue
        lines += [f"### {title}", ""]
        for ch in group:
            lines.append(
                f"- **{ch.name}** ({ch.tier or 'untiered'}, {ch.source_fact or '-'}): "
                f"{_outcome(ch.before, ch.passes_before, ch.runs_before)} -> "
                f"{_outcome(ch.after, ch.passes_after, ch.runs_after)}"
            )
            lines += [f"  - {r}" for r in ch.reasons()]
        lines.append("")
    lines += ["### Pass rate by tier", "", "| Tier | A | B | Delta |", "|---|---|---|---|"]
    for t in c.tiers:
        delta = "" if t.delta is None else f"{t.delta * 100:+.1f} pts"
        lines.append(f"| {t.tier} | {t.a_tally} | {t.b_tally} | {delta} |")
    return "\n".join(lines) + "\n"


def _verdict(satisfied: bool | None, method: str | None) -> str:
    if satisfied is None:
        return "absent"
    word = "satisfied" if satisfied else "missed"
    return f"{word} ({method})" if method and satisfied else word


def _outcome(status: str | None, passes: int | None, runs: int | None) -> str:
    """``fail`` for one run, ``2/5 passed`` for repeats, ``-`` when absent."""
    if status is None:
        return "-"
    if runs is not None and passes is not None and runs > 1:
        return f"{passes}/{runs} passed"
    return status


def _ok_word(ok: bool | None) -> str:
    return {True: "in range", False: "out of range", None: "absent"}[ok]


def _floats(values: Any) -> list[float]:
    out = []
    for v in values or []:
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            continue
    return out


def _fmt_numbers(values: list[float], limit: int = 8) -> str:
    shown = ", ".join(f"{v:g}" for v in values[:limit])
    return shown + (f" (+{len(values) - limit} more)" if len(values) > limit else "")


def _tier_order(tier: str) -> tuple[int, str]:
    order = {"smoke": 0, "functional": 1, "adversarial": 2}
    return (order.get(tier, 9), tier)


def unlike_runs(a: RunRecord, b: RunRecord) -> str | None:
    """The one line saying how two scenario runs' setups differ (``Not like for like: skill
    ... vs ...; model ... vs ....``), None when they are like for like or either run was
    recorded before manifests. What compare, the gate and the dashboard refuse to mix."""
    from pe_eval_core.scenarios.models.manifest import unlike_line

    return unlike_line(recorded_manifest(a.summary), recorded_manifest(b.summary))


def check_like_for_like(a: RunRecord, b: RunRecord, *, allow_unlike: bool = False) -> None:
    """Raise :class:`~pe_eval_core.errors.UnlikeRunsError` when the runs are not like for like
    and the caller did not ask to compare them anyway."""
    line = unlike_runs(a, b)
    if line is not None and not allow_unlike:
        raise UnlikeRunsError(f"run #{a.summary.id} and run #{b.summary.id}: {line}")
