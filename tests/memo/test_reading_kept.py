"""``memo.reading.read_kept``: a block's reading kept by reader and text across memos.

The grader reads each block through it; these tests compare it with ``ProseReader.read`` (the
form it replaces) on every block of the corpora, and check that a reading is never shared
between readers (another source's names, another configuration), that each call gets its own
lists, that the kept prose is bounded, and that a changed source grades as in a fresh process.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pe_eval_core.memo import grade_memo, reading
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.loading import load_source
from pe_eval_core.memo.plain_names import PlainNames
from pe_eval_core.memo.reading import ProseReader, read_kept
from pe_eval_core.numbers import DEFAULT_COUNT_NOUNS
from tests.helpers.memo_builders import make_memo

CORPUS = Path(__file__).parents[1] / "corpus"
FIELDS = ("narrative", "counterfactual", "risk_of_inaction", "rollout")


def _reader(source_path: Path | None = None, markers: tuple[str, ...] | None = None):
    plain = PlainNames(load_source(source_path)) if source_path is not None else None
    markers = markers if markers is not None else tuple(GraderConfig().section_markers)
    return ProseReader(DEFAULT_COUNT_NOUNS, markers, None, plain)


def test_a_kept_reading_is_the_reading_on_every_corpus_block() -> None:
    reading._KEPT.clear()
    blocks = 0
    for memo_path in sorted(CORPUS.rglob("explain_*.json")):
        portco = memo_path.stem.removeprefix("explain_").rsplit("_", 1)[0]
        source_path = memo_path.parent / f"dx_report_{portco}.json"
        try:
            memo = json.loads(memo_path.read_text(encoding="utf-8"))
            reader = _reader(source_path)
        except Exception:  # broken fixtures of the corpora: not read here
            continue
        for entry in memo.get("opportunities_explained") or ():
            for name in FIELDS:
                text = entry.get(name) if isinstance(entry, dict) else None
                if isinstance(text, str) and text.strip():
                    blocks += 1
                    expected = reader.read(text)
                    assert read_kept(reader, text) == expected  # read, then kept
                    assert read_kept(reader, text) == expected  # from the kept one
    assert blocks > 400


def test_a_reading_is_never_shared_between_readers(tmp_path, shape_a) -> None:
    """The same text read with another source's names (or other section markers) is read by
    that reader, not taken from the first one's."""
    shape_a["opportunities"][0]["segment"]["grade"] = "Broker"
    other = copy.deepcopy(shape_a)
    other["opportunities"][0]["segment"]["grade"] = "Retail"
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(shape_a), encoding="utf-8")
    b.write_text(json.dumps(other), encoding="utf-8")
    text = "The Broker loans and the Retail loans lost $2.1M."
    by_a, by_b = _reader(a), _reader(b)
    names_a = [m.text for m in read_kept(by_a, text).names]
    names_b = [m.text for m in read_kept(by_b, text).names]
    assert names_a == [m.text for m in by_a.read(text).names] and "Broker" in names_a
    assert names_b == [m.text for m in by_b.read(text).names] and "Retail" in names_b
    assert names_a != names_b
    plain = _reader(a, markers=())
    assert read_kept(plain, text) == plain.read(text)


def test_each_call_gets_its_own_lists() -> None:
    reader = _reader()
    text = "Recovers $2.1M of the $3.3M loss (64%); **Texas** leads."
    first = read_kept(reader, text)
    first.figures.clear()
    first.mentions.append(first.mentions[0])
    second = read_kept(reader, text)
    assert second == reader.read(text) and second.figures


def test_the_kept_prose_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(reading, "KEPT_CHARS_MAX", 100)
    reading._KEPT.clear()
    monkeypatch.setattr(reading, "_kept_chars", [0])
    reader = _reader()
    for i in range(40):
        text = f"Block {i} recovers ${i}.5M of the loss."
        assert read_kept(reader, text) == reader.read(text)
        assert reading._kept_chars[0] <= 100
        kept = sum(len(t) for by_text in reading._KEPT.values() for t in by_text)
        assert kept == reading._kept_chars[0]
    long = "x" * 101  # longer than the bound: read, never kept
    assert read_kept(reader, long) == reader.read(long)
    assert all(long not in by_text for by_text in reading._KEPT.values())


def test_a_changed_source_grades_as_in_a_fresh_process(shape_a, write_pair) -> None:
    """The memo's blocks are kept from the first grading; the source then renames a segment
    value the prose uses: the second grading equals one with nothing kept."""
    shape_a["opportunities"][0]["segment"]["grade"] = "Jumbo"
    memo = make_memo(shape_a)
    memo["opportunities_explained"][0]["narrative"] += " The Jumbo cohort leads."
    memo_path, source_path = write_pair(shape_a, memo)

    def graded() -> dict:
        out = grade_memo(memo_path, source_path).model_dump(mode="json")
        out.pop("evaluated_at")
        return out

    before = graded()
    changed = copy.deepcopy(shape_a)
    changed["opportunities"][0]["segment"]["grade"] = "Conforming"
    source_path.write_text(json.dumps(changed), encoding="utf-8")
    warm = graded()
    reading._KEPT.clear()
    assert warm == graded()
    assert warm["findings"] != before["findings"]  # the renamed value is read differently


@pytest.fixture(autouse=True)
def _forget_kept_readings():
    yield
    reading._KEPT.clear()
    reading._kept_chars[0] = 0
