"""The installed package works outside the checkout: the wheel carries everything it needs at
run time (the scorecard template), and its ``pe-eval`` command grades a memo and runs recorded
scenarios from a folder that is not the repository.

Built once per session, offline: ``pip wheel --no-build-isolation`` from a copy of the files
the wheel is made of, then installed without dependencies into a fresh venv that sees this
interpreter's packages (``--system-site-packages``); the import must resolve to the venv's
copy, not the checkout's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.wheel, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "finance_output"
EXPORTS = ROOT / ".mimic" / "exports"
WHEEL_SOURCES = ("pyproject.toml", "requirements.txt", "pe_eval_core")


class Installed:
    """The venv holding the installed wheel, and the wheel itself."""

    def __init__(self, venv: Path, wheel: Path):
        self.venv = venv
        self.wheel = wheel
        self.bin = venv / ("Scripts" if os.name == "nt" else "bin")

    def run(self, *args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
        """``pe-eval ARGS`` from ``cwd``, with no PYTHONPATH pointing at the checkout."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PE_EVAL_HOME")}
        env["PE_EVAL_HOME"] = str(home)
        return subprocess.run(
            [str(self.bin / "pe-eval"), *args],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip


def _run(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in WHEEL_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(base / "dist"), "."], src)
    [wheel] = (base / "dist").glob("pe_eval-*.whl")
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(base / "venv")], base)
    venv_python = base / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    _run([str(venv_python), "-m", "pip", "--disable-pip-version-check", "-q", "install",
          "--no-index", "--no-deps", str(wheel)], base)  # fmt: skip
    yield Installed(base / "venv", wheel)


def test_the_wheel_ships_the_template_and_the_command(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert "pe_eval_core/memo/templates/scorecard.html.j2" in names
    assert "pe_eval_core/documents/templates/document.html.j2" in names
    assert "pe_eval_core/py.typed" in names
    assert not [n for n in names if n.startswith(("tests/", "ui/", "app"))]
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert (
        "pe-eval = pe_eval_core.cli.main:main"
        in zipfile.ZipFile(installed.wheel).read(entry).decode()
    )


def test_installed_memo_command_grades_outside_the_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    for name in (
        "explain_MortgageCo_board.json",
        "dx_report_MortgageCo.json",
        "explain_southeast_lender_operator.json",
        "dx_report_southeast_lender.json",
    ):
        shutil.copy(DEMO / name, work / name)  # fmt: skip
    where = installed.run("mcp", "--help", cwd=work, home=tmp_path / "home")
    assert where.returncode == 0, where.stderr
    probe = subprocess.run(
        [str(installed.bin / "python"), "-c", "import pe_eval_core; print(pe_eval_core.__file__)"],
        cwd=work, capture_output=True, text=True, check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )  # fmt: skip
    assert Path(probe.stdout.strip()).is_relative_to(installed.venv), probe.stdout

    pair = ["--memo", "explain_MortgageCo_board.json", "--source", "dx_report_MortgageCo.json"]
    clean = installed.run("memo", *pair, cwd=work, home=tmp_path / "home")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Verdict: Ready to circulate" in clean.stdout
    html = (work / "eval_MortgageCo_board.html").read_text(encoding="utf-8")
    assert 'id="verdict"' in html and "Ready to circulate" in html  # the template was found
    assert (work / "eval_MortgageCo_board.json").is_file()

    flawed = installed.run("memo", "--memo", "explain_southeast_lender_operator.json",
                           cwd=work, home=tmp_path / "home")  # fmt: skip
    assert flawed.returncode == 1, flawed.stdout + flawed.stderr  # not ready: exit 1
    assert "Verdict: Not ready: 2 issues" in flawed.stdout  # no sibling copied: 2, not 3


def test_installed_doc_command_grades_a_pack_outside_the_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    """The document scorecard's template ships too: ``pe-eval doc`` writes its pair."""
    run = ROOT / "tests" / "corpus" / "producer_run" / "finance_output"
    work = tmp_path / "elsewhere"
    work.mkdir()
    for path in [*run.glob("*_MortgageCo.*"), *run.glob("bx_report_*.json")]:
        if not path.name.startswith(("explain_", "ai_act_")):
            shutil.copy(path, work / path.name)
    proc = installed.run("doc", "exit_proof_pack_MortgageCo.json", cwd=work, home=tmp_path / "h")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Verdict: Ready to circulate" in proc.stdout
    html = (work / "eval_exit_proof_pack_MortgageCo.html").read_text(encoding="utf-8")
    assert 'id="verdict"' in html and "Ready to circulate" in html


def test_installed_scenarios_command_runs_recorded_responses_outside_the_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    for name in ("mimic-scenarios.json", "recorded-responses.json", "judge-verdicts.json"):
        shutil.copy(EXPORTS / name, work / name)
    proc = installed.run("scenarios", "run", "--target", "recorded", "--scenarios",
                         "mimic-scenarios.json", "--responses", "recorded-responses.json",
                         "--out", "out", cwd=work, home=tmp_path / "home")  # fmt: skip
    # the demo fails some scenarios on purpose: exit 1 (quality), never 2 (could not run)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Loaded 19 scenarios" in proc.stdout + proc.stderr
    assert sorted(p.name for p in (work / "out").iterdir()) == [
        "junit.xml",
        "report-set.json",
        "report.csv",
        "report.json",
        "report.md",
        "responses.json",
    ]  # report-set.json: the manifest that commits the set as one run
    assert "## " in (work / "out" / "report.md").read_text(encoding="utf-8")
