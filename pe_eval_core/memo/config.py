"""The grader's knobs: tolerances, template constants, section markers and prose fields.

Defaults implement the seed's rules; every value is recorded in the evaluation's JSON so a
score can always be reproduced with the configuration that produced it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

GRADER_VERSION = "2.2.0"
"""Bumped whenever a change could move a score on unchanged inputs. 2.0.0 (issue 19): figures
matched by role, ``wrong_quantity`` and ``empty_placeholder`` findings, durations and plan
parameters are not figures, cohort pieces are segment values. 2.1.0 (held-out corpus): table
cells read with their labels, labelled counts, decision-column lists by vocabulary, run-rates
of their own period only, signed derivations, more licensed shares, bounds, portfolio
sentences, ``header_mismatch``. 2.2.0 (issue 23): prose read normalised (hidden and look-alike
characters, HTML references), ``unreadable_figure``; clean prose grades as in 2.1.0."""


class TemplateConstant(BaseModel):
    """Playbook wording whose figures are recommendation parameters, not source citations.

    Figures inside a match are reported as exempt (shown, not counted). ``phrase`` is matched
    case-insensitively with any run of whitespace standing for any other; set ``regex`` to
    match it as a regular expression instead.
    """

    model_config = ConfigDict(frozen=True)

    phrase: str
    reason: str = "playbook wording, a recommendation parameter rather than a citation"
    regex: bool = False


DEFAULT_TEMPLATE_CONSTANTS: tuple[TemplateConstant, ...] = (
    TemplateConstant(
        phrase="throttle volume to the cohort to ~5% of current",
        reason="operator-brief playbook step: the 5% is a recommended throttle level",
    ),
)
"""Known non-source figures in producer templates (operator briefs' throttle step)."""

DEFAULT_SECTION_MARKERS: tuple[str, ...] = (
    "Counterfactual",
    "Risk of inaction",
    "Rollout",
    "Headline",
    "Recommendation",
)
"""Bold labels that structure the prose and name nothing (compared without a trailing colon)."""

DEFAULT_PROSE_FIELDS: tuple[str, ...] = (
    "narrative",
    "counterfactual",
    "risk_of_inaction",
    "rollout",
)
"""Prose blocks of an explained opportunity, in display order."""


class GraderConfig(BaseModel):
    """Tolerances and word lists of the memo grader; the defaults are the seed's rules."""

    model_config = ConfigDict(frozen=True)

    usd_rel_tol: float = Field(default=0.01, ge=0)
    """Nominal USD tolerance, relative (the seed's ±1%)."""
    percent_abs_tol: float = Field(default=0.15, ge=0)
    """Nominal percent tolerance in percentage points (the seed's ±0.15)."""
    score_abs_tol: float = Field(default=0.005, ge=0)
    """Tolerance for 0..1 scores written with two decimals."""
    headline_rel_tol: float = Field(default=0.01, ge=0)
    """Relative tolerance for headline comparisons (consistency)."""
    template_constants: tuple[TemplateConstant, ...] = DEFAULT_TEMPLATE_CONSTANTS
    section_markers: tuple[str, ...] = DEFAULT_SECTION_MARKERS
    prose_fields: tuple[str, ...] = DEFAULT_PROSE_FIELDS
    count_nouns: tuple[str, ...] | None = None
    """Nouns that make a bare number a count (``23,681 loans``); None = the parser's default."""
    derivations: bool = True
    """Ground figures derived from two source fields (``docs/memo_rules.md``): status
    ``derived``, cited, shown with the formula."""
    strict_derivations: bool = False
    """Count derived figures as uncited (each with a ``derived_figure`` finding)."""
    plain_names: bool = True
    """Check names in plain (not bold) prose against the source's vocabulary: segment values,
    state codes and names where a ``state`` column exists, band-shaped tokens
    (``docs/memo_rules.md``); a wrong one is a finding, a correct one is not counted."""
    check_siblings: bool = True
    """Compare the headline with sibling memos in the memo's folder."""
