"""A DDQ response's knowledge base as populations of records, and the bounded search over
their aggregates that grounds the response's fund-level figures.

The DDQ's role table is declared here: which artifact families exist (by file prefix), which
records each holds (the files themselves, or items inside them: opportunities, claims, flags),
and each field's unit and role. An aggregate is ``op(field)`` over one population of one
family, in one scope (the answer's cited files, or every knowledge-base file of that family),
optionally filtered by a predicate the answer states ("score >= 0.5", "high-severity").
Nothing else is searched, so a figure computed over a subset of the files is never grounded.

>>> kb = KnowledgeBase.from_records({"dx": [{"portco_id": "A", "opportunities": [
...     {"id": "o1", "n": 3, "current_outcome_usd_annual": -5.0, "difficulty_score_1_to_5": 2},
...     {"id": "o2", "n": 4, "outcome_total_usd_annual": -7.0, "difficulty_score_1_to_5": 4}]}]})
>>> [a.describe() for a in kb.aggregates(["dx"], claim=(Role.LOSS, ""), ops={"sum"})]
['sum of current outcome over 2 opportunities in 1 dx_report = −$12']
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pe_eval_core.documents.source_values import current_outcome_of, persistence_of
from pe_eval_core.grading.roles import FieldRule, Role, RoleTable, accepts

FAMILY_PREFIXES: dict[str, str] = {
    "dx": "dx_report_",
    "bx": "bx_report_",
    "memo": "explain_",
    "pack": "exit_proof_pack_",
    "ai_act": "ai_act_audit_",
    "cim": "cim_redflags_",
}
"""Artifact families of a knowledge base, by the producer's file name prefix."""

FAMILY_WORDS: dict[str, str] = {
    "dx": "dx_report",
    "bx": "bx_report",
    "memo": "memo",
    "pack": "exit proof pack",
    "ai_act": "AI Act audit",
    "cim": "red-flag file",
}


def family_of(name: str) -> str | None:
    """The family of an artifact file name.

    >>> family_of("explain_X_board.json"), family_of("notes.txt")
    ('memo', None)
    """
    for fam, prefix in FAMILY_PREFIXES.items():
        if name.startswith(prefix) and name.endswith(".json"):
            return fam
    return None


DDQ_FIELD_ROLES = RoleTable(
    "DDQ knowledge base",
    (
        FieldRule(r"total_(?:conservative|aggressive)_usd_annual", Role.TOTAL, "a band's total"),
        FieldRule(
            r"headline_total_usd_annual|total_base_usd_annual|total_projected_impact_usd_annual|"
            r"total_identified_usd_annual",
            Role.TOTAL,
            "a pack's headline and base total, a map's or memo's total, the BX corpus total",
        ),
        FieldRule(r"current_outcome|current_loss_usd_annual", Role.LOSS, "today's outcome"),
        FieldRule(r"projected_outcome_usd_annual", Role.PROJECTED, "the outcome after the action"),
        FieldRule(r"\w*impact_usd_annual", Role.IMPACT, "an opportunity's or claim's impact"),
        FieldRule(r"ebitda_baseline_usd", Role.BASELINE, "the EBITDA baseline"),
        FieldRule(r"n|n_rows|n_claims_documented|portco_count", Role.COUNT, "counts of things"),
        FieldRule(r"persistence", Role.SCORE, "the persistence score, else k/m quarters"),
        FieldRule(r"quarters_observed", Role.QUARTERS_OBSERVED, "k of k/m quarters"),
        FieldRule(r"quarters_total", Role.QUARTERS_TOTAL, "m of k/m quarters"),
        FieldRule(r"difficulty_score_1_to_5", Role.DIFFICULTY, "the difficulty rating"),
        FieldRule(r"evidence_rows", Role.EVIDENCE_COUNT, "evidence row ids listed"),
        FieldRule(r"\w*_multiplier", Role.PARAMETER, "a sensitivity band's multiplier"),
        FieldRule(
            r"archetype|severity|flag_type|excerpt|would_buyer_challenge|has_\w+",
            Role.IDENTIFIER,
            "classifications and yes/no fields: counted by the predicates an answer states",
        ),
    ),
)
"""The knowledge base's field table: the quantity each aggregatable field holds (its unit is
the ``FieldSpec``'s), on the shared role core. A money figure is compared only with fields of
a role its wording's claim accepts (``grading.roles.accepts``)."""

BANDS = ("conservative", "aggressive")
"""The sensitivity bands a pack's totals are stated for (a band total grounds only a figure
its answer says is that band's)."""


@dataclass(frozen=True)
class FieldSpec:
    """One aggregatable field of a population: how to read it, its unit; its role is the
    table's (``DDQ_FIELD_ROLES``)."""

    name: str
    unit: str
    """``usd``, ``count``, ``fraction`` (shown as a percent or score), ``score``,
    ``difficulty``, ``quarters``, ``percent``, ``bool`` or ``text``."""
    read: Callable[[dict[str, Any]], Any]
    words: str = ""
    """How a finding names the field ("current outcome")."""

    @property
    def role(self) -> Role:
        return DDQ_FIELD_ROLES.role_of(self.name)

    @property
    def band(self) -> str:
        """The sensitivity band of a band total (``conservative``), else ``""``."""
        return next((b for b in BANDS if b in self.name), "")


def _get(*path: str) -> Callable[[dict[str, Any]], Any]:
    def read(record: dict[str, Any]) -> Any:
        cur: Any = record
        for part in path:
            if not isinstance(cur, dict):
                return None
            cur = cur.get(part)
        return cur

    return read


def _pair(i: int) -> Callable[[dict[str, Any]], Any]:
    def read(record: dict[str, Any]) -> Any:
        pair = record.get("persistence_quarters_out_of_total")
        return pair[i] if isinstance(pair, list) and len(pair) == 2 else None

    return read


def _length(key: str) -> Callable[[dict[str, Any]], Any]:
    return lambda r: len(r[key]) if isinstance(r.get(key), list) else None


_OPPORTUNITY_FIELDS = (
    FieldSpec("current_outcome", "usd", current_outcome_of, "current outcome"),
    FieldSpec(
        "projected_impact_usd_annual",
        "usd",
        _get("projected_impact_usd_annual"),
        "projected impact",
    ),
    FieldSpec(
        "projected_outcome_usd_annual",
        "usd",
        _get("projected_outcome_usd_annual"),
        "projected outcome",
    ),
    FieldSpec("n", "count", _get("n"), "row count n"),
    FieldSpec(
        "persistence",
        "fraction",
        persistence_of,
        "persistence (score, else k/m quarters)",
    ),
    FieldSpec("quarters_observed", "quarters", _pair(0), "quarters observed"),
    FieldSpec("quarters_total", "quarters", _pair(1), "quarters in the window"),
    FieldSpec(
        "difficulty_score_1_to_5",
        "difficulty",
        _get("difficulty_score_1_to_5"),
        "difficulty",
    ),
    FieldSpec("evidence_rows", "count", _length("evidence_row_ids"), "evidence row ids"),
    FieldSpec("archetype", "text", _get("archetype"), "archetype"),
)
_CLAIM_FIELDS = (
    FieldSpec(
        "claimed_impact_usd_annual",
        "usd",
        _get("claimed_impact_usd_annual"),
        "claimed impact",
    ),
    FieldSpec(
        "current_loss_usd_annual",
        "usd",
        _get("current_loss_usd_annual"),
        "current loss",
    ),
    FieldSpec("n_rows", "count", _get("n_rows"), "row count"),
    FieldSpec(
        "difficulty_score_1_to_5",
        "difficulty",
        _get("difficulty_score_1_to_5"),
        "difficulty",
    ),
    FieldSpec(
        "would_buyer_challenge",
        "bool",
        _get("defensibility", "would_buyer_challenge"),
        "would buyer challenge",
    ),
    FieldSpec(
        "has_counterfactual",
        "bool",
        _get("defensibility", "has_counterfactual"),
        "has counterfactual",
    ),
    FieldSpec(
        "has_persistence_data",
        "bool",
        _get("defensibility", "has_persistence_data"),
        "has persistence data",
    ),
    FieldSpec(
        "has_row_evidence",
        "bool",
        _get("defensibility", "has_row_evidence"),
        "has row evidence",
    ),
)
_FLAG_FIELDS = (
    FieldSpec("severity", "text", _get("severity"), "severity"),
    FieldSpec("flag_type", "text", _get("flag_type"), "flag type"),
    FieldSpec("excerpt", "text", _get("excerpt"), "excerpt"),
)
_PACK_FILE_FIELDS = (
    FieldSpec("headline_total_usd_annual", "usd", _get("headline_total_usd_annual"), "headline"),
    FieldSpec(
        "total_base_usd_annual",
        "usd",
        _get("sensitivity", "total_base_usd_annual"),
        "base total",
    ),
    FieldSpec(
        "total_conservative_usd_annual",
        "usd",
        _get("sensitivity", "total_conservative_usd_annual"),
        "conservative total",
    ),
    FieldSpec(
        "total_aggressive_usd_annual",
        "usd",
        _get("sensitivity", "total_aggressive_usd_annual"),
        "aggressive total",
    ),
    FieldSpec(
        "conservative_multiplier",
        "fraction",
        _get("sensitivity", "conservative_multiplier"),
        "conservative multiplier",
    ),
    FieldSpec(
        "base_multiplier",
        "fraction",
        _get("sensitivity", "base_multiplier"),
        "base multiplier",
    ),
    FieldSpec(
        "aggressive_multiplier",
        "fraction",
        _get("sensitivity", "aggressive_multiplier"),
        "aggressive multiplier",
    ),
    FieldSpec("n_claims_documented", "count", _get("n_claims_documented"), "claims documented"),
)
_MAP_FILE_FIELDS = (
    FieldSpec(
        "total_projected_impact_usd_annual",
        "usd",
        _get("total_projected_impact_usd_annual"),
        "map total",
    ),
    FieldSpec("ebitda_baseline_usd", "usd", _get("ebitda_baseline_usd"), "EBITDA baseline"),
)
_MEMO_FILE_FIELDS = (
    FieldSpec(
        "total_projected_impact_usd_annual",
        "usd",
        _get("total_projected_impact_usd_annual"),
        "memo headline",
    ),
)
_BX_FILE_FIELDS = (
    FieldSpec("portco_count", "count", _get("portco_count"), "portco count"),
    FieldSpec(
        "total_identified_usd_annual",
        "usd",
        _get("total_identified_usd_annual"),
        "corpus total",
    ),
)

POPULATIONS: dict[str, tuple[tuple[str, str, tuple[FieldSpec, ...]], ...]] = {
    "dx": (
        ("files", "", _MAP_FILE_FIELDS),
        ("opportunities", "opportunities", _OPPORTUNITY_FIELDS),
    ),
    "pack": (("files", "", _PACK_FILE_FIELDS), ("claims", "provenance_ledger", _CLAIM_FIELDS)),
    "memo": (("files", "", _MEMO_FILE_FIELDS), ("opportunities", "opportunities_explained", ())),
    "bx": (("files", "", _BX_FILE_FIELDS),),
    "ai_act": (("files", "", ()), ("articles", "articles_addressed", ())),
    "cim": (("files", "", ()), ("flags", "flags", _FLAG_FIELDS)),
}  # fmt: skip
"""Each family's populations: (name, list key inside a file or '' for the files, fields)."""


def identity_of(family: str, record: dict[str, Any]) -> str | None:
    """The portfolio company a file is about (``portco_id``; a filing's company name)."""
    key = "company_name" if family == "cim" else "portco_id"
    value = record.get(key)
    return value if isinstance(value, str) and value else None


Predicate = tuple[str, str, Any]
"""(field name, operator, value): ``("persistence", ">=", 0.5)``, ``("severity", "==", "high")``,
``("excerpt", "mentions", ("ai ", ...))``."""


def _holds(spec: FieldSpec, record: dict[str, Any], op: str, value: Any) -> bool:
    x = spec.read(record)
    if op == "mentions":
        return isinstance(x, str) and any(t in x.lower() for t in value)
    if op == "==":
        return x == value or (isinstance(x, str) and isinstance(value, str) and x.lower() == value)
    if isinstance(x, bool) or not isinstance(x, int | float):
        return False
    return {">=": x >= value, "<=": x <= value, ">": x > value, "<": x < value}[op]


@dataclass(frozen=True)
class Aggregate:
    """One computed aggregate and how to say it."""

    op: str
    field: str
    field_words: str
    unit: str
    role: Role
    population: str
    family: str
    scope: str
    """``cited`` or ``knowledge base``."""
    n_records: int
    n_files: int
    value: float
    predicate: tuple[Predicate, ...] = ()
    band: str = ""
    """The sensitivity band of a band total, else ``""``."""

    @property
    def key(self) -> tuple[Any, ...]:
        """What quantity this is, whatever the scope (for consistency across answers)."""
        return (self.op, self.field, self.population, self.family, self.predicate)

    def describe(self) -> str:
        """``sum of current outcome over 52 opportunities in 16 dx_reports = -1.54B``."""
        files = f"{self.n_files} {FAMILY_WORDS[self.family]}{'s' if self.n_files != 1 else ''}"
        where = (
            ""
            if self.predicate == ()
            else " where "
            + " and ".join(
                f"{f} {o} {v if not isinstance(v, tuple) else 'AI terms'}"
                for f, o, v in self.predicate
            )
        )
        what = self.field_words or self.population
        if self.op == "count" and self.population == "files":
            head = f"number of {files}"
        elif self.op in ("count", "distinct"):
            noun = "distinct portcos" if self.op == "distinct" else self.population
            head = f"number of {noun}{where} over {files}"
            where = ""
        elif self.op == "share":
            head = f"share of {self.population}{where} in {files} (%)"
            where = ""
        else:
            over = "" if self.population == "files" else f" over {self.n_records} {self.population}"
            head = f"{self.op} of {what}{over} in {files}"
        return f"{head}{where} = {_show(self.value, self.unit)}"


def _show(value: float, unit: str) -> str:
    from pe_eval_core.wording import fmt_usd

    if unit == "usd":
        return fmt_usd(value)
    if unit == "percent":
        return f"{value:.1f}%"
    return f"{value:g}" if abs(value) < 1e6 else f"{value:,.0f}"


_OPS: dict[str, Callable[[list[float]], float]] = {
    "sum": sum,
    "mean": statistics.fmean,
    "median": statistics.median,
    "min": min,
    "max": max,
}


@dataclass
class KnowledgeBase:
    """The artifacts of a knowledge base, grouped by family (file name -> parsed JSON)."""

    files: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def from_records(cls, by_family: dict[str, list[dict[str, Any]]]) -> KnowledgeBase:
        """A knowledge base from parsed files (names made up), for tests and doctests."""
        return cls(
            {
                fam: {f"{FAMILY_PREFIXES[fam]}{i}.json": r for i, r in enumerate(recs)}
                for fam, recs in by_family.items()
            }
        )

    @classmethod
    def load(
        cls, folder: Path, names: Iterable[str], read: Callable[[Path], dict[str, Any] | None]
    ) -> KnowledgeBase:
        """The named artifacts of ``folder`` that exist and parse (others are left out)."""
        kb = cls()
        for name in names:
            fam = family_of(name)
            if fam is None or Path(name).name != name:
                continue
            data = read(folder / name)
            if data is not None:
                kb.files.setdefault(fam, {})[name] = data
        return kb

    def portcos(self, only: dict[str, list[str]] | None = None) -> set[str]:
        """Every portfolio company named by an artifact (ids, company names, BX rank rows);
        with ``only``, by those files (family -> names) alone."""
        out: set[str] = set()
        for fam, files in self.files.items():
            for name, data in files.items():
                if only is not None and name not in only.get(fam, ()):
                    continue
                ident = identity_of(fam, data)
                if ident:
                    out.add(ident)
                for row in data.get("rank_table") or []:
                    if isinstance(row, dict) and isinstance(row.get("portco_id"), str):
                        out.add(row["portco_id"])
        return out

    def records(self, family: str, population: str, names: Iterable[str]) -> list[dict[str, Any]]:
        """The records of one population over the named files of a family."""
        files = self.files.get(family, {})
        key = next((k for p, k, _ in POPULATIONS.get(family, ()) if p == population), None)
        out: list[dict[str, Any]] = []
        for name in names:
            data = files.get(name)
            if data is None or key is None:
                continue
            if population == "files":
                out.append(data)
            else:
                items = data.get(key)
                out.extend(
                    (i if isinstance(i, dict) else {"value": i})
                    for i in (items if isinstance(items, list) else [])
                )
        return out

    def aggregates(
        self,
        families: Iterable[str],
        *,
        scopes: dict[str, dict[str, list[str]]] | None = None,
        populations: set[str] | None = None,
        claim: tuple[Role, str] | None = None,
        fields: set[str] | None = None,
        units: set[str] | None = None,
        ops: set[str] | None = None,
        predicates: tuple[Predicate, ...] = (),
    ) -> Iterator[Aggregate]:
        """Every aggregate the filters allow: one per (scope, family, population, field, op),
        counts and distinct portcos included; a predicate restricts counts and shares."""
        scopes = scopes or {"knowledge base": {f: sorted(self.files.get(f, {})) for f in families}}
        for scope, by_family in scopes.items():
            for fam in families:
                names = by_family.get(fam, [])
                for pop, _, specs in POPULATIONS.get(fam, ()):
                    if populations is not None and pop not in populations:
                        continue
                    recs = self.records(fam, pop, names)
                    base = dict(population=pop, family=fam, scope=scope, n_files=len(names))
                    if fields is None:
                        yield from _counts(recs, specs, fam, base, ops, units, predicates)
                    if claim is None and units is None and fields is None:
                        continue
                    for spec in specs:
                        if claim is not None and not _claims(claim, spec):
                            continue
                        if fields is not None and spec.name not in fields:
                            continue
                        if units is not None and spec.unit not in units:
                            continue
                        yield from _field_ops(recs, spec, base, ops)


def _claims(claim: tuple[Role, str], spec: FieldSpec) -> bool:
    """Whether a field may ground a figure claiming ``claim`` (a role and a band)."""
    role, band = claim
    return accepts(role, spec.role) and spec.band == band


def _counts(
    recs: list[dict[str, Any]],
    specs: tuple[FieldSpec, ...],
    fam: str,
    base: dict[str, Any],
    ops: set[str] | None,
    units: set[str] | None,
    predicates: tuple[Predicate, ...],
) -> Iterator[Aggregate]:
    by_name = {s.name: s for s in specs}
    if predicates and not all(p[0] in by_name for p in predicates):
        return
    kept = [r for r in recs if all(_holds(by_name[f], r, o, v) for f, o, v in predicates)]
    common = dict(
        field="", field_words="", role=Role.COUNT, n_records=len(recs), predicate=predicates, **base
    )
    counts = units is None or "count" in units
    if (ops is None or "count" in ops) and counts:
        yield Aggregate(op="count", unit="count", value=float(len(kept)), **common)
    files = base["population"] == "files" and not predicates
    if (ops is None or "distinct" in ops) and files and counts:
        idents = {identity_of(fam, r) for r in recs} - {None}
        yield Aggregate(op="distinct", unit="count", value=float(len(idents)), **common)
    if (ops is None or "share" in ops) and recs and (units is None or "percent" in units):
        yield Aggregate(op="share", unit="percent", value=100 * len(kept) / len(recs), **common)


def _field_ops(
    recs: list[dict[str, Any]], spec: FieldSpec, base: dict[str, Any], ops: set[str] | None
) -> Iterator[Aggregate]:
    if spec.unit in ("text", "bool"):
        return
    values = [
        float(v)
        for v in (spec.read(r) for r in recs)
        if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    if not values:
        if base["n_files"] == 0 and (ops is None or "sum" in ops) and spec.unit == "usd":
            # a total over no files of the family is $0 ("0 portcos with proof packs ...
            # contribution is $0"): the one aggregate an empty population has
            yield Aggregate(
                op="sum",
                field=spec.name,
                field_words=spec.words,
                unit=spec.unit,
                role=spec.role,
                band=spec.band,
                n_records=0,
                value=0.0,
                **base,
            )
        return
    for op, fn in _OPS.items():
        if ops is not None and op not in ops:
            continue
        if op == "sum" and spec.unit in ("fraction", "difficulty", "quarters", "score"):
            continue  # a sum of scores or ratings is no quantity anyone states
        yield Aggregate(
            op=op,
            field=spec.name,
            field_words=spec.words,
            unit=spec.unit,
            role=spec.role,
            band=spec.band,
            n_records=len(values),
            value=float(fn(values)),
            **base,
        )


def field_specs(family: str, population: str) -> tuple[FieldSpec, ...]:
    """The fields of one population (empty when unknown)."""
    return next((s for p, _, s in POPULATIONS.get(family, ()) if p == population), ())
