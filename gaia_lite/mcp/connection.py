"""One MCP server's connection: a background thread whose asyncio loop holds the SDK session.

gaia-lite's agent is synchronous; the MCP SDK is async. Each server gets a
thread running its own event loop, so a slow or hung server never blocks the
others or the chat. The session lives inside one ``anyio.CancelScope`` that
carries the connect deadline, so a server that does not answer in time is
cancelled the way the SDK expects (its shutdown runs shielded and stops the
process). Calls come in from worker threads through
``run_coroutine_threadsafe``.

A stdio server is started through ``guard.py`` (``PR_SET_PDEATHSIG``): it dies
with gaia-lite even after ``kill -9``. Its stderr goes to a log file, never to
the terminal; the last line of it names why a server failed to start.

Stray output: a server that prints text that is not MCP on stdout (before or
after the handshake) makes the SDK log each line with a traceback. Those
records go to the server's log file as one line each, and one warning says
so; nothing of it reaches the terminal.

SDK objects stop here: tools come out as ``ListedTool``, results as ``CallOutcome``.
"""

from __future__ import annotations

import asyncio
import builtins
import concurrent.futures
import logging
import math
import os
import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from gaia_lite.config import McpServer
from gaia_lite.errors import GaiaError

__all__ = ["ServerConnection", "ListedTool", "CallOutcome", "McpCallError", "ServerState", "resolve_command",
           "MAX_RESULT_CHARS"]

MAX_RESULT_CHARS = 20_000  # what one call may hand back; the loop cuts it further for the model
GUARD = Path(__file__).with_name("guard.py")
CONNECTION_CLOSED = -32000  # the SDK's error code for a connection that ended (mcp_types.CONNECTION_CLOSED)
_GROUP: Any = getattr(builtins, "BaseExceptionGroup", ())  # Python 3.11+; anyio raises groups there
ServerState = str  # idle | connecting | ready | failed | broken | closed
SDK_LOGGER = "mcp"  # the SDK's loggers ("mcp.client.stdio", ...)
NOTICE_LOGGER = "gaia_lite.mcp"


@dataclass(frozen=True)
class ListedTool:
    """A tool as the server lists it: its own name, texts, input schema and read-only hint."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False
    title: str = ""


@dataclass(frozen=True)
class CallOutcome:
    """What one call returned: the text of its content blocks, and whether the tool reported an error."""

    text: str
    is_error: bool = False
    structured: Any = None
    truncated: bool = False


class McpCallError(GaiaError):
    """The call could not be made or did not complete: the server is gone, broken or too slow.
    ``broken`` says the connection can no longer be trusted (restart it)."""

    def __init__(self, message: str, *, broken: bool = True) -> None:
        super().__init__(message)
        self.broken = broken


def resolve_command(command: str) -> str | None:
    """The program to run: on PATH, or next to this Python (a venv's bin, which a shell may not have
    on its PATH when gaia-lite is run as ``.venv/bin/gaia-lite``)."""
    if os.sep in command:
        return command if os.access(command, os.X_OK) else None
    return shutil.which(command) or shutil.which(command, path=str(Path(sys.executable).parent))


def _one_line(exc: BaseException) -> str:
    """The innermost, most specific message of an exception (groups included), on one line."""
    while isinstance(exc, _GROUP) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _last_line(path: Path | None) -> str:
    if path is None or not path.is_file():
        return ""
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - 4096))
            lines = [ln.strip() for ln in fh.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""


def _content_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} {getattr(block, 'mime_type', '')}, not shown]"
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    if kind == "resource":
        inner = block.resource
        return str(getattr(inner, "text", None) or f"[resource {inner.uri}]")
    return f"[{kind or 'content'} not shown]"


class _StrayOutput(logging.Handler):
    """The SDK's log records from one connection's thread, one line each into the server's log file;
    the first one also gives one warning (a server that prints text on stdout logs a traceback per
    line, thousands of lines on a terminal otherwise)."""

    def __init__(self, server: str, errlog: TextIO, log_path: Path | None) -> None:
        super().__init__(logging.DEBUG)
        self.server, self.errlog, self.log_path = server, errlog, log_path
        self.thread = threading.get_ident()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:
            return
        why = f": {_one_line(record.exc_info[1])}" if record.exc_info and record.exc_info[1] else ""
        line = f"{record.levelname}: {record.getMessage()}{why}"
        try:
            self.errlog.write(line[:500] + "\n")
            self.errlog.flush()
        except (OSError, ValueError):  # the log file closed under a late record
            pass
        if record.levelno >= logging.WARNING:
            self.count += 1
            if self.count == 1:
                where = f"; details in {self.log_path}" if self.log_path else ""
                logging.getLogger(NOTICE_LOGGER).warning(
                    "MCP server %s wrote something that is not an MCP message (%s); it is ignored%s",
                    self.server, line[:160], where)


class _Unrouted(logging.Handler):
    """SDK records from no connection's thread: one line in gaia-lite's own log, never a traceback on
    the terminal (the SDK's logger does not propagate to the root, whose last resort prints them)."""

    def emit(self, record: logging.LogRecord) -> None:
        if not record.threadName.startswith("mcp:"):
            logging.getLogger(NOTICE_LOGGER).info("MCP SDK: %s", record.getMessage()[:300])


def _quiet_sdk_logger() -> logging.Logger:
    sdk = logging.getLogger(SDK_LOGGER)
    if not any(isinstance(h, _Unrouted) for h in sdk.handlers):
        sdk.addHandler(_Unrouted())
        sdk.propagate = False
    return sdk


class ServerConnection:
    """Connects on ``start()`` in the background; ``wait()`` for it, ``call()`` its tools, ``close()``."""

    def __init__(self, server: McpServer, *, log_dir: Path | None = None, connect_timeout: float = 30.0) -> None:
        self.server = server
        self.connect_timeout = connect_timeout
        self.log_path = None if log_dir is None else log_dir / f"mcp-{server.name}.log"
        self.state: ServerState = "idle"
        self.error = ""
        self.tools: tuple[ListedTool, ...] = ()
        self.connect_s: float | None = None
        self._settled = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._scope: Any = None
        self._client: Any = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"MCP server {self.server.name} was already started")
        self.state = "connecting"
        self._thread = threading.Thread(target=self._run, name=f"mcp:{self.server.name}", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server is ready or has failed (True), or ``timeout`` passes (False)."""
        return self._settled.wait(timeout)

    @property
    def settled(self) -> bool:
        return self._settled.is_set()

    def close(self, timeout: float = 8.0) -> None:
        """Stop the session and the server process (the SDK closes stdin, then terminates it)."""
        loop, stop, scope = self._loop, self._stop, self._scope
        if loop is not None and not loop.is_closed():
            try:
                if self.state == "ready" and stop is not None:
                    loop.call_soon_threadsafe(stop.set)
                elif scope is not None:
                    loop.call_soon_threadsafe(scope.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass
        if self._thread is not None:
            self._thread.join(timeout)
        if self.state in ("ready", "connecting", "idle"):
            self.state = "closed"
        self._settled.set()

    def mark_broken(self, why: str) -> None:
        """The connection can no longer be trusted (a call timed out or the pipe closed): stop it."""
        self.error = why
        self.close(timeout=5.0)
        self.state = "broken"

    # ------------------------------------------------------------------ calls
    def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> CallOutcome:
        """Call one tool; raises McpCallError when the server cannot answer (gone, broken, too slow)."""
        if self.state != "ready" or self._loop is None:
            raise McpCallError(self.error or f"the server is {self.state}")
        future = asyncio.run_coroutine_threadsafe(self._call(tool, arguments, timeout), self._loop)
        try:
            return future.result(timeout + 5.0)
        except (concurrent.futures.TimeoutError, TimeoutError):
            future.cancel()
            raise McpCallError(f"{tool} did not answer within {timeout:g}s") from None
        except McpCallError:
            raise
        except Exception as exc:
            from mcp.shared.exceptions import MCPError  # kept lazy: the SDK loads only with a server

            if isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED:  # the server refused this call
                raise McpCallError(f"{tool}: {exc.error.message}", broken=False) from None
            raise McpCallError(f"the connection ended ({_one_line(exc)})") from None

    async def _call(self, tool: str, arguments: dict[str, Any], timeout: float) -> CallOutcome:
        import anyio

        with anyio.fail_after(timeout):
            result = await self._client.call_tool(tool, arguments)
        text = "\n".join(t for t in (_content_text(b) for b in result.content) if t)
        structured = result.structured_content if not text else None
        truncated = len(text) > MAX_RESULT_CHARS
        return CallOutcome(text[:MAX_RESULT_CHARS], bool(result.is_error), structured, truncated)

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        errlog: TextIO | None = None
        try:
            if self.log_path is not None:
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                errlog = self.log_path.open("a", encoding="utf-8")
            else:
                errlog = open(os.devnull, "w", encoding="utf-8")
            stray = _StrayOutput(self.server.name, errlog, self.log_path)
            sdk = _quiet_sdk_logger()
            sdk.addHandler(stray)
            try:
                asyncio.run(self._main(errlog))
            finally:
                sdk.removeHandler(stray)
        except BaseException as exc:  # never let a server take the thread's error to stderr
            self._fail(_one_line(exc))
        finally:
            if errlog is not None:
                errlog.close()
            if self.state in ("ready", "connecting"):
                # the session ended without close(): the server exited or the pipe broke
                self.state, self.error = "broken", self.error or "the server stopped"
            self._settled.set()

    def _target(self, errlog: TextIO) -> Any:
        """The server URL, or the stdio transport that starts the command (stderr to ``errlog``)."""
        from mcp import StdioServerParameters  # kept lazy: the SDK loads only with a server
        from mcp.client.stdio import stdio_client

        s = self.server
        if s.url:
            return s.url
        program = resolve_command(s.command)
        if program is None:
            raise FileNotFoundError(f"command {s.command!r} not found (install it, or give its full path)")
        if sys.platform.startswith("linux"):  # the child dies with us, even after kill -9
            command, args = sys.executable, ["-I", "-S", str(GUARD), str(os.getpid()), program, *s.args]
        else:
            command, args = program, list(s.args)
        params = StdioServerParameters(command=command, args=args, env=dict(s.env) or None, cwd=s.cwd or None)
        return stdio_client(params, errlog=errlog)

    async def _main(self, errlog: TextIO) -> None:
        import time

        import anyio
        from mcp import Client  # kept lazy: the SDK loads only with a server

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        started = time.perf_counter()
        target = self._target(errlog)
        with anyio.CancelScope() as scope:
            self._scope = scope
            scope.deadline = anyio.current_time() + self.connect_timeout
            try:
                async with Client(target, cache=None) as client:
                    self.tools = await self._list_tools(client)
                    scope.deadline = math.inf
                    self._client = client
                    self.connect_s = time.perf_counter() - started
                    self.state = "ready"
                    self._settled.set()
                    await self._stop.wait()
                    self.state = "closed"
            except Exception as exc:
                if self.state == "ready":
                    self._fail(f"the server stopped ({_one_line(exc)})", state="broken")
                else:
                    reason = _last_line(self.log_path) if self.server.command else ""
                    self._fail(f"{_one_line(exc)}" + (f" (stderr: {reason})" if reason else ""))
        if scope.cancelled_caught and self.state == "connecting":
            self._fail(f"it did not answer within {self.connect_timeout:g}s")

    async def _list_tools(self, client: Any) -> tuple[ListedTool, ...]:
        out: list[ListedTool] = []
        cursor: str | None = None
        for _ in range(100):  # a server that pages forever cannot hang the start
            page = await client.list_tools(cursor=cursor)
            for t in page.tools:
                hints = t.annotations
                out.append(ListedTool(t.name, t.description or "", dict(t.input_schema or {}),
                                      bool(hints is not None and hints.read_only_hint), t.title or ""))
            cursor = page.next_cursor
            if not cursor:
                break
        return tuple(out)

    def _fail(self, message: str, *, state: ServerState = "failed") -> None:
        if self.state == "closed":
            return
        self.state, self.error = state, message
        self._settled.set()
