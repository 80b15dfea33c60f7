"""The bundled demo data is reproducible, well-formed, and wrong in exactly the documented ways.

These tests check the data itself with a small independent checker, not with the grader, so a
grader bug cannot hide a data bug (and the golden grader tests can trust README.md).
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "build_demo_data.py"
DATA = ROOT / "finance_output"
PORTCOS = ("MortgageCo", "HMDA_GA", "southeast_lender")
AUDIENCES = ("board", "operator")
GENERATED = ("dx_report_*.json", "explain_*.json", "README.md")

MONEY = re.compile(r"\$(-)?(\d[\d,]*(?:\.\d+)?)([KMB])?")
PERCENT = re.compile(r"(~)?(\d+(?:\.\d+)?)%")
COUNT = re.compile(r"\*\*([\d,]+) loans\*\*")
QUARTERS = re.compile(r"(\d+) of (\d+) quarters")
SCORE = re.compile(r"persistence score of (\d\.\d\d)")
DIFFICULTY = re.compile(r"rated (\d)/5")
BOLD = re.compile(r"\*\*(.+?)\*\*")
COLUMNS = re.compile(r"\*\* \(([a-z_]+(?: × [a-z_]+)*)\)")
EVIDENCE = re.compile(r"spot-check: ((?:[\w-]+, )+)\.\.\.")
MARKERS = {"Counterfactual:", "Risk of inaction:", "Rollout:"}


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def source(portco: str) -> dict[str, Any]:
    return load(f"dx_report_{portco}.json")


def memo(portco: str, audience: str) -> dict[str, Any]:
    return load(f"explain_{portco}_{audience}.json")


def builder():
    spec = importlib.util.spec_from_file_location("build_demo_data", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def readme_defects() -> list[dict[str, str]]:
    """The rows of README.md's planted-defect table, keyed by column name."""
    lines = (DATA / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Planted defects (southeast_lender)")
    table = [ln for ln in lines[start:] if ln.startswith("|")]
    header = [c.strip() for c in table[0].strip("|").split("|")]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in table[2:]]
    return [dict(zip(header, row, strict=True)) for row in rows]


def unquote(cell: str) -> str:
    return cell.strip("`")


# --- an independent checker: which printed figures/entities do NOT trace to their own opp ----


def _usd_fields(opp: dict[str, Any]) -> list[float]:
    out = []
    for key, value in opp.items():
        if "usd" in key and isinstance(value, int | float):
            out.append(float(value))
    return out


def _money_ok(sign: str | None, digits: str, scale: str | None, values: list[float]) -> bool:
    shown = float(digits.replace(",", ""))
    mult = {"K": 1e3, "M": 1e6, "B": 1e9}.get(scale or "", 1.0)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    lo, hi = (shown - 0.5 * 10**-decimals) * mult, (shown + 0.5 * 10**-decimals) * mult
    for v in values:
        if sign and v >= 0:
            continue
        if abs(abs(v) - shown * mult) <= 0.01 * abs(v) or lo <= abs(v) < hi:
            return True
    return False


def untraced(src: dict[str, Any], doc: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    """(opp id, field, kind, raw) for each figure/entity not grounded in its own opportunity."""
    by_id = {o["id"]: o for o in src["opportunities"]}
    portfolio = [src["total_projected_impact_usd_annual"], src["ebitda_baseline_usd"]]
    bad: set[tuple[str, str, str, str]] = set()
    for entry in doc["opportunities_explained"]:
        opp = by_id[entry["id"]]
        rate = next(v for k, v in opp.items() if k.endswith("_rate"))
        entities = {str(v) for v in opp["segment"].values()} | {opp["archetype"]}
        for name in ("narrative", "counterfactual", "risk_of_inaction", "rollout"):
            text = entry[name]

            def flag(kind: str, raw: str, ok: bool, name: str = name, oid: str = opp["id"]):
                if not ok:
                    bad.add((oid, name, kind, raw))

            for m in MONEY.finditer(text):
                ok = _money_ok(m[1], m[2], m[3], _usd_fields(opp) + portfolio)
                flag("usd", m[0], ok)
            for m in PERCENT.finditer(text):
                if not m[1]:  # "~5%" is the playbook constant
                    flag("percent", m[0], abs(float(m[2]) - 100 * rate) <= 0.15)
            for m in COUNT.finditer(text):
                flag("count", m[0], int(m[1].replace(",", "")) == opp["n"])
            for m in QUARTERS.finditer(text):
                ok = [int(m[1]), int(m[2])] == opp["persistence_quarters_out_of_total"]
                flag("quarters", m[0], ok)
            for m in SCORE.finditer(text):
                flag("score", m[0], abs(float(m[1]) - opp["persistence_score"]) <= 0.005)
            for m in DIFFICULTY.finditer(text):
                flag("difficulty", m[0], int(m[1]) == opp["difficulty_score_1_to_5"])
            for m in BOLD.finditer(text):
                label = m[1]
                if label in MARKERS or MONEY.fullmatch(label) or COUNT.fullmatch(m[0]):
                    continue
                for part in label.split(" × "):
                    flag("entity", part, part in entities)
            for m in COLUMNS.finditer(text):
                flag("decision_col", m[1], m[1].split(" × ") == opp["decision_cols"])
            for m in EVIDENCE.finditer(text):
                ids = {str(i) for i in opp["evidence_row_ids"]}
                for row in m[1].rstrip(", ").split(", "):
                    flag("evidence_row", row, row in ids)
    return bad


# --- tests -----------------------------------------------------------------------------------


def test_rebuild_is_byte_identical_to_the_committed_files(tmp_path: Path):
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    committed = sorted(p.name for pattern in GENERATED for p in DATA.glob(pattern))
    rebuilt = sorted(p.name for pattern in GENERATED for p in tmp_path.glob(pattern))
    assert rebuilt == committed
    assert len(committed) == 1 + 3 * 3
    for name in committed:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


@pytest.mark.parametrize("portco", PORTCOS)
def test_source_total_is_the_sum_of_opportunity_impacts(portco: str):
    src = source(portco)
    assert src["portco_id"] == portco
    assert {"vertical", "ebitda_baseline_usd", "as_of"} <= src.keys()
    assert 3 <= len(src["opportunities"]) <= 5
    impacts = [o["projected_impact_usd_annual"] for o in src["opportunities"]]
    assert src["total_projected_impact_usd_annual"] == sum(impacts)


def test_each_portco_has_its_opportunity_shape():
    def shape(o: dict[str, Any]) -> str:
        return "B" if "current_outcome_usd_annual" in o else "A"

    assert {shape(o) for o in source("MortgageCo")["opportunities"]} == {"A"}
    assert {shape(o) for o in source("HMDA_GA")["opportunities"]} == {"B"}
    assert {shape(o) for o in source("southeast_lender")["opportunities"]} == {"A", "B"}
    for o in source("HMDA_GA")["opportunities"]:
        assert {"projected_outcome_usd_annual", "recommendation", "time_to_implement_weeks"} <= (
            o.keys()
        )
        assert "outcome_total_usd_annual" not in o
    row_ids = [
        i for p in PORTCOS for o in source(p)["opportunities"] for i in o["evidence_row_ids"]
    ]
    assert {type(i) for i in row_ids} == {int, str}


def test_magnitudes_span_thousands_to_billions_with_lossy_rounding():
    usd = [
        abs(v)
        for p in PORTCOS
        for o in source(p)["opportunities"]
        for k, v in o.items()
        if "usd" in k and isinstance(v, int | float)
    ]
    assert min(usd) < 1e3 and max(usd) > 1e9
    lossy_millions = lossy_thousands = 0
    for p in PORTCOS:
        src = source(p)
        for a in AUDIENCES:
            for entry in memo(p, a)["opportunities_explained"]:
                opp = next(o for o in src["opportunities"] if o["id"] == entry["id"])
                values = [abs(v) for v in _usd_fields(opp)]
                text = " ".join(entry[f] for f in ("narrative", "counterfactual", "rollout"))
                for m in MONEY.finditer(text):
                    shown = float(m[2].replace(",", "")) * {"K": 1e3, "M": 1e6}.get(m[3], 0)
                    for v in values:
                        if 0.01 * v < abs(v - shown) < 0.05 * v:
                            lossy_millions += 1e6 <= v < 4.5e6
                            lossy_thousands += 1e3 <= v < 45e3
    assert lossy_millions and lossy_thousands


@pytest.mark.parametrize("portco", PORTCOS)
@pytest.mark.parametrize("audience", AUDIENCES)
def test_every_memo_has_the_contract_fields(portco: str, audience: str):
    doc = memo(portco, audience)
    fields = {
        "portco_id",
        "audience",
        "as_of",
        "total_projected_impact_usd_annual",
        "vertical",
        "ebitda_baseline_usd",
        "opportunities_explained",
        "source_opportunity_map",
    }
    assert fields <= doc.keys()
    assert (doc["portco_id"], doc["audience"]) == (portco, audience)
    assert doc["source_opportunity_map"] == f"dx_report_{portco}.json"
    assert doc["as_of"] == source(portco)["as_of"]
    assert doc["opportunities_explained"]
    for entry in doc["opportunities_explained"]:
        assert {"id", "archetype", "segment"} <= entry.keys()
        for name in ("narrative", "counterfactual", "risk_of_inaction", "rollout"):
            assert entry[name].strip()
    opening = doc["opportunities_explained"][0]["narrative"]
    if audience == "board":
        assert re.match(r"\*\*[^*]+ × [^*]+\*\* \([a-z_]+ × [a-z_]+\) \w+ \*\*\$", opening)
    else:
        assert opening.startswith("Cohort key: **")
        assert "Annualized $ at stake: $" in opening


@pytest.mark.parametrize("portco", ["MortgageCo", "HMDA_GA"])
@pytest.mark.parametrize("audience", AUDIENCES)
def test_clean_memos_trace_every_figure_and_entity_to_their_own_opportunity(
    portco: str, audience: str
):
    src, doc = source(portco), memo(portco, audience)
    assert untraced(src, doc) == set()
    entries = doc["opportunities_explained"]
    narratives = [e["narrative"] for e in entries]
    assert all(len(COLUMNS.findall(t)) == 1 for t in narratives)  # the checker saw them all
    if audience == "operator":
        assert all(len(EVIDENCE.findall(e["rollout"])) == 1 for e in entries)
    assert {e["id"] for e in doc["opportunities_explained"]} == {
        o["id"] for o in src["opportunities"]
    }
    assert doc["total_projected_impact_usd_annual"] == src["total_projected_impact_usd_annual"]


def test_the_readme_documents_exactly_the_five_defects():
    rows = readme_defects()
    assert [r["defect"] for r in rows] == [
        "fabricated_figure",
        "misattributed_figure",
        "stale_headline",
        "invented_entity",
        "dropped_opportunity",
    ]
    assert {r["portco"] for r in rows} == {"southeast_lender"}


@pytest.mark.parametrize("audience", AUDIENCES)
def test_southeast_prose_is_wrong_exactly_where_the_readme_says(audience: str):
    src, doc = source("southeast_lender"), memo("southeast_lender", audience)
    expected = set()
    for row in readme_defects():
        if row["audience"] != audience or row["field"] not in (
            "narrative",
            "counterfactual",
            "risk_of_inaction",
            "rollout",
        ):
            continue
        entry = next(e for e in doc["opportunities_explained"] if e["id"] == row["opportunity"])
        text = entry[row["field"]]
        wrong, right = unquote(row["wrong text"]), unquote(row["should be"])
        assert wrong in text
        assert right not in text
        kind = "entity" if row["defect"] == "invented_entity" else "usd"
        expected.add((row["opportunity"], row["field"], kind, wrong))
    assert expected
    assert untraced(src, doc) == expected


def test_fabricated_and_invented_values_appear_nowhere_in_the_source():
    rows = {r["defect"]: r for r in readme_defects()}
    src = source("southeast_lender")
    everything = [
        v
        for o in src["opportunities"]
        for v in [*_usd_fields(o), *(q["outcome_usd"] for q in o.get("quarterly_outcome_usd", []))]
    ] + [src["total_projected_impact_usd_annual"], src["ebitda_baseline_usd"]]
    fabricated = MONEY.fullmatch(unquote(rows["fabricated_figure"]["wrong text"]))
    assert not _money_ok(fabricated[1], fabricated[2], fabricated[3], everything)
    invented = unquote(rows["invented_entity"]["wrong text"])
    assert invented not in json.dumps(src)
    assert invented == "FL"


def test_the_misattributed_figure_belongs_to_the_opportunity_named():
    row = next(r for r in readme_defects() if r["defect"] == "misattributed_figure")
    m = MONEY.fullmatch(unquote(row["wrong text"]))
    owners = [
        o["id"]
        for o in source("southeast_lender")["opportunities"]
        if _money_ok(m[1], m[2], m[3], _usd_fields(o))
    ]
    assert owners == ["opp_02"]
    assert row["opportunity"] == "opp_01"
    assert "opp_02" in row["grader should report"]


def test_the_board_headline_is_stale_and_the_operator_headline_is_not():
    row = next(r for r in readme_defects() if r["defect"] == "stale_headline")
    total = source("southeast_lender")["total_projected_impact_usd_annual"]
    board = memo("southeast_lender", "board")["total_projected_impact_usd_annual"]
    operator = memo("southeast_lender", "operator")["total_projected_impact_usd_annual"]
    assert row["audience"] == "board"
    assert board == int(unquote(row["wrong text"]))
    assert total == int(unquote(row["should be"]))
    assert abs(board - total) > 0.01 * total
    assert abs(board - operator) > 0.01 * operator
    assert operator == total


def test_one_opportunity_is_dropped_from_one_audience_only():
    row = next(r for r in readme_defects() if r["defect"] == "dropped_opportunity")
    ids = {
        a: {e["id"] for e in memo("southeast_lender", a)["opportunities_explained"]}
        for a in AUDIENCES
    }
    source_ids = {o["id"] for o in source("southeast_lender")["opportunities"]}
    assert row["audience"] == "operator"
    assert ids["operator"] == source_ids - {row["opportunity"]}
    assert ids["board"] == source_ids


def test_builder_doctests_pass():
    result = doctest.testmod(builder(), optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8
    assert result.failed == 0
