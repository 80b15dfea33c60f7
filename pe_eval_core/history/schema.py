"""The run-history schema: defined once in :mod:`pe_eval_core.db.schema` (shared with the
judge's verdict cache); re-exported here under its historical name."""

from pe_eval_core.db.schema import (
    METADATA,
    SCHEMA_VERSION,
    UPGRADES,
    current_version,
    migrate,
)

__all__ = ["METADATA", "SCHEMA_VERSION", "UPGRADES", "current_version", "migrate"]
