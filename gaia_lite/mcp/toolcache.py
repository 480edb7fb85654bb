"""Each MCP server's tool list, kept on disk between runs, so a second start registers its tools at
once while the server is still starting (``McpManager``).

One JSON file per server, ``<name>.json``, holding a hash of the server's config (a changed command,
arguments, environment or URL misses), a hash of the tool list, and the tools as listed. Written
atomically (temp file + ``os.replace``); an unreadable file is a miss. When the server answers, its
live list confirms the cached one, or replaces what changed (the manager re-joins new and changed
tools and drops the ones no longer listed).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from gaia_lite.config import McpServer

from .connection import ListedTool

__all__ = ["ToolListCache", "tools_hash"]


def _config_hash(server: McpServer) -> str:
    return hashlib.sha256(json.dumps(server.table(), sort_keys=True).encode("utf-8")).hexdigest()


def tools_hash(tools: Sequence[ListedTool]) -> str:
    """A hash of a server's tool list (names, texts, schemas, hints), as its cache key for the tools."""
    return _raw_hash([asdict(t) for t in tools])


def _raw_hash(raw: list[dict[str, Any]]) -> str:
    """The same hash over the tools as plain JSON data (what the file holds): no dataclass copies."""
    return hashlib.sha256(json.dumps(raw, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class ToolListCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, server: McpServer) -> Path:
        return self.directory / f"{server.name}.json"

    def read(self, server: McpServer) -> tuple[ListedTool, ...] | None:
        """The tools this server listed last time with the same config, or None."""
        try:
            data = json.loads(self._path(server).read_text(encoding="utf-8"))
            if data.get("config") != _config_hash(server) or data.get("tools_hash") != _raw_hash(data["tools"]):
                return None
            return tuple(ListedTool(str(t["name"]), str(t["description"]), dict(t["input_schema"]),
                                    bool(t.get("read_only")), str(t.get("title") or "")) for t in data["tools"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, server: McpServer, tools: Sequence[ListedTool]) -> None:
        """Keep this list for the next start (a failure to write only costs that start the wait)."""
        body: dict[str, Any] = {"config": _config_hash(server), "tools_hash": tools_hash(tools),
                                "tools": [asdict(t) for t in tools]}
        tmp: str | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{server.name}-", suffix=".json", dir=self.directory)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(body, fh, ensure_ascii=False)
            os.replace(tmp, self._path(server))
        except OSError:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
