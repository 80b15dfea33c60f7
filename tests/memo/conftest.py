"""Fixtures for the memo grader tests (the data lives in ``memo_builders``)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.memo_builders import SHAPE_A_SOURCE, SHAPE_B_SOURCE, make_memo, write_json


@pytest.fixture
def shape_a() -> dict[str, Any]:
    return copy.deepcopy(SHAPE_A_SOURCE)


@pytest.fixture
def shape_b() -> dict[str, Any]:
    return copy.deepcopy(SHAPE_B_SOURCE)


@pytest.fixture
def write_pair(tmp_path):
    """write_pair(source, memo) -> (memo_path, source_path) in a fresh data folder."""

    def _write(source: dict[str, Any], memo: dict[str, Any], folder: Path | None = None):
        d = folder or tmp_path
        d.mkdir(parents=True, exist_ok=True)
        src = write_json(d / f"dx_report_{source['portco_id']}.json", source)
        mem = write_json(d / f"explain_{memo['portco_id']}_{memo['audience']}.json", memo)
        return mem, src

    return _write


@pytest.fixture
def clean_pair(shape_a, write_pair):
    return write_pair(shape_a, make_memo(shape_a))
