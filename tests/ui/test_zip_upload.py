"""A zip of a folder uploaded on the scorecard page: every pair graded with its siblings, and
hostile archives refused with a typed error naming the entry, nothing written outside the
scratch folder."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest
import streamlit as st

from pe_eval_core.errors import InputLimitError, UploadArchiveError
from pe_eval_core.history.store import RunStore
from pe_eval_core.memo.archive import extract_zip
from ui import state

ROOT = Path(__file__).resolve().parents[2]
DEMO_DATA = ROOT / "finance_output"
SC = state.Scorecard
DEMO_FILES = sorted(
    p for pattern in ("explain_*.json", "dx_report_*.json") for p in DEMO_DATA.glob(pattern)
)


def _zip(entries: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in entries:
            z.writestr(name, body)
    raw = bytearray(buf.getvalue())
    # mark ENCRYPTED as password-protected in the central directory (general purpose flag)
    at = raw.find(b"PK\x01\x02")
    while at != -1:
        name_len = int.from_bytes(raw[at + 28 : at + 30], "little")
        if raw[at + 46 : at + 46 + name_len] == ENCRYPTED.encode():
            raw[at + 8] |= 0x1
        at = raw.find(b"PK\x01\x02", at + 4)
    return bytes(raw)


def _demo_zip(
    prefix: str = "pack/", extra: list[tuple[str | zipfile.ZipInfo, bytes]] = ()
) -> bytes:
    return _zip([(prefix + p.name, p.read_bytes()) for p in DEMO_FILES] + list(extra))


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """dest inside an otherwise empty folder: anything written beside it is an escape."""
    dest = tmp_path / "box" / "dest"
    dest.mkdir(parents=True)
    return dest


def _written_outside(dest: Path) -> list[Path]:
    return [p for p in dest.parent.parent.rglob("*") if p.is_file() and dest not in p.parents]


def test_a_folder_zip_unpacks_flat_and_names_what_it_skips(box):
    raw = _demo_zip(extra=[("pack/README.md", b"notes"), ("__MACOSX/pack/._x", b"")])
    skipped = extract_zip(raw, "pack.zip", box)
    assert sorted(p.name for p in box.iterdir()) == [p.name for p in DEMO_FILES]
    assert skipped == [{"file": "pack/README.md", "reason": "not a memo or source file"}]
    for p in DEMO_FILES:
        assert (box / p.name).read_bytes() == p.read_bytes()


BODY = b'{"portco_id": "X"}'
SYMLINK = zipfile.ZipInfo("pack/explain_X_board.json")
SYMLINK.external_attr = (stat.S_IFLNK | 0o777) << 16
ENCRYPTED = "pack/explain_Y_board.json"  # its flag set by _zip (zipfile writes none)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("../explain_X_board.json", "climbs out of the folder"),
        ("pack/../../explain_X_board.json", "climbs out of the folder"),
        ("/tmp/explain_X_board.json", "absolute path"),
        ("C:/x/explain_X_board.json", "absolute path"),
        ("..\\explain_X_board.json", "backslash"),
        (SYMLINK, "a symbolic link"),
        (ENCRYPTED, "encrypted"),
    ],
    ids=["dotdot", "nested-dotdot", "absolute", "drive", "backslash", "symlink", "encrypted"],
)
def test_hostile_entries_are_refused_naming_the_entry(box, entry, says):
    name = entry.filename if isinstance(entry, zipfile.ZipInfo) else entry
    body = b"/etc/passwd" if entry is SYMLINK else BODY
    with pytest.raises(UploadArchiveError) as err:
        extract_zip(_demo_zip(extra=[(entry, body)]), "evil.zip", box)
    assert says in err.value.message and repr(name) in err.value.message
    assert err.value.input == "memo" and "--" not in err.value.fix
    assert _written_outside(box) == []
    assert not any(p.is_symlink() for p in box.iterdir())


def test_two_files_of_one_name_are_refused(box):
    raw = _zip([("a/explain_X_board.json", BODY), ("b/explain_X_board.json", BODY)])
    with pytest.raises(UploadArchiveError, match=r"same name as 'a/explain_X_board\.json'"):
        extract_zip(raw, "dup.zip", box)


def test_not_a_zip_is_a_typed_error(box):
    with pytest.raises(UploadArchiveError, match=r"uploaded pack\.zip is not a readable zip"):
        extract_zip(b"PK\x03\x04 but not really", "pack.zip", box)


def test_file_count_is_bounded(box, monkeypatch):
    monkeypatch.setenv("PE_EVAL_MAX_ZIP_FILES", "5")
    with pytest.raises(InputLimitError, match="over the files per uploaded zip limit of 5"):
        extract_zip(_demo_zip(), "pack.zip", box)
    assert list(box.iterdir()) == []  # refused before anything is read
    monkeypatch.setenv("PE_EVAL_MAX_ZIP_FILES", str(len(DEMO_FILES)))
    extract_zip(_demo_zip(), "pack.zip", box)


def test_a_zip_bomb_is_refused_by_its_uncompressed_total(box, monkeypatch):
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", str(1_000_000))
    bomb = _zip([("explain_X_board.json", b"0" * 50_000_000)])
    assert len(bomb) < 100_000
    with pytest.raises(InputLimitError, match="uncompressed total"):
        extract_zip(bomb, "bomb.zip", box)
    assert sum(p.stat().st_size for p in box.iterdir()) <= 1_000_000


def test_the_counted_bytes_not_the_claimed_sizes_bound_the_work(box, monkeypatch):
    """Headers claiming small sizes cannot smuggle a large body: the bytes are counted as they
    are decompressed (and zipfile stops at the claimed size, then fails the CRC)."""
    monkeypatch.setenv("PE_EVAL_MAX_INPUT_BYTES", str(1_000_000))
    raw = bytearray(_zip([("explain_X_board.json", b"0" * 3_000_000)]))
    # rewrite the claimed uncompressed size (local header at 22, central directory at 24)
    raw[22:26] = (10).to_bytes(4, "little")
    cd = raw.rindex(b"PK\x01\x02")
    raw[cd + 24 : cd + 28] = (10).to_bytes(4, "little")
    with pytest.raises((UploadArchiveError, InputLimitError)):
        extract_zip(bytes(raw), "liar.zip", box)
    assert sum(p.stat().st_size for p in box.iterdir()) <= 1_000_000


# --- on the page ----------------------------------------------------------------------------


def _upload(app, raw: bytes, name: str = "pack.zip"):
    st.cache_data.clear()
    at = app(**{SC.MODE: "Upload"})
    at.file_uploader(key=SC.ZIP_UPLOAD).set_value((name, raw, "application/zip"))
    at.run()
    return at


def test_page_grades_every_pair_of_a_zip_with_its_siblings(app):
    from pe_eval_core.memo import find_memo_pairs

    at = _upload(app, _demo_zip())
    assert not at.exception, at.exception
    pairs = find_memo_pairs(DEMO_DATA)
    pick = at.selectbox(key=SC.ZIP_PICK)
    assert sorted(pick.options) == sorted(f"{p.portco_id} · {p.audience}" for p in pairs)
    runs = RunStore().list_runs()
    assert len(runs) == len(pairs)
    # each recorded under the zip's name, so its trend is its own line
    # (the store makes the path absolute against the working folder)
    assert {Path(r.memo_path).parent.parts[-2:] for r in runs} == {("uploads", "pack")}
    # a portco with two memos: its sibling's headline is compared, as in the data folder
    by_portco: dict[str, list[str]] = {}
    for p in pairs:
        by_portco.setdefault(p.portco_id, []).append(p.audience)
    portco, audiences = next((k, v) for k, v in by_portco.items() if len(v) > 1)
    pick.set_value(f"{portco} · {audiences[0]}").run()
    assert not at.exception
    siblings = next(d.value for d in at.dataframe if "agrees" in d.value.columns)
    assert len(siblings) == len(audiences) - 1
    assert str(ROOT) not in "".join(str(m.value) for m in at.markdown)
    # the same zip again (a cold reload) records nothing new
    again = _upload(app, _demo_zip())
    assert not again.exception
    assert len(RunStore().list_runs()) == len(pairs)


def test_page_refuses_a_hostile_zip_with_the_entry_named(app, tmp_path):
    at = _upload(app, _demo_zip(extra=[("../../explain_X_board.json", BODY)]), "evil.zip")
    assert not at.exception
    errors = "\n".join(e.value for e in at.error).replace("\\", "")
    assert "climbs out of the folder" in errors and "explain_X_board.json" in errors
    assert "Traceback" not in errors
    assert not RunStore().exists() or RunStore().count_runs() == 0
