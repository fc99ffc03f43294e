"""MCP client side: server config, sessions to servers and their pool."""
