import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from stores.catalog.model import Catalog, ToolSpec
from stores.execution.backends import PythonBackend
from stores.execution.executor import ToolExecutor, classify_exception
from stores.execution.ledger.calls import CallLedger
from stores.execution.output import normalize_output

RESULT_KEYS = {
    "call_id", "tool_id", "status", "output", "output_ref", "error", "error_kind",
    "attempts", "duration_ms", "replayed", "notes",
}


class Shop:
    """A fake backend system that records every effect."""

    def __init__(self) -> None:
        self.orders: list[dict[str, Any]] = []
        self.by_key: dict[str, dict[str, Any]] = {}
        self.calls = 0


def make_catalog(shop: Shop) -> Catalog:
    catalog = Catalog()

    def get_user(account_number: str) -> dict[str, Any]:
        """Look a user up by account number."""
        shop.calls += 1
        return {"user_id": 42, "account_number": account_number}

    def create_order(user_id: int, product_id: int, quantity: int = 1) -> dict[str, Any]:
        """Create an order."""
        shop.calls += 1
        order = {"order_id": len(shop.orders) + 1, "user_id": user_id, "quantity": quantity}
        shop.orders.append(order)
        return order

    def create_payment(order_id: int, idempotency_key: str = "") -> dict[str, Any]:
        """Pay an order; deduplicated by key."""
        shop.calls += 1
        if idempotency_key in shop.by_key:
            return shop.by_key[idempotency_key]
        payment = {"payment_id": len(shop.by_key) + 1, "order_id": order_id}
        shop.by_key[idempotency_key] = payment
        return payment

    catalog.register_function(get_user, agent="shop", environment="test", side_effect=False)
    catalog.register_function(
        create_order, agent="shop", environment="test", side_effect=True
    )
    catalog.register_function(
        create_payment, agent="shop", environment="test", side_effect=True
    )
    return catalog


@pytest.fixture
def shop() -> Shop:
    return Shop()


@pytest.fixture
def catalog(shop: Shop) -> Catalog:
    return make_catalog(shop)


def call(tool_id: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"call_id": "c1", "tool_id": tool_id, "args": args, "run_id": "run-1", **extra}


def assert_plain(result: dict[str, Any]) -> None:
    assert set(result) == RESULT_KEYS
    json.dumps(result, allow_nan=False)


async def test_read_call_succeeds(catalog: Catalog) -> None:
    executor = ToolExecutor(catalog)
    result = await executor.execute(call("shop/get_user", {"account_number": "123456"}))
    assert_plain(result)
    assert result["status"] == "ok" and result["error_kind"] is None
    assert result["output"] == {"user_id": 42, "account_number": "123456"}
    assert result["attempts"] == 1 and not result["replayed"]


async def test_unknown_tool_is_an_error(catalog: Catalog) -> None:
    result = await ToolExecutor(catalog).execute(call("shop/nope", {}))
    assert_plain(result)
    assert result["status"] == "error" and "unknown tool 'shop/nope'" in result["error"]


async def test_arguments_are_validated_before_the_call(catalog: Catalog, shop: Shop) -> None:
    executor = ToolExecutor(catalog)
    missing = await executor.execute(call("shop/create_order", {"user_id": 1}))
    assert missing["error_kind"] == "validation"
    assert "product_id" in missing["error"] and "required" in missing["error"]
    wrong_type = await executor.execute(
        call("shop/create_order", {"user_id": "x", "product_id": 1})
    )
    assert wrong_type["error_kind"] == "validation"
    assert "'user_id'" in wrong_type["error"] and "'type'" in wrong_type["error"]
    assert shop.calls == 0


async def test_finished_side_effect_is_replayed_not_repeated(
    catalog: Catalog, shop: Shop, tmp_path: Path
) -> None:
    ledger = CallLedger(tmp_path / "ledger.sqlite")
    executor = ToolExecutor(catalog, ledger=ledger)
    planned = call("shop/create_order", {"user_id": 42, "product_id": 7})
    first = await executor.execute(planned)
    assert first["status"] == "ok" and not first["replayed"]
    # A resumed run (new executor, same ledger file) executes the same planned call again.
    resumed = ToolExecutor(catalog, ledger=CallLedger(tmp_path / "ledger.sqlite"))
    second = await resumed.execute(planned)
    assert_plain(second)
    assert second["replayed"] and second["output"] == first["output"]
    assert len(shop.orders) == 1


async def test_started_without_key_support_is_unknown_outcome(
    catalog: Catalog, shop: Shop
) -> None:
    ledger = CallLedger(":memory:")
    executor = ToolExecutor(catalog, ledger=ledger)
    planned = call("shop/create_order", {"user_id": 42, "product_id": 7}, idempotency_key="K")
    from stores.execution.ledger.calls import canonical_args_hash

    ledger.begin("K", "run-1", "c1", "shop/create_order", canonical_args_hash(planned["args"]))
    result = await executor.execute(planned)
    assert_plain(result)
    assert result["error_kind"] == "unknown_outcome" and shop.orders == []
    # An operator reconciles: the order was not created, so a retry is allowed.
    ledger.fail("K", "reconciled: not created", transient=True)
    retried = await executor.execute(planned)
    assert retried["status"] == "ok" and retried["attempts"] == 2
    assert len(shop.orders) == 1


async def test_started_with_key_support_calls_again_with_the_same_key(
    catalog: Catalog, shop: Shop
) -> None:
    ledger = CallLedger(":memory:")
    executor = ToolExecutor(catalog, ledger=ledger)
    planned = call("shop/create_payment", {"order_id": 1})
    first = await executor.execute(planned)
    key = next(iter(shop.by_key))
    # Simulate a crash after the tool acted but before the ledger recorded it.
    ledger.database.connection().execute(
        "UPDATE calls SET status='started', result_json=NULL WHERE idempotency_key=?", (key,)
    )
    second = await executor.execute(planned)
    assert second["status"] == "ok" and not second["replayed"]
    assert second["output"] == first["output"]
    assert list(shop.by_key) == [key] and len(shop.by_key) == 1


async def test_permanent_failure_is_recorded_and_not_retried(tmp_path: Path) -> None:
    catalog = Catalog()
    attempts = []

    def charge(amount: int) -> int:
        """Charge."""
        attempts.append(amount)
        raise ValueError("amount exceeds the limit")

    catalog.register_function(charge, agent="bank", environment="test", side_effect=True)
    ledger = CallLedger(":memory:")
    executor = ToolExecutor(catalog, ledger=ledger, backoff_s=0)
    result = await executor.execute(call("bank/charge", {"amount": 5}))
    assert result["error_kind"] == "permanent" and "exceeds" in result["error"]
    again = await executor.execute(call("bank/charge", {"amount": 5}))
    assert again["error_kind"] == "permanent" and again["replayed"]
    assert attempts == [5]


async def test_transient_read_failures_are_retried_with_backoff() -> None:
    catalog = Catalog()
    failures = [ConnectionError("reset"), RuntimeError("HTTP 503 Service Unavailable")]

    async def fetch(q: str) -> str:
        """Fetch."""
        if failures:
            raise failures.pop(0)
        return "fine"

    catalog.register_function(fetch, agent="web", side_effect=False)
    executor = ToolExecutor(catalog, retries=2, backoff_s=0.001)
    result = await executor.execute(call("web/fetch", {"q": "x"}))
    assert result["status"] == "ok" and result["attempts"] == 3


async def test_side_effect_timeout_without_key_is_not_retried(shop: Shop) -> None:
    catalog = Catalog()
    calls = []

    async def send_email(to: str) -> str:
        """Send an email."""
        calls.append(to)
        await asyncio.sleep(5)
        return "sent"

    catalog.register_function(send_email, agent="mail", environment="test", side_effect=True)
    ledger = CallLedger(":memory:")
    executor = ToolExecutor(catalog, ledger=ledger, deadline_s=0.05, retries=3, backoff_s=0)
    result = await executor.execute(call("mail/send_email", {"to": "a@b.c"}))
    assert_plain(result)
    assert result["error_kind"] == "unknown_outcome" and calls == ["a@b.c"]
    record = ledger.for_run("run-1")[0]
    assert record.status == "started" and "deadline" in record.error


async def test_deadline_holds_for_blocking_sync_code() -> None:
    catalog = Catalog()

    def block(seconds: float) -> str:
        """Block."""
        time.sleep(seconds)
        return "done"

    catalog.register_function(block, agent="slow", side_effect=False)
    executor = ToolExecutor(catalog, deadline_s=0.1, retries=0)
    started = time.monotonic()
    result = await executor.execute(call("slow/block", {"seconds": 3}))
    assert time.monotonic() - started < 1.0
    assert result["error_kind"] == "timeout" and "deadline" in result["error"]


async def test_langchain_tool_and_async_function() -> None:
    catalog = Catalog()

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    async def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    catalog.register_langchain_tool(add, agent="math", side_effect=False)
    catalog.register_function(shout, agent="text", side_effect=False)
    executor = ToolExecutor(catalog)
    assert (await executor.execute(call("math/add", {"a": 2, "b": 3})))["output"] == 5
    assert (await executor.execute(call("text/shout", {"text": "hi"})))["output"] == "HI"


async def test_environment_policy() -> None:
    catalog = Catalog()

    def read() -> str:
        """Read."""
        return "r"

    def write() -> str:
        """Write."""
        raise AssertionError("must not be called")

    def prod_read() -> str:
        """Prod read."""
        raise AssertionError("must not be called")

    catalog.register_function(read, agent="misc", side_effect=False)
    catalog.register_function(write, agent="misc", side_effect=True)
    catalog.register_function(prod_read, agent="misc", environment="prod", side_effect=False)
    executor = ToolExecutor(catalog, allowed_environments=["test"])
    assert (await executor.execute(call("misc/read", {})))["status"] == "ok"
    refused_write = await executor.execute(call("misc/write", {}))
    assert refused_write["error_kind"] == "policy" and "no environment tag" in refused_write["error"]
    refused_prod = await executor.execute(call("misc/prod_read", {}))
    assert refused_prod["error_kind"] == "policy" and "'prod'" in refused_prod["error"]


async def test_large_output_is_capped_and_kept_whole(tmp_path: Path) -> None:
    catalog = Catalog()

    def dump() -> dict[str, Any]:
        """Dump."""
        return {"rows": ["x" * 100] * 500}

    catalog.register_function(dump, agent="db", side_effect=False)
    executor = ToolExecutor(catalog, max_output_chars=1000, results_dir=tmp_path)
    result = await executor.execute(call("db/dump", {}))
    assert_plain(result)
    assert isinstance(result["output"], str) and len(result["output"]) <= 1000
    assert "truncated" in result["output"]
    saved = json.loads(Path(result["output_ref"]).read_text(encoding="utf-8"))
    assert saved == {"rows": ["x" * 100] * 500}


class Order(BaseModel):
    order_id: int


class Custom:
    def __str__(self) -> str:
        return "custom"


def test_output_normalization() -> None:
    assert normalize_output(Order(order_id=3))[0] == {"order_id": 3}
    text, notes = normalize_output(b"ok \xff")
    assert text == "ok \ufffd" and "bytes" in notes[0]
    blocks = [{"type": "text", "text": '{"order_id": 9}'}]
    assert normalize_output(blocks)[0] == {"order_id": 9}
    two = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert normalize_output(two)[0] == "a\nb"
    message = ToolMessage(content="hello", tool_call_id="t1")
    assert normalize_output(message)[0] == "hello"
    assert normalize_output({"x": (1, 2), "y": Custom(), "z": float("inf")})[0] == {
        "x": [1, 2], "y": "custom", "z": "inf"
    }
    assert normalize_output("bad \udcff")[0] == "bad ?"


def test_classification() -> None:
    assert classify_exception(TimeoutError()) == "timeout"
    assert classify_exception(ConnectionResetError()) == "transient"
    assert classify_exception(RuntimeError("429 Too Many Requests")) == "transient"
    assert classify_exception(RuntimeError("service temporarily unavailable")) == "transient"
    assert classify_exception(ValueError("bad id")) == "permanent"
    assert classify_exception(KeyError("x")) == "permanent"

    class HTTPError(OSError):
        status_code = 404

    assert classify_exception(HTTPError("not found")) == "permanent"


async def test_custom_backend_by_agent(catalog: Catalog) -> None:
    class Echo:
        async def call(self, spec: ToolSpec, args: dict[str, Any], key: str | None) -> Any:
            return {"echo": args, "key": key}

    executor = ToolExecutor(catalog, backends={"shop": Echo()})
    result = await executor.execute(call("shop/get_user", {"account_number": "1"}))
    assert result["output"] == {"echo": {"account_number": "1"}, "key": None}
    assert isinstance(executor.backend_for(catalog.tools["shop/create_order"]), Echo)
    assert isinstance(ToolExecutor(catalog).default_backend, PythonBackend)


async def test_concurrent_duplicates_of_a_side_effect_run_it_once(
    catalog: Catalog, shop: Shop, tmp_path: Path
) -> None:
    executor = ToolExecutor(catalog, ledger=CallLedger(tmp_path / "ledger.sqlite"))
    planned = call("shop/create_order", {"user_id": 42, "product_id": 7})
    results = await asyncio.gather(*(executor.execute(planned) for _ in range(8)))
    assert len(shop.orders) == 1
    assert sum(r["status"] == "ok" for r in results) >= 1
    assert {r["error_kind"] for r in results} <= {None, "unknown_outcome"}


async def test_non_json_arguments_are_a_validation_error(catalog: Catalog) -> None:
    result = await ToolExecutor(catalog).execute(
        call("shop/get_user", {"account_number": object()})
    )
    assert_plain(result)
    assert result["error_kind"] == "validation"


class FakeContent(BaseModel):
    type: str = "text"
    text: str


class FakeCallToolResult(BaseModel):
    content: list[FakeContent]
    structuredContent: dict[str, Any] | None = None
    isError: bool = False


async def test_mcp_like_results() -> None:
    catalog = Catalog()
    replies = [
        FakeCallToolResult(content=[FakeContent(text='{"a": 1}')]),
        FakeCallToolResult(content=[FakeContent(text="x")], structuredContent={"b": 2}),
        FakeCallToolResult(content=[FakeContent(text="no such order")], isError=True),
    ]

    def mcp_tool() -> Any:
        """MCP-like."""
        return replies.pop(0)

    catalog.register_function(mcp_tool, agent="mcp", side_effect=False)
    executor = ToolExecutor(catalog)
    assert (await executor.execute(call("mcp/mcp_tool", {})))["output"] == {"a": 1}
    assert (await executor.execute(call("mcp/mcp_tool", {})))["output"] == {"b": 2}
    failed = await executor.execute(call("mcp/mcp_tool", {}))
    assert failed["error_kind"] == "permanent" and "no such order" in failed["error"]
