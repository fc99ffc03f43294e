"""An index built with the embedded Chroma, served as it is by `chroma run` on a copy of its files.

What the README's "Past one machine" section and bench/results/scale_server.md rely on: the
server reads the embedded Chroma's files, nothing is embedded again, retrieval answers from the
served vectors, and a collection changed by another client is noticed by the index's stamp.
"""

import shutil
import subprocess
import sys
from pathlib import Path

from stores.catalog.model import Catalog
from stores.retrieval.index import ToolIndex, make_chroma_client
from stores.retrieval.ranking import RetrievalConfig, retrieve
from tests.fakes import HashingEmbedder
from tests.integration_tests.conftest import free_port, stop_process, wait_for_port


def _catalog() -> Catalog:
    catalog = Catalog()
    catalog.load_document(
        {
            "tools": [
                {"name": "create_order", "agent": "shop", "description": "create an order",
                 "input_schema": {"type": "object", "properties": {}}},
                {"name": "get_forecast", "agent": "weather", "description": "weather forecast",
                 "input_schema": {"type": "object", "properties": {}}},
            ]
        },
        source="test",
    )
    return catalog


def test_an_embedded_index_served_by_chroma_run_is_used_without_embedding(
    tmp_path: Path,
) -> None:
    catalog = _catalog()
    assert ToolIndex(tmp_path / "local", HashingEmbedder(), name="t").sync(catalog).indexed == 4
    shutil.copytree(tmp_path / "local" / "chroma", tmp_path / "served")
    chroma = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    process = subprocess.Popen(
        [chroma, "run", "--path", str(tmp_path / "served"), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}"
        served = ToolIndex(tmp_path / "local", HashingEmbedder(), name="t", chroma_url=url)
        assert served.sync(catalog).indexed == 0
        result = retrieve(served, "weather forecast", config=RetrievalConfig(method="dense"))
        assert result.tools[0].tool_id == "weather/get_forecast"
        assert served.sync_stamp() is not None

        other = make_chroma_client(url=url).get_collection("zspace_t")
        other.delete(ids=["tool:weather/get_forecast"])  # another client changed the server
        assert served.sync_stamp() is None
        assert served.sync(catalog).indexed == 1
    finally:
        stop_process(process)
