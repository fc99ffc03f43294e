"""The planner below the plan node: rule and model planners, binding, eligibility, the DAG."""
