"""Grade every memo pair of a folder: the folder indexed once, the pairs on a process pool.

``grade_folder(data_dir, jobs=N)`` returns one :class:`BatchItem` per pair, in the order of
``find_memo_pairs``, each holding the evaluation or the typed error grading raised. The
results equal serial grading's (``jobs=1``) field for field, save ``evaluated_at``: every
worker grades against the same :class:`FolderIndex`, read once in the parent before the pool
starts. ``jobs`` defaults to the machine's core count; a small folder is graded in process
(a pool costs more to start than it saves).

``grade_and_write`` is ``memo --all``'s whole job per pair, done in the workers: grade,
render and write the scorecard pair, take the verdict (and what the caller's ``keep`` takes:
the CLI's history rows). The parent gets plain data back (:class:`WrittenMemo`), never
rebuilding an evaluation, and a dead writer's
leftovers are removed once for the folder, not once per memo: per-memo CPU stays flat from
a hundred memos to ten thousand (``benchmarks/bench_batch.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pe_eval_core.errors import PeEvalError
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.folder_index import FolderIndex
from pe_eval_core.memo.pairs import MemoPair, find_memo_pairs
from pe_eval_core.memo.result import MemoEvaluation

if TYPE_CHECKING:
    from pe_eval_core.memo.verdict import VerdictThresholds

Keep = Callable[[MemoEvaluation], Any]
"""What a worker takes from each evaluation besides the verdict (``memo --all``: its history
rows); a module-level function or a ``functools.partial`` of one, so the pool can send it."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called in the calling process as pairs finish."""

MIN_PAIRS_PER_JOB = 8
"""Below this many pairs per worker, a pool's start-up outweighs its speed-up."""


@dataclass(frozen=True)
class BatchItem:
    """One pair and its outcome: an evaluation, or the typed error grading raised."""

    pair: MemoPair
    evaluation: MemoEvaluation | None = None
    error: PeEvalError | None = None


def default_jobs() -> int:
    """The number of cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _grade_one(pair: MemoPair, index: FolderIndex, config: GraderConfig | None) -> BatchItem:
    from pe_eval_core.memo.grader import grade_memo

    try:
        ev = grade_memo(pair.memo_path, pair.source_path, config=config, index=index)
    except PeEvalError as err:
        return BatchItem(pair=pair, error=err)
    return BatchItem(pair=pair, evaluation=ev)


_WORKER: tuple[FolderIndex, GraderConfig | None] | None = None


def _init_worker(index: FolderIndex, config: GraderConfig | None) -> None:
    global _WORKER
    _WORKER = (index, config)


def _work(pair: MemoPair) -> str | None:
    """Grade in a worker; an error comes back as None and is re-raised by a serial grade in
    the parent (typed errors carry constructor arguments that do not all survive pickling).

    The evaluation travels as its JSON (the parent validates it back, equal field for field):
    half the cost of pickling the model tree, paid in the parent for every memo."""
    assert _WORKER is not None
    item = _grade_one(pair, *_WORKER)
    return None if item.evaluation is None else item.evaluation.model_dump_json()


def grade_pairs(
    pairs: Sequence[MemoPair],
    index: FolderIndex,
    *,
    jobs: int | None = None,
    config: GraderConfig | None = None,
    progress: Progress | None = None,
) -> list[BatchItem]:
    """Grade ``pairs`` (all in ``index``'s folder) on ``jobs`` processes, in order."""
    total = len(pairs)
    jobs = default_jobs() if jobs is None else max(1, jobs)
    jobs = min(jobs, max(1, total // MIN_PAIRS_PER_JOB))
    index.load_all()
    out: list[BatchItem] = []
    if jobs <= 1:
        for i, pair in enumerate(pairs, 1):
            out.append(_grade_one(pair, index, config))
            if progress is not None:
                progress(i, total)
        return out
    chunk = max(1, total // (jobs * 8))
    with ProcessPoolExecutor(
        max_workers=jobs, initializer=_init_worker, initargs=(index, config)
    ) as pool:
        for i, (pair, ev) in enumerate(
            zip(pairs, pool.map(_work, pairs, chunksize=chunk), strict=True), 1
        ):
            if ev is None:
                out.append(_grade_one(pair, index, config))
            else:
                out.append(BatchItem(pair=pair, evaluation=MemoEvaluation.model_validate_json(ev)))
            if progress is not None:
                progress(i, total)
    return out


def grade_folder(
    data_dir: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    config: GraderConfig | None = None,
    progress: Progress | None = None,
) -> list[BatchItem]:
    """Every pair in ``data_dir`` graded (see the module docstring); raises only when the
    folder itself is missing (``InputNotFoundError``)."""
    pairs = find_memo_pairs(data_dir)
    index = FolderIndex.scan(Path(data_dir))
    return grade_pairs(pairs, index, jobs=jobs, config=config, progress=progress)


# --- grade and write: memo --all -------------------------------------------------------------


@dataclass(frozen=True)
class WrittenMemo:
    """One pair graded with its scorecard written, as plain data (what a worker sends back):
    ``error`` is the typed grading error, else every other field is set."""

    pair: MemoPair
    error: PeEvalError | None = None
    scores: dict[str, float] | None = None
    """The four scores (``Scores.model_dump()``)."""
    verdict: dict[str, Any] | None = None
    """The verdict under the run's thresholds (``VerdictSummary.model_dump()``)."""
    scorecard: Path | None = None
    kept: Any = None
    """What ``keep`` returned for the evaluation (None without one)."""


_WriterArgs = tuple[
    FolderIndex, GraderConfig | None, Path | None, "VerdictThresholds | None", Keep | None
]
_WRITER: _WriterArgs | None = None


def _init_writer(
    index: FolderIndex,
    config: GraderConfig | None,
    out_dir: Path | None,
    thresholds: VerdictThresholds | None,
    keep: Keep | None,
) -> None:
    global _WRITER
    _WRITER = (index, config, out_dir, thresholds, keep)


def _write_one(
    pair: MemoPair,
    index: FolderIndex,
    config: GraderConfig | None,
    out_dir: Path | None,
    thresholds: VerdictThresholds | None,
    keep: Keep | None,
) -> WrittenMemo:
    """Grade one pair and write its scorecard pair (leftovers already cleaned); a grading
    error is the item's, a write error is raised (it stops the run, as one memo's does)."""
    from pe_eval_core.memo.grader import grade_memo
    from pe_eval_core.memo.outputs import write_outputs
    from pe_eval_core.memo.verdict import memo_verdict

    try:
        ev = grade_memo(pair.memo_path, pair.source_path, config=config, index=index)
    except PeEvalError as err:
        return WrittenMemo(pair=pair, error=err)
    html_path, _ = write_outputs(ev, out_dir, thresholds, clean=False)
    summary = memo_verdict(ev, thresholds).summary(ev)
    return WrittenMemo(
        pair=pair,
        scores=ev.scores.model_dump(),
        verdict=summary.model_dump(),
        scorecard=html_path,
        kept=keep(ev) if keep is not None else None,
    )


def _write_work(pair: MemoPair) -> WrittenMemo | None:
    """``_write_one`` in a worker; an error comes back as None and the parent redoes the
    pair, so a typed error (whose constructor arguments may not survive pickling) or a
    write failure is raised there as in a serial run."""
    assert _WRITER is not None
    try:
        item = _write_one(pair, *_WRITER)
    except Exception:
        return None
    return None if item.error is not None else item


def grade_and_write(
    pairs: Sequence[MemoPair],
    index: FolderIndex,
    *,
    jobs: int | None = None,
    config: GraderConfig | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    thresholds: VerdictThresholds | None = None,
    keep: Keep | None = None,
) -> list[WrittenMemo]:
    """Grade ``pairs`` (all in ``index``'s folder) and write each scorecard pair, on ``jobs``
    processes, in order. Outputs go to ``out_dir`` (default: each memo's folder); ``keep``
    takes what else the caller needs from each evaluation, in the worker."""
    from pe_eval_core.files import remove_stale_temps

    total = len(pairs)
    jobs = default_jobs() if jobs is None else max(1, jobs)
    jobs = min(jobs, max(1, total // MIN_PAIRS_PER_JOB))
    out = Path(out_dir) if out_dir is not None else None
    index.load_all()
    for folder, names in _output_names(pairs, out).items():
        remove_stale_temps(folder, names)  # once per run and folder
    args = (index, config, out, thresholds, keep)
    if jobs <= 1:
        return [_write_one(pair, *args) for pair in pairs]
    chunk = max(1, total // (jobs * 8))
    done: list[WrittenMemo] = []
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_writer, initargs=args) as pool:
        for pair, item in zip(pairs, pool.map(_write_work, pairs, chunksize=chunk), strict=True):
            done.append(item if item is not None else _write_one(pair, *args))
    return done


def _output_names(pairs: Sequence[MemoPair], out_dir: Path | None) -> dict[Path, set[str]]:
    """The folders the pairs' scorecards go to, each with the file names written there (as
    ``outputs.output_stem`` names them: from each memo's file name)."""
    from pe_eval_core.memo.outputs import output_stem

    folders: dict[Path, set[str]] = {}
    for pair in pairs:
        folder = out_dir if out_dir is not None else pair.memo_path.parent
        try:
            folder = folder.resolve()
        except (OSError, RuntimeError):
            continue
        stem = output_stem(pair.memo_path)
        folders.setdefault(folder, set()).update({f"{stem}.html", f"{stem}.json"})
    return folders
