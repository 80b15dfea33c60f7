"""Fixtures for the run-history tests: every test gets its own history folder, and the store
tests run once against SQLite and once against a real PostgreSQL server (started here)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "pe_eval_home"
    monkeypatch.setenv("PE_EVAL_HOME", str(home))
    monkeypatch.delenv("PE_EVAL_NO_HISTORY", raising=False)
    monkeypatch.delenv("PE_EVAL_DATABASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return home


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[object]:
    """A throwaway PostgreSQL server on 127.0.0.1 for the session (skipped without one)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from local_postgres import LocalPostgres, PostgresUnavailable
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    try:
        server = LocalPostgres().start()
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL not available: {exc}")
    try:
        yield server
    finally:
        server.stop()


_NAMES = itertools.count(1)


def fresh_database(server: object) -> str:
    """The URL of a new, empty database on ``server``."""
    import psycopg

    base: str = server.url  # type: ignore[attr-defined]
    name = f"pe_eval_t{next(_NAMES)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return base.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store test's history lives: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite")
    return fresh_database(request.getfixturevalue("postgres_server"))
