"""Scenario evaluation page (eval engineers): scenarios + target -> scored table -> triage.

The page is an entry point only: its rendering lives in ``ui.views.scenarios`` (imported once per
process, so a rerun does not recompile it).
"""

from ui.views import scenarios

scenarios.render()
