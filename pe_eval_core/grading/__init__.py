"""Document-independent grading pieces that every document grader shares (roles of figures
and fields, the role-aware choice of a grounding field)."""
