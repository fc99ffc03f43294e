"""`langgraph dev` serves the zspace graph: runs over HTTP (SDK), interrupts, RemoteGraph.

The server's home holds the sandbox indexed over MCP, so runs in the server call real tools.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest

from tests.integration_tests.conftest import free_port, wait_for_port

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "1",
    "OMP_NUM_THREADS": "1",
}


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def _wait_ok(url: str, process: subprocess.Popen[bytes], timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"langgraph dev exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if json.loads(response.read()).get("ok"):
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"langgraph dev did not answer /ok within {timeout} s")


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A sandbox indexed over MCP into a temp home, served by `langgraph dev`."""
    if shutil.which("langgraph") is None and not Path(_bin("langgraph")).exists():
        pytest.skip("langgraph-cli is not installed: pip install 'langgraph-cli[inmem]'")
    home = tmp_path_factory.mktemp("studio-home")
    env = {**os.environ, **OFFLINE, "ZSPACE_HOME": str(home)}
    env.pop("ZSPACE_POSTGRES_URL", None)
    subprocess.run([sys.executable, "-m", "sandbox", "reset"], env=env, check=True,
                   capture_output=True)
    subprocess.run(
        [_bin("zspace"), "index", "--mcp", str(REPO / "sandbox" / "data" / "mcp.json"), "--json"],
        env=env, check=True, capture_output=True, cwd=home,
    )
    port = free_port()
    log = (home / "langgraph-dev.log").open("wb")
    process = subprocess.Popen(
        # No --allow-blocking: the server's guard against blocking calls in async nodes stays on.
        [_bin("langgraph"), "dev", "--no-browser", "--no-reload", "--port", str(port),
         "--host", "127.0.0.1"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_port(port, process, timeout=40)
        _wait_ok(url, process)
        yield url
    except BaseException:
        log.flush()
        print((home / "langgraph-dev.log").read_text()[-4000:])
        raise
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


async def test_a_run_over_http_stops_for_a_value_and_resumes(studio: str) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=studio)
    thread = await client.threads.create()
    thread_id = thread["thread_id"]
    events: list[dict[str, Any]] = []
    async for part in client.runs.stream(
        thread_id,
        "zspace",
        input={"request": "advance the order status to pending payment"},
        context={"output_format": "json", "top_k": 5},
        stream_mode=["custom", "updates"],
    ):
        if part.event == "custom":
            events.append(part.data)
        elif part.event == "error":
            raise AssertionError(f"the run failed in the server: {part.data}")
    kinds = [e["event"] for e in events]
    assert "intent" in kinds and "candidates" in kinds and "clarification_asked" in kinds
    state = await client.threads.get_state(thread_id)
    assert state["next"] == ["clarify"]
    question = state["tasks"][0]["interrupts"][0]["value"]
    assert question["param"] == "order_id"
    assert question["tool_id"] == "sandbox/advance_order_status"

    final = await client.runs.wait(
        thread_id, "zspace", command={"resume": "3"}, context={"output_format": "json"}
    )
    assert isinstance(final, dict)
    result = final["results"]["s1.core"]
    assert result["status"] == "ok", (result["tool_id"], result["error"], result.get("error_kind"))
    assert result["args"] == {"order_id": 3, "status": "pending_payment"}
    assert json.loads(final["answer"])["calls"][0]["tool"] == "sandbox/advance_order_status"
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "idle"


class Parent(TypedDict, total=False):
    ticket: str
    request: str
    answer: str
    notes: list[str]


async def test_remote_graph_runs_alone_and_inside_a_parent_graph(studio: str) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.pregel.remote import RemoteGraph
    from langgraph.types import Command

    remote = RemoteGraph("zspace", url=studio)

    # Alone, with an interrupt answered through the remote graph.
    config: Any = {"configurable": {"thread_id": str(uuid.uuid4())}}
    await remote.ainvoke({"request": "advance the order status to shipped"}, config)
    snapshot = await remote.aget_state(config)
    assert snapshot.next == ("clarify",)
    final = await remote.ainvoke(Command(resume="2"), config)
    assert final["results"]["s1.core"]["args"] == {"order_id": 2, "status": "shipped"}
    assert final["results"]["s1.core"]["status"] == "ok"

    # As a node of a parent graph with its own state and its own checkpointer.
    def to_request(state: Parent) -> dict[str, Any]:
        return {"request": f"get order {state['ticket']}"}

    def wrap_up(state: Parent) -> dict[str, Any]:
        return {"notes": [f"order {state['ticket']}: {state['answer'][:200]}"]}

    builder = StateGraph(Parent)
    builder.add_node("to_request", to_request)
    builder.add_node("zspace", remote)
    builder.add_node("wrap_up", wrap_up)
    builder.add_edge(START, "to_request")
    builder.add_edge("to_request", "zspace")
    builder.add_edge("zspace", "wrap_up")
    builder.add_edge("wrap_up", END)
    parent = builder.compile(checkpointer=InMemorySaver())
    out = await parent.ainvoke({"ticket": "3"}, {"configurable": {"thread_id": str(uuid.uuid4())}})
    assert "sandbox/get_order" in out["answer"]
    assert out["notes"][0].startswith("order 3:")
