"""History page: every recorded run, trends over time, and what changed between two runs.

The page is an entry point only: its rendering lives in ``ui.views.history``.
"""

from ui.views import history

history.render()
