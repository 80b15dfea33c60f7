"""DDQ response (``ddq_response_<fund>.json``) graded against the knowledge-base folder it names.

Citation: each figure of each answer equals an aggregate of its cited artifacts (or of the
whole knowledge base where it speaks of the fund), found by the bounded search of
``ddq_search``; a miss reports the nearest aggregate of its kind ("sum of current outcome over
52 opportunities in 16 dx_reports = $-1.54B"). Hallucination: cited and listed artifact files
the knowledge base does not hold, and the portcos, companies, articles, dates and
classifications the answers name. Coverage: questions answered with at least one existing
citation. Consistency: the stated counts of questions and flags, each answer's figure list
against its text, a quantity stated alike in every answer, and fund totals against the memos.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pe_eval_core.documents.core import Ledger, consistency_note, source_ref
from pe_eval_core.documents.ddq_figures import Stated, stated_figures
from pe_eval_core.documents.ddq_kb import Aggregate, KnowledgeBase, family_of
from pe_eval_core.documents.ddq_names import check_names
from pe_eval_core.documents.ddq_search import Query, Verdict, _covers
from pe_eval_core.documents.loading import named_folder, require_list, try_read_source
from pe_eval_core.documents.results import DocFindingKind, DocumentEvaluation, DocumentKind
from pe_eval_core.errors import DocumentSourceError
from pe_eval_core.grading.roles import Role
from pe_eval_core.memo.plain import shown_raw
from pe_eval_core.wording import fmt_usd

_FUND = re.compile(r"(?i)\bfund\b|fund-wide|\bcorpus\b|knowledge base|portfolio companies")
_PLACEHOLDER = re.compile(r"^[\s—–-]*$")


def _kb_dir(path: Path, data: dict[str, Any], given: Path | None) -> Path:
    if given is not None:
        if not given.is_dir():
            raise DocumentSourceError(f"knowledge-base folder {given} does not exist")
        return given
    # The producer writes the absolute folder of the machine it ran on: a folder outside the
    # document's is never read; the document's own folder is its knowledge base then.
    return named_folder(path, data.get("knowledge_base_dir")) or path.parent


class _Ddq:
    def __init__(self, path: Path, data: dict[str, Any], kb_dir: Path):
        self.path = path
        self.data = data
        self.kb_dir = kb_dir
        listed = data.get("knowledge_base_artifacts")
        self.listed = [a for a in listed if isinstance(a, str)] if isinstance(listed, list) else []
        self.kb = KnowledgeBase.load(kb_dir, self.listed, try_read_source)
        self.held = {n for files in self.kb.files.values() for n in files}
        self.led = Ledger()
        self.keys: dict[tuple[Any, ...], list[tuple[str, Stated, Aggregate, bool]]] = {}

    def artifacts(self) -> None:
        for j, name in enumerate(self.listed):
            ok = name in self.held
            field = f"knowledge_base_artifacts[{j}]"
            self.led.check("hallucination_rate", "artifact", ok, None, field, name, role="artifact")
            if not ok:
                self.led.finding(
                    DocFindingKind.HALLUCINATED_ARTIFACT,
                    f"the knowledge base lists {name!r}, which {self.kb_dir} does not hold",
                    field=field,
                    raw=name,
                )

    def citations(self, qid: str, i: int, answer: dict[str, Any]) -> dict[str, list[str]]:
        cited: dict[str, list[str]] = {}
        raw = answer.get("citations")
        for j, name in enumerate(raw if isinstance(raw, list) else []):
            name = str(name)
            ok = name in self.held
            field = f"answers[{i}].citations[{j}]"
            self.led.check("hallucination_rate", "artifact", ok, qid, field, name, role="citation")
            if ok:
                fam = family_of(name)
                if fam:
                    cited.setdefault(fam, []).append(name)
            else:
                why = (
                    "is not in the knowledge base"
                    if name not in self.listed
                    else (f"is listed but {self.kb_dir} does not hold it")
                )
                self.led.finding(
                    DocFindingKind.HALLUCINATED_ARTIFACT,
                    f"cites {name!r}, which {why}",
                    item_id=qid,
                    field=field,
                    raw=name,
                )
        return cited

    def coverage(self, qid: str, i: int, text: str, cited: dict[str, list[str]]) -> None:
        answered = bool(text.strip()) and not _PLACEHOLDER.match(text)
        counted = [s for s in stated_figures(text) if s.sort in ("count", "part", "plain")]
        absence = bool(counted) and all(s.value == 0 for s in counted)
        # "0 such packs exist" has nothing to cite: an answer stating only absences is covered.
        ok = answered and (any(cited.values()) or absence)
        self.led.check("coverage", "question", ok, qid, f"answers[{i}]", qid, role="question")
        if not ok:
            why = (
                "is not answered" if not answered else "cites no artifact the knowledge base holds"
            )
            self.led.finding(
                DocFindingKind.UNCITED_ANSWER,
                f"{qid} {why}",
                item_id=qid,
                field=f"answers[{i}].citations",
                raw=qid,
            )

    def figures(self, qid: str, i: int, text: str, cited: dict[str, list[str]]) -> None:
        query = Query(self.kb, text, cited, fund=bool(_FUND.search(text)))
        field = f"answers[{i}].answer"
        for s in stated_figures(text):
            if s.sort == "reference":
                continue
            if s.sort in ("threshold", "parameter") or query.band_parameter(s):
                self.led.finding(
                    DocFindingKind.TEMPLATE_EXEMPT,
                    f"{s.raw} is a stated {'parameter' if s.sort == 'percent' else s.sort} (a "
                    "definition, not a citation)",
                    item_id=qid,
                    field=field,
                    raw=s.raw,
                    start=s.start,
                    end=s.end,
                )
                continue
            v = query.verdict(s)
            self._record(qid, field, s, v)

    def _record(self, qid: str, field: str, s: Stated, v: Verdict) -> None:
        agg = v.matched or v.nearest
        self.led.check(
            "citation_accuracy",
            "aggregate",
            v.ok,
            qid,
            field,
            s.raw,
            role=s.sort,
            source_path=agg.describe() if agg else None,
            source_value=agg.value if agg else None,
            start=s.start,
            end=s.end,
        )
        if agg is not None:
            self.keys.setdefault(agg.key, []).append((qid, s, agg, v.ok))
        if v.ok:
            return
        scope = (
            "the knowledge base"
            if agg is not None and agg.scope != "cited"
            else ("its cited artifacts")
        )
        if agg is None:
            message = f"{shown_raw(s.raw)} matches no aggregate of its kind in {scope}"
        else:
            message = (
                f"{shown_raw(s.raw)} matches none of the {v.searched} aggregates its wording "
                "allows over "
                f"{scope}; nearest: {agg.describe()}"
            )
        self.led.finding(
            DocFindingKind.WRONG_AGGREGATE,
            message,
            item_id=qid,
            field=field,
            raw=s.raw,
            start=s.start,
            end=s.end,
            expected=agg.value if agg else None,
            expected_path=agg.describe() if agg else None,
        )

    def figure_list(self, qid: str, i: int, answer: dict[str, Any], text: str) -> None:
        """Each figure the answer's ``figures`` list names is a value its text states (the
        same number, to 1%: a reformatted figure is the same figure)."""
        figs = answer.get("figures")
        if not isinstance(figs, list) or not figs:
            return
        stated = [s.value for s in stated_figures(text)]
        missing = [
            str(f.get("raw"))
            for f in figs
            if isinstance(f, dict)
            and isinstance(f.get("value"), int | float)
            and not any(abs(x - f["value"]) <= 0.01 * max(abs(x), 1e-9) for x in stated)
        ]
        self.led.compare(
            f"{qid} figure list vs its answer",
            ", ".join(missing) or "all found",
            "all found",
            not missing,
            kind=DocFindingKind.INCONSISTENT_QUANTITY,
            item_id=qid,
            field=f"answers[{i}].figures",
            message=f"{qid} lists figures {missing} that its answer does not state",
        )

    def across_answers(self) -> None:
        """A quantity stated in several answers must be stated alike."""
        for statements in self.keys.values():
            if len({q for q, *_ in statements}) < 2:
                continue
            first_q, first, agg, _ = statements[0]
            for qid, s, _, _ in statements[1:]:
                if qid == first_q:
                    continue
                agrees = _covers(s, first.value, agg.unit) or _covers(first, s.value, agg.unit)
                self.led.compare(
                    f"{agg.describe().split(' = ')[0]}: {first_q} vs {qid}",
                    s.raw,
                    first.raw,
                    agrees,
                    kind=DocFindingKind.INCONSISTENT_QUANTITY,
                    item_id=qid,
                    field="answers",
                    expected_path=f"{first_q}: {first.raw}",
                    message=f"{qid} states {s.raw} where {first_q} states {first.raw} for the "
                    f"same quantity ({agg.describe().split(' = ')[0]})",
                )

    def against_memos(self) -> None:
        """Fund impact totals against the same portcos' memo headlines in the folder."""
        for statements in self.keys.values():
            for qid, s, agg, ok in statements:
                if (
                    not ok
                    or agg.op != "sum"
                    or agg.role not in (Role.IMPACT, Role.TOTAL)
                    or agg.band
                    or agg.family not in ("dx", "pack")
                ):
                    continue
                total = self._memo_total(agg)
                if total is None:
                    continue
                agrees = _covers(s, total, "usd")
                self.led.compare(
                    f"{qid} {s.raw} vs the portcos' board memo headlines",
                    s.raw,
                    fmt_usd(total),
                    agrees,
                    kind=DocFindingKind.INCONSISTENT_QUANTITY,
                    item_id=qid,
                    field="answers",
                    expected_path="sum of explain_<portco>_board.json headlines",
                )

    def _memo_total(self, agg: Aggregate) -> float | None:
        portcos = [d.get("portco_id") for d in self.kb.files.get(agg.family, {}).values()]
        total = 0.0
        for portco in portcos:
            if not isinstance(portco, str):
                return None
            memo = try_read_source(self.kb_dir / f"explain_{portco}_board.json")
            value = memo.get("total_projected_impact_usd_annual") if memo else None
            if not isinstance(value, int | float):
                return None
            total += float(value)
        return total if portcos else None

    def counts(self, answers: list[Any]) -> None:
        for key, actual in (
            ("n_questions_answered", len(answers)),
            ("n_consistency_flags", len(require_list(self.data, "consistency_flags", self.path))),
        ):
            stated = self.data.get(key)
            if isinstance(stated, int) and not isinstance(stated, bool):
                self.led.compare(
                    f"{key} vs the list",
                    stated,
                    actual,
                    stated == actual,
                    kind=DocFindingKind.COUNT_MISMATCH,
                    field=key,
                )


def grade_ddq(
    path: Path, data: dict[str, Any], *, source: Path | None = None
) -> DocumentEvaluation:
    """Grade one DDQ response (already read) against its knowledge-base folder."""
    kb_dir = _kb_dir(path, data, source)
    g = _Ddq(path, data, kb_dir)
    g.artifacts()
    answers = [a for a in require_list(data, "answers", path) if isinstance(a, dict)]
    items: list[tuple[str, str, bool]] = []
    for i, answer in enumerate(answers):
        qid = str(answer.get("question_id") or f"Q{i + 1:02d}")
        raw_text = answer.get("answer")
        text = raw_text if isinstance(raw_text, str) else ""
        cited = g.citations(qid, i, answer)
        g.coverage(qid, i, text, cited)
        g.figures(qid, i, text, cited)
        check_names(g.led, g.kb, qid, f"answers[{i}].answer", text, cited, data)
        g.figure_list(qid, i, answer, text)
        items.append((qid, str(answer.get("category") or ""), True))
    g.across_answers()
    g.against_memos()
    g.counts(answers)
    searched, grounded = g.led.count("aggregate")
    return g.led.evaluation(
        kind=DocumentKind.DDQ_RESPONSE,
        document_id=str(data.get("fund_name") or path.stem.removeprefix("ddq_response_")),
        document_path=path,
        sources=source_ref("knowledge_base", kb_dir),
        items=items,
        consistency_note=consistency_note(g.led.rows, "cross-answer"),
        coverage_label="questions",
        extra_totals={
            "questions_total": len(answers),
            "aggregates_checked": searched,
            "aggregates_grounded": grounded,
            "artifacts_in_knowledge_base": len(g.held),
        },
    )
