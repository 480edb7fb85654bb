"""The agent's MCP servers: started together, joined as they become ready, restarted once.

``McpManager`` is built by the composition root (one per agent, no globals) and
owned by its services, which close it on exit. ``start()`` connects every
server in the background and returns at once. A server's tools *join* when it
has connected and their documents are embedded (``prepare``, off the agent's
thread); the selector asks ``joins()`` at the start of each turn. The first
turn waits for servers only until ``grace`` seconds after ``start()``: a slow
server joins a later turn, with a notice. A server's tool list is kept on disk
(``toolcache``): on the next start its tools join at once, a call waits for
the server to answer, and the live list confirms them or replaces what changed.

Faults: a server that fails to start is named in one warning line and in a
notice; its tools never join (cached ones answer with an error). A call to a server that crashed or hung gets an
error that says so, and the next call restarts the server, once per session.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from gaia_lite.loader.joins import ToolJoin
from gaia_lite.config import McpServer
from gaia_lite.events import Notice
from gaia_lite.registry.spec import ToolSpec
from gaia_lite.registry.failure import error_payload

from .connection import ListedTool, McpCallError, ServerConnection
from .toolcache import ToolListCache
from .tools import outcome_payload, server_bundle, tool_specs

__all__ = ["McpManager", "ServerStatus", "LOGGER_NAME"]

LOGGER_NAME = "gaia_lite.mcp"

Prepare = Callable[[Sequence[ToolSpec]], None]


@dataclass(frozen=True)
class ServerStatus:
    """One row of ``gaia-lite mcp list``."""

    name: str
    state: str
    tools: int
    error: str
    connect_s: float | None
    transport: str


class McpManager:
    def __init__(self, servers: Sequence[McpServer], *, log_dir: Path | None = None, cache_dir: Path | None = None,
                 connect_timeout: float = 30.0, grace: float = 3.0, prepare: Prepare | None = None,
                 clock: Callable[[], float] = time.monotonic, logger: logging.Logger | None = None) -> None:
        self.servers = {s.name: s for s in servers}
        self.connect_timeout = connect_timeout
        self.grace = grace
        self._log_dir = log_dir
        self._prepare = prepare
        self._tool_cache = ToolListCache(cache_dir) if cache_dir is not None else None
        self._clock = clock
        self._log = logger if logger is not None else logging.getLogger(LOGGER_NAME)
        self._conns = {s.name: self._connection(s) for s in servers}
        self._specs: dict[str, list[ToolSpec]] = {}
        self._pending: list[ToolJoin] = []
        self._settled: set[str] = set()  # connected or failed
        self._known: set[str] = set()  # its tools are known (cached or listed), or it failed
        self._restarted: set[str] = set()
        self._cond = threading.Condition()
        self._locks = {name: threading.Lock() for name in self.servers}
        self._started_at: float | None = None
        self._closed = False

    def _connection(self, server: McpServer) -> ServerConnection:
        return ServerConnection(server, log_dir=self._log_dir, connect_timeout=self.connect_timeout)

    # ------------------------------------------------------------------ start and join
    def start(self) -> None:
        """Connect every server in the background; returns at once. A server whose tool list is
        cached from an earlier run (same config) has its tools join at once, before it answers."""
        self._started_at = self._clock()
        for name in self.servers:
            threading.Thread(target=self._bring_up, args=(name,), name=f"mcp-join:{name}", daemon=True).start()

    def _bring_up(self, name: str) -> None:
        server, conn = self.servers[name], self._conns[name]
        conn.start()
        cached = self._tool_cache.read(server) if self._tool_cache is not None else None
        if cached:
            # not prepared again: the run that listed them embedded their documents into the same
            # cache folder, and looking 600 of them up here only competes with the first turn
            self._join(name, cached, cached, (), (), f"{len(cached)} tools joined (bundle {server.bundle}; "
                                                     f"as listed last time, the server is starting)", prepare=False)
        conn.wait(self.connect_timeout + 10.0)
        if conn.state != "ready":
            why = conn.error or (f"it did not answer within {self.connect_timeout + 10.0:g}s"
                                 if conn.state == "connecting" else f"it is {conn.state}")
            self._log.warning("MCP server %s failed to start: %s", name, why)
            tail = "Its tools answer with an error" if cached else "Its tools are not available"
            self._settle(name, ToolJoin((), None, Notice("warning", f"MCP server {name} failed to start: {why}. "
                                                                    f"{tail} (gaia-lite doctor).")))
            return
        live = conn.tools
        self._log.info("MCP server %s ready in %.2fs with %d tools", name, conn.connect_s or 0.0, len(live))
        if self._tool_cache is not None and live != cached:
            self._tool_cache.write(server, live)
        if not cached:
            self._join(name, live, live, (), (), f"{len(live)} tools joined (bundle {server.bundle})")
        else:  # the live list confirms the cached one, or replaces what changed
            before = {t.name: t for t in cached}
            now = {t.name for t in live}
            joining = [t for t in live if before.get(t.name) != t]
            removed = [t.name for t in cached if t.name not in now]
            if joining or removed:
                added = sum(1 for t in joining if t.name not in before)
                # named over the cached list first, so a tool keeps the name it joined under
                self._join(name, live, joining, removed, [t.name for t in cached],
                           f"its tools changed since last time: {added} new, {len(joining) - added} changed, "
                           f"{len(removed)} gone (bundle {server.bundle})")
        self._settle(name, None)

    def _join(self, name: str, every: Sequence[ListedTool], joining: Sequence[ListedTool],
              removed: Sequence[str], named_after: Sequence[str], what: str, *, prepare: bool = True) -> None:
        """The server's tools are ``every`` now: ``joining`` (new or changed) join at the next turn and
        ``removed`` (listed names) leave; only the joining ones' documents are embedded (``prepare``)."""
        server = self.servers[name]
        specs = tool_specs(server, every, self.call, named_after=named_after)
        wanted = {t.name for t in joining}
        fresh = [s for s in specs if s.origin in wanted]
        gone = {*removed}
        with self._cond:
            leaving = tuple(s.name for s in self._specs.get(name, ()) if s.origin in gone)
        try:
            if prepare and self._prepare is not None and fresh:
                self._prepare(fresh)
        except Exception as exc:  # the first select meets the embedder failure and reports it
            self._log.info("MCP server %s: embedding its tool documents failed (%s)", name, exc)
        with self._cond:
            self._specs[name] = specs
        notice = Notice("info", f"MCP server {name}: {what}")
        self._settle(name, ToolJoin(tuple(fresh), server_bundle(server, specs), notice, leaving), known_only=True)

    def _settle(self, name: str, join: ToolJoin | None, *, known_only: bool = False) -> None:
        """Queue a join; ``known`` (its tools are known) lets the first turn go on, ``settled`` (the
        connection is up or failed) is what ``wait`` waits for."""
        with self._cond:
            if join is not None and not self._closed:
                self._pending.append(join)
            self._known.add(name)
            if not known_only:
                self._settled.add(name)
            self._cond.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every server is connected or has failed (True), or ``timeout`` passes (False)."""
        return self._wait_for(self._settled, timeout)

    def _wait_for(self, names: set[str], timeout: float | None) -> bool:
        deadline = None if timeout is None else self._clock() + timeout
        with self._cond:
            while len(names) < len(self.servers):
                left = None if deadline is None else deadline - self._clock()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def joins(self) -> list[ToolJoin]:
        """What joined since the last call. Within ``grace`` of ``start()`` it waits until every
        server's tools are known (from its cache, or from the server) or it failed."""
        if self._started_at is not None:
            left = self._started_at + self.grace - self._clock()
            if left > 0:
                self._wait_for(self._known, left)
        with self._cond:
            out, self._pending = self._pending, []
        return out

    # ------------------------------------------------------------------ calls
    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool; every failure is an error payload naming the server and what to do."""
        config = self.servers[server]
        with self._locks[server]:
            conn = self._conns[server]
            if conn.state in ("broken", "closed") and server not in self._restarted and not self._closed:
                conn = self._restart(server)
        if conn.state == "connecting":  # its tools joined from the cache; the server is still starting
            conn.wait(self.connect_timeout + 5.0)
        if conn.state != "ready":
            return error_payload(f"MCP server {server} is not available ({conn.error or conn.state}). "
                                 f"{self._after(server)}")
        try:
            return outcome_payload(conn.call(tool, arguments, config.timeout))
        except McpCallError as exc:
            if not exc.broken:
                return error_payload(f"MCP server {server}: {exc}")
            conn.mark_broken(str(exc))
            self._log.warning("MCP server %s failed during %s: %s", server, tool, exc)
            return error_payload(f"MCP server {server} failed: {exc}. {self._after(server)}")

    def _after(self, server: str) -> str:
        if server in self._restarted:
            return ("It was already restarted once this session; answer without it, or check the "
                    "server with `gaia-lite doctor`.")
        return "It will be restarted on the next call."

    def _restart(self, server: str) -> ServerConnection:
        """Replace a broken connection by a fresh one and wait for it (once per session)."""
        self._restarted.add(server)
        self._conns[server].close(timeout=5.0)
        conn = self._connection(self.servers[server])
        self._conns[server] = conn
        conn.start()
        conn.wait(self.connect_timeout + 5.0)
        self._log.info("MCP server %s restarted: %s", server, conn.state if conn.state != "ready" else "ready")
        return conn

    # ------------------------------------------------------------------ inspection and exit
    def specs(self, server: str) -> list[ToolSpec]:
        return list(self._specs.get(server, ()))

    def connection(self, server: str) -> ServerConnection:
        return self._conns[server]

    def status(self) -> list[ServerStatus]:
        rows = []
        for name, server in self.servers.items():
            conn = self._conns[name]
            rows.append(ServerStatus(name, conn.state, len(conn.tools), conn.error, conn.connect_s,
                                     "http" if server.url else "stdio"))
        return rows

    def close(self) -> None:
        """Stop every server (each is also killed by the kernel if gaia-lite dies first)."""
        with self._cond:
            self._closed = True
        threads = [threading.Thread(target=c.close, daemon=True) for c in self._conns.values()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10.0)
