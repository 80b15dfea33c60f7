"""10-K/CIM red flags (``cim_redflags_<doc>.json``) graded against the filing they read.

Citation: each excerpt verbatim (whitespace-normalised) at its stated item and paragraph, and
each figure of excerpt and rationale stated in the filing. Hallucination: flags whose excerpt
or figures are not in the filing or whose type's defining fact is not in the excerpt, and the
company name, form and fiscal year. Coverage: the filing's disclosures of each flag family
(``flag_rules``) that some flag of that family covers. Consistency: the summary counts equal
the flags, each severity follows the producer's stated rule, and the stated section and
character counts match the filing.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pe_eval_core.documents.core import Ledger, consistency_note, source_ref
from pe_eval_core.documents.filing import Filing, parse_filing, squash
from pe_eval_core.documents.flag_rules import (
    COVERAGE_FAMILIES,
    KNOWN_FAMILIES,
    defining_fact,
    discloses,
    expected_severity,
    sentences,
    severity_hits,
)
from pe_eval_core.documents.loading import read_text_source, require_list, resolve_named
from pe_eval_core.documents.results import DocFindingKind, DocumentEvaluation, DocumentKind
from pe_eval_core.errors import DocumentSourceError
from pe_eval_core.limits import check_file_size
from pe_eval_core.numbers import NumberMention, extract_numbers
from pe_eval_core.text_norm import moved, normalize

_HITS = re.compile(r"(?P<n>\d+)\s+severity-language\s+hits")
_ITEM_REF = re.compile(r"(?i)\bitems?\s+\d{1,2}[A-C]?\b|\b\d{1,2}-[KQ]\b|\bS-\d\b")
_DIGITS = re.compile(r"\d[\d,]*(?:\.(?P<dec>\d+))?")


def _filing_path(path: Path, data: dict[str, Any], given: Path | None) -> Path:
    if given is not None:
        if not given.is_file():
            raise DocumentSourceError(f"filing {given} does not exist")
        return given
    url = data.get("source_url")
    named = url.split("?")[0].rstrip("/") if isinstance(url, str) else None
    found = resolve_named(path, named, field="source_url", inputs=True)
    if found is None:
        raise DocumentSourceError(
            f"{path.name}: the filing named in source_url is neither beside the document nor "
            "in ../inputs beside its folder",
            fix="Put the filing (the 10-K HTML) beside the document or in ../inputs, or name "
            "it as the document's source.",
        )
    return found


def _figures(text: str) -> list[NumberMention]:
    """The figures of an excerpt or rationale (item and form references are not figures),
    read as a reader sees them (``text_norm.normalize``), spans as written."""
    norm = normalize(text)
    read = norm.text
    refs = [(m.start(), m.end()) for m in _ITEM_REF.finditer(read)]
    found = [n for n in extract_numbers(read) if not any(s <= n.start < e for s, e in refs)]
    return [moved(n, norm) for n in found]


def _stated_in(n: NumberMention, mentions: list[NumberMention]) -> bool:
    """The filing states ``n`` (same kind of number, within its displayed precision)."""
    m = _DIGITS.search(n.raw)
    decimals = len(m["dec"] or "") if m else 0
    shown = float(m.group().replace(",", "")) if m else abs(n.value)
    scale = abs(n.value) / shown if shown else 1.0
    tol = 0.5 * 10**-decimals * scale + 1e-9
    return any(x.percent == n.percent and abs(abs(x.value) - abs(n.value)) <= tol for x in mentions)


class _Grader:
    def __init__(self, data: dict[str, Any], filing: Filing, filing_name: str):
        self.data = data
        self.filing = filing
        self.name = filing_name
        self.led = Ledger()
        self.mentions = extract_numbers(normalize(filing.text).text)  # values only
        self.squashed = {(i, k): squash(p) for i, k, p in filing.addresses()}
        self.whole = squash(filing.text)
        self.located: dict[str, tuple[str, int] | None] = {}

    def locate(self, excerpt: str) -> tuple[str, int] | bool | None:
        """Where the excerpt is verbatim: (item, index); True if only outside any paragraph;
        None when nowhere."""
        needle = squash(excerpt.removesuffix("...").removesuffix("…"))
        if not needle:
            return None
        for address, para in self.squashed.items():
            if needle in para:
                return address
        return True if needle in self.whole else None

    def excerpt(self, fid: str, base: str, flag: dict[str, Any]) -> tuple[str, int] | bool | None:
        excerpt = str(flag.get("excerpt") or "")
        item = str(flag.get("item") or "")
        index = flag.get("paragraph_index")
        stated = (item, index) if isinstance(index, int) else None
        where = self.locate(excerpt)
        ok = where is not None and where is not True and where == stated
        self.led.check(
            "citation_accuracy",
            "excerpt",
            ok,
            fid,
            f"{base}.excerpt",
            excerpt[:80],
            role="verbatim at item and paragraph",
            source_path=f"Item {item} ¶{index}",
        )
        if ok:
            return where
        if where is None:
            para = self.filing.paragraph(item, index) if isinstance(index, int) else None
            nearest = _nearest_paragraph(excerpt, para, self.filing)
            self.led.finding(
                DocFindingKind.EXCERPT_NOT_FOUND,
                f"the excerpt is not verbatim anywhere in {self.name}"
                + (f"; closest text at Item {nearest[0]} ¶{nearest[1]}" if nearest else ""),
                item_id=fid,
                field=f"{base}.excerpt",
                raw=excerpt,
                expected=nearest[2] if nearest else None,
                expected_path=f"{self.name}: Item {nearest[0]} ¶{nearest[1]}" if nearest else None,
            )
        else:
            actual = (
                f"Item {where[0]} ¶{where[1]}"
                if isinstance(where, tuple)
                else "outside any item paragraph"
            )
            self.led.finding(
                DocFindingKind.EXCERPT_MISPLACED,
                f"the excerpt is cited at Item {item} ¶{index} but is verbatim at {actual}",
                item_id=fid,
                field=f"{base}.item",
                raw=f"Item {item} ¶{index}",
                expected=actual,
                expected_path=f"{self.name}: {actual}",
            )
        return where

    def figures(self, fid: str, base: str, flag: dict[str, Any], where: Any) -> list[str]:
        missing: list[str] = []
        for key in ("excerpt", "rationale"):
            text = flag.get(key)
            if not isinstance(text, str):
                continue
            hits = _HITS.search(text) if key == "rationale" else None
            if hits is not None:
                self._hits(fid, f"{base}.{key}", hits, where)
            for n in _figures(text):
                if hits is not None and hits.start("n") == n.start:
                    continue
                ok = _stated_in(n, self.mentions)
                self.led.check(
                    "citation_accuracy",
                    "figure",
                    ok,
                    fid,
                    f"{base}.{key}",
                    n.raw,
                    role="stated in the filing",
                    start=n.start,
                    end=n.end,
                )
                if not ok:
                    missing.append(n.raw)
                    self.led.finding(
                        DocFindingKind.FIGURE_NOT_IN_FILING,
                        f"{n.raw!r} in the {key} is not a figure {self.name} states",
                        item_id=fid,
                        field=f"{base}.{key}",
                        raw=n.raw,
                        start=n.start,
                        end=n.end,
                    )
        return missing

    def _hits(self, fid: str, field: str, m: re.Match[str], where: Any) -> None:
        """The rationale's count of escalation words, derived from the cited paragraph."""
        para = self.filing.paragraph(*where) if isinstance(where, tuple) else None
        if para is None:
            return
        expected = severity_hits(para)
        ok = int(m["n"]) == expected
        self.led.check(
            "citation_accuracy",
            "derivation",
            ok,
            fid,
            field,
            m["n"],
            role="escalation words in the paragraph",
            source_value=expected,
        )
        if not ok:
            self.led.finding(
                DocFindingKind.BROKEN_DERIVATION,
                f"the rationale counts {m['n']} severity-language hits; the paragraph has "
                f"{expected}",
                item_id=fid,
                field=field,
                raw=m["n"],
                expected=expected,
            )

    def truth(
        self, fid: str, base: str, flag: dict[str, Any], where: Any, missing: list[str]
    ) -> None:
        """One hallucination unit per flag: in the filing, its figures stated, its type's
        defining fact in its excerpt."""
        family = str(flag.get("flag_type") or "")
        excerpt = str(flag.get("excerpt") or "")
        item = str(flag.get("item") or "")
        para = self.filing.paragraph(*where) if isinstance(where, tuple) else None
        kind: DocFindingKind | None = None
        if where is None or missing:
            kind = DocFindingKind.HALLUCINATED_FLAG
            why = (
                "its excerpt is not in the filing"
                if where is None
                else (f"its figures {', '.join(missing)} are not in the filing")
            )
        elif family not in KNOWN_FAMILIES:
            kind = DocFindingKind.WRONG_FLAG_TYPE
            why = f"{family!r} is no flag family of the producer"
        elif not defining_fact(family, excerpt, para, item):
            kind = DocFindingKind.WRONG_FLAG_TYPE
            why = f"its excerpt does not state the defining fact of {family}" + (
                " (a share of revenue tied to a place or product, not to a customer)"
                if family == "customer_concentration"
                else ""
            )
        self.led.check(
            "hallucination_rate",
            "flag",
            kind is None,
            fid,
            f"{base}.flag_type",
            family,
            role="flag",
        )
        if kind is not None:
            self.led.finding(
                kind,
                f"flag {family}: {why}",
                item_id=fid,
                field=f"{base}.flag_type",
                raw=family,
            )

    def severity(self, fid: str, base: str, flag: dict[str, Any], where: Any) -> None:
        family = str(flag.get("flag_type") or "")
        item = str(flag.get("item") or "")
        para = self.filing.paragraph(*where) if isinstance(where, tuple) else None
        expected = expected_severity(family, item, str(flag.get("excerpt") or ""), para)
        stated = flag.get("severity")
        if expected is None:
            return
        self.led.compare(
            f"{fid} severity by the producer's rule",
            stated,
            expected,
            stated == expected,
            kind=DocFindingKind.SEVERITY_RULE,
            item_id=fid,
            field=f"{base}.severity",
            expected_path=f"severity rule for {family}",
            message=f"{family} flag rated {stated!r}; the producer's rule gives {expected!r}",
        )


def _nearest_paragraph(
    excerpt: str, stated: str | None, filing: Filing
) -> tuple[str, int, str] | None:
    """The paragraph most like the excerpt (the stated one first when it is close)."""
    best: tuple[float, tuple[str, int, str]] | None = None
    probe = squash(excerpt)[:400]
    for item, k, para in filing.addresses():
        ratio = difflib.SequenceMatcher(None, probe, squash(para)[: len(probe) + 200]).quick_ratio()
        if best is None or ratio > best[0]:
            best = (ratio, (item, k, para))
    return best[1] if best and best[0] >= 0.5 else None


def _coverage(g: _Grader, flags: list[tuple[str, dict[str, Any], Any]]) -> int:
    covered: set[tuple[str, str, int]] = set()
    for _, flag, where in flags:
        family = str(flag.get("flag_type") or "")
        index = flag.get("paragraph_index")
        if isinstance(where, tuple):
            covered.add((family, *where))
        if isinstance(index, int):
            covered.add((family, str(flag.get("item") or ""), index))
    units = 0
    for item, k, para in g.filing.addresses():
        if re.match(r"(?i)item\s+\d", para):
            continue  # a header line names a topic, it discloses nothing
        for family in COVERAGE_FAMILIES:
            hit = next((s for s in sentences(para) if discloses(family, s)), None)
            if hit is None:
                continue
            units += 1
            ok = (family, item, k) in covered
            g.led.check(
                "coverage",
                "disclosure",
                ok,
                None,
                f"Item {item} ¶{k}",
                hit[:120],
                role=family,
                source_path=f"{g.name}: Item {item} ¶{k}",
            )
            if not ok:
                g.led.finding(
                    DocFindingKind.UNCOVERED_DISCLOSURE,
                    f"Item {item} ¶{k} discloses {family.replace('_', ' ')} and no flag covers it",
                    field=f"{g.name}: Item {item} ¶{k}",
                    raw=hit,
                    expected=family,
                    expected_path=f"{g.name}: Item {item} ¶{k}",
                )
    return units


def _summary(g: _Grader, flags: list[dict[str, Any]]) -> None:
    summary = g.data.get("summary")
    if not isinstance(summary, dict):
        return
    total = summary.get("total")
    if isinstance(total, int):
        g.led.compare(
            "summary total vs flags",
            total,
            len(flags),
            total == len(flags),
            kind=DocFindingKind.COUNT_MISMATCH,
            field="summary.total",
            expected_path="len(flags)",
        )
    for key, attr in (("by_severity", "severity"), ("by_type", "flag_type")):
        stated = summary.get(key)
        if not isinstance(stated, dict):
            continue
        actual = Counter(str(f.get(attr)) for f in flags)
        for name in sorted(set(stated) | set(actual)):
            said = stated.get(name, 0)
            g.led.compare(
                f"summary {key}.{name} vs flags",
                said,
                actual.get(name, 0),
                said == actual.get(name, 0),
                kind=DocFindingKind.COUNT_MISMATCH,
                field=f"summary.{key}.{name}",
                expected_path=f"flags with {attr} {name}",
            )


def _header(g: _Grader) -> None:
    text = squash(g.filing.text).casefold()
    for key in ("company_name", "form", "fiscal_year_end"):
        value = g.data.get(key)
        if not isinstance(value, str) or value.strip().lower() in ("", "n/a", "—"):
            continue
        ok = squash(value).casefold() in text
        g.led.check("hallucination_rate", "entity", ok, None, key, value, role=key)
        if not ok:
            g.led.finding(
                DocFindingKind.UNGROUNDED_ENTITY,
                f"{key} {value!r} is not in {g.name}",
                field=key,
                raw=value,
            )
    for key, actual in (
        ("n_sections_parsed", len(g.filing.paragraphs)),
        ("char_count", len(g.filing.text)),
    ):
        stated = g.data.get(key)
        if isinstance(stated, int) and not isinstance(stated, bool):
            g.led.compare(
                f"{key} vs the filing",
                stated,
                actual,
                stated == actual,
                kind=DocFindingKind.COUNT_MISMATCH,
                field=key,
                expected_path=g.name,
            )


def grade_redflags(
    path: Path, data: dict[str, Any], *, source: Path | None = None
) -> DocumentEvaluation:
    """Grade one red-flag file (already read) against the filing it read."""
    filing_path = _filing_path(path, data, source)
    check_file_size(filing_path, input="source")
    html_text = read_text_source(filing_path)
    g = _Grader(data, parse_filing(html_text), filing_path.name)
    raw_flags = [f for f in require_list(data, "flags", path) if isinstance(f, dict)]
    placed: list[tuple[str, dict[str, Any], Any]] = []
    items: list[tuple[str, str, bool]] = []
    for i, flag in enumerate(raw_flags):
        fid = f"flag_{i + 1:02d}"
        base = f"flags[{i}]"
        where = g.excerpt(fid, base, flag)
        missing = g.figures(fid, base, flag, where)
        g.truth(fid, base, flag, where, missing)
        g.severity(fid, base, flag, where)
        placed.append((fid, flag, where))
        items.append(
            (
                fid,
                f"{flag.get('flag_type')} · Item {flag.get('item')} ¶{flag.get('paragraph_index')}",
                where is not None,
            )
        )
    units = _coverage(g, placed)
    _summary(g, raw_flags)
    _header(g)
    excerpts, located = g.led.count("excerpt")
    return g.led.evaluation(
        kind=DocumentKind.CIM_REDFLAGS,
        document_id=path.stem.removeprefix("cim_redflags_") or str(data.get("company_name")),
        document_path=path,
        sources=source_ref("filing", filing_path),
        items=items,
        consistency_note=consistency_note(g.led.rows, "summary and severity"),
        coverage_label="disclosures",
        extra_totals={
            "flags_total": len(raw_flags),
            "excerpts_total": excerpts,
            "excerpts_located": located,
            "disclosures_in_filing": units,
            "disclosures_flagged": g.led.count("disclosure")[1],
        },
    )
