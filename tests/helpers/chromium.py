"""The one way tests start headless Chromium: Debian's build at /usr/bin/chromium (Playwright's
own browser download does not work here), skipped with a reason when it or Playwright is
missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def require_chromium() -> None:
    """Skip the calling test when Chromium or the playwright package is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")


def launch(playwright: Any, *extra_args: str) -> Any:
    """A headless Chromium from a started ``sync_playwright()``, with the shared flags."""
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=[*CHROMIUM_ARGS, *extra_args]
    )
