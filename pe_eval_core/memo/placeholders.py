"""Empty values a producer printed into its prose: a template slot whose value was missing.

The real producer's board memo prints its action as ``_{action}_``; with no
``projected_action`` in the map the memo reads ``the action — __ — is``. Such a slot is a
producer defect of its own kind (not a figure, not a name): reported with its span, in no
score.

>>> [(m.group(), m.start()) for m in find_placeholders("the action — __ — is; **Texas**")]
[('__', 13)]
>>> [m.group() for m in find_placeholders("Run {action} now [TODO: owner]; ** ** and ____")]
['{action}', '[TODO: owner]', '** **', '____']
>>> find_placeholders("__init__, snake_case, loan__purpose, **A × B**, {}")
[]
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(
    r"""(?<![\w*_\\])(?:
        _{2,}(?![\w*_])                      # an empty emphasis: "__", "____"
      | \*\*[ \t]*\*\*(?![\w*])               # "****", "** **"
      | _[ \t]+_(?![\w_])                     # "_ _"
      | \{[A-Za-z_][A-Za-z0-9_]*\}            # an unformatted template field: "{action}"
      | \[(?:TODO|TBD|FIXME)\b[^\]\n]{0,80}\]  # "[TODO recommendation]"
    )""",
    re.VERBOSE,
)


_MARKERS = ("__", "{", "[")
_SPACED_BLANK = re.compile(r"\*\*[ \t]*\*\*|_[ \t]+_")
"""What a block with none of ``_MARKERS`` must hold to match: an empty bold or a spaced
blank. Such a block's ``*`` are mostly bold names (most memos), so the test is a regex."""


def find_placeholders(text: str) -> list[re.Match[str]]:
    """The empty slots of one prose block, in order (no regex for text without a marker; a
    ``*`` counts only as part of an empty bold, as markdown bold is everywhere)."""
    if not any(marker in text for marker in _MARKERS) and (
        ("*" not in text and "_" not in text) or _SPACED_BLANK.search(text) is None
    ):
        return []
    return list(_PLACEHOLDER.finditer(text))
