"""Memo scorecard page (the deal team's landing page): one memo graded against its source.

The page is an entry point only: its rendering lives in ``ui.views.scorecard`` (imported once per
process, so a rerun does not recompile it).
"""

from ui.views import scorecard

scorecard.render()
