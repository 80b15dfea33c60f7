"""Shared fixtures for the dashboard tests: the app under AppTest, isolated from the user's files.

Every test points the history database at a scratch folder (``PE_EVAL_HOME``) so dashboard runs
never touch the developer's ``.pe_eval``; the demo data is read in place.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the dashboard's `ui` package lives at the repository root
    sys.path.insert(0, str(ROOT))
DEMO_DATA = ROOT / "finance_output"
TIMEOUT = 120  # seconds per script run; the machine is shared, keep generous


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "pe_eval_home"
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("PE_EVAL_DATA_DIR", raising=False)
    monkeypatch.delenv("PE_EVAL_SCENARIOS", raising=False)
    monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
    return home


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., object]]:
    """Factory: an AppTest of app.py, already run once, optionally on another page."""
    from streamlit.testing.v1 import AppTest

    def make(page: str | None = None, **state: object) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
        for key, value in state.items():
            at.session_state[key] = value
        at.run()
        if page is not None:
            at.switch_page(page)
            at.run()
        return at

    yield make


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A scratch copy of the demo data folder (for tests that write or corrupt files)."""
    dest = tmp_path / "data"
    shutil.copytree(DEMO_DATA, dest, ignore=shutil.ignore_patterns("eval_*"))
    return dest


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module (tests/helpers/chromium.py)."""
    from tests.helpers.chromium import launch, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()
