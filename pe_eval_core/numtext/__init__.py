"""Text to typed numbers, by concept: memo figures (digits, words) and scenario numbers.

Import from ``pe_eval_core.numbers``, the one public surface.
"""
