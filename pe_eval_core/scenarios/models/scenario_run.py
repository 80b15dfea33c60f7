"""A scenario run: every result, the counts by tier, the statistics and the seed's
one-line conclusion."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from pe_eval_core import rates
from pe_eval_core.scenarios.models.manifest import RunManifest
from pe_eval_core.scenarios.models.result import ScenarioResult, error_kind_of, error_summary_line
from pe_eval_core.scenarios.models.scenario import KNOWN_TIERS
from pe_eval_core.scenarios.options import DEFAULTS
from pe_eval_core.scenarios.statistics import ScenarioStats, TierStats, scenario_stats, tier_stats


class TierSummary(BaseModel):
    """Pass counts for one tier; errors are counted apart, never in the pass rate."""

    tier: str
    total: int
    passed: int
    failed: int
    errors: int

    @property
    def ran(self) -> int:
        """Scenario runs that produced a verdict (pass or fail): the pass-rate denominator."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        """:func:`pe_eval_core.rates.pass_rate` (None: no run of the tier produced a verdict)."""
        return rates.pass_rate(self.passed, self.ran)

    @property
    def tally_text(self) -> str:
        """``6/7 (85.7%)``: how every surface but the seed's report shows a tier."""
        return rates.tally_text(self.passed, self.ran)


class ScenarioRun(BaseModel):
    """One evaluation run: where it came from, every result, and what it cost."""

    run_id: str
    started_at: datetime
    finished_at: datetime
    scenarios_path: str | None = None
    scenarios_sha256: str | None = None
    target: str
    """Target description, e.g. ``recorded:.mimic/exports/recorded-responses.json``."""
    target_label: str | None = None
    """A stable label for the agent under test: ``anthropic:<model id>``, ``http:<URL>``,
    ``recorded:<resolved file>``; comparisons of runs whose labels differ say so first."""
    repeats: int = DEFAULTS.repeat
    """``--repeat K``: every scenario ran K times (``results`` holds K results per scenario)."""
    warnings: list[str] = Field(default_factory=list)
    """What the loader or the judge could not check or had to change (unknown expectation
    keys, a goal sent as the input, a recorded verdict for another response), one sentence
    each: shown in the run header, the report and the dashboard, never dropped."""
    stopped: str | None = None
    """Why the run stopped early on transport errors (the target unreachable or refusing
    authentication); None when it ran to the end. Such a run is an infrastructure error."""
    model: str | None = None
    manifest: RunManifest | None = None
    """What produced the run (skill, model, bounds, servers, scenarios, judge, versions): the
    run's identity, compared before any two runs are (None: recorded before manifests)."""
    as_of: str | None = None
    """The analysis date the agent was given (``YYYY-MM-DD``), None when it was given none."""
    as_of_source: str | None = None
    """Where the date came from: ``--as-of``, or the ``mimic.json`` and persona it was read from."""
    judge: str | None = None
    """Judge description (model or ``recorded:<model>``), None when no judge was used."""
    judge_prompt_version: str | None = None
    concurrency: int = DEFAULTS.concurrency
    enforce_latency: bool = False
    cancelled: bool = False
    responses_path: str | None = None
    """Where this run's responses were saved as a recorded file (re-score offline from it)."""
    results: list[ScenarioResult] = Field(default_factory=list)
    tokens_in: int = 0
    """Target tokens (as recorded, for a recorded target)."""
    tokens_out: int = 0
    judge_tokens_in: int = 0
    judge_tokens_out: int = 0
    judge_calls: int = 0
    """Paid judge calls made in this run (cache hits and recorded verdicts make none)."""
    estimated_cost_usd: float | None = None
    """Live target plus judge tokens at list price; None when a used model's price is unknown."""
    cost_estimate_usd: float | None = None
    """The estimate shown before the run (the run header's), for "estimate vs actual"."""
    cost_estimate_basis: str | None = None
    """How that estimate was made: the earlier run of this setup observed, or the assumption."""

    def __repr__(self) -> str:
        # A summary, not every result: asyncio reprs a finished main task's result when
        # ``asyncio.run`` restores the SIGINT handler, which for 10,000 results cost seconds.
        return (
            f"ScenarioRun(run_id={self.run_id!r}, target={self.target!r}, total={self.total}, "
            f"passed={self.passed}, failed={self.failed}, errors={self.errors})"
        )

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.status == "pass")

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if r.status == "fail")

    @property
    def errors(self) -> int:
        return sum(1 for r in self.results if r.status in ("error", "judge error"))

    @property
    def ran(self) -> int:
        """Scenario runs with a verdict (pass or fail): the pass-rate denominator."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float:
        """:func:`pe_eval_core.rates.pass_rate`: passed / ran, errors left out of the
        denominator (shown apart); 0.0 when nothing produced a verdict (shown as n/a)."""
        return rates.pass_rate(self.passed, self.ran) or 0.0

    @property
    def rate_text(self) -> str:
        """``83.3%``: how every surface but the seed's report shows the run's pass rate."""
        return rates.rate_text(self.passed, self.ran)

    @property
    def label(self) -> str:
        """:attr:`target_label` when recorded, else the target description."""
        return self.target_label or self.target

    def error_counts(self) -> list[tuple[str, int]]:
        """(error kind, count), most frequent first (see :data:`ERROR_KINDS`)."""
        counts = Counter(k for r in self.results if (k := error_kind_of(r)) is not None)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def error_summary(self) -> str:
        """``"3 errors: agent unreachable"``, or "" when nothing errored."""
        return error_summary_line(self.error_counts())

    def by_tier(self) -> list[TierSummary]:
        """Smoke, functional, adversarial (always, even when empty), then other tiers as met."""
        order = list(KNOWN_TIERS)
        for r in self.results:
            if r.tier not in order:
                order.append(r.tier)
        out = []
        for tier in order:
            rs = [r for r in self.results if r.tier == tier]
            out.append(
                TierSummary(
                    tier=tier,
                    total=len(rs),
                    passed=sum(1 for r in rs if r.status == "pass"),
                    failed=sum(1 for r in rs if r.status == "fail"),
                    errors=sum(1 for r in rs if r.status in ("error", "judge error")),
                )
            )
        return out

    def scenario_stats(self) -> list[ScenarioStats]:
        """Each scenario over its repeats (file order): runs and passes without the errors."""
        groups: dict[str, list[ScenarioResult]] = {}
        for r in self.results:
            groups.setdefault(r.name, []).append(r)
        return [
            scenario_stats(name, rs[0].tier, rs[0].source_fact, [r.status for r in rs])
            for name, rs in groups.items()
        ]

    def tier_stats(self) -> list[TierStats]:
        """Each tier with runs (report order): pass rate over runs that produced a verdict and
        its 95% interval (Wilson; clustered by ``source_fact`` when a scenario repeats)."""
        stats = self.scenario_stats()
        return [
            tier_stats(t.tier, [s for s in stats if s.tier == t.tier])
            for t in self.by_tier()
            if t.total
        ]

    def statistics_summary(self) -> dict[str, Any]:
        """Repeats, intervals, flaky scenarios and errors as plain data (JSON, history)."""
        k = self.repeats
        scenarios = []
        for st in self.scenario_stats():
            row: dict[str, Any] = {
                "name": st.name,
                "tier": st.tier,
                "source_fact": st.source_fact,
                "runs": st.runs,
                "passes": st.passes,
                "errors": st.errors,
                "outcome": st.outcome,
                "flaky": st.flaky,
            }
            if st.runs:
                row["pass_at_k"] = st.pass_at(min(k, st.runs))
                row["pass_hat_k"] = st.pass_hat(min(k, st.runs))
            scenarios.append(row)
        return {
            "repeats": k,
            "target_label": self.label,
            "tiers": [
                {
                    "tier": t.tier,
                    "runs": t.runs,
                    "passes": t.passes,
                    "rate": t.rate,
                    "low": t.low,
                    "high": t.high,
                    "method": t.method,
                    "clusters": t.clusters,
                    "n_eff": t.n_eff,
                }
                for t in self.tier_stats()
            ],
            "scenarios": scenarios,
            "flaky": [row["name"] for row in scenarios if row["flaky"]],
            "errors": dict(self.error_counts()),
            "error_summary": self.error_summary(),
            "stopped": self.stopped,
        }

    def verdict_sources(self) -> list[tuple[str, int]]:
        """Judge verdicts used in the run, counted by where they came from (most first):
        ``live call``, ``verdict cache``, a verdicts file, or the responses file they were
        saved with."""
        counts = Counter(v.source or "unknown" for r in self.results for v in r.judge_verdicts)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def worst_tier(self) -> TierSummary | None:
        """The tier with the lowest pass rate among runs with a verdict (ties: more failures,
        then report order); errors do not make a tier worse."""
        tiers = [t for t in self.by_tier() if t.ran and t.passed < t.ran]
        if not tiers:
            return None
        return min(tiers, key=lambda t: (t.passed / t.ran, -t.failed))

    def struggled_facts(self, limit: int = 3) -> list[tuple[str, int]]:
        """``source_fact`` ids with the most failing scenarios (ties kept, up to ``limit``);
        errored scenarios say nothing about a fact, and repeats count once."""
        failing = {(r.name, r.source_fact) for r in self.results if r.status == "fail"}
        counts = Counter(fact for _, fact in failing if fact)
        if not counts:
            return []
        top = max(counts.values())
        return sorted((fact, n) for fact, n in counts.items() if n == top)[:limit]

    def conclusion(self, *, plain: bool = False) -> str:
        """The seed's one-line conclusion: the worst tier and the facts the agent struggled with.

        Only scenarios that ran (pass or fail) are judged; errors are named apart by cause.
        ``plain`` (the dashboard's lead): each fact id explained by the failing scenarios
        written from it, instead of the seed's bare ``[fact_001] (2 scenarios)``.
        """
        errors = self.error_summary()
        if self.results and self.ran == 0:
            first = next((r.error for r in self.results if r.error), "no error message")
            return (
                f"Every scenario errored ({self.total}/{self.total}), so no tier or fact can be "
                f"judged: the target produced no response to score ({errors}; first error: "
                f"{first})."
            )
        worst = self.worst_tier()
        if worst is None:
            if not self.results:
                return "No scenarios were run."
            if not errors:
                return (
                    f"Every scenario passed ({self.passed}/{self.total}); "
                    "no tier or fact stood out."
                )
            return (
                f"Every scenario that ran passed ({self.passed}/{self.ran}); "
                f"no tier or fact stood out; not judged: {errors}."
            )
        line = (
            f"Worst tier: {worst.tier} ({worst.passed}/{worst.ran} passed, "
            f"{format_pct(worst.passed, worst.ran)})"
        )
        facts = self.struggled_facts()
        if facts and plain:
            line += "; the agent struggled most with " + "; ".join(
                self._fact_words(fact) for fact, _ in facts
            )
            line += "."
        elif facts:
            named = ", ".join(
                f"[{fact}] ({n} {'scenario' if n == 1 else 'scenarios'})" for fact, n in facts
            )
            line += f"; the agent struggled most with {named}."
        else:
            line += "; the failing scenarios carry no source_fact ids."
        if errors:
            line += f" Not judged: {errors}."
        if self.cancelled:
            line += " (Run cancelled before every scenario finished.)"
        return line

    def _fact_words(self, fact: str) -> str:
        """A source fact in words: the Mimic fact id and the failing scenarios written from it."""
        names = list(
            dict.fromkeys(
                r.name for r in self.results if r.source_fact == fact and r.status == "fail"
            )
        )
        return f"the source fact {fact} behind {', '.join(names)}"


def format_pct(part: int, total: int) -> str:
    """Whole-percent display used by the report.

    >>> format_pct(14, 19), format_pct(0, 0)
    ('74%', '—')
    """
    return f"{part / total:.0%}" if total else "—"
