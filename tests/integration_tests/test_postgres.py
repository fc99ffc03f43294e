"""A real PostgreSQL (Debian's binaries): checkpointer + call ledger, interrupt, resume, threads."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration_tests.conftest import free_port

pytestmark = pytest.mark.integration

INSTALL_HINT = (
    "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb): install them "
    "with `apt-get install postgresql` (CI's .ci/run does)"
)


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_server_user() -> tuple[list[str], int | None, int | None]:
    """initdb refuses root: run as the postgres user when we are root."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no 'postgres' user to run the server as")
    return ["runuser", "-u", "postgres", "--"], user.pw_uid, user.pw_gid


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1:<free port>, stopped after the module."""
    binaries = _binaries()
    if binaries is None:
        pytest.skip(INSTALL_HINT)
    prefix, uid, gid = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="zspace-pg-"))
    data, sockets, log = root / "data", root / "sock", root / "server.log"
    sockets.mkdir()
    if uid is not None:
        os.chown(root, uid, gid or -1)
        os.chown(sockets, uid, gid or -1)
    port = free_port()
    subprocess.run(
        [*prefix, str(binaries / "initdb"), "-D", str(data), "-U", "zspace", "-A", "trust",
         "--no-sync", "-E", "UTF8"],
        check=True, capture_output=True,
    )
    subprocess.run(
        [*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "30",
         "-o", f"-h 127.0.0.1 -p {port} -k {sockets} -F", "start"],
        check=True, capture_output=True,
    )
    try:
        subprocess.run(
            [str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "zspace",
             "zspace"],
            check=True, capture_output=True,
        )
        yield f"postgresql://zspace@127.0.0.1:{port}/zspace"
    finally:
        subprocess.run(
            [*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


def test_the_ledger_runs_on_postgres(postgres_url: str) -> None:
    from stores.execution.ledger.calls import CallLedger, LedgerConflict

    ledger = CallLedger(postgres_url)
    try:
        record, created = ledger.claim("k1", "run-1", "s1.core", "shop/create_order", "h1")
        assert created and record.status == "started"
        again, created = ledger.claim("k1", "run-1", "s1.core", "shop/create_order", "h1")
        assert not created and again.started_at == pytest.approx(record.started_at)
        with pytest.raises(LedgerConflict):
            ledger.claim("k1", "run-1", "s1.core", "shop/create_order", "other")
        done = ledger.finish("k1", {"order_id": 7, "note": "é"})
        assert done.status == "done" and done.result == {"order_id": 7, "note": "é"}
        # Timestamps keep sub-second precision (a 4-byte REAL would round them to ~100 s).
        assert done.finished_at is not None and abs(done.finished_at - done.started_at) < 5
        assert [r.idempotency_key for r in ledger.for_run("run-1")] == ["k1"]
    finally:
        ledger.close()
    reopened = CallLedger(postgres_url)
    try:
        stored = reopened.get("k1")
        assert stored is not None and stored.result == {"order_id": 7, "note": "é"}
    finally:
        reopened.close()


def test_one_owner_wins_a_run_lease_on_postgres(postgres_url: str) -> None:
    """Two processes (here: owners) racing for one run's lease: exactly one gets it."""
    import concurrent.futures
    import threading

    from stores.execution.ledger.calls import CallLedger, RunLeaseHeld

    ledgers = [CallLedger(postgres_url) for _ in range(6)]
    start = threading.Barrier(len(ledgers))

    def take(number: int) -> str:
        start.wait()
        try:
            ledgers[number].acquire_lease("race-run", owner=f"host:{number}:token")
        except RunLeaseHeld:
            return "refused"
        return "won"

    try:
        with concurrent.futures.ThreadPoolExecutor(len(ledgers)) as pool:
            outcomes = list(pool.map(take, range(len(ledgers))))
        assert sorted(outcomes) == ["refused"] * (len(ledgers) - 1) + ["won"]
        winner = outcomes.index("won")
        holder = ledgers[0].lease_holder("race-run")
        assert holder is not None and holder.owner == f"host:{winner}:token"
        # The request a run id is bound to is shared too.
        ledgers[0].bind_run("race-run", "hash-a", "create a test product")
        from stores.execution.ledger.calls import RunConflict

        with pytest.raises(RunConflict, match="create a test product"):
            ledgers[1].bind_run("race-run", "hash-b", "another request")
    finally:
        for ledger in ledgers:
            ledger.close()


async def test_the_graph_interrupts_and_resumes_on_postgres(
    postgres_url: str, tmp_path: Path
) -> None:
    from langgraph.types import Command

    from graph.builder import build_graph
    from graph.deps import Deps
    from graph.threads import list_threads
    from nodes.context import Context
    from stores.catalog.enrich import enrich_catalog
    from stores.checkpoint import postgres_checkpointer
    from stores.execution.ledger.calls import CallLedger
    from stores.retrieval.index import ToolIndex
    from tests.fakes import HashingEmbedder
    from tests.shop_tools import Shop

    shop = Shop(tmp_path / "shop.db")
    catalog = shop.catalog()
    enrich_catalog(catalog)
    index = ToolIndex(tmp_path / "index", HashingEmbedder(), name="pg")
    index.sync(catalog)
    ledger = CallLedger(postgres_url)
    deps = Deps(catalog=catalog, index=index, home=tmp_path / "home", ledger=ledger)
    context = Context()
    try:
        async with postgres_checkpointer(postgres_url) as saver:
            graph = build_graph(deps).compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "pg-1"}}
            await graph.ainvoke(
                {"request": "create an order for account 123456"}, config, context=context,
                durability="sync",
            )
            await graph.ainvoke(
                {"request": "advance the order status to paid"},
                {"configurable": {"thread_id": "pg-2"}}, context=context, durability="sync",
            )
            snapshot = await graph.aget_state({"configurable": {"thread_id": "pg-2"}})
            assert snapshot.next == ("clarify",)

            threads = {t.thread_id: t for t in await list_threads(saver, graph)}
            from graph.threads import _thread_ids_by_query

            by_query = await _thread_ids_by_query(saver, None)  # one grouped query, no walk
            assert by_query is not None and {"pg-1", "pg-2"} <= {t for t, _ in by_query}
            assert threads["pg-2"].status == "waiting for input"
            assert "order_id" in (threads["pg-2"].question or "")
            assert threads["pg-1"].status == "done"

        # A new process would open a new saver: the interrupted thread is still there.
        async with postgres_checkpointer(postgres_url) as saver:
            graph = build_graph(deps).compile(checkpointer=saver)
            final = await graph.ainvoke(
                Command(resume="1"), {"configurable": {"thread_id": "pg-2"}}, context=context,
                durability="sync",
            )
            assert final["results"]["s1.core"]["status"] == "ok"
            assert final["results"]["s1.core"]["args"] == {"order_id": 1, "status": "paid"}
            snapshot = await graph.aget_state({"configurable": {"thread_id": "pg-2"}})
            run_id = snapshot.values["run_id"]
        recorded = ledger.for_run(run_id)
        assert [r.tool_id for r in recorded] == ["shop/advance_order_status"]
        assert recorded[0].status == "done"
    finally:
        ledger.close()


async def test_a_secret_typed_into_the_request_never_reaches_postgres(
    postgres_url: str, tmp_path: Path
) -> None:
    """Postgres keeps short strings inline as JSON, past the serializer: masked there too."""
    import psycopg

    from graph.builder import build_graph
    from graph.deps import Deps
    from nodes.context import Context
    from stores.catalog.enrich import enrich_catalog
    from stores.checkpoint import postgres_checkpointer
    from stores.retrieval.index import ToolIndex
    from tests.fakes import HashingEmbedder
    from tests.shop_tools import Shop

    canary = "sk-proj-pgCanary0a1b2c3d4e5f6g7h8i9"
    shop = Shop(tmp_path / "shop.db")
    catalog = shop.catalog()
    enrich_catalog(catalog)
    index = ToolIndex(tmp_path / "index", HashingEmbedder(), name="pgs")
    index.sync(catalog)
    deps = Deps(catalog=catalog, index=index, home=tmp_path / "home")
    async with postgres_checkpointer(postgres_url) as saver:
        graph = build_graph(deps).compile(checkpointer=saver)
        final = await graph.ainvoke(
            {"request": f"create a test product, api key {canary}"},
            {"configurable": {"thread_id": "pg-secret"}}, context=Context(), durability="sync",
        )
    assert shop.count("products") == 1 and canary not in final["answer"]
    with psycopg.connect(postgres_url) as connection:
        for table, column in [("checkpoints", "checkpoint::text"),
                              ("checkpoints", "metadata::text"),
                              ("checkpoint_blobs", "encode(blob, 'escape')"),
                              ("checkpoint_writes", "encode(blob, 'escape')")]:
            hits = connection.execute(
                f"SELECT count(*) FROM {table} WHERE thread_id = 'pg-secret' "
                f"AND {column} LIKE %s", (f"%{canary}%",),
            ).fetchone()
            assert hits is not None and hits[0] == 0, (table, column)
        rows = connection.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = 'pg-secret'"
        ).fetchone()
        assert rows is not None and rows[0] > 0
