"""Exit proof pack (``exit_proof_pack_<portco>.json``) graded against the portco's
OpportunityMap and the BX corpus it names.

Citation: every number of the provenance ledger, structured and in prose, matched by role to
its claim's opportunity (a structured field that contradicts the map is a finding); the
quoted action; the defensibility booleans and the sensitivity table as derivations (the
producer's stated rules); the BX rank, percentile, count and total printed in the pack's HTML.
Hallucination: the claim ids, archetypes, segment keys and values, labels, decision columns,
evidence row ids and artifact names. Coverage: source opportunities documented by a claim.
Consistency: the headline against the map total, the sensitivity base total, the claim count
and every memo on the same portco.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pe_eval_core.documents.core import Ledger, consistency_note, source_ref
from pe_eval_core.documents.exit_pack_checks import (
    check_bx_section,
    check_defensibility,
    check_headlines,
    check_sensitivity,
)
from pe_eval_core.documents.loading import read_source, require_list, resolve_named
from pe_eval_core.documents.matching import Match, match_field, match_figure, role_words
from pe_eval_core.documents.prose import norm, prose_figures, split_label
from pe_eval_core.documents.results import DocFindingKind, DocumentEvaluation, DocumentKind
from pe_eval_core.documents.source_values import SourceValue, map_values
from pe_eval_core.errors import DocumentSourceError
from pe_eval_core.grading.roles import FieldRule, Role, RoleTable
from pe_eval_core.memo.plain import shown_raw
from pe_eval_core.memo.source_fields import unit_of_key
from pe_eval_core.wording import fmt_usd

EXIT_PACK_CLAIM_ROLES = RoleTable(
    "ExitProofPack claim",
    (
        FieldRule(r"n_rows", Role.COUNT, "the cohort's rows (the map's n)"),
        FieldRule(r"current_loss_usd_annual", Role.LOSS, "the map's current outcome"),
        FieldRule(r"claimed_impact_usd_annual", Role.IMPACT, "the map's projected impact"),
        FieldRule(r"persistence_total_quarters", Role.QUARTERS_TOTAL, "m of k/m quarters"),
        FieldRule(r"persistence_quarters", Role.QUARTERS_OBSERVED, "k of k/m quarters"),
        FieldRule(r"persistence_score", Role.SCORE, "the score, else k/m (shape B)"),
        FieldRule(r"difficulty_score_1_to_5", Role.DIFFICULTY, "the map's difficulty"),
    ),
)
"""The pack's role table: each numeric field of a ledger claim and the quantity of the map it
copies (a field no rule names is not graded)."""

CLAIM_PROSE_FIELDS = ("methodology_note", "defensibility.rationale")
"""Prose fields of a claim whose figures and labels are graded."""

_ACTION = re.compile(r"via action\s*[—-]+\s*'(?P<action>.*?)'\.?\s+Persistence", re.S)
_COHORT = re.compile(r"\bcohort\s+(?P<label>[^—,.;]+?)\s+—")
_ARCHETYPE = re.compile(r"^\s*(?P<word>[A-Za-z_]+)\s+pattern\b")


def _finding_kind(m: Match, *, structured: bool) -> DocFindingKind:
    """A structured field copies its own claim's opportunity: any other value, another
    opportunity's included, contradicts it; a prose figure of another opportunity is cited
    but mis-attributed (as in a memo)."""
    if structured:
        return DocFindingKind.FIELD_CONTRADICTS_SOURCE
    if m.status == "misattributed":
        return DocFindingKind.MISATTRIBUTED_FIGURE
    if m.status == "sign":
        return DocFindingKind.SIGN_MISMATCH
    if m.status == "wrong_quantity":
        return DocFindingKind.WRONG_QUANTITY
    return DocFindingKind.UNGROUNDED_FIGURE


def _named(v: SourceValue) -> str:
    """A source value with its path, money written as money (``−$87,656``, not ``-87,655.9``).

    >>> from pe_eval_core.grading.roles import Role
    >>> _named(SourceValue("opportunities[0].current_outcome_usd_annual", -87655.85, Role.ANY))
    'opportunities[0].current_outcome_usd_annual = −$87,656'
    """
    how = f" ({v.derived})" if v.derived else ""
    leaf = v.path.rsplit(".", 1)[-1]
    shown = fmt_usd(v.value) if unit_of_key(leaf) == "usd" else f"{v.value:,.6g}"
    return f"{v.path}{how} = {shown}"


def describe(m: Match, raw: str, role: Role, *, structured: bool) -> str:
    """A finding's sentence: what the document says, what the source field of its role holds,
    and (for a wrong quantity) which other field it equals."""
    what = f"{'field value' if structured else 'figure'} '{shown_raw(raw)}'"
    claims = f" claims a {role_words(role)}" if role is not Role.ANY else ""
    exp = m.expected
    should = f"; the source has {_named(exp)}" if exp else "; the source has no value of its kind"
    if m.status == "misattributed" and m.value is not None:
        owner = m.value.item_id
        own = f"; its own is {_named(exp)}" if exp is not None and exp is not m.value else ""
        return f"{what}{claims} that belongs to {owner}: {_named(m.value)}{own}"
    if m.status == "sign":
        return f"{what}{claims} with the wrong sign{should}"
    if m.status == "wrong_quantity" and m.value is not None:
        return f"{what}{claims}{should}; it equals {_named(m.value)}, a {role_words(m.value.role)}"
    return f"{what}{claims} that the source does not hold{should}"


class _Pack:
    """The state of one grading: the pack, its map, and the ledger of checks."""

    def __init__(self, path: Path, data: dict[str, Any], source: Path, opp_map: dict[str, Any]):
        self.path = path
        self.data = data
        self.source = source
        self.map = opp_map
        self.values: list[SourceValue] = map_values(opp_map)
        opps = opp_map.get("opportunities")
        self.opps: dict[str, dict[str, Any]] = {
            str(o.get("id")): o
            for o in (opps if isinstance(opps, list) else [])
            if isinstance(o, dict)
        }
        self.led = Ledger()

    # --- figures ---------------------------------------------------------------------------

    def _record(self, m: Match, cid: str, field: str, raw: str, role: Role, **span: Any) -> None:
        ok = m.status == "grounded" or (m.status == "misattributed" and bool(span))
        v = m.value
        self.led.check(
            "citation_accuracy",
            "figure" if span else "field",
            ok,
            cid,
            field,
            raw,
            role=role.value,
            source_path=v.path if v else None,
            source_value=v.value if v else None,
            **span,
        )
        if m.status == "grounded":
            return
        self.led.finding(
            _finding_kind(m, structured=not span),
            describe(m, raw, role, structured=not span),
            item_id=cid,
            field=field,
            raw=raw,
            expected=m.expected.value if m.expected else None,
            expected_path=f"{self.source.name}: {m.expected.path}" if m.expected else None,
            other_item_id=v.item_id if v and v.item_id != cid else None,
            **span,
        )

    def structured(self, claim: dict[str, Any], cid: str, base: str) -> None:
        for key, value in claim.items():
            role = EXIT_PACK_CLAIM_ROLES.role_of(key)
            if role is Role.ANY or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            m = match_field(float(value), role, cid, self.values)
            self._record(m, cid, f"{base}.{key}", str(value), role)

    def prose(self, claim: dict[str, Any], cid: str, base: str) -> None:
        for name in CLAIM_PROSE_FIELDS:
            text = _get(claim, name)
            if not isinstance(text, str):
                continue
            field = f"{base}.{name}"
            labels = self._label_spans(claim, cid, text)
            for fig, role in prose_figures(text):
                if any(a < fig.end and fig.start < b for a, b in labels):
                    continue  # a digit inside a cohort label or the quoted action: a name
                m = match_figure(fig, role, cid, self.values)
                self._record(m, cid, field, fig.raw, role, start=fig.start, end=fig.end)
            self._prose_names(text, cid, field)
        self._action(claim, cid, base)

    def _label_spans(self, claim: dict[str, Any], cid: str, text: str) -> list[tuple[int, int]]:
        """Where the text spells a segment value or quotes the action (names, not figures)."""
        opp = self.opps.get(cid, {})
        values: set[str] = set()
        for seg in (claim.get("segment"), opp.get("segment")):
            if isinstance(seg, dict):
                values.update(str(v) for v in seg.values() if re.search(r"\d", str(v)))
        spans = [m.span() for v in values for m in re.finditer(re.escape(v), text)]
        action = _ACTION.search(text)
        if action is not None:
            spans.append(action.span("action"))
        return spans

    def _action(self, claim: dict[str, Any], cid: str, base: str) -> None:
        note = claim.get("methodology_note")
        m = _ACTION.search(note) if isinstance(note, str) else None
        if m is None:
            return
        opp = self.opps.get(cid, {})
        key = "projected_action" if opp.get("projected_action") else "recommendation"
        expected = opp.get(key)
        stated = m["action"].strip()
        ok = isinstance(expected, str) and norm(stated) == norm(expected)
        field = f"{base}.methodology_note"
        self.led.check(
            "citation_accuracy",
            "quote",
            ok,
            cid,
            field,
            stated,
            role="action",
            source_path=f"opportunities[{cid}].{key}",
            source_value=expected,
            start=m.start("action"),
            end=m.end("action"),
        )
        if not ok:
            said = "an empty action" if not stated else f"the action {stated!r}"
            self.led.finding(
                DocFindingKind.MISSING_VALUE,
                f"the methodology quotes {said}; the map's {key} is {expected!r}",
                item_id=cid,
                field=field,
                raw=stated,
                start=m.start("action"),
                end=m.end("action"),
                expected=expected if isinstance(expected, str) else None,
                expected_path=f"{self.source.name}: {cid}.{key}",
            )

    # --- names -----------------------------------------------------------------------------

    def name(
        self,
        cid: str | None,
        field: str,
        raw: str,
        category: str,
        own: set[str],
        others: dict[str, str],
    ) -> None:
        """One named thing: grounded in its claim's opportunity, or another's, or nowhere."""
        key = norm(raw)
        if key in own:
            self.led.check("hallucination_rate", "entity", True, cid, field, raw, role=category)
            return
        other = others.get(key)
        self.led.check(
            "hallucination_rate", "entity", other is not None, cid, field, raw, role=category
        )
        kind = DocFindingKind.MISATTRIBUTED_ENTITY if other else DocFindingKind.UNGROUNDED_ENTITY
        where = f"belongs to {other}" if other else f"is in no opportunity of {self.source.name}"
        self.led.finding(
            kind,
            f"{category} {raw!r} {where}",
            item_id=cid,
            field=field,
            raw=raw,
            other_item_id=other,
        )

    def _universe(self, category: str) -> dict[str, dict[str, str]]:
        """For each opportunity id, its names of one category (normalised -> id)."""
        out: dict[str, dict[str, str]] = {}
        for oid, opp in self.opps.items():
            names: set[str] = set()
            raw_seg = opp.get("segment")
            seg: dict[str, Any] = raw_seg if isinstance(raw_seg, dict) else {}
            if category == "segment value":
                names = {norm(v) for v in seg.values()}
            elif category == "segment key":
                names = {norm(k) for k in seg}
            elif category == "decision column":
                names = {norm(c) for c in opp.get("decision_cols") or []}
            elif category == "archetype":
                names = {norm(opp.get("archetype", ""))}
            elif category == "evidence row id":
                names = {norm(r) for r in opp.get("evidence_row_ids") or []}
            out[oid] = {n: oid for n in names if n}
        return out

    def names_of(self, category: str, cid: str) -> tuple[set[str], dict[str, str]]:
        universe = self._universe(category)
        own = set(universe.get(cid, {}))
        others = {n: o for o, names in universe.items() if o != cid for n in names}
        return own, others

    def claim_names(self, claim: dict[str, Any], cid: str, base: str) -> None:
        checks: list[tuple[str, str, list[str]]] = []
        seg = claim.get("segment")
        if isinstance(seg, dict):
            checks.append(("segment key", "segment", [str(k) for k in seg]))
            checks.append(("segment value", "segment", [str(v) for v in seg.values()]))
        if isinstance(claim.get("segment_label"), str):
            checks.append(("segment value", "segment_label", split_label(claim["segment_label"])))
        cols = claim.get("decision_cols")
        if isinstance(cols, list):
            checks.append(("decision column", "decision_cols", [str(c) for c in cols]))
        label = claim.get("decision_cols_label")
        if isinstance(label, str) and label.strip() not in ("", "—"):
            checks.append(("decision column", "decision_cols_label", split_label(label)))
        if isinstance(claim.get("archetype"), str):
            checks.append(("archetype", "archetype", [claim["archetype"]]))
        ids = claim.get("evidence_row_ids")
        if isinstance(ids, list):
            checks.append(("evidence row id", "evidence_row_ids", [str(r) for r in ids]))
        summary = claim.get("evidence_row_summary")
        if isinstance(summary, str):
            shown = re.sub(r"\(\+\d+ more\)", "", summary)
            summary_ids = [s.strip() for s in shown.split(",") if s.strip() not in ("", "—")]
            checks.append(("evidence row id", "evidence_row_summary", summary_ids))
            self._more(summary, len(summary_ids), ids, cid, f"{base}.evidence_row_summary")
        for category, key, raws in checks:
            own, others = self.names_of(category, cid)
            for raw in raws:
                self.name(cid, f"{base}.{key}", raw, category, own, others)
        self._artifact(claim.get("source_artifact"), cid, f"{base}.source_artifact")

    def _more(self, summary: str, shown: int, ids: Any, cid: str, field: str) -> None:
        """``(+N more)``: N is the evidence ids the summary does not show."""
        m = re.search(r"\(\+(?P<n>\d+) more\)", summary)
        if m is None or not isinstance(ids, list):
            return
        expected = len(ids) - shown
        ok = int(m["n"]) == expected
        self.led.check(
            "citation_accuracy",
            "derivation",
            ok,
            cid,
            field,
            m.group(),
            role="ids not shown",
            source_value=expected,
        )
        if not ok:
            self.led.finding(
                DocFindingKind.BROKEN_DERIVATION,
                f"the summary says {m.group()!r}; {len(ids)} evidence ids less the {shown} "
                f"shown leaves {expected}",
                item_id=cid,
                field=field,
                raw=m.group(),
                expected=expected,
            )

    def _prose_names(self, text: str, cid: str, field: str) -> None:
        for m in _COHORT.finditer(text):
            own, others = self.names_of("segment value", cid)
            for part in split_label(m["label"]):
                self.name(cid, field, part, "segment value", own, others)
        arche = _ARCHETYPE.match(text)
        if arche is not None:
            own, others = self.names_of("archetype", cid)
            self.name(cid, field, arche["word"], "archetype", own, others)

    def _artifact(self, named: object, cid: str | None, field: str) -> None:
        if not isinstance(named, str):
            return
        ok = Path(named).name == self.source.name
        self.led.check("hallucination_rate", "artifact", ok, cid, field, named, role="artifact")
        if not ok:
            self.led.finding(
                DocFindingKind.HALLUCINATED_ARTIFACT,
                f"names the artifact {named!r}; the pack was drawn from {self.source.name}",
                item_id=cid,
                field=field,
                raw=named,
                expected=self.source.name,
            )


def _get(obj: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)  # type: ignore[assignment]
    return obj


def _map_path(path: Path, data: dict[str, Any], given: Path | None) -> Path:
    if given is not None:
        if not given.is_file():
            raise DocumentSourceError(f"OpportunityMap {given} does not exist")
        return given
    found = resolve_named(path, data.get("source_opportunity_map"), field="source_opportunity_map")
    portco = data.get("portco_id")
    if found is None and isinstance(portco, str):
        found = resolve_named(path, f"dx_report_{portco}.json", field="portco_id")
    if found is None:
        raise DocumentSourceError(
            f"{path.name}: the OpportunityMap named in source_opportunity_map is not beside "
            "the pack (nor a dx_report of its portco_id)"
        )
    return found


def _coverage(p: _Pack, claims: list[tuple[str, int]]) -> None:
    documented = {cid for cid, _ in claims}
    for oid in p.opps:
        ok = oid in documented
        p.led.check("coverage", "item", ok, oid, "provenance_ledger", oid, role="opportunity")
        if not ok:
            p.led.finding(
                DocFindingKind.DROPPED_ITEM,
                f"opportunity {oid} of {p.source.name} has no claim in the ledger",
                item_id=oid,
                field="provenance_ledger",
                raw=oid,
            )
    for cid, i in claims:
        ok = cid in p.opps
        p.led.check(
            "hallucination_rate",
            "item",
            ok,
            cid,
            f"provenance_ledger[{i}].claim_id",
            cid,
            role="claim id",
        )
        if not ok:
            p.led.finding(
                DocFindingKind.PHANTOM_ITEM,
                f"claim {cid} is no opportunity of {p.source.name}",
                item_id=cid,
                field=f"provenance_ledger[{i}].claim_id",
                raw=cid,
            )


def grade_exit_pack(
    path: Path,
    data: dict[str, Any],
    *,
    source: Path | None = None,
    bx_corpus: Path | None = None,
) -> DocumentEvaluation:
    """Grade one exit proof pack (already read) against its map and BX corpus."""
    map_path = _map_path(path, data, source)
    p = _Pack(path, data, map_path, read_source(map_path, "OpportunityMap"))
    ledger = require_list(data, "provenance_ledger", path)
    claims: list[tuple[str, int]] = []
    for i, claim in enumerate(ledger):
        if not isinstance(claim, dict):
            continue
        cid = str(claim.get("claim_id", f"#{i}"))
        claims.append((cid, i))
        base = f"provenance_ledger[{i}]"
        p.structured(claim, cid, base)
        p.prose(claim, cid, base)
        p.claim_names(claim, cid, base)
        check_defensibility(p.led, claim, p.opps.get(cid), cid, base, map_path.name)
    _coverage(p, claims)
    portco = str(data.get("portco_id", ""))
    p.name(None, "portco_id", portco, "portco", {norm(p.map.get("portco_id", ""))}, {})
    if isinstance(data.get("as_of"), str) and isinstance(p.map.get("as_of"), str):
        p.name(None, "as_of", data["as_of"], "as-of date", {norm(p.map["as_of"])}, {})
    bx_path = bx_corpus or resolve_named(
        path, data.get("source_bx_corpus"), field="source_bx_corpus"
    )
    _named_artifacts(p, path, data, bx_path)
    check_sensitivity(p.led, data, {cid: ledger[i] for cid, i in claims})
    check_headlines(p.led, path, data, p.map, map_path, len(claims))
    if bx_path is not None:
        check_bx_section(p.led, path, data, read_source(bx_path, "BX corpus"), bx_path)
    items = [(cid, _claim_label(ledger[i]), cid in p.opps) for cid, i in claims] + [
        (oid, "not documented", True) for oid in p.opps if oid not in {c for c, _ in claims}
    ]
    documented, _ = p.led.count("item", "coverage")
    cells, cells_ok = p.led.count("derivation")
    return p.led.evaluation(
        kind=DocumentKind.EXIT_PROOF_PACK,
        document_id=str(data.get("portco_id") or path.stem),
        document_path=path,
        sources=source_ref("opportunity_map", map_path) + source_ref("bx_corpus", bx_path),
        items=items,
        consistency_note=consistency_note(p.led.rows, "headline"),
        coverage_label="opportunities",
        extra_totals={
            "claims_documented": len(claims),
            "opps_in_map": documented,
            "derivations_total": cells,
            "derivations_ok": cells_ok,
        },
    )


def _named_artifacts(p: _Pack, path: Path, data: dict[str, Any], bx_path: Path | None) -> None:
    named_map = data.get("source_opportunity_map")
    if isinstance(named_map, str):
        p._artifact(named_map, None, "source_opportunity_map")
    named_bx = data.get("source_bx_corpus")
    if isinstance(named_bx, str) and named_bx.strip():
        ok = bx_path is not None
        p.led.check(
            "hallucination_rate",
            "artifact",
            ok,
            None,
            "source_bx_corpus",
            named_bx,
            role="artifact",
        )
        if not ok:
            p.led.finding(
                DocFindingKind.HALLUCINATED_ARTIFACT,
                f"names the BX corpus {named_bx!r}, which is not beside the pack",
                field="source_bx_corpus",
                raw=named_bx,
            )


def _claim_label(claim: Any) -> str:
    if not isinstance(claim, dict):
        return ""
    arche = str(claim.get("archetype") or "").capitalize()
    label = claim.get("segment_label") or ""
    return f"{arche} · {label}" if arche else str(label)
