"""Siblings read once per folder in a process: what a memo file gave is kept by its path, size,
mtime and inode, so a changed, replaced, new or removed sibling is seen on the next grading,
and single-memo grading parses only the memos that can be siblings."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pe_eval_core.memo import grade_memo
from pe_eval_core.memo.consistency import read_siblings
from pe_eval_core.memo.folder_index import FolderIndex
from tests.helpers.memo_builders import SHAPE_A_SOURCE, make_memo, write_json
from tests.memo.test_memo_batch import HEADLINE, _old_read_siblings

PORTCOS = ("Alpha", "Beta", "Gamma")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    for portco in PORTCOS:
        src = dict(SHAPE_A_SOURCE, portco_id=portco)
        write_json(d / f"dx_report_{portco}.json", src)
        for audience in ("board", "operator"):
            memo = make_memo(src, audience)
            memo["portco_id"] = portco
            write_json(d / f"explain_{portco}_{audience}.json", memo)
    return d


def _rewrite(path: Path, **changes: object) -> None:
    """Change a memo in place, keeping its size when the change does, with a new mtime."""
    data = json.loads(path.read_text())
    data.update(changes)
    st = path.stat()
    path.write_text(json.dumps(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))


def _headlines(folder: Path, portco: str = "Alpha") -> list[tuple[str, float | None]]:
    memo = folder / f"explain_{portco}_board.json"
    return [(Path(s.path).name, s.headline) for s in read_siblings(memo, portco)]


def test_a_changed_sibling_is_read_again(folder: Path) -> None:
    first = _headlines(folder)
    assert first == [("explain_Alpha_operator.json", first[0][1])]
    _rewrite(folder / "explain_Alpha_operator.json", **{HEADLINE: 1234.0})
    assert _headlines(folder) == [("explain_Alpha_operator.json", 1234.0)]


def test_a_replaced_new_or_removed_sibling_is_seen(folder: Path) -> None:
    operator = folder / "explain_Alpha_operator.json"
    data = json.loads(operator.read_text())
    assert len(_headlines(folder)) == 1
    replacement = folder / "replacement.tmp"
    replacement.write_text(json.dumps(dict(data, **{HEADLINE: 99.0})))
    os.replace(replacement, operator)  # another inode under the same name
    assert _headlines(folder) == [("explain_Alpha_operator.json", 99.0)]
    write_json(folder / "explain_Alpha_lp.json", dict(data, audience="lp", **{HEADLINE: 7.0}))
    assert [h for _, h in _headlines(folder)] == [7.0, 99.0]
    operator.unlink()
    assert _headlines(folder) == [("explain_Alpha_lp.json", 7.0)]


def test_a_memo_of_another_name_counts_only_while_it_carries_the_portco(folder: Path) -> None:
    odd = folder / "explain_renamed.json"
    data = json.loads((folder / "explain_Beta_board.json").read_text())
    write_json(odd, dict(data, portco_id="Gamma"))
    assert _headlines(folder) == [("explain_Alpha_operator.json", _headlines(folder)[0][1])]
    _rewrite(odd, portco_id="Alpha")  # the probe that missed must not hide the change
    names = [n for n, _ in _headlines(folder)]
    assert names == ["explain_Alpha_operator.json", "explain_renamed.json"]
    for memo in sorted(folder.glob("explain_*.json")):
        for portco in (*PORTCOS, "nobody"):
            index = FolderIndex.scan(folder, memos_only=True)
            assert index.siblings(memo, portco) == _old_read_siblings(memo, portco)


def test_single_memo_grading_parses_only_possible_siblings(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pe_eval_core.memo import folder_index

    parsed: list[str] = []
    real = folder_index._entry_from_bytes

    def counting(path: Path, raw: bytes) -> folder_index.MemoEntry:
        parsed.append(path.name)
        return real(path, raw)

    monkeypatch.setattr(folder_index, "_entry_from_bytes", counting)
    memo = folder / "explain_Beta_board.json"
    grade_memo(memo, folder / "dx_report_Beta.json")
    assert parsed == ["explain_Beta_operator.json"]
    grade_memo(memo, folder / "dx_report_Beta.json")  # the folder read once per process
    assert parsed == ["explain_Beta_operator.json"]


def test_a_memos_only_index_has_no_digest(folder: Path) -> None:
    with pytest.raises(ValueError, match="full scan"):
        FolderIndex.scan(folder, memos_only=True).digest()
    assert len(FolderIndex.scan(folder).digest()) == 64


def test_a_link_out_of_the_folder_is_never_read(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    data = json.loads((folder / "explain_Alpha_operator.json").read_text())
    outside.write_text(json.dumps(dict(data, audience="leak", **{HEADLINE: 1.0})))
    (folder / "explain_Alpha_leak.json").symlink_to(outside)
    sibs = read_siblings(folder / "explain_Alpha_board.json", "Alpha")
    leak = [s for s in sibs if s.path.endswith("explain_Alpha_leak.json")]
    assert [(s.headline, s.error) for s in leak] == [(None, "a link to outside the folder")]


def test_one_memo_at_a_time_reuses_the_folders_index_only_while_unchanged(folder: Path) -> None:
    first = FolderIndex.of_memos(folder)
    assert first.siblings(folder / "explain_Alpha_board.json", "Alpha")
    assert FolderIndex.of_memos(folder) is first  # same names, sizes, mtimes, inodes
    _rewrite(folder / "explain_Gamma_operator.json", **{HEADLINE: 5.0})
    second = FolderIndex.of_memos(folder)
    assert second is not first
    (folder / "explain_Beta_lp.json").write_text("{not json")
    third = FolderIndex.of_memos(folder)
    assert third is not second
    assert [s.error is not None for s in _siblings_of(folder, "Beta")] == [True, False]
    assert FolderIndex.of_memos(folder) is not third  # an unreadable entry: read again


def test_a_fixed_unreadable_sibling_is_read_again_at_the_same_mtime(folder: Path) -> None:
    bad = folder / "explain_Alpha_lp.json"
    good = json.loads((folder / "explain_Alpha_operator.json").read_text())
    text = json.dumps(dict(good, audience="lp", **{HEADLINE: 3.0}))
    bad.write_text("{" + text[1:-1] + ",}")  # malformed, one byte longer
    assert [s.error is not None for s in _siblings_of(folder, "Alpha")] == [True, False]
    st = bad.stat()
    bad.write_text(text + " ")  # fixed: the same size and mtime
    os.utime(bad, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _siblings_of(folder, "Alpha")[0].headline == 3.0


def _siblings_of(folder: Path, portco: str) -> list:
    return read_siblings(folder / f"explain_{portco}_board.json", portco)


def test_a_source_is_validated_once_per_content(folder: Path) -> None:
    from pe_eval_core.memo import loading

    source = folder / "dx_report_Alpha.json"
    loading._SOURCES.clear()
    first, digest = loading._load_source(source, shared=True)
    assert loading._load_source(source, shared=True)[0] is first  # same bytes: kept
    assert loading._load_source(source)[0] is not first  # the public loader never shares
    data = json.loads(source.read_text())
    data["total_projected_impact_usd_annual"] = 4321.0
    source.write_text(json.dumps(data))
    changed, new_digest = loading._load_source(source, shared=True)
    assert new_digest != digest and changed.total_projected_impact_usd_annual == 4321.0
    evaluation = grade_memo(folder / "explain_Alpha_board.json", source)
    assert evaluation.source_sha256 == new_digest
    assert "4,321" in evaluation.consistency.note or "4.3K" in evaluation.consistency.note


@pytest.mark.parametrize(
    "name",
    ["explain_.json", "explain_a_b.json", "explain.json", "explain_json", "Explain_a.json",
     "explain_a.JSON", "explain_\n.json", "xexplain_a.json", "explain_a.json\n", "explain_a.jsonx"],
)  # fmt: skip
def test_the_memo_name_test_is_the_glob(name: str) -> None:
    import fnmatch

    from pe_eval_core.memo.folder_index import MEMO_GLOB, _is_memo_name

    assert _is_memo_name(name) == fnmatch.fnmatchcase(name, MEMO_GLOB)


def test_a_folders_first_pass_reads_each_probed_memo_once(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grading every memo once probes the memos of other names for each portco: from memory
    after the first read, with the same answers (a memo carrying a portco's literal counts)."""
    from pe_eval_core.memo import folder_index

    odd = folder / "explain_renamed.json"
    data = json.loads((folder / "explain_Beta_board.json").read_text())
    write_json(odd, dict(data, portco_id="Gamma", audience="lp", note='say "Alpha" here'))
    reads: list[str] = []
    real = folder_index.read_bytes

    def counting(path: Path, *args: object) -> bytes:
        reads.append(Path(path).name)
        return real(path, *args)

    monkeypatch.setattr(folder_index, "read_bytes", counting)
    folder_index._SEEN.clear()
    expected = {
        "Alpha": ["explain_Alpha_operator.json"],  # '\\"Alpha\\"' inside a string is no literal
        "Beta": ["explain_Beta_operator.json"],
        "Gamma": ["explain_Gamma_operator.json", "explain_renamed.json"],
    }
    for portco in PORTCOS:
        sibs = read_siblings(folder / f"explain_{portco}_board.json", portco)
        assert sorted(Path(s.path).name for s in sibs) == expected[portco]
    probed = [n for n in reads if not n.startswith("explain_Alpha")]
    assert reads.count("explain_renamed.json") == 2  # probed once, then parsed for Gamma
    assert max(probed.count(n) for n in set(probed)) <= 2, reads  # probe + parse at most
    for memo in sorted(folder.glob("explain_*.json")):
        for portco in PORTCOS:
            index = FolderIndex.scan(folder, memos_only=True)
            assert index.siblings(memo, portco) == _old_read_siblings(memo, portco)


def test_one_index_holds_probed_pieces_and_a_quoted_portco_reads_the_file(
    folder: Path, tmp_path: Path
) -> None:
    from pe_eval_core.memo import folder_index

    other = tmp_path / "other"
    shutil.copytree(folder, other)
    folder_index._SEEN.clear()
    first = FolderIndex.of_memos(folder)
    first.siblings(folder / "explain_Alpha_board.json", "Alpha")
    assert first._pieces  # the other portcos' memos, probed
    second = FolderIndex.of_memos(other)
    second.siblings(other / "explain_Alpha_board.json", "Alpha")
    assert second._pieces and not first._pieces and first._pieces_size == 0
    quoted = 'Al"pha'
    data = json.loads((folder / "explain_Beta_board.json").read_text())
    write_json(other / "explain_odd.json", dict(data, portco_id=quoted))
    index = FolderIndex.of_memos(other)
    index.siblings(other / "explain_Alpha_board.json", "Alpha")  # probes explain_odd.json
    assert [Path(s.path).name for s in index.siblings(other / "x.json", quoted)] == [
        "explain_odd.json"
    ]
