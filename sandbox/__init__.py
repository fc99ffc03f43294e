"""A test-data platform (SQLite) served as an MCP server; zspace reaches it only through MCP."""
