"""Fixtures for the run-history tests: every test gets its own history folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "pe_eval_home"
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return home


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite"
