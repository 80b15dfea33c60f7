"""Where pe-eval keeps its own state (judge cache, saved responses): one folder, overridable.

``$PE_EVAL_HOME`` if set, else ``./.pe_eval`` under the working directory (the same rule the
run-history store uses).
"""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "PE_EVAL_HOME"
DEFAULT_DIRNAME = ".pe_eval"


def pe_eval_home() -> Path:
    """The state folder (not created here).

    >>> import os
    >>> saved = os.environ.pop("PE_EVAL_HOME", None)
    >>> pe_eval_home().name
    '.pe_eval'
    >>> os.environ["PE_EVAL_HOME"] = "/tmp/pe-home"; str(pe_eval_home())
    '/tmp/pe-home'
    >>> _ = os.environ.pop("PE_EVAL_HOME")
    >>> os.environ.update({"PE_EVAL_HOME": saved} if saved else {})
    """
    home = os.environ.get(HOME_ENV)
    return Path(home).expanduser() if home else Path.cwd() / DEFAULT_DIRNAME
