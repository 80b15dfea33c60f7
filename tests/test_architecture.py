"""The layout is the architecture: the core never depends on the UI layer."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "pe_eval_core"


def test_core_source_never_imports_streamlit():
    offenders = []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path}:{node.lineno}" for n in names if n.split(".")[0] == "streamlit"]
    assert offenders == []


def test_importing_every_core_module_does_not_load_streamlit():
    code = (
        "import pkgutil, importlib, sys, pe_eval_core\n"
        "for m in pkgutil.walk_packages(pe_eval_core.__path__, 'pe_eval_core.'):\n"
        "    importlib.import_module(m.name)\n"
        "print('streamlit' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=CORE.parent,
    )
    assert out.stdout.strip() == "False"
