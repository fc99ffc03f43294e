"""Checkpointer factories: SQLite (async and sync), in-memory, and Postgres when installed.

Side-effecting runs should use ``durability="sync"`` with these savers: with the default
``"async"`` a crash can lose the last checkpoint and run the previous node again.

Every saver made here serializes through :class:`SecretMaskingSerializer`: credentials typed
into a request ("... with password Hunter2!x", "api key sk-...") and every secret the process
knows (MCP ``env``/``headers``, ``ZSPACE_SECRET_*``) are overwritten with ``*`` before a
checkpoint or pending write is stored. Bring your own saver? Pass
``serde=SecretMaskingSerializer()`` to it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from stores.secrets import (
    SECRETS,
    mask_secret_bytes,
    mask_secret_text,
    may_hold_typed_secret,
    secrets_in_values,
)
from stores.settings import zspace_home

DEFAULT_CHECKPOINT_FILE = "checkpoints.sqlite"
POSTGRES_PACKAGES = "pip install 'langgraph-checkpoint-postgres>=3.2,<4' 'psycopg[binary]'"


class CheckpointerUnavailable(RuntimeError):
    """A checkpointer whose optional package is not installed, or whose server is down."""


SaverT = TypeVar("SaverT", bound=BaseCheckpointSaver[Any])


class SecretMaskingSerializer:
    """A checkpoint serializer that never lets a secret reach storage.

    It serializes with ``inner`` (LangGraph's default when None), then overwrites secrets in
    the bytes with ``*`` of the same byte length, so the encoding stays valid. A value masked
    this way reads back as ``********``; the executor refuses to send such an argument.
    """

    def __init__(self, inner: SerializerProtocol | None = None) -> None:
        """Wrap ``inner`` (default: ``JsonPlusSerializer``)."""
        self.inner = inner or JsonPlusSerializer()

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize with the inner serializer, then mask secrets."""
        kind, data = self.inner.dumps_typed(obj)
        values = SECRETS.values()
        if may_hold_typed_secret(data):  # else no string needs a scan (most checkpoints)
            values.update(secrets_in_values(obj))
        return kind, mask_secret_bytes(data, values)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Deserialize with the inner serializer."""
        return self.inner.loads_typed(data)


def mask_secrets_in(saver: SaverT) -> SaverT:
    """Make ``saver`` serialize through :class:`SecretMaskingSerializer`; return it."""
    if not isinstance(saver.serde, SecretMaskingSerializer):
        saver.serde = SecretMaskingSerializer(saver.serde)
    return saver


def _sqlite_target(path: str | Path | None) -> str:
    if path is None:
        return str(zspace_home() / DEFAULT_CHECKPOINT_FILE)
    target = str(path)
    if target != ":memory:":
        Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
        target = str(Path(target).expanduser())
    return target


@asynccontextmanager
async def sqlite_checkpointer(path: str | Path | None = None) -> AsyncIterator[AsyncSqliteSaver]:
    """Open an async SQLite checkpointer (tables created, WAL on) for the ``async with`` block.

    Args:
        path: The database file (parents are created); ``":memory:"`` for a throwaway one;
            None for ``$ZSPACE_HOME/checkpoints.sqlite``.
    """
    async with AsyncSqliteSaver.from_conn_string(_sqlite_target(path)) as saver:
        await saver.setup()
        await _fast_durable_pragmas(saver.conn)
        yield mask_secrets_in(saver)


async def _fast_durable_pragmas(connection: Any) -> None:
    # WAL with synchronous=NORMAL: a committed checkpoint survives the process being killed
    # (kill -9, the crash harness); only an OS crash or power loss may drop the last few. It
    # saves an fsync per checkpoint, about a third of the graph's overhead with SQLite here.
    await connection.execute("PRAGMA journal_mode=WAL")
    await connection.execute("PRAGMA synchronous=NORMAL")


@contextmanager
def sync_sqlite_checkpointer(path: str | Path | None = None) -> Iterator[SqliteSaver]:
    """Open a sync SQLite checkpointer for the ``with`` block (same ``path`` rules)."""
    with SqliteSaver.from_conn_string(_sqlite_target(path)) as saver:
        saver.setup()
        yield mask_secrets_in(saver)


def memory_checkpointer() -> InMemorySaver:
    """Return an in-memory checkpointer (tests, throwaway runs)."""
    return InMemorySaver(serde=SecretMaskingSerializer())


@asynccontextmanager
async def postgres_checkpointer(url: str) -> AsyncIterator[Any]:
    """Open an async Postgres checkpointer (tables created) for the ``async with`` block.

    Args:
        url: A libpq connection URL, e.g. ``postgresql://user:pass@host:5432/db``.

    Raises:
        CheckpointerUnavailable: ``langgraph-checkpoint-postgres`` (or psycopg) is missing,
            or the server cannot be reached.
    """
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import OperationalError
    except ImportError as exc:
        raise CheckpointerUnavailable(
            f"the Postgres checkpointer needs packages that are not installed ({exc}); "
            f"install them with: {POSTGRES_PACKAGES}"
        ) from exc

    class MaskingPostgresSaver(AsyncPostgresSaver):
        """Postgres keeps short string channel values inline as JSON, past the serializer."""

        async def aput(
            self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
        ) -> Any:
            values = {
                key: mask_secret_text(value) if isinstance(value, str) else value
                for key, value in checkpoint["channel_values"].items()
            }
            masked = cast(Any, {**checkpoint, "channel_values": values})
            return await super().aput(config, masked, metadata, new_versions)

    async with AsyncExitStack() as stack:
        try:
            saver = await stack.enter_async_context(MaskingPostgresSaver.from_conn_string(url))
            await saver.setup()
        except OperationalError as exc:
            reason = " ".join(str(exc).split())
            raise CheckpointerUnavailable(
                f"cannot reach the Postgres checkpoint database ({reason}); check the URL "
                "(ZSPACE_POSTGRES_URL or --postgres) and that the server is up"
            ) from exc
        yield mask_secrets_in(saver)
