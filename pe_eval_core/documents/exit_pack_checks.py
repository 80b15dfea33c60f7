"""The exit proof pack's derivations and comparisons: the defensibility checklist (the
producer's stated rules applied to the map), the sensitivity table (cell = claimed impact x
multiplier, total = sum of cells), the headline against the map, the sensitivity base, the
claim count and the portco's memos, and the BX rank and percentile its HTML prints.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from pe_eval_core.documents.core import Ledger
from pe_eval_core.documents.loading import inside, read_text_source, try_read_source
from pe_eval_core.documents.matching import USD_TOLERANCE, field_close
from pe_eval_core.documents.results import DocFindingKind
from pe_eval_core.documents.source_values import current_outcome_of, persistence_of
from pe_eval_core.numbers import FigureKind, extract_figures
from pe_eval_core.wording import fmt_usd

BANDS = ("conservative", "base", "aggressive")
DEFAULT_MULTIPLIERS = {"conservative": 0.5, "base": 1.0, "aggressive": 1.3}
"""The producer's stated bands (50% / 100% / 130%), used when a pack states none."""

CHALLENGE_DIFFICULTY = 4
CHALLENGE_PERSISTENCE = 0.75
CHALLENGE_IMPACT_USD = 100_000_000
STRUCTURAL_PERSISTENCE = 0.5
"""The producer's defensibility rules: a buyer challenges a claim rated difficulty >= 4,
persisting < 0.75 or worth > $100M; persistence data counts from 0.50 over >= 1 quarter."""


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _rules(opp: dict[str, Any]) -> dict[str, bool | None]:
    """What each defensibility box should say for ``opp`` (None: the map cannot say)."""
    current = current_outcome_of(opp)
    persistence = persistence_of(opp)
    impact = _num(opp.get("projected_impact_usd_annual"))
    difficulty = _num(opp.get("difficulty_score_1_to_5"))
    pair = opp.get("persistence_quarters_out_of_total")
    total_q = _num(pair[1]) if isinstance(pair, list) and len(pair) == 2 else None
    ids = opp.get("evidence_row_ids")
    challenge: bool | None = None
    if None not in (persistence, impact, difficulty):
        challenge = (
            difficulty >= CHALLENGE_DIFFICULTY  # type: ignore[operator]
            or persistence < CHALLENGE_PERSISTENCE  # type: ignore[operator]
            or impact > CHALLENGE_IMPACT_USD  # type: ignore[operator]
        )
    return {
        "has_counterfactual": None if current is None else current < 0,
        "has_persistence_data": (
            None
            if persistence is None or total_q is None
            else total_q > 0 and persistence >= STRUCTURAL_PERSISTENCE
        ),
        "has_row_evidence": None if not isinstance(ids, list) else len(ids) > 0,
        "would_buyer_challenge": challenge,
    }


_RULE_TEXT = {
    "has_counterfactual": "the map's current outcome is negative",
    "has_persistence_data": "the map's persistence is >= 0.50 over its quarters",
    "has_row_evidence": "the map lists evidence row ids",
    "would_buyer_challenge": "difficulty >= 4, persistence < 0.75 or impact > $100M",
}


def check_defensibility(
    led: Ledger,
    claim: dict[str, Any],
    opp: dict[str, Any] | None,
    cid: str,
    base: str,
    source_name: str,
) -> None:
    """Each checklist box against the producer's rule on the map's values."""
    box = claim.get("defensibility")
    if not isinstance(box, dict) or opp is None:
        return
    for key, expected in _rules(opp).items():
        stated = box.get(key)
        if not isinstance(stated, bool) or expected is None:
            continue
        ok = stated == expected
        field = f"{base}.defensibility.{key}"
        led.check(
            "citation_accuracy",
            "derivation",
            ok,
            cid,
            field,
            str(stated).lower(),
            role="defensibility rule",
            source_path=f"{source_name}: {cid}",
            source_value=str(expected).lower(),
        )
        if not ok:
            led.finding(
                DocFindingKind.BROKEN_DERIVATION,
                f"{key} is {str(stated).lower()}, but by the producer's rule "
                f"({_RULE_TEXT[key]}) the map gives {str(expected).lower()}",
                item_id=cid,
                field=field,
                raw=str(stated).lower(),
                expected=str(expected).lower(),
                expected_path=f"{source_name}: {cid}",
            )


def _multipliers(sens: dict[str, Any]) -> dict[str, float]:
    out = dict(DEFAULT_MULTIPLIERS)
    for band in BANDS:
        v = _num(sens.get(f"{band}_multiplier"))
        if v is not None:
            out[band] = v
    return out


def _derivation(
    led: Ledger, stated: Any, expected: float, field: str, cid: str | None, formula: str
) -> None:
    value = _num(stated)
    if value is None:
        return
    ok = field_close(value, expected)
    led.check(
        "citation_accuracy",
        "derivation",
        ok,
        cid,
        field,
        f"{value:,.2f}",
        role="sensitivity",
        source_path=formula,
        source_value=expected,
    )
    if not ok:
        led.finding(
            DocFindingKind.BROKEN_DERIVATION,
            f"{field} is {fmt_usd(value)} ({value:,.2f}); {formula} = {fmt_usd(expected)} "
            f"({expected:,.2f})",
            item_id=cid,
            field=field,
            raw=f"{value:,.2f}",
            expected=expected,
            expected_path=formula,
        )


def check_sensitivity(led: Ledger, data: dict[str, Any], claims: dict[str, Any]) -> None:
    """Each cell = the claim's claimed impact x the band's multiplier; each total = the sum of
    its band's cells; a row per ledger claim, and none for a claim not in the ledger."""
    sens = data.get("sensitivity")
    if not isinstance(sens, dict):
        return
    mult = _multipliers(sens)
    per_claim = sens.get("per_claim")
    rows: list[Any] = per_claim if isinstance(per_claim, list) else []
    sums = dict.fromkeys(BANDS, 0.0)
    seen: list[str] = []
    for j, row in enumerate(rows):
        if not isinstance(row, dict):
            continue
        cid = str(row.get("claim_id"))
        seen.append(cid)
        claim = claims.get(cid)
        impact = _num(claim.get("claimed_impact_usd_annual")) if isinstance(claim, dict) else None
        for band in BANDS:
            cell = _num(row.get(f"{band}_usd_annual"))
            if cell is not None:
                sums[band] += cell
            if impact is not None:
                _derivation(
                    led,
                    cell,
                    impact * mult[band],
                    f"sensitivity.per_claim[{j}].{band}_usd_annual",
                    cid,
                    f"claimed impact {impact:,.2f} x {mult[band]:g}",
                )
    for band in BANDS:
        _derivation(
            led,
            sens.get(f"total_{band}_usd_annual"),
            sums[band],
            f"sensitivity.total_{band}_usd_annual",
            None,
            f"sum of the {len(seen)} {band} cells",
        )
    led.compare(
        "sensitivity rows vs ledger claims",
        ", ".join(seen),
        ", ".join(claims),
        sorted(seen) == sorted(claims),
        kind=DocFindingKind.COUNT_MISMATCH,
        field="sensitivity.per_claim",
        message=f"the sensitivity table has rows {seen}; the ledger has claims {list(claims)}",
    )


def _headline_agrees(a: float, b: float) -> bool:
    return abs(a - b) <= USD_TOLERANCE * max(abs(a), abs(b), 1e-9)


def check_headlines(
    led: Ledger,
    path: Path,
    data: dict[str, Any],
    opp_map: dict[str, Any],
    map_path: Path,
    n_claims: int,
) -> None:
    """The headline against the map total, the sensitivity base and every memo on the
    portco (within +-1%), and the stated claim count against the ledger."""
    headline = _num(data.get("headline_total_usd_annual"))
    total = _num(opp_map.get("total_projected_impact_usd_annual"))
    total_path = f"{map_path.name}: total_projected_impact_usd_annual"
    if total is None:
        opps = opp_map.get("opportunities") or []
        total = sum(
            _num(o.get("projected_impact_usd_annual")) or 0.0 for o in opps if isinstance(o, dict)
        )
        total_path = f"{map_path.name}: sum of projected_impact_usd_annual"
    if headline is not None:
        led.compare(
            "headline vs map total",
            headline,
            total,
            _headline_agrees(headline, total),
            field="headline_total_usd_annual",
            expected_path=total_path,
            message=f"headline {fmt_usd(headline)} differs from the map total {fmt_usd(total)}",
        )
        sens = data.get("sensitivity")
        base = _num(sens.get("total_base_usd_annual")) if isinstance(sens, dict) else None
        if base is not None:
            led.compare(
                "headline vs sensitivity base total",
                headline,
                base,
                _headline_agrees(headline, base),
                field="headline_total_usd_annual",
                expected_path="sensitivity.total_base_usd_annual",
            )
        _memo_headlines(led, path, data, headline)
    stated = data.get("n_claims_documented")
    if isinstance(stated, int) and not isinstance(stated, bool):
        led.compare(
            "claims documented vs ledger",
            stated,
            n_claims,
            stated == n_claims,
            kind=DocFindingKind.COUNT_MISMATCH,
            field="n_claims_documented",
            expected_path="len(provenance_ledger)",
        )


def _memo_headlines(led: Ledger, path: Path, data: dict[str, Any], headline: float) -> None:
    portco = data.get("portco_id")
    if not isinstance(portco, str) or not portco:
        return
    for memo in sorted(path.parent.glob(f"explain_{glob_escape(portco)}_*.json")):
        memo_data = try_read_source(memo)
        if memo_data is None or memo_data.get("portco_id") != portco:
            if memo_data is None:
                led.compare(f"headline vs {memo.name}", headline, None, None)
                led.finding(
                    DocFindingKind.UNREADABLE_SIBLING,
                    f"{memo.name} could not be read",
                    raw=memo.name,
                )
            continue
        theirs = _num(memo_data.get("total_projected_impact_usd_annual"))
        if theirs is None:
            continue
        led.compare(
            f"headline vs {memo.name}",
            headline,
            theirs,
            _headline_agrees(headline, theirs),
            field="headline_total_usd_annual",
            expected_path=f"{memo.name}: total_projected_impact_usd_annual",
        )


def glob_escape(name: str) -> str:
    """A name with glob metacharacters bracketed, so it matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


# --- the BX section of the pack's HTML -------------------------------------------------------

_SECTION = re.compile(r"Fund-level context.*?<tbody>(?P<body>.*?)</tbody>", re.S | re.I)
_CELL = re.compile(r"<td[^>]*>(?P<cell>.*?)</td>", re.S | re.I)
_RANK = re.compile(r"(?P<k>\d+)\s+of\s+(?P<n>\d+)")


def bx_cells(html_text: str) -> list[str] | None:
    """The five cells of the pack's fund-level row (corpus, count, total, rank, percentile).

    >>> bx_cells('Fund-level context<tbody><tr><td class="cid">f</td><td>7</td>'
    ...          '<td>$9.1M</td><td>1 of 7</td><td>100%</td></tr></tbody>')
    ['f', '7', '$9.1M', '1 of 7', '100%']
    """
    m = _SECTION.search(html_text)
    if m is None:
        return None
    cells = [
        html.unescape(re.sub(r"<[^>]+>", "", c["cell"])).strip() for c in _CELL.finditer(m["body"])
    ]
    return cells if len(cells) >= 5 else None


def check_bx_section(
    led: Ledger, path: Path, data: dict[str, Any], bx: dict[str, Any], bx_path: Path
) -> None:
    """The pack HTML's corpus id, portco count, corpus total, rank and percentile against
    the BX corpus the pack names (the JSON sidecar carries none of them)."""
    page = path.with_suffix(".html")
    if not page.is_file() or not inside(page, [path.parent]):
        return  # no page (or a link leading out of the folder): nothing to compare
    cells = bx_cells(read_text_source(page))
    if cells is None:
        return
    corpus, count, total, rank, pct = cells[:5]
    field = f"{page.name}: fund-level context"
    portco = data.get("portco_id")
    row = next(
        (
            r
            for r in bx.get("rank_table") or []
            if isinstance(r, dict) and r.get("portco_id") == portco
        ),
        None,
    )
    ok = corpus == str(bx.get("corpus_id"))
    led.check("hallucination_rate", "entity", ok, None, field, corpus, role="BX corpus id")
    if not ok:
        led.finding(
            DocFindingKind.UNGROUNDED_ENTITY,
            f"corpus {corpus!r} is not the BX corpus {bx.get('corpus_id')!r} of {bx_path.name}",
            field=field,
            raw=corpus,
            expected=str(bx.get("corpus_id")),
        )
    _bx_number(
        led, field, count, _num(bx.get("portco_count")), "portco_count", bx_path, FigureKind.COUNT
    )
    _bx_number(
        led,
        field,
        total,
        _num(bx.get("total_identified_usd_annual")),
        "total_identified_usd_annual",
        bx_path,
        FigureKind.USD,
    )
    m = _RANK.search(rank)
    if row is None or m is None:
        return
    _bx_number(led, field, m["k"], _num(row.get("rank")), "rank", bx_path, FigureKind.COUNT)
    _bx_number(
        led, field, m["n"], _num(row.get("rank_total")), "rank_total", bx_path, FigureKind.COUNT
    )
    _bx_number(
        led, field, pct, _num(row.get("percentile")), "percentile", bx_path, FigureKind.PERCENT
    )


def _bx_number(
    led: Ledger,
    field: str,
    raw: str,
    expected: float | None,
    key: str,
    bx_path: Path,
    kind: FigureKind,
) -> None:
    if expected is None:
        return
    if kind is FigureKind.USD:
        figs = [f for f in extract_figures(raw) if f.kind is FigureKind.USD]
        ok = bool(figs) and (figs[0].covers(expected) or _headline_agrees(figs[0].value, expected))
    elif kind is FigureKind.PERCENT:
        digits = re.search(r"-?\d+(?:\.\d+)?", raw)
        ok = digits is not None and abs(float(digits.group()) - expected) <= 0.5 + 1e-9
    else:
        ok = raw.strip().isdigit() and float(raw) == expected
    where = f"{bx_path.name}: {key}"
    led.check(
        "citation_accuracy",
        "figure",
        ok,
        None,
        field,
        raw,
        role=f"BX {key}",
        source_path=where,
        source_value=expected,
    )
    if not ok:
        led.finding(
            DocFindingKind.UNGROUNDED_FIGURE,
            f"the pack prints {key.replace('_', ' ')} {raw!r}; {where} = {expected:,.6g}",
            field=field,
            raw=raw,
            expected=expected,
            expected_path=where,
        )
