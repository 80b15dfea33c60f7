"""The red-flag families: for each, the deterministic rule that says a sentence discloses it
(used both to read a filing's disclosures for coverage and to test that a flag's excerpt
holds its type's defining fact), and the producer's stated severity rule.

A sentence discloses:

* ``customer_concentration``: a share of revenue or sales of at least 10% tied to a
  counterparty (a customer, client, partner, distributor, payor ... or a named company), by
  the subject of its verb or what it came from (``documents.concentration``). A share tied to
  a place or an industry ("14% of our revenues were derived from loans originated in
  Florida", "customers in Germany"), to a part of the company ("our brokerage subsidiary",
  "Subscription revenue") or negated ("no single end customer accounted for more than 10%")
  is no disclosure.
* ``material_weakness``: "material weakness(es)", not negated ("no material weakness", "did
  not identify any material weakness").
* ``goodwill_impairment``: goodwill and an impairment in one sentence, not negated.
* ``related_party``: a related-party transaction, lease, agreement, loan or payment, or a
  dealing with an entity controlled by an officer or director.
* ``going_concern``: "substantial doubt" about continuing as a "going concern", not negated.
* ``restatement``: a restatement (or restated) of prior-period or previously issued
  financial statements.
* ``auditor_change``: a dismissed or newly engaged independent accountant, or a change in it.
* ``severe_risk_factor`` (no coverage unit: it is a ranking, not a disclosure): an Item 1A
  paragraph of at least 300 characters with at least 3 escalation words.

>>> discloses("customer_concentration", "Our largest correspondent partner, Coastal Home "
...     "Funding, accounted for 27% of our total revenues in fiscal 2025.")
True
>>> discloses("customer_concentration", "Approximately 14% of our revenues were derived from "
...     "loans originated in Florida.")
False
>>> discloses("material_weakness", "We did not identify any material weakness in 2025.")
False
>>> discloses("customer_concentration", "Medicare and Medicaid programs accounted for 46% of "
...     "our net revenues in 2025.")
True
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pe_eval_core.documents.concentration import SHARE, concentration_share

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])")


def sentences(text: str) -> list[str]:
    """A paragraph's sentences (a period before a capital ends one).

    >>> sentences("We grew. Revenue rose 9%. ok")
    ['We grew.', 'Revenue rose 9%. ok']
    """
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def _negated(pattern: str) -> Callable[[str], bool]:
    neg = re.compile(pattern, re.I)
    return lambda s: neg.search(s) is not None


_RULES: dict[str, tuple[re.Pattern[str], Callable[[str], bool]]] = {
    "material_weakness": (
        re.compile(r"(?i)\bmaterial\s+weakness(?:es)?\b"),
        _negated(
            r"\bno\s+material\s+weakness|did\s+not\s+identify\s+any\s+material\s+weakness|"
            r"not\s+(?:identified|aware\s+of)\s+any\s+material\s+weakness"
        ),
    ),
    "goodwill_impairment": (
        re.compile(r"(?is)\bgoodwill\b.*\bimpair|\bimpair\w*\b.*\bgoodwill\b"),
        _negated(
            r"\bno\s+(?:goodwill\s+)?impairment|did\s+not\s+(?:record|recognize)\s+any\s+"
            r"(?:goodwill\s+)?impairment|goodwill\s+(?:was|is)\s+not\s+impaired"
        ),
    ),
    "related_party": (
        re.compile(
            r"(?i)\brelated[-\s]part(?:y|ies)\b.{0,60}\b(?:transactions?|leases?|agreements?|"
            r"arrangements?|loans?|payments?|purchases?|sales?|fees?)\b|"
            r"\b(?:entity|company|firm)\s+(?:controlled|owned)\s+by\s+(?:our|a|an|one\s+of\s+our)"
            r"\s+(?:chief|ceo|cfo|director|officer|founder|chair|principal|executive)"
        ),
        _negated(r"\bno\s+related[-\s]party\s+transactions?"),
    ),
    "going_concern": (
        re.compile(r"(?is)substantial\s+doubt.*going\s+concern"),
        _negated(r"\bno\s+substantial\s+doubt"),
    ),
    "restatement": (
        re.compile(
            r"(?i)\brestate(?:d|ment|ments)?\b.{0,80}\b(?:prior|previously|financial\s+"
            r"statements|period|quarters?|years?)\b"
        ),
        _negated(r"\bno\s+restatement"),
    ),
    "auditor_change": (
        re.compile(
            r"(?i)\bdismiss\w*\b.{0,100}\b(?:accounting\s+firm|auditors?|accountants?)\b|"
            r"\b(?:engaged|appointed)\b.{0,100}\bas\s+(?:our\s+)?(?:new\s+)?independent\s+"
            r"(?:registered\s+)?(?:public\s+)?account|"
            r"\bchange\s+in\s+(?:our\s+)?(?:independent\s+)?(?:registered\s+)?(?:public\s+)?"
            r"(?:accountants?|accounting\s+firm|auditors?)\b"
        ),
        _negated(r"\bno\s+changes?\s+in\s+(?:our\s+)?(?:independent\s+)?account"),
    ),
}

COVERAGE_FAMILIES = ("customer_concentration", *_RULES)
"""The families whose disclosures a red-flag file must cover (severe_risk_factor excluded)."""

_LEXICON = re.compile(
    r"(?i)\b(?:material(?:ly)?|substantial(?:ly)?|significant(?:ly)?|adverse(?:ly)?|"
    r"materially\s+harm|materially\s+impact|materially\s+affect)\b"
)


def severity_hits(paragraph: str) -> int:
    """Escalation words in a paragraph (the producer's severe-risk-factor lexicon)."""
    return len(_LEXICON.findall(paragraph))


_HYPOTHETICAL = re.compile(
    r"^\s*(?:If|Should|In\s+the\s+event)\b|"
    r"\b(?:could|may|might|would)\s+(?:\w+\s+){0,3}?"  # modal verbs in lower case: not "May 2026"
    r"(?:require|result|cause|raise|lead|record|recognize|identify|need)\b|"
    r"(?i:\bin\s+the\s+future\b|\bno\s+assurance\b|\bcannot\s+assure\b)"
)
_FACTUAL = re.compile(
    r"(?i)\b(?:we|management|the\s+company)\s+(?:identified|recorded|recognized|restated|"
    r"concluded|dismissed|engaged)\b|\bwas\s+not\s+effective\b|\baccounted\s+for\b"
)


def hypothetical(sentence: str) -> bool:
    """A risk stated as a possibility, not a fact (``If we identify a material weakness in
    the future ...``, ``we may be required to record goodwill impairment charges``).

    >>> hypothetical("If we fail to remediate the material weakness, we may be unable to report.")
    True
    >>> hypothetical("We identified a material weakness in our internal control.")
    False
    >>> hypothetical("Losses and the loan due in May 2026 raise substantial doubt.")
    False
    """
    return _HYPOTHETICAL.search(sentence) is not None and _FACTUAL.search(sentence) is None


def discloses(family: str, sentence: str, *, factual: bool = True) -> bool:
    """Whether one sentence discloses ``family`` (see the module docstring); with
    ``factual`` a hypothetical sentence discloses nothing (a coverage unit is a fact the
    filing states; a flag on a stated risk still holds its type's defining words).

    >>> discloses("goodwill_impairment", "We may be required to record goodwill impairment "
    ...     "charges in the future.")
    False
    >>> discloses("goodwill_impairment", "We may be required to record goodwill impairment "
    ...     "charges in the future.", factual=False)
    True
    """
    if factual and hypothetical(sentence):
        return False
    if family == "customer_concentration":
        return concentration_share(sentence) is not None
    rule = _RULES.get(family)
    if rule is None:
        return False
    pattern, negated = rule
    return pattern.search(sentence) is not None and not negated(sentence)


def defining_fact(family: str, excerpt: str, paragraph: str | None, item: str) -> bool:
    """Whether a flag of ``family`` holds its type's defining fact: some sentence of its
    excerpt discloses the family (severe_risk_factor: its 1A paragraph meets the rule)."""
    if family == "severe_risk_factor":
        text = paragraph or excerpt
        return item == "1A" and len(text) >= 300 and severity_hits(text) >= 3
    return any(discloses(family, s, factual=False) for s in sentences(excerpt) or [excerpt])


KNOWN_FAMILIES = (*COVERAGE_FAMILIES, "severe_risk_factor")


def expected_severity(family: str, item: str, excerpt: str, paragraph: str | None) -> str | None:
    """The severity the producer's stated rule gives a flag (None for an unknown family):
    concentration high from 25%, medium from 15%, else low; material weakness high in Item
    9A, else medium; going concern, goodwill impairment, restatement high; auditor change
    medium; related party low; severe risk factor high from 5 escalation words, else medium.

    >>> expected_severity("customer_concentration", "7", "one client was 14% of our revenues", None)
    'low'
    >>> expected_severity("material_weakness", "9A", "", None)
    'high'
    """
    if family == "customer_concentration":
        shares = [float(m["pct"]) for m in SHARE.finditer(excerpt)]
        if not shares:
            return None
        pct = max(shares)
        return "high" if pct >= 25 else ("medium" if pct >= 15 else "low")
    if family == "material_weakness":
        return "high" if item == "9A" else "medium"
    if family == "severe_risk_factor":
        return "high" if severity_hits(paragraph or excerpt) >= 5 else "medium"
    fixed = {
        "going_concern": "high",
        "goodwill_impairment": "high",
        "restatement": "high",
        "auditor_change": "medium",
        "related_party": "low",
    }
    return fixed.get(family)
