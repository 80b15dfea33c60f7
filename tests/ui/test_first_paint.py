"""First paint: app.py draws the frame before anything heavy is imported, and a page's own code
loads behind a progress state on a fresh server (benchmarks/bench_first_paint.py measures it
in Chromium)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "numpy", "altair", "pydantic", "sqlalchemy", "anthropic", "jinja2")
HEAVY_CORE = ("pe_eval_core.memo", "pe_eval_core.scenarios", "pe_eval_core.history")


def _top_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "__future__":
                continue
            out += [f"{node.module}.{a.name}" for a in node.names if node.module == "ui"]
            out += [node.module] if node.module != "ui" else []
    return out


def _run(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_app_imports_nothing_heavy_before_the_frame() -> None:
    modules = _top_level_imports(ROOT / "app.py")
    assert "ui.data" not in modules  # its caches import the grader's models
    probe = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = _run(probe)
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY_CORE)]
    assert heavy == []


def test_every_page_has_its_code_loaded_behind_a_progress_state() -> None:
    """app.PAGE_CODE names, for each page of the navigation, the view module its page file
    runs (read from the files: app.py runs Streamlit commands when imported)."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    table = next(
        n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PAGE_CODE"
    )
    page_code = {k: v[0] for k, v in ast.literal_eval(table).items()}
    pages: dict[str, str] = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "Page":
            path = ast.literal_eval(call.args[0])
            title = next(ast.literal_eval(k.value) for k in call.keywords if k.arg == "title")
            pages[title] = path
    assert set(pages) == set(page_code)
    for title, path in pages.items():
        views = [
            f"{n.module}.{a.name}"
            for n in ast.parse((ROOT / path).read_text(encoding="utf-8")).body
            if isinstance(n, ast.ImportFrom) and n.module == "ui.views"
            for a in n.names
        ]
        assert views == [page_code[title]], title


@pytest.mark.parametrize(
    ("page", "title"),
    [
        ("app_pages/memo_scorecard.py", "Memo scorecard"),
        ("app_pages/portfolio.py", "Portfolio"),
        ("app_pages/scenario_eval.py", "Scenario evaluation"),
        ("app_pages/run_history.py", "History"),
    ],
)
def test_a_fresh_server_shows_a_spinner_while_the_page_code_loads(page, title, tmp_path) -> None:
    probe = f"""
import contextlib, json, os, sys
os.environ["PE_EVAL_HOME"] = {str(tmp_path)!r}
import streamlit as st
from streamlit.testing.v1 import AppTest
seen = []
real = st.spinner

@contextlib.contextmanager
def spinner(text="", **kw):
    seen.append((text, "pandas" in sys.modules, "ui.views" in sys.modules))
    with real(text, **kw):
        yield

st.spinner = spinner
at = AppTest.from_file("app.py", default_timeout=300)
at.switch_page({page!r})
at.run()
assert not at.exception, at.exception
print(json.dumps([seen[0], [h.value for h in at.title]]))
"""
    (text, pandas_before, views_before), titles = _run(probe)
    assert text.startswith("Loading") and not pandas_before and not views_before
    assert titles == [title]
