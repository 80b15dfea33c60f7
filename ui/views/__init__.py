"""The dashboard's page bodies, one module per page; ``pages/*.py`` just call ``render()``."""
