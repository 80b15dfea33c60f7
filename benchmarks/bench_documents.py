"""Measure the document graders (issue 22): recall and false flags per kind.

1. Every labelled mutation of ``tests/documents/doc_mutations.py`` (planted in clean exit
   proof packs, DDQ responses and red-flag files) is caught when a finding of an expected kind
   locates it; every counted finding on a clean document is a false flag.
2. Errors planted by rule in EVERY producer document of each kind
   (``tests/documents/planted.py``), the producer's output from other books included.
3. The producer's documents from other books (``tests/corpus/producer_more``) against their
   hand labels (``known_defects.json``): natural defects found, and false flags.
4. The producer's own documents (``tests/corpus/producer_run``, ``producer_generated``) are
   graded and their findings counted by kind, so a change that moves them shows up here.

It is a measurement: the exit code is 0 whatever the numbers.

    python benchmarks/bench_documents.py             # summary
    python benchmarks/bench_documents.py --verbose   # every miss and false flag
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "tests" / "documents"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from doc_mutations import CORPUS, measure  # noqa: E402
from planted import measure_planted  # noqa: E402

from pe_eval_core.documents import find_documents, grade_document  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    t0 = time.perf_counter()
    r = measure()
    print("Labelled mutations (planted in clean documents):")
    print(
        f"  {'kind':<18} {'caught':>8} {'recall':>8} {'clean docs + variants':>22} "
        f"{'false flags':>12}"
    )
    for kind in r.total:
        recall = r.caught[kind] / r.total[kind]
        print(
            f"  {kind:<18} {r.caught[kind]:>3}/{r.total[kind]:<4} {recall:>8.1%} "
            f"{r.clean_docs[kind]:>12} + {r.variants.get(kind, 0):<7} "
            f"{len(r.false_flags[kind]):>12}"
        )
    if args.verbose:
        for miss in r.misses:
            print(f"  MISS {miss}")
        for kind, flags in r.false_flags.items():
            for flag in flags:
                print(f"  FALSE FLAG {kind}: {flag}")
    _planted(args.verbose)
    _labelled(args.verbose)
    print("\nProducer documents (counted findings by kind):")
    for sub in ("producer_run/finance_output", "producer_generated/finance_output",
                "producer_generated/kb_a", "producer_generated/kb_b"):  # fmt: skip
        for kind, path in find_documents(CORPUS / sub):
            if kind.value == "memo" or ("kb_" in sub and kind.value != "ddq_response"):
                continue  # a knowledge base's packs are graded where they were made
            ev = grade_document(path)
            found = Counter(f.kind.value for f in ev.counted_findings())
            shown = ", ".join(f"{k} {n}" for k, n in sorted(found.items())) or "none"
            print(f"  {sub.split('/')[0][9:]:<10} {path.name:<48} {shown}")
    print(f"\n({time.perf_counter() - t0:.1f} s)")


def _planted(verbose: bool) -> None:
    p = measure_planted()
    print("\nPlanted errors (every class in every producer document of the kind):")
    for kind in sorted(p.plants):
        recall = p.caught[kind] / p.plants[kind]
        print(
            f"  {kind:<18} {p.caught[kind]:>4}/{p.plants[kind]:<5} {recall:>7.1%}  "
            f"in {p.documents[kind]} documents"
        )
    for miss in p.misses if verbose else []:
        print(f"  MISS {miss}")


def _labelled(verbose: bool) -> None:
    import json

    more = CORPUS / "producer_more"
    known = json.loads((more / "known_defects.json").read_text(encoding="utf-8"))
    total: Counter[str] = Counter()
    found: Counter[str] = Counter()
    false: Counter[str] = Counter()
    clean: Counter[str] = Counter()
    for name, k in known.items():
        got_all = grade_document(more / name).counted_findings()
        if "findings" in k:
            want = Counter((x["kind"], x["where"]) for x in k["findings"])
            got = Counter((f.kind.value, f.item_id or f.field or "") for f in got_all)
        else:
            want, got = Counter(k["counts"]), Counter(f.kind.value for f in got_all)
        kind = k["kind"]
        total[kind] += sum(want.values())
        found[kind] += sum((want & got).values())
        false[kind] += sum((got - want).values())
        clean[kind] += not k["counts"]
        if verbose and got != want:
            print(f"  DIFF {name}: missed {dict(want - got)}, extra {dict(got - want)}")
    print("\nProducer documents from other books (producer_more, hand-labelled):")
    for kind in sorted(total):
        print(
            f"  {kind:<18} natural defects found {found[kind]:>3}/{total[kind]:<4} "
            f"false flags {false[kind]}  (clean documents: {clean[kind]})"
        )


if __name__ == "__main__":
    main()
