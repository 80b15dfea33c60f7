"""Deciding one response: the deterministic checks and the seed's pass rule, phrase matching,
numbers read with their meaning, paraphrase rules, the judge and its evidence rule."""
