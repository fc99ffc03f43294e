"""``zspace index``: load catalog files, MCP servers and OpenAPI documents, then sync the index.

Unchanged records are neither validated nor enriched again; a server that fails keeps its last
good tools (stale) and the command exits ``EXIT_INDEX_PARTIAL``.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from graph.deps import DEFAULT_INDEX_FSWW, Deps, configured_index_name
from stores.catalog.changes import find_record_change
from stores.catalog.enrich import enrich_catalog, enrichment_fingerprint
from stores.catalog.model import Catalog, ToolSpec
from stores.catalog.store import CatalogStore, SyncRecord, keep_last_good, source_digests
from stores.retrieval.index import embedded_sync_stamp, index_config_key
from stores.settings import zspace_home

# zspace index: some MCP server failed; its last good tools were kept (stale), or none. Exit 1,
# like a run where some requested part failed (5 is an error inside zspace).
EXIT_INDEX_PARTIAL = 1


def saved_mcp_config(home: Path, index_name: str | None = None) -> Path | None:
    """The MCP config ``zspace index --mcp`` last used for the index (see ``graph.runtime``)."""
    from graph.runtime import saved_mcp_config as saved

    return saved(home, index_name)


def remember_mcp_config(home: Path, config: Path, index_name: str | None = None) -> None:
    """Remember the MCP config that serves the index's tools (see ``graph.runtime``)."""
    from graph.runtime import remember_mcp_config as remember

    remember(home, config, index_name)


def load_catalogs(
    paths: Sequence[str],
    mcp_config: str | None = None,
    openapi: Sequence[str] = (),
    openapi_options: dict[str, Any] | None = None,
    reuse: Mapping[str, ToolSpec] | None = None,
    keep: Callable[[Catalog, Mapping[str, str]], dict[str, int]] | None = None,
    index_name: str | None = None,
) -> tuple[Catalog, dict[str, dict[str, Any]]]:
    """Load and merge catalog files, MCP servers' tools and OpenAPI services, then fill tags.

    ``openapi_options`` (agent, base URL, environment, credentials) apply to every document.

    ``reuse``: tools indexed before, by raw key; an unchanged record is neither validated
    nor enriched again (see ``CatalogStore.reusable``). ``keep``: called with the servers
    that failed (name → reason) to add their last good tools; returns how many per server.
    ``index_name``: the index whose runs will call the ``mcp_config`` servers.

    Returns:
        The catalog and, per failed server, ``{"tools": kept, "error": reason}``.
    """
    catalog = Catalog()
    stale: dict[str, dict[str, Any]] = {}
    for spec in openapi:
        from stores.catalog.openapi import load_openapi_catalog

        _, openapi_report = load_openapi_catalog(spec, catalog=catalog, **(openapi_options or {}))
        print(str(openapi_report))
    if mcp_config:
        import asyncio

        from stores.catalog.mcp import load_mcp_catalog

        _, report = asyncio.run(load_mcp_catalog(mcp_config, catalog=catalog))
        print(str(report))
        failed = report.failed
        kept = keep(catalog, failed) if keep and failed else {}
        for server, reason in failed.items():
            count = kept.get(server, 0)
            stale[server] = {"tools": count, "error": reason}
            if count:
                plural = "" if count == 1 else "s"
                print(f"  {server}: kept {count} last good tool{plural} (stale): {reason}")
            else:
                print(f"  {server}: no earlier tools to keep: {reason}")
        remember_mcp_config(zspace_home(), Path(mcp_config), index_name)
    for path in paths:
        catalog.load_file(path, reuse=reuse)
    enrich_catalog(catalog)
    return catalog, stale


def progress_bar(label: str) -> Any:
    """A progress callback drawing a bar with the rate and the time left on stderr."""
    from tqdm import tqdm

    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, desc=label, unit="entry", file=sys.stderr, smoothing=0.1)
        bar.update(done - bar.n)  # update(), not n =: tqdm's rate and ETA follow updates
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def command_index(args: argparse.Namespace) -> int:
    """Index catalog files and MCP servers into the joint tool + agent index."""
    name = configured_index_name(args.name)
    deps = Deps(index_name=name)
    openapi = getattr(args, "openapi", None) or []
    if not args.catalog and not args.mcp and not openapi:
        print("give catalog files, --mcp CONFIG, --openapi SPEC, or several", file=sys.stderr)
        return 2
    options = _openapi_options(args)
    if options is None:
        return 2
    started = time.perf_counter()
    store = deps.catalog_store()
    fingerprint = enrichment_fingerprint()
    # Catalog files only (servers must be listed to know): unchanged files, enrichment and
    # index state mean nothing to do, learnt from a digest per file instead of every record.
    sources = None if args.mcp or openapi or args.reset else source_digests(args.catalog)
    last = store.last_sync(name) if sources is not None else None
    if sources is not None and last is not None and last.fingerprint == fingerprint:
        if last.stamp == _index_stamp(deps):
            entries = int(last.report["indexed"]) + int(last.report["unchanged"])
            if last.sources == sources:
                return _print_counts(
                    {**last.report, "indexed": 0, "unchanged": entries, "removed": 0,
                     "seconds": round(time.perf_counter() - started, 2)},
                    args, stale={}, dropped="",
                )
            counts = _sync_changed_records(deps, store, last, sources, entries)
            if counts is not None:
                counts["seconds"] = round(time.perf_counter() - started, 2)
                return _print_counts(counts, args, stale={}, dropped="")
    store.record_sync(name, None)
    before = store.tool_counts(name)
    catalog, stale = load_catalogs(
        args.catalog,
        args.mcp,
        openapi,
        options,
        reuse=store.reusable(name, fingerprint),
        keep=functools.partial(keep_last_good, store=store, name=name),
        index_name=name,
    )
    if not catalog.tools:
        print(
            "no tools to index: every tool was quarantined or the catalog is empty", file=sys.stderr
        )
    index = deps.get_index()
    show = getattr(args, "progress", False) or (not args.json and sys.stderr.isatty())
    synced = index.sync(
        catalog, progress=progress_bar("embedding") if show else None, reset=args.reset
    )
    store.save(name, catalog, fingerprint)
    counts = synced.as_dict()
    counts["seconds"] = round(synced.seconds, 2)
    stamp = index.sync_stamp() if sources is not None and not stale else None
    if stamp is not None and sources is not None:
        store.record_sync(
            name, SyncRecord(sources, fingerprint, stamp, counts), catalog.file_records
        )
    return _print_counts(counts, args, stale=stale, dropped=_dropped_sources(before, catalog))


def _sync_changed_records(
    deps: Deps,
    store: CatalogStore,
    last: SyncRecord,
    sources: tuple[tuple[str, str], ...],
    entries: int,
) -> dict[str, Any] | None:
    """Sync the tool records changed in place since ``last``, in O(changed); None: not so.

    Only the changed records are parsed, validated, enriched and embedded, and only their
    rows written (``stores.catalog.changes``). The sync record is forgotten first, so an
    interrupted run leaves the next one the whole path. ``entries``: the index's size.
    """
    name = deps.index_name
    change = find_record_change(store, name, last, sources)
    if change is None:
        return None
    store.record_sync(name, None)
    enrich_catalog(change.catalog)
    index = deps.get_index()
    synced = index.sync_tools([spec for _, spec in change.tools], change.owner_names)
    if synced is None:
        return None
    store.save_tools(name, change.tools)
    counts = {
        **last.report, "indexed": synced.indexed, "unchanged": entries - synced.indexed,
        "removed": 0,
    }
    stamp = index.sync_stamp()
    if stamp is not None:
        store.record_sync(
            name, SyncRecord(sources, last.fingerprint, stamp, counts), change.records
        )
    return counts


def _index_stamp(deps: Deps) -> str | None:
    """The index's sync stamp; an embedded one's read without opening Chroma."""
    if deps.index is not None or deps.chroma_url:
        return deps.get_index().sync_stamp()
    config = index_config_key(deps.get_embedder().name, DEFAULT_INDEX_FSWW)
    return embedded_sync_stamp(deps.get_home() / "index", deps.index_name, config)


def _print_counts(
    counts: Mapping[str, Any], args: argparse.Namespace, *, stale: dict[str, Any], dropped: str
) -> int:
    """Print what ``zspace index`` did (and the JSON line with ``--json``); its exit status."""
    print(
        f"indexed {counts['indexed']}, unchanged {counts['unchanged']}, "
        f"removed {counts['removed']}, quarantined {counts['quarantined']} "
        f"({counts['tools']} tools, {counts['agents']} agents, {counts['seconds']:.1f} s)"
    )
    for reason in counts.get("quarantine_reasons", []):
        print(f"  quarantined: {reason}")
    if dropped:
        print(
            f"  removed every tool of {dropped}: not among this command's sources (`zspace index` "
            "keeps exactly the catalog files, --mcp and --openapi sources it is given; give "
            "them all in one command, or --name NAME for a separate index)"
        )
    if args.json:
        keys = ("indexed", "unchanged", "removed", "quarantined", "tools", "agents", "seconds")
        print(json.dumps({**{key: counts[key] for key in keys}, "stale": stale}))
    return EXIT_INDEX_PARTIAL if stale else 0


def _dropped_sources(before: Mapping[str, int], catalog: Catalog) -> str:
    """The agents that had tools in the index and have none in ``catalog``, with counts."""
    now = {spec.agent for spec in catalog.tools.values()}
    gone = sorted(agent for agent in before if agent not in now)
    shown = ", ".join(f"{agent} ({before[agent]})" for agent in gone[:5])
    return shown + (f" and {len(gone) - 5} more agents" if len(gone) > 5 else "")


def _openapi_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ``--openapi`` options as keyword arguments; None (after a message) when invalid."""
    openapi = getattr(args, "openapi", None) or []
    if len(openapi) > 1 and (getattr(args, "agent", None) or getattr(args, "base_url", None)):
        print("--agent and --base-url apply to one --openapi document; index several "
              "documents with one --openapi each and no --agent/--base-url", file=sys.stderr)
        return None
    credentials: dict[str, str] = {}
    for given in getattr(args, "auth", None) or []:
        scheme, _, variable = given.partition("=")
        if not scheme or not variable or not variable.replace("_", "").isalnum():
            print(f"--auth {given!r}: write SCHEME=ENV_VAR (a security scheme of the document, "
                  "or * for all, and the environment variable holding its value)",
                  file=sys.stderr)
            return None
        credentials[scheme] = variable
    return {
        "agent": getattr(args, "agent", None),
        "base_url": getattr(args, "base_url", None),
        "environment": getattr(args, "environment", None),
        "credentials": credentials,
    }
