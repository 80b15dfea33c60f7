"""Errors planted by rule in EVERY producer document of a kind (not hand-placed in one), so
recall is measured on documents the rules were not written against: the producer's own
output from other books (``tests/corpus/producer_more``: other seeds' maps, two new 10-Ks,
two new knowledge bases) as well as the earlier folders.

A planter is a class of error (a wrong, scaled, sign-flipped or role-swapped figure, a broken
derivation, an invented name or artifact, a dropped item, a moved excerpt ...) written once per
kind; it finds where it applies in a document (the first claim, the answer that states a loss,
a flag with a figure ...), edits a copy and names the finding kinds that must catch it and
where. A plant counts as caught when the grading of the edited copy has a counted finding of
an expected kind at that place that the unedited document did not have (so documents with the
producer's own defects are used too). A planter that does not apply to a document plants
nothing there.

``measure_planted`` returns, per kind, the plants, the caught ones and the misses.
Used by ``tests/documents/test_planted.py`` and ``benchmarks/bench_documents.py``.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FOLDERS = ("producer_run", "producer_generated", "producer_more")

Doc = dict[str, Any]
BAD = "\x00bad"
"""Key the measure sets in the document it hands a planter: the indexes of the items (claims,
answers, flags) the unedited grading already has a finding on; a planter avoids them (an error
planted in a wrong item shows nothing new)."""
Plant = tuple[Doc, frozenset[str], str]
"""(edited document, finding kinds that catch it, where: a substring of field or item id)."""
Planter = Callable[[Doc], Plant | None]

F = frozenset
CONTRA = "field_contradicts_source"
AGG = "wrong_aggregate"


def _edited(doc: Doc, fn: Callable[[Doc], bool]) -> Doc | None:
    out = copy.deepcopy(doc)
    return out if fn(out) else None


# --- exit proof packs --------------------------------------------------------------------------


def _claim_field(key: str, change: Callable[[Any], Any], expect: frozenset[str]) -> Planter:
    def plant(doc: Doc) -> Plant | None:
        claims = doc.get("provenance_ledger") or []
        for i, c in enumerate(claims):
            v = c.get(key)
            if i in doc.get(BAD, ()):
                continue
            if isinstance(v, int | float) and not isinstance(v, bool) and v:
                out = copy.deepcopy(doc)
                out["provenance_ledger"][i][key] = change(v)
                return out, expect, f"provenance_ledger[{i}].{key}"
        return None

    return plant


def _prose(pattern: str, change: Callable[[re.Match[str]], str], expect: frozenset[str]) -> Planter:
    rx = re.compile(pattern)

    def plant(doc: Doc) -> Plant | None:
        for i, c in enumerate(doc.get("provenance_ledger") or []):
            note = c.get("methodology_note")
            m = rx.search(note) if isinstance(note, str) else None
            if m:
                out = copy.deepcopy(doc)
                new = note[: m.start()] + change(m) + note[m.end() :]
                out["provenance_ledger"][i]["methodology_note"] = new
                return out, expect, f"provenance_ledger[{i}].methodology_note"
        return None

    return plant


def _sensitivity(key: str, change: Callable[[float], float]) -> Planter:
    def plant(doc: Doc) -> Plant | None:
        s = doc.get("sensitivity") or {}
        if isinstance(s.get(key), int | float) and s[key]:
            out = copy.deepcopy(doc)
            out["sensitivity"][key] = change(s[key])
            return out, F({"broken_derivation", "headline_mismatch"}), ""
        return None

    return plant


def _cell(doc: Doc) -> Plant | None:
    rows = (doc.get("sensitivity") or {}).get("per_claim") or []
    if not rows or not rows[0].get("aggressive_usd_annual"):
        return None
    out = copy.deepcopy(doc)
    out["sensitivity"]["per_claim"][0]["aggressive_usd_annual"] *= 1.1
    return out, F({"broken_derivation"}), "per_claim[0]"


def _headline(doc: Doc) -> Plant | None:
    if not doc.get("headline_total_usd_annual"):
        return None
    out = copy.deepcopy(doc)
    out["headline_total_usd_annual"] *= 1.05
    return out, F({"headline_mismatch"}), "headline"


def _drop_claim(doc: Doc) -> Plant | None:
    claims = doc.get("provenance_ledger") or []
    if len(claims) < 2:
        return None
    out = copy.deepcopy(doc)
    gone = out["provenance_ledger"].pop()
    return out, F({"dropped_item"}), str(gone.get("claim_id"))


def _claim_name(key: str, change: Callable[[Any], Any], expect: frozenset[str]) -> Planter:
    def plant(doc: Doc) -> Plant | None:
        claims = doc.get("provenance_ledger") or []
        if not claims or not claims[0].get(key):
            return None
        out = copy.deepcopy(doc)
        out["provenance_ledger"][0][key] = change(claims[0][key])
        return out, expect, f"provenance_ledger[0].{key}"

    return plant


def _flip_box(doc: Doc) -> Plant | None:
    claims = doc.get("provenance_ledger") or []
    box = (claims[0].get("defensibility") or {}) if claims else {}
    if "has_row_evidence" not in box:
        return None
    out = copy.deepcopy(doc)
    d = out["provenance_ledger"][0]["defensibility"]
    d["has_row_evidence"] = not d["has_row_evidence"]
    return out, F({"broken_derivation"}), "provenance_ledger[0].defensibility"


def _plus_one_loans(m: re.Match[str]) -> str:
    return f"{int(m.group(1).replace(',', '')) + 1:,} loans"


def _money_x10(m: re.Match[str]) -> str:
    return m.group(0).replace(m.group(1), f"{float(m.group(1)) * 10:.1f}", 1)


PACK: dict[str, Planter] = {
    "current loss x1.3": _claim_field("current_loss_usd_annual", lambda v: v * 1.3, F({CONTRA})),
    "claimed impact sign-flipped": _claim_field(
        "claimed_impact_usd_annual", lambda v: -v, F({CONTRA})
    ),
    "row count +1,000": _claim_field(
        "n_rows", lambda v: v + 1000, F({CONTRA, "misattributed_figure"})
    ),
    "quarters observed -1": _claim_field("persistence_quarters", lambda v: v - 1, F({CONTRA})),
    "difficulty changed": _claim_field(
        "difficulty_score_1_to_5", lambda v: v % 5 + 1, F({CONTRA, "misattributed_figure"})
    ),
    "prose loan count +1": _prose(r"([\d,]+) loans", _plus_one_loans, F({"ungrounded_figure"})),
    "prose money x10": _prose(
        r"\$-?([\d]+\.\d)[MBK]", _money_x10, F({"ungrounded_figure", "wrong_quantity"})
    ),
    "sensitivity cell broken": _cell,
    "sensitivity total broken": _sensitivity("total_base_usd_annual", lambda v: v * 1.02),
    "headline off by 5%": _headline,
    "claim dropped": _drop_claim,
    "evidence row id invented": _claim_name(
        "evidence_row_ids", lambda v: ["999999", *v[1:]], F({"ungrounded_entity"})
    ),
    "source artifact invented": _claim_name(
        "source_artifact", lambda v: v.replace(".json", "_v2.json"), F({"hallucinated_artifact"})
    ),
    "segment label invented": _claim_name(
        "segment_label", lambda v: "Zeta × " + v, F({"ungrounded_entity"})
    ),
    "checklist box flipped": _flip_box,
}


# --- DDQ responses ---------------------------------------------------------------------------


def _answer(
    pattern: str, change: Callable[[re.Match[str]], str | None], expect: frozenset[str]
) -> Planter:
    rx = re.compile(pattern)

    def plant(doc: Doc) -> Plant | None:
        for a in doc.get("answers") or []:
            text = a.get("answer")
            m = rx.search(text) if isinstance(text, str) else None
            new = change(m) if m else None
            if m and new is not None and new != m.group(0):
                out = copy.deepcopy(doc)
                i = doc["answers"].index(a)
                out["answers"][i]["answer"] = text[: m.start()] + new + text[m.end() :]
                return out, expect, str(a.get("question_id"))
        return None

    return plant


def _bump(delta: int) -> Callable[[re.Match[str]], str]:
    def change(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return m.group(0).replace(m.group(1), str(n + delta if n + delta > 0 else n + 2), 1)

    return change


def _k_of_m(m: re.Match[str]) -> str | None:
    k, total = int(m.group(1)), int(m.group(2))
    new = k - 2 if k >= 2 else k + 2
    return None if new > total or new < 0 else f"{new} of {total}"


def _money(factor: float) -> Callable[[re.Match[str]], str]:
    def change(m: re.Match[str]) -> str:
        return m.group(0).replace(m.group(1), f"{float(m.group(1)) * factor:.1f}", 1)

    return change


def _double(m: re.Match[str]) -> str:
    return m.group(0).replace(m.group(1), str(2 * int(m.group(1))), 1)


def _pct(m: re.Match[str]) -> str:
    return f"({int(m.group(1)) + 8}%)"


def _invent_citation(doc: Doc) -> Plant | None:
    for i, a in enumerate(doc.get("answers") or []):
        if a.get("citations"):
            out = copy.deepcopy(doc)
            out["answers"][i]["citations"].append("dx_report_Ghost.json")
            return out, F({"hallucinated_artifact"}), str(a.get("question_id"))
    return None


def _questions(doc: Doc) -> Plant | None:
    if not isinstance(doc.get("n_questions_answered"), int):
        return None
    out = copy.deepcopy(doc)
    out["n_questions_answered"] -= 1
    return out, F({"count_mismatch"}), "n_questions"


def _rename_portco(m: re.Match[str]) -> str:
    return m.group(0).replace(m.group(1), m.group(1) + "X", 1)


DDQ: dict[str, Planter] = {
    "portco count +1": _answer(r"Across (\d+) portfolio", _bump(1), F({AGG})),
    "findings count off by a subset": _answer(r"there are (\d+) cohort findings", _bump(-3), F({AGG})),
    "evidence rows wrong": _answer(r"corpus: (\d+)", _bump(-5), F({AGG})),
    "loss summed over a subset": _answer(r"cohorts: \$-(\d+\.\d)[MB]", _money(0.9), F({AGG})),
    "recovery x10": _answer(r"rerouted: \$(\d+\.\d)[MB]", _money(10), F({AGG})),
    "N of M wrong": _answer(r"(\d+) of (\d+) findings", _k_of_m, F({AGG})),
    "share wrong": _answer(r"\((\d+)%\)", _pct, F({AGG})),
    "headline total x0.5": _answer(r"contribution is \$(\d+\.\d+)[MB]", _money(0.5), F({AGG})),
    "challenge count wrong": _answer(r"(\d+) of (\d+) documented claims", _k_of_m, F({AGG})),
    "invented citation": _invent_citation,
    "invented portco in the inventory": _answer(
        r"inventory is: ([A-Za-z][\w]+)", _rename_portco, F({"ungrounded_entity"})
    ),
    "questions count wrong": _questions,
    "memo count doubled": _answer(r"maintains (\d+) such memos", _double, F({AGG})),
}  # fmt: skip


# --- red flags ---------------------------------------------------------------------------------


def _flag(
    pick: Callable[[Doc], bool], change: Callable[[Doc, Doc], bool], expect: frozenset[str]
) -> Planter:
    def plant(doc: Doc) -> Plant | None:
        for i, f in enumerate(doc.get("flags") or []):
            if pick(f) and i not in doc.get(BAD, ()):
                out = copy.deepcopy(doc)
                if change(out["flags"][i], out):
                    return out, expect, f"flag_{i + 1:02d}"
        return None

    return plant


def _paraphrase(f: Doc, _: Doc) -> bool:
    words = re.findall(r"\b[a-z]{5,}\b", f["excerpt"])
    if not words:
        return False
    f["excerpt"] = f["excerpt"].replace(words[0], words[0][::-1], 1)
    return True


def _move_paragraph(f: Doc, _: Doc) -> bool:
    f["paragraph_index"] = f["paragraph_index"] + 1
    return True


def _alter_figure(f: Doc, _: Doc) -> bool:
    m = re.search(r"\d+(?:\.\d+)?", f["excerpt"])
    if not m:
        return False
    f["excerpt"] = (
        f["excerpt"][: m.start()] + str(int(float(m.group(0))) + 7) + f["excerpt"][m.end() :]
    )
    return True


def _other_severity(f: Doc, doc: Doc) -> bool:
    old = f["severity"]
    new = {"high": "low", "medium": "high", "low": "high"}[old]
    f["severity"] = new
    s = doc["summary"]["by_severity"]
    s[old] -= 1
    s[new] = s.get(new, 0) + 1
    return True


SWAP = {"customer_concentration": "going_concern", "material_weakness": "restatement",
        "goodwill_impairment": "auditor_change", "related_party": "going_concern",
        "severe_risk_factor": "going_concern", "going_concern": "related_party",
        "restatement": "related_party", "auditor_change": "related_party"}  # fmt: skip


def _swap_type(f: Doc, doc: Doc) -> bool:
    old = f["flag_type"]
    new = SWAP.get(old)
    if new is None:
        return False
    f["flag_type"] = new
    by = doc["summary"]["by_type"]
    by[old] -= 1
    by[new] = by.get(new, 0) + 1
    return True


def _summary_total(doc: Doc) -> Plant | None:
    if "summary" not in doc:
        return None
    out = copy.deepcopy(doc)
    out["summary"]["total"] += 1
    return out, F({"count_mismatch"}), "summary.total"


def _invent_flag(doc: Doc) -> Plant | None:
    out = copy.deepcopy(doc)
    n = len(out.get("flags") or [])
    out.setdefault("flags", []).append({
        "flag_type": "going_concern", "severity": "high", "item": "7", "paragraph_index": 1,
        "excerpt": "There is substantial doubt about the company's ability to continue as a going "
        "concern given the covenant breach in the fourth quarter.",
        "rationale": "Going-concern language present.",
    })  # fmt: skip
    s = out["summary"]
    s["total"] += 1
    s["by_severity"]["high"] = s["by_severity"].get("high", 0) + 1
    s["by_type"]["going_concern"] = s["by_type"].get("going_concern", 0) + 1
    return out, F({"hallucinated_flag", "excerpt_not_found"}), f"flag_{n + 1:02d}"


def _company(doc: Doc) -> Plant | None:
    if not doc.get("company_name"):
        return None
    out = copy.deepcopy(doc)
    out["company_name"] = "Zephyr " + out["company_name"]
    return out, F({"ungrounded_entity"}), "company_name"


def _drop_covering(doc: Doc) -> Plant | None:
    """Drop the only flag of a coverage family on its paragraph (one the unedited grading has
    no finding on, so it covers a disclosure): that disclosure is uncovered."""
    flags = doc.get("flags") or []
    seen = Counter((f["flag_type"], f["item"], f["paragraph_index"]) for f in flags)
    for i, f in enumerate(flags):
        key = (f["flag_type"], f["item"], f["paragraph_index"])
        if f["flag_type"] == "severe_risk_factor" or seen[key] != 1 or i in doc[BAD]:
            continue
        out = copy.deepcopy(doc)
        gone = out["flags"].pop(i)
        s = out["summary"]
        s["total"] -= 1
        s["by_severity"][gone["severity"]] -= 1
        s["by_type"][gone["flag_type"]] -= 1
        return out, F({"uncovered_disclosure"}), f"Item {gone['item']} ¶{gone['paragraph_index']}"
    return None


RED: dict[str, Planter] = {
    "excerpt paraphrased": _flag(lambda f: True, _paraphrase, F({"excerpt_not_found"})),
    "excerpt moved a paragraph": _flag(lambda f: True, _move_paragraph, F({"excerpt_misplaced", "excerpt_not_found"})),
    "excerpt figure altered": _flag(lambda f: bool(re.search(r"\d", f["excerpt"])), _alter_figure, F({"excerpt_not_found", "figure_not_in_filing"})),
    "severity breaks the rule": _flag(lambda f: f["flag_type"] != "severe_risk_factor", _other_severity, F({"severity_rule"})),
    "flag type swapped": _flag(lambda f: f["flag_type"] in SWAP, _swap_type, F({"wrong_flag_type"})),
    "summary total wrong": _summary_total,
    "invented flag": _invent_flag,
    "company name altered": _company,
    "flag dropped": _drop_covering,
}  # fmt: skip

PLANTERS: dict[str, dict[str, Planter]] = {
    "exit_proof_pack": PACK,
    "ddq_response": DDQ,
    "cim_redflags": RED,
}


@dataclass
class Planted:
    plants: Counter[str] = field(default_factory=Counter)
    caught: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    documents: Counter[str] = field(default_factory=Counter)


def _where(f: Any) -> str:
    return f"{f.field or ''} {f.item_id or ''}"


def _keys(findings: list[Any]) -> Counter[tuple[str, str, str]]:
    return Counter((f.kind.value, _where(f), f.raw) for f in findings)


def _bad_items(doc: Doc, found: list[Any]) -> set[int]:
    """The indexes of the items that have a counted finding (``flags[3]`` -> 3)."""
    out: set[int] = set()
    for f in found:
        m = re.match(r"(?:flags|answers|provenance_ledger)\[(\d+)\]", f.field or "")
        if m:
            out.add(int(m.group(1)))
    return out


def documents(root: Path) -> Iterator[tuple[str, Path]]:
    """Every exit proof pack, DDQ response and red-flag file of the producer folders."""
    from pe_eval_core.documents import find_documents

    for folder in FOLDERS:
        for sub in sorted(p for p in (root / folder).rglob("*") if p.is_dir()):
            for kind, path in find_documents(sub):
                if kind.value in PLANTERS:
                    yield kind.value, path


def measure_planted(corpus: Path = CORPUS, kinds: tuple[str, ...] = tuple(PLANTERS)) -> Planted:
    """Plant every class in every document of ``kinds`` (on a temporary copy) and grade."""
    from pe_eval_core.documents import grade_document

    out = Planted()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for folder in FOLDERS:
            shutil.copytree(corpus / folder, root / folder)
        for kind, path in list(documents(root)):
            if kind not in kinds:
                continue
            out.documents[kind] += 1
            original = path.read_bytes()
            doc = json.loads(original)
            found = grade_document(path).counted_findings()
            before = _keys(found)
            doc[BAD] = _bad_items(doc, found)
            for name, planter in PLANTERS[kind].items():
                planted = planter(doc)
                if planted is None:
                    continue
                edited, expect, where = planted
                edited.pop(BAD, None)
                try:
                    path.write_text(json.dumps(edited), encoding="utf-8")
                    after = grade_document(path).counted_findings()
                finally:
                    path.write_bytes(original)
                new = _keys(after) - before
                hit = any(k in expect and where in w for (k, w, _) in new)
                out.plants[kind] += 1
                out.caught[kind] += hit
                if not hit:
                    shown = sorted(f"{k} @ {w.strip()}" for k, w, _ in new)[:4]
                    out.misses.append(f"{kind} {path.name}: {name} (new: {shown or 'none'})")
    return out
