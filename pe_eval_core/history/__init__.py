"""The run history: typed run records, the store (SQLite or a team PostgreSQL server), run
comparison and the regression gate."""
