"""Labelled mutations of every document kind (wrong, scaled, sign-flipped and role-swapped
figures, broken sensitivity arithmetic, invented artifacts and names, aggregates over a
subset, excerpts paraphrased or moved, summary counts wrong): each is caught with the right
finding kind at the right place, and the clean documents raise no finding.
``benchmarks/bench_documents.py`` prints the same measurement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doc_mutations import CORPUS, MUTATIONS, Result, measure


@pytest.fixture(scope="module")
def result() -> Result:
    return measure()


@pytest.mark.parametrize("kind", ["exit_proof_pack", "ddq_response", "cim_redflags"])
def test_every_mutation_is_caught(result: Result, kind: str) -> None:
    assert result.total[kind] >= 12
    assert [m for m in result.misses if m.startswith(kind)] == []


@pytest.mark.parametrize("kind", ["exit_proof_pack", "ddq_response", "cim_redflags"])
def test_no_false_flag_on_clean_documents(result: Result, kind: str) -> None:
    assert result.false_flags[kind] == []


def test_the_catalogue_mutates_what_it_says(tmp_path: Path) -> None:
    # every JSON edit changes its document (a no-op mutation would be caught by nothing)
    for m in MUTATIONS:
        if m.edit is None:
            continue
        data = json.loads((CORPUS / m.doc).read_text(encoding="utf-8"))
        before = json.dumps(data, sort_keys=True)
        m.edit(data)
        assert json.dumps(data, sort_keys=True) != before, m.name
