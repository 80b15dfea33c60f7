"""Fixtures for scenario-evaluation tests: every test gets its own PE_EVAL_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Judge cache and saved responses go to a temp folder, never ./.pe_eval."""
    home = tmp_path / "pe_home"
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    monkeypatch.delenv("PE_EVAL_MODEL", raising=False)
    monkeypatch.delenv("PE_EVAL_JUDGE_MODEL", raising=False)
    return home
