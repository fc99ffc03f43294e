"""The planner: the rule planner, the model planner, argument binding, eligibility."""
