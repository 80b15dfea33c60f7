"""The SQLite history through the standard library's ``sqlite3``, for a command that records.

Why: ``pe-eval memo`` records one run, and importing SQLAlchemy costs more CPU (about 0.2 s
on the development machine) than grading the memo, rendering and writing its scorecard
together. So recording memo gradings in a SQLite file uses ``sqlite3`` directly, through the
same schema: :data:`FRESH_SQLITE_DDL` is the SQLite rendering of :mod:`.schema` (a test
renders it again and compares), the connection settings are the full layer's (WAL, busy
timeout, foreign keys, ``BEGIN IMMEDIATE`` for writes) and the errors are the same typed
ones. It opens a new database or one at :data:`SCHEMA_VERSION`; anything else (an older
file to migrate, a newer one, a file holding other tables) raises :class:`NeedsFullStore`
and the caller uses the full store (``pe_eval_core.history.store.RunStore``), which
migrates or refuses exactly as before. PostgreSQL always goes through the full store.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pe_eval_core.db.location import sqlite_error
from pe_eval_core.errors import HistoryError, HistorySchemaTooNewError
from pe_eval_core.redact import redact

SCHEMA_VERSION = 4
"""The schema version this code writes (:mod:`.schema` migrates older databases to it)."""

SCHEMA_TABLE = "pe_eval_schema"

FRESH_SQLITE_DDL: tuple[str, ...] = (
    (
        "CREATE TABLE blobs (\n"
        "\tsha256 TEXT NOT NULL, \n"
        "\tsize INTEGER NOT NULL, \n"
        "\tcodec TEXT NOT NULL, \n"
        "\tdata BLOB NOT NULL, \n"
        "\tPRIMARY KEY (sha256)\n"
        ")\n"
        " WITHOUT ROWID"
    ),
    (
        "CREATE TABLE judge_verdicts (\n"
        "\tmodel TEXT NOT NULL, \n"
        "\tprompt_version TEXT NOT NULL, \n"
        "\tresponse_sha256 TEXT NOT NULL, \n"
        "\texpected TEXT NOT NULL, \n"
        "\tverdict TEXT NOT NULL CHECK (verdict IN ('paraphrase', 'missed')), \n"
        "\tevidence TEXT NOT NULL, \n"
        "\treason TEXT NOT NULL, \n"
        "\tcreated_at TEXT NOT NULL, \n"
        "\tPRIMARY KEY (model, prompt_version, response_sha256, expected)\n"
        ")"
    ),
    (
        "CREATE TABLE pe_eval_schema (\n"
        "\tid INTEGER NOT NULL, \n"
        "\tversion INTEGER NOT NULL, \n"
        "\tPRIMARY KEY (id)\n"
        ")"
    ),
    (
        "CREATE TABLE runs (\n"
        "\tid INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \n"
        "\tuid TEXT NOT NULL, \n"
        "\tkind TEXT NOT NULL CHECK (kind IN ('memo', 'scenarios')), \n"
        "\tcreated_at TEXT NOT NULL, \n"
        "\trecorded_at TEXT NOT NULL, \n"
        "\tportco_id TEXT, \n"
        "\taudience TEXT, \n"
        "\tmemo_path TEXT, \n"
        "\tmemo_sha256 TEXT, \n"
        "\tsource_path TEXT, \n"
        "\tsource_sha256 TEXT, \n"
        "\tgrader_version TEXT, \n"
        "\tscenarios_path TEXT, \n"
        "\tscenarios_sha256 TEXT, \n"
        "\ttarget TEXT, \n"
        "\tmodel TEXT, \n"
        "\tcitation_accuracy FLOAT, \n"
        "\thallucination_rate FLOAT, \n"
        "\tcoverage FLOAT, \n"
        "\tconsistency FLOAT, \n"
        "\tn_total INTEGER, \n"
        "\tn_passed INTEGER, \n"
        "\tpass_rate FLOAT, \n"
        "\ttokens_in INTEGER, \n"
        "\ttokens_out INTEGER, \n"
        "\tcost_usd FLOAT, \n"
        "\tnote TEXT, \n"
        "\tscores_json TEXT DEFAULT '{}' NOT NULL, \n"
        "\torigin TEXT DEFAULT 'unknown' NOT NULL, \n"
        "\tn_errors INTEGER, \n"
        "\tinfra_error INTEGER DEFAULT '0' NOT NULL, \n"
        "\tconfig_digest TEXT, \n"
        "\tgrading_key TEXT, \n"
        "\tdetail_sha256 TEXT, \n"
        "\tskill_path TEXT, \n"
        "\tskill_sha256 TEXT, \n"
        "\tidentity TEXT, \n"
        "\tUNIQUE (uid)\n"
        ")"
    ),
    "CREATE INDEX runs_created ON runs (created_at, id)",
    "CREATE INDEX runs_detail_blob ON runs (detail_sha256)",
    "CREATE UNIQUE INDEX runs_grading_key ON runs (grading_key)",
    "CREATE INDEX runs_identity ON runs (identity, id)",
    "CREATE INDEX runs_kind_created ON runs (kind, created_at)",
    "CREATE INDEX runs_memo_pair ON runs (portco_id, audience, created_at)",
    "CREATE INDEX runs_memo_path ON runs (memo_path, created_at)",
    "CREATE INDEX runs_scenarios ON runs (scenarios_path, target, model, created_at)",
    (
        "CREATE TABLE baseline_pins (\n"
        "\tkind TEXT NOT NULL, \n"
        "\trun_id INTEGER NOT NULL, \n"
        "\tpinned_at TEXT NOT NULL, \n"
        "\tPRIMARY KEY (kind), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE\n"
        ")"
    ),
    (
        "CREATE TABLE memo_findings (\n"
        "\trun_id INTEGER NOT NULL, \n"
        "\tseq INTEGER NOT NULL, \n"
        "\tkind TEXT NOT NULL, \n"
        "\topportunity_id TEXT, \n"
        "\tfield TEXT, \n"
        "\tstart INTEGER, \n"
        '\t"end" INTEGER, \n'
        "\traw TEXT, \n"
        "\tmessage TEXT, \n"
        "\tnearest_value FLOAT, \n"
        "\tnearest_path TEXT, \n"
        "\tother_opportunity_id TEXT, \n"
        "\tnearest_text TEXT, \n"
        "\tPRIMARY KEY (run_id, seq), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE\n"
        ")"
    ),
    (
        "CREATE TABLE memo_opportunities (\n"
        "\trun_id INTEGER NOT NULL, \n"
        "\topportunity_id TEXT NOT NULL, \n"
        "\tarchetype TEXT, \n"
        "\tcohort TEXT, \n"
        "\tin_source INTEGER, \n"
        "\taddressed INTEGER, \n"
        "\tfigures_total INTEGER, \n"
        "\tfigures_cited INTEGER, \n"
        "\tentities_total INTEGER, \n"
        "\tentities_grounded INTEGER, \n"
        "\tn_findings INTEGER, \n"
        "\tPRIMARY KEY (run_id, opportunity_id), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE\n"
        ")"
    ),
    (
        "CREATE TABLE scenario_results (\n"
        "\trun_id INTEGER NOT NULL, \n"
        "\tseq INTEGER NOT NULL, \n"
        "\tname TEXT NOT NULL, \n"
        "\ttier TEXT, \n"
        "\tplatform TEXT, \n"
        "\tsource_fact TEXT, \n"
        "\tstatus TEXT NOT NULL, \n"
        "\tlatency_ms FLOAT, \n"
        "\terror TEXT, \n"
        "\tresponse TEXT, \n"
        "\tdetail_json TEXT DEFAULT '{}' NOT NULL, \n"
        "\tresponse_sha256 TEXT, \n"
        "\tPRIMARY KEY (run_id, seq), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE\n"
        ")"
    ),
    "CREATE INDEX scenario_results_tier ON scenario_results (run_id, tier, status)",
)
"""A new database, statement by statement: ``pe_eval_core.db.schema.sqlite_ddl()`` as
rendered by SQLAlchemy (tests/history/test_lite_recording.py renders it again and compares)."""


class NeedsFullStore(Exception):
    """This database needs the full store (a migration, or a file this module will not
    touch); the caller records through ``RunStore`` instead."""


def enable_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Switch ``conn``'s database to WAL. Switching needs a moment of exclusive access the
    busy handler does not always cover, so retry briefly while another process is creating
    the file."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
            continue
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"SQLite refused WAL mode (got {mode!r})")
        return


def configure(conn: sqlite3.Connection, timeout: float) -> None:
    """The settings every connection to the history file gets (the full layer's too)."""
    conn.isolation_level = None  # transactions are begun explicitly, never by the driver
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    enable_wal(conn, timeout)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")


def current_version(conn: sqlite3.Connection) -> int:
    """The schema version of the database on ``conn``; 0 for an empty database."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if _tables(conn) & {SCHEMA_TABLE}:
        row = conn.execute(f"SELECT version FROM {SCHEMA_TABLE}").fetchone()
        version = max(version, int(row[0]) if row and row[0] is not None else 0)
    return version


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {name for (name,) in rows}


def prepare(conn: sqlite3.Connection, location: str) -> None:
    """Inside a write transaction: create a new database, accept the current version, refuse
    a newer one (as the full store does); :class:`NeedsFullStore` for anything else."""
    version = current_version(conn)
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise HistorySchemaTooNewError(
            f"{location} has schema version {version}; this pe-eval knows up to {SCHEMA_VERSION}"
        )
    if version or _tables(conn):
        raise NeedsFullStore(location)
    for statement in FRESH_SQLITE_DDL:
        conn.execute(statement)
    conn.execute(f"INSERT INTO {SCHEMA_TABLE} (id, version) VALUES (1, ?)", (SCHEMA_VERSION,))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@contextmanager
def write_transaction(path: Path, lock_timeout: float) -> Iterator[sqlite3.Connection]:
    """One write transaction on the history file at ``path`` (created if new), its write
    lock taken up front; every driver failure becomes the full layer's typed error."""
    location = str(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HistoryError(f"cannot create the folder of {location}: {exc}") from exc
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(path, timeout=lock_timeout, check_same_thread=False)
        configure(conn, lock_timeout)
        conn.execute("BEGIN IMMEDIATE")
        try:
            prepare(conn, location)
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except sqlite3.IntegrityError:
        raise  # a race the caller retries
    except sqlite3.Error as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        detail = redact(detail)
        typed = sqlite_error(detail, location, path, lock_timeout)
        raise (typed or HistoryError(f"history database {location}: {detail}")) from exc
    finally:
        if conn is not None:
            conn.close()
