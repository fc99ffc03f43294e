"""Everything below LangGraph, in rooms: language, mcp, catalog, retrieval, execution."""
