"""What every scorecard page shares, whatever it grades: the jinja2 environment its template
renders in (autoescape on, so every string from a document or a source reaches the page
escaped; strict about undefined names; the number formats of ``wording`` as filters). The memo
scorecard and the other documents' scorecard each render their own template in it."""

from __future__ import annotations

from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined

from pe_eval_core.wording import fmt_number, fmt_pct, fmt_usd


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
    )
    env.filters["pct"] = fmt_pct
    env.filters["usd"] = fmt_usd
    env.filters["num"] = fmt_number
    return env
