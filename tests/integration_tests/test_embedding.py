"""zspace as a library: the built wheel, in a clean venv, embedded in someone else's graph.

The host script lives outside the repo, has its own state, its own Python tools and its own
SQLite checkpointer; the zspace graph is one node of it. Process 1 runs to an interrupt
(zspace asks for an order id) and exits; process 2 resumes the same thread from the file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]

HOST_SCRIPT = textwrap.dedent(
    '''
    """A help desk that hands tool work to zspace (run: python desk.py start|resume)."""
    import asyncio
    import hashlib
    import json
    import re
    import sqlite3
    import sys
    from pathlib import Path
    from typing import TypedDict

    import numpy as np
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command

    from graph import Context, Deps, build_graph
    from stores.catalog.model import Catalog
    from stores.retrieval.index import ToolIndex

    HERE = Path(__file__).parent
    ORDERS = HERE / "orders.json"


    class WordHashEmbedder:
        """Deterministic bag-of-words vectors: enough to rank a handful of tools."""

        name = "desk-word-hash"
        dim = 64

        def embed(self, texts):
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            for row, text in enumerate(texts):
                for token in re.findall(r"[a-z]+", text.lower()):
                    out[row, hashlib.md5(token.encode()).digest()[0] % self.dim] += 1.0
                out[row, 0] += 1e-3
            return out / np.linalg.norm(out, axis=1, keepdims=True)


    def load():
        return json.loads(ORDERS.read_text()) if ORDERS.exists() else {"1": "created"}


    def advance_order_status(order_id: int, status: str) -> dict:
        """Advance an order's status (e.g. to pending_payment, paid, shipped)."""
        orders = load()
        orders[str(order_id)] = status
        ORDERS.write_text(json.dumps(orders))
        return {"order_id": order_id, "status": status}


    def list_orders() -> list:
        """List every order with its status."""
        return [{"order_id": int(k), "status": v} for k, v in load().items()]


    catalog = Catalog()
    for function, side_effect in ((advance_order_status, True), (list_orders, False)):
        catalog.register_function(function, agent="desk", environment="test",
                                  side_effect=side_effect)
    index = ToolIndex(HERE / "index", WordHashEmbedder(), name="desk")
    index.sync(catalog)
    zspace = build_graph(Deps(catalog=catalog, index=index, home=HERE / "zspace-home")).compile()


    class Desk(TypedDict, total=False):
        ticket: str
        request: str
        answer: str
        log: list


    def read_ticket(state: Desk) -> dict:
        return {"request": state["ticket"], "log": ["ticket read"]}


    def close_ticket(state: Desk) -> dict:
        return {"log": [*state["log"], "closed: " + state["answer"][:80]]}


    builder = StateGraph(Desk)
    builder.add_node("read_ticket", read_ticket)
    builder.add_node("zspace", zspace)
    builder.add_node("close_ticket", close_ticket)
    builder.add_edge(START, "read_ticket")
    builder.add_edge("read_ticket", "zspace")
    builder.add_edge("zspace", "close_ticket")
    builder.add_edge("close_ticket", END)

    import graph as zspace_graph_package

    async def main(step):
        # zspace's nodes are async: drive the host graph with the async API.
        async with AsyncSqliteSaver.from_conn_string(str(HERE / "desk.sqlite")) as saver:
            desk = builder.compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "ticket-7"}}
            context = Context(output_format="text")
            if step == "start":
                await desk.ainvoke({"ticket": "advance the order status to paid"}, config,
                                   context=context, durability="sync")
                snapshot = await desk.aget_state(config, subgraphs=True)
                question = snapshot.tasks[0].interrupts[0].value
                return {"next": list(snapshot.next), "param": question["param"],
                        "package": zspace_graph_package.__file__}
            final = await desk.ainvoke(Command(resume="1"), config, context=context,
                                       durability="sync")
            return {"log": final["log"], "orders": load()}


    print(json.dumps(asyncio.run(main(sys.argv[1]))))
    '''
)


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"{args}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


def test_the_wheel_embeds_in_a_parent_graph_and_resumes_in_a_new_process(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for package in ("graph", "nodes", "stores", "sandbox"):
        shutil.copytree(
            REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    wheels = tmp_path / "wheels"
    # --no-build-isolation: offline, setuptools comes from the running venv.
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
          "-q", "-w", str(wheels)], cwd=source)
    (wheel,) = wheels.glob("zspace-*.whl")

    venv = tmp_path / "host-venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=tmp_path).strip())
    # Dependencies come from the main venv; zspace itself only from the wheel.
    (site / "main_venv_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
          str(wheel)], cwd=tmp_path)

    app = tmp_path / "desk-app"
    app.mkdir()
    (app / "desk.py").write_text(HOST_SCRIPT)
    started = json.loads(_run([str(python), "desk.py", "start"], cwd=app).strip().splitlines()[-1])
    assert started["next"] == ["zspace"]
    assert started["param"] == "order_id"
    assert started["package"].startswith(str(site)), started["package"]

    finished = json.loads(_run([str(python), "desk.py", "resume"], cwd=app).strip().splitlines()[-1])
    assert finished["orders"] == {"1": "paid"}
    assert finished["log"][0] == "ticket read"
    assert finished["log"][1].startswith("closed: ")
    assert "advance_order_status" in finished["log"][1]
