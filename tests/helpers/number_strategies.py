"""Shared hypothesis strategies: numbers formatted the way memo producers and agents print them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from hypothesis import strategies as st

# Words that can sit around a figure without changing how it reads.
CONTEXT_WORDS = st.sampled_from(
    ["", "leakage of", "about", "the cohort lost", "**", "(see", "at stake:", "roughly", "~"]
)
TRAILING_WORDS = st.sampled_from(["", " annually", ".", ",", " of leakage", "**", ";", " per year"])


@dataclass(frozen=True)
class Formatted:
    """A number as a producer printed it, and the true value it was printed from."""

    text: str
    true_value: float
    negative_sign: bool  # the text carries an explicit minus sign or parentheses


def _money_body(x: float, style: str) -> str:
    """Producer formats: 1 decimal of B / M, whole K, comma'd dollars."""
    if style == "B":
        return f"{x / 1e9:.1f}B"
    if style == "M":
        return f"{x / 1e6:.1f}M"
    if style == "K":
        return f"{x / 1e3:.0f}K"
    if style == "bn":
        return f"{x / 1e9:.1f}bn"
    if style == "million":
        return f"{x / 1e6:.1f} million"
    if style == "Million":  # glued scale word
        return f"{x / 1e6:.1f}Million"
    if style == "-million":  # hyphenated scale word
        return f"{x / 1e6:.1f}-million"
    if style == "nbspM":  # no-break space before the scale letter
        return f"{x / 1e6:.1f}\u00a0M"
    return f"{x:,.0f}"


_SUFFIX_STYLES = ("comma", "K", "M", "million", "B", "bn")


@st.composite
def producer_money(draw: st.DrawFn) -> Formatted:
    """A dollar amount at a random magnitude, in a producer format, with a random sign style."""
    magnitude = draw(st.sampled_from([1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11]))
    x = draw(st.floats(min_value=magnitude, max_value=magnitude * 10, allow_nan=False))
    styles = ["comma"]
    if x >= 1e3:
        styles.append("K")
    if x >= 1e6:
        styles += ["M", "million", "Million", "-million", "nbspM"]
    if x >= 1e9:
        styles += ["B", "bn"]
    style = draw(st.sampled_from(styles))
    body = _money_body(x, style)
    if style in _SUFFIX_STYLES and draw(st.integers(0, 4)) == 0:
        # The currency named after the amount: "7.7M USD", "-7.7 million dollars".
        suffix = draw(st.sampled_from([" USD", " dollars", " US dollars"]))
        sign = draw(st.sampled_from(["", "-", "\u2212"]))
        return Formatted(f"{sign}{body}{suffix}", -x if sign else x, bool(sign))
    sign = draw(st.sampled_from(["", "-$", "$-", "($)", "$()", "\u2212$", "$\u2013", "\u2013$"]))
    if sign == "":
        return Formatted(f"${body}", x, False)
    if sign == "($)":
        return Formatted(f"(${body})", -x, True)
    if sign == "$()":
        digits = body.rstrip("KMBbmilon -\u00a0")
        return Formatted(f"$({digits}){body[len(digits) :]}", -x, True)
    if sign in ("$-", "$\u2013"):
        return Formatted(f"{sign}{body}", -x, True)
    return Formatted(f"{sign}{body}", -x, True)


@st.composite
def producer_percent(draw: st.DrawFn) -> Formatted:
    """A percentage with 1-2 decimals (or whole basis points), signed or not."""
    x = draw(st.floats(min_value=0, max_value=250, allow_nan=False))
    style = draw(st.sampled_from(["%1", "%2", "percent", "bps"]))
    if style == "bps":
        body = f"{x * 100:.0f} bps"
    elif style == "percent":
        body = f"{x:.1f} percent"
    else:
        body = f"{x:.{style[1]}f}%"
    if draw(st.booleans()):
        return Formatted("-" + body, -x, True)
    return Formatted(body, x, False)


@dataclass(frozen=True)
class Written:
    """A number as an agent might write it, and its exact value."""

    text: str
    value: Decimal
    currency: str | None
    percent: bool


_CURRENCIES = ["$", "£", "€", "US$", "USD ", "$ "]
_SCALES = {
    "": 1,
    "k": 1_000,
    "K": 1_000,
    "M": 10**6,
    "bn": 10**9,
    " million": 10**6,
    "Million": 10**6,
    "-million": 10**6,
    "\u00a0M": 10**6,  # a no-break space binds a scale letter only after a currency
}


@st.composite
def written_numbers(draw: st.DrawFn) -> Written:
    """Integers and decimals with optional thousands commas, currency, scale, sign, percent."""
    whole = draw(st.integers(min_value=0, max_value=10**12))
    places = draw(st.integers(min_value=0, max_value=3))
    frac = draw(st.integers(min_value=0, max_value=10**places - 1)) if places else 0
    digits = f"{whole:,}" if draw(st.booleans()) else str(whole)
    if places:
        digits += "." + str(frac).zfill(places)
    magnitude = Decimal(digits.replace(",", ""))
    currency = draw(st.sampled_from([None, *_CURRENCIES]))
    percent = currency is None and draw(st.booleans())
    scale = "" if percent else draw(st.sampled_from(sorted(_SCALES)))
    if currency is None and scale in ("bn", "\u00a0M"):
        scale = "k"
    value = magnitude * _SCALES[scale]
    sign = draw(st.sampled_from(["", "-", "+", "()"]))
    if sign == "()" and (percent or not (currency or "," in digits or "." in digits)):
        sign = ""  # parentheses mean negative only around amounts
    body = f"{currency or ''}{digits}{scale}{'%' if percent else ''}"
    if sign == "()":
        return Written(f"({body})", -value, (currency or "").strip() or None, percent)
    if sign == "-":
        value = -value
    return Written(sign + body, value, (currency or "").strip() or None, percent)


# Text built from the characters that matter to the parsers, for crash and span properties.
FIGURE_ALPHABET = st.sampled_from(
    list("0123456789") * 3
    + list("$%(),.-+ :/~*KMBkmbx\u00a0")
    + ["\u2212", "\u2013", " of ", " quarters", " loans", " bps", " million", "US$", "USD ", "£"]
    + ["across ", "persistence score of ", "rated ", "difficulty ", "T", "Q", "opp_"]
    + [" USD", " dollars", "Million", "-million", "k-"]
)
FIGURE_TEXT = st.lists(FIGURE_ALPHABET, max_size=60).map("".join)
