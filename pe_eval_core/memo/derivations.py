"""Derived figures: what a figure may cite that is computed from two source fields (run-rates,
per-unit values, sums and differences that are a quantity, shares of EBITDA or the total,
recovery ratios, sums of two opportunities' impacts). ``docs/memo_rules.md`` lists them."""

from __future__ import annotations

import math

from pe_eval_core.grading.roles import Role, accepts
from pe_eval_core.memo.models import OpportunityMap
from pe_eval_core.memo.source_fields import (
    QUARTERS,
    USD,
    KindIndex,
    SourceField,
    _aggregate,
    _annual,
    _claim,
    _displayed,
    _opps_in,
    _role,
    _Scope,
    _tail,
)
from pe_eval_core.numbers import Figure, FigureKind

_DERIVED_KINDS = (USD, FigureKind.PERCENT)
_CROSS_LIMIT = 12
"""Cross-opportunity sums are only formed for maps of at most this many opportunities."""
_RUN_RATES = ((4, "4"), (12, "12"))
_RATE_TAILS = tuple(f" / {shown}" for _, shown in _RUN_RATES)
_RATE_UNITS = frozenset({"fraction", "percent", "bps"})


_SHARE_ROLES = frozenset({"of_loss", "of_quarters", "of_usd"})
_SUMMED = frozenset({Role.LOSS, Role.PROJECTED})
"""Roles whose portfolio sum is a quantity a memo states and the map does not."""

_DENOMINATORS = ("ebitda", "total_projected")
"""Ratios are an impact over EBITDA or the portfolio total (a share). Impact over loss
(a recovery ratio) is left out: on the templated demo it explains away tampered playbook
levels such as ``~50%`` (tests/memo/test_grader_mutations.py)."""
_SHARE_OF: dict[Role, tuple[Role, ...]] = {
    Role.IMPACT: (Role.BASELINE, Role.TOTAL),
    Role.TOTAL: (Role.BASELINE,),
    Role.LOSS: (Role.BASELINE,),
}
"""Which quantity a share may be of: an impact of EBITDA or of the portfolio total; the
total, or today's loss, of EBITDA (``19.7% of EBITDA`` for a loss). A share of EBITDA may
exceed 100% (a programme larger than the baseline); a share of the total may not."""


class Derivations:
    """The derivation half of ``NumericUniverse`` (a mixin: it reads the universe's source,
    own fields and portfolio fields, and caches its candidates per opportunity and kind)."""

    _source: OpportunityMap
    portfolio: _Scope
    _derived: dict[tuple[int, FigureKind], KindIndex]
    _sums: list[tuple[str, float, str]] | None = None

    def opportunity_fields(self, i: int) -> list[SourceField]:
        raise NotImplementedError  # NumericUniverse.opportunity_fields

    def own(self, i: int, kind: FigureKind) -> list[SourceField]:
        raise NotImplementedError  # NumericUniverse.own

    def derive(
        self,
        i: int,
        kind: FigureKind,
        mag: float,
        lo: float,
        hi: float,
        claim: Role = Role.ANY,
        annual: bool = False,
    ) -> SourceField | None:
        """The derivation nearest ``mag`` with magnitude in [lo, hi] (see ``derivations``)
        that is a quantity ``claim`` accepts (for a figure worded ``annual``: no run-rate),
        or None. The candidates of opportunity ``i``
        and ``kind`` are built once (a few hundred at most) and bisected like any other kind
        index."""
        if kind not in _DERIVED_KINDS:
            return None
        index = self._derived.get((i, kind))
        if index is None:
            index = self._derived[i, kind] = KindIndex(self.derivations(i, kind))
        return next(
            (
                f
                for f in index.closest_first(mag, lo, hi)
                if accepts(claim, _role(f)) and not (annual and f.path.endswith(_RATE_TAILS))
            ),
            None,
        )

    def derivations(self, i: int, kind: FigureKind) -> list[SourceField]:
        """Every derived value a figure of ``kind`` in opportunity ``i``'s prose may cite.

        The search is bounded by construction: its operands are opportunity ``i``'s own
        fields and the portfolio-level fields (a handful each; no cross-opportunity sums:
        on the templated demo they explain away tampered figures). USD: run-rates
        (``a / 4``, ``a / 12``), per-unit (``a / n`` for each own count), sum and difference
        of two fields (``a + b``, ``a - b``, signed). Percent: ratios of two USD operands
        (an impact over EBITDA or the portfolio total) x100, and the difference of two rate
        fields in points. All compared on magnitude.

        >>> from pe_eval_core.memo.source_numbers import NumericUniverse

        >>> u = NumericUniverse.build({"portco_id": "X", "ebitda_baseline_usd": 2e7,
        ...     "opportunities": [{"id": "a", "n": 1000, "projected_impact_usd_annual": 1.2e6,
        ...                        "outcome_total_usd_annual": -3e6}]})
        >>> d = {f.path: round(f.value, 2) for f in u.derivations(0, FigureKind.PERCENT)}
        >>> d["opportunities[0].projected_impact_usd_annual / ebitda_baseline_usd"]
        6.0
        >>> per_unit = [f for f in u.derivations(0, USD) if f.path.endswith("/ opportunities[0].n")]
        >>> ("opportunities[0].projected_impact_usd_annual / opportunities[0].n", 1200.0) in [
        ...     (f.path, f.value) for f in per_unit]
        True
        """
        owner = self._source.opportunities[i].id
        usd = self.own(i, USD) + self.portfolio.get(USD, [])
        out: list[tuple[str, float, str]] = []
        if kind is USD:
            counts = [c for c in self.own(i, FigureKind.COUNT) if c.magnitude > 0]
            out = _usd_derivations(usd, counts) + self.portfolio_sums() + _pro_forma(usd)
        else:
            rates = self.own(i, FigureKind.PERCENT) + self.portfolio.get(FigureKind.PERCENT, [])
            rates = [r for r in rates if r.unit in _RATE_UNITS]
            out = [(path, v, "") for path, v in _percent_derivations(usd, rates)]
        return [
            SourceField(
                path, kind, v, v, f"derived:{role}" if role else "derived", i, abs(v), owner
            )
            for path, v, role in out
            if math.isfinite(v) and (v != 0 or role == Role.PROJECTED.value)
        ]  # a zero is a derivation only as a projected outcome: loss + impact = break-even

    def portfolio_sums(self) -> list[tuple[str, float, str]]:
        """The portfolio's loss and projected outcome: each annual loss or projected-outcome
        key summed over every opportunity that has it (two at least), with that key's role
        ("three cohorts carry $18.3M of annual leakage"). The impacts' sum is the total field
        the map states. Built once, linear in the map.

        >>> from pe_eval_core.memo.source_numbers import NumericUniverse
        >>> u = NumericUniverse.build({"portco_id": "X", "opportunities": [
        ...     {"id": "a", "outcome_total_usd_annual": -2e6},
        ...     {"id": "b", "outcome_total_usd_annual": -3e6}]})
        >>> u.portfolio_sums()
        [('sum(opportunities[*].outcome_total_usd_annual)', -5000000.0, 'loss')]
        """
        if self._sums is None:
            by_key: dict[str, list[float]] = {}
            roles: dict[str, Role] = {}
            for j in range(len(self._source.opportunities)):
                for f in self.opportunity_fields(j):
                    role = _role(f)
                    if f.kind is USD and role in _SUMMED and _annual(f) and _aggregate(f):
                        tail = _tail(f)
                        by_key.setdefault(tail, []).append(f.value)
                        roles[tail] = role
            self._sums = [
                (f"sum(opportunities[*].{key})", math.fsum(values), roles[key].value)
                for key, values in by_key.items()
                if len(values) > 1
            ]
        return self._sums

    def cross_sum(
        self, i: int, kind: FigureKind, mag: float, lo: float, hi: float
    ) -> SourceField | None:
        """For a figure worded as a sum ("together", "plus", "add up to"): the sum of two
        opportunities' impacts, opportunity ``i``'s among them (USD), or that sum's share
        of EBITDA or of the portfolio total (percent). Bounded by the opportunities' count.

        >>> from pe_eval_core.memo.source_numbers import NumericUniverse

        >>> u = NumericUniverse.build({"portco_id": "X", "total_projected_impact_usd_annual":
        ...     1e7, "opportunities": [{"id": "a", "projected_impact_usd_annual": 5.3e6},
        ...     {"id": "b", "projected_impact_usd_annual": 2.3e6}]})
        >>> u.cross_sum(1, FigureKind.USD, 7.6e6, 7.55e6, 7.65e6).path.split(" + ")
        ['(opportunities[0].projected_impact_usd_annual',
         'opportunities[1].projected_impact_usd_annual)']
        >>> round(u.cross_sum(1, FigureKind.PERCENT, 76.0, 75.5, 76.5).value, 1)
        76.0
        """
        sums = [f for f in self._cross_sums(i) if f.opp == i and i in _opps_in(f.path)]
        candidates = sums
        if kind is FigureKind.PERCENT:
            bottoms = [
                b for b in self.portfolio.get(USD, []) if any(w in _tail(b) for w in _DENOMINATORS)
            ]
            owner = self._source.opportunities[i].id
            candidates = [
                SourceField(f"{a.path} / {b.path}", kind, v, v, "derived", i, abs(v), owner)
                for a in sums
                for b in bottoms
                if b.magnitude > a.magnitude
                for v in (100 * a.magnitude / b.magnitude,)
            ]
        elif kind is not USD:
            return None
        return next(KindIndex(candidates).closest_first(mag, lo, hi), None)

    def _cross_sums(self, i: int) -> list[SourceField]:
        """``a.k + b.k`` for one projected-impact key over two opportunities, ``i`` among
        them or not (analysts add up two opportunities); bounded by the opportunities
        squared, and only for keys naming an impact."""
        opps = self._source.opportunities
        if len(opps) > _CROSS_LIMIT:
            return []
        per_opp = [
            [f for f in self.own(j, USD) if "impact" in f.path[f.path.rfind(".") :]]
            for j in range(len(opps))
        ]
        out: list[SourceField] = []
        owner = opps[i].id
        for j, fj in enumerate(per_opp):
            for k in range(j + 1, len(per_opp)):
                for a in fj:
                    tail = a.path[a.path.rfind(".") :]
                    for b in per_opp[k]:
                        if b.path.endswith(tail):
                            v = a.value + b.value
                            path = f"({a.path} + {b.path})"
                            unit = "derived:total"
                            out.append(SourceField(path, USD, v, v, unit, i, abs(v), owner))
        return out

    def _share(self, fig: Figure, opp: int) -> SourceField | None:
        """A figure worded as a share of a loss (role ``of_loss``: a recovery ratio) or of
        the quarters observed (``of_quarters``: k / m of the opportunity's quarters pair)."""
        lo, hi = _licensed(fig)
        mag = abs(fig.value)
        if "of_loss" in fig.role:
            return self.recovery(opp, mag, lo, hi)
        stated = _stated_base(fig)
        if stated is not None:
            return self._share_of(opp, mag, lo, hi, stated)
        quarters = self.own(opp, QUARTERS)
        observed = [f for f in quarters if f.role == "observed"]
        total = [f for f in quarters if f.role == "total"]
        owner = self._source.opportunities[opp].id
        for k in observed:
            for m in total:
                v = 100 * k.magnitude / m.magnitude if m.magnitude else math.nan
                if lo <= v <= hi:
                    path = f"{k.path} / {m.path}"
                    return SourceField(path, FigureKind.PERCENT, v, v, "derived", opp, v, owner)
        return None

    def _derivation(self, fig: Figure, opp: int, sign: int) -> SourceField | None:
        """The derivation of opportunity ``opp`` within ``fig``'s displayed precision, of
        the figure's sign when it has one (``+$3.7M`` is not ``proj - imp`` of a loss); a
        sum worded as one (role ``sum``) may add another opportunity's impact."""
        mag, (lo, hi) = abs(fig.value), _licensed(fig)
        if "of_loss" in fig.role:
            return None  # a share of a loss is a recovery ratio or nothing
        found = self.derive(opp, fig.kind, mag, lo, hi, _claim(fig), "annual" in fig.role)
        if found is None and "sum" in fig.role:
            found = self.cross_sum(opp, fig.kind, mag, lo, hi)
        if found is not None and ((sign > 0 and found.value < 0) or (sign < 0 and found.value > 0)):
            return None
        return found

    def _share_of(
        self, i: int, mag: float, lo: float, hi: float, base: float
    ) -> SourceField | None:
        """A percent worded as a share of a dollar figure the sentence states ("41% of the
        $15.0M"): one of opportunity ``i``'s or the portfolio's dollar fields over it."""
        owner = self._source.opportunities[i].id
        for a in [*self.own(i, USD), *self.portfolio.get(USD, [])]:
            v = 100 * a.magnitude / base
            if lo <= v <= hi and a.magnitude < base:
                path = f"{a.path} / {base:g}"
                return SourceField(path, FigureKind.PERCENT, v, v, "derived", i, v, owner)
        return None

    def run_rate(self, fig: Figure, i: int, per_year: int) -> SourceField | None:
        """A dollar figure worded as a run-rate ("$1.6M a quarter", "$520K per month"):
        one of opportunity ``i``'s or the portfolio's annual fields of a role the figure
        claims, over ``per_year``, within the figure's precision or 1% (writers divide the
        rounded annual figure)."""
        lo, hi = _licensed(fig)
        claim = _claim(fig)
        sign = -1 if fig.negative or fig.value < 0 else 0
        owner = self._source.opportunities[i].id
        for a in [*self.own(i, USD), *self.portfolio.get(USD, [])]:
            v = a.value / per_year
            if sign < 0 and v > 0:
                continue  # "-$46.7K a quarter" is a loss's run-rate, never an impact's
            if _annual(a) and lo <= abs(v) <= hi and accepts(claim, _role(a)) and v:
                path = f"{a.path} / {per_year}"
                return SourceField(path, USD, v, v, f"derived:{_role(a).value}", i, abs(v), owner)
        return None

    def recovery(self, i: int, mag: float, lo: float, hi: float) -> SourceField | None:
        """A recovery ratio of opportunity ``i`` in percent, for a figure written as a share
        of a loss ("40% of the cohort's loss", "cut the loss in half"): an impact field over
        a loss field (a negative outcome), x100. A handful of candidates, built on demand.

        >>> from pe_eval_core.memo.source_numbers import NumericUniverse

        >>> u = NumericUniverse.build({"portco_id": "X", "opportunities": [{"id": "a",
        ...     "projected_impact_usd_annual": 1.2e6, "outcome_total_usd_annual": -3e6}]})
        >>> u.recovery(0, 40.0, 39.5, 40.5).path
        'opportunities[0].projected_impact_usd_annual / -opportunities[0].outcome_total_usd_annual'
        """
        usd = self.own(i, USD)
        impacts = [a for a in usd if "impact" in _tail(a) and a.value > 0]
        losses = [
            b
            for b in usd
            if "outcome" in _tail(b) and "projected" not in _tail(b) and b.value < 0
            if _aggregate(b)
        ]  # today's loss: a negative outcome, not the projected one
        owner = self._source.opportunities[i].id
        best: SourceField | None = None
        for a in impacts:
            for b in losses:
                v = 100 * a.magnitude / b.magnitude
                if lo <= v <= hi and (best is None or abs(v - mag) < abs(best.value - mag)):
                    path = f"{a.path} / -{b.path}"
                    best = SourceField(path, FigureKind.PERCENT, v, v, "derived", i, v, owner)
        return best


def _usd_derivations(
    usd: list[SourceField], counts: list[SourceField]
) -> list[tuple[str, float, str]]:
    """Run-rates, per-unit values, sums and differences of USD operands (see ``derivations``),
    each with the role of the quantity it is (``_combined``): a run-rate keeps its operand's
    role, a per-unit value is per unit, and only sums and differences that are a quantity
    (loss + impact = projected outcome, projected - loss = impact ...) are formed."""
    out: list[tuple[str, float, str]] = []
    plain = [a for a in usd if not a.unit.startswith("derived") and _annual(a)]
    for a in plain:  # signed: a loss's run-rate is negative ("+$721K a month" is no match)
        own = _role(a).value
        for d, shown in _RUN_RATES:
            out.append((f"{a.path} / {shown}", a.value / d, own))
        for c in counts:
            out.append((f"{a.path} / {c.path}", a.value / c.magnitude, Role.PER_UNIT.value))
    for j, a in enumerate(plain):
        for b in plain[j + 1 :]:
            total = _combined(_role(a), _role(b), "+")
            if total is not None:
                out.append((f"{a.path} + {b.path}", a.value + b.value, total.value))
            for x, y in ((a, b), (b, a)):  # a difference is oriented: projected - loss
                gap = _difference(_role(x), _role(y), x is a)
                if gap is not None:
                    out.append((f"{x.path} - {y.path}", x.value - y.value, gap.value))
    return out


def _pro_forma(usd: list[SourceField]) -> list[tuple[str, float, str]]:
    """EBITDA after the action: the baseline plus an impact or the total ("lifts EBITDA from
    $2.87B to $3.98B"); of no single role (a figure of any claim may state it)."""
    bases = [b for b in usd if _role(b) is Role.BASELINE and not b.unit.startswith("derived")]
    adds = [a for a in usd if _role(a) in (Role.IMPACT, Role.TOTAL) and a.value > 0]
    return [(f"{b.path} + {a.path}", b.value + a.value, "") for b in bases for a in adds]


_SUMS: dict[frozenset[Role], Role] = {
    frozenset({Role.LOSS, Role.IMPACT}): Role.PROJECTED,  # residual loss
    frozenset({Role.IMPACT, Role.COST}): Role.IMPACT,  # gross improvement
    frozenset({Role.PROJECTED, Role.COST}): Role.PROJECTED,
}
_DIFFERENCES: dict[tuple[Role, Role], Role] = {
    (Role.PROJECTED, Role.LOSS): Role.IMPACT,  # the improvement: after minus before
    (Role.IMPACT, Role.COST): Role.IMPACT,  # net of cost
    (Role.LOSS, Role.IMPACT): Role.PROJECTED,  # a loss stored as a positive magnitude
}
"""Differences that are a quantity, minuend first: ``current - projected`` is the
improvement with the wrong sign, no quantity a memo states."""


def _combined(a: Role, b: Role, op: str) -> Role | None:
    """The quantity ``a + b`` is, or None when it is none (an impact plus the portfolio
    total is no quantity a memo states). Fields of no declared role combine as before."""
    if a is Role.ANY or b is Role.ANY:
        return Role.ANY
    return _SUMS.get(frozenset({a, b}))


def _difference(a: Role, b: Role, in_order: bool) -> Role | None:
    """The quantity ``a - b`` is, or None; fields of no declared role are subtracted in the
    source's order only, as before."""
    if a is Role.ANY or b is Role.ANY:
        return Role.ANY if in_order else None
    return _DIFFERENCES.get((a, b))


def _percent_derivations(
    usd: list[SourceField], rates: list[SourceField]
) -> list[tuple[str, float]]:
    """Ratios of two USD operands x100 and differences of two rates in points."""
    out: list[tuple[str, float]] = []
    usd = [a for a in usd if _aggregate(a) and not a.unit.startswith("derived")]
    for a in usd:
        over = _SHARE_OF.get(_role(a), ())
        for b in usd:
            if a is b or _role(b) not in over or not b.magnitude:
                continue
            if a.magnitude < b.magnitude or _role(b) is Role.BASELINE:
                out.append((f"{a.path} / {b.path}", 100 * a.magnitude / b.magnitude))
    for j, a in enumerate(rates):
        for b in rates[j + 1 :]:
            if a.path != b.path:
                out.append((f"{a.path} - {b.path}", a.value - b.value))
    return out


_LICENSED_SLACK = 0.01


def _licensed(fig: Figure) -> tuple[float, float]:
    """The magnitudes a derivation may take for ``fig``: its displayed precision, widened by
    1% of its value where its wording licenses a computation (a share, a run-rate, a sum),
    since writers compute from the rounded figures they have already stated."""
    lo, hi = _displayed(fig)
    if any(w in fig.role for w in ("of_", "rate:", "sum", "fraction")):
        slack = _LICENSED_SLACK * abs(fig.value)
        return min(lo, abs(fig.value) - slack), max(hi, abs(fig.value) + slack)
    return lo, hi


def _stated_base(fig: Figure) -> float | None:
    """The dollar figure a percent is worded as a share of (role ``of_usd=<value>``)."""
    for token in fig.role.split():
        if token.startswith("of_usd="):
            return float(token[7:]) or None
    return None


def per_year(fig: Figure) -> int | None:
    """How many periods a year a run-rate figure's wording names (role ``rate:4``)."""
    for token in fig.role.split():
        if token.startswith("rate:"):
            return int(token[5:])
    return None
