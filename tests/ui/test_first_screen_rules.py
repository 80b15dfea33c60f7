"""Issue 21's rules that need no browser: no deprecated Streamlit API, the uploaders' limit is
the core's, the README says how to change the port, the dashboard's lead sentences explain
fact ids and never double a target's prefix."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = [ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]

DEPRECATED = {
    r"components\.v1": "st.components.v1.html: its removal date has passed; st.html instead",
    r"\buse_container_width\s*=": "use_container_width: width='stretch' instead",
    r"\bst\.experimental_": "st.experimental_*: removed",
    r"\bst\.cache\(": "st.cache: st.cache_data / st.cache_resource",
}


@pytest.mark.parametrize("pattern", sorted(DEPRECATED))
def test_the_dashboard_uses_no_deprecated_streamlit_api(pattern: str) -> None:
    code = re.compile(pattern)
    used = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in DASHBOARD
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if code.search(line) and not line.lstrip().startswith(("#", '"', "``"))
    ]
    assert not used, f"{DEPRECATED[pattern]}: {used}"


def test_the_upload_limit_is_the_cores_input_limit() -> None:
    from pe_eval_core import limits
    from ui import data

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    core_mb = limits.INPUT_BYTES.value() / (1024 * 1024)
    assert config["server"]["maxUploadSize"] == data.upload_limit_mb() == core_mb == 25
    assert "25 MB" in data.upload_help()


def test_the_readme_says_how_to_change_the_port() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--server.port" in readme and "STREAMLIT_SERVER_PORT" in readme


def test_the_dashboards_conclusion_explains_each_fact_id() -> None:
    """The seed's report keeps ``[fact_001] (2 scenarios)``; the dashboard's lead names the
    failing scenarios written from the fact instead."""
    from pe_eval_core.scenarios import load_scenarios, run_scenarios_sync
    from pe_eval_core.scenarios.run.setup import choose_judge, make_target

    scenarios_path = ROOT / ".mimic" / "exports" / "mimic-scenarios.json"
    run = run_scenarios_sync(
        load_scenarios(scenarios_path),
        make_target("recorded", scenarios_path=scenarios_path),
        judge=choose_judge(scenarios_path=scenarios_path, recorded_target=True),
        scenarios_path=str(scenarios_path),
        save_responses=False,
    )
    seed, plain = run.conclusion(), run.conclusion(plain=True)
    assert "[fact_" in seed  # the seed's specified report is unchanged
    assert "[fact_" not in plain
    facts = re.findall(r"the source fact (\S+) behind ([^;.]+)", plain)
    assert facts, plain
    failing = {r.name for r in run.results if r.status == "fail"}
    for fact, names in facts:
        written = {r.name for r in run.results if r.source_fact == fact}
        assert set(names.split(", ")) <= written & failing, (fact, names)


@pytest.mark.parametrize(
    "target,shown",
    [
        ("http:http://127.0.0.1:8000/agent", "mimic-scenarios.json @ HTTP agent http://127"),
        ("recorded:/x/y/recorded-responses.json", "@ recorded responses recorded-responses.json"),
        ("anthropic:claude-sonnet-4-5", "@ Anthropic claude-sonnet-4-5"),
    ],
)
def test_a_run_is_named_without_a_doubled_prefix(target: str, shown: str) -> None:
    from pe_eval_core.history.records import RunSummary

    summary = RunSummary(
        id=1,
        uid="u",
        kind="scenarios",
        created_at="",
        recorded_at="",
        origin="dashboard",
        scenarios_path="/x/mimic-scenarios.json",
        target=target,
    )
    assert shown in summary.subject and "http:http" not in summary.subject


@pytest.mark.parametrize(
    "script", [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))], ids=lambda p: p.name
)
def test_no_bare_string_in_a_script_streamlit_runs(script: Path) -> None:
    """Streamlit's magic writes every bare expression of a script it runs onto the page: a
    string after an assignment (an attribute docstring) appeared under the sidebar of every
    page. Only the module docstring is exempt."""
    import ast

    body = ast.parse(script.read_text(encoding="utf-8")).body
    statements = body[1:] if ast.get_docstring(ast.Module(body=body, type_ignores=[])) else body
    bare = [
        f"{script.name}:{node.lineno}"
        for node in statements
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    ]
    assert bare == []
