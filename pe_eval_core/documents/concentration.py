"""Customer concentration: whether a sentence ties a share of revenue (at least 10%) to a
counterparty, the one rule both the coverage of a filing and the defining fact of a
``customer_concentration`` flag use.

A share is *of revenue or sales* ("23.5% of our consolidated operating revenues", "57% of net
product sales", "54 percent of our net revenue"). It is tied to what the clause says it came
from, read in this order:

1. after the share: "... of our revenues came from / were derived from / from <X>";
2. before it, the subject of its verb: "<X> accounted for / represented / generated /
   was $84.1 million, or <share>"; a subject is the head of its clause (after a ``;``, a
   colon or ", and"), leading phrases such as "In fiscal 2025," skipped, appositions kept
   ("Our largest customer, a national home-improvement retailer, accounted for");
3. else the sentence's subject, before its first such verb ("Our top three customers accounted
   for 44%, 41% and 39% of net revenues").

``<X>`` is a counterparty when its head names one (a customer, client, distributor, payor,
partner, government agency ... "Sales to / Revenue from <X>" and "contracts with <X>" are read
as <X>) or it is a name ("Walton Home Supply", "Medicare and Medicaid programs", "Customer A").
It is not when it is negated ("No single end customer"), a group defined by a place or an
industry ("customers in Germany", "loans originated in Florida", "customers in the financial
services industry"), or a part of the company or its offering ("Our brokerage subsidiary",
"our Dedicated Contract Carriage segment", "Subscription revenue", "Sales of our X200
analyzer"). A share "less than" or "under" 10% is none.

>>> [concentration_share(s) for s in (
...     "Walton Home Supply accounted for 23.5% of our consolidated operating revenues in 2025.",
...     "Sales to customers in Germany represented 18% of net sales.",
...     "No single end customer accounted for more than 10% of total revenues in fiscal 2024.",
...     "Our brokerage subsidiary, Lakeshore Logistics, arranges freight for shippers using "
...     "third-party carriers and generated 12% of total revenues in 2025.",
...     "Our largest relationship, Coastal Home Funding, accounted for 27% of revenues.",
...     "Approximately 26% of our total revenues came from our two largest payors.",
... )]
[23.5, None, None, None, 27.0, 26.0]
"""

from __future__ import annotations

import re

SHARE = re.compile(
    r"""(?ix)
    (?P<pct>\d{1,3}(?:\.\d+)?)\s*(?:%|\s+percent)\s+of\s+
    (?:(?:[a-z'\u2019-]+|company'?s)\s+){0,4}?
    (?:revenues?|sales)\b
    """
)
"""A share of revenue or sales, up to four qualifiers between ("of the Company's consolidated
net product sales")."""

_COUNTERPARTY_WORDS = (
    r"customers?|clients?|partners?|counterpart(?:y|ies)|correspondents?|distributors?|"
    r"resellers?|payors?|payers?|tenants?|licensees?|wholesalers?|retailers?|OEMs?|carriers?|"
    r"sponsors?|purchasers?|buyers?|brokers?|aggregators?|servicers?|shippers?|dealers?|"
    r"insurers?|plans?|governments?|agenc(?:y|ies)|departments?|accounts?|users?|members?|"
    r"hospitals?|health\s+systems?|marketplaces?|platforms?"
)
_COUNTERPARTY = re.compile(rf"(?i)\b(?:{_COUNTERPARTY_WORDS})\b")
_NEGATED = re.compile(
    rf"(?i)\b(?:no|none\s+of|not\s+(?:have\s+)?any|neither)\s+(?:[\w-]+\s+){{0,3}}?"
    rf"(?:{_COUNTERPARTY_WORDS})\b"
)
_GROUP = re.compile(
    rf"(?i)\b(?:{_COUNTERPARTY_WORDS}|loans?|originations?|sales|revenues?|operations)\s+"
    r"(?:(?:located|based|domiciled|originated|generated|headquartered)\s+)?"
    r"(?:in|within|outside(?:\s+of)?|across|throughout)\b|"
    r"\b(?:originated|generated|located|based)\s+in\b|"
    r"\b(?:industry|sector|vertical)\b"
)
"""A group defined by a place or an industry, not a counterparty."""
_PART_OF_US = frozenset(
    [
        "segment",
        "segments",
        "subsidiary",
        "subsidiaries",
        "business",
        "businesses",
        "division",
        "divisions",
        "unit",
        "units",
        "product",
        "products",
        "service",
        "services",
        "subscription",
        "subscriptions",
        "brand",
        "brands",
        "line",
        "lines",
        "revenue",
        "revenues",
        "sales",
        "margin",
        "margins",
        "expense",
        "expenses",
        "cost",
        "costs",
        "income",
        "profit",
        "backlog",
        "portfolio",
        "offering",
        "offerings",
        "solution",
        "solutions",
        "fees",
        "operations",
        "stores",
        "channel",
        "website",
        "e-commerce",
    ]
)
_PREPOSITION = re.compile(
    r"(?i)^(?:in|during|for|as\s+of|as|through|at|over|since|of|by|on|from|under)\b|^\d{4}\b"
)
_VERB = (
    r"accounted\s+for|accounts?\s+for|represent(?:ed|s)?|comprised|comprises?|contributed|"
    r"generated|made\s+up|total(?:l?ed|s)|amounted\s+to|constituted|provided"
)
_VERB_BEFORE = re.compile(
    rf"""(?ix)
    (?:\b(?:together|alone|collectively|combined|each|also|in\s+(?:the\s+)?aggregate),?\s+)?
    (?:\b(?:has|have|had)\s+)?
    \b(?:{_VERB}|(?:was|were|is|are)(?:\s+\$?[\d.,]+\s*(?:million|billion|thousand|[mbk])?,?\s+or)?)
    (?:\s+(?:approximately|about|roughly|nearly|almost|over|more\s+than|an\s+aggregate\s+of|
    a\s+combined|some))*\s*$"""
)
_FIRST_VERB = re.compile(rf"(?i)\b(?:{_VERB})\b")
_AFTER = re.compile(
    r"""(?ix)^[^;.]{0,40}?\b(?:
      (?:came|come|comes|were|was|is|are)\s+(?:derived\s+|generated\s+|earned\s+|attributable\s+)?
      (?:from|by|to|through)
      |from|through)\s+(?P<party>[^;:]{1,120})"""
)
_LESS = re.compile(r"(?i)(?:less\s+than|under|below|fewer\s+than|up\s+to)\s*$")
_CLAUSE = re.compile(r";|:\s|,\s+(?:and|but|while|whereas)\s+")
_VIA = re.compile(
    r"(?i)^(?:revenues?|sales|net\s+sales|income|fees)\s+(?:from|to|with|through|by)\s+"
)
_OF_PRODUCT = re.compile(r"(?i)^(?:revenues?|sales|net\s+sales)\s+of\b")
_WITH = re.compile(r"(?i)\b(?:with|to)\s+(?P<party>.+)$")
_NOT_NAMES = frozenset(
    [
        "approximately",
        "about",
        "roughly",
        "sales",
        "revenue",
        "revenues",
        "our",
        "the",
        "we",
        "this",
        "that",
        "these",
        "in",
        "a",
        "an",
        "its",
        "their",
        "total",
        "net",
        "international",
        "domestic",
    ]
)


def _heads(subject: str) -> list[str]:
    """The head of a clause's subject and its apposition: after the clause's last break,
    leading prepositional phrases skipped, the first two comma-separated chunks."""
    part = _CLAUSE.split(subject)[-1]
    chunks = [c.strip() for c in part.split(",") if c.strip()]
    while len(chunks) > 1 and _PREPOSITION.match(chunks[0]):
        chunks.pop(0)
    return chunks[:2]


def _named(text: str, at_start: bool) -> bool:
    """A name: a capitalized word that does not merely open the sentence."""
    words = re.findall(r"[A-Za-z][\w&.'\u2019-]*", text)
    for i, w in enumerate(words):
        if not w[:1].isupper() or w.lower() in _NOT_NAMES:
            continue
        if i > 0 or not at_start or len(words) == 1 or all(x[:1].isupper() for x in words):
            return True
    return False


def _party(text: str, *, at_start: bool) -> bool | None:
    """Whether ``text`` (a subject head or the words after "from") is a counterparty; None
    when it says neither (a subject like "Our largest relationship", whose apposition may)."""
    text = text.strip()
    if not text or _NEGATED.search(text) or re.match(r"(?i)(?:no|none|neither|not)\b", text):
        return False
    via = _VIA.match(text)
    if via:
        return _party(text[via.end() :], at_start=False)
    if _OF_PRODUCT.match(text):
        return False
    with_ = _WITH.search(text)
    if with_ and not _COUNTERPARTY.search(text[: with_.start()]):
        return _party(with_["party"], at_start=False)
    if _GROUP.search(text):
        return False
    noun_phrase = re.split(r"(?i)\b(?:of|from|to|in|with|through|by|that|which|who)\b", text)[0]
    words = [w.lower().strip(".,'\u2019") for w in noun_phrase.split()]
    if words and words[-1] in _PART_OF_US:
        return False
    if _COUNTERPARTY.search(noun_phrase) or _named(noun_phrase, at_start):
        return True
    return None


def _subject(sentence: str, end: int) -> bool:
    """Whether the subject before ``sentence[:end]`` (its head, else its apposition) is a
    counterparty."""
    for i, head in enumerate(_heads(sentence[:end])):
        found = _party(head, at_start=i == 0 and sentence.startswith(head))
        if found is not None:
            return found
    return False


def _tied(sentence: str, start: int, end: int) -> bool:
    """Whether the share at ``sentence[start:end]`` is tied to a counterparty."""
    clause_start = max((m.end() for m in _CLAUSE.finditer(sentence, 0, start)), default=0)
    clause = sentence[clause_start:start]
    if _NEGATED.search(clause):
        return False
    after = _AFTER.match(sentence[end:])
    if after:
        return bool(_party(after["party"], at_start=False))
    verb = _VERB_BEFORE.search(sentence, 0, start)
    if verb is not None and verb.end() >= start - 1:
        return _subject(sentence, verb.start())
    first = _FIRST_VERB.search(sentence)
    if first is not None and first.start() < start:
        return _subject(sentence, first.start())
    return False


def concentration_share(sentence: str) -> float | None:
    """The largest share of revenue (>= 10%) a sentence ties to a counterparty, else None."""
    best = None
    for m in SHARE.finditer(sentence):
        pct = float(m["pct"])
        if pct < 10 or _LESS.search(sentence[: m.start()]):
            continue
        if _tied(sentence, m.start(), m.end()):
            best = pct if best is None else max(best, pct)
    return best
