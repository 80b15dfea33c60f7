"""The dashboard's page bodies, one module per page; ``app_pages/*.py`` just call ``render()``."""
