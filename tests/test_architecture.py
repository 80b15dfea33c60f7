"""The layout is the architecture: the core never depends on the UI layer or on its own CLI,
the memo and scenario domains do not import each other, and library code leaves the
interpreter alone."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "pe_eval_core"


def _modules(folder: Path = CORE) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(folder.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every imported module name, lazy (inside a function) ones included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
            # ``from pe_eval_core import cli`` imports the subpackage too
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def _offenders(folder: Path, banned: tuple[str, ...]) -> list[str]:
    out = []
    for path, tree in _modules(folder):
        for lineno, name in _imports(tree):
            if any(name == b or name.startswith(b + ".") for b in banned):
                out.append(f"{path.relative_to(CORE.parent)}:{lineno} imports {name}")
    return sorted(set(out))


def test_core_source_never_imports_streamlit():
    assert _offenders(CORE, ("streamlit",)) == []


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


def test_the_library_does_not_depend_on_the_cli():
    offenders = []
    for path, tree in _modules():
        rel = path.relative_to(CORE)
        if rel.parts[0] == "cli" or rel.name == "__main__.py":
            continue
        for lineno, name in _imports(tree):
            if name == "pe_eval_core.cli" or name.startswith("pe_eval_core.cli."):
                offenders.append(f"{rel}:{lineno} imports {name}")
    assert offenders == []


def test_memo_does_not_import_scenarios_or_history():
    banned = ("pe_eval_core.scenarios", "pe_eval_core.history")
    assert _offenders(CORE / "memo", banned) == []


def test_scenarios_do_not_import_memo_or_history():
    banned = ("pe_eval_core.memo", "pe_eval_core.history")
    assert _offenders(CORE / "scenarios", banned) == []


# --- the scenario packages follow the flow: data <- llm <- agent / scoring <- run -----------

SCENARIOS = CORE / "scenarios"
S = "pe_eval_core.scenarios"
SCENARIO_LAYERS: dict[str, tuple[str, ...]] = {
    # the shared data and its leaves: every other package reads them, they read none
    "models": (f"{S}.agent", f"{S}.llm", f"{S}.scoring", f"{S}.run"),
    "trace.py": (f"{S}.agent", f"{S}.llm", f"{S}.scoring", f"{S}.run", f"{S}.models"),
    "statistics.py": (f"{S}.agent", f"{S}.llm", f"{S}.scoring", f"{S}.run", f"{S}.models"),
    "options.py": (f"{S}.agent", f"{S}.llm", f"{S}.scoring", f"{S}.run", f"{S}.models"),
    "tool_names.py": (f"{S}.agent", f"{S}.llm", f"{S}.scoring", f"{S}.run", f"{S}.models"),
    "loading.py": (f"{S}.agent", f"{S}.llm", f"{S}.scoring", f"{S}.run"),
    # the Messages API seam is shared by the agent and the judge: it knows neither
    "llm": (f"{S}.agent", f"{S}.scoring", f"{S}.run"),
    # the agent under test never grades, the checks and the judge never run an agent
    "agent": (f"{S}.scoring", f"{S}.run"),
    "scoring": (f"{S}.agent", f"{S}.run"),
}


def _layer_offenders(target: Path, banned: tuple[str, ...]) -> list[str]:
    """:func:`_offenders` over a package folder or a single module file."""
    if target.is_dir():
        return _offenders(target, banned)
    tree = ast.parse(target.read_text(encoding="utf-8"))
    return [
        f"{target.name}:{lineno} imports {name}"
        for lineno, name in _imports(tree)
        if any(name == b or name.startswith(b + ".") for b in banned)
    ]


@pytest.mark.parametrize("part", sorted(SCENARIO_LAYERS))
def test_scenario_packages_import_only_downstream(part: str):
    target = SCENARIOS / part
    assert target.exists(), target
    assert _layer_offenders(target, SCENARIO_LAYERS[part]) == []


def test_the_layer_rules_see_every_scenario_module():
    """A new module or package under scenarios/ must be placed in a layer (or be run/)."""
    placed = set(SCENARIO_LAYERS) | {"run", "__init__.py"}
    present = {p.name for p in SCENARIOS.iterdir() if p.suffix == ".py" or p.is_dir()}
    present.discard("__pycache__")
    assert present <= placed, present - placed


def test_only_the_run_layer_and_the_public_api_are_used_from_outside_the_scenario_code():
    """History, db and the rates leaf reach the scenario code through its data, options,
    statistics, the run layer's setup, or the public API, never its agent or checks."""
    banned = (f"{S}.agent", f"{S}.llm", f"{S}.scoring")
    for part in ("history", "db"):
        assert _offenders(CORE / part, banned) == []
    assert _offenders(CORE / "db", (S, "pe_eval_core.history")) == []


def test_the_rates_leaf_imports_no_domain():
    banned = ("pe_eval_core.scenarios", "pe_eval_core.history", "pe_eval_core.memo")
    out = [
        name
        for _, name in _imports(ast.parse((CORE / "rates.py").read_text(encoding="utf-8")))
        if any(name == b or name.startswith(b + ".") for b in banned)
    ]
    assert out == []


def test_every_core_folder_is_a_package():
    """The package walk (``pkgutil.walk_packages``) skips a folder without ``__init__.py``:
    its modules would escape the import checks above (history/ did)."""
    folders = {p.parent for p in CORE.rglob("*.py") if "__pycache__" not in p.parts}
    assert [str(f) for f in sorted(folders) if not (f / "__init__.py").is_file()] == []


def test_the_layer_checks_catch_a_breach(tmp_path: Path):
    # Guard against a rule that silently matches nothing: a module (lazily) importing the agent.
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from pe_eval_core.scenarios.agent import loop\n")
    assert _layer_offenders(bad, SCENARIO_LAYERS["scoring"]) == [
        "x.py:2 imports pe_eval_core.scenarios.agent",
        "x.py:2 imports pe_eval_core.scenarios.agent.loop",
    ]
    assert _layer_offenders(SCENARIOS / "trace.py", ("pydantic",)) != []  # files are read


def _module_getattr() -> list[str]:
    out = []
    for path, tree in _modules():
        if path == CORE / "__init__.py":  # the package root's lazy public re-export
            continue
        out += [
            f"{path.relative_to(CORE.parent)}:{node.lineno}"
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
        ]
    return out


def test_no_module_level_getattr_below_the_package_root():
    assert _module_getattr() == []


def _calls(pattern: re.Pattern[str]) -> list[str]:
    """Calls whose dotted name matches ``pattern`` (``gc.disable``, ``exec``)."""
    out = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            if pattern.fullmatch(name):
                out.append(f"{path.relative_to(CORE.parent)}:{node.lineno} calls {name}")
    return out


def test_library_code_never_touches_the_garbage_collector():
    assert _calls(re.compile(r"gc\.\w+")) == []


def test_library_code_never_generates_code_with_exec():
    assert _calls(re.compile(r"(builtins\.)?exec")) == []


def test_the_checks_see_what_they_look_for():
    # Guard against a check that silently matches nothing: run the helpers on a sample.
    sample = ast.parse(
        "import gc\nfrom pe_eval_core import cli\ndef f():\n    from pe_eval_core.memo import x\n"
        "    gc.disable()\n    exec('1')\n"
    )
    names = [n for _, n in _imports(sample)]
    assert "pe_eval_core.cli" in names and "pe_eval_core.memo" in names
    calls = [ast.unparse(n.func) for n in ast.walk(sample) if isinstance(n, ast.Call)]
    assert "gc.disable" in calls and "exec" in calls


# --- error hints: inputs in product terms; each surface names them in its own words -------

_FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")
_BACKTICKED = re.compile(r"`[^`]*`")  # another tool's command (`mimic test --export mimic`)


def _hint_texts() -> Iterator[tuple[str, str, str]]:
    """(where, kind, text) for every fix/diagnosis string the core writes, and every input."""
    for path, tree in _modules():
        where = str(path.relative_to(CORE.parent))
        for node in ast.walk(tree):
            pairs: list[tuple[str, ast.expr]] = []
            if isinstance(node, ast.Call):
                # ``input=`` is a hint only on an error's constructor (TokenUsage(input=...) is not)
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                callee = node.func.id if isinstance(node.func, ast.Name) else callee
                for kw in node.keywords:
                    if kw.arg in ("fix", "diagnosis") or (
                        kw.arg == "input" and callee.endswith("Error")
                    ):
                        pairs.append((kw.arg, kw.value))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    named = isinstance(t, ast.Name) and t.id in ("fix", "diagnosis", "input")
                    if named and node.value is not None:
                        pairs.append((t.id, node.value))
            for kind, value in pairs:
                parts = [
                    c.value
                    for c in ast.walk(value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                ]
                # an input may be chosen (``"audience" if ... else "portco"``): one name each
                for text in parts if kind == "input" else ["".join(parts)]:
                    if text:
                        yield f"{where}:{value.lineno}", kind, text


def test_error_hints_never_name_a_cli_flag():
    offenders = [
        f"{where} {kind}: {text}"
        for where, kind, text in _hint_texts()
        if kind != "input" and _FLAG.search(_BACKTICKED.sub("", text))
    ]
    assert offenders == []
    assert _FLAG.search("Pass --scenarios PATH") and not _FLAG.search("re-export")


def test_every_input_an_error_names_is_known_to_every_surface():
    from pe_eval_core.cli import CLI_FLAGS
    from pe_eval_core.errors import INPUT_LABELS
    from pe_eval_core.mcp_server import TOOL_ARGUMENTS

    named = {text for _, kind, text in _hint_texts() if kind == "input"}
    assert named, "the scan found no input names"
    assert named <= set(INPUT_LABELS), named - set(INPUT_LABELS)
    assert set(CLI_FLAGS) == set(INPUT_LABELS)
    assert set(TOOL_ARGUMENTS) <= set(INPUT_LABELS)


def test_the_cli_adds_the_option_to_the_fix(capsys: pytest.CaptureFixture[str]):
    from pe_eval_core.cli.main import main

    code = main(["scenarios", "score", "--scenarios", "/nonexistent/s.json", "--responses", "x"])
    err = capsys.readouterr().err
    assert code == 2 and "(option --scenarios)" in err, err
