"""Class 7 (issue 23's list): remote images through the response sanitiser.

Surfaces: ``ui.views.scenario_failure.safe_markdown`` (the drill-down's renderer of an agent's
response) as text, and as Streamlit renders it in Chromium: a page showing the hostile
response through the sanitiser makes no request to the image server, while the same text
rendered raw does (the control: the test can see a fetch). Reference definitions hide inside
blockquotes, list items (bullets, numbers, nested) and use the shortcut form ``![x]``."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from tests.helpers.chromium import launch, require_chromium
from tests.helpers.hostile_kit import REPO, free_port

pytestmark = pytest.mark.timeout(300)
HITS: list[str] = []


def hostile(base: str) -> str:
    return (
        "Refund summary.\n\n"
        f"> [q]: {base}/quote.png\n\n"
        f"- [l]: {base}/list.png\n"
        f"1. [n]: {base}/numbered.png\n"
        f"- > [nested]: {base}/nested.png\n\n"
        "![q] ![l][] ![alt][n] ![nested]\n\n"
        f"[top]: {base}/top.png\n![top]\n"
    )


def test_no_image_syntax_survives():
    from ui.views.scenario_failure import safe_markdown

    out = safe_markdown(hostile("http://e"))
    assert "http://e" not in out and "![" not in out
    assert "Refund summary." in out


class _Images(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        HITS.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


APP = """
import sys
sys.path.insert(0, {repo!r})
import streamlit as st
from ui.views.scenario_failure import safe_markdown
text = open({path!r}).read()
st.markdown(text if st.query_params.get("raw") else safe_markdown(text))
st.write("rendered-marker")
"""


@pytest.mark.browser
def test_chromium_fetches_nothing_from_a_sanitised_response(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    images = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Images)
    threading.Thread(target=images.serve_forever, daemon=True).start()
    text = tmp_path / "response.md"
    text.write_text(hostile(f"http://127.0.0.1:{images.server_address[1]}"))
    app = tmp_path / "render.py"
    app.write_text(APP.format(repo=str(REPO), path=str(text)))
    port = free_port()
    log = open(tmp_path / "st.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port),
         "--server.headless", "true", "--server.fileWatcherType", "none"],
        cwd=REPO, env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
                break
            except OSError:
                assert time.monotonic() < deadline, "streamlit did not start"
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = launch(p)
            try:
                page = browser.new_page()
                HITS.clear()
                page.goto(f"http://127.0.0.1:{port}/")
                page.get_by_text("rendered-marker").wait_for(timeout=120_000)
                page.wait_for_timeout(3000)
                assert HITS == [], HITS
                page.goto(f"http://127.0.0.1:{port}/?raw=1")  # the control
                page.get_by_text("rendered-marker").wait_for(timeout=120_000)
                page.wait_for_timeout(3000)
                assert HITS, "the raw text fetched nothing: the test could not see a fetch"
            finally:
                browser.close()
    finally:
        proc.terminate()
        proc.wait(15)
        log.close()
        images.shutdown()
