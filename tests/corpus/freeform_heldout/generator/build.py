"""Build the held-out free-form corpus: copy the maps, write the memo sidecars, check labels.

Run from the repository root:  python tests/corpus/freeform_heldout/generator/build.py [--write]
Without --write it only checks that every mutation's `find` occurs exactly once where it says.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import memos_a  # noqa: E402
import memos_b  # noqa: E402
import memos_c  # noqa: E402
from mutations import MUTATIONS  # noqa: E402

CORPUS = HERE.parent
ROOT = CORPUS.parents[2]
MAPS = {
    "MortgageCo": ROOT / "finance_output",
    "HMDA_GA": ROOT / "finance_output",
    "eTeleQuote": ROOT / "tests/corpus/producer_run/finance_output",
    "UILender": ROOT / "tests/corpus/producer_run/finance_output",
    "pacific_lender": ROOT / "tests/corpus/producer_run/finance_output",
    "northeast_lender": ROOT / "tests/corpus/producer_seeds/finance_output",
    "DCMortgage": ROOT / "tests/corpus/producer_run/finance_output",
}
TOP = ("portco_id", "as_of", "total_projected_impact_usd_annual", "vertical", "ebitda_baseline_usd")
PROSE = ("narrative", "counterfactual", "risk_of_inaction", "rollout")


def sidecar(spec: dict) -> dict:
    """One memo sidecar: the map's headline fields plus the writer's prose per opportunity."""
    src = json.loads((MAPS[spec["portco"]] / f"dx_report_{spec['portco']}.json").read_text())
    out = {k: src[k] for k in TOP}
    out["audience"] = spec["audience"]
    out["source_opportunity_map"] = f"dx_report_{spec['portco']}.json"
    by_id = {o["id"]: o for o in src["opportunities"]}
    out["opportunities_explained"] = [
        {"id": oid, "archetype": by_id[oid]["archetype"], "segment": by_id[oid]["segment"]}
        | {f: prose[f] for f in PROSE}
        for oid, prose in spec["opps"].items()
    ]
    return out


def all_memos() -> dict[str, dict]:
    return {**memos_a.MEMOS, **memos_b.MEMOS, **memos_c.MEMOS}


def check(memos: dict[str, dict]) -> list[str]:
    """Every mutation names a real memo, opportunity and field, and its find is unique there."""
    errors = []
    ids = set()
    for m in MUTATIONS:
        if m["id"] in ids:
            errors.append(f"duplicate id {m['id']}")
        ids.add(m["id"])
        memo = memos.get(m["memo"])
        if memo is None:
            errors.append(f"{m['id']}: no memo {m['memo']}")
            continue
        if m["opportunity_id"] is None:
            if str(memo[m["field"]]) != m["find"]:
                errors.append(f"{m['id']}: top field {m['field']} is {memo[m['field']]!r}")
            continue
        text = next(
            (
                o[m["field"]]
                for o in memo["opportunities_explained"]
                if o["id"] == m["opportunity_id"]
            ),
            None,
        )
        if text is None:
            errors.append(f"{m['id']}: no {m['opportunity_id']}.{m['field']}")
        elif text.count(m["find"]) != 1:
            errors.append(f"{m['id']}: find occurs {text.count(m['find'])} times")
        elif m["find"] == m["replace"]:
            errors.append(f"{m['id']}: find == replace")
    return errors


def main(write: bool) -> int:
    specs = all_memos()
    built = {name: sidecar(spec) for name, spec in specs.items()}
    errors = check(built)
    for e in errors:
        print("ERROR", e)
    if write and not errors:
        for portco, folder in MAPS.items():
            shutil.copyfile(
                folder / f"dx_report_{portco}.json", CORPUS / f"dx_report_{portco}.json"
            )
        for name, memo in built.items():
            (CORPUS / name).write_text(json.dumps(memo, indent=2, ensure_ascii=False) + "\n")
        (CORPUS / "mutations.json").write_text(
            json.dumps(MUTATIONS, indent=1, ensure_ascii=False) + "\n"
        )
    classes: dict[str, int] = {}
    for m in MUTATIONS:
        classes[m["error_class"]] = classes.get(m["error_class"], 0) + 1
    print(f"{len(built)} memos, {len(MUTATIONS)} mutations:", dict(sorted(classes.items())))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main("--write" in sys.argv))
