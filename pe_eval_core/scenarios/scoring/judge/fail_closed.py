"""The fail-closed checks every verdict passes, whatever judge produced it (the live model, a
recorded file, a cache): a ``paraphrase`` stands only when its evidence is a verbatim quote of
the response that states every number of the expected phrase where it quotes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pe_eval_core.numbers import extract_numbers, number_values
from pe_eval_core.scenarios.models import JudgeVerdict
from pe_eval_core.scenarios.scoring.judge.protocol import CLAIM_PREFIX


def _squash(text: str) -> str:
    return " ".join(text.split())


def evidence_in_response(evidence: str, response: str) -> bool:
    """True when the quote occurs verbatim in the response (whitespace runs may differ).

    >>> evidence_in_response("VP of  Engineering", "Ask the VP of\\nEngineering.")
    True
    >>> evidence_in_response("vp of engineering", "Ask the VP of Engineering.")
    False
    >>> evidence_in_response("  ", "anything")
    False
    """
    quote = _squash(evidence)
    return bool(quote) and any(c.isalnum() for c in quote) and quote in _squash(response)


def numbers_missing_from_evidence(expected: str, evidence: str) -> list[str]:
    """The numbers of ``expected`` that the quote does not state (in any format), as written.

    Values compare by magnitude after scaling (``4,820`` = ``4820`` = ``$4.82k``; a sign
    style such as ``-$4,820`` for a loss is the judge's call), never approximately:

    >>> numbers_missing_from_evidence("$4,820 lost", "we lost $4.82k (4820 USD)")
    []
    >>> numbers_missing_from_evidence("$4,820 across 5 causes", "matches exactly: five causes")
    ['$4,820', '5']
    >>> numbers_missing_from_evidence("$4,820", "about $4.8k")
    ['$4,820']
    """
    wanted = extract_numbers(expected)
    if not wanted:
        return []
    have = {abs(v) for v in number_values(evidence)}
    return [m.raw for m in wanted if abs(m.value) not in have]


def numbers_missing_at_quote(expected: str, evidence: str, response: str) -> list[str]:
    """The quantities of ``expected`` that the response does not state where ``evidence``
    quotes it.

    Both sides are read by ``range_reader.read_numbers`` (digits in any format, number words,
    thin and no-break space separators; years, ids and phone numbers are not quantities) and
    compared by ``evidence.same_number`` (the evidence rule's step 3: same magnitude, same
    percent-ness, no other currency, rounding as displayed). The response's own readings of
    the quoted place count (the number mentions the quote overlaps), so a quote cut out of a
    longer number states that number, not the fragment: "124" quoted from "12400" is 12400.

    >>> numbers_missing_at_quote("$124", "124", "Lost 12400 this week")
    ['$124']
    >>> numbers_missing_at_quote("$4,820", "4,820", "MRR change: -$4,820 net")
    []
    >>> numbers_missing_at_quote("4 cards expired", "Four cards expired", "Four cards expired.")
    []
    """
    from pe_eval_core.scenarios.scoring.evidence import expected_quantities, same_number
    from pe_eval_core.scenarios.scoring.range_reader import Kind, read_numbers

    wanted = expected_quantities(expected)  # "no"/"none" are negation, not figures
    if not wanted:
        return []
    parts = evidence.split()
    if not parts:
        return [n.raw for n in wanted]
    mentions = [n for n in read_numbers(response) if n.kind is Kind.QUANTITY]
    first: list[str] | None = None
    pattern = r"\s+".join(map(re.escape, parts))
    for quote in re.finditer(pattern, response):
        start, end = quote.span()
        have = [m for m in mentions if m.start < end and m.end > start]
        missing = [w.raw for w in wanted if not any(same_number(w, h) for h in have)]
        if not missing:
            return []
        first = missing if first is None else first
    return first if first is not None else [n.raw for n in wanted]


def numbers_never_stated(expected: str, response_values: Iterable[float]) -> list[str]:
    """The numbers of ``expected`` that the response states nowhere (``response_values`` are
    its numbers): no quote can state them, so no judge's ``paraphrase`` would survive.

    >>> numbers_never_stated("$241 refunded", [214.0, 4820.0]), numbers_never_stated("x", [])
    (['$241'], [])
    """
    wanted = extract_numbers(expected)
    if not wanted:
        return []
    have = {abs(v) for v in response_values}
    return [m.raw for m in wanted if abs(m.value) not in have]


def enforce_evidence(verdict: JudgeVerdict, response: str) -> JudgeVerdict:
    """Downgrade a ``paraphrase`` unless its evidence is a verbatim quote of the response that
    states every number of the expected phrase where it quotes the response (so planted
    "evidence", or a fragment cut out of another number, cannot pass an amount). The scorer
    then asks ``evidence.check_evidence`` whether the quote carries the fact
    (``scoring.carried``).
    """
    if verdict.verdict != "paraphrase":
        return verdict
    if not evidence_in_response(verdict.evidence, response):
        why = "evidence quote not found verbatim in the response (failed closed)"
    elif verdict.expected.startswith(CLAIM_PREFIX):
        return verdict  # a behaviour claim: ``behaviour.apply_claim_verdict`` decides
    else:
        missing = numbers_missing_at_quote(verdict.expected, verdict.evidence, response)
        if not missing:
            return verdict
        why = (
            f"evidence quote does not state {', '.join(missing)} from the expected phrase "
            "(failed closed)"
        )
    return verdict.model_copy(
        update={
            "verdict": "missed",
            "reason": why + (f"; judge said: {verdict.reason}" if verdict.reason else ""),
        }
    )
