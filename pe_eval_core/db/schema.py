"""The store's schema, defined once (SQLAlchemy Core ``MetaData``) for SQLite and PostgreSQL,
and the one migration path that brings any database up to :data:`SCHEMA_VERSION`.

The version lives in the one-row table ``pe_eval_schema``. A fresh database is created from
:data:`METADATA` at the current version; an older one runs the steps of :data:`UPGRADES` from
its version on, inside one transaction that holds the database's write lock (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock), so two processes opening
a fresh database at once migrate it once. History files written before this module (schema
versions 1 and 2, SQLite only, version in ``PRAGMA user_version``) open and are upgraded in
place; ``docs/team_scale.md`` says why this is not Alembic.

>>> from sqlalchemy import create_engine
>>> engine = create_engine("sqlite://")
>>> with engine.begin() as conn:
...     migrate(conn, "memory")
...     current_version(conn) == SCHEMA_VERSION
True
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    CheckConstraint,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    inspect,
    text,
)

from pe_eval_core.errors import HistorySchemaTooNewError

METADATA = MetaData()

runs = Table(
    "runs",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uid", Text, nullable=False, unique=True),
    Column("kind", Text, CheckConstraint("kind IN ('memo', 'scenarios')"), nullable=False),
    Column("created_at", Text, nullable=False),
    Column("recorded_at", Text, nullable=False),
    Column("portco_id", Text),
    Column("audience", Text),
    Column("memo_path", Text),
    Column("memo_sha256", Text),
    Column("source_path", Text),
    Column("source_sha256", Text),
    Column("grader_version", Text),
    Column("scenarios_path", Text),
    Column("scenarios_sha256", Text),
    Column("target", Text),
    Column("model", Text),
    Column("citation_accuracy", Float),
    Column("hallucination_rate", Float),
    Column("coverage", Float),
    Column("consistency", Float),
    Column("n_total", Integer),
    Column("n_passed", Integer),
    Column("pass_rate", Float),
    Column("tokens_in", Integer),
    Column("tokens_out", Integer),
    Column("cost_usd", Float),
    Column("note", Text),
    Column("scores_json", Text, nullable=False, server_default="{}"),
    # version 2
    Column("origin", Text, nullable=False, server_default="unknown"),
    Column("n_errors", Integer),
    # version 3
    Column("infra_error", Integer, nullable=False, server_default="0"),
    Column("config_digest", Text),
    Column("grading_key", Text),
    Column("detail_sha256", Text),  # the blob of every scenario verdict's detail, as one list
    # version 4: what produced a scenario run (its manifest is in scores_json)
    Column("skill_path", Text),
    Column("skill_sha256", Text),
    Column("identity", Text),  # sha256 of the manifest's like-for-like fields
    sqlite_autoincrement=True,
)

memo_findings = Table(
    "memo_findings",
    METADATA,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", Text, nullable=False),
    Column("opportunity_id", Text),
    Column("field", Text),
    Column("start", Integer),
    Column("end", Integer),
    Column("raw", Text),
    Column("message", Text),
    Column("nearest_value", Float),
    Column("nearest_path", Text),
    Column("other_opportunity_id", Text),
    # version 3: a nearest value that is text (an entity), not a number
    Column("nearest_text", Text),
    PrimaryKeyConstraint("run_id", "seq"),
)

scenario_results = Table(
    "scenario_results",
    METADATA,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("tier", Text),
    Column("platform", Text),
    Column("source_fact", Text),
    Column("status", Text, nullable=False),
    Column("latency_ms", Float),
    Column("error", Text),
    Column("response", Text),  # versions 1-2 kept the response inline; version 3 in blobs
    Column("detail_json", Text, nullable=False, server_default="{}"),
    # version 3
    Column("response_sha256", Text),
    PrimaryKeyConstraint("run_id", "seq"),
)

memo_opportunities = Table(
    "memo_opportunities",
    METADATA,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("opportunity_id", Text, nullable=False),
    Column("archetype", Text),
    Column("cohort", Text),
    Column("in_source", Integer),
    Column("addressed", Integer),
    Column("figures_total", Integer),
    Column("figures_cited", Integer),
    Column("entities_total", Integer),
    Column("entities_grounded", Integer),
    Column("n_findings", Integer),
    PrimaryKeyConstraint("run_id", "opportunity_id"),
)

# version 3: content-addressed, compressed responses (and anything else stored once)
blobs = Table(
    "blobs",
    METADATA,
    Column("sha256", Text, primary_key=True),
    Column("size", Integer, nullable=False),
    Column("codec", Text, nullable=False),
    Column("data", LargeBinary, nullable=False),
    sqlite_with_rowid=False,  # the sha256 is the key: no second index of it
)

# version 3: the run each kind's comparisons and gate use when no baseline is given
baseline_pins = Table(
    "baseline_pins",
    METADATA,
    Column("kind", Text, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("pinned_at", Text, nullable=False),
)

# version 3: the judge's verdict cache, when it lives in the team store
judge_verdicts = Table(
    "judge_verdicts",
    METADATA,
    Column("model", Text, nullable=False),
    Column("prompt_version", Text, nullable=False),
    Column("response_sha256", Text, nullable=False),
    Column("expected", Text, nullable=False),
    Column("verdict", Text, CheckConstraint("verdict IN ('paraphrase', 'missed')"), nullable=False),
    Column("evidence", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    PrimaryKeyConstraint("model", "prompt_version", "response_sha256", "expected"),
)

schema_table = Table(
    "pe_eval_schema",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
)

# The indexes of version 2 (kept by name, so an upgraded file and a fresh one match) ...
_V2_INDEXES = (
    Index("runs_kind_created", runs.c.kind, runs.c.created_at),
    Index("runs_created", runs.c.created_at, runs.c.id),
    Index("runs_memo_pair", runs.c.portco_id, runs.c.audience, runs.c.created_at),
    Index("runs_scenarios", runs.c.scenarios_path, runs.c.target, runs.c.model, runs.c.created_at),
    Index(
        "scenario_results_tier",
        scenario_results.c.run_id,
        scenario_results.c.tier,
        scenario_results.c.status,
    ),
)
# ... and of version 3.
_V3_INDEXES = (
    Index("runs_grading_key", runs.c.grading_key, unique=True),
    Index("runs_memo_path", runs.c.memo_path, runs.c.created_at),
    Index("runs_detail_blob", runs.c.detail_sha256),
)

# ... and of version 4.
_V4_INDEXES = (Index("runs_identity", runs.c.identity, runs.c.id),)

LEGACY_V2 = """
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
CREATE INDEX scenario_results_tier ON scenario_results (run_id, tier, status)
"""
"""Version 1 -> 2 as the old SQLite-only module ran it (only SQLite files can be that old)."""


def _upgrade_1_to_2(conn: Connection) -> None:
    for statement in (s.strip() for s in LEGACY_V2.split(";")):
        if statement:
            conn.exec_driver_sql(statement)


def _upgrade_2_to_3(conn: Connection) -> None:
    for table, column, ddl in (
        ("runs", "infra_error", "INTEGER NOT NULL DEFAULT 0"),
        ("runs", "config_digest", "TEXT"),
        ("runs", "grading_key", "TEXT"),
        ("runs", "detail_sha256", "TEXT"),
        ("memo_findings", "nearest_text", "TEXT"),
        ("scenario_results", "response_sha256", "TEXT"),
    ):
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}")
    for new in (blobs, baseline_pins, judge_verdicts, schema_table):
        new.create(conn, checkfirst=True)
    for index in _V3_INDEXES:
        index.create(conn, checkfirst=True)
    conn.execute(
        text(
            "UPDATE runs SET infra_error = 1 WHERE kind = 'scenarios' "
            "AND n_total > 0 AND n_errors = n_total"
        )
    )


def _upgrade_3_to_4(conn: Connection) -> None:
    for column in ("skill_path", "skill_sha256", "identity"):
        conn.exec_driver_sql(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
    for index in _V4_INDEXES:
        index.create(conn, checkfirst=True)


UPGRADES: dict[int, Callable[[Connection], None]] = {
    1: _upgrade_1_to_2,
    2: _upgrade_2_to_3,
    3: _upgrade_3_to_4,
}
"""``UPGRADES[v]`` brings a database from version ``v`` to ``v + 1``."""
SCHEMA_VERSION = 4


def current_version(conn: Connection) -> int:
    """The schema version of the database on ``conn``; 0 for an empty database."""
    version = 0
    if conn.dialect.name == "sqlite":  # files of versions 1-2 kept it here, and only here
        version = int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
    if schema_table.name in inspect(conn).get_table_names():
        value = conn.execute(schema_table.select().with_only_columns(schema_table.c.version))
        version = max(version, int(value.scalar_one_or_none() or 0))
    return version


def _lock(conn: Connection) -> None:
    """Serialise migrations between processes (SQLite already holds its write lock)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(4203202613)"))


def migrate(conn: Connection, where: object) -> None:
    """Bring the database on ``conn`` (inside a write transaction) to :data:`SCHEMA_VERSION`.

    ``where`` names the database in the error raised for one newer than this code.
    """
    _lock(conn)
    version = current_version(conn)
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise HistorySchemaTooNewError(
            f"{where} has schema version {version}; this pe-eval knows up to {SCHEMA_VERSION}"
        )
    if version == 0:
        METADATA.create_all(conn)
    else:
        for step in range(version, SCHEMA_VERSION):
            UPGRADES[step](conn)
    conn.execute(schema_table.delete())
    conn.execute(schema_table.insert().values(id=1, version=SCHEMA_VERSION))
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
