"""The engine both free-form corpora are built with: memo markup with labelled figures
(``[[text|kind|ref]]``) turned into memo JSON and a label file, every label checked against its
source, and planted-error mutations checked not to be explainable by a derivation.

Each corpus keeps only its data in ``<corpus>/generator/`` (sources, memos, mutation cases)
and calls :func:`run`; ``python3 build.py --write`` there rewrites the corpus files.
"""

import ast
import itertools
import json
import re
from collections import Counter
from pathlib import Path

FIELDS = ("narrative", "counterfactual", "risk_of_inaction", "rollout")
ALIASES = {
    "n": "@.n", "cur": "@.current_outcome_usd_annual", "proj": "@.projected_outcome_usd_annual",
    "imp": "@.projected_impact_usd_annual", "out": "@.outcome_total_usd_annual",
    "mean": "@.outcome_mean_usd", "pqo": "@.persistence_quarters_out_of_total",
    "ps": "@.persistence_score", "diff": "@.difficulty_score_1_to_5", "rec": "@.recommendation",
    "act": "@.projected_action", "time": "@.time_to_implement_weeks",
    "cost": "@.implementation_cost_usd_annual", "tot": "total_projected_impact_usd_annual",
    "eb": "ebitda_baseline_usd", "cure": "@.cure_rate", "co": "@.charge_off_rate",
    "dr": "@.default_rate",
}
ALIAS_RE = re.compile(r"(?<![\w.\]])(" + "|".join(ALIASES) + r")(?![\w\[(])")
MARK = re.compile(r"\[\[(.+?)\|([dvnel])(?:\|(.*?))?\]\](?!\])")


def expand(ref, idx):
    ref = ALIAS_RE.sub(lambda m: ALIASES[m.group(1)], ref)
    return ref.replace("@", f"opportunities[{idx}]")


def ev(node, src):
    if isinstance(node, ast.Expression):
        return ev(node.body, src)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return src[node.id]
    if isinstance(node, ast.Attribute):
        return ev(node.value, src)[node.attr]
    if isinstance(node, ast.Subscript):
        return ev(node.value, src)[ev(node.slice, src)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -ev(node.operand, src)
    if isinstance(node, ast.BinOp):
        a, b = ev(node.left, src), ev(node.right, src)
        return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b, ast.Div: a / b if b else None}[
            type(node.op)] if not isinstance(node.op, ast.Div) else a / b
    raise ValueError(ast.dump(node))


def evaluate(expr, src):
    return ev(ast.parse(expr, mode="eval"), src)


def name_candidates(src, idx):
    o = src["opportunities"][idx]
    out = {}
    for k, v in o["segment"].items():
        out[str(v).lower()] = f"opportunities[{idx}].segment.{k}"
    for j, c in enumerate(o["decision_cols"]):
        out[c.lower()] = f"opportunities[{idx}].decision_cols[{j}]"
    out[o["archetype"].lower()] = f"opportunities[{idx}].archetype"
    for j, r in enumerate(o.get("evidence_row_ids", [])):
        out[str(r).lower()] = f"opportunities[{idx}].evidence_row_ids[{j}]"
    out[src["portco_id"].lower()] = "portco_id"
    return out


WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "million": 1e6, "thousand": 1e3}
FRACTIONS = {"half": 0.5, "halve": 0.5, "halves": 0.5, "a third": 1 / 3, "two thirds": 2 / 3,
             "two-thirds": 2 / 3, "a quarter": 0.25, "three-quarters": 0.75}


def displayed(text):
    """(value, tolerance, explicit_sign) for the figure a label text shows, or None."""
    t = text.strip()
    if t.lower() in FRACTIONS:
        return FRACTIONS[t.lower()], 0.035, None
    m = re.fullmatch(r"(\w+) points", t)
    if m and m.group(1) in WORDS:
        return WORDS[m.group(1)], 0.5, None
    m = re.search(r"([+-~]?)\$([+-]?)(\d[\d,]*(?:\.(\d+))?)\s*(K|M|B|million|thousand)?", t)
    unit = None
    if m:
        sign = (m.group(1) if m.group(1) in "+-" and m.group(1) else "") or m.group(2)
        num, dec, sc = m.group(3), m.group(4), m.group(5)
        unit = "usd"
    else:
        m = re.search(r"([+]?)(\d[\d,]*(?:\.(\d+))?)\s*(%|bps|x|k|M)?", t)
        if not m:
            return None
        sign, num, dec, sc = m.group(1), m.group(2), m.group(3), m.group(4)
        unit = sc
        if sc in ("%", "bps", "x"):
            sc = None
    v = float(num.replace(",", ""))
    mult = SCALE.get(sc, 1) if sc else 1
    if dec:
        step = 10 ** -len(dec)
    else:
        digits = num.replace(",", "")
        tz = len(digits) - len(digits.rstrip("0")) if unit is None and len(digits) > 3 else 0
        step = 10 ** tz
    val = v * mult
    tol = max(step * mult / 2, abs(val) * 0.01)
    if unit == "%":
        tol = max(step / 2, 0.15)
    return val, tol, (sign or None), unit


def check_value(label, value):
    text = label["text"]
    if isinstance(value, str):
        nums = re.findall(r"\d[\d,]*", text)
        words = [w for w in WORDS if re.search(rf"\b{w}\b", text)]
        ok = all(x in value for x in nums) and all(w in value for w in words)
        return ok, "in-string"
    if isinstance(value, list):
        k, m = value
        t = text.lower()
        nums = [int(x) for x in re.findall(r"\d+", t)] + [
            WORDS[w] for w in re.findall(r"[a-z]+", t) if w in WORDS]
        if "all" in t or "every" in t:
            return (k == m and (not nums or nums == [m])), f"{k}/{m}"
        if "half" in t:
            return (2 * k == m and (not nums or nums == [m])), f"{k}/{m}"
        return nums == [k, m], f"{k}/{m}"
    m = re.fullmatch(r"(\w+)[- ]weeks?", text.strip())
    if m and m.group(1) in WORDS:
        return WORDS[m.group(1)] == value, f"{value} weeks"
    d = displayed(text)
    if d is None:
        return None, "unparsed"
    if len(d) == 3:
        val, tol, sign = d
        unit = None
    else:
        val, tol, sign, unit = d
    cmpv = value
    if unit == "%" and abs(value) <= 1.5 and val > 1.5:
        cmpv = value * 100
    if unit is None and abs(value) <= 1 and val < 1 and label["kind"] == "direct":
        pass
    if text.strip() == "1.00" or re.fullmatch(r"0\.\d+", text.strip()):
        tol = 0.005
    if re.fullmatch(r"\d/5|\d of 5|\d out of 5|(one|two|three|four|five)-?( |)weeks?|.*-week|\d+ weeks", text.strip()):
        tol = 0
    m = re.fullmatch(r"(\w+)[- ]weeks?", text.strip())
    if m and m.group(1) in WORDS:
        val, tol = WORDS[m.group(1)], 0
    ok = abs(abs(cmpv) - abs(val)) <= tol + 1e-9
    if sign == "-" and cmpv > 0 or sign == "+" and cmpv < 0:
        ok = False
    return ok, f"{cmpv:.6g} vs {val:.6g}±{tol:.3g}"


def parse_block(markup, src, idx):
    text, labels, pos = [], [], 0
    out = ""
    for m in MARK.finditer(markup):
        out += markup[pos:m.start()]
        t, k, ref = m.group(1), m.group(2), m.group(3)
        labels.append((len(out), t, k, ref))
        out += t
        pos = m.end()
    out += markup[pos:]
    assert "[[" not in out and "]]" not in out, out
    return out, labels



def build(sources, memos):
    """(memo JSON by file name, labels, problems) for ``memos`` drawn from ``sources``."""
    problems = []
    all_labels = []
    memos_out = {}
    for (portco, aud), opps in memos.items():
        src = sources[portco]
        memo_name = f"explain_{portco}_{aud}.json"
        ids = [o["id"] for o in src["opportunities"]]
        explained = []
        for oid, blocks in opps.items():
            idx = ids.index(oid)
            so = src["opportunities"][idx]
            cands = name_candidates(src, idx)
            entry = {"id": oid, "archetype": so["archetype"], "segment": dict(so["segment"])}
            for field in FIELDS:
                text, labs = parse_block(blocks[field], src, idx)
                entry[field] = text
                counts = {}
                for start, t, k, ref in labs:
                    occ = 0
                    p = text.find(t)
                    while p != start:
                        occ += 1
                        p = text.find(t, p + 1)
                    lab = {"memo": memo_name, "opportunity_id": oid, "field": field, "text": t,
                           "occurrence": occ}
                    if k == "l":
                        lab.update(kind="name", source="label")
                    elif k == "e":
                        path = expand(ref, idx) if ref else cands.get(t.lower())
                        if path is None:
                            problems.append(f"{memo_name} {oid} {field}: unresolved name {t!r}")
                            path = "?"
                        else:
                            v = evaluate(path, src)
                            if str(v).lower() not in t.lower() and not ref:
                                problems.append(f"name mismatch {t} {v}")
                        lab.update(kind="name", source=path)
                    elif k == "n":
                        lab.update(kind="not_a_claim", note=ref or "")
                    elif k == "d":
                        path = expand(ref, idx)
                        v = evaluate(path, src)
                        lab.update(kind="direct", source=path, value=v)
                        ok, why = check_value(lab, v)
                        if ok is not True:
                            problems.append(f"{memo_name} {oid} {field}: {t!r} direct {path} {why} ok={ok}")
                    elif k == "v":
                        f = expand(ref, idx)
                        v = evaluate(f, src)
                        lab.update(kind="derived", formula=f, value=round(v, 6))
                        ok, why = check_value(lab, v)
                        if ok is not True:
                            problems.append(f"{memo_name} {oid} {field}: {t!r} derived {f} {why} ok={ok}")
                    all_labels.append(lab)
                # residue check
                residue = text
                for start, t, k, ref in sorted(labs, reverse=True):
                    residue = residue[:start] + "\u2591" * len(t) + residue[start + len(t):]
                for m in re.finditer(r"\d", residue):
                    problems.append(f"{memo_name} {oid} {field}: unlabelled digit: ...{residue[max(0,m.start()-20):m.start()+20]}...")
                for m in re.finditer(r"\*\*(.+?)\*\*", text):
                    inner = residue[m.start() + 2 : m.end() - 2]
                    if re.search(r"[^\u2591\s×*]", inner) and "\u2591" * (m.end() - m.start()) != residue[m.start():m.end()]:
                        problems.append(f"{memo_name} {oid} {field}: unlabelled bold {m.group(0)!r}")
                for w in list(WORDS) + ["half", "third", "quarter", "dozen", "twice", "double", "first", "second", "single"]:
                    for m in re.finditer(rf"\b{w}\b", residue, re.I):
                        problems.append(f"{memo_name} {oid} {field}: number word {w!r}: ...{residue[max(0,m.start()-25):m.end()+25]}...")
                for sv in [str(x) for o in src["opportunities"] for x in o["segment"].values()] + [c for o in src["opportunities"] for c in o["decision_cols"]] + [o["archetype"] for o in src["opportunities"]]:
                    for m in re.finditer(rf"(?<![\w-]){re.escape(sv)}(?![\w-])", residue, re.I):
                        problems.append(f"{memo_name} {oid} {field}: unlabelled name {sv!r}: ...{residue[max(0,m.start()-25):m.end()+25]}...")
            explained.append(entry)
        memos_out[memo_name] = {
            "portco_id": portco, "audience": aud, "as_of": src["as_of"],
            "total_projected_impact_usd_annual": src["total_projected_impact_usd_annual"],
            "vertical": src["vertical"], "ebitda_baseline_usd": src["ebitda_baseline_usd"],
            "opportunities_explained": explained,
            "source_opportunity_map": f"dx_report_{portco}.json",
        }

    return memos_out, all_labels, problems


def leaves(obj):
    if isinstance(obj, bool):
        return
    if isinstance(obj, int | float):
        yield float(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from leaves(v)


def explained(src, oidx, target, tol):
    top = {k: v for k, v in src.items() if k != "opportunities"}
    vals = list(leaves(src["opportunities"][oidx])) + list(leaves(top))
    everything = list(leaves(src))
    cands = [v for v in everything] + [v * 100 for v in everything] + [v / 4 for v in vals] + [v / 12 for v in vals]
    for a, b in itertools.permutations(vals, 2):
        cands += [a + b, a - b]
        if b:
            cands += [a / b, a / b * 100]
    return [c for c in cands if abs(abs(c) - target) <= tol]


def mutate(memos, cases, notes, sources):
    out, per = [], {}
    for cls, portco, aud, oid, field, find, repl in cases:
        memo = f"explain_{portco}_{aud}.json"
        m = memos[memo]
        if field == "total_projected_impact_usd_annual":
            assert str(m[field]) == find, (memo, m[field])
        else:
            block = next(o for o in m["opportunities_explained"] if o["id"] == oid)[field]
            assert block.count(find) == 1, (memo, oid, field, find, block.count(find))
        per[cls] = per.get(cls, 0) + 1
        case = {"id": f"{cls}_{per[cls]:02d}", "memo": memo, "opportunity_id": oid, "field": field,
                "find": find, "replace": repl, "error_class": cls}
        if cls == "fabricated_figure":
            src = sources[portco]
            oidx = [o["id"] for o in src["opportunities"]].index(oid)
            new = [t for t in repl.split() if any(ch.isdigit() for ch in t) and t.strip(".,") not in [f.strip(".,") for f in find.split()]]
            d = displayed(new[0].rstrip(".,"))
            hits = explained(src, oidx, d[0], d[1])
            assert not hits, (case, hits[:5])
            case["note"] = notes[cls]
        elif cls in ("wrong_figure", "wrong_derived", "wrong_count_shape") and oid:
            src = sources[portco]
            oidx = [o["id"] for o in src["opportunities"]].index(oid)
            new = [t for t in repl.split() if any(ch.isdigit() for ch in t) and t.strip(".,") not in [f.strip(".,") for f in find.split()]]
            d = displayed(new[0].strip(".,~*()"))
            hits = explained(src, oidx, d[0], d[1])
            if hits:
                print("WARN explainable", case["id"], memo, new[0], hits[:4])
        out.append(case)
    return out


def run(sources, memos, cases, notes, out: Path, write: bool) -> None:
    """Build the corpus, print its problems and counts, and with ``write`` rewrite its files."""
    memos_out, all_labels, problems = build(sources, memos)
    for p in problems:
        print("PROBLEM", p)
    print(len(problems), "problems;", len(all_labels), "labels;", len(memos_out), "memos")
    print(Counter(lab["kind"] for lab in all_labels))
    if not write:
        return
    out.mkdir(parents=True, exist_ok=True)
    for portco, src in sources.items():
        (out / f"dx_report_{portco}.json").write_text(json.dumps(src, indent=2) + "\n")
    for name, memo in memos_out.items():
        (out / name).write_text(json.dumps(memo, indent=2, ensure_ascii=False) + "\n")
    (out / "labels.json").write_text(json.dumps(all_labels, indent=1, ensure_ascii=False) + "\n")
    muts = mutate(memos_out, cases, notes, sources)
    (out / "mutations.json").write_text(json.dumps(muts, indent=1, ensure_ascii=False) + "\n")
    print(len(muts), "mutations", Counter(m["error_class"] for m in muts))
