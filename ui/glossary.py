"""The words each page uses, in a short glossary at the top of the page ("What these words
mean"), so nobody needs the README to read a score.

Thresholds and band names are the core's (``pe_eval_core.wording``), printed, never restated.
"""

from __future__ import annotations

import streamlit as st

from pe_eval_core.wording import BAND_LEGEND, Band

DIMENSION_TERMS = (
    (
        "Citation accuracy",
        "Of the memo's figures (dollars, percentages, counts, quarters, scores), the share "
        "that match a number of the same kind in the source file, within rounding.",
    ),
    (
        "Hallucination rate",
        "Of the names the memo uses (cohorts, segments, decision columns, evidence rows), the "
        "share found nowhere in the source. Lower is better.",
    ),
    (
        "Coverage",
        "Of the opportunities in the source, the share the memo writes about.",
    ),
    (
        "Consistency",
        "Whether the memo's headline total agrees (within 1%) with the source's total and "
        "with the other memos written about the same company.",
    ),
)


def band_terms() -> tuple[tuple[str, str], ...]:
    """What each colour means, from the core's band legend."""
    colours = {Band.PASS: "green", Band.WATCH: "amber", Band.FAIL: "red"}
    return (
        (
            "Colour band",
            "; ".join(f"{colours[b]} = {b.value}: {BAND_LEGEND[b]}" for b in Band)
            + ". Tiles, heatmap cells and the downloaded scorecard use the same colours.",
        ),
    )


MEMO_TERMS = (
    (
        "Verdict",
        "“Ready to circulate” only when every score meets its threshold and no figure or name "
        "is quoted under the wrong opportunity; otherwise the issues, one sentence each.",
    ),
    (
        "Mis-attributed",
        "A figure or name that is in the source, but under another opportunity than the one "
        "the memo puts it in. It counts as cited, so only the verdict catches it.",
    ),
    (
        "Nearest source value / source field",
        "For a figure that matches nothing, the closest number of the same kind in the source, "
        "and where it sits there.",
    ),
    (
        "Template wording",
        "Playbook phrases such as “throttle volume to ~5% of current”: recommendation "
        "settings, not claims about the data. Shown, never counted.",
    ),
    (
        "Memo file / source file",
        "The AI-written memo (explain_COMPANY_AUDIENCE.json) and the opportunity map it was "
        "written from (dx_report_COMPANY.json).",
    ),
)

SCENARIO_TERMS = (
    (
        "Scenario",
        "One question put to the agent, with the phrases its answer should contain, the "
        "numbers it should state and the phrases it must not say.",
    ),
    (
        "Strict",
        "Expected phrases found word for word in the answer, of those expected.",
    ),
    (
        "Paraphrase",
        "Of the phrases not found word for word, those accepted as said another way: the same "
        "number in another format, a small wording change, or the judge with a verbatim quote "
        "from the answer as evidence.",
    ),
    (
        "Numeric",
        "✓ when a number in the answer falls inside the expected range; never judged.",
    ),
    (
        "Pass",
        "At least 80% of the expected phrases found (strictly or as paraphrases), every "
        "number in range and no excluded phrase.",
    ),
    (
        "Judge",
        "A language model that rules only on phrases the other checks missed; its verdicts are "
        "cached, so scoring an unchanged run again costs nothing.",
    ),
    ("Tier", "The scenario's group: smoke, functional, adversarial."),
)

HISTORY_TERMS = (
    (
        "Run",
        "One memo grading or one scenario evaluation, from this dashboard, the command line, "
        "the CI gate or the MCP server. Click one to reopen it.",
    ),
    (
        "Regression",
        "A scenario that passed in the earlier run and does not in the later one, or a memo "
        "score that got worse.",
    ),
    ("Fix", "A scenario that did not pass before and passes now."),
    (
        "Link",
        "The address bar always shows a link to what is on screen (?run=12 opens run 12): "
        "paste it into a chat or a review comment.",
    ),
)

PAGES = {
    "scorecard": (*DIMENSION_TERMS, *band_terms(), *MEMO_TERMS),
    "portfolio": (*DIMENSION_TERMS, *band_terms()),
    "scenarios": SCENARIO_TERMS,
    "history": (*HISTORY_TERMS, *DIMENSION_TERMS[:1], *SCENARIO_TERMS[-3:-1]),
}


def glossary_markdown(page: str) -> str:
    """The page's terms as markdown, one bold term and its meaning a line.

    >>> print(glossary_markdown("scenarios").splitlines()[1])
    - **Strict**: Expected phrases found word for word in the answer, of those expected.
    """
    return "\n".join(f"- **{term}**: {meaning}" for term, meaning in PAGES[page])


def render(page: str) -> None:
    """The page's glossary, closed until asked for."""
    with st.expander("What these words mean", icon=":material/help:"):
        st.markdown(glossary_markdown(page))
