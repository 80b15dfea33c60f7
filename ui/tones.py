"""Verdict colours on the page: the core's tone (:mod:`pe_eval_core.tone`, the one rule from a
verdict to its colour) drawn as Streamlit boxes, keyed so a test reads the tone it was given."""

from __future__ import annotations

from typing import Any

import streamlit as st

from pe_eval_core.tone import Tone

BOX = {Tone.GOOD: "success", Tone.WATCH: "warning", Tone.BAD: "error", Tone.NEUTRAL: "info"}
"""The Streamlit box of each tone (green, amber, red, blue)."""


def banner(tone: Tone, body: str, *, key: str, icon: str | None = None, where: Any = None) -> None:
    """``body`` (markdown) in the box of ``tone``, inside a container keyed ``<key>-<tone>``
    (``st-key-<key>-fail`` in the page: what the browser tests read)."""
    box = (where or st).container(key=f"{key}-{tone.value}")
    getattr(box, BOX[tone])(body, icon=icon)
