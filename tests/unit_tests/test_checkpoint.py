import builtins
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from stores.checkpoint import (
    CheckpointerUnavailable,
    memory_checkpointer,
    postgres_checkpointer,
    sqlite_checkpointer,
    sync_sqlite_checkpointer,
)


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def first(state: State) -> dict[str, Any]:
    return {"steps": ["first"]}


def second(state: State) -> dict[str, Any]:
    return {"steps": ["second"]}


def builder() -> StateGraph:
    graph = StateGraph(State)
    graph.add_node("first", first)
    graph.add_node("second", second)
    graph.add_edge(START, "first")
    graph.add_edge("first", "second")
    graph.add_edge("second", END)
    return graph


CONFIG = {"configurable": {"thread_id": "t1"}}


async def test_async_sqlite_saves_and_loads_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "checkpoints.sqlite"
    async with sqlite_checkpointer(path) as saver:
        graph = builder().compile(checkpointer=saver)
        result = await graph.ainvoke({"steps": []}, CONFIG, durability="sync")
        assert result["steps"] == ["first", "second"]
    async with sqlite_checkpointer(path) as saver:
        graph = builder().compile(checkpointer=saver)
        snapshot = await graph.aget_state(CONFIG)
        assert snapshot.values["steps"] == ["first", "second"]
        history = [state async for state in graph.aget_state_history(CONFIG)]
        assert len(history) >= 3


def test_sync_sqlite_saves_and_loads_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "sync.sqlite"
    with sync_sqlite_checkpointer(path) as saver:
        graph = builder().compile(checkpointer=saver)
        graph.invoke({"steps": []}, CONFIG, durability="sync")
    with sync_sqlite_checkpointer(path) as saver:
        graph = builder().compile(checkpointer=saver)
        assert graph.get_state(CONFIG).values["steps"] == ["first", "second"]


def test_sqlite_resumes_from_an_interrupt(tmp_path: Path) -> None:
    path = tmp_path / "resume.sqlite"
    with sync_sqlite_checkpointer(path) as saver:
        graph = builder().compile(checkpointer=saver, interrupt_before=["second"])
        graph.invoke({"steps": []}, CONFIG, durability="sync")
        assert graph.get_state(CONFIG).next == ("second",)
    with sync_sqlite_checkpointer(path) as saver:
        graph = builder().compile(checkpointer=saver, interrupt_before=["second"])
        result = graph.invoke(None, CONFIG, durability="sync")
        assert result["steps"] == ["first", "second"]


def test_default_path_is_under_zspace_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    with sync_sqlite_checkpointer() as saver:
        builder().compile(checkpointer=saver).invoke({"steps": []}, CONFIG)
    assert (tmp_path / "home" / "checkpoints.sqlite").exists()


def test_memory_checkpointer() -> None:
    graph = builder().compile(checkpointer=memory_checkpointer())
    graph.invoke({"steps": []}, CONFIG)
    assert graph.get_state(CONFIG).values["steps"] == ["first", "second"]


async def test_postgres_without_its_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_import = builtins.__import__

    def without_postgres(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("langgraph.checkpoint.postgres"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_postgres)
    with pytest.raises(CheckpointerUnavailable, match="langgraph-checkpoint-postgres"):
        async with postgres_checkpointer("postgresql://localhost/none"):
            pass
