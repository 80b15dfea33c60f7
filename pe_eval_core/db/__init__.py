"""The database under pe-eval's stores: one SQLAlchemy Core schema (:mod:`.schema`) and one
connection layer (:mod:`.engine`) for the embedded SQLite file and a team PostgreSQL server.

The run history (``pe_eval_core.history.store``) and the judge's verdict cache
(``pe_eval_core.scenarios.scoring.judge.cache``, through :mod:`.verdicts`) both sit on it, so
neither domain imports the other.
"""
