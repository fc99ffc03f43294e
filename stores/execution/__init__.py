"""Execution: the executor, its backends, output normalisation, policy, the call ledger."""
