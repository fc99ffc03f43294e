"""The planner's algorithms below the ``plan`` node, and the plan DAG that execution walks."""
