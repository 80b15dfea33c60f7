"""The labelled free-form corpora (issue 11) as a regression gate: no false flag beyond the
known ones on the clean memos, recall of the planted errors at least 95%, on both the first
corpus and the held-out one. The measurement is ``benchmarks/bench_freeform.py``; this test
reuses its adapter so both read the grader the same way.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import bench_freeform as bench  # noqa: E402

KNOWN_FALSE_FLAGS = {
    "freeform": set(),
    "freeform_holdout": set(),
}


@pytest.fixture(params=sorted(KNOWN_FALSE_FLAGS))
def corpus(request, monkeypatch):
    path = ROOT / "tests" / "corpus" / request.param
    monkeypatch.setattr(bench, "CORPUS", path)
    return request.param, path


def test_clean_memos_have_no_false_flags(corpus):
    name, path = corpus
    flags = set()
    for memo in sorted(path.glob("explain_*.json")):
        for f in bench.grade(memo, bench.source_of(memo)).flags:
            flags.add((memo.name, f.opportunity_id, f.raw))
    assert flags == KNOWN_FALSE_FLAGS[name]


def test_planted_errors_are_caught(corpus, tmp_path):
    _, path = corpus
    cases = bench.load_json(path / "mutations.json")
    missed = []
    for case in cases:
        for p in path.glob("*.json"):
            shutil.copyfile(p, tmp_path / p.name)
        memo, start, end = bench.apply_mutation(tmp_path, case)
        if not bench.caught(case, bench.grade(memo, bench.source_of(memo)), start, end):
            missed.append(case["id"])
    assert len(cases) >= 40
    assert 1 - len(missed) / len(cases) >= 0.95, missed
