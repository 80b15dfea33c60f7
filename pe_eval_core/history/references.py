"""Run references: ``12``, ``latest``, ``latest~1`` or a uid (prefix), parsed then resolved."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Connection, select

from pe_eval_core.db import schema as sch
from pe_eval_core.errors import RunNotFoundError, RunReferenceError

_REF_ID = re.compile(r"[0-9]{1,18}", re.ASCII)
_REF_LATEST = re.compile(r"latest(?:~([0-9]{1,9}))?", re.ASCII)
_REF_UID = re.compile(r"[A-Za-z0-9][\w.:+-]{5,199}", re.ASCII)


def parse_run_reference(ref: object) -> tuple[str, int | str]:
    """A run reference as ``("id", N)``, ``("latest", back)`` or ``("uid", text)``; anything
    else (``abc``, ``1e3``, ``-1``, ``²``, an id of 19+ digits) raises RunReferenceError.

    >>> parse_run_reference("12"), parse_run_reference("latest~2"), parse_run_reference(7)
    (('id', 12), ('latest', 2), ('id', 7))
    >>> parse_run_reference("1e3")
    Traceback (most recent call last):
    ...
    pe_eval_core.errors.RunReferenceError: bad run reference '1e3' (That is not a run ...
    """
    if isinstance(ref, bool) or not isinstance(ref, int | str):
        raise RunReferenceError(f"bad run reference {ref!r}")
    if isinstance(ref, int):
        if ref < 1:
            raise RunReferenceError(f"bad run reference {ref!r}: run ids start at 1")
        return ("id", ref)
    text = ref.strip()
    if _REF_ID.fullmatch(text):
        if int(text) < 1:
            raise RunReferenceError(f"bad run reference {text!r}: run ids start at 1")
        return ("id", int(text))
    if text.isascii() and text.isdigit():
        raise RunReferenceError(f"bad run reference {text[:30]!r}: no run id is that large")
    latest = _REF_LATEST.fullmatch(text)
    if latest:
        return ("latest", int(latest.group(1) or 0))
    if text.startswith("latest"):
        raise RunReferenceError(f"bad run reference {text!r} (use latest~N)")
    if _REF_UID.fullmatch(text):
        return ("uid", text)
    raise RunReferenceError(f"bad run reference {text[:60]!r}")


def find_run(conn: Connection, parsed: tuple[str, int | str], kind: str | None) -> Any:
    """The (id, kind) row a parsed reference names, or None. ``latest`` / ``latest~N`` skip
    infrastructure-error runs when ``kind`` is given; a uid prefix naming two runs raises
    :class:`~pe_eval_core.errors.RunNotFoundError`."""
    r = sch.runs
    how, value = parsed
    if how == "id":
        return conn.execute(select(r.c.id, r.c.kind).where(r.c.id == value)).first()
    if how == "latest":
        query = select(r.c.id, r.c.kind)
        if kind:
            query = query.where(r.c.kind == kind, r.c.infra_error == 0)
        query = query.order_by(r.c.id.desc())  # recording order, not run time
        return conn.execute(query.limit(1).offset(int(value))).first()
    text = str(value)
    row = conn.execute(select(r.c.id, r.c.kind).where(r.c.uid == text)).first()
    if row is not None:
        return row
    pattern = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        select(r.c.id, r.c.kind).where(r.c.uid.like(pattern + "%", escape="\\")).limit(2)
    ).all()
    if len(rows) > 1:
        raise RunNotFoundError(f"run reference {text!r} is ambiguous")
    return rows[0] if rows else None
