"""pe-eval's shared scoring core: memo grading and scenario evaluation, with no UI dependency.

The public API is re-exported here lazily so ``python -m pe_eval_core`` and the dashboard only
pay for what they use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "eval_pe_output": "pe_eval_core.memo",
    "grade_memo": "pe_eval_core.memo",
    "PeEvalError": "pe_eval_core.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pe_eval_core' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
