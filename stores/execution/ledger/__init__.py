"""The call ledger: durable records of side-effecting calls, on SQLite or Postgres."""
