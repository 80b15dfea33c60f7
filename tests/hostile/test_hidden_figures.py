"""Class 4: figures that hide from the grader (issue 23).

``pe_eval_core.text_norm.normalize`` is the one normalisation to run before figures are read
(HTML references decoded, format characters removed, NFKC), with the original offsets kept.
Its wiring into the grader waits for the grader's rework (issue 19): the library test of the
grader is a strict xfail until then, so the change that wires it must flip it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pe_eval_core.text_norm import is_plain, normalize
from tests.helpers.hostile_kit import REPO

HIDDEN = {
    "zero-width space": "$\u200b987.6M",
    "full-width dollar": "\uff04987.6M",
    "small dollar": "\ufe69987.6M",
    "numeric reference": "&#36;987.6M",
    "hex reference": "&#x24;987.6M",
    "named reference": "&dollar;987.6M",
    "word joiner in digits": "$98\u20607.6M",
    "bidi isolate": "$\u2066987.6M\u2069",
}


@pytest.mark.parametrize("name", list(HIDDEN))
def test_normalize_reveals_the_figure_and_keeps_its_place(name):
    prose = f"Last year we lost {HIDDEN[name]} to defaults."
    n = normalize(prose)
    assert "$987.6M" in n.text, (name, n.text)
    start = n.text.index("$987.6M")
    a, b = n.span(start, start + len("$987.6M"))
    assert prose[a:b] == HIDDEN[name].rstrip("\u2069"), name  # the figure as written
    assert not is_plain(prose)


def test_plain_text_is_unchanged():
    prose = "Annualized $ at stake: $1.39B; 23,681 loans (5 of 6 quarters) & rated 4/5."
    assert normalize(prose).text == prose


@pytest.mark.xfail(strict=True, reason="normalize() is wired into the grader after issue 19")
@pytest.mark.parametrize("name", ["zero-width space", "full-width dollar", "numeric reference"])
def test_the_grader_sees_a_hidden_fabricated_figure(name, tmp_path):
    from pe_eval_core.memo import grade_memo

    data = REPO / "finance_output"
    for f in ("explain_MortgageCo_board.json", "dx_report_MortgageCo.json"):
        shutil.copy(data / f, tmp_path / f)
    memo_path = Path(tmp_path / "explain_MortgageCo_board.json")
    memo = json.loads(memo_path.read_text())
    memo["opportunities_explained"][0]["narrative"] += f" We also lost {HIDDEN[name]} last year."
    memo_path.write_text(json.dumps(memo))
    ev = grade_memo(memo_path, tmp_path / "dx_report_MortgageCo.json")
    assert ev.scores.citation_accuracy < 1.0
