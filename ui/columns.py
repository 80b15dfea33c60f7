"""Table columns for scores: numbers that sort as numbers and read as ``wording.fmt_pct``.

A score column holds ``wording.pct_points(score)`` (the score in points, rounded as
``fmt_pct`` rounds it) and prints it with ``%g%%``, so a table cell, a tile, a chart label and
the HTML scorecard write the same score the same way (``97.6%``, ``100%``).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from pe_eval_core.wording import DIMENSION_LABELS, LOWER_IS_BETTER, pct_points

SCORE_FORMAT = "%g%%"


def score_column(label: str, *, bar: bool = True, help: str | None = None) -> ColumnConfig:
    """A progress-bar (or plain number) column over 0..100 points, printed as ``fmt_pct``."""
    if bar:
        return st.column_config.ProgressColumn(
            label, min_value=0.0, max_value=100.0, format=SCORE_FORMAT, help=help
        )
    return st.column_config.NumberColumn(label, format=SCORE_FORMAT, help=help)


def dimension_columns() -> dict[str, ColumnConfig]:
    """The four dimensions' plain number columns, labelled, lower-is-better said (the memo
    and document tables of Portfolio)."""
    return {
        field: score_column(
            label,
            bar=False,
            help=label + (" (lower is better)" if field in LOWER_IS_BETTER else ""),
        )
        for field, label in DIMENSION_LABELS.items()
    }


def as_points(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """``frame`` with each of ``columns`` (0..1 scores) turned into ``pct_points``.

    >>> as_points(pd.DataFrame({"s": [0.97619, None, 1.0], "n": [1, 2, 3]}), ["s", "gone"])
           s  n
    0   97.6  1
    1    NaN  2
    2  100.0  3
    """
    frame = frame.copy()
    for column in columns:
        if column in frame:
            frame[column] = [
                None if v is None or v != v else pct_points(float(v)) for v in frame[column]
            ]
    return frame
