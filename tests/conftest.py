"""Suite-wide fixtures: keep every test's run history and judge cache out of the checkout."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Property tests judge correctness, not speed: no per-example deadline (a loaded 2-core CI
# machine would turn slow examples into flaky failures). In CI the examples are derandomized
# so a red run reproduces exactly.
settings.register_profile("pe-eval", deadline=None, print_blob=True)
settings.register_profile("pe-eval-ci", parent=settings.get_profile("pe-eval"), derandomize=True)
settings.load_profile("pe-eval-ci" if os.environ.get("CI") else "pe-eval")


@pytest.fixture(autouse=True)
def _isolated_pe_eval_home(tmp_path_factory, monkeypatch):
    """Point PE_EVAL_HOME (history db, judge cache) at a fresh temp folder for each test."""
    home = tmp_path_factory.mktemp("pe_eval_home")
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    yield home
