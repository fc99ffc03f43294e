"""The gate's development runner: pairs from a catalog, the gate's verdicts, the table."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.gate_dev import GROUPS, Pair, measure, report, stabletoolbench_pairs


class WordEmbedder:
    """One axis per word: texts sharing words are close (test-only)."""

    name = "word-test-embedder"
    dim = 97

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, sum(map(ord, word)) % self.dim] += 1.0
            out[row] /= float(np.linalg.norm(out[row])) or 1.0
        return out


def _write(tmp_path: Path) -> tuple[Path, Path]:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    catalog = {
        "agents": [
            {"id": "wx", "name": "wx", "description": "", "category": "Weather"},
            {"id": "wx2", "name": "wx2", "description": "", "category": "Weather"},
            {"id": "fin", "name": "fin", "description": "", "category": "Finance"},
        ],
        "tools": [
            {"id": "wx/forecastByCity", "name": "forecastByCity", "agent": "wx",
             "description": "Weather forecast for a city.", "input_schema": schema},
            {"id": "wx2/radar", "name": "radar", "agent": "wx2",
             "description": "Rain radar.", "input_schema": schema},
            {"id": "fin/quote", "name": "quote", "agent": "fin",
             "description": "Stock quote of a ticker.", "input_schema": schema},
        ],
    }
    queries = [{"id": "q1", "question": "Hi! What is the weather forecast for the city 'Oslo'?",
                "steps": [], "tools": ["wx/forecastByCity"], "agents": ["wx"]}]
    catalog_path, queries_path = tmp_path / "catalog.json", tmp_path / "queries.jsonl"
    catalog_path.write_text(json.dumps(catalog))
    queries_path.write_text("\n".join(json.dumps(q) for q in queries) + "\n")
    return catalog_path, queries_path


def test_negatives_come_from_another_category(tmp_path: Path) -> None:
    pairs = stabletoolbench_pairs(*_write(tmp_path), limit=None)
    assert [(p.name, p.positive) for p in pairs if p.positive] == [("forecastByCity", True)]
    negatives = [p.name for p in pairs if not p.positive]
    assert negatives and set(negatives) == {"quote"}  # never the same category's radar


def test_the_gate_admits_the_gold_tool_and_refuses_the_other(tmp_path: Path) -> None:
    pairs = stabletoolbench_pairs(*_write(tmp_path), limit=None)
    measured = measure(pairs, WordEmbedder())
    verdict = {(p.name, p.positive): s.reason for p, s in measured}
    assert verdict[("forecastByCity", True)] is not None
    assert verdict[("quote", False)] is None
    assert all(s.bindable for p, s in measured if p.positive)  # 'Oslo' fills the city


def test_the_report_has_a_row_per_variant_and_the_reasons(tmp_path: Path) -> None:
    pairs = stabletoolbench_pairs(*_write(tmp_path), limit=None)
    extra = Pair("irrelevance", "Tell me a joke", "quote", "Stock quote.", {}, False)
    text = report(measure([*pairs, extra], WordEmbedder()), ["# head\n"])
    rows = [line for line in text.splitlines() if line.startswith("| the gate (")]
    assert rows and rows[0].split("|")[1:5] == [" the gate (eligibility.fit_reason) ", " 1.000 ",
                                                 " - ", " 0.000 "]
    assert f"| {GROUPS[0][0]} positives | 1 |" in text
