"""Batch grading: the folder index gives the old sibling search's answers, the pool serial's."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from pe_eval_core.cli.main import main
from pe_eval_core.errors import PeEvalError
from pe_eval_core.files import read_json
from pe_eval_core.memo import grade_memo
from pe_eval_core.memo.batch import grade_folder
from pe_eval_core.memo.folder_index import FolderIndex
from pe_eval_core.memo.result import SiblingHeadline
from tests.helpers.memo_builders import SHAPE_A_SOURCE, make_memo, write_json

HEADLINE = "total_projected_impact_usd_annual"


def _old_read_siblings(memo_path: Path, portco_id: str) -> list[SiblingHeadline]:
    """The per-memo sibling search the index replaces (kept here as the oracle)."""
    me = memo_path.resolve()
    needle = json.dumps(portco_id).encode()
    out: list[SiblingHeadline] = []
    for path in sorted(memo_path.parent.glob("explain_*.json")):
        if path.resolve() == me or not path.is_file():
            continue
        by_name = path.name.startswith(f"explain_{portco_id}_")
        if not by_name and needle not in path.read_bytes():
            continue
        try:
            data = read_json(path)
        except (PeEvalError, OSError) as exc:
            if by_name:
                msg = exc.message if isinstance(exc, PeEvalError) else "unreadable"
                if "malformed JSON at" in msg:
                    msg = "malformed JSON at" + msg.split("malformed JSON at", 1)[1]
                out.append(SiblingHeadline(path=str(path), error=msg))
            continue
        portco = data.get("portco_id") if isinstance(data, dict) else None
        if not isinstance(portco, str):
            if by_name:
                out.append(SiblingHeadline(path=str(path), error="no portco_id"))
            continue
        if portco != portco_id:
            continue
        audience = data.get("audience")
        audience = audience if isinstance(audience, str) else None
        headline = data.get(HEADLINE)
        if not isinstance(headline, int | float) or isinstance(headline, bool):
            out.append(
                SiblingHeadline(path=str(path), audience=audience, error=f"no numeric {HEADLINE}")
            )
            continue
        out.append(SiblingHeadline(path=str(path), audience=audience, headline=float(headline)))
    return out


def _source(portco: str) -> dict:
    s = copy.deepcopy(SHAPE_A_SOURCE)
    s["portco_id"] = portco
    return s


@pytest.fixture
def fund(tmp_path) -> Path:
    """Several portcos, board + operator, a stale sibling, odd siblings, a missing source."""
    d = tmp_path / "fund"
    d.mkdir()
    for i in range(12):
        portco = f"Co{i:02d}"
        src = _source(portco)
        write_json(d / f"dx_report_{portco}.json", src)
        for audience in ("board", "operator"):
            memo = make_memo(src, audience)
            memo["portco_id"] = portco
            if i % 5 == 0 and audience == "operator":
                memo[HEADLINE] = memo[HEADLINE] * 1.3  # stale
            write_json(d / f"explain_{portco}_{audience}.json", memo)
    (d / "explain_Co01_ic.json").write_text("{ not json", encoding="utf-8")
    write_json(d / "explain_Co02_lp.json", {"portco_id": "Co02", "audience": "lp"})
    write_json(d / "explain_Co03_x.json", [1, 2])
    odd = make_memo(_source("Co04"), "renamed")
    odd["portco_id"] = "Co04"
    write_json(d / "explain_other_name.json", odd)  # of another name, carrying Co04
    orphan = make_memo(_source("Orphan"), "board")
    orphan["portco_id"] = "Orphan"
    write_json(d / "explain_Orphan_board.json", orphan)  # no dx_report_Orphan.json
    return d


def test_index_siblings_equal_the_old_search(fund):
    index = FolderIndex.scan(fund)
    for memo in sorted(fund.glob("explain_*.json")):
        for portco in ("Co00", "Co01", "Co02", "Co03", "Co04", "Orphan", "nobody"):
            assert index.siblings(memo, portco) == _old_read_siblings(memo, portco), (memo, portco)


def test_index_reads_each_memo_once(fund, monkeypatch):
    import pe_eval_core.memo.folder_index as folder_index

    index = FolderIndex.scan(fund)
    reads: list[str] = []
    real = folder_index.read_bytes  # every read goes through files.read_bytes

    def counting(path: Path, *args: object) -> bytes:
        reads.append(path.name)
        return real(path, *args)

    monkeypatch.setattr(folder_index, "read_bytes", counting)
    for memo in fund.glob("explain_*.json"):
        index.siblings(memo, "Co01")
    assert sorted(reads) == sorted(p.name for p in fund.glob("explain_*.json"))


def test_digest_changes_with_the_folder(fund):
    before = FolderIndex.scan(fund).digest()
    assert FolderIndex.scan(fund).digest() == before
    memo = fund / "explain_Co01_board.json"
    data = json.loads(memo.read_text())
    data[HEADLINE] += 1
    memo.write_text(json.dumps(data))
    st = memo.stat()
    os.utime(memo, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert FolderIndex.scan(fund).digest() != before


def _comparable(items):
    out = []
    for item in items:
        if item.error is not None:
            out.append((item.pair, type(item.error).__name__, item.error.message))
        else:
            assert item.evaluation is not None
            out.append((item.pair, item.evaluation.model_dump(exclude={"evaluated_at"})))
    return out


def test_parallel_equals_serial_and_single_memo_grading(fund):
    serial = grade_folder(fund, jobs=1)
    parallel = grade_folder(fund, jobs=2)
    assert _comparable(parallel) == _comparable(serial)
    assert any(i.error is not None for i in serial)  # the orphan
    for item in serial:
        if item.evaluation is None:
            continue
        alone = grade_memo(item.pair.memo_path, item.pair.source_path)
        assert alone.model_dump(exclude={"evaluated_at"}) == item.evaluation.model_dump(
            exclude={"evaluated_at"}
        )


def test_progress_is_reported(fund):
    seen: list[tuple[int, int]] = []
    items = grade_folder(fund, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (len(items), len(items))
    assert [d for d, _ in seen] == list(range(1, len(items) + 1))


def test_memo_all_prints_a_line_per_memo_and_a_summary(fund, capsys):
    code = main(["memo", "--all", "--data-dir", str(fund), "--jobs", "2"])
    out = capsys.readouterr().out.splitlines()
    n = len(list(fund.glob("explain_*.json")))
    assert len(out) == n + 1
    assert out[-1].startswith(f"{n} memos in {fund}:")
    assert "could not be graded" in out[-1]
    assert any(line.startswith("Orphan/board") and "ERROR" in line for line in out)
    assert code == 2  # the orphan has no source


def test_memo_all_thresholds_and_json(fund, capsys):
    for name in ("Orphan_board", "Co01_ic", "Co02_lp", "Co03_x", "other_name"):
        (fund / f"explain_{name}.json").unlink()
    code = main(
        ["memo", "--all", "--data-dir", str(fund), "--fail-under", "consistency=1.0", "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    failing = {r["memo"] for r in data["memos"] if r.get("threshold_failures")}
    assert "Co00/operator" in failing and "Co01/board" not in failing


def test_memo_all_refuses_a_portco(fund):
    assert main(["memo", "Co01", "--all", "--data-dir", str(fund)]) == 2
