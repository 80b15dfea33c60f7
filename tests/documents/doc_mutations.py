"""Labelled mutations of each document kind, and the clean documents they are planted in.

Each mutation edits one clean document of ``tests/corpus/producer_run`` or
``tests/corpus/producer_generated`` (a copy: ``measure`` works on a temporary copy, mutating,
grading and restoring one document at a time) and names the finding kinds that catch it and
where (``field`` substring or item id). ``measure`` returns per kind: mutations caught, the
misses, and every counted finding on the clean documents (false flags).
Used by ``tests/documents/test_mutations.py`` and ``benchmarks/bench_documents.py``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
RUN = "producer_run/finance_output"
GEN = "producer_generated/finance_output"

CLEAN: dict[str, list[str]] = {
    "exit_proof_pack": [
        f"{RUN}/exit_proof_pack_MortgageCo.json",
        f"{RUN}/exit_proof_pack_HMDA_GA.json",
        *(
            f"{GEN}/exit_proof_pack_{p}.json"
            for p in [
                "DCMortgage",
                "HMDA_AZ",
                "HMDA_DC",
                "HMDA_DE",
                "HMDA_MA",
                "midwest_lender",
                "mountain_lender",
                "northeast_lender",
                "pacific_lender",
                "southeast_lender",
            ]
        ),
    ],
    "ddq_response": ["producer_generated/kb_a/ddq_response_Cedar_Growth_Fund_II.json"],
    "cim_redflags": [f"{GEN}/cim_redflags_cedar_point_10k.json"],
}
"""Documents whose every figure is right (checked by hand): any counted finding is false."""

Edit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Mutation:
    kind: str
    name: str
    doc: str
    edit: Edit | None = None
    html: tuple[str, str] | None = None
    """For the pack's HTML: (old, new) text replaced once."""
    expect: frozenset[str] = field(default_factory=frozenset)
    where: str = ""
    """A substring of the finding's field or item id that must locate it ('' = anywhere)."""


def _claim(i: int, key: str, fn: Callable[[Any], Any]) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        d["provenance_ledger"][i][key] = fn(d["provenance_ledger"][i][key])

    return edit


def _text(path: tuple[Any, ...], old: str, new: str) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        cur: Any = d
        for p in path[:-1]:
            cur = cur[p]
        assert old in cur[path[-1]], (old, cur[path[-1]])
        cur[path[-1]] = cur[path[-1]].replace(old, new, 1)

    return edit


def _set(path: tuple[Any, ...], fn: Callable[[Any], Any]) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        cur: Any = d
        for p in path[:-1]:
            cur = cur[p]
        cur[path[-1]] = fn(cur[path[-1]])

    return edit


def _drop_last_claim(d: dict[str, Any]) -> None:
    d["provenance_ledger"].pop()


def _add_citation(i: int, name: str) -> Edit:
    return lambda d: d["answers"][i]["citations"].append(name)


def _drop_flag(type_: str) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        flag = next(f for f in d["flags"] if f["flag_type"] == type_)
        d["flags"].remove(flag)
        s = d["summary"]
        s["total"] -= 1
        s["by_severity"][flag["severity"]] -= 1
        s["by_type"][type_] -= 1

    return edit


def _invent_flag(d: dict[str, Any]) -> None:
    d["flags"].append(
        {
            "flag_type": "going_concern",
            "severity": "high",
            "item": "7",
            "paragraph_index": 1,
            "excerpt": "There is substantial doubt about the company's ability to continue as a "
            "going concern given the covenant breach in the fourth quarter.",
            "rationale": "Going-concern language present.",
        }
    )
    d["summary"]["total"] += 1
    d["summary"]["by_severity"]["high"] += 1
    d["summary"]["by_type"]["going_concern"] = 1


F = frozenset
PACK_M = f"{RUN}/exit_proof_pack_MortgageCo.json"
PACK_G = f"{GEN}/exit_proof_pack_midwest_lender.json"
PACK_D = f"{GEN}/exit_proof_pack_DCMortgage.json"
DDQ_A = "producer_generated/kb_a/ddq_response_Cedar_Growth_Fund_II.json"
DDQ_B = f"{RUN}/ddq_response_Bolnet_Capital_Partners_I.json"
RF_C = f"{GEN}/cim_redflags_cedar_point_10k.json"
RF_H = f"{RUN}/cim_redflags_harbor_ridge_10k.json"
CONTRA = "field_contradicts_source"
AGG = "wrong_aggregate"

MUTATIONS: list[Mutation] = [
    # --- exit proof packs -------------------------------------------------------------------
    Mutation("exit_proof_pack", "current loss wrong (x1.3)", PACK_M, _claim(0, "current_loss_usd_annual", lambda v: v * 1.3), expect=F({CONTRA}), where="[0].current_loss"),
    Mutation("exit_proof_pack", "claimed impact scaled x1000", PACK_G, _claim(1, "claimed_impact_usd_annual", lambda v: v * 1000), expect=F({CONTRA}), where="[1].claimed_impact"),
    Mutation("exit_proof_pack", "current loss sign-flipped", PACK_D, _claim(2, "current_loss_usd_annual", lambda v: -v), expect=F({CONTRA}), where="[2].current_loss"),
    Mutation("exit_proof_pack", "claimed impact role-swapped with the loss", PACK_G, _set(("provenance_ledger", 0, "claimed_impact_usd_annual"), lambda v: -v), expect=F({CONTRA}), where="[0].claimed_impact"),
    Mutation("exit_proof_pack", "n_rows from another claim", PACK_M, _set(("provenance_ledger", 0, "n_rows"), lambda v: 10677), expect=F({"misattributed_figure", CONTRA}), where="[0].n_rows"),
    Mutation("exit_proof_pack", "difficulty wrong", PACK_D, _set(("provenance_ledger", 1, "difficulty_score_1_to_5"), lambda v: 3), expect=F({CONTRA}), where="[1].difficulty"),
    Mutation("exit_proof_pack", "persistence score wrong", PACK_G, _set(("provenance_ledger", 1, "persistence_score"), lambda v: 0.5), expect=F({CONTRA}), where="[1].persistence_score"),
    Mutation("exit_proof_pack", "prose loan count wrong", PACK_M, _text(("provenance_ledger", 0, "methodology_note"), "23,425 loans", "24,425 loans"), expect=F({"ungrounded_figure"}), where="[0].methodology_note"),
    Mutation("exit_proof_pack", "prose loss scaled M->B", PACK_M, _text(("provenance_ledger", 1, "methodology_note"), "$-202.6M", "$-202.6B"), expect=F({"ungrounded_figure"}), where="[1].methodology_note"),
    Mutation("exit_proof_pack", "prose loss role-swapped (mean outcome)", PACK_M, _text(("provenance_ledger", 0, "methodology_note"), "$-440.7M of current", "$-21,835 of current"), expect=F({"wrong_quantity", "ungrounded_figure"}), where="[0].methodology_note"),
    Mutation("exit_proof_pack", "prose quarters wrong", PACK_G, _text(("provenance_ledger", 1, "defensibility", "rationale"), "persisting 6/8", "persisting 7/8"), expect=F({"ungrounded_figure", "misattributed_figure"}), where="[1].defensibility.rationale"),
    Mutation("exit_proof_pack", "prose persistence score wrong", PACK_G, _text(("provenance_ledger", 2, "methodology_note"), "(score 0.62)", "(score 0.82)"), expect=F({"ungrounded_figure", "misattributed_figure"}), where="[2].methodology_note"),
    Mutation("exit_proof_pack", "sensitivity cell broken", PACK_M, _set(("sensitivity", "per_claim", 0, "aggressive_usd_annual"), lambda v: v * 1.1), expect=F({"broken_derivation"}), where="per_claim[0]"),
    Mutation("exit_proof_pack", "sensitivity total broken", PACK_D, _set(("sensitivity", "total_conservative_usd_annual"), lambda v: v + 250_000), expect=F({"broken_derivation"}), where="total_conservative"),
    Mutation("exit_proof_pack", "sensitivity uses wrong multiplier", PACK_G, _set(("sensitivity", "per_claim", 2, "conservative_usd_annual"), lambda v: v / 0.5 * 0.6), expect=F({"broken_derivation"}), where="per_claim[2]"),
    Mutation("exit_proof_pack", "checklist box flipped", PACK_M, _set(("provenance_ledger", 1, "defensibility", "has_row_evidence"), lambda v: not v), expect=F({"broken_derivation"}), where="[1].defensibility.has_row"),
    Mutation("exit_proof_pack", "invented source artifact", PACK_D, _set(("provenance_ledger", 0, "source_artifact"), lambda v: "dx_report_DCMortgage_v2.json"), expect=F({"hallucinated_artifact"}), where="[0].source_artifact"),
    Mutation("exit_proof_pack", "invented segment value", PACK_M, _set(("provenance_ledger", 0, "segment_label"), lambda v: "A × 180 months"), expect=F({"ungrounded_entity"}), where="[0].segment_label"),
    Mutation("exit_proof_pack", "invented evidence row id", PACK_G, _set(("provenance_ledger", 2, "evidence_row_ids"), lambda v: ["999999", *v[1:]]), expect=F({"ungrounded_entity"}), where="[2].evidence_row_ids"),
    Mutation("exit_proof_pack", "invented decision column", PACK_D, _set(("provenance_ledger", 1, "decision_cols_label"), lambda v: v.split(" × ")[0] + " × region"), expect=F({"ungrounded_entity"}), where="[1].decision_cols_label"),
    Mutation("exit_proof_pack", "archetype swapped", PACK_M, _set(("provenance_ledger", 2, "archetype"), lambda v: "routing"), expect=F({"ungrounded_entity", "misattributed_entity"}), where="[2].archetype"),
    Mutation("exit_proof_pack", "headline off by 5%", PACK_G, _set(("headline_total_usd_annual",), lambda v: v * 1.05), expect=F({"headline_mismatch"}), where="headline"),
    Mutation("exit_proof_pack", "claim dropped", PACK_D, _drop_last_claim, expect=F({"dropped_item"}), where="opp_03"),
    Mutation("exit_proof_pack", "evidence summary count wrong", PACK_G, _text(("provenance_ledger", 1, "evidence_row_summary"), "(+2 more)", "(+3 more)"), expect=F({"broken_derivation"}), where="[1].evidence_row_summary"),
    Mutation("exit_proof_pack", "as-of date altered", PACK_D, _set(("as_of",), lambda v: "2025-06-30"), expect=F({"ungrounded_entity"}), where="as_of"),
    Mutation("exit_proof_pack", "BX rank wrong in the HTML", PACK_M, html=("<td>1 of 7</td>", "<td>2 of 7</td>"), expect=F({"ungrounded_figure"}), where="fund-level"),
    Mutation("exit_proof_pack", "BX percentile wrong in the HTML", PACK_G, html=(">33%</td>", ">50%</td>"), expect=F({"ungrounded_figure"}), where="fund-level"),
    Mutation("exit_proof_pack", "loss stated as its magnitude is no error", PACK_M, _text(("provenance_ledger", 0, "methodology_note"), "$-440.7M of current", "$440.7M of current"), expect=F()),
    Mutation("exit_proof_pack", "sign before the currency is no error", PACK_G, _text(("provenance_ledger", 0, "defensibility", "rationale"), "run-rate $-", "run-rate -$"), expect=F()),
    # --- DDQ responses ----------------------------------------------------------------------
    Mutation("ddq_response", "portco count wrong", DDQ_A, _text(("answers", 0, "answer"), "Across 8 portfolio", "Across 9 portfolio"), expect=F({AGG}), where="Q01"),
    Mutation("ddq_response", "findings count off by a subset", DDQ_A, _text(("answers", 2, "answer"), "24 cohort findings", "21 cohort findings"), expect=F({AGG}), where="Q03"),
    Mutation("ddq_response", "evidence rows wrong", DDQ_A, _text(("answers", 2, "answer"), "corpus: 120", "corpus: 115"), expect=F({AGG}), where="Q03"),
    Mutation("ddq_response", "loss summed over a subset", DDQ_A, _text(("answers", 5, "answer"), "$-67.4M", "$-60.6M"), expect=F({AGG}), where="Q06"),
    Mutation("ddq_response", "recovery scaled x10", DDQ_A, _text(("answers", 5, "answer"), "rerouted: $67.4M", "rerouted: $674.0M"), expect=F({AGG}), where="Q06"),
    Mutation("ddq_response", "recovery at another precision is no error", DDQ_A, _text(("answers", 5, "answer"), "rerouted: $67.4M", "rerouted: $67.42M"), expect=F(), where="Q06"),
    Mutation("ddq_response", "loss stated as its magnitude is no error", DDQ_A, _text(("answers", 5, "answer"), "cohorts: $-67.4M", "cohorts: $67.4M"), expect=F(), where="Q06"),
    Mutation("ddq_response", "recovery sign-flipped", DDQ_A, _text(("answers", 5, "answer"), "rerouted: $67.4M", "rerouted: $-67.4M"), expect=F({AGG}), where="Q06"),
    Mutation("ddq_response", "N of M wrong", DDQ_A, _text(("answers", 6, "answer"), "16 of 24", "18 of 24"), expect=F({AGG}), where="Q07"),
    Mutation("ddq_response", "share wrong", DDQ_A, _text(("answers", 6, "answer"), "(67%)", "(75%)"), expect=F({AGG}), where="Q07"),
    Mutation("ddq_response", "median persistence wrong", DDQ_A, _text(("answers", 4, "answer"), "score is 1.00", "score is 0.92"), expect=F({AGG}), where="Q05"),
    Mutation("ddq_response", "base total role-swapped (conservative)", DDQ_A, _text(("answers", 10, "answer"), "contribution is $67.4M", "contribution is $33.7M"), expect=F({AGG}), where="Q11"),
    Mutation("ddq_response", "challenge count wrong", DDQ_A, _text(("answers", 11, "answer"), "9 of 24", "11 of 24"), expect=F({AGG}), where="Q12"),
    Mutation("ddq_response", "memo count counts operator memos", DDQ_A, _text(("answers", 1, "answer"), "8 such memos", "16 such memos"), expect=F({AGG}), where="Q02"),
    Mutation("ddq_response", "invented citation", DDQ_A, _add_citation(2, "dx_report_Ghost.json"), expect=F({"hallucinated_artifact"}), where="Q03"),
    Mutation("ddq_response", "invented portco in the inventory", DDQ_A, _text(("answers", 0, "answer"), "HMDA_DE,", "HMDA_TX,"), expect=F({"ungrounded_entity"}), where="Q01"),
    Mutation("ddq_response", "company name altered", DDQ_A, _text(("answers", 9, "answer"), "Cedar Point Logistics", "Cedar Ridge Logistics"), expect=F({"ungrounded_entity"}), where="Q10"),
    Mutation("ddq_response", "questions count wrong", DDQ_A, _set(("n_questions_answered",), lambda v: v - 1), expect=F({"count_mismatch"}), where="n_questions"),
    Mutation("ddq_response", "portco without an audit named as audited", DDQ_B, _text(("answers", 3, "answer"), "covered: MortgageCo.", "covered: MortgageCo, HMDA_GA."), expect=F({"ungrounded_entity"}), where="Q04"),
    Mutation("ddq_response", "deadline altered", DDQ_B, _text(("answers", 8, "answer"), "deadline 2026-08-02", "deadline 2027-08-02"), expect=F({"ungrounded_entity"}), where="Q09"),
    Mutation("ddq_response", "pack total over a subset", DDQ_B, _text(("answers", 10, "answer"), "$922.9M", "$907.6M"), expect=F({AGG}), where="Q11"),
    Mutation("ddq_response", "evidence rows wrong (fund)", DDQ_B, _text(("answers", 2, "answer"), "corpus: 260", "corpus: 250"), expect=F({AGG}), where="Q03"),
    Mutation("ddq_response", "difficulty median wrong", DDQ_B, _text(("answers", 6, "answer"), "is 2/5", "is 3/5"), expect=F({AGG}), where="Q07"),
    # --- red flags ----------------------------------------------------------------------------
    Mutation("cim_redflags", "excerpt paraphrased", RF_C, _text(("flags", 1, "excerpt"), "we recorded", "we booked"), expect=F({"excerpt_not_found"}), where="flag_02"),
    Mutation("cim_redflags", "excerpt moved (paragraph)", RF_C, _set(("flags", 2, "paragraph_index"), lambda v: v - 1), expect=F({"excerpt_misplaced"}), where="flag_03"),
    Mutation("cim_redflags", "excerpt moved (item)", RF_H, _set(("flags", 0, "item"), lambda v: "1A"), expect=F({"excerpt_misplaced"}), where="flag_01"),
    Mutation("cim_redflags", "excerpt figure altered", RF_C, _text(("flags", 1, "excerpt"), "$12.3 million", "$21.3 million"), expect=F({"excerpt_not_found", "figure_not_in_filing"}), where="flag_02"),
    Mutation("cim_redflags", "rationale figure altered", RF_C, _text(("flags", 4, "rationale"), "18%", "28%"), expect=F({"figure_not_in_filing"}), where="flag_05"),
    Mutation("cim_redflags", "summary total wrong", RF_C, _set(("summary", "total"), lambda v: v + 1), expect=F({"count_mismatch"}), where="summary.total"),
    Mutation("cim_redflags", "summary severity count wrong", RF_H, _set(("summary", "by_severity", "high"), lambda v: v - 1), expect=F({"count_mismatch"}), where="by_severity"),
    Mutation("cim_redflags", "severity breaks the rule", RF_C, _set(("flags", 6, "severity"), lambda v: "high"), expect=F({"severity_rule", "count_mismatch"}), where="flag_07"),
    Mutation("cim_redflags", "flag type swapped", RF_H, _set(("flags", 3, "flag_type"), lambda v: "going_concern"), expect=F({"wrong_flag_type"}), where="flag_04"),
    Mutation("cim_redflags", "flag dropped", RF_C, _drop_flag("goodwill_impairment"), expect=F({"uncovered_disclosure"}), where="Item 7"),
    Mutation("cim_redflags", "invented flag", RF_C, _invent_flag, expect=F({"hallucinated_flag", "excerpt_not_found"}), where="flag_08"),
    Mutation("cim_redflags", "company name altered", RF_C, _set(("company_name",), lambda v: "Cedar Ridge Logistics Holdings"), expect=F({"ungrounded_entity"}), where="company_name"),
    Mutation("cim_redflags", "excerpt re-wrapped is no error", RF_C, _text(("flags", 1, "excerpt"), "charge of $12.3 million", "charge of\n  $12.3 million"), expect=F()),
    Mutation("cim_redflags", "severity-word count altered", RF_C, _text(("flags", 0, "rationale"), "with 5 severity", "with 7 severity"), expect=F({"broken_derivation"}), where="flag_01"),
]  # fmt: skip


@dataclass
class Result:
    caught: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    false_flags: dict[str, list[str]] = field(default_factory=dict)
    """Counted findings on clean documents and on correct variants (mutations expecting none)."""
    variants: dict[str, int] = field(default_factory=dict)
    clean_docs: dict[str, int] = field(default_factory=dict)


def _grade(path: Path) -> list[Any]:
    from pe_eval_core.documents import grade_document

    return grade_document(path).counted_findings()


def _hit(findings: list[Any], m: Mutation) -> bool:
    return any(
        f.kind.value in m.expect
        and (not m.where or m.where in (f.field or "") or m.where in (f.item_id or ""))
        for f in findings
    )


def measure(corpus: Path = CORPUS) -> Result:
    """Grade every clean document and every mutation (on a temporary copy of the corpus)."""
    out = Result()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for sub in ("producer_run", "producer_generated"):
            shutil.copytree(corpus / sub, root / sub)
        for kind, docs in CLEAN.items():
            out.clean_docs[kind] = len(docs)
            flags = out.false_flags.setdefault(kind, [])
            for doc in docs:
                flags += [f"{doc}: {f.kind.value} {f.message}" for f in _grade(root / doc)]
        for m in MUTATIONS:
            path = root / m.doc
            original = path.read_bytes()
            page = path.with_suffix(".html")
            page_text = page.read_text(encoding="utf-8") if m.html else ""
            try:
                if m.edit is not None:
                    data = json.loads(original)
                    m.edit(data)
                    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
                if m.html is not None:
                    assert m.html[0] in page_text, m.name
                    page.write_text(page_text.replace(*m.html, 1), encoding="utf-8")
                findings = _grade(path)
                found = _hit(findings, m)
            finally:
                path.write_bytes(original)
                if m.html:
                    page.write_text(page_text, encoding="utf-8")
            if not m.expect:  # a correct variant: any finding is a false flag
                out.variants[m.kind] = out.variants.get(m.kind, 0) + 1
                out.false_flags.setdefault(m.kind, []).extend(
                    f"{m.name}: {f.kind.value} {f.message}" for f in findings
                )
                continue
            out.total[m.kind] = out.total.get(m.kind, 0) + 1
            out.caught[m.kind] = out.caught.get(m.kind, 0) + found
            if not found:
                out.misses.append(f"{m.kind}: {m.name} ({m.doc})")
    return out
