"""Content-addressed blobs: responses and verdict detail stored once, compressed.

A scenario's response is stored once whatever the number of runs that got the same text
(keyed by its sha256). Many small responses of one run are compressed against one preset
dictionary sampled from them (stored as a blob of its own); a run's verdict detail (one large,
repetitive JSON) with LZMA, whose window spans the whole run.
"""

from __future__ import annotations

import hashlib
import lzma
import zlib
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import Connection, delete, func, select

from pe_eval_core.db import schema as sch
from pe_eval_core.db.engine import insert_ignore

ZLIB_LEVEL = 6
CHUNK = 500
"""Parameters per ``IN (...)`` lookup, well under every driver's limit."""
ZDICT = "zd:"
"""Codec prefix of a blob compressed against a preset dictionary; the first
:data:`DICT_REF` hex digits of the dictionary's sha256 follow (a handful of dictionaries
per database, so the prefix is unique; it keeps each small blob's row small)."""
DICT_REF = 16
DICTIONARY_BYTES = 8192
"""Preset dictionary size: most of the gain of a 32 KB one at a third of its cost."""
MIN_SHARED = 16
"""Fewer new responses than this are compressed on their own."""


def _dictionary(texts: list[bytes]) -> bytes | None:
    """A preset dictionary sampled evenly from ``texts`` (zlib favours its end), or None."""
    if len(texts) < MIN_SHARED:
        return None
    step = max(1, len(texts) // 64)
    sample = b"".join(texts[::step])
    return sample[-DICTIONARY_BYTES:] if len(sample) >= 1024 else None


def _packed_rows(pending: dict[str, bytes], whole: bool, zdict: bytes | None) -> list[dict]:
    """The blob rows for ``pending``: LZMA for a ``whole`` blob, else zlib, against
    ``zdict`` when there is one (the dictionary's own row first)."""
    rows: list[dict[str, Any]] = []
    if whole:
        for sha, data in pending.items():
            packed = lzma.compress(data, preset=0)
            rows.append({"sha256": sha, "size": len(data), "codec": "xz", "data": packed})
    elif zdict is None:
        for sha, data in pending.items():
            packed = zlib.compress(data, ZLIB_LEVEL)
            rows.append({"sha256": sha, "size": len(data), "codec": "zlib", "data": packed})
    else:
        dict_sha = hashlib.sha256(zdict).hexdigest()
        rows.append({"sha256": dict_sha, "size": len(zdict), "codec": "dict", "data": zdict})
        codec = f"{ZDICT}{dict_sha[:DICT_REF]}"
        for sha, data in pending.items():
            packer = zlib.compressobj(ZLIB_LEVEL, zdict=zdict)
            packed = packer.compress(data) + packer.flush()
            rows.append({"sha256": sha, "size": len(data), "codec": codec, "data": packed})
    return rows


def put_blobs(
    conn: Connection,
    pending: dict[str, bytes],
    *,
    shared_dictionary: bool = False,
    whole: bool = False,
) -> None:
    """Store the blobs not stored yet (compressing only those). With
    ``shared_dictionary``, many small texts (one run's responses) are compressed against
    one preset dictionary sampled from them (stored once, as a blob of its own): each
    stays its own content-addressed blob, at a fraction of its lone-zlib size. A
    ``whole`` blob (a run's verdict detail: one large, very repetitive JSON) is
    compressed with LZMA, whose window spans the whole run (measured: 12x smaller than
    zlib at the same speed)."""
    shas = list(pending)
    for i in range(0, len(shas), CHUNK):
        chunk = shas[i : i + CHUNK]
        for (sha,) in conn.execute(select(sch.blobs.c.sha256).where(sch.blobs.c.sha256.in_(chunk))):
            pending.pop(sha, None)
    if not pending:
        return
    zdict = _dictionary(list(pending.values())) if shared_dictionary else None
    conn.execute(insert_ignore(conn, sch.blobs), _packed_rows(pending, whole, zdict))


def get_blobs(
    conn: Connection, shas: Iterable[str], skip: Callable[[str], None]
) -> dict[str, bytes]:
    """The blobs' bytes by sha256; one that cannot be unpacked is left out and ``skip`` is
    told why."""
    out: dict[str, bytes] = {}
    packed = _fetch_blobs(conn, shas)
    dict_shas = {codec[len(ZDICT) :] for codec, _ in packed.values() if codec.startswith(ZDICT)}
    dictionaries = _fetch_dictionaries(conn, dict_shas)
    for sha, (codec, data) in packed.items():
        try:
            if codec == "zlib":
                out[sha] = zlib.decompress(data)
            elif codec == "xz":
                out[sha] = lzma.decompress(data)
            elif codec.startswith(ZDICT):
                unpacker = zlib.decompressobj(zdict=dictionaries[codec[len(ZDICT) :]])
                out[sha] = unpacker.decompress(data) + unpacker.flush()
            else:
                out[sha] = bytes(data)
        except (zlib.error, lzma.LZMAError, KeyError) as exc:
            skip(f"blob {sha[:12]} is unreadable ({type(exc).__name__} {exc})")
    return out


def _fetch_dictionaries(conn: Connection, refs: Iterable[str]) -> dict[str, bytes]:
    """The preset dictionaries by their sha256 prefix (see :data:`ZDICT`)."""
    b = sch.blobs
    out: dict[str, bytes] = {}
    for ref in refs:
        query = select(b.c.sha256, b.c.data).where(b.c.codec == "dict", b.c.sha256.like(ref + "%"))
        for sha, data in conn.execute(query):
            out[sha[:DICT_REF]] = bytes(data)
    return out


def _fetch_blobs(conn: Connection, shas: Iterable[str]) -> dict[str, tuple[str, bytes]]:
    wanted = list(shas)
    b = sch.blobs
    out: dict[str, tuple[str, bytes]] = {}
    for i in range(0, len(wanted), CHUNK):
        query = select(b.c.sha256, b.c.codec, b.c.data).where(b.c.sha256.in_(wanted[i : i + CHUNK]))
        for sha, codec, data in conn.execute(query):
            out[sha] = (codec, data)
    return out


def delete_unreferenced(conn: Connection) -> tuple[int, int]:
    """Delete the blobs no run references and the dictionaries no blob uses; (blobs removed,
    compressed bytes removed)."""
    b, s, r = sch.blobs, sch.scenario_results, sch.runs
    referenced = (
        select(s.c.response_sha256)
        .where(s.c.response_sha256.is_not(None))
        .union(select(r.c.detail_sha256).where(r.c.detail_sha256.is_not(None)))
    )
    used_dicts = select(func.substr(b.c.codec, len(ZDICT) + 1)).where(b.c.codec.like(ZDICT + "%"))
    removed = size = 0
    for doomed in (
        (b.c.codec != "dict") & b.c.sha256.not_in(referenced),
        (b.c.codec == "dict") & func.substr(b.c.sha256, 1, DICT_REF).not_in(used_dicts),
    ):
        n, total = conn.execute(
            select(func.count(), func.coalesce(func.sum(func.length(b.c.data)), 0)).where(doomed)
        ).one()
        conn.execute(delete(b).where(doomed))
        removed, size = removed + int(n), size + int(total)
    return removed, size
