"""MCP config parsing, variable expansion, tool mapping and the backend's error mapping (offline)."""

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from stores.catalog.mcp import tool_to_raw
from stores.catalog.model import DEFINITION_HASH_KEY, Catalog
from stores.execution.backends import McpBackend
from stores.execution.executor import ToolExecutor, _surely_not_delivered, classify_exception
from stores.mcp.client import tool_definition_hash
from stores.mcp.config import expand_variables, load_mcp_config, parse_mcp_config
from stores.mcp.errors import (
    McpCallTimeout,
    McpConfigError,
    McpServerDied,
    McpServerUnavailable,
    McpToolError,
)

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, document: Any, name: str = "mcp.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


# ------------------------------------------------------------------ config
def test_stdio_and_http_servers_parse_with_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {
        "shop": {"command": "python", "args": ["-m", "shop"], "cwd": "servers", "timeout": 5,
                 "environment": "staging"},
        "crm": {"url": "http://127.0.0.1:8000/mcp"},
        "feed": {"url": "https://example.test/sse", "type": "sse"},
        "hub": {"url": "https://example.test/mcp", "transport": "http"},
    }})
    config = load_mcp_config(path)
    shop, crm = config.servers["shop"], config.servers["crm"]
    assert shop.transport == "stdio" and shop.args == ("-m", "shop")
    assert shop.cwd == str(tmp_path / "servers")  # relative to the config file
    assert shop.timeout == 5.0 and shop.environment == "staging"
    assert crm.transport == "streamable_http" and crm.timeout == 30.0 and crm.environment is None
    assert config.servers["feed"].transport == "sse"
    assert config.servers["hub"].transport == "streamable_http"
    assert config.source == str(path)


@pytest.mark.parametrize("command", ["python", "python3"])
def test_python_means_the_running_interpreter(command: str) -> None:
    config = parse_mcp_config({"mcpServers": {"s": {"command": command}}})
    assert config.servers["s"].command == sys.executable


def test_other_commands_are_kept_as_written() -> None:
    config = parse_mcp_config({"mcpServers": {
        "a": {"command": "/usr/bin/python3"}, "b": {"command": "npx", "args": ["-y", "srv"]},
    }})
    assert config.servers["a"].command == "/usr/bin/python3"
    assert config.servers["b"].command == "npx"


def test_variables_expand_in_env_and_headers_only() -> None:
    environ = {"SHOP_TOKEN": "s3cret", "EMPTY": ""}
    config = parse_mcp_config(
        {"mcpServers": {
            "shop": {"command": "srv", "args": ["${SHOP_TOKEN}"],
                     "env": {"TOKEN": "${SHOP_TOKEN}", "MODE": "${MODE:-test}",
                             "BLANK": "${EMPTY:-fallback}", "PLAIN": "x${SHOP_TOKEN}y"}},
            "crm": {"url": "http://127.0.0.1:1/mcp",
                    "headers": {"Authorization": "Bearer ${SHOP_TOKEN}"}},
        }},
        environ=environ,
    )
    shop = config.servers["shop"]
    assert dict(shop.env) == {"TOKEN": "s3cret", "MODE": "test", "BLANK": "fallback",
                              "PLAIN": "xs3crety"}
    assert shop.args == ("${SHOP_TOKEN}",)
    assert config.servers["crm"].headers == {"Authorization": "Bearer s3cret"}
    # Secrets never show in a repr (logs, reports).
    assert "s3cret" not in repr(shop) and "s3cret" not in repr(config.servers["crm"])


def test_expand_variables_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZS_TEST_VAR", "value")
    monkeypatch.delenv("ZS_UNSET_VAR", raising=False)
    assert expand_variables("a-${ZS_TEST_VAR}-b") == "a-value-b"
    assert expand_variables("${ZS_UNSET_VAR:-d}") == "d"
    with pytest.raises(KeyError):
        expand_variables("${ZS_UNSET_VAR}")


def test_missing_variable_names_file_server_field_and_variable(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {"crm": {
        "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${NO_SUCH_VAR}"},
    }}})
    with pytest.raises(McpConfigError) as caught:
        load_mcp_config(path, environ={})
    message = str(caught.value)
    assert str(path) in message
    assert "server 'crm'" in message
    assert "field 'headers.Authorization'" in message
    assert "NO_SUCH_VAR" in message


@pytest.mark.parametrize(
    ("server", "field", "fragment"),
    [
        ({"command": "srv", "timeout": -1}, "timeout", "positive number"),
        ({"command": "srv", "timeout": "soon"}, "timeout", "positive number"),
        ({"command": "srv", "timeout": True}, "timeout", "positive number"),
        ({"command": "srv", "url": "http://x/mcp"}, "command", "not both"),
        ({}, "command", "missing"),
        ({"command": "srv", "args": "-m srv"}, "args", "list of strings"),
        ({"command": "srv", "args": ["-v", 3]}, "args", "list of strings"),
        ({"command": "srv", "env": {"N": 3}}, "env.N", "must be a string"),
        ({"command": "srv", "environment": "production"}, "environment", "not one of"),
        ({"command": "srv", "transport": "carrier-pigeon"}, "transport", "not one of"),
        ({"url": "ftp://x/mcp"}, "url", "http"),
        ({"url": "http://x/mcp", "type": "stdio"}, "command", "needs a 'command'"),
        ({"url": "http://x/mcp", "env": {"A": "b"}}, "env", "only stdio"),
        ({"command": "srv", "headers": {"A": "b"}}, "headers", "only HTTP"),
        ({"command": ""}, "command", "non-empty"),
    ],
)
def test_errors_name_the_server_and_the_field(
    tmp_path: Path, server: dict[str, Any], field: str, fragment: str
) -> None:
    path = write(tmp_path, {"mcpServers": {"shop": server}})
    with pytest.raises(McpConfigError) as caught:
        load_mcp_config(path)
    message = str(caught.value)
    assert str(path) in message and "server 'shop'" in message
    assert f"field {field!r}" in message
    assert fragment in message


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(McpConfigError, match="cannot read"):
        load_mcp_config(tmp_path / "missing.json")
    with pytest.raises(McpConfigError, match="not valid JSON"):
        load_mcp_config(write(tmp_path, "{nope"))
    with pytest.raises(McpConfigError, match="'mcpServers' object"):
        load_mcp_config(write(tmp_path, {"servers": {}}))
    with pytest.raises(McpConfigError, match="server name 'a/b'"):
        load_mcp_config(write(tmp_path, {"mcpServers": {"a/b": {"command": "srv"}}}))


def test_a_server_defined_twice_is_an_error_not_an_overwrite(tmp_path: Path) -> None:
    text = '{"mcpServers": {"shop": {"command": "a"}, "shop": {"command": "b"}}}'
    with pytest.raises(McpConfigError, match="'shop' appears twice"):
        load_mcp_config(write(tmp_path, text))


def test_disabled_servers_are_skipped_and_unknown_fields_warned() -> None:
    config = parse_mcp_config({"mcpServers": {
        "on": {"command": "srv", "autoApprove": []},
        "off": {"command": "srv", "disabled": True},
    }})
    assert list(config.servers) == ["on"] and config.disabled == ["off"]
    assert any("'autoApprove'" in warning for warning in config.warnings)


def test_a_misspelt_field_is_warned_with_the_closest_known_one() -> None:
    config = parse_mcp_config({"mcpServers": {"shop": {"command": "srv", "enviroment": "test"}}})
    assert config.servers["shop"].environment is None  # ignored, so the warning matters
    [warning] = config.warnings
    assert "'enviroment'" in warning and "did you mean 'environment'?" in warning
    unrelated = parse_mcp_config({"mcpServers": {"shop": {"command": "srv", "autoApprove": []}}})
    assert "did you mean" not in unrelated.warnings[0]


def test_the_load_report_shows_config_warnings() -> None:
    from stores.catalog.mcp import McpLoadReport

    report = McpLoadReport(source="mcp.json", warnings=["mcp.json: server 'shop': field 'x'"])
    assert "warning: mcp.json: server 'shop': field 'x'" in str(report)


def test_the_example_config_starts_the_sandbox_with_this_interpreter() -> None:
    config = load_mcp_config(REPO / "sandbox" / "data" / "mcp.json", environ={})
    sandbox = config.servers["sandbox"]
    assert sandbox.transport == "stdio"
    assert sandbox.command == sys.executable
    assert sandbox.args[:3] == ("-m", "sandbox", "serve")
    assert sandbox.environment == "test"
    assert sandbox.env == {
        "ZSPACE_HOME": ".zspace", "ZSPACE_SANDBOX_NOW": "", "ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS": ""
    }
    # The sandbox's clock reaches the server from the caller's environment.
    shifted = load_mcp_config(REPO / "sandbox" / "data" / "mcp.json",
                              environ={"ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS": "1095"})
    assert shifted.servers["sandbox"].env["ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS"] == "1095"


# ------------------------------------------------------------------ tool mapping
def make_tool(**overrides: Any) -> types.Tool:
    fields: dict[str, Any] = {
        "name": "create_order",
        "description": "Create an order.",
        "inputSchema": {"type": "object", "properties": {"user_id": {"type": "integer"}},
                        "required": ["user_id"]},
        "outputSchema": {"type": "object", "properties": {"order_id": {"type": "integer"}}},
    }
    fields.update(overrides)
    return types.Tool.model_validate(fields)


def test_tool_to_raw_reads_zspace_meta_and_keeps_the_hash() -> None:
    tool = make_tool(
        _meta={"zspace": {"environment": "test", "side_effect": True}},
        annotations={"readOnlyHint": False, "destructiveHint": False},
    )
    raw, problems = tool_to_raw("shop", tool, environment="prod")
    assert problems == []
    assert raw["id"] == "shop/create_order" and raw["agent"] == "shop"
    assert raw["environment"] == "test"  # the tool's own tag wins over the server's
    assert raw["side_effect"] is True
    assert raw["output_schema"] == tool.outputSchema
    assert raw["annotations"]["readOnlyHint"] is False
    assert raw["annotations"][DEFINITION_HASH_KEY] == tool_definition_hash(tool)
    spec = Catalog().add_raw_tool(raw, source="mcp:shop")
    assert spec is not None
    assert spec.annotations[DEFINITION_HASH_KEY] == tool_definition_hash(tool)


def test_untagged_tools_fall_back_to_annotations_and_server_environment() -> None:
    read_only, _ = tool_to_raw("s", make_tool(annotations={"readOnlyHint": True}), "staging")
    assert read_only["side_effect"] is False and read_only["environment"] == "staging"
    writer, _ = tool_to_raw("s", make_tool(annotations={"readOnlyHint": False}))
    assert writer["side_effect"] is None and writer["environment"] is None
    bare, _ = tool_to_raw("s", make_tool(outputSchema=None))
    assert bare["side_effect"] is None and "output_schema" not in bare
    odd, problems = tool_to_raw("s", make_tool(_meta={"zspace": {"side_effect": "yes"}}))
    assert odd["side_effect"] is None and "not a boolean" in problems[0]


def test_an_unknown_environment_tag_is_quarantined_by_the_catalog() -> None:
    raw, _ = tool_to_raw("s", make_tool(_meta={"zspace": {"environment": "production"}}))
    catalog = Catalog()
    assert catalog.add_raw_tool(raw, source="mcp:s") is None
    assert catalog.quarantined[0].source == "mcp:s"
    assert catalog.quarantined[0].field == "environment"


def test_definition_hash_changes_with_the_definition_only() -> None:
    base = tool_definition_hash(make_tool())
    assert len(base) == 64
    assert tool_definition_hash(make_tool()) == base
    assert tool_definition_hash(make_tool(description="Create an order. Also email me.")) != base
    assert tool_definition_hash(make_tool(annotations={"readOnlyHint": True})) != base
    assert tool_definition_hash(make_tool(_meta={"zspace": {"side_effect": False}})) != base
    assert tool_definition_hash(make_tool(outputSchema=None)) != base


def test_the_same_tool_on_two_servers_stays_two_tools() -> None:
    catalog = Catalog()
    for server in ("east", "west"):
        raw, _ = tool_to_raw(server, make_tool())
        assert catalog.add_raw_tool(raw, source=f"mcp:{server}") is not None
    assert {"east/create_order", "west/create_order"} <= set(catalog.tools)
    names = {spec.call_name for spec in catalog.tools.values()}
    assert len(names) == 2 and not catalog.quarantined


# ------------------------------------------------------------------ backend and errors
class FakePool:
    """Stands in for McpSessionPool: records calls, returns or raises what it is told."""

    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    async def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any] | None = None
    ) -> Any:
        self.calls.append((server, tool, dict(arguments or {})))
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def catalog_with(tool: types.Tool) -> Catalog:
    catalog = Catalog()
    raw, _ = tool_to_raw("shop", tool)
    assert catalog.add_raw_tool(raw, source="mcp:shop") is not None
    return catalog


def ok_result(payload: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload))],
        structuredContent=payload,
    )


async def test_backend_passes_the_idempotency_key_once_when_the_tool_takes_it() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"},
                                               "idempotency_key": {"type": "string"}}}
    catalog = catalog_with(make_tool(name="create_product", inputSchema=schema,
                                     _meta={"zspace": {"side_effect": True,
                                                       "environment": "test"}}))
    pool = FakePool(ok_result({"product_id": 7}))
    executor = ToolExecutor(catalog, backends={"shop": McpBackend(pool)})  # type: ignore[arg-type]
    record = await executor.execute({
        "call_id": "c1", "tool_id": "shop/create_product", "args": {"name": "Lamp"},
        "run_id": "run-1",
    })
    assert record["status"] == "ok" and record["output"] == {"product_id": 7}
    (server, tool, arguments), = pool.calls
    assert (server, tool) == ("shop", "create_product")
    assert arguments["name"] == "Lamp" and isinstance(arguments["idempotency_key"], str)


async def test_backend_adds_no_key_to_tools_without_one() -> None:
    catalog = catalog_with(make_tool(annotations={"readOnlyHint": True}))
    pool = FakePool(ok_result({"order_id": 1}))
    executor = ToolExecutor(catalog, backends=McpBackend(pool))  # type: ignore[arg-type]
    record = await executor.execute({
        "call_id": "c1", "tool_id": "shop/create_order", "args": {"user_id": 1},
        "run_id": "run-1",
    })
    assert record["status"] == "ok"
    assert pool.calls[0][2] == {"user_id": 1}


async def test_a_tool_error_result_is_permanent_and_not_retried() -> None:
    error = types.CallToolResult(
        content=[types.TextContent(
            type="text",
            text="order 5 is 'pending_payment' and cannot move to 'pending_payment' "
                 "(allowed: paid, cancelled)",
        )],
        isError=True,
    )
    catalog = catalog_with(make_tool(annotations={"readOnlyHint": True}))
    pool = FakePool(error)
    executor = ToolExecutor(catalog, backends=McpBackend(pool), backoff_s=0)  # type: ignore[arg-type]
    record = await executor.execute(
        {"call_id": "c1", "tool_id": "shop/create_order", "args": {"user_id": 1}}
    )
    assert record["error_kind"] == "permanent" and record["attempts"] == 1
    assert "cannot move to 'pending_payment'" in (record["error"] or "")
    assert classify_exception(McpToolError("shop", "t", "invalid status")) == "permanent"


def test_pool_errors_map_to_the_right_executor_kinds() -> None:
    died = McpServerDied("shop", "the call to tool 'pay'", "killed by signal 9")
    unavailable = McpServerUnavailable("shop", "exit code 3")
    assert classify_exception(died) == "transient" and not _surely_not_delivered(died)
    assert classify_exception(unavailable) == "transient" and _surely_not_delivered(unavailable)
    assert classify_exception(McpCallTimeout("shop", "x", 1.0)) == "timeout"
    assert "outcome of that request is unknown" in str(died)


async def test_a_server_dying_mid_write_without_a_key_is_outcome_unknown() -> None:
    catalog = catalog_with(make_tool(_meta={"zspace": {"side_effect": True,
                                                       "environment": "test"}}))
    pool = FakePool(McpServerDied("shop", "the call to tool 'create_order'", "exit code 1"))
    executor = ToolExecutor(catalog, backends=McpBackend(pool), backoff_s=0)  # type: ignore[arg-type]
    record = await executor.execute(
        {"call_id": "c1", "tool_id": "shop/create_order", "args": {"user_id": 1}}
    )
    assert record["error_kind"] == "unknown_outcome"
    assert len(pool.calls) == 1  # never repeated blindly
