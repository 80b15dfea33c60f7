"""Where pe-eval keeps its own state (judge cache, saved responses): one folder, overridable.

``$PE_EVAL_HOME`` if set, else ``./.pe_eval`` under the working directory (the same rule the
run-history store uses). :func:`home_path` is how every state file is named: no link inside
the folder (and not the implicit ``./.pe_eval`` itself, which a cloned repository could
ship as a link) may redirect a write.
"""

from __future__ import annotations

import os
from pathlib import Path

from pe_eval_core.errors import OutputWriteError

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


def home_path(*parts: str) -> Path:
    """``pe_eval_home() / parts``, refused when a link would redirect it: any existing part
    below the state folder, or the implicit ``./.pe_eval`` itself (an explicit
    ``$PE_EVAL_HOME`` may be a link: the user chose it).

    >>> import os
    >>> saved = os.environ.get("PE_EVAL_HOME")
    >>> os.environ["PE_EVAL_HOME"] = "/tmp/pe-home-doc"
    >>> str(home_path("runs", "r1", "responses.json"))
    '/tmp/pe-home-doc/runs/r1/responses.json'
    >>> os.environ.update({"PE_EVAL_HOME": saved} if saved else {})
    """
    home = pe_eval_home()
    checked = [] if os.environ.get(HOME_ENV) else [home]
    path = home
    for part in parts:
        path = path / part
        checked.append(path)
    for p in checked:
        if p.is_symlink():
            raise OutputWriteError(
                f"refusing to use {p}: it is a symbolic link inside pe-eval's state folder",
                diagnosis="A link in pe-eval's state folder would send its writes elsewhere",
                fix=f"Remove the link (or set {HOME_ENV} to a folder of your choice).",
                input="db",
            )
    return path
