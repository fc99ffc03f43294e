import asyncio
import json
import multiprocessing
from pathlib import Path

import pytest

from stores.execution.ledger.calls import (
    CallLedger,
    LedgerConflict,
    LedgerError,
    canonical_args_hash,
    idempotency_key,
)


@pytest.fixture
def ledger(tmp_path: Path) -> CallLedger:
    opened = CallLedger(tmp_path / "ledger.sqlite")
    yield opened
    opened.close()


def test_keys_are_stable_and_derive_only_from_the_call() -> None:
    first = idempotency_key("run-1", "s1", "shop/create_order", {"b": 2, "a": [1, "x"]})
    again = idempotency_key("run-1", "s1", "shop/create_order", {"a": [1, "x"], "b": 2})
    assert first == again
    assert len(first) == 64
    assert first != idempotency_key("run-2", "s1", "shop/create_order", {"a": [1, "x"], "b": 2})
    assert first != idempotency_key("run-1", "s2", "shop/create_order", {"a": [1, "x"], "b": 2})
    assert canonical_args_hash({"a": 1, "b": "é"}) == canonical_args_hash({"b": "é", "a": 1})


def test_non_json_arguments_are_refused_with_a_clear_error() -> None:
    with pytest.raises(LedgerError, match="plain JSON"):
        idempotency_key("r", "s", "t", {"when": object()})
    with pytest.raises(LedgerError):
        canonical_args_hash({"x": float("nan")})


def test_begin_inserts_then_returns_the_existing_record_unchanged(ledger: CallLedger) -> None:
    record = ledger.begin("k1", "run", "c1", "shop/create_order", "h1")
    assert record.status == "started" and record.attempts == 1
    again, created = ledger.claim("k1", "run", "c1", "shop/create_order", "h1")
    assert not created
    assert again == record


def test_key_reused_with_other_arguments_is_a_conflict(ledger: CallLedger) -> None:
    ledger.begin("k1", "run", "c1", "shop/create_order", "h1")
    with pytest.raises(LedgerConflict, match="'k1'"):
        ledger.begin("k1", "run", "c1", "shop/create_order", "other")


def test_finish_fail_restart_and_reads(ledger: CallLedger) -> None:
    ledger.begin("k1", "run", "c1", "t", "h")
    done = ledger.finish("k1", {"order_id": 7, "note": "ünïcode"})
    assert done.status == "done" and done.result == {"order_id": 7, "note": "ünïcode"}
    assert done.finished_at is not None

    ledger.begin("k2", "run", "c2", "t", "h")
    failed = ledger.fail("k2", "HTTP 503", transient=True)
    assert failed.status == "failed" and failed.transient and failed.error == "HTTP 503"
    restarted = ledger.restart("k2")
    assert restarted.status == "started" and restarted.attempts == 2 and restarted.error is None

    with pytest.raises(LedgerError, match="already done"):
        ledger.restart("k1")
    with pytest.raises(LedgerError, match="not in the ledger"):
        ledger.finish("missing", 1)

    ledger.begin("k3", "other-run", "c3", "t", "h")
    assert [r.idempotency_key for r in ledger.for_run("run")] == ["k1", "k2"]
    assert ledger.get("nope") is None
    json.dumps(ledger.get("k1").to_dict())


def test_unknown_outcome_keeps_started_with_a_note(ledger: CallLedger) -> None:
    ledger.begin("k", "run", "c", "t", "h")
    record = ledger.note_unknown_outcome("k", "timed out")
    assert record.status == "started" and record.error == "timed out"


def test_persists_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    first = CallLedger(path)
    first.begin("k", "run", "c", "t", "h")
    first.finish("k", [1, 2])
    first.close()
    second = CallLedger(path)
    assert second.get("k").result == [1, 2]
    second.close()


def test_memory_ledger_works_across_threads() -> None:
    ledger = CallLedger(":memory:")

    async def begin_in_thread(index: int) -> None:
        await asyncio.to_thread(ledger.begin, f"k{index}", "run", f"c{index}", "t", "h")

    async def main() -> None:
        await asyncio.gather(*(begin_in_thread(i) for i in range(10)))

    asyncio.run(main())
    assert len(ledger.for_run("run")) == 10


async def test_concurrent_tasks_claim_a_key_exactly_once(ledger: CallLedger) -> None:
    results = await asyncio.gather(
        *(asyncio.to_thread(ledger.claim, "same", "run", "c", "t", "h") for _ in range(16))
    )
    assert sum(created for _, created in results) == 1


def _claim_many(path: str, worker: int, queue: "multiprocessing.Queue[int]") -> None:
    ledger = CallLedger(path)
    created = 0
    for index in range(40):
        _, fresh = ledger.claim(f"key-{index}", "run", f"c{index}", "t", "h")
        created += int(fresh)
        if fresh:
            ledger.finish(f"key-{index}", {"by": worker})
    ledger.close()
    queue.put(created)


def test_several_processes_share_one_file(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    CallLedger(path).close()
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_claim_many, args=(path, w, queue)) for w in range(3)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    assert sum(queue.get(timeout=5) for _ in workers) == 40
    ledger = CallLedger(path)
    assert all(record.status == "done" for record in ledger.for_run("run"))
    ledger.close()


def test_a_replayed_result_keeps_the_tools_key_order(ledger: CallLedger) -> None:
    ledger.begin("order-key", "run", "s1.core", "shop/create_order", "h")
    ledger.finish("order-key", {"output": {"user_id": 1, "account_number": "123456", "name": "A"}})
    record = ledger.get("order-key")
    assert record is not None
    assert list(record.result["output"]) == ["user_id", "account_number", "name"]
