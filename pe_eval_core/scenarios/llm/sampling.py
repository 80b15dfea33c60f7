"""Which sampling parameters a model accepts: the one rule the target and the judge follow.

From Claude Sonnet 5 on, a non-default ``temperature`` (or ``top_p``, ``top_k``) is a 400
error ("setting sampling parameters to non-default values returns 400", Sonnet 5's
what's-new page), and Opus 5.5 and Fable 5.1 always think (temperature cannot be set with
thinking on). So ``temperature: 0`` is sent only to models before the 5 generation; later
ones run at their default, and a re-run's stability comes from the recorded responses and
the judge's saved and cached verdicts, not from sampling.
"""

from __future__ import annotations

import re

_GENERATION = re.compile(r"^claude-(?:[a-z]+-)+?(\d+)(?:-|$)")


def takes_temperature(model: str | None) -> bool:
    """Whether ``temperature: 0`` may be sent to ``model`` (unknown names: yes, as before).

    >>> [takes_temperature(m) for m in ("claude-sonnet-4-5", "claude-3-7-sonnet",
    ...  "claude-sonnet-5", "claude-sonnet-5-5", "claude-opus-5-5-20261001", "my-llm")]
    [True, True, False, False, False, True]
    """
    m = _GENERATION.match(model or "")
    return m is None or int(m.group(1)) < 5


def sampling(model: str | None) -> dict[str, float]:
    """The sampling fields of a request (``extra_body``): ``{"temperature": 0}`` or none."""
    return {"temperature": 0} if takes_temperature(model) else {}
