"""Portfolio page (IC demos): every memo pair in the data folder scored, at a glance.

The page is an entry point only: its rendering lives in ``ui.views.portfolio`` (imported once per
process, so a rerun does not recompile it).
"""

from ui.views import portfolio

portfolio.render()
