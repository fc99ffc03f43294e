"""Errors shared by several rooms of ``stores`` (tool failures the executor classifies)."""


from __future__ import annotations


class ExecutorError(RuntimeError):
    """An executor misconfiguration (e.g. a tool with no implementation or backend)."""


class ToolNotImplemented(ExecutorError):
    """A catalog tool that has no callable behind it in the backend asked to run it."""


class ToolReportedError(RuntimeError):
    """A tool that returned an error result (an MCP ``isError`` or a ToolMessage error)."""




