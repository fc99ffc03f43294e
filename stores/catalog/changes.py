"""The tool records that changed in place since the last sync, found without the whole catalog.

``zspace index`` of the same catalog files as its last finished sync, with some file's digest
changed: each changed file is scanned for its records' keys (``stores.catalog.records``) and
compared with the keys the sync recorded; only the records whose key changed are parsed,
validated and enriched, and the saved rows of the records they replace are read by key. Any
change this cannot stand for exactly (records inserted, removed or moved, the agents list
edited, a tool renamed or quarantined, a record repeated) gives None, and the caller takes
the whole path, where unchanged records are still reused by key.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from stores.catalog.model import Catalog, ToolSpec
from stores.catalog.records import FileRecords, changed_positions, read_scanned
from stores.catalog.store import CatalogStore, SyncRecord


@dataclass(frozen=True)
class RecordChange:
    """Tools changed in place: each with its saved position, and what the sync now reads.

    ``tools``: validated (not yet enriched) tools, each at the position of the saved tool
    it replaces (same id, agent and name); ``catalog``: the same tools as a catalog, to
    enrich (enrichment works per tool); ``owner_names``: the saved display name of each of
    their agents; ``records``: every file's record keys after the change.
    """

    tools: tuple[tuple[int, ToolSpec], ...]
    catalog: Catalog
    owner_names: dict[str, str]
    records: dict[str, FileRecords]


def find_record_change(
    store: CatalogStore,
    name: str,
    last: SyncRecord,
    sources: Sequence[tuple[str, str]],
) -> RecordChange | None:
    """The records of ``sources`` changed in place since ``last``; None: take the whole path.

    Args:
        store: the catalog store holding catalog ``name``, as ``last`` left it.
        name: the index name.
        last: the record of the last finished sync of ``name``.
        sources: the catalog files of this sync (resolved path, digest), in order.
    """
    old_records = store.file_records(name)
    if [path for path, _ in sources] != [path for path, _ in last.sources]:
        return None
    if last.report.get("quarantined") or set(old_records) != {path for path, _ in sources}:
        return None
    records = dict(old_records)
    changed: list[tuple[str, int, str, str, object]] = []
    for (path, digest), (_, old_digest) in zip(sources, last.sources, strict=True):
        if digest == old_digest:
            continue
        scanned = read_scanned(path)
        old = old_records[path]
        if scanned is None or scanned.agents_key != old.agents_key:
            return None
        keys = scanned.tool_keys()
        positions = changed_positions(old.tool_keys, keys)
        if positions is None:
            return None
        records[path] = scanned.file_records(keys)
        changed.extend(
            (path, p, old.tool_keys[p], keys[p], scanned.tool_record(p)) for p in positions
        )
    # A record repeated anywhere (the same text twice: a duplicate id, quarantined) would
    # make a key name two records.
    counts = Counter(key for file in old_records.values() for key in file.tool_keys)
    if any(counts[old] != 1 or new in counts for _, _, old, new, _ in changed):
        return None
    saved = store.tools_by_raw(name, [old for _, _, old, _, _ in changed])
    scratch = Catalog()
    tools: list[tuple[int, ToolSpec]] = []
    for _, _, old_key, new_key, raw in changed:
        if old_key not in saved:
            return None
        position, before = saved[old_key]
        spec = scratch.add_raw_tool(raw, source=before.source)
        if spec is None or (spec.id, spec.agent, spec.name) != (
            before.id, before.agent, before.name
        ):
            return None
        spec.remember(raw=new_key)
        tools.append((position, spec))
    owners = store.agent_names(name, [spec.agent for _, spec in tools])
    if len(owners) != len({spec.agent for _, spec in tools}):
        return None
    return RecordChange(tuple(tools), scratch, owners, records)

