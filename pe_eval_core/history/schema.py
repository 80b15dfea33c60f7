"""The run-history schema: the DDL of every version and the in-place upgrade between them.

The version lives in ``PRAGMA user_version``; :data:`MIGRATIONS` ``[i]`` upgrades a database
from version ``i`` to ``i + 1``, so a fresh file runs all of them and an old one the rest.

>>> import sqlite3
>>> conn = sqlite3.connect(":memory:", isolation_level=None)
>>> migrate(conn, ":memory:")
>>> conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
True
"""

from __future__ import annotations

import sqlite3

from pe_eval_core.errors import HistorySchemaTooNewError

# Version 1: summary rows, memo findings and scenario verdicts.
_V1 = """
CREATE TABLE runs (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    uid                TEXT NOT NULL UNIQUE,
    kind               TEXT NOT NULL CHECK (kind IN ('memo', 'scenarios')),
    created_at         TEXT NOT NULL,
    recorded_at        TEXT NOT NULL,
    portco_id          TEXT,
    audience           TEXT,
    memo_path          TEXT,
    memo_sha256        TEXT,
    source_path        TEXT,
    source_sha256      TEXT,
    grader_version     TEXT,
    scenarios_path     TEXT,
    scenarios_sha256   TEXT,
    target             TEXT,
    model              TEXT,
    citation_accuracy  REAL,
    hallucination_rate REAL,
    coverage           REAL,
    consistency        REAL,
    n_total            INTEGER,
    n_passed           INTEGER,
    pass_rate          REAL,
    tokens_in          INTEGER,
    tokens_out         INTEGER,
    cost_usd           REAL,
    note               TEXT,
    scores_json        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_kind_created ON runs (kind, created_at);
CREATE TABLE memo_findings (
    run_id               INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                  INTEGER NOT NULL,
    kind                 TEXT NOT NULL,
    opportunity_id       TEXT,
    field                TEXT,
    start                INTEGER,
    "end"                INTEGER,
    raw                  TEXT,
    message              TEXT,
    nearest_value        REAL,
    nearest_path         TEXT,
    other_opportunity_id TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE scenario_results (
    run_id         INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    name           TEXT NOT NULL,
    tier           TEXT,
    platform       TEXT,
    source_fact    TEXT,
    status         TEXT NOT NULL,
    latency_ms     REAL,
    error          TEXT,
    response       TEXT,
    detail_json    TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, seq)
);
"""

# Version 2: who recorded the run, error counts on the summary row, per-opportunity rows,
# and the indexes the History page filters on. Existing rows are backfilled.
_V2 = """
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE runs ADD COLUMN n_errors INTEGER;
UPDATE runs SET n_errors = (
    SELECT COUNT(*) FROM scenario_results s
    WHERE s.run_id = runs.id AND s.status NOT IN ('pass', 'fail')
) WHERE kind = 'scenarios';
CREATE TABLE memo_opportunities (
    run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    opportunity_id    TEXT NOT NULL,
    archetype         TEXT,
    cohort            TEXT,
    in_source         INTEGER,
    addressed         INTEGER,
    figures_total     INTEGER,
    figures_cited     INTEGER,
    entities_total    INTEGER,
    entities_grounded INTEGER,
    n_findings        INTEGER,
    PRIMARY KEY (run_id, opportunity_id)
);
CREATE INDEX runs_created ON runs (created_at, id);
CREATE INDEX runs_memo_pair ON runs (portco_id, audience, created_at);
CREATE INDEX runs_scenarios ON runs (scenarios_path, target, model, created_at);
CREATE INDEX scenario_results_tier ON scenario_results (run_id, tier, status);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2)
"""``MIGRATIONS[i]`` upgrades a database from version ``i`` to ``i + 1``."""
SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> list[str]:
    """A migration script as separate statements (``sqlite3`` runs one per ``execute``)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def migrate(conn: sqlite3.Connection, where: object) -> None:
    """Bring the database on ``conn`` (autocommit mode) up to :data:`SCHEMA_VERSION`.

    ``where`` names the file in the error raised for a database newer than this code.
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise HistorySchemaTooNewError(
            f"{where} has schema version {version}; this pe-eval knows up to {SCHEMA_VERSION}"
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in statements(MIGRATIONS[target - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
