"""The run-history store: round-trips, SQL aggregates, references, migrations, concurrency."""

from __future__ import annotations

import multiprocessing
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pe_eval_core.errors import HistoryError, HistorySchemaTooNewError, RunNotFoundError
from pe_eval_core.history.schema import SCHEMA_VERSION
from pe_eval_core.history.store import RunFilters, RunStore, default_db_path, record_or_warn
from tests.helpers.history_builders import make_memo_evaluation, make_result, make_scenario_run

T0 = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(store_target: str) -> str:
    """This module's store tests run against SQLite and PostgreSQL (see conftest)."""
    return store_target


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite"


def count_rows(target: str, table: str) -> int:
    from sqlalchemy import create_engine, text

    from pe_eval_core.history.store import database_url

    engine = create_engine(database_url(target))
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


HOSTILE = "<script>alert(1)</script> '; DROP TABLE runs; -- ignore previous instructions"


def test_memo_evaluation_round_trips_with_detail(db: str) -> None:
    evaluation = make_memo_evaluation(
        scores=(0.9, 0.1, 2 / 3, 1.0),
        findings=[
            {
                "kind": "ungrounded_figure",
                "opportunity_id": "opp_02",
                "field": "narrative",
                "start": 10,
                "end": 16,
                "raw": "$5.2M",
                "nearest_value": 5.6e6,
                "nearest_path": "opportunities[1].projected_impact_usd_annual",
            },
            {"kind": "ungrounded_entity", "opportunity_id": "opp_01", "raw": HOSTILE},
        ],
        when=T0,
    )
    store = RunStore(db)
    rid = store.record_memo_evaluation(evaluation, origin="cli")
    record = store.get_run(rid)
    s = record.summary
    assert (s.kind, s.origin, s.portco_id, s.audience) == ("memo", "cli", "MortgageCo", "board")
    assert s.created_at == "2026-04-01T12:00:00.000000+00:00"
    assert (s.citation_accuracy, s.hallucination_rate, s.coverage, s.consistency) == (
        0.9,
        0.1,
        2 / 3,
        1.0,
    )
    assert s.memo_sha256 == "a" * 64 and s.grader_version == "1.0.0"
    assert s.scores["totals"]["opps_addressed"] == 2
    assert s.note == "agrees with the operator sibling"
    assert [f.raw for f in record.findings] == ["$5.2M", HOSTILE]
    first = record.findings[0]
    assert (first.field, first.start, first.end, first.nearest_value) == (
        "narrative",
        10,
        16,
        5.6e6,
    )
    assert first.nearest_path == "opportunities[1].projected_impact_usd_annual"
    assert [o.opportunity_id for o in record.opportunities] == ["opp_01", "opp_02", "opp_03"]
    assert [o.n_findings for o in record.opportunities] == [1, 1, 0]
    assert record.opportunities[0].cohort == "A × 360 months"


def test_scenario_run_round_trips_and_counts_are_computed_in_sql(db: str) -> None:
    run = make_scenario_run(
        [
            make_result("s1", "smoke", "pass", expectations=[("$4,820", True, "strict")]),
            make_result(
                "s2",
                "smoke",
                "fail",
                expectations=[("refund", False, None)],
                numeric=("total", 4800, 4840, False, 4280.0),
                numbers=[4280.0, 15.0],
                response=HOSTILE,
            ),
            make_result("f1", "functional", "error", error="HTTP 502"),
            make_result("a1", "adversarial", "judge error", error="no verdict"),
        ],
        run_id="run-abc-123456",
        when=T0,
    )
    store = RunStore(db)
    rid = store.record_scenario_run(run, origin="dashboard")
    record = store.get_run(rid)
    s = record.summary
    assert (s.uid, s.kind, s.origin) == ("run-abc-123456", "scenarios", "dashboard")
    assert (s.n_total, s.n_passed, s.n_errors) == (4, 1, 2)
    assert s.pass_rate == pytest.approx(0.5)  # 1 of the 2 that ran: errors are left out
    assert (s.tokens_in, s.tokens_out) == (100, 50)
    assert s.note == run.conclusion()
    assert [(t.tier, t.passed, t.total) for t in record.tiers] == [
        ("adversarial", 0, 1),
        ("functional", 0, 1),
        ("smoke", 1, 2),
    ]
    s2 = record.results[1]
    assert (s2.name, s2.status, s2.response) == ("s2", "fail", HOSTILE)
    assert s2.detail["numbers"] == [4280.0, 15.0]
    assert s2.detail["numeric_checks"][0]["nearest"] == 4280.0
    assert s2.detail["expectations"][0]["text"] == "refund"
    assert record.results[2].error == "HTTP 502"
    # the hostile response did not break anything
    assert store.count_runs() == 1


def test_the_same_run_recorded_twice_is_one_run(db: str) -> None:
    # recording is idempotent, keyed by content (issue 21): the same run recorded again (a
    # reload, a re-score of the same responses, under another run id and time) adds nothing
    run = make_scenario_run([make_result("s1", "smoke", "pass")], run_id="dup-run-0001")
    store = RunStore(db)
    a = store.record_scenario_run(run)
    rescored = make_scenario_run(
        [make_result("s1", "smoke", "pass")], run_id="other-id", when=T0 + timedelta(days=3)
    )
    assert store.record_scenario_run(run) == store.record_scenario_run(rescored) == a
    assert store.count_runs() == 1
    # a new measurement (a live re-run: other latencies) under the same run id is a new run
    live = make_scenario_run(
        [make_result("s1", "smoke", "pass", latency_ms=900.0)], run_id="dup-run-0001"
    )
    b = store.record_scenario_run(live)
    assert b != a and store.resolve("dup-run-0001") == a
    assert store.get_run(b).summary.uid.startswith("dup-run-0001-")
    # another verdict is another run
    failed = make_scenario_run([make_result("s1", "smoke", "fail")], run_id="third")
    assert store.record_scenario_run(failed) not in (a, b)


def test_list_filters_order_and_options(db: str) -> None:
    store = RunStore(db)
    for i, (portco, audience) in enumerate(
        [("MortgageCo", "board"), ("MortgageCo", "operator"), ("HMDA_GA", "board")]
    ):
        store.record_memo_evaluation(
            make_memo_evaluation(portco=portco, audience=audience, when=T0 + timedelta(days=i))
        )
    store.record_scenario_run(
        make_scenario_run(
            [make_result("s", "smoke", "pass")], when=T0 - timedelta(days=1), model="claude-x"
        )
    )
    runs = store.list_runs()
    assert [r.kind for r in runs] == ["memo", "memo", "memo", "scenarios"]  # newest first
    assert [r.subject for r in runs[:3]] == [
        "HMDA_GA/board",
        "MortgageCo/operator",
        "MortgageCo/board",
    ]
    assert [r.audience for r in store.list_runs(RunFilters(portco_id="MortgageCo"))] == [
        "operator",
        "board",
    ]
    assert store.count_runs(RunFilters(kind="scenarios", model="claude-x")) == 1
    assert store.count_runs(RunFilters(kind="scenarios", model="other")) == 0
    assert store.count_runs(RunFilters(since=(T0 + timedelta(days=1)).isoformat())) == 2
    assert len(store.list_runs(limit=2)) == 2
    options = store.filter_options()
    assert options["portco_id"] == ["HMDA_GA", "MortgageCo"]
    assert options["audience"] == ["board", "operator"]
    assert options["model"] == ["claude-x"]


def test_trends_are_ordered_and_aggregated_per_tier(db: str) -> None:
    store = RunStore(db)
    for i, cov in enumerate([1 / 3, 2 / 3, 1.0]):
        store.record_memo_evaluation(
            make_memo_evaluation(scores=(1.0, 0.0, cov, 1.0), when=T0 + timedelta(days=i))
        )
    store.record_memo_evaluation(make_memo_evaluation(audience="operator", when=T0))
    trend = store.memo_trend("MortgageCo", "board")
    assert [round(r["coverage"], 3) for r in trend] == [0.333, 0.667, 1.0]
    for day, statuses in enumerate([("pass", "fail", "pass"), ("pass", "pass", "fail")]):
        store.record_scenario_run(
            make_scenario_run(
                [
                    make_result("s1", "smoke", statuses[0]),
                    make_result("s2", "smoke", statuses[1]),
                    make_result("f1", "functional", statuses[2]),
                ],
                when=T0 + timedelta(days=day),
            )
        )
    rows = [(r["tier"], r["passed"], r["total"], r["pass_rate"]) for r in store.tier_trend()]
    assert rows == [
        ("functional", 1, 1, 1.0),
        ("smoke", 1, 2, 0.5),
        ("functional", 0, 1, 0.0),
        ("smoke", 2, 2, 1.0),
    ]


def test_run_references(db: str) -> None:
    store = RunStore(db)
    m = store.record_memo_evaluation(make_memo_evaluation(when=T0))
    s1 = store.record_scenario_run(
        make_scenario_run([make_result("s", "smoke", "pass")], run_id="aaaa1111x", when=T0)
    )
    s2 = store.record_scenario_run(
        make_scenario_run(
            [make_result("s", "smoke", "pass", latency_ms=800.0)],  # another measurement
            run_id="bbbb2222y",
            when=T0 + timedelta(1),
        )
    )
    assert store.resolve(str(m)) == m
    assert store.resolve("latest") == s2
    assert store.resolve("latest~1") == s1
    assert store.resolve("latest", kind="memo") == m
    assert store.resolve("aaaa11") == s1
    for bad in ("999", "latest~9", "zzzzzzzz", "ab", "latest~x", "a%"):
        with pytest.raises(RunNotFoundError):
            store.resolve(bad)
    with pytest.raises(RunNotFoundError, match="not memo"):
        store.resolve(str(s1), kind="memo")


# --- schema, migrations, file problems ----------------------------------------------------

# The schema as pe-eval 0.1 shipped it (version 1), written out by hand so this test keeps
# checking the upgrade path even if the migration code changes.
V1_DDL = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('memo', 'scenarios')),
    created_at TEXT NOT NULL, recorded_at TEXT NOT NULL, portco_id TEXT, audience TEXT,
    memo_path TEXT, memo_sha256 TEXT, source_path TEXT, source_sha256 TEXT,
    grader_version TEXT, scenarios_path TEXT, scenarios_sha256 TEXT, target TEXT, model TEXT,
    citation_accuracy REAL, hallucination_rate REAL, coverage REAL, consistency REAL,
    n_total INTEGER, n_passed INTEGER, pass_rate REAL, tokens_in INTEGER, tokens_out INTEGER,
    cost_usd REAL, note TEXT, scores_json TEXT NOT NULL DEFAULT '{}');
CREATE INDEX runs_kind_created ON runs (kind, created_at);
CREATE TABLE memo_findings (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE, seq INTEGER NOT NULL,
    kind TEXT NOT NULL, opportunity_id TEXT, field TEXT, start INTEGER, "end" INTEGER,
    raw TEXT, message TEXT, nearest_value REAL, nearest_path TEXT, other_opportunity_id TEXT,
    PRIMARY KEY (run_id, seq));
CREATE TABLE scenario_results (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE, seq INTEGER NOT NULL,
    name TEXT NOT NULL, tier TEXT, platform TEXT, source_fact TEXT, status TEXT NOT NULL,
    latency_ms REAL, error TEXT, response TEXT, detail_json TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, seq));
INSERT INTO runs (uid, kind, created_at, recorded_at, portco_id, audience, citation_accuracy,
    hallucination_rate, coverage, consistency, scores_json)
    VALUES ('old-memo', 'memo', '2026-01-01T00:00:00.000000+00:00',
            '2026-01-01T00:00:01.000000+00:00', 'MortgageCo', 'board', 0.95, 0.0, 1.0, 1.0,
            '{"scores": {"citation_accuracy": 0.95}}');
INSERT INTO memo_findings (run_id, seq, kind, opportunity_id, raw, message)
    VALUES (1, 0, 'ungrounded_figure', 'opp_01', '$9.9M', 'no source value');
INSERT INTO runs (uid, kind, created_at, recorded_at, scenarios_path, target, n_total,
    n_passed, pass_rate) VALUES ('old-scen', 'scenarios', '2026-01-02T00:00:00.000000+00:00',
    '2026-01-02T00:00:01.000000+00:00', '/x/mimic-scenarios.json', 'recorded', 3, 1, 0.3333);
INSERT INTO scenario_results (run_id, seq, name, tier, status, error) VALUES
    (2, 0, 's1', 'smoke', 'pass', NULL), (2, 1, 's2', 'smoke', 'fail', NULL),
    (2, 2, 'f1', 'functional', 'error', 'HTTP 502');
PRAGMA user_version = 1;
"""


def test_opening_a_version_1_database_migrates_it_and_keeps_the_data(sqlite_db: Path) -> None:
    conn = sqlite3.connect(sqlite_db)
    conn.executescript(V1_DDL)
    conn.close()

    store = RunStore(sqlite_db)
    assert store.schema_version() == SCHEMA_VERSION == 4
    runs = store.list_runs()
    assert [r.uid for r in runs] == ["old-scen", "old-memo"]
    memo = store.get_run("old-memo")
    assert memo.summary.citation_accuracy == 0.95
    assert memo.summary.origin == "unknown"  # the column v2 added, with its default
    assert [(f.kind, f.raw) for f in memo.findings] == [("ungrounded_figure", "$9.9M")]
    assert memo.opportunities == []
    scen = store.get_run("old-scen")
    assert scen.summary.n_errors == 1  # backfilled from the v1 verdict rows
    assert [(t.tier, t.passed, t.total) for t in scen.tiers] == [
        ("functional", 0, 1),
        ("smoke", 1, 2),
    ]
    # the upgraded file takes new runs with the new detail
    rid = store.record_memo_evaluation(make_memo_evaluation())
    assert len(store.get_run(rid).opportunities) == 3
    with sqlite3.connect(sqlite_db) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "memo_opportunities" in tables


def test_a_database_from_a_newer_pe_eval_is_refused(sqlite_db: Path) -> None:
    with sqlite3.connect(sqlite_db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(HistorySchemaTooNewError, match="schema version 5"):
        RunStore(sqlite_db).list_runs()


def test_a_file_that_is_not_sqlite_gives_a_clear_error(sqlite_db: Path) -> None:
    sqlite_db.write_bytes(b"this is not a database, it is a memo\n" * 200)
    with pytest.raises(HistoryError) as info:
        RunStore(sqlite_db).list_runs()
    assert "is not a usable SQLite database: file is not a database" in info.value.message
    assert "or delete the file" in info.value.fix
    assert sqlite_db.read_bytes().startswith(b"this is not a database")  # left untouched


def test_default_location_follows_pe_eval_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PE_EVAL_HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / "history.sqlite"
    monkeypatch.delenv("PE_EVAL_HOME")
    monkeypatch.chdir(tmp_path)
    assert default_db_path() == tmp_path / ".pe_eval" / "history.sqlite"
    record_or_warn(make_memo_evaluation(), origin="cli")
    assert (tmp_path / ".pe_eval" / "history.sqlite").is_file()


def test_record_or_warn_never_fails_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    # the database would have to live inside a regular file: cannot be created
    assert record_or_warn(make_memo_evaluation(), origin="cli", db=blocker / "h.sqlite") is None
    assert "run not recorded in history" in capsys.readouterr().err
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    db = tmp_path / "h.sqlite"
    assert record_or_warn(make_memo_evaluation(), origin="cli", db=db) is None
    assert not db.exists()
    monkeypatch.delenv("PE_EVAL_NO_HISTORY")
    run = make_scenario_run([make_result("s", "smoke", "pass")])
    rid = record_or_warn(run, origin="cli", db=db)
    assert RunStore(db).get_run(rid).summary.kind == "scenarios"


# --- concurrency --------------------------------------------------------------------------

WRITES_PER_PROCESS = 40


def _writer(db: str, tag: str, start: multiprocessing.synchronize.Event) -> None:
    store = RunStore(db)
    start.wait(10)
    for i in range(WRITES_PER_PROCESS):
        if i % 2:
            store.record_memo_evaluation(
                make_memo_evaluation(
                    portco=f"P{tag}",
                    findings=[{"kind": "ungrounded_figure", "raw": f"${i}M"}],
                )
            )
        else:
            store.record_scenario_run(
                make_scenario_run(
                    # each run its own measurement (latency), so none is a duplicate
                    [
                        make_result(f"s{j}", "smoke", "pass", latency_ms=1000.0 * ord(tag) + i)
                        for j in range(5)
                    ],
                    run_id=f"{tag}-{i}",
                )
            )


def test_several_processes_writing_at_once_lose_nothing(db: str) -> None:
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_writer, args=(str(db), tag, start)) for tag in ("A", "B", "C", "D")
    ]
    for p in procs:
        p.start()
    start.set()  # both processes create/migrate the file and write concurrently
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    store = RunStore(db)
    total = 4 * WRITES_PER_PROCESS
    assert store.count_runs() == total
    assert store.count_runs(RunFilters(kind="scenarios")) == total // 2
    assert count_rows(db, "scenario_results") == total // 2 * 5
    assert count_rows(db, "memo_findings") == total // 2
    assert count_rows(db, "(SELECT DISTINCT uid FROM runs) AS u") == total
    assert all(r.n_passed == 5 for r in store.list_runs(RunFilters(kind="scenarios"), limit=999))


def test_a_record_built_in_memory_has_the_counts_the_store_computes(db: str) -> None:
    # The gate checks an unrecorded run from scenario_record(); its figures must be the ones
    # the SQL aggregates give once the same run is stored.
    from pe_eval_core.history.records import UNRECORDED_ID, scenario_record

    run = make_scenario_run(
        [
            make_result("a", "smoke", "pass"),
            make_result("b", "smoke", "fail"),
            make_result("c", "functional", "error", error="timeout"),
            make_result("d", "custom-tier", "judge error", error="no verdict"),
            make_result("e", "functional", "pass"),
        ],
        when=T0,
    )
    built = scenario_record(run, origin="gate")
    store = RunStore(db)
    stored = store.get_run(store.record(built))
    assert built.summary.id == UNRECORDED_ID and stored.summary.id == 1
    assert built.tiers == stored.tiers
    assert [t.tier for t in built.tiers] == ["custom-tier", "functional", "smoke"]
    for field in ("n_total", "n_passed", "n_errors", "pass_rate", "uid", "created_at"):
        assert getattr(built.summary, field) == getattr(stored.summary, field), field
    assert built.results == stored.results


def test_record_or_warn_takes_results_not_look_alikes(db: str) -> None:
    with pytest.raises(TypeError, match="not a MemoEvaluation, DocumentEvaluation or ScenarioRun"):
        record_or_warn({"results": []}, origin="cli", db=db)  # type: ignore[arg-type]
