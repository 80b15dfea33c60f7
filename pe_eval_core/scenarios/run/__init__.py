"""A scenario run: building the target and judge, the worker pool, and the report writers."""
