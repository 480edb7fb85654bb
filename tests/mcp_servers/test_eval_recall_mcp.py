"""`eval recall --registry mcp`: the set's tools through a real MCP session rank exactly as read from the file."""

from __future__ import annotations

import json

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.eval.recall import run_recall

TOOLS = [
    {"name": "read_clipboard", "description": "read clipboard text", "parameters": {"type": "object", "properties": {}}},
    {"name": "write.clipboard", "description": "write clipboard text\nSecond line.",
     "parameters": {"type": "dict", "properties": {"text": {"type": "string", "description": "What to write."}},
                    "required": ["text"]}},
    {"name": "weather_now", "description": "current weather for a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
    {"name": "stock price", "description": "latest stock price for a ticker", "parameters": {}},
]
CASES = [
    {"id": "c1", "query": "read the clipboard text", "expected_tools": ["read_clipboard"]},
    {"id": "c2", "query": "put this on the clipboard", "expected_tools": ["write.clipboard"]},
    {"id": "c3", "query": "weather and the stock price", "expected_tools": ["weather_now", "stock price"]},
    {"id": "c4", "query": "hello there", "expected_tools": []},
]


def test_mcp_registry_ranks_every_case_exactly_as_the_dataset_registry(tmp_path) -> None:
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"meta": {}, "tools": TOOLS, "cases": CASES}))
    kw = dict(preset="default", embedder=HashEmbedder(), include_cases=True)
    direct = run_recall(path, registry_mode="dataset", **kw)
    served = run_recall(path, registry_mode="mcp", **kw)
    assert served["tools"] == direct["tools"] == 4 and served["scored_cases"] == 3
    for key in ("r_at_1", "r_at_5", "r_at_10", "mrr", "recall"):
        assert served[key] == direct[key], key
    assert [c["ranks"] for c in served["case_results"]] == [
        {f"fixture__{name.replace('.', '_').replace(' ', '_')}": rank for name, rank in c["ranks"].items()}
        for c in direct["case_results"]]
    assert served["mcp_connect_s"] > 0
