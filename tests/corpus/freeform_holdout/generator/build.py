"""Builds this corpus from its data (``sources``, ``memos_h1``, ``memos_h2``, ``mutations``)
with the shared engine, ``tests/corpus/generator/engine.py``: ``python3 build.py --write``."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "generator"))
import memos_h1, memos_h2  # noqa: E402
import mutations  # noqa: E402
from engine import run  # noqa: E402
from sources import SOURCES  # noqa: E402

run(SOURCES, {**memos_h1.M, **memos_h2.M}, mutations.CASES, mutations.NOTES, HERE.parent,
    write="--write" in sys.argv)
