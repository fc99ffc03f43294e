"""Indexing and retrieval at size: nested catalogs of StableToolBench tools plus distractors.

``python -m bench scale --sizes 2500 10000 [30000 100000]`` grows the development catalog
with distractor providers (seeded, nested: the 10k catalog holds the 2.5k one), and per size
measures the build, a no-op re-sync, a one-change sync, ``zspace search`` start-up (above
``python -c "import chromadb, numpy"``), query latency, agent and tool Recall@5 on the
unchanged gold queries, and the bare embedding time of the same texts in the same run.

Distractors are the two kinds of look-alike a large catalog has: new providers of the same
kind of API (a real provider's tools with restyled names and paraphrased descriptions), and
template providers in the real categories. The word lists below make benchmark data; they
are not used by zspace itself.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import DEV_CATALOG, DEV_QUERIES, REPO, machine_line, write_result

PREFIXES = ["Open", "Smart", "Live", "Cloud", "Rapid", "Nova", "Prime", "Go", "True", "Meta"]
SUFFIXES = ["Hub", "Pro", "Plus", "Connect", "Data", "Service", "Gateway", "Suite", "Direct"]
VERBS = {
    "get": ["fetch", "retrieve", "obtain", "read"],
    "search": ["find", "lookup", "query"],
    "list": ["all", "browse", "enumerate"],
    "create": ["add", "new", "make"],
    "update": ["modify", "edit", "change"],
    "delete": ["remove", "drop"],
}
PARAPHRASES = {
    "get": "retrieve", "returns": "gives back", "return": "give back", "list": "collection",
    "information": "details", "info": "details", "search": "look up", "find": "locate",
    "data": "records", "user": "account", "users": "accounts", "latest": "most recent",
    "provides": "offers", "allows": "lets", "you": "callers", "api": "service",
    "details": "information", "specific": "particular", "all": "every", "by": "using",
}
TEMPLATE_TOOLS = [
    ("Get {noun}", "Returns the {noun} records of the {category} catalog."),
    ("Search {noun}", "Search {category} {noun} by keyword and return matching items."),
    ("List {noun}", "List every {noun} available in this {category} service."),
    ("{noun} details", "Detailed information about one {noun} in {category}."),
]
TEMPLATE_NOUNS = ["items", "records", "entries", "results", "profiles", "statistics", "feeds"]


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _restyle_tool_name(name: str, rng: random.Random) -> str:
    words = [w.lower() for w in _words(name)] or ["call"]
    if words[0] in VERBS and rng.random() < 0.6:
        words[0] = rng.choice(VERBS[words[0]])
    style = rng.randrange(3)
    if style == 0:
        return "_".join(words)
    if style == 1:
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return " ".join(w.capitalize() for w in words)


def _paraphrase(text: str, rng: random.Random) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        other = PARAPHRASES.get(word.lower())
        if other is None or rng.random() < 0.3:
            return word
        return other.capitalize() if word[0].isupper() else other

    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
    if len(sentences) > 1 and rng.random() < 0.5:
        sentences = sentences[1:] + sentences[:1]
    return re.sub(r"[A-Za-z]+", swap, " ".join(sentences))


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "provider"


def _clone_provider(
    serial: int, agent: dict[str, Any], tools: list[dict[str, Any]], rng: random.Random
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    words = _words(agent.get("name") or agent["id"])[:2] or ["Service"]
    name = " ".join([rng.choice(PREFIXES), *words, rng.choice(SUFFIXES)])
    agent_id = f"{_slug(name)}_{serial}"
    new_agent = {
        "id": agent_id,
        "name": name,
        "description": _paraphrase(agent.get("description", ""), rng),
        "category": agent.get("category", ""),
    }
    keep = max(1, round(len(tools) * rng.uniform(0.5, 1.0)))
    new_tools = []
    seen: set[str] = set()
    for tool in rng.sample(tools, keep):
        tool_name = _restyle_tool_name(tool["name"], rng)
        if tool_name in seen:
            continue
        seen.add(tool_name)
        new_tools.append(
            {
                "id": f"{agent_id}/{tool_name}",
                "name": tool_name,
                "agent": agent_id,
                "description": _paraphrase(tool.get("description", ""), rng),
                "input_schema": tool["input_schema"],
            }
        )
    return new_agent, new_tools


def _template_provider(
    serial: int, category: str, rng: random.Random
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    label = category.replace("_", " ")
    name = f"{rng.choice(PREFIXES)} {label} {rng.choice(SUFFIXES)}"
    agent_id = f"{_slug(name)}_{serial}"
    agent = {"id": agent_id, "name": name, "description": f"A {label} API.", "category": category}
    tools = []
    for pattern, description in rng.sample(TEMPLATE_TOOLS, rng.randint(2, len(TEMPLATE_TOOLS))):
        noun = rng.choice(TEMPLATE_NOUNS)
        tool_name = pattern.format(noun=noun).capitalize()
        tools.append(
            {
                "id": f"{agent_id}/{tool_name}",
                "name": tool_name,
                "agent": agent_id,
                "description": description.format(noun=noun, category=label),
                "input_schema": {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "what to look for"}},
                },
            }
        )
    return agent, tools


def grow_catalog(base: dict[str, Any], size: int, seed: int = 18) -> dict[str, Any]:
    """The development catalog grown to ``size`` tools with distractor providers.

    Provider ``n`` depends only on the seed and ``n``, so catalogs are nested: a larger size
    is a smaller one plus more providers.
    """
    agents = {agent["id"]: agent for agent in base["agents"]}
    by_agent: dict[str, list[dict[str, Any]]] = {}
    for tool in base["tools"]:
        by_agent.setdefault(tool["agent"], []).append(tool)
    owners = sorted(by_agent)
    categories = sorted({agent.get("category", "") for agent in agents.values()} - {""})
    out_agents, out_tools = list(base["agents"]), list(base["tools"])
    serial = 0
    while len(out_tools) < size:
        rng = random.Random(f"{seed}-{serial}")
        if rng.random() < 0.8:
            owner = rng.choice(owners)
            agent, tools = _clone_provider(serial, agents[owner], by_agent[owner], rng)
        else:
            agent, tools = _template_provider(serial, rng.choice(categories), rng)
        out_agents.append(agent)
        out_tools.extend(tools[: size - len(out_tools)])
        serial += 1
    return {"agents": out_agents, "tools": out_tools}


# ------------------------------------------------------------------------- measuring
def _index_quietly(catalog_path: Path, name: str = "default") -> dict[str, Any]:
    from graph.cli import command_index

    out = io.StringIO()
    args = argparse.Namespace(
        catalog=[str(catalog_path)], mcp=None, reset=False, json=True, name=name
    )
    started, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        command_index(args)
    seconds = time.perf_counter() - started
    counts: dict[str, Any] = json.loads(out.getvalue().strip().splitlines()[-1])
    counts["wall"] = seconds
    counts["cpu"] = time.process_time() - cpu
    return counts


def _child_seconds(
    command: list[str], env: dict[str, str], runs: int = 3,
    outputs: list[str] | None = None,
) -> tuple[float, float]:
    """Best wall time and best CPU time (user + system) of a child process over ``runs``.

    What each run printed is appended to ``outputs`` when given (for its counts).
    """
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, check=True, cwd=REPO
        )
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if outputs is not None:
            outputs.append(done.stdout)
    return min(walls), min(cpus)


def measure_size(
    base: dict[str, Any], size: int, scratch: Path, bare: bool = True
) -> dict[str, Any]:
    """Every figure of one row of the table, for a catalog of ``size`` tools.

    ``bare=False`` skips the bare embedding of the same texts (it costs as much as the build:
    at 100k that is the difference between one hour and two on a shared machine).
    """
    from bench.evaluation.retrieval import evaluate, load_queries
    from graph.deps import Deps
    from stores.catalog.enrich import enrich_catalog
    from stores.catalog.model import Catalog
    from stores.retrieval.embeddings import default_embedder
    from stores.retrieval.ranking import RetrievalConfig

    document = grow_catalog(base, size)
    home = scratch / f"home-{size}"
    catalog_path = scratch / f"catalog-{size}.json"
    catalog_path.write_text(json.dumps(document))
    os.environ["ZSPACE_HOME"] = str(home)
    embedder = default_embedder()
    embedder.embed(["warm up"])

    catalog = Catalog.from_file(catalog_path)
    enrich_catalog(catalog)
    deps = Deps(home=home)
    texts = [entry.text for entry in deps.get_index().desired_entries(catalog).values()]
    bare_s: float | None = None
    bare_cpu: float | None = None
    if bare:
        started, cpu = time.perf_counter(), time.process_time()
        embedder.embed(texts)
        bare_s, bare_cpu = time.perf_counter() - started, time.process_time() - cpu
    deps = None  # type: ignore[assignment]

    build = _index_quietly(catalog_path)
    noop = _index_quietly(catalog_path)
    document["tools"][len(document["tools"]) // 2]["description"] += " (changed)"
    catalog_path.write_text(json.dumps(document))
    change = _index_quietly(catalog_path)

    env = {**os.environ, "ZSPACE_HOME": str(home), "PYTHONPATH": str(REPO)}
    search = [sys.executable, "-m", "graph.cli", "search", "weather forecast for a city", "--json"]
    start_s, start_cpu = _child_seconds(search, env)
    import_s, import_cpu = _child_seconds([sys.executable, "-c", "import chromadb, numpy"], env)

    index = Deps(home=home).get_index()
    queries = load_queries(DEV_QUERIES, "question")
    evaluate(index, queries[:20], RetrievalConfig())
    figures, _ = evaluate(index, queries, RetrievalConfig())
    row: dict[str, Any] = {
        "tools": len(document["tools"]),
        "entries": len(texts),
        "build_s": build["wall"],
        "build_cpu": build["cpu"],
        "noop_cpu": noop["cpu"],
        "change_cpu": change["cpu"],
        "startup_above_import_cpu": start_cpu - import_cpu,
        "build_embedded": build["indexed"],
        "noop_s": noop["wall"],
        "noop_embedded": noop["indexed"],
        "change_s": change["wall"],
        "change_embedded": change["indexed"],
        "startup_above_import_s": start_s - import_s,
        "query_p50_ms": figures["latency_ms"]["p50"],
        "agent_r5": figures["agents"]["recall"][5],
        "tool_r5": figures["tools"]["recall"][5],
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if bare_s is not None:
        row["bare_embed_s"], row["bare_embed_cpu"] = bare_s, bare_cpu
    return row


def format_rows(rows: list[dict[str, Any]]) -> list[str]:
    """The table lines of one run: wall seconds, and CPU seconds where measured.

    On a shared machine the wall time follows the load; the CPU time (this process and its
    threads, or the child's user + system) is what the work costs.
    """
    lines = [
        "| tools | entries | bare embedding s | build s | build / bare | no-op re-sync s "
        "| one change s (embedded) | search start-up above import s | query p50 ms "
        "| agent R@5 | tool R@5 | peak RSS MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def both(row: dict[str, Any], wall: str, cpu: str, digits: int = 2) -> str:
        if wall not in row:
            return "not run"
        if cpu not in row:
            return f"{row[wall]:.{digits}f}"
        return f"{row[wall]:.{digits}f} (CPU {row[cpu]:.{digits}f})"

    for row in rows:
        ratio = f"{row['build_s'] / row['bare_embed_s']:.2f}" if "bare_embed_s" in row else "-"
        if "build_cpu" in row and "bare_embed_cpu" in row:
            ratio += f" (CPU {row['build_cpu'] / row['bare_embed_cpu']:.2f})"
        lines.append(
            f"| {row['tools']:,} | {row['entries']:,} "
            f"| {both(row, 'bare_embed_s', 'bare_embed_cpu', 1)} "
            f"| {both(row, 'build_s', 'build_cpu', 1)} | {ratio} "
            f"| {both(row, 'noop_s', 'noop_cpu')} "
            f"| {both(row, 'change_s', 'change_cpu')} ({row['change_embedded']}) "
            f"| {both(row, 'startup_above_import_s', 'startup_above_import_cpu')} "
            f"| {row['query_p50_ms']:.1f} | {row['agent_r5']:.3f} | {row['tool_r5']:.3f} "
            f"| {row['peak_rss_mib']:,.0f} |" if "peak_rss_mib" in row else
            f"| {row['query_p50_ms']:.1f} | {row['agent_r5']:.3f} | {row['tool_r5']:.3f} | |"
        )
    return lines


def _merge_section(existing: str, label: str, section: str) -> str:
    """Replace (or append) the ``## label`` section of the results file, keeping the others."""
    parts = re.split(r"(?m)^(?=## )", existing)
    head = parts[0] if parts and not parts[0].startswith("## ") else ""
    sections = [p for p in parts if p.startswith("## ")]
    kept = [p for p in sections if p.splitlines()[0] != f"## {label}"]
    return (head + "".join(p.rstrip() + "\n\n" for p in [*kept, section])).rstrip() + "\n"


def write_section(
    name: str, header: str, label: str, command: str, lines: list[str]
) -> tuple[str, str]:
    """Write (or replace) the ``## label`` section of ``bench/results/NAME``, keeping the others.

    Returns the section and the whole file's text.
    """
    section = "\n".join(
        [f"## {label}", "", f"{machine_line()}. Command: `{command} --label {label}`.",
         "", *lines]
    )
    path = REPO / "bench" / "results" / name
    existing = path.read_text() if path.is_file() else header
    text = _merge_section(existing, label, section)
    write_result(name, text)
    return section, text


def main(argv: list[str]) -> int:
    """Run the scale benchmark and write bench/results/scale.md."""
    parser = argparse.ArgumentParser(prog="python -m bench scale")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2500, 10000])
    parser.add_argument("--label", default="after", help="section of scale.md to write")
    parser.add_argument(
        "--no-bare", action="store_true", help="skip the bare embedding of the same texts"
    )
    parser.add_argument(
        "--keep", help="build the homes in this directory and keep them (default: a temporary one)"
    )
    parser.add_argument(
        "--chroma-url",
        help="index on this Chroma server (`chroma run`) instead of the embedded Chroma",
    )
    parser.add_argument(
        "--variants",
        action="store_true",
        help="agent R@5 of every ranking variant per size, from cached rankings "
        "(bench/scale_variants.py; give --keep for the cache)",
    )
    parser.add_argument(
        "--home",
        help="measure this kept home in place (no build; bench/scale_server.py), with --catalog",
    )
    parser.add_argument("--catalog", help="the catalog file the kept --home was indexed from")
    parser.add_argument(
        "--server-pid", type=int, help="the Chroma server's process, to count its CPU too"
    )
    parser.add_argument(
        "--rows", help="format these JSON rows (one per line, as a run prints) instead of running"
    )
    args = parser.parse_args(argv)
    if args.home:
        from bench.scale_server import main as home_main

        return home_main(args)
    if args.variants:
        return _variants_main(args.sizes, Path(args.keep or tempfile.mkdtemp()), args.label)
    base = json.loads(DEV_CATALOG.read_text())
    if args.chroma_url:
        # zspace reads the server's address from the environment (ZSPACE_CHROMA_URL), as a
        # user's `zspace index` would; the start-up child inherits it.
        os.environ["ZSPACE_CHROMA_URL"] = args.chroma_url
    rows = []
    if args.rows:
        rows = [json.loads(line) for line in Path(args.rows).read_text().splitlines()
                if line.startswith("{")]
    else:
        with contextlib.ExitStack() as stack:
            scratch = args.keep or stack.enter_context(tempfile.TemporaryDirectory())
            Path(scratch).mkdir(parents=True, exist_ok=True)
            for size in args.sizes:
                row = measure_size(base, size, Path(scratch), bare=not args.no_bare)
                print(json.dumps(row), flush=True)
                rows.append(row)
    command = f"python -m bench scale --sizes {' '.join(map(str, args.sizes))}"
    command += " --no-bare" if args.no_bare else ""
    command += f" --chroma-url {args.chroma_url}" if args.chroma_url else ""
    header = (
        "# Indexing and retrieval at size\n\n"
        "StableToolBench's 2,490 tools grown with seeded distractor providers (restyled clones "
        "of real providers, template providers in the real categories; `bench/scale.py`), gold "
        "queries unchanged (765 questions). Build, no-op and one-change times are `zspace index` "
        "in-process (load, validation, tags, sync, catalog write); start-up is `zspace search` "
        "in a child process minus `python -c \"import chromadb, numpy\"` (best of 3); bare "
        "embedding is one `embed` call over the same entry texts in the same run.\n\n"
    )
    _section, text = write_section("scale.md", header, args.label, command, format_rows(rows))
    print(text)
    print(json.dumps({"median_agent_r5": statistics.median(r["agent_r5"] for r in rows)}))
    return 0


def _variants_main(sizes: list[int], keep: Path, label: str) -> int:
    from bench.scale_variants import format_variants, measure_variants

    keep.mkdir(parents=True, exist_ok=True)
    rows = [row for size in sizes for row in measure_variants(size, keep)]
    command = f"python -m bench scale --variants --sizes {' '.join(map(str, sizes))}"
    section = "\n".join(
        [f"## {label}", "", f"{machine_line()}. Command: `{command} --keep DIR --label {label}`.",
         "", *format_variants(rows, sizes)]
    )
    path = REPO / "bench" / "results" / "scale.md"
    write_result("scale.md", _merge_section(path.read_text(), label, section))
    print(section)
    return 0
