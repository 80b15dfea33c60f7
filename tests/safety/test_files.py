"""The shared file helpers: atomic writes, precise JSON errors, name and path guards."""

from __future__ import annotations

import os
import stat

import pytest

from pe_eval_core.errors import (
    InputNotFoundError,
    InvalidNameError,
    MalformedJSONError,
    PathOutsideRootError,
)
from pe_eval_core.files import atomic_write_text, confine, read_json, safe_name


def test_atomic_write_replaces_whole_file_with_normal_permissions(tmp_path):
    target = tmp_path / "out" / "eval.json"
    atomic_write_text(target, "old")
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in target.parent.iterdir()] == ["eval.json"]  # no temp file left


def test_atomic_write_failure_keeps_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "eval.json"
    target.write_text("old")

    def boom(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["eval.json"]


def test_read_json_reports_line_and_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "a": 1,\n  "b": \n}')
    with pytest.raises(MalformedJSONError) as info:
        read_json(bad)
    assert (info.value.line, info.value.column) == (4, 1)
    assert "line 4, column 1" in str(info.value)


def test_read_json_missing_file_and_directory(tmp_path):
    with pytest.raises(InputNotFoundError, match="does not exist"):
        read_json(tmp_path / "nope.json")
    with pytest.raises(InputNotFoundError, match="is a directory"):
        read_json(tmp_path)


def test_read_json_rejects_non_utf8(tmp_path):
    bad = tmp_path / "latin.json"
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(MalformedJSONError, match="not UTF-8"):
        read_json(bad)


@pytest.mark.parametrize("name", ["..", ".", "a/b", "../x", "a b", "", "x\x00", "é"])
def test_safe_name_refuses_path_tricks(name):
    with pytest.raises(InvalidNameError):
        safe_name(name)


def test_confine_follows_symlinks(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.json"
    outside.write_text("{}")
    (root / "link.json").symlink_to(outside)
    assert confine(root / "inside.json", [root]) == (root / "inside.json").resolve()
    with pytest.raises(PathOutsideRootError):
        confine(root / "link.json", [root])
    with pytest.raises(PathOutsideRootError):
        confine(root / ".." / "secret.json", [root])


@pytest.mark.parametrize(
    "text", ['{"a": NaN}', '{"a": -Infinity}', '{"a": 1e400}', '{"a": ' + "9" * 400 + "}"]
)
def test_read_json_rejects_non_finite_numbers_with_a_position(tmp_path, text):
    bad = tmp_path / "nan.json"
    bad.write_text(text)
    with pytest.raises(MalformedJSONError, match="non-finite number") as info:
        read_json(bad)
    assert (info.value.line, info.value.column) == (1, 7)


def test_read_json_deep_nesting_is_malformed_not_a_crash(tmp_path):
    bad = tmp_path / "deep.json"
    bad.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(MalformedJSONError, match="more than 500 levels deep") as err:
        read_json(bad)
    assert err.value.column == 501  # where the 501st level opens, and the field path to it
    assert "field '[0][0][0]" in err.value.message
