"""The names a DDQ answer states, checked against its knowledge base: portco ids, filing
companies, EU AI Act articles, dates, classifications and artifact files.

A name is a token shaped like an id (``MortgageCo``, ``HMDA_GA``, ``midwest_lender``,
``LendingCo-EU``), a company named before its form (``Harbor Ridge Lending Holdings (10-K)``),
an ``Article N`` (or ``Articles N–M``), an ISO date, ``<portco>: <class>-risk``, or a
``*.json`` file. Terms of art (``AI``, ``EBITDA``, ``OpportunityMap``, ``FY26``, ``EU-scope``)
name nothing and are not counted.

>>> [t for t, _ in id_tokens("Across MortgageCo, HMDA_GA and midwest_lender (AI-adjacent, FY26)")]
['MortgageCo', 'HMDA_GA', 'midwest_lender']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pe_eval_core.documents.core import Ledger
from pe_eval_core.documents.ddq_kb import KnowledgeBase
from pe_eval_core.documents.results import DocFindingKind

_TERM_WORDS = """AI ML BX DX EU IC LP LPs GP GPs CIM IM EBITDA ILPA DDQ DDQs KPI ICFR SEC MRM
GOV VEND REG VAL EXIT DATA USD OpportunityMap OpportunityMaps IM/CIM"""
TERMS = frozenset(_TERM_WORDS.split())
"""Terms of art in the producer's answers: no portfolio company, never counted."""

_ID = re.compile(
    r"(?<![\w*/.-])(?P<tok>[A-Z][a-zA-Z0-9]*[A-Z][\w]*(?:-[A-Za-z0-9]+)*"
    r"|[A-Z]{2,}_[A-Z0-9_]+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w*/-])"
)
_COMPANY = re.compile(
    r"(?P<name>[A-Z][\w&.,'-]*(?:\s+[A-Z][\w&.,'-]*){0,6})\s+\((?:10-K|10-Q|S-1|S-4|20-F|CIM)\)"
)
_ARTICLES = re.compile(r"\bArticles?\s+(?P<a>\d+)(?:\s*[–-]\s*(?P<b>\d+))?")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_CLASS = re.compile(r"(?P<name>[\w-]+):\s*(?P<cls>(?:not\s+)?[a-z]+-risk)\b")
_FILE = re.compile(r"(?<![\w*])[\w.-]+\.json\b")


def _is_term(token: str) -> bool:
    if token in TERMS or re.fullmatch(r"FY\d{2,4}|Q[1-4]", token):
        return True
    parts = token.split("-")
    return len(parts) > 1 and all(p in TERMS or p.islower() for p in parts)


def id_tokens(text: str) -> Iterator[tuple[str, int]]:
    """Id-shaped tokens that are not terms of art, with their offsets."""
    for m in _ID.finditer(text):
        tok = m["tok"]
        if not _is_term(tok):
            yield tok, m.start()


def _field_names(kb: KnowledgeBase) -> set[str]:
    """Every key of every knowledge-base file: a snake_case token may name a field."""
    out: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            out.update(k for k in x if isinstance(k, str))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x[:50]:
                walk(v)

    for files in kb.files.values():
        for data in files.values():
            walk(data)
    return out


def _strings(x: Any, out: set[str]) -> set[str]:
    if isinstance(x, str):
        out.add(x)
    elif isinstance(x, dict):
        for v in x.values():
            _strings(v, out)
    elif isinstance(x, list):
        for v in x:
            _strings(v, out)
    return out


def _name(
    led: Ledger, qid: str, field: str, raw: str, category: str, ok: bool, where: str, at: int
) -> None:
    led.check("hallucination_rate", "entity", ok, qid, field, raw, role=category, start=at)
    if not ok:
        led.finding(
            DocFindingKind.UNGROUNDED_ENTITY,
            f"{category} {raw!r} is not in {where}",
            item_id=qid,
            field=field,
            raw=raw,
            start=at,
            end=at + len(raw),
        )


def check_names(
    led: Ledger,
    kb: KnowledgeBase,
    qid: str,
    field: str,
    text: str,
    cited: dict[str, list[str]],
    ddq: dict[str, Any],
) -> None:
    """Record one hallucination check per name the answer states."""
    everyone = kb.portcos() | {str(ddq.get("fund_name") or "")}
    # A portco an answer names is one its cited artifacts are about (an answer citing the AI
    # Act audits may name only audited portcos); an answer citing nothing: any of the base.
    scope = kb.portcos(cited) if any(cited.values()) else everyone
    corpora = {str(d.get("corpus_id")) for d in kb.files.get("bx", {}).values()}
    fields = _field_names(kb)
    held = {n for files in kb.files.values() for n in files}
    where = "its cited artifacts" if any(cited.values()) else "the knowledge base"
    for tok, at in id_tokens(text):
        if tok in fields and tok not in everyone:
            continue  # a field name (evidence_row_ids), not an entity
        ok = tok in scope or tok in corpora or tok == ddq.get("fund_name")
        _name(led, qid, field, tok, "portco", ok, where, at)
    companies = {str(d.get("company_name")) for d in kb.files.get("cim", {}).values()}
    for m in _COMPANY.finditer(text):
        _name(
            led,
            qid,
            field,
            m["name"],
            "company",
            m["name"] in companies,
            "the red-flag files",
            m.start(),
        )
    cited_data = [
        kb.files[f][n] for f, names in cited.items() for n in names if n in kb.files.get(f, {})
    ]
    articles = {
        a for d in kb.files.get("ai_act", {}).values() for a in d.get("articles_addressed") or []
    }
    # Articles are the regulation's: checked against the audits an answer cites, when it does.
    for m in _ARTICLES.finditer(text if cited.get("ai_act") else ""):
        lo, hi = int(m["a"]), int(m["b"] or m["a"])
        for k in range(lo, hi + 1) if hi - lo <= 20 else (lo, hi):
            _name(
                led,
                qid,
                field,
                f"Article {k}",
                "article",
                f"Article {k}" in articles,
                "the AI Act audits",
                m.start(),
            )
    strings = set().union(*(_strings(d, set()) for d in cited_data)) if cited_data else set()
    for m in _DATE.finditer(text):
        _name(
            led,
            qid,
            field,
            m.group(),
            "date",
            m.group() in strings,
            "its cited artifacts",
            m.start(),
        )
    audits = {str(d.get("portco_id")): d for d in kb.files.get("ai_act", {}).values()}
    for m in _CLASS.finditer(text):
        audit = audits.get(m["name"])
        if audit is not None:
            ok = str(audit.get("high_risk_classification", "")).lower() == m["cls"].lower()
            _name(
                led,
                qid,
                field,
                f"{m['name']}: {m['cls']}",
                "classification",
                ok,
                "its AI Act audit",
                m.start(),
            )
    for m in _FILE.finditer(text):
        _name(
            led,
            qid,
            field,
            m.group(),
            "artifact",
            m.group() in held,
            "the knowledge base",
            m.start(),
        )
