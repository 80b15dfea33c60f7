"""Suite-wide fixtures: keep every test's run history and judge cache out of the checkout."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_pe_eval_home(tmp_path_factory, monkeypatch):
    """Point PE_EVAL_HOME (history db, judge cache) at a fresh temp folder for each test."""
    home = tmp_path_factory.mktemp("pe_eval_home")
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    yield home
