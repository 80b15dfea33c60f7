"""Every call from the dashboard into pe_eval_core, wrapped in st.cache_data.

Pages never load or score anything themselves: they call these functions. Cache keys carry a
fingerprint (name, size, mtime) of the files involved, so an edited file is re-read on the next
rerun even without the sidebar's reload button. Values returned are pickled copies (that is
how st.cache_data works), so callers may not mutate shared state through them.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from pe_eval_core.errors import InputNotFoundError, InvalidNameError, PeEvalError
from pe_eval_core.files import safe_name, shown_path
from pe_eval_core.memo.verdict import NOT_COUNTED, VerdictThresholds, memo_verdict
from pe_eval_core.wording import DIMENSIONS

if TYPE_CHECKING:
    from pe_eval_core.history.records import RunRecord
    from pe_eval_core.memo import MemoEvaluation
    from pe_eval_core.scenarios import Judge, Scenario, ScenarioRun, Target
    from pe_eval_core.scenarios.options import RunOptions
    from pe_eval_core.scenarios.run.costs import PaidCalls

Fingerprint = tuple[tuple[str, int, int], ...]

MEMO_PATTERNS = ("explain_*.json", "dx_report_*.json")


def file_fingerprint(path: Path) -> Fingerprint:
    """(name, size, mtime_ns) of one file, or empty when it is missing."""
    try:
        st_ = path.stat()
    except OSError:
        return ()
    return ((str(path), st_.st_size, st_.st_mtime_ns),)


def folder_fingerprint(folder: Path, patterns: tuple[str, ...] = MEMO_PATTERNS) -> Fingerprint:
    """(name, size, mtime_ns) of every memo and source file in ``folder``, sorted."""
    if not folder.is_dir():
        return ()
    found: list[tuple[str, int, int]] = []
    for pattern in patterns:
        for p in folder.glob(pattern):
            found.extend((shown_path(n), size, mtime) for n, size, mtime in file_fingerprint(p))
    return tuple(sorted(found))


def clear_caches() -> None:
    """Forget every cached load and score (the sidebar's reload button)."""
    st.cache_data.clear()
    _PORTFOLIOS.clear()


def record(result: MemoEvaluation | ScenarioRun) -> int | None:
    """Add a fresh evaluation or run to the history; a history problem never breaks the page.

    Returns the run's history id (its ``?run=ID`` link), None when it was not recorded."""
    from pe_eval_core.history.store import record_or_warn

    return record_or_warn(result, origin="dashboard")


def upload_limit_mb() -> int:
    """The uploaders' limit in MB: the core's input size limit (``limits.INPUT_BYTES``,
    ``PE_EVAL_MAX_INPUT_BYTES``), never Streamlit's own 200MB default."""
    from pe_eval_core import limits

    return max(1, -(-limits.INPUT_BYTES.value() // (1024 * 1024)))


def upload_help() -> str:
    """What the uploaders accept, with the limit and the variable that changes it."""
    from pe_eval_core import limits

    return (
        f"Up to {upload_limit_mb()} MB per file: pe-eval's input size limit "
        f"({limits.INPUT_BYTES.env}; the server's cap is server.maxUploadSize in "
        ".streamlit/config.toml)."
    )


def require_folder(folder: Path) -> None:
    """Raise a clear error when the data folder does not exist."""
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise InputNotFoundError(
            f"Data folder {folder} {what}",
            diagnosis="The data folder in the sidebar is not a folder",
            fix="Point the sidebar's data folder at the folder holding explain_*.json and "
            "dx_report_*.json (the demo data is in finance_output).",
        )


# --- memos ----------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=32)
def _memo_pairs(
    data_dir: str, fingerprint: Fingerprint
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    from pe_eval_core.memo.pairs import scan_memo_pairs

    pairs, skipped = scan_memo_pairs(data_dir)
    rows = [
        {
            "portco_id": p.portco_id,
            "audience": p.audience,
            "memo_path": str(p.memo_path),
            "source_path": str(p.source_path),
        }
        for p in pairs
    ]
    return rows, [{"file": shown_path(s.path.name), "reason": s.reason} for s in skipped]


def memo_pairs(folder: Path) -> list[dict[str, str]]:
    """Every (portco, audience, memo, source) pair in the data folder, as plain dicts."""
    require_folder(folder)
    return _memo_pairs(str(folder), folder_fingerprint(folder))[0]


def skipped_memos(folder: Path) -> list[dict[str, str]]:
    """The memo-like files of the data folder that cannot be listed (``file``, ``reason``)."""
    require_folder(folder)
    return _memo_pairs(str(folder), folder_fingerprint(folder))[1]


Graded = tuple["MemoEvaluation", int | None]
"""A grading and its history run id (None: not recorded)."""


def record_many(evaluations: list[MemoEvaluation]) -> list[int] | None:
    """Add a page's fresh gradings to the history in one transaction (a grading the store
    already holds keeps its run id, nothing is added); a history problem never breaks the
    page."""
    from pe_eval_core.history.store import record_many_or_warn

    return record_many_or_warn(evaluations, origin="dashboard")


def _recorded(evaluation: MemoEvaluation) -> Graded:
    ids = record_many([evaluation])
    return evaluation, ids[0] if ids else None


@st.cache_data(show_spinner="Grading memo…", max_entries=256)
def _grade(memo_path: str, source_path: str, fingerprint: Fingerprint) -> Graded:
    from pe_eval_core.memo import grade_memo

    return _recorded(grade_memo(memo_path, source_path))


def grade_pair(pair: dict[str, str]) -> Graded:
    """Grade one pair and record it (its run id alongside); cached on the whole folder's
    fingerprint (siblings affect consistency)."""
    memo = Path(pair["memo_path"])
    fp = (
        folder_fingerprint(memo.parent)
        + file_fingerprint(memo)
        + file_fingerprint(Path(pair["source_path"]))
    )
    return _grade(pair["memo_path"], pair["source_path"], fp)


def _renamed(err: PeEvalError, scratch: str, shown: str) -> PeEvalError:
    """Name the upload in an error instead of the scratch path it was parsed from."""
    err.message = err.message.replace(scratch, shown)
    err.args = (err.message,)
    return err


def _as_uploaded(ev: MemoEvaluation, folder: str) -> MemoEvaluation:
    """The evaluation of an upload with its memo and source named ``uploads/<folder>/<file>``
    instead of the scratch paths they were graded from: what the history stores and groups
    trends by, the same every time the same files are uploaded (so a re-upload of the same
    grading adds no run), and never a server path."""
    base = Path("uploads", folder) if folder else Path("uploads")
    return ev.model_copy(
        update={
            "memo_path": str(base / Path(ev.memo_path).name),
            "source_path": str(base / Path(ev.source_path).name),
        }
    )


MAX_UPLOAD_NAME = 120
"""Longest upload file name kept (bytes): past it the scratch file takes the fallback name
(no file system takes a name over 255 bytes)."""


def _upload_name(name: str, fallback: str) -> str:
    try:
        kept = safe_name(Path(name).name, "file name")
    except (InvalidNameError, ValueError):
        return fallback
    return kept if len(kept.encode()) <= MAX_UPLOAD_NAME else fallback


@st.cache_data(show_spinner="Grading uploaded memo…", max_entries=16)
def grade_upload(
    memo_bytes: bytes,
    memo_name: str,
    source_bytes: bytes,
    source_name: str,
    siblings: tuple[tuple[str, bytes], ...] = (),
) -> Graded:
    """Grade an uploaded memo against an uploaded source, via a scratch folder removed after.

    ``siblings``: other uploaded memos (name, bytes), put beside the memo so the grader's
    consistency check compares its headline with theirs, exactly as in a data folder. Without
    them the memo sits alone: consistency is checked against its own source's headline only.
    """
    from pe_eval_core.memo import grade_memo

    with tempfile.TemporaryDirectory(prefix="pe-eval-upload-") as tmp:
        memo = Path(tmp, "memo", _upload_name(memo_name, "explain_upload.json"))
        source = Path(tmp, "source", _upload_name(source_name, "dx_report_upload.json"))
        memo.parent.mkdir()
        source.parent.mkdir()
        memo.write_bytes(memo_bytes)
        source.write_bytes(source_bytes)
        for i, (name, raw) in enumerate(siblings):
            other = memo.parent / _upload_name(name, f"explain_sibling{i}.json")
            if other != memo and other.name.startswith("explain_"):
                other.write_bytes(raw)
        try:
            evaluation = grade_memo(memo, source)
        except PeEvalError as err:
            err = _renamed(err, str(memo), f"uploaded memo {memo_name}")
            raise _renamed(err, str(source), f"uploaded source {source_name}") from None
    return _recorded(_as_uploaded(evaluation, ""))


@st.cache_data(show_spinner="Grading the uploaded folder…", max_entries=8)
def grade_zip_upload(raw: bytes, zip_name: str) -> dict[str, Any]:
    """Grade every memo pair in an uploaded zip of a folder, each with its siblings (the
    folder's other memos of the portco), exactly as in a data folder; record them in one
    transaction. Returns ``graded`` (evaluation, run id) per pair, ``errors`` (portco,
    audience, message) for pairs that could not be graded and ``skipped`` (file, reason).

    The zip is unpacked (``pe_eval_core.memo.archive.extract_zip``: its hostile-archive
    guards) into a scratch folder named after it, removed after; messages name the upload, not
    the scratch path."""
    from pe_eval_core.memo.archive import extract_zip
    from pe_eval_core.memo.batch import grade_pairs
    from pe_eval_core.memo.folder_index import FolderIndex
    from pe_eval_core.memo.pairs import scan_memo_pairs

    stem = _upload_name(Path(zip_name).stem, "upload")
    with tempfile.TemporaryDirectory(prefix="pe-eval-zip-") as tmp:
        folder = Path(tmp, stem)  # the history's trend series: <zip name>/explain_X_Y.json
        folder.mkdir()
        skipped = extract_zip(raw, zip_name, folder)
        pairs, unusable = scan_memo_pairs(folder)
        items = grade_pairs(pairs, FolderIndex.scan(folder))
    shown = f"uploaded zip {zip_name}"
    graded = [_as_uploaded(i.evaluation, stem) for i in items if i.evaluation is not None]
    recorded = record_many(graded)
    ids: list[int | None] = list(recorded) if recorded else [None] * len(graded)
    errors = [
        {
            "portco": i.pair.portco_id,
            "audience": i.pair.audience,
            "error": _renamed(i.error, str(folder), shown).message
            + f" ({i.error.diagnosis}). Fix: {i.error.fix}",
        }
        for i in items
        if i.error is not None
    ]
    skipped += [{"file": shown_path(u.path.name), "reason": u.reason} for u in unusable]
    return {"graded": list(zip(graded, ids, strict=True)), "errors": errors, "skipped": skipped}


PortfolioKey = tuple[str, str, tuple[str, ...]]
"""(folder, folder digest, the verdict's thresholds in words)."""
_PORTFOLIOS: dict[PortfolioKey, tuple[list[dict[str, Any]], list[dict[str, str]]]] = {}
"""Portfolio (rows, skipped files) by :data:`PortfolioKey`: a plain cache, because
st.cache_data cannot replay the progress bar drawn while grading; ``clear_caches`` empties it."""
_PORTFOLIOS_KEPT = 16


def _portfolio(
    data_dir: str, progress: Any = None, thresholds: VerdictThresholds | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Every usable pair graded on the core count's processes (its verdict under
    ``thresholds``), recorded in one transaction; and the memo-like files skipped, each with
    its reason."""
    from pe_eval_core.memo.batch import grade_pairs
    from pe_eval_core.memo.folder_index import FolderIndex
    from pe_eval_core.memo.pairs import scan_memo_pairs

    pairs, skipped = scan_memo_pairs(data_dir)
    items = grade_pairs(pairs, FolderIndex.scan(Path(data_dir)), progress=progress)
    rows: list[dict[str, Any]] = []
    graded: list[MemoEvaluation] = []
    for item in items:
        pair = item.pair
        row: dict[str, Any] = {"portco": pair.portco_id, "audience": pair.audience}
        if item.error is not None:
            err = item.error
            row["error"] = f"{err.message} ({err.diagnosis}). Fix: {err.fix}"
            rows.append(row)
            continue
        assert item.evaluation is not None
        graded.append(item.evaluation)
        row.update(evaluation_summary(item.evaluation, thresholds))
        rows.append(row)
    record_many(graded)
    return rows, [{"file": shown_path(s.path.name), "reason": s.reason} for s in skipped]


def portfolio_and_skipped(
    folder: Path, thresholds: VerdictThresholds | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """One summary row per memo pair in the folder with its verdict under ``thresholds``
    (errors become rows with ``error``) and the files skipped (``file``, ``reason``); a
    progress bar while a cold folder grades (other thresholds re-use the grading cache)."""
    from pe_eval_core.memo.folder_index import FolderIndex

    require_folder(folder)
    bounds = tuple((thresholds or VerdictThresholds()).describe())
    key = (str(folder), FolderIndex.scan(folder).digest(), bounds)
    cached = _PORTFOLIOS.get(key)
    if cached is None:
        bar = st.empty()

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Scoring memo {done} of {total}…")

        cached = _portfolio(key[0], progress, thresholds)
        bar.empty()
        while len(_PORTFOLIOS) >= _PORTFOLIOS_KEPT:
            _PORTFOLIOS.pop(next(iter(_PORTFOLIOS)))
        _PORTFOLIOS[key] = cached
    return copy.deepcopy(cached)  # callers may not mutate the cached rows


def portfolio(folder: Path) -> list[dict[str, Any]]:
    """One summary row per memo pair in the folder (see :func:`portfolio_and_skipped`)."""
    return portfolio_and_skipped(folder)[0]


def evaluation_summary(
    ev: MemoEvaluation, thresholds: VerdictThresholds | None = None
) -> dict[str, Any]:
    """The flat numbers a table or heatmap shows for one evaluation and its verdict (the one
    ``memo_verdict``, under ``thresholds``); no grading here."""
    s, t = ev.scores, ev.totals
    from pe_eval_core.memo import lowest_dimension

    dim, sentence = lowest_dimension(ev)
    verdict = memo_verdict(ev, thresholds)
    return {
        "verdict": verdict.headline,
        "ready": verdict.ready,
        "issues": len(verdict.issues),
        **{d: getattr(s, d) for d in DIMENSIONS},
        "figures": f"{t.figures_cited}/{t.figures_total}",
        "entities": f"{t.entities_grounded}/{t.entities_total}",
        "opportunities": f"{t.opps_addressed}/{t.opps_in_source}",
        "findings": sum(1 for f in ev.findings if f.kind not in NOT_COUNTED),
        "lowest_dimension": dim,
        "biggest_finding": sentence,
        "error": "",
        **{f"{d}_context": ev.score_context(d) for d in DIMENSIONS},
    }


# --- scenarios ------------------------------------------------------------------------------


@st.cache_data(show_spinner="Loading scenarios…", max_entries=16)
def _scenarios(path: str, fingerprint: Fingerprint) -> list[Scenario]:
    from pe_eval_core.scenarios import load_scenarios

    return load_scenarios(path)


@st.cache_data(show_spinner=False, max_entries=16)
def _sha256(path: str, fingerprint: Fingerprint) -> str | None:
    from pe_eval_core.files import sha256_file

    return sha256_file(path) if fingerprint else None


def file_sha256(path: Path) -> str | None:
    """sha256 of a file (cached on its fingerprint), None when it is missing."""
    return _sha256(str(path), file_fingerprint(path))


def scenarios(path: Path) -> list[Scenario]:
    """The scenarios in a file (cached on its fingerprint)."""
    return _scenarios(str(path), file_fingerprint(path))


def _summary(loaded: list[Scenario]) -> dict[str, Any]:
    tiers: dict[str, int] = {}
    for s in loaded:
        tiers[s.tier] = tiers.get(s.tier, 0) + 1
    return {"count": len(loaded), "tiers": tiers}


@st.cache_data(show_spinner=False, max_entries=16)
def _scenarios_summary(path: str, fingerprint: Fingerprint) -> dict[str, Any]:
    return _summary(_scenarios(path, fingerprint))


def scenarios_summary(path: Path) -> dict[str, Any]:
    """``{count, tiers}`` of a scenarios file; validates it (errors surface here, early)."""
    return _scenarios_summary(str(path), file_fingerprint(path))


@st.cache_data(show_spinner=False, max_entries=8)
def scenarios_upload_summary(raw: bytes, name: str) -> dict[str, Any]:
    """``{count, tiers}`` of uploaded scenarios (validated through the core loader)."""
    return _summary(scenarios_upload(raw, name))


@st.cache_data(show_spinner=False, max_entries=16)
def _recorded_count(path: str, fingerprint: Fingerprint) -> int:
    from pe_eval_core.scenarios import load_recorded

    return len(load_recorded(path))


def recorded_count(path: Path) -> int:
    """How many responses a recorded file holds; validates it (errors surface early)."""
    return _recorded_count(str(path), file_fingerprint(path))


@st.cache_data(show_spinner="Loading uploaded scenarios…", max_entries=8)
def scenarios_upload(raw: bytes, name: str) -> list[Scenario]:
    """Scenarios from an uploaded file, parsed through the core loader via a scratch file."""
    from pe_eval_core.scenarios import load_scenarios

    with tempfile.TemporaryDirectory(prefix="pe-eval-upload-") as tmp:
        path = Path(tmp, _upload_name(name, "scenarios.json"))
        path.write_bytes(raw)
        try:
            return load_scenarios(path)
        except PeEvalError as err:
            raise _renamed(err, str(path), f"uploaded {name}") from None


def paid_calls(
    scenarios: list[Scenario], target: Target, judge: Judge | None, options: RunOptions
) -> PaidCalls:
    """The cost guard's count of the paid calls a run would make (the core's own count, the
    one the runner checks, so the page and the runner cannot disagree)."""
    from pe_eval_core.scenarios.run.runner import count_paid_calls_sync

    return count_paid_calls_sync(scenarios, target, judge, options=options)


def scenario_verdict(history_id: int) -> dict[str, Any] | None:
    """The scenario verdict of recorded run ``history_id`` (``history.compare.scenario_verdict``)
    against the baseline ``history.baseline.automatic_baseline`` chooses: the pinned baseline
    when it was made with the same setup, else the previous run with the same setup.

    Returns ``{sentence, baseline, how, regressions, regressed, significance, skipped}``
    (``regressed``: the regressed scenarios' names; ``significance``: the paired test's
    sentence; ``skipped``: why the pinned baseline was not used); None when the history holds
    nothing comparable and nothing was skipped (or cannot be read: a history problem never
    breaks the page). The comparison
    itself is cached per pair of runs (recorded runs do not change).
    """
    import sqlite3

    from pe_eval_core.history.baseline import automatic_baseline
    from pe_eval_core.history.records import RunFilters
    from pe_eval_core.history.store import RunStore

    try:
        store = RunStore()
        latest = next(iter(store.list_runs(RunFilters(kind="scenarios"), limit=1)), None)
        summary = (
            latest
            if latest is not None and latest.id == history_id
            else store.get_run(history_id).summary
        )
        choice = automatic_baseline(store, summary)
        if choice.run_id is None:
            if choice.skipped is None:
                return None
            return {"sentence": None, "baseline": None, "how": choice.how, "regressions": 0,
                    "regressed": [], "significance": None, "skipped": choice.skipped}  # fmt: skip
        db = store.url.render_as_string(hide_password=False)
        sentence, regressions = _verdict(db, choice.run_id, history_id, summary.uid)
        regressed, significance = _verdict_detail(db, choice.run_id, history_id, summary.uid)
    except (PeEvalError, OSError, sqlite3.Error):
        return None
    return {
        "sentence": sentence,
        "baseline": choice.run_id,
        "how": choice.how,
        "regressions": regressions,
        "regressed": regressed,
        "significance": significance,
        "skipped": choice.skipped,
    }


@st.cache_data(show_spinner=False, max_entries=64)
def _verdict_detail(
    db_url: str, base_id: int, run_id: int, run_uid: str
) -> tuple[list[str], str | None]:
    """The regressed scenarios' names, and the paired test's sentence
    (``compare.significance_sentence``, as ``history compare`` prints it) when scenarios got
    better and none worse (with a regression the verdict sentence carries the test already)."""
    from pe_eval_core.history.compare import compare_scenario_records, significance_sentence
    from pe_eval_core.history.store import RunStore

    store = RunStore(db_url)
    cmp = compare_scenario_records(store.get_run(base_id), store.get_run(run_id))
    paired = cmp.paired
    better = paired is not None and paired.improvements > 0 and not cmp.regressions
    test = significance_sentence(paired) if better and paired is not None else None
    return [c.name for c in cmp.regressions], test


@st.cache_data(show_spinner=False, max_entries=64)
def _verdict(db_url: str, base_id: int, run_id: int, run_uid: str) -> tuple[str, int]:
    """The comparison's sentence and regression count (``run_uid``: an id reused after a
    deletion is another run, another cache entry)."""
    from pe_eval_core.history.compare import compare_scenario_records
    from pe_eval_core.history.compare import scenario_verdict as verdict_line
    from pe_eval_core.history.store import RunStore

    store = RunStore(db_url)
    cmp = compare_scenario_records(store.get_run(base_id), store.get_run(run_id))
    return verdict_line(cmp), len(cmp.regressions)


# --- a recorded scenario run, reopened (the scenario page's first screen) ---------------------


def recorded_scenario_run(ref: str | None = None) -> dict[str, Any] | None:
    """A recorded scenario run as the scenario page shows it: ``{id, run_json, view, source}``.

    ``ref``: any run reference (``12``, ``latest``, a uid); None: the latest recorded scenario
    run, infrastructure errors included (the page shows what happened last). None when the
    history holds none. A reference that names no scenario run raises the history's error.
    Finding the run is one small query; rebuilding it is cached per run (records never
    change; the uid tells a reused id apart).
    """
    from pe_eval_core.history.records import RunFilters
    from pe_eval_core.history.store import RunStore

    store = RunStore()
    if not store.exists():
        if ref is None:
            return None
        store.resolve(ref, "scenarios")  # raises: nothing recorded
    db = store.url.render_as_string(hide_password=False)
    if ref is None:
        latest = store.list_runs(RunFilters(kind="scenarios"), limit=1)
        if not latest:
            return None
        return _rebuilt_run(db, latest[0].id, latest[0].uid)
    record = store.get_run(store.resolve(ref, "scenarios"))
    return _rebuilt_run(db, record.summary.id, record.summary.uid, record)


@st.cache_data(show_spinner="Opening the run…", max_entries=32)
def _rebuilt_run(
    db_url: str, run_id: int, run_uid: str, _record: RunRecord | None = None
) -> dict[str, Any]:
    """The run rebuilt from its record and the page's view of it (cached per run)."""
    from pe_eval_core.history.rebuild import scenario_run_from_record
    from pe_eval_core.history.store import RunStore
    from ui.views.scenario_results import build_view

    record = _record if _record is not None else RunStore(db_url).get_run(run_id)
    run = scenario_run_from_record(record)
    run_json = run.model_dump_json()
    view = build_view(run, run_json)
    view["judge"] = view["judge"] or "not recorded"
    return {
        "id": run_id,
        "run_json": run_json,
        "view": view,
        "source": Path(record.summary.scenarios_path or "?").name,
    }
