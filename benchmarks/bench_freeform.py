"""Measure the memo grader on the labelled free-form corpus (issue 11, item 9).

The corpus in ``tests/corpus/freeform/`` holds OpportunityMaps, memos written in an LLM
drafter's voice, a label for every number-bearing phrase and name of the clean memos
(``labels.json``) and planted errors (``mutations.json``); see its README. This script

1. grades every clean memo and maps each finding to the label it hits (same opportunity and
   prose block, overlapping character span): every finding on a clean memo is a false flag,
   reported by the kind of label it hits (direct / derived / not_a_claim / name /
   unlabelled / memo-level);
2. applies each mutation in a temporary copy of the corpus, grades the mutated memo and
   counts the mutation as caught when a finding overlaps the replaced span (for
   ``wrong_headline``: a headline finding or a failed source comparison);
3. grades the templated demo in ``finance_output/`` and prints its finding counts, so a
   change to the grader that moves the demo shows up here too.

It is a measurement: the exit code is 0 whatever the numbers.

    python benchmarks/bench_freeform.py              # summary
    python benchmarks/bench_freeform.py --verbose    # every false flag and every miss
    python benchmarks/bench_freeform.py --corpus tests/corpus/freeform_holdout   # the held-out set
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "tests" / "corpus" / "freeform"
DEMO = ROOT / "finance_output"
HEADLINE_FIELD = "total_projected_impact_usd_annual"
LABEL_KINDS = ("direct", "derived", "not_a_claim", "name", "unlabelled", "memo-level")
NOT_FLAGS = {"template_exempt"}  # shown on the scorecard, not counted: not a false flag


# --------------------------------------------------------------------------------------------
# The adapter: the only code that knows the grader's API. Keep it small if the API moves.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Flag:
    """One finding, reduced to what the measurement needs."""

    kind: str
    opportunity_id: str | None
    field: str | None
    start: int | None
    end: int | None
    raw: str
    message: str


@dataclass(frozen=True)
class Graded:
    flags: list[Flag]
    headline_agrees_with_source: bool | None
    seconds: float


def grade(memo_path: Path, source_path: Path) -> Graded:
    """Grade one memo with the public API; list its findings with their spans."""
    from pe_eval_core.memo import grade_memo

    t0 = time.perf_counter()
    evaluation = grade_memo(memo_path, source_path)
    seconds = time.perf_counter() - t0
    flags = []
    for f in evaluation.findings:
        kind = str(getattr(f.kind, "value", f.kind))
        if kind in NOT_FLAGS:
            continue
        flags.append(
            Flag(
                kind=kind,
                opportunity_id=getattr(f, "opportunity_id", None),
                field=getattr(f, "field", None),
                start=getattr(f, "start", None),
                end=getattr(f, "end", None),
                raw=getattr(f, "raw", "") or "",
                message=getattr(f, "message", "") or "",
            )
        )
    consistency = getattr(evaluation, "consistency", None)
    agrees = getattr(consistency, "agrees_with_source", None)
    return Graded(flags, agrees, seconds)


# --------------------------------------------------------------------------------------------
# Corpus helpers
# --------------------------------------------------------------------------------------------


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def source_of(memo_path: Path) -> Path:
    """The memo's OpportunityMap: its ``source_opportunity_map`` beside it, else (a producer
    writes that path relative to its own root) ``dx_report_<portco>.json`` in its folder."""
    memo = load_json(memo_path)
    named = memo_path.parent / str(memo.get("source_opportunity_map") or "")
    if named.is_file():
        return named
    return memo_path.parent / f"dx_report_{memo['portco_id']}.json"


def block_text(memo: dict[str, Any], opportunity_id: str, field: str) -> str:
    for opp in memo["opportunities_explained"]:
        if opp["id"] == opportunity_id:
            return opp[field]
    raise KeyError(f"{opportunity_id} not in memo")


def nth(text: str, needle: str, occurrence: int) -> int:
    pos = -1
    for _ in range(occurrence + 1):
        pos = text.find(needle, pos + 1)
        if pos < 0:
            return -1
    return pos


def overlap(a0: int, a1: int, b0: int, b1: int) -> int:
    return max(0, min(a1, b1) - max(a0, b0))


@dataclass(frozen=True)
class Span:
    label: dict[str, Any]
    start: int
    end: int


def label_spans(labels: list[dict[str, Any]]) -> tuple[dict[tuple, list[Span]], list[str]]:
    """Labels indexed by (memo, opportunity, field), with their character spans."""
    memos: dict[str, dict[str, Any]] = {}
    index: dict[tuple, list[Span]] = defaultdict(list)
    problems = []
    for lab in labels:
        memo = memos.setdefault(lab["memo"], load_json(CORPUS / lab["memo"]))
        text = block_text(memo, lab["opportunity_id"], lab["field"])
        pos = nth(text, lab["text"], lab["occurrence"])
        if pos < 0:
            problems.append(
                f"{lab['memo']} {lab['opportunity_id']} {lab['field']}: {lab['text']!r}"
            )
            continue
        key = (lab["memo"], lab["opportunity_id"], lab["field"])
        index[key].append(Span(lab, pos, pos + len(lab["text"])))
    return index, problems


def classify(memo_name: str, flag: Flag, index: dict[tuple, list[Span]]) -> tuple[str, Span | None]:
    if flag.start is None or flag.end is None or flag.field is None:
        return "memo-level", None
    spans = index.get((memo_name, flag.opportunity_id, flag.field), [])
    best, best_overlap = None, 0
    for span in spans:
        o = overlap(flag.start, max(flag.end, flag.start + 1), span.start, span.end)
        if o > best_overlap:
            best, best_overlap = span, o
    if best is None:
        return "unlabelled", None
    return best.label["kind"], best


# --------------------------------------------------------------------------------------------
# The three measurements
# --------------------------------------------------------------------------------------------


def measure_clean(verbose: bool) -> tuple[int, float]:
    labels = load_json(CORPUS / "labels.json") if (CORPUS / "labels.json").is_file() else []
    index, problems = label_spans(labels)
    memo_paths = sorted(CORPUS.glob("explain_*.json"))
    has_cases = (CORPUS / "mutations.json").is_file()
    mutations = load_json(CORPUS / "mutations.json") if has_cases else []
    print(
        f"Free-form corpus: {len(memo_paths)} memos, {len(list(CORPUS.glob('dx_report_*.json')))}"
        f" sources, {len(labels)} labels, {len(mutations)} mutations ({CORPUS.relative_to(ROOT)})"
    )
    if problems:
        print(f"  WARNING: {len(problems)} labels not found in their block, e.g. {problems[0]}")
    labels_by_kind = Counter(lab["kind"] for lab in labels)
    by_kind: Counter[str] = Counter()
    finding_kinds: dict[str, Counter[str]] = defaultdict(Counter)
    labels_hit: dict[str, set[int]] = defaultdict(set)
    examples: dict[str, list[str]] = defaultdict(list)
    name_split: Counter[str] = Counter()
    seconds = 0.0
    print("\nClean memos: findings (every one is a false flag)")
    known = {
        (k["memo"], k["opportunity_id"], k["field"], k["raw"])
        for k in (
            load_json(CORPUS / "known_defects.json")
            if (CORPUS / "known_defects.json").is_file()
            else []
        )
    }  # a corpus of real output may carry real defects: flagging them is right
    found_known = 0
    for path in memo_paths:
        graded = grade(path, source_of(path))
        seconds += graded.seconds
        per = Counter()
        for flag in graded.flags:
            if (path.name, flag.opportunity_id, flag.field, flag.raw) in known:
                found_known += 1
                continue
            kind, span = classify(path.name, flag, index)
            by_kind[kind] += 1
            per[kind] += 1
            finding_kinds[kind][flag.kind] += 1
            if span is not None:
                labels_hit[kind].add(id(span))
                if kind == "name":
                    sub = "section label" if span.label.get("source") == "label" else "entity"
                    name_split[sub] += 1
            where = f"{path.name} {flag.opportunity_id} {flag.field}"
            examples[kind].append(f"{where}: {flag.kind} {flag.raw!r}: {flag.message}")
        detail = ", ".join(f"{k} {per[k]}" for k in LABEL_KINDS if per[k]) or "none"
        print(f"  {path.name:<42} {sum(per.values()):>3}  ({detail})")
    total = sum(by_kind.values())
    if known:
        print(f"  known producer defects flagged: {found_known}/{len(known)}")
    print(f"\nFalse flags by what they hit (total {total}):")
    print(f"  {'label kind':<12} {'flags':>5} {'labels hit':>10} {'labels':>7}   finding kinds")
    for kind in LABEL_KINDS:
        n_labels = labels_by_kind.get(kind, 0)
        hit = len(labels_hit[kind])
        fk = ", ".join(f"{k} {v}" for k, v in finding_kinds[kind].most_common())
        shown_labels = str(n_labels) if kind in labels_by_kind else "-"
        shown_hit = str(hit) if kind in labels_by_kind else "-"
        print(f"  {kind:<12} {by_kind[kind]:>5} {shown_hit:>10} {shown_labels:>7}   {fk}")
    n_section = sum(1 for lab in labels if lab["kind"] == "name" and lab.get("source") == "label")
    print(
        f"  name flags: {name_split['section label']} on section labels ({n_section} labelled),"
        f" {name_split['entity']} on entity names ({labels_by_kind['name'] - n_section} labelled)"
    )
    limit = None if verbose else 3
    for kind in LABEL_KINDS:
        if examples[kind]:
            print(f"  e.g. {kind}:")
            for line in examples[kind][:limit]:
                print(f"    {line}")
    return total, seconds / max(len(memo_paths), 1)


def apply_mutation(workdir: Path, case: dict[str, Any]) -> tuple[Path, int, int]:
    """Write the mutated memo into ``workdir``; return it and the replaced span. A case may
    also patch its source (``source_patch``: {opportunity_id, field, value}), for planted
    figures in the source's own prose fields."""
    path = workdir / case["memo"]
    memo = load_json(CORPUS / case["memo"])
    patch = case.get("source_patch")
    if patch:
        src_path = source_of(CORPUS / case["memo"])
        src = load_json(src_path)
        opp = next(o for o in src["opportunities"] if o["id"] == patch["opportunity_id"])
        opp[patch["field"]] = patch["value"]
        (workdir / src_path.name).write_text(json.dumps(src, indent=2), encoding="utf-8")
    if case.get("opportunity_id") is None:  # a top-level sidecar field (headline, baseline)
        memo[case["field"]] = float(case["replace"])
        start = end = -1
    else:
        opp = next(o for o in memo["opportunities_explained"] if o["id"] == case["opportunity_id"])
        text = opp[case["field"]]
        start = text.find(case["find"])
        if start < 0 or text.count(case["find"]) != 1:
            raise ValueError(f"{case['id']}: 'find' is not present exactly once")
        opp[case["field"]] = text[:start] + case["replace"] + text[start + len(case["find"]) :]
        end = start + len(case["replace"])
    path.write_text(json.dumps(memo, indent=2, ensure_ascii=False), encoding="utf-8")
    return path, start, end


def is_correct_variant(case: dict[str, Any]) -> bool:
    """A case that rewrites a correct phrase correctly: any finding on it is a false flag."""
    return str(case["error_class"]).startswith("correct")


def _memo_level(graded: Graded) -> set[tuple[str, str]]:
    return {(f.kind, f.message) for f in graded.flags if f.opportunity_id is None}


_CLEAN_MEMO_LEVEL: dict[Path, set[tuple[str, str]]] = {}


def _clean_memo_level(memo_name: str) -> set[tuple[str, str]]:
    """Memo-level findings of the clean memo (graded once): a top-level field's mutation is
    caught by a memo-level finding the clean memo does not have."""
    path = CORPUS / memo_name
    if path not in _CLEAN_MEMO_LEVEL:
        _CLEAN_MEMO_LEVEL[path] = _memo_level(grade(path, source_of(path)))
    return _CLEAN_MEMO_LEVEL[path]


def caught(case: dict[str, Any], graded: Graded, start: int, end: int) -> bool:
    if case["field"] == HEADLINE_FIELD:
        return graded.headline_agrees_with_source is False or any(
            f.kind == "headline_mismatch" and f.opportunity_id is None for f in graded.flags
        )
    if case.get("opportunity_id") is None:
        return bool(_memo_level(graded) - _clean_memo_level(case["memo"]))
    for f in graded.flags:
        if f.opportunity_id != case["opportunity_id"] or f.field != case["field"]:
            continue
        if f.start is not None and f.end is not None and overlap(f.start, f.end, start, end):
            return True
    return False


def measure_mutations(verbose: bool) -> int:
    """Recall of the planted errors by class; returns the false flags on correct variants."""
    if not (CORPUS / "mutations.json").is_file():
        return 0
    mutations = load_json(CORPUS / "mutations.json")
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    missed: list[str] = []
    variant_flags: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_freeform_") as tmp:
        work = Path(tmp)
        for case in mutations:
            for p in CORPUS.glob("*.json"):  # fresh copy: siblings and sources stay clean
                shutil.copyfile(p, work / p.name)
            path, start, end = apply_mutation(work, case)
            graded = grade(path, source_of(path))
            if is_correct_variant(case):
                if caught(case, graded, start, end):
                    variant_flags.append(f"{case['id']}: {case['find']!r} -> {case['replace']!r}")
                continue
            totals[case["error_class"]] += 1
            if caught(case, graded, start, end):
                hits[case["error_class"]] += 1
            else:
                missed.append(
                    f"{case['id']} {case['memo']} {case['opportunity_id']} {case['field']}: "
                    f"{case['find']!r} -> {case['replace']!r}"
                )
    _print_recall(hits, totals, missed, verbose)
    n_variants = sum(1 for c in mutations if is_correct_variant(c))
    if n_variants:
        print(f"  correct variants: {len(variant_flags)} flagged of {n_variants}")
        for line in variant_flags:
            print(f"    {line}")
    return len(variant_flags)


def _print_recall(
    hits: Counter[str], totals: Counter[str], missed: list[str], verbose: bool
) -> None:
    print("\nRecall of planted errors by class:")
    for cls in sorted(totals):
        print(f"  {cls:<26} {hits[cls]:>2}/{totals[cls]:<2} {100 * hits[cls] / totals[cls]:5.1f}%")
    n, k = sum(totals.values()), sum(hits.values())
    print(f"  {'overall':<26} {k:>2}/{n:<2} {100 * k / max(n, 1):5.1f}%")
    if missed:
        print(f"  missed ({len(missed)}):")
        for line in missed if verbose else missed[:8]:
            print(f"    {line}")
        if not verbose and len(missed) > 8:
            print(f"    ... {len(missed) - 8} more (--verbose)")


def measure_demo() -> None:
    print("\nTemplated demo (finance_output/), for reference: findings by kind")
    for path in sorted(DEMO.glob("explain_*.json")):
        graded = grade(path, source_of(path))
        kinds = Counter(f.kind for f in graded.flags)
        detail = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none"
        print(f"  {path.name:<42} {sum(kinds.values()):>3}  ({detail})")


ALL_CORPORA = (
    "tests/corpus/freeform",
    "tests/corpus/freeform_holdout",
    "tests/corpus/freeform_llm",
    "tests/corpus/freeform_heldout",
    "tests/corpus/producer_run/finance_output",
    "tests/corpus/producer_seeds/finance_output",
    "tests/corpus/producer_skeleton/finance_output",
    "finance_output",
)
"""Every labelled corpus, for ``--all`` (the no-regression table)."""


@dataclass
class Summary:
    """One corpus in one line: false flags, known defects found, recall, rewrites flagged."""

    memos: int = 0
    false_flags: int = 0
    known_found: int = 0
    known: int = 0
    caught: int = 0
    planted: int = 0
    rewrites_flagged: int = 0
    rewrites: int = 0
    seconds: float = 0.0


def summarize(corpus: Path) -> Summary:
    """Grade a corpus's clean memos and mutations; count without printing."""
    global CORPUS
    CORPUS = corpus
    out = Summary()
    known_rows = (
        load_json(corpus / "known_defects.json")
        if (corpus / "known_defects.json").is_file()
        else []
    )
    known = {(k["memo"], k["opportunity_id"], k["field"], k["raw"]) for k in known_rows}
    out.known = len(known)
    for path in sorted(corpus.glob("explain_*.json")):
        graded = grade(path, source_of(path))
        out.memos += 1
        out.seconds += graded.seconds
        for f in graded.flags:
            if (path.name, f.opportunity_id, f.field, f.raw) in known:
                out.known_found += 1
            else:
                out.false_flags += 1
    cases = load_json(corpus / "mutations.json") if (corpus / "mutations.json").is_file() else []
    with tempfile.TemporaryDirectory(prefix="bench_freeform_") as tmp:
        work = Path(tmp)
        for case in cases:
            for p in corpus.glob("*.json"):
                shutil.copyfile(p, work / p.name)
            path, start, end = apply_mutation(work, case)
            hit = caught(case, grade(path, source_of(path)), start, end)
            if is_correct_variant(case):
                out.rewrites += 1
                out.rewrites_flagged += hit
            else:
                out.planted += 1
                out.caught += hit
    return out


def print_all() -> None:
    """The no-regression table: every corpus, one line each."""
    print(
        f"{'corpus':<44} {'memos':>5} {'false':>5} {'known':>9} {'recall':>9} {'rewrites':>8}"
        f" {'ms/memo':>7}"
    )
    for name in ALL_CORPORA:
        s = summarize(ROOT / name)
        known = f"{s.known_found}/{s.known}" if s.known else "-"
        recall = f"{s.caught}/{s.planted}" if s.planted else "-"
        rewrites = f"{s.rewrites_flagged}/{s.rewrites}" if s.rewrites else "-"
        ms = 1000 * s.seconds / max(s.memos, 1)
        print(
            f"{name:<44} {s.memos:>5} {s.false_flags:>5} {known:>9} {recall:>9} {rewrites:>8}"
            f" {ms:>7.1f}"
        )


def main(argv: list[str] | None = None) -> int:
    global CORPUS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every false flag and miss")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS,
        help="corpus folder (default tests/corpus/freeform; the held-out set is"
        " tests/corpus/freeform_holdout)",
    )
    parser.add_argument(
        "--all", action="store_true", help="one summary line per labelled corpus (no regression)"
    )
    args = parser.parse_args(argv)
    if args.all:
        print_all()
        return 0
    CORPUS = args.corpus.resolve()
    total, per_memo = measure_clean(args.verbose)
    variant_flags = measure_mutations(args.verbose)
    print(f"\nTotal false flags on clean memos: {total}; on correct variants: {variant_flags}")
    print(f"Mean grading time per clean memo: {1000 * per_memo:.1f} ms (wall)")
    measure_demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())
