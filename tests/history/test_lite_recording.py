"""Recording memo gradings with the standard library's sqlite3 (``db.lite``): the same schema,
rows, deduplication and errors as the SQLAlchemy store, and the fallbacks to it."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pe_eval_core.db.lite import FRESH_SQLITE_DDL, SCHEMA_VERSION
from pe_eval_core.db.location import plain_sqlite_file
from pe_eval_core.db.schema import sqlite_ddl
from pe_eval_core.errors import HistoryLockedError, HistorySchemaTooNewError
from pe_eval_core.history.memo_rows import SUMMARY_COLUMNS
from pe_eval_core.history.recording import record_memos, record_or_warn
from pe_eval_core.history.records import RunSummary
from pe_eval_core.history.store import RunStore
from tests.helpers.history_builders import make_memo_evaluation

FINDINGS = [
    {"kind": "ungrounded_figure", "opportunity_id": "opp_01", "field": "narrative", "start": 3,
     "end": 9, "raw": "$9.9M", "message": "no source value", "nearest_value": 9.5e6,
     "nearest_path": "opportunities[0].n"},
    {"kind": "misattributed_entity", "opportunity_id": "opp_02", "raw": "A", "message": "x",
     "nearest_value": "A \ud800", "other_opportunity_id": "opp_01"},
]  # fmt: skip


def rows(path: Path, table: str, drop: tuple[str, ...] = ()) -> list[dict[str, object]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        got = [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
    finally:
        conn.close()
    return [{k: v for k, v in r.items() if k not in drop} for r in got]


def schema_of(path: Path) -> set[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        found = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL")
        return {(t, n, re.sub(r"\s+", " ", s).strip()) for t, n, s in found}
    finally:
        conn.close()


def test_the_fresh_ddl_is_the_schema_rendered_by_sqlalchemy() -> None:
    assert sqlite_ddl() == FRESH_SQLITE_DDL


def test_summary_columns_are_the_run_summary_fields() -> None:
    fields = set(RunSummary.model_fields) - {"id", "scores", "infra_error"}
    assert set(SUMMARY_COLUMNS) == fields


def test_a_light_database_has_the_schema_sqlalchemy_creates(tmp_path: Path) -> None:
    light, full = tmp_path / "light.sqlite", tmp_path / "full.sqlite"
    record_memos([make_memo_evaluation()], origin="cli", db=light)
    RunStore(full).list_runs()
    assert schema_of(light) == schema_of(full)
    for path in (light, full):
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("SELECT id, version FROM pe_eval_schema").fetchall() == [
                (1, SCHEMA_VERSION)
            ]


def test_light_and_full_paths_store_the_same_rows(tmp_path: Path) -> None:
    light, full = tmp_path / "light.sqlite", tmp_path / "full.sqlite"
    evaluations = [
        make_memo_evaluation(findings=FINDINGS),
        make_memo_evaluation(portco="HMDA_GA", memo_sha="c" * 64),
    ]
    ids = record_memos(evaluations, origin="cli", db=light)
    assert ids == RunStore(full).record_memo_evaluations(evaluations, origin="cli")
    volatile = ("uid", "recorded_at")
    assert rows(light, "runs", volatile) == rows(full, "runs", volatile)
    assert rows(light, "memo_findings") == rows(full, "memo_findings")
    assert rows(light, "memo_opportunities") == rows(full, "memo_opportunities")
    assert rows(light, "memo_findings")[1]["nearest_text"] == "A \ufffd"  # a lone surrogate
    # the full store reads what the light path wrote
    record = RunStore(light).get_run(ids[0])
    assert [f.raw for f in record.findings] == ["$9.9M", "A"]
    assert record.summary.scores["scores"]["citation_accuracy"] == 1.0


def test_a_grading_recorded_either_way_is_recorded_once(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    ev = make_memo_evaluation(findings=FINDINGS)
    first = RunStore(db).record_memo_evaluation(ev)
    assert record_memos([ev, ev], origin="cli", db=db) == [first, first]
    other = make_memo_evaluation(scores=(0.5, 0.0, 1.0, 1.0))
    new = record_memos([other, other], origin="cli", db=db)
    assert new[0] == new[1] != first
    assert RunStore(db).count_runs() == 2


def test_memo_recording_does_not_import_sqlalchemy(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from tests.helpers.history_builders import make_memo_evaluation\n"
        "from pe_eval_core.history.recording import record_or_warn\n"
        f"print(record_or_warn(make_memo_evaluation(), origin='cli', db={str(tmp_path)!r} + "
        "'/h.sqlite'))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sqlalchemy'))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["1", "[]"]


def test_an_older_database_is_migrated_by_the_full_store(tmp_path: Path) -> None:
    from tests.history.test_history_store import V1_DDL

    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(V1_DDL)
    rid = record_or_warn(make_memo_evaluation(), origin="cli", db=db)
    store = RunStore(db)
    assert store.schema_version() == SCHEMA_VERSION
    assert rid == 3 and len(store.get_run(rid).opportunities) == 3
    assert [r.uid for r in store.list_runs()][-2:] == ["old-scen", "old-memo"]


def test_a_file_with_other_tables_is_left_to_the_full_store(tmp_path: Path) -> None:
    db = tmp_path / "mixed.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
    rid = record_or_warn(make_memo_evaluation(), origin="cli", db=db)
    assert rid == 1
    assert RunStore(db).schema_version() == SCHEMA_VERSION


def test_a_newer_database_is_refused_and_the_caller_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(HistorySchemaTooNewError, match=f"schema version {SCHEMA_VERSION + 1}"):
        record_memos([make_memo_evaluation()], origin="cli", db=db)
    assert record_or_warn(make_memo_evaluation(), origin="cli", db=db) is None
    assert f"schema version {SCHEMA_VERSION + 1}" in capsys.readouterr().err


def test_a_held_lock_is_the_typed_error_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "h.sqlite"
    record_memos([make_memo_evaluation()], origin="cli", db=db)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, time\n"
            f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        monkeypatch.setenv("PE_EVAL_LOCK_TIMEOUT", "0.5")
        started = time.monotonic()
        with pytest.raises(HistoryLockedError) as info:
            record_memos([make_memo_evaluation(memo_sha="d" * 64)], origin="cli", db=db)
        assert time.monotonic() - started < 5
        assert "stayed locked for 0.5 s" in info.value.message
        assert f"pid {holder.pid}" in info.value.message
    finally:
        holder.kill()
        holder.wait()


def test_which_targets_are_plain_sqlite_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path))
    monkeypatch.delenv("PE_EVAL_DATABASE_URL", raising=False)
    assert plain_sqlite_file(None) == tmp_path / "history.sqlite"
    assert plain_sqlite_file("sqlite:///rel/h.db") == Path("rel/h.db")
    assert plain_sqlite_file(tmp_path / "x.db") == tmp_path / "x.db"
    for other in ("postgresql://u:p@h/db", "sqlite:///x.db?mode=ro", "sqlite://", "mysql://h/d"):
        assert plain_sqlite_file(other) is None
    monkeypatch.setenv("PE_EVAL_DATABASE_URL", "postgresql://u@h/db")
    assert plain_sqlite_file(None) is None
