"""What every scorecard page shares, whatever it grades: the jinja2 environment its template
renders in (autoescape on, so every string from a document or a source reaches the page
escaped; strict about undefined names; the number formats of ``wording`` as filters). The memo
scorecard and the other documents' scorecard each render their own template in it.

Templates load from jinja2's bytecode cache: compiling the memo scorecard costs a one-memo
command about 10 ms of CPU each run, loading it compiled about 1 ms."""

from __future__ import annotations

import contextlib
from functools import lru_cache

from jinja2 import (
    BytecodeCache,
    Environment,
    FileSystemBytecodeCache,
    PackageLoader,
    StrictUndefined,
)
from jinja2.bccache import Bucket

from pe_eval_core.wording import fmt_number, fmt_pct, fmt_usd


class _QuietBytecodeCache(FileSystemBytecodeCache):
    """jinja2's own bytecode cache (its per-user folder under the temp directory, created
    private and checked to be the user's), where a cache that cannot be read or written is
    simply not used: the template is compiled as without one."""

    def load_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache() -> BytecodeCache | None:
    """Keyed by the template's source and the Python version (jinja2's buckets), so an edited
    template or another interpreter recompiles."""
    try:
        return _QuietBytecodeCache()
    except (OSError, RuntimeError):  # no usable temp folder: compile every time
        return None


@lru_cache(maxsize=4)
def template_environment(package: str) -> Environment:
    """The environment of the ``templates/`` folder of ``package`` (shipped in the wheel).

    >>> env = template_environment("pe_eval_core.memo")
    >>> env.autoescape, sorted(k for k in env.filters if k in ("pct", "usd", "num"))
    (True, ['num', 'pct', 'usd'])
    """
    env = Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters["pct"] = fmt_pct
    env.filters["usd"] = fmt_usd
    env.filters["num"] = fmt_number
    return env
