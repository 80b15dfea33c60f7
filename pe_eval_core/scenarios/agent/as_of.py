"""The analysis date a live agent is given: "last week" must not depend on the model's clock.

A skill that asks for "the latest complete week" needs today's date, and the data of a Mimic
persona is frozen at one: the growth-stage-leak persona is analysed on 2026-04-29, so "9 days
ago" and "last week" only have one answer on that date. The date comes, first match wins,
from:

1. the run's ``--as-of YYYY-MM-DD`` (the dashboard's field);
2. the Mimic project's ``mimic.json``: a persona's ``as_of`` (Mimic ignores keys it does not
   know). That file is the scenarios file itself when it is a ``mimic.json``, else the one in
   the folder holding the ``.mimic/`` folder the scenarios file sits in, else that folder's
   bundled stack (``mimic_stack/mimic.json``, what ``scripts/mimic_stack.py`` serves).
   Personas with different dates need ``--as-of``.

The agent is told ``Analysis date: YYYY-MM-DD`` after the skill, and the run records the date
and where it came from (``ScenarioRun.as_of``, ``as_of_source``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pe_eval_core.errors import TargetConfigError

MIMIC_CONFIG = "mimic.json"
BUNDLED_PROJECT = "mimic_stack"
"""The stack ``scripts/mimic_stack.py`` serves, beside the exported scenarios' ``.mimic/``."""


@dataclass(frozen=True, slots=True)
class AsOf:
    """An analysis date and where it came from (``--as-of`` or a ``mimic.json`` path)."""

    date: date
    source: str

    @property
    def iso(self) -> str:
        return self.date.isoformat()

    def prompt_line(self) -> str:
        """The line the agent reads after its skill.

        >>> AsOf(date(2026, 4, 29), "--as-of").prompt_line()
        'Analysis date: 2026-04-29 (a Wednesday). Treat it as today.'
        """
        return f"Analysis date: {self.iso} (a {self.date:%A}). Treat it as today."


def parse_as_of(value: str | date, *, source: str = "--as-of") -> AsOf:
    """A ``YYYY-MM-DD`` date; anything else is a ``TargetConfigError`` naming the input.

    >>> parse_as_of("2026-04-29").iso
    '2026-04-29'
    >>> parse_as_of("29/04/2026")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.TargetConfigError: analysis date '29/04/2026' is not a YYYY-MM-DD date...
    """
    if isinstance(value, date):
        return AsOf(value, source)
    text = str(value).strip()
    try:
        if len(text) != 10:
            raise ValueError(text)
        parsed = date.fromisoformat(text)
    except ValueError:
        raise TargetConfigError(
            f"analysis date {value!r} is not a YYYY-MM-DD date (from {source})",
            diagnosis="The analysis date must be a calendar date like 2026-04-29",
            fix="Give the date the data is analysed on, as YYYY-MM-DD.",
            input="as_of",
        ) from None
    return AsOf(parsed, source)


def find_mimic_config(scenarios_path: str | os.PathLike[str] | None) -> Path | None:
    """The ``mimic.json`` of the Mimic project the scenarios belong to, or None."""
    candidates: list[Path] = []
    if scenarios_path is not None:
        path = Path(scenarios_path)
        if path.name == MIMIC_CONFIG:
            candidates.append(path)
        for parent in path.resolve().parents:
            if parent.name == ".mimic":
                root = parent.parent
                candidates += [root / MIMIC_CONFIG, root / BUNDLED_PROJECT / MIMIC_CONFIG]
                break
    return next((c for c in candidates if c.is_file()), None)


def as_of_from_config(path: str | os.PathLike[str]) -> AsOf | None:
    """The ``as_of`` its personas agree on; None when none has one (or the file is not a
    readable Mimic config: Mimic reports that itself); several dates need ``--as-of``."""
    try:
        config = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    personas = config.get("personas") if isinstance(config, dict) else None
    dates = {
        str(p["as_of"]): str(p.get("name") or "?")
        for p in personas or []
        if isinstance(p, dict) and p.get("as_of")
    }
    if not dates:
        return None
    if len(dates) > 1:
        raise TargetConfigError(
            f"{path}: personas have different analysis dates ({', '.join(sorted(dates))})",
            diagnosis="A run gives the agent one analysis date",
            fix="Name the date to analyse on, or run one persona's scenarios at a time.",
            input="as_of",
        )
    ((value, persona),) = dates.items()
    return parse_as_of(value, source=f"{path} (persona {persona})")


def resolve_as_of(
    explicit: str | date | None, scenarios_path: str | os.PathLike[str] | None
) -> AsOf | None:
    """The run's analysis date: ``explicit`` (``--as-of``), else the Mimic project's."""
    if explicit:
        return parse_as_of(explicit)
    config = find_mimic_config(scenarios_path)
    return as_of_from_config(config) if config is not None else None
