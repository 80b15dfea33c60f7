"""Grade every memo pair of a folder: the folder indexed once, the pairs on a process pool.

``grade_folder(data_dir, jobs=N)`` returns one :class:`BatchItem` per pair, in the order of
``find_memo_pairs``, each holding the evaluation or the typed error grading raised. The
results equal serial grading's (``jobs=1``) field for field, save ``evaluated_at``: every
worker grades against the same :class:`FolderIndex`, read once in the parent before the pool
starts. ``jobs`` defaults to the machine's core count; a small folder is graded in process
(a pool costs more to start than it saves).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pe_eval_core.errors import PeEvalError
from pe_eval_core.memo.config import GraderConfig
from pe_eval_core.memo.folder_index import FolderIndex
from pe_eval_core.memo.pairs import MemoPair, find_memo_pairs
from pe_eval_core.memo.result import MemoEvaluation

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
