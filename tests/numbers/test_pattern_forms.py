"""The memo reader's patterns in their cheaper-to-compile forms match exactly what they
matched before (issue 25, start-up): ``_SP`` stands where the class ``[ \\t\\u00a0\\u202f]``
stood. Putting the class back must give the patterns of 9a5039c (their parse trees' sha256
is kept here), and both forms must agree, match for match and group for group, on every text
of the corpora and on random strings made of digits, separators, scale words, every kind of
space, and the characters an ignore-case pattern folds to ASCII (İ ı ſ K). The comparison is
itself checked: a form that drops one of the four spaces is caught."""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from pe_eval_core.numtext import figures, words
from pe_eval_core.numtext._shared import _SP

ROOT = Path(__file__).resolve().parents[2]
OLD_SPACE = "[ \\t\\u00a0\\u202f]"
"""What every ``_SP`` was written as before."""

OLD_TREE_SHA256 = {
    "body": "ee236e25a82a5c40",
    "head": "e949fad120a8fc29",
    "custom": "617f309b517974c3",
    "_WORD_FIGURES": "7f4c6fcbf9d7439b",
    "_DIFFICULTY_RATING": "a3fcbbe69d31213d",
    "_TIME_OBJECT": "b2d7ec799691afaa",
    "_RATING_TAIL": "ff88b09af44e57ae",
    "_ANCHOR": "15ca6e5448276855",
}
"""sha256 (first 16 hex digits) of each pattern's parse tree (``re._parser``, CPython 3.11)
and flags at 9a5039c: the tree drops a verbose pattern's comments and layout, so equal trees
are the same pattern, whatever the columns of its comments."""


def _patterns() -> dict[str, re.Pattern[str]]:
    scanner = figures._FIGURE_SCANNER
    custom = figures._scanner_for(("loans", "follow up", "bank accounts"))
    return {
        "body": scanner.body,
        "head": scanner.head,
        "custom": custom.body,
        "_WORD_FIGURES": words._WORD_FIGURES,
        "_DIFFICULTY_RATING": words._DIFFICULTY_RATING,
        "_TIME_OBJECT": words._TIME_OBJECT,
        "_RATING_TAIL": words._RATING_TAIL,
        "_ANCHOR": words._ANCHOR,
    }


def _with(pattern: re.Pattern[str], space: str) -> re.Pattern[str]:
    return re.compile(pattern.pattern.replace(_SP, space), pattern.flags)


@cache
def _corpus() -> tuple[str, ...]:
    """Every string of the corpora's JSON files and every markdown/HTML page."""
    out: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    roots = [ROOT / "tests" / "corpus", ROOT / "finance_output", ROOT / ".mimic" / "exports"]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix == ".json":
                walk(json.loads(path.read_text(encoding="utf-8")))
            elif path.suffix in (".md", ".html", ".htm"):
                out.append(path.read_text(encoding="utf-8", errors="replace"))
    return tuple(t for t in out if len(t) > 2)


_TOKENS = (
    *"0123456789",
    *("12", "1,234", "12,40", "3.5", ".5", "2026", "400"),
    *(" ", " ", "\t", "\u00a0", "\u202f", "\u2009", "\n", "  ", "\u202f\u00a0"),
    *("$", "US$", "USD", "(", ")", "-", "\u2212", "\u2013", "\u2014", "+", ",", ".", "/", "%", "*"),
    *("M", "m", "K", "k", "bn", "mn", "MM", "B", "T", "million", "Billion", "thousands", "mln"),
    *("\u0130", "\u0131", "\u017f", "\u212a", "\u212aK", "\u017fix", "\u0131n"),
    *("loans", "LOANS", "follow", "up", "bank", "accounts", "dollars", "quarter", "quarters"),
    *("of", "out", "the", "last", "past", "across", "all", "every", "one", "each", "half"),
    *("seven", "Seventeen", "two", "three", "nine", "twenty", "third", "thirds", "fifth"),
    *("percent", "per", "cent", "pct", "pp", "bps", "basis", "points", "percentage"),
    *("persistence", "score", "difficulty", "rated", "is", "at", "five", "weeks", "by", "in"),
    *("a", "an", "time", "data", "loan", "x", "_"),
)


_SPACES = ("", "", " ", " ", "\u00a0", "\u202f", "\t", "  ", "\u202f ", "\u2009", "\n")
_SHAPES = (
    "$4.8{s}million",
    "US${s}12{s}bn",
    "({s}$5.2{s}M)",
    "-$1.2-1.5{s}Million",
    "7.7{s}M{s}USD",
    "12{s}percent",
    "3{s}percentage{s}points",
    "150{s}basis{s}points",
    "5{s}of{s}the{s}8{s}quarters",
    "23,681{s}loans",
    "58k{s}bank{s}accounts",
    "2{s}M{s}follow{s}up",
    "across{s}the{s}last{s}8{s}quarters",
    "persistence{s}score{s}of{s}0.8",
    "rated{s}4{s}out{s}of{s}5",
    "difficulty{s}3{s}weeks",
    "seven{s}of{s}the{s}last{s}nine{s}quarters",
    "two{s}out{s}of{s}five",
    "half{s}of{s}the{s}six{s}quarters",
    "every{s}one{s}of{s}the{s}most{s}recent{s}six{s}quarters",
    "a{s}third{s}of{s}the{s}loss",
    "one{s}quarter{s}of{s}the{s}first{s}data",
    "effort:{s}one{s}out{s}of{s}five",
    "2{s}/{s}5",
)


def _random_texts(n: int, seed: int) -> list[str]:
    """Random token strings joined by random spaces, and the readers' shapes with random
    spaces, case and a random token around them."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:
            parts = [rng.choice(_TOKENS) for _ in range(rng.randint(1, 12))]
            out.append("".join(p + rng.choice(_SPACES) for p in parts))
        else:
            shape = rng.choice(_SHAPES)
            while "{s}" in shape:
                shape = shape.replace("{s}", rng.choice(_SPACES[2:]), 1)
            shape = rng.choice((str.lower, str.upper, str.title, str))(shape)
            out.append(rng.choice(_TOKENS) + rng.choice(_SPACES) + shape + rng.choice(_SPACES))
    return out


def _seen(p: re.Pattern[str], text: str) -> Iterator[tuple[object, ...]]:
    """Every match of ``p`` in ``text`` with every group's span (what a reader can see)."""
    for m in p.finditer(text):
        yield m.span(), m.lastgroup, tuple(m.span(g) for g in range(1, p.groups + 1))


def _at_each(p: re.Pattern[str], text: str) -> list[tuple[object, ...]]:
    """``p.match`` at every position, and a search in every window ending at the text's end
    (the readers match at offsets and scan windows)."""
    out: list[tuple[object, ...]] = []
    for i in range(len(text) + 1):
        m = p.match(text, i)
        s = p.search(text, i, len(text))
        for x in (m, s):
            out.append((x.span(), tuple(x.span(g) for g in range(p.groups + 1))) if x else ())
    return out


def _differences(
    a: re.Pattern[str], b: re.Pattern[str], corpus: tuple[str, ...], randoms: list[str]
) -> list[str]:
    bad = [t for t in corpus if list(_seen(a, t)) != list(_seen(b, t))]
    bad += [t for t in randoms if _at_each(a, t) != _at_each(b, t)]
    return bad


def _tree_sha256(p: re.Pattern[str]) -> str:
    from re import _parser  # the test's own check; never in product code

    tree = repr(_parser.parse(p.pattern, p.flags).data) + str(p.flags)
    return hashlib.sha256(tree.encode()).hexdigest()[:16]


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="parse trees taken on CPython 3.11")
def test_putting_the_class_back_gives_the_patterns_of_before() -> None:
    got = {name: _tree_sha256(_with(p, OLD_SPACE)) for name, p in _patterns().items()}
    assert got == OLD_TREE_SHA256
    for name, p in _patterns().items():
        assert _SP in p.pattern, name  # each pattern is really in its new form


@pytest.mark.parametrize("name", sorted(OLD_TREE_SHA256))
def test_the_new_form_matches_exactly_what_the_old_one_matched(name: str) -> None:
    new = _patterns()[name]
    old = _with(new, OLD_SPACE)
    corpus = _corpus()
    assert len(corpus) > 5000  # the corpora were read
    randoms = _random_texts(1500, seed=25)
    randoms += [t.upper() for t in randoms[:300]] + [t.title() for t in randoms[300:600]]
    assert _differences(old, new, corpus, randoms) == []


def test_the_comparison_catches_a_form_that_drops_a_space() -> None:
    """The check above can fail: a form without the narrow no-break space differs."""
    new = _patterns()["body"]
    broken = _with(new, "[ \\t\\u00a0]")
    randoms = _random_texts(1500, seed=25)
    assert _differences(_with(new, OLD_SPACE), broken, (), randoms) != []
    assert _differences(_with(new, OLD_SPACE), broken, ("Lost $4.8\u202fmillion",), []) != []
