"""Grading results before and after a change, compared field for field on every corpus.

A speed change must not change a verdict. This grades, in each of two checkouts (each in its
own interpreter, importing its own ``pe_eval_core``):

* every memo pair of every corpus folder (``finance_output``, ``tests/corpus/*`` and their
  ``finance_output``): the whole evaluation (scores, totals, findings, marks, consistency),
  the scorecard HTML and the JSON sidecar as written (``evaluated_at`` fixed, so the bytes
  compare), one memo at a time and as a folder batch (``grade_pairs``, two jobs); and
  ``memo --all --json`` on each folder (two jobs): its report and every file it writes;
* the demo scenarios against their recorded responses: with the shipped judge verdicts, with
  no judge, and against mutated responses (numbers scaled, phrases dropped, text cut, case
  changed) so failing paths are compared too; every result field but timings;

then prints how many items were compared and every difference. Exit 1 on a difference.

    python scripts/compare_results.py --before /path/to/old/checkout [--after .]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXED_TIME = "2026-01-01T00:00:00+00:00"
VOLATILE = {"evaluated_at", "latency_ms", "started_at", "finished_at", "run_id", "duration_s"}


def corpus_folders(root: Path) -> list[Path]:
    """Every folder of the checkout holding memo pairs, sorted."""
    found = {p.parent for p in root.glob("finance_output/explain_*.json")}
    found |= {p.parent for p in root.glob("tests/corpus/*/explain_*.json")}
    found |= {p.parent for p in root.glob("tests/corpus/*/finance_output/explain_*.json")}
    return sorted(found)


def scrub(value: Any, folder: str) -> Any:
    """``value`` without timings, with the checkout's own paths made relative."""
    if isinstance(value, dict):
        return {k: scrub(v, folder) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [scrub(v, folder) for v in value]
    if isinstance(value, str):
        return value.replace(folder, "<root>")
    return value


def digest(data: bytes, *folders: str) -> str:
    for folder in folders:
        data = data.replace(folder.encode(), b"<root>")
    return hashlib.sha256(data).hexdigest()


def dump_memos(root: Path, out: dict[str, Any]) -> None:
    from pe_eval_core.memo.batch import grade_pairs
    from pe_eval_core.memo.folder_index import FolderIndex
    from pe_eval_core.memo.grader import grade_memo
    from pe_eval_core.memo.outputs import write_outputs
    from pe_eval_core.memo.pairs import find_memo_pairs

    here = str(root)
    with tempfile.TemporaryDirectory() as tmp:
        for folder in corpus_folders(root):
            rel = folder.relative_to(root).as_posix()
            pairs = [p for p in find_memo_pairs(folder) if p.source_exists]
            for pair in pairs:
                key = f"memo {rel}/{pair.memo_path.name}"
                try:
                    ev = grade_memo(pair.memo_path, pair.source_path)
                except Exception as exc:  # a typed error is a result too
                    out[key] = f"{type(exc).__name__}: {exc}"
                    continue
                ev = ev.model_copy(update={"evaluated_at": FIXED_TIME})
                out[key] = scrub(ev.model_dump(mode="json"), here)
                html, sidecar = write_outputs(ev, Path(tmp) / rel)
                out[key + " (html)"] = digest(html.read_bytes(), tmp, here)
                out[key + " (sidecar)"] = digest(sidecar.read_bytes(), tmp, here)
            for item in grade_pairs(pairs, FolderIndex.scan(folder), jobs=2):
                key = f"batch {rel}/{item.pair.memo_path.name}"
                if item.evaluation is None:
                    out[key] = f"error: {item.error}"
                else:
                    dumped = item.evaluation.model_dump(mode="json")
                    out[key] = scrub(dumped, here)


def dump_memo_all(root: Path, out: dict[str, Any]) -> None:
    """``memo --all --json`` on every corpus folder (two jobs), with the files it writes."""
    here = str(root)
    with tempfile.TemporaryDirectory() as tmp:
        for folder in corpus_folders(root):
            rel = folder.relative_to(root).as_posix()
            dest = Path(tmp) / rel
            cmd = [sys.executable, "-m", "pe_eval_core", "memo", "--all", "--json", "--jobs", "2"]
            done = subprocess.run(
                [*cmd, "--data-dir", str(folder), "--out-dir", str(dest)],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": here},
            )
            report = json.loads(done.stdout)
            out[f"memo --all {rel} (exit)"] = done.returncode
            out[f"memo --all {rel}"] = scrub(scrub(report, tmp), here)
            for written in sorted(dest.glob("eval_*")):
                text = written.read_text(encoding="utf-8")
                key = f"memo --all {rel}/{written.name}"
                if written.suffix == ".json":
                    data = json.loads(text)
                    data.pop("html_sha256", None)
                    out[key] = scrub(scrub(data, tmp), here)
                else:
                    stamp = json.loads(written.with_suffix(".json").read_text())["evaluated_at"]
                    out[key] = digest(text.replace(stamp, FIXED_TIME).encode(), tmp, here)


def mutations(text: str) -> dict[str, str]:
    """Responses a failing agent could give, derived from a recorded one."""
    scaled = re.sub(r"\d+(?:\.\d+)?", lambda m: str(round(float(m[0]) * 10, 2)), text)
    return {
        "scaled": scaled,
        "cut": text[: len(text) // 3],
        "upper": text.upper(),
        "no-digits": re.sub(r"\d", "", text),
        "dropped": " ".join(text.split()[::2]),
    }


def dump_scenarios(root: Path, out: dict[str, Any]) -> None:
    from pe_eval_core.scenarios import RecordedJudge, RecordedTarget, load_scenarios
    from pe_eval_core.scenarios import run_scenarios_sync as run

    exports = root / ".mimic" / "exports"
    scenarios = load_scenarios(exports / "mimic-scenarios.json")
    responses = exports / "recorded-responses.json"
    here = str(root)

    def results(label: str, target: Any, judge: Any = None) -> None:
        done = run(scenarios, target, judge=judge, save_responses=False, concurrency=4)
        for r in done.results:
            out[f"scenarios {label} {r.name}"] = scrub(r.model_dump(mode="json"), here)

    verdicts = RecordedJudge(exports / "judge-verdicts.json")
    results("recorded-judge", RecordedTarget(responses), verdicts)
    results("no-judge", RecordedTarget(responses))
    recorded = json.loads(responses.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in mutations("x"):
            changed = [dict(r, response=mutations(r.get("response") or "")[name]) for r in recorded]
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(changed), encoding="utf-8")
            results(f"mutated-{name}", RecordedTarget(path))


def dump(root: Path) -> dict[str, Any]:
    sys.path.insert(0, str(root))
    os.chdir(root)
    out: dict[str, Any] = {}
    dump_memos(root, out)
    dump_memo_all(root, out)
    dump_scenarios(root, out)
    return out


def run_dump(checkout: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PE_EVAL_HOME": home, "PE_EVAL_NO_HISTORY": "1"}
        env.pop("ANTHROPIC_API_KEY", None)
        env.pop("PYTHONPATH", None)
        done = subprocess.run(
            [sys.executable, __file__, "--dump", str(checkout)],
            capture_output=True,
            text=True,
            env=env,
        )
    if done.returncode != 0:
        raise SystemExit(f"grading in {checkout} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}.{k}: only {'after' if k in b else 'before'}")
            else:
                out += differences(a[k], b[k], f"{where}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: before {str(a)[:160]!r} after {str(b)[:160]!r}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the checkout before the change")
    parser.add_argument("--after", type=Path, default=ROOT, help="default: this checkout")
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dump is not None:
        print(json.dumps(dump(args.dump.resolve())))
        return 0
    if args.before is None:
        parser.error("--before is required")
    before, after = run_dump(args.before.resolve()), run_dump(args.after.resolve())
    found = differences(before, after)
    memos = sum(1 for k in after if k.startswith("memo ") and "(" not in k and "--all" not in k)
    folders = sum(1 for k in after if k.startswith("memo --all") and k.endswith("(exit)"))
    scenarios = sum(1 for k in after if k.startswith("scenarios "))
    print(f"compared {len(after)} items: {memos} memos graded alone (+ HTML and sidecar bytes), "
          f"{memos} in folder batches, memo --all on {folders} folders (report and files), "
          f"{scenarios} scenario results")  # fmt: skip
    for line in found[:50]:
        print("  " + line)
    print(f"{len(found)} differences" if found else "identical")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
