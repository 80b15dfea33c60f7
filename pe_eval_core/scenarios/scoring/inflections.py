"""Word forms strict matching accepts: the last word's inflections, British/US spellings.

An eval engineer writes ``risk flag``; the agent writes ``risk flags``. An engineer in London
writes ``cancelled``; an agent trained on US text writes ``canceled``. Neither changes the
fact, and the seed's substring check already passes the first (``"risk flag"`` is inside
``"risk flags"``). The rules, each a row of ``tests/scenarios/test_inflections.py``:

1. **Last word, inflected.** The phrase's last word, when it is a run of at least 3 letters,
   also matches its other regular forms: the base form and its plural (``flag``/``flags``,
   ``policy``/``policies``, ``charge``/``charges``, ``box``/``boxes``) and its ``-ed`` form
   (``drop``/``dropped``, ``charge``/``charged``, ``retry``/``retried``). A last word in
   ``-ed`` states that something happened and matches only ``-ed`` forms: ``churned`` is not
   ``might churn``. Forms are built from the base, never looked up: a form that is not an
   English word matches nothing. Only the last word: ``failed charges`` is not ``fail
   charges``.
2. **Spellings, any word.** A word with a British and a US spelling matches both: the
   ``-ise``/``-ize`` and ``-yse``/``-yze`` families (``prioritise``, ``analysed``,
   ``organisation``), and a table of common words (``-our``/``-or``, ``-re``/``-er``,
   doubled ``l``, ``-ogue``/``-og``, ``-ence``/``-ense``, ``programme``, ``judgement``).
   ``-our`` and ``-re`` are a table, not a rule: ``four`` is not ``for``.
3. **Nothing else.** No stemming across word classes (``refund`` does not match
   ``refundable``), no synonyms: those are the judge's call.

>>> sorted(word_forms("flag", last=True))  # both -ed forms: "visited", "dropped"
['flag', 'flaged', 'flagged', 'flags']
>>> sorted(word_forms("cancelled", last=False))
['canceled', 'cancelled']
>>> sorted(word_forms("retry", last=True))
['retried', 'retries', 'retry']
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["lemmas", "spellings", "word_forms"]

_VOWELS = frozenset("aeiou")

# British spelling -> US spelling for common words outside the -ise/-ize family. Each entry
# also covers the inflected forms listed with it.
_BRITISH_US: dict[str, str] = {}
for _uk, _us in (
    ("behaviour", "behavior"),
    ("colour", "color"),
    ("favour", "favor"),
    ("favourite", "favorite"),
    ("honour", "honor"),
    ("labour", "labor"),
    ("neighbour", "neighbor"),
    ("rumour", "rumor"),
    ("humour", "humor"),
    ("harbour", "harbor"),
    ("flavour", "flavor"),
    ("endeavour", "endeavor"),
    ("vigour", "vigor"),
    ("rigour", "rigor"),
    ("centre", "center"),
    ("metre", "meter"),
    ("litre", "liter"),
    ("theatre", "theater"),
    ("fibre", "fiber"),
    ("calibre", "caliber"),
    ("cancelled", "canceled"),
    ("cancelling", "canceling"),
    ("labelled", "labeled"),
    ("labelling", "labeling"),
    ("modelled", "modeled"),
    ("modelling", "modeling"),
    ("travelled", "traveled"),
    ("travelling", "traveling"),
    ("signalled", "signaled"),
    ("fuelled", "fueled"),
    ("totalled", "totaled"),
    ("totalling", "totaling"),
    ("levelled", "leveled"),
    ("channelled", "channeled"),
    ("counselled", "counseled"),
    ("enrolment", "enrollment"),
    ("enrol", "enroll"),
    ("enrolled", "enrolled"),
    ("fulfil", "fulfill"),
    ("fulfilment", "fulfillment"),
    ("instalment", "installment"),
    ("skilful", "skillful"),
    ("catalogue", "catalog"),
    ("dialogue", "dialog"),
    ("analogue", "analog"),
    ("licence", "license"),
    ("defence", "defense"),
    ("offence", "offense"),
    ("pretence", "pretense"),
    ("programme", "program"),
    ("judgement", "judgment"),
    ("acknowledgement", "acknowledgment"),
    ("ageing", "aging"),
    ("grey", "gray"),
    ("cheque", "check"),
    ("aluminium", "aluminum"),
):
    for _suffix in ("", "s"):
        _BRITISH_US[_uk + _suffix] = _us + _suffix
_US_BRITISH = {us: uk for uk, us in _BRITISH_US.items() if us != uk}

# The -ise/-ize family, by suffix (British -> US); the stem before it keeps 3+ letters.
_ISE_SUFFIXES = (
    ("isations", "izations"),
    ("isation", "ization"),
    ("ising", "izing"),
    ("ised", "ized"),
    ("ises", "izes"),
    ("iser", "izer"),
    ("isers", "izers"),
    ("ise", "ize"),
    ("ysing", "yzing"),
    ("ysed", "yzed"),
    ("yses", "yzes"),
    ("yse", "yze"),
)

# Words ending in -ise that never take -ize: no US form is made for them.
_ALWAYS_ISE = frozenset(
    [
        "advise",
        "advertise",
        "arise",
        "comprise",
        "compromise",
        "concise",
        "despise",
        "devise",
        "disguise",
        "enterprise",
        "exercise",
        "expertise",
        "franchise",
        "improvise",
        "merchandise",
        "noise",
        "otherwise",
        "paradise",
        "precise",
        "premise",
        "promise",
        "raise",
        "revise",
        "rise",
        "supervise",
        "surprise",
        "televise",
        "wise",
        "cruise",
        "chastise",
        "excise",
        "incise",
    ]
)


@lru_cache(maxsize=4096)
def spellings(word: str) -> frozenset[str]:
    """The word's British and US spellings (rule 2), lower-cased, itself included.

    >>> sorted(spellings("Prioritised")), sorted(spellings("analyze"))
    (['prioritised', 'prioritized'], ['analyse', 'analyze'])
    >>> sorted(spellings("behaviours")), sorted(spellings("four")), sorted(spellings("promise"))
    (['behaviors', 'behaviours'], ['four'], ['promise'])
    """
    w = word.lower()
    out = {w}
    if w in _BRITISH_US:
        out.add(_BRITISH_US[w])
    if w in _US_BRITISH:
        out.add(_US_BRITISH[w])
    for uk, us in _ISE_SUFFIXES:
        for a, b in ((uk, us), (us, uk)):
            if w.endswith(a) and len(w) - len(a) >= 3:
                base = w[: -len(a)]
                if (base + uk[:3]) in _ALWAYS_ISE or base + "ise" in _ALWAYS_ISE:
                    continue
                out.add(base + b)
                break
        else:
            continue
        break
    return frozenset(out)


def _plural(base: str) -> str:
    if base.endswith("y") and len(base) > 1 and base[-2] not in _VOWELS:
        return base[:-1] + "ies"
    if base.endswith(("s", "x", "z", "ch", "sh")):
        return base + "es"
    return base + "s"


def _past(base: str) -> list[str]:
    if base.endswith("e"):
        return [base + "d"] if len(base) > 3 else []  # not fee -> feed, see -> seed
    if base.endswith("y") and len(base) > 1 and base[-2] not in _VOWELS:
        return [base[:-1] + "ied"]
    out = [base + "ed"]
    # A final consonant after one vowel doubles: drop -> dropped, cancel -> cancelled.
    if (
        len(base) >= 3
        and base[-1] not in _VOWELS | {"w", "x", "y"}
        and base[-2] in _VOWELS
        and base[-3] not in _VOWELS
    ):
        out.append(base + base[-1] + "ed")
    return out


def lemmas(word: str) -> frozenset[str]:
    """The base forms ``word`` may be an inflection of (itself included), lower-cased.

    >>> sorted(lemmas("policies")), sorted(lemmas("charged")), sorted(lemmas("dropped"))
    (['policies', 'policy'], ['charg', 'charge', 'charged'], ['drop', 'dropp', 'droppe', 'dropped'])
    >>> sorted(lemmas("status")), sorted(lemmas("boxes")), sorted(lemmas("notes"))
    (['status'], ['box', 'boxe', 'boxes'], ['note', 'notes'])
    >>> sorted(lemmas("feed")), sorted(lemmas("agreed"))
    (['feed'], ['agree', 'agreed'])
    """
    w = word.lower()
    out = {w}

    def keep(base: str) -> None:
        if len(base) >= 3:
            out.add(base)

    if w.endswith("ies"):
        keep(w[:-3] + "y")
    elif w.endswith("es"):
        if w[:-2].endswith(("s", "x", "z", "ch", "sh")):
            keep(w[:-2])  # boxes -> box (not notes -> not)
        keep(w[:-1])
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        keep(w[:-1])
    if w.endswith("ied"):
        keep(w[:-3] + "y")
    elif w.endswith("eed"):
        if len(w) >= 5:
            keep(w[:-1])  # agreed -> agree (not feed -> fee, seed -> see)
    elif w.endswith("ed"):
        stem = w[:-2]
        keep(stem)
        keep(stem + "e")
        if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
            keep(stem[:-1])
    return frozenset(out)


@lru_cache(maxsize=4096)
def word_forms(word: str, *, last: bool) -> frozenset[str]:
    """Every form of ``word`` strict matching accepts (rules 1 and 2), lower-cased.

    A word that is not a run of 3+ letters (a figure, ``VP``, ``&``) is only itself.

    >>> sorted(word_forms("usage", last=False)), sorted(word_forms("$99", last=True))
    (['usage'], ['$99'])
    >>> sorted(word_forms("policies", last=True))
    ['policied', 'policies', 'policy']
    >>> sorted(word_forms("charged", last=True)), "churn" in word_forms("churned", last=True)
    (['charged'], False)
    """
    w = word.lower()
    if len(w) < 3 or not w.isalpha():
        return frozenset({w})
    out: set[str] = set()
    for spelled in spellings(w):
        out.add(spelled)
        if not last:
            continue
        bases = lemmas(spelled)
        past_only = spelled.endswith("ed") and bool(bases - {spelled})
        for base in bases - {spelled} or bases:
            if not past_only:
                out.add(base)
                out.add(_plural(base))
            out.update(_past(base))
    out = {f for f in out if len(f) >= 3} | {w}
    for form in list(out):
        out |= spellings(form)
    return frozenset(out)
