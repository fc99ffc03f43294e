from pathlib import Path

from stores.catalog.model import Catalog
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, retrieve
from tests.fakes import HashingEmbedder


def test_index_on_a_chroma_server(tmp_path: Path, chroma_server: str) -> None:
    catalog = Catalog()
    catalog.load_document(
        {
            "tools": [
                {
                    "name": "create_order",
                    "agent": "shop",
                    "description": "create an order",
                    "input_schema": {"type": "object", "properties": {}},
                },
                {
                    "name": "get_forecast",
                    "agent": "weather",
                    "description": "weather forecast",
                    "input_schema": {"type": "object", "properties": {}},
                },
            ]
        },
        source="test",
    )
    index = ToolIndex(tmp_path / "local", HashingEmbedder(), name="srv", chroma_url=chroma_server)
    assert index.sync(catalog).indexed == 4
    reopened = ToolIndex(
        tmp_path / "local", HashingEmbedder(), name="srv", chroma_url=chroma_server
    )
    assert reopened.sync(catalog).indexed == 0
    result = retrieve(reopened, "weather forecast", config=RetrievalConfig(method="dense"))
    assert result.tools[0].tool_id == "weather/get_forecast"
    assert not (tmp_path / "local" / "chroma").exists()
