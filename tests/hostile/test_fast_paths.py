"""The fast paths of the two choke points give exactly what their slow paths give (issue 25).

``redact`` skips a pattern pass when its text lacks a literal every match of the pattern
contains, and computes the secret values once per state of the environment and registry;
``normalize`` returns ASCII text without ``&`` as is. Each is compared here with the
unconditional version (the pre-issue-25 code, restated) on a table of hostile inputs and on
generated ones: mixed case (``BeArEr``), secrets inside URLs, the letters ``re.IGNORECASE``
folds to ASCII (``İ``, ``ı``, ``ſ``, the Kelvin sign), full-width characters, entities.
"""

from __future__ import annotations

import os
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_eval_core import redact as R
from pe_eval_core.text_norm import IGNORECASE_FOLD, Normalized, _normalize_all, normalize

ENV_SECRET = "envsecretvalue0123"


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """This module's own registry of secrets: values earlier tests registered in this process
    (a header value "secret", say) would scrub parts of the values these tests expect."""
    monkeypatch.setattr(R, "_registered", set())
    monkeypatch.setattr(R, "_version", R._version + 1)  # no cached answer from the old registry


def slow_redact(text: str) -> str:
    """``redact`` as it was before its fast paths: every secret scanned from the environment
    now, every pass run."""
    values = {
        v
        for k, v in os.environ.items()
        if (k in R.SECRET_ENV or k.upper().endswith(R._SECRET_SUFFIXES)) and len(v) >= 8
    }
    values |= R._registered
    for secret in sorted(values, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, R.REDACTED)
    text = R._compiled(R._HEADER).sub(lambda m: f"{m['name']}{m['sep']}{R.REDACTED}", text)
    text = R._compiled(R._SCHEME_CREDENTIAL).sub(lambda m: f"{m['scheme']} {R.REDACTED}", text)
    if "://" in text:
        text = R._compiled(R._USERINFO).sub(R._userinfo, text)
    text = R._compiled(R._QUERY).sub(lambda m: f"{m['name']}{R.REDACTED}", text)
    text = R._compiled(R._PAIR).sub(lambda m: f"{m['name']}{m['sep']}{R.REDACTED}", text)
    return R._compiled(R._SHAPES, 0).sub(R.REDACTED, text)


TABLE = [
    "plain prose: ARR grew 12% to $4.8M; key risks remain.",
    "BeArEr abcdefgh12345 and bAsIc dXNlcjpwYXNzd29yZA==",
    "AUTHORIZATION: Bearer abc.def.ghi",
    "AuthorİzatIon: secretvalue99",  # dotless and dotted capital I
    "\u212aey=abcdef123 and ?access_to\u212aen=zzzzzz",  # Kelvin sign for k
    "pa\u017f\u017fword: hunter22",  # long s
    "GET https://bot:hunter2@h.example/x?access_token=abc123&page=2 (password: swordfish)",
    "see HTTPS://USER:PW@HOST/ and ftp://anon@host",
    f"the env value {ENV_SECRET} inside https://u:{ENV_SECRET}@h/?q={ENV_SECRET}",
    "risk-adjusted returns; sk-proj-abcdefghijklmnopqrstuvwxyz0123; (sk-abcdefghijklmnopqrst)",
    "risksk-ant-abcd and xsk-abcdefghijklmnopqrstuvwxyz",
    "_sk-abcdefghijklmnopqrstuvwxyz and ésk-abcdefghijklmnopqrstuvwxyz",
    "ghp_abcdefghijklmnopqrstuvwxyz github_pat_abcdefghijklmnopqrstuv xoxb-1234567890ab",
    "AKIAABCDEFGHIJKLMNOP and AKIAabc",
    "ｔｏｋｅｎ=ｓｅｃｒｅｔ and ＢＥＡＲＥＲ ａｂｃｄｅｆｇｈ１２",
    "&amp;token=abcdefgh &#36;4.8M x-api-key=&quot;abc&quot;",
    '{"api-key": "sk-ant-api03-abcdef", "client_secret": "s3cr3tvalue"}',
    "Tokens: target 12 in; password:[redacted]; token=[redacted]x",
    "token: abcdefgh123",
    "id_token='zzzzzzzz' and APIKEY = 'qqqqqqqq' secret=s3cr3tvalue",
    "",
    "a",
]

FRAGMENTS = [
    "bearer ", "BeArEr ", "Basic ", "BASIC\t", "Authorization", "proxy-authorization",
    "x-api-key", "api-key", "api_key", "apikey", "token", "TOKEN", "to", "ken", "key", "KEY",
    "password", "passwd", "pwd", "secret", "token: ", "secret=", "signature", "credentials",
    "client_secret", "access_token",
    "https://", "://", "user", ":", "=", "@", "?", "&", ";", "'", '"', " ", "\n", "/", "-",
    "_", ".", "sk-", "risk-", "sk-ant-", "proj-", "ghp_", "github_pat_", "xoxb-", "AKIA",
    "ABCDEFGHIJKLMNOP", "abcdefghij0123456789", "==", "[redacted]", "\u0130", "\u0131",
    "\u017f", "\u212a", "é", "ｔｏｋｅｎ", "＄", "&amp;", "&#36;", "\u200b", ENV_SECRET,
]  # fmt: skip
hostile_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=24
).map("".join)


@pytest.fixture(autouse=True)
def env_secret(monkeypatch):
    monkeypatch.setenv("FAST_PATH_TEST_TOKEN", ENV_SECRET)


@pytest.mark.parametrize("text", TABLE)
def test_redact_equals_the_slow_path_on_the_table(text):
    assert R.redact(text) == slow_redact(text)


@settings(max_examples=600, deadline=None)
@given(hostile_text)
def test_redact_equals_the_slow_path_on_generated_text(text):
    assert R.redact(text) == slow_redact(text)


def test_the_fold_table_is_every_letter_ignorecase_maps_to_ascii():
    """Every non-ASCII character that ``re.IGNORECASE`` matches to an ASCII letter is in
    ``IGNORECASE_FOLD`` with that letter (else a cue written with it would skip a pass that
    matches), and lower-casing keeps every other character one character long (so offsets in
    ``ignorecase_lower``'s result are offsets in the text)."""
    others = "".join(map(chr, range(128, 0x110000)))
    assert [c for c in others if len(c.lower()) != 1] == ["\u0130"]
    found = {c: next(x for x in string.ascii_lowercase if re.fullmatch(x, c, re.I))
             for c in re.findall("[a-z]", others, re.I)}  # fmt: skip
    assert found == dict(IGNORECASE_FOLD)


def test_the_secret_cache_follows_the_environment_and_the_registry(monkeypatch):
    assert R.redact(f"x {ENV_SECRET} y") == "x [redacted] y"
    monkeypatch.setenv("FAST_PATH_TEST_TOKEN", "changedvalue0123")
    assert R.redact(f"x {ENV_SECRET} changedvalue0123") == "x envsecretvalue0123 [redacted]"
    monkeypatch.delenv("FAST_PATH_TEST_TOKEN")
    assert R.redact("x changedvalue0123") == "x changedvalue0123"
    monkeypatch.setenv("ANOTHER_API_KEY", "anothervalue0123")  # a new name, same count
    assert R.redact("x anothervalue0123") == "x [redacted]"
    R.register_secret("registeredvalue42")
    assert R.redact("a registeredvalue42 b") == "a [redacted] b"


def test_a_replaced_environment_mapping_is_scanned(monkeypatch):
    monkeypatch.setattr(os, "environ", {"X_TOKEN": "plaindictvalue99"})
    assert R.redact("x plaindictvalue99") == "x [redacted]"


NORM_TABLE = [
    "plain ASCII prose, $4.8M and 12%",
    "pay &#36;9.5M &amp; &dollar;1 &bogus; &",
    "$\u200b987.6M \uff04987.6M \ufe69987.6M 12\uff05 \u202eM1$",
    "\uff11\uff12\uff0c\uff14\uff10\uff10 loans, \u0669\u0668 cards",
    "Jose\u0301 lost $9\u03368\u0336, 4\u2009820, $4.8M\u00b9",
    "",
]


@pytest.mark.parametrize("text", NORM_TABLE)
def test_normalize_equals_its_slow_path_on_the_table(text):
    assert normalize(text) == _normalize_all(text, overrides=True)


@settings(max_examples=400, deadline=None)
@given(st.one_of(hostile_text, st.text(alphabet=st.characters(max_codepoint=127))))
def test_normalize_fast_path_is_exact(text):
    slow = _normalize_all(text, overrides=True)
    assert normalize(text) == slow
    if text.isascii() and "&" not in text:
        assert slow == Normalized(text)  # the fast path's answer, from the slow path
