"""`zspace run | resume | threads` over a SQLite checkpointer, with the shop's Python tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import graph.cli as cli
from tests.unit_tests.test_pipeline import World


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ZSPACE_POSTGRES_URL", raising=False)
    # The CLI builds its own Deps; hand it the world's (catalog with Python tools, test index).
    monkeypatch.setattr(cli, "Deps", lambda *args, **kwargs: made.deps)
    monkeypatch.setattr(cli, "saved_mcp_config", lambda home, index_name=None: None)
    return made


def last_json(out: str) -> Any:
    return json.loads(out.strip().splitlines()[-1])


def threads(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    assert cli.main(["threads", "--json"]) == 0
    return {t["thread_id"]: t for t in last_json(capsys.readouterr().out)}


def test_run_stops_for_a_value_then_resume_answers_it(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "create an order for account 123456", "--thread", "first"]) == 0
    out = capsys.readouterr().out
    assert "intent (rules)" in out and "→ s1.core shop/create_order" in out

    assert cli.main(["run", "advance the order status to paid", "--thread", "t-ask"]) == 3
    out = capsys.readouterr().out
    assert "zspace resume t-ask --answer VALUE" in out

    listed = threads(capsys)
    assert listed["first"]["status"] == "done"
    waiting = listed["t-ask"]
    assert waiting["status"] == "waiting for input" and waiting["last_step"] == "plan"
    assert "order_id" in waiting["question"]

    assert cli.main(["resume", "t-ask", "--answer", "1", "--json"]) == 0
    result = last_json(capsys.readouterr().out)
    assert result["results"]["s1.core"]["args"] == {"order_id": 1, "status": "paid"}
    assert threads(capsys)["t-ask"]["status"] == "done"

    assert cli.main(["resume", "t-ask", "--answer", "1"]) == 0
    assert "nothing to resume" in capsys.readouterr().out
    assert cli.main(["resume", "no-such-thread", "--answer", "1"]) == 2


def test_approval_through_resume(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "create an order for account 123456", "--thread", "a"]) == 0
    assert cli.main(["run", "cancel order 1", "--thread", "b"]) == 3
    assert "--approve or --reject" in capsys.readouterr().out
    assert world.shop.calls.get("cancel_order", 0) == 0
    assert cli.main(["resume", "b", "--reject"]) == 1  # rejected: done, with a gap
    assert world.shop.calls.get("cancel_order", 0) == 0
    assert cli.main(["run", "cancel order 1", "--thread", "c"]) == 3
    assert cli.main(["resume", "c", "--approve"]) == 0
    assert world.shop.calls["cancel_order"] == 1


def test_threads_text_and_empty(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["threads"]) == 0
    assert "no threads yet" in capsys.readouterr().out
    assert cli.main(["run", "advance the order status to paid", "--thread", "q"]) == 3
    capsys.readouterr()
    assert cli.main(["threads"]) == 0
    out = capsys.readouterr().out
    assert "waiting for input" in out and "? To 'advance the order status to paid'" in out


def test_every_subcommand_parses() -> None:
    parser = cli.build_parser()
    for argv in (
        ["index", "a.json"], ["search", "q"], ["run", "r", "--postgres", "postgresql://x/y"],
        ["resume", "t", "--approve"], ["threads", "--limit", "3"], ["mcp"], ["demo"],
        ["eval", "retrieval", "--catalog", "c", "--queries", "q"],
        ["eval", "e2e", "--split", "dev", "--out", "run.jsonl", "--json"],
        ["eval", "e2e", "--instructions", "f.jsonl", "--model", "m", "--base-url", "http://u"],
    ):
        assert callable(parser.parse_args(argv).handler)
    with pytest.raises(SystemExit):
        parser.parse_args(["resume", "t", "--approve", "--reject"])
    with pytest.raises(SystemExit):  # a split or an instructions file, not both
        parser.parse_args(["eval", "e2e", "--split", "dev", "--instructions", "f.jsonl"])


def test_a_run_driven_by_another_live_process_is_refused(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lease is taken from the runtime's ledger (Postgres when configured, else SQLite)."""
    import os

    ledger = world.deps.get_ledger()
    ledger.acquire_lease("busy-run", owner=f"elsewhere:{os.getpid()}:other")
    assert cli.main(["run", "create a test product", "--run-id", "busy-run"]) != 0
    assert "busy-run" in capsys.readouterr().err
    assert world.shop.count("products") == 0
    ledger.release_lease("busy-run", owner=f"elsewhere:{os.getpid()}:other")
    assert cli.main(["run", "create a test product", "--run-id", "busy-run"]) == 0
    assert world.shop.count("products") == 1


async def test_thread_listing_by_query_matches_the_walk(tmp_path: Path) -> None:
    """The grouped query over the SQLite checkpoint table lists what walking every checkpoint
    lists, in the same (most recent first) order, subgraph namespaces left out."""
    from graph.builder import build_graph
    from graph.threads import _thread_ids_by_query, list_threads, thread_ids
    from stores.checkpoint import sqlite_checkpointer

    world = World(tmp_path)
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        graph = build_graph(world.deps).compile(checkpointer=saver)
        for thread, request in [("a", "create a test product"), ("b", "hello"),
                                ("c", "advance the order status to paid"),
                                ("a", "create a test user")]:
            await graph.ainvoke({"request": request}, {"configurable": {"thread_id": thread}},
                                durability="sync")
        by_query = await _thread_ids_by_query(saver, None)
        assert by_query is not None
        saver_walk = type("Walk", (), {"alist": saver.alist})()  # not a SQLite saver: walks
        walked = await thread_ids(saver_walk)
        assert [t for t, _ in by_query] == [t for t, _ in walked] == ["a", "c", "b"]
        assert [t for t, _ in await thread_ids(saver, limit=2)] == ["a", "c"]
        listed = await list_threads(saver, graph)
        assert [t.thread_id for t in listed] == ["a", "c", "b"]
        assert all(t.updated_at for t in listed)
        assert listed[1].status == "waiting for input"


def test_search_ranks_with_the_one_tool_search(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """``zspace search`` and the bigtool hooks share ``graph.tools.search_tools``."""
    from graph.tools import search_tool_ids

    assert cli.main(["search", "place an order", "--k", "3", "--json"]) == 0
    found = last_json(capsys.readouterr().out)
    assert [t["tool_id"] for t in found["tools"]] == search_tool_ids(
        world.index, "place an order", k=3
    )
    assert found["keywords"] and found["tools"][0]["tool_id"] == "shop/create_order"


def test_a_model_that_cannot_be_used_is_an_error_unless_fallback_rules(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = ["--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    assert cli.main(["run", "create a test product", *dead]) == 2
    err = capsys.readouterr().err
    assert "chat model 'm' at http://127.0.0.1:9/v1 cannot be used" in err
    assert "--fallback-rules" in err and "Traceback" not in err
    assert world.shop.calls == {}

    assert cli.main(["run", "create a test product", *dead, "--fallback-rules"]) == 0
    assert "the offline rules plan this run" in capsys.readouterr().err
    assert world.shop.calls == {"create_product": 1}
