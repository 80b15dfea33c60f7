"""Errors planted by rule in every producer document of each kind (tests/documents/planted.py),
the new producer output from other books included: at least 95% found per kind, at their
place. The measure prints recall per kind and every miss."""

from __future__ import annotations

import pytest
from planted import PLANTERS, Planted, measure_planted


@pytest.fixture(scope="module")
def planted() -> Planted:
    return measure_planted()


@pytest.mark.parametrize("kind", sorted(PLANTERS))
def test_planted_errors_are_found(planted: Planted, kind: str) -> None:
    plants, caught = planted.plants[kind], planted.caught[kind]
    misses = [m for m in planted.misses if m.startswith(kind)]
    print(f"{kind}: {caught}/{plants} planted errors found in {planted.documents[kind]} documents")
    assert planted.documents[kind] >= 5 and plants >= 50
    assert caught / plants >= 0.95, misses
