"""Synthetic memo/source pairs of any size, for benchmarks: same producers as the demo data.

Reuses ``scripts/build_demo_data.py`` (the DX diagnostic and the explainer's prose builders),
so a synthetic memo reads exactly like a real board memo: per opportunity about five figures
(leakage, loan count, ``k of m quarters``, projected impact) and three bold entities (two
segment values and the archetype). Every figure and entity is grounded by construction.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUILDER_PATH = ROOT / "scripts" / "build_demo_data.py"

SEGMENT_POOLS: dict[str, list[Any]] = {
    "grade": ["A", "B", "C", "D", "E", "F", "G"],
    "term": ["36 months", "60 months", "180 months", "360 months"],
    "state": ["GA", "AL", "TN", "SC", "NC", "Texas", "Florida", "Virginia"],
    "channel": ["Branch", "Broker", "Online", "Correspondent", "Retail"],
    "loan_purpose": ["Purchase", "Rate-term refinance", "Cash-out refinance", 31, 32],
    "property_type": ["Single family", "Condo", "Manufactured", "Two-to-four unit"],
    "lien_status": ["First lien", "Second lien", 1, 2],
    "occupancy": ["Owner occupied", "Second home", "Investor"],
}
ARCHETYPES = ["allocation", "pricing", "routing", "timing", "selection"]
ACTIONS = [
    "Throttle new originations in the cohort",
    "Reprice the cohort to break even",
    "Route the cohort to the specialist underwriting desk",
    "Move the decision to the pre-funding review",
    "Tighten approval criteria for the cohort",
]


def load_builder() -> ModuleType:
    """Import ``scripts/build_demo_data.py`` by path (``scripts`` is not a package)."""
    name = "build_demo_data"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BUILDER_PATH)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {BUILDER_PATH}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def synthetic_source(n_opps: int, seed: int = 0) -> dict[str, Any]:
    """An OpportunityMap with ``n_opps`` Shape A lending opportunities, $1K to $3B each."""
    b = load_builder()
    rng = random.Random(seed * 1_000_003 + n_opps)
    opps = []
    for i in range(n_opps):
        cols = rng.sample(sorted(SEGMENT_POOLS), 2)
        segment = {c: rng.choice(SEGMENT_POOLS[c]) for c in cols}
        outcome = -round(10 ** rng.uniform(3.2, 9.5))
        m = rng.choice([4, 5, 6, 8])
        opps.append(
            b.shape_a(
                f"opp_{i + 1:05d}",
                rng.choice(ARCHETYPES),
                segment,
                n=rng.randint(40, 60_000),
                outcome_total=outcome,
                default_rate=round(rng.uniform(0.01, 0.2), 4),
                persistence=round(rng.uniform(0.4, 1.0), 2),
                quarters=(rng.randint(2, m), m),
                difficulty=rng.randint(1, 5),
                impact=round(-outcome * rng.uniform(0.3, 0.9)),
                action=rng.choice(ACTIONS),
                evidence=[rng.randint(1, 400_000) for _ in range(4)],
            )
        )
    return b.opportunity_map(
        f"synthetic_{n_opps}", "consumer_lending", 5_000_000_000, "2025-12-31", opps
    )


def synthetic_memo(source: dict[str, Any]) -> dict[str, Any]:
    """A board memo for ``source``: cohort, leakage, loans, quarters, archetype, impact."""
    b = load_builder()
    explained = []
    for i, opp in enumerate(source["opportunities"]):
        p = f"opportunities[{i}]"
        nb = b.Prose("narrative").cohort(opp, p).text(" leaks **")
        nb.usd("outcome", opp["outcome_total_usd_annual"], f"{p}.outcome_total_usd_annual")
        nb.text("** a year across **")
        nb.figure("count", "n", f"{opp['n']:,} loans", f"{p}.n").text("**, in ")
        nb.quarters(opp, p).text(" observed. ").archetype(opp, p)
        explained.append(
            {
                "id": opp["id"],
                "archetype": opp["archetype"],
                "segment": dict(opp["segment"]),
                "narrative": nb.rendered(),
                "counterfactual": b.board_counterfactual(opp, p, {}).rendered(),
                "risk_of_inaction": "**Risk of inaction:** the loss persists every quarter.",
                "rollout": "**Rollout:** pilot in weeks 1-2, full book in weeks 2-8.",
            }
        )
    return {
        "portco_id": source["portco_id"],
        "audience": "board",
        "as_of": source["as_of"],
        "total_projected_impact_usd_annual": source["total_projected_impact_usd_annual"],
        "vertical": source["vertical"],
        "ebitda_baseline_usd": source["ebitda_baseline_usd"],
        "opportunities_explained": explained,
        "source_opportunity_map": f"dx_report_{source['portco_id']}.json",
    }


def write_pair(folder: Path, n_opps: int, seed: int = 0) -> tuple[Path, Path]:
    """Write ``explain_synthetic_<n>_board.json`` and its source into ``folder``."""
    b = load_builder()
    source = synthetic_source(n_opps, seed)
    portco = source["portco_id"]
    folder.mkdir(parents=True, exist_ok=True)
    memo_path = folder / f"explain_{portco}_board.json"
    source_path = folder / f"dx_report_{portco}.json"
    b.atomic_write_text(source_path, b.dump(source))
    b.atomic_write_text(memo_path, b.dump(synthetic_memo(source)))
    return memo_path, source_path
