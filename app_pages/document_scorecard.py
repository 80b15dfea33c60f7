"""Document scorecard page: any exit proof pack, DDQ response or red-flag file of the folder.

The page is an entry point only: its rendering lives in ``ui.views.documents``.
"""

from ui.views import documents

documents.render()
