"""Fixtures of the hostile suite; the helpers are in ``hostile_kit``."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
import uvicorn

from tests.helpers.hostile_kit import RAN, REPO, free_port, hostile_server, reply
from tests.helpers.scenario_helpers import MockAnthropic


@pytest.fixture(scope="module")
def hostile_mcp_url() -> Iterator[str]:
    """The hostile server named ``mimic-stripe`` over Streamable HTTP, in this process."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            hostile_server("mimic-stripe").streamable_http_app(),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, MockAnthropic]:
    """A project folder (the working directory) with a skill, the mock Messages API wired
    into every ``AsyncAnthropic``, and a fake key set."""
    RAN.clear()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-HOSTILECANARY0123456789")
    skill = tmp_path / "skills" / "revenue-recovery" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("# Revenue recovery\nFind the MRR leak with the tools.\n")
    api = MockAnthropic(reply("done"))
    real = anthropic.AsyncAnthropic

    def patched(**kwargs: Any) -> anthropic.AsyncAnthropic:
        kwargs["http_client"] = api.client()
        kwargs["max_retries"] = 0
        return real(**kwargs)

    monkeypatch.setattr(anthropic, "AsyncAnthropic", patched)
    return tmp_path, api


@pytest.fixture(scope="module")
def postgres() -> Iterator[Any]:
    """A real PostgreSQL server for this module (scripts/local_postgres.py), else skip."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from local_postgres import LocalPostgres, PostgresUnavailable
    finally:
        sys.path.remove(str(REPO / "scripts"))
    try:
        server = LocalPostgres().start()
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL not available: {exc}")
    try:
        yield server
    finally:
        server.stop()
