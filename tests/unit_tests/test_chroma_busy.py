"""Opening an index whose ef_search setting changed while another process holds Chroma's lock."""

from __future__ import annotations

from typing import Any

import pytest

from stores.retrieval.chroma import set_ef_search


class Locked(Exception):
    """What Chroma's Rust bindings raise while another writer holds the SQLite lock."""


class Collection:
    """A collection whose ``modify`` is refused ``busy`` times before it succeeds."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.calls = 0
        self.ef_search = 100

    def modify(self, configuration: dict[str, Any]) -> None:
        self.calls += 1
        if self.calls <= self.busy:
            raise Locked(
                "Database error: error returned from database: (code: 5) database is locked"
            )
        self.ef_search = configuration["hnsw"]["ef_search"]


def test_a_briefly_locked_database_is_waited_for() -> None:
    collection = Collection(busy=2)
    assert set_ef_search(collection, 64, wait_s=2.0, pause_s=0.01) is True
    assert collection.ef_search == 64
    assert collection.calls == 3


def test_a_lock_that_outlasts_the_wait_keeps_the_stored_setting_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    collection = Collection(busy=10_000)
    with caplog.at_level("WARNING"):
        assert set_ef_search(collection, 64, wait_s=0.05, pause_s=0.01) is False
    assert collection.ef_search == 100
    assert "ef_search" in caplog.text and "locked" in caplog.text


def test_any_other_error_is_not_swallowed() -> None:
    class Broken(Collection):
        def modify(self, configuration: dict[str, Any]) -> None:
            raise ValueError("bad configuration")

    with pytest.raises(ValueError, match="bad configuration"):
        set_ef_search(Broken(busy=0), 64)
