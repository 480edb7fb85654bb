"""One Settings object, resolved with a fixed precedence:

    CLI flag  >  environment variable  >  config file (TOML)  >  default

The config file lives in the platformdirs user config dir
(``~/.config/gaia-lite/config.toml`` on Linux); ``GAIA_HOME`` moves every
gaia-lite directory (config, data, state, cache) under one folder, which is
what the tests do. Malformed values raise ConfigError with a one-line message
naming the variable, the value and what is accepted.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

from .errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on 3.10
    import tomli as tomllib

__all__ = ["Settings", "Paths", "McpServer", "load_settings", "parse_mcp_servers", "MCP_NAME", "normalize_base_url", "CORE_SIZE", "TRUTHY",
           "SETTING_NAMES", "setting_name", "old_setting_keys", "setting_env_var", "parse_setting",
           "read_config_file", "setting_sources"]

APP = "gaia-lite"
DEFAULT_BASE_URL = "http://localhost:13305/api/v1"
CORE_SIZE = 11  # CORE incl. load_tools (bundles/doc.toml); the cap may not go below it
TRUTHY = frozenset({"1", "true", "yes", "on"})
FALSY = frozenset({"0", "false", "no", "off", ""})
MAX_SECONDS = 86_400.0  # a day: the longest timeout a setting may ask for


@dataclass(frozen=True)
class Paths:
    config_file: Path
    data_dir: Path
    state_dir: Path
    cache_dir: Path

    @property
    def memory_db(self) -> Path:
        return self.data_dir / "memory.db"

    @property
    def rag_db(self) -> Path:
        return self.data_dir / "rag.db"

    @property
    def history_file(self) -> Path:
        return self.state_dir / "chat_history"

    @property
    def log_file(self) -> Path:
        return self.state_dir / "gaia-lite.log"

    @property
    def turns_file(self) -> Path:
        """One JSON line per finished or failed turn of ``ask``/``chat`` (``gaia-lite logs``)."""
        return self.state_dir / "turns.jsonl"

    @classmethod
    def resolve(cls, env: Mapping[str, str]) -> "Paths":
        home = env.get("GAIA_HOME")
        if home:
            root = _checked_home(home)
            return cls(root / "config.toml", root / "data", root / "state", root / "cache")
        # kept lazy: only needed when GAIA_HOME is not set
        import platformdirs

        return cls(
            Path(platformdirs.user_config_dir(APP)) / "config.toml",
            Path(platformdirs.user_data_dir(APP)),
            Path(platformdirs.user_state_dir(APP)),
            Path(platformdirs.user_cache_dir(APP)),
        )


def _checked_home(raw: str) -> Path:
    """GAIA_HOME must be a folder gaia-lite can create files in."""
    if "\x00" in raw or not raw.strip():
        raise ConfigError("GAIA_HOME is empty or holds a NUL byte; set it to a folder, e.g. ~/gaia-home")
    root = Path(raw).expanduser()
    resolved = root.resolve(strict=False)
    if any(resolved == Path(d) or Path(d) in resolved.parents for d in ("/proc", "/sys", "/dev")):
        raise ConfigError(f"GAIA_HOME={raw!r} is inside a kernel folder ({resolved}); set it to a normal folder")
    if resolved.exists() and not resolved.is_dir():
        raise ConfigError(f"GAIA_HOME={raw!r} is a file, not a folder; set it to a folder (it is created if missing)")
    return root


MCP_NAME = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*"  # an MCP server's name: a tool-name prefix, so snake_case without "__"
MCP_NAME_MAX = 32  # leaves 30 of the 64 characters a tool name may have on the wire
MCP_TRUST = ("ask", "always")


@dataclass(frozen=True)
class McpServer:
    """One ``[mcp.servers.NAME]`` table: a command to run (stdio) or a URL (streamable HTTP).

    ``trust = "always"`` lets its tools run without the confirmation gate; otherwise only the
    tools the server marks read-only (``readOnlyHint``) do. ``timeout`` bounds each call.
    """

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""
    trust: str = "ask"
    timeout: float = 60.0
    cwd: str = ""

    @property
    def bundle(self) -> str:
        """The bundle its tools form (``/load mcp_git``)."""
        return f"mcp_{self.name}"

    @property
    def prefix(self) -> str:
        """What its tool names start with (``git__status``): never a built-in's, never another server's."""
        return f"{self.name}__"

    def table(self) -> dict[str, Any]:
        """The TOML table that configures it (what ``gaia-lite mcp add`` writes)."""
        out: dict[str, Any] = {"url": self.url} if self.url else {"command": self.command, "args": list(self.args)}
        if self.env:
            out["env"] = dict(self.env)
        if self.cwd:
            out["cwd"] = self.cwd
        if self.trust != "ask":
            out["trust"] = self.trust
        if self.timeout != 60.0:
            out["timeout"] = self.timeout
        return out


def parse_mcp_server(name: str, raw: Any, where: str) -> McpServer:
    """One server table, validated; ConfigError names the key and the fix."""
    import re  # kept local: the only regex in this module

    what = f"{where}: [mcp.servers.{name[:40]}]"
    if len(name) > MCP_NAME_MAX:  # it prefixes every tool name, which the wire caps at 64 characters
        raise ConfigError(f"{what}: the name is {len(name)} characters; at most {MCP_NAME_MAX}, e.g. "
                          f"[mcp.servers.{_mcp_name(name)[:MCP_NAME_MAX].rstrip('_') or 'git'}]")
    if not re.fullmatch(MCP_NAME, name):
        raise ConfigError(f"{what}: the name must be lower-case snake_case (letters, digits, single "
                          f"underscores), e.g. [mcp.servers.{_mcp_name(name) or 'git'}]")
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{what} must be a table with command = \"...\" or url = \"...\"")
    known = {"command", "args", "env", "url", "trust", "timeout", "cwd"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"{what}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    command, url = raw.get("command", ""), raw.get("url", "")
    if not isinstance(command, str) or not isinstance(url, str) or bool(command) == bool(url):
        raise ConfigError(f"{what} needs exactly one of command = \"...\" (a program to run) "
                          "or url = \"http://...\" (a streamable-HTTP server)")
    if url and urlsplit(url).scheme not in ("http", "https"):
        raise ConfigError(f"{what}: url = {url!r} is not an http(s) URL")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"{what}: args must be a list of strings, e.g. args = [\"--repository\", \".\"]")
    env = raw.get("env", {})
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        raise ConfigError(f"{what}: env must be a table of strings, e.g. env = {{ TOKEN = \"...\" }}")
    trust = raw.get("trust", "ask")
    if trust not in MCP_TRUST:
        raise ConfigError(f"{what}: trust = {trust!r} is invalid; expected \"ask\" (confirm tools that "
                          "are not read-only) or \"always\"")
    timeout = raw.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_SECONDS:
        raise ConfigError(f"{what}: timeout = {timeout!r} is invalid; expected seconds > 0, e.g. 60")
    cwd = raw.get("cwd", "")
    if not isinstance(cwd, str):
        raise ConfigError(f"{what}: cwd must be a folder path")
    return McpServer(name, command, tuple(args), tuple(sorted((str(k), v) for k, v in env.items())), url,
                     trust, float(timeout), cwd)


def _mcp_name(raw: str) -> str:
    """The nearest valid server name: ``Brave-Search`` -> ``brave_search``."""
    import re

    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", raw.lower())).strip("_").lstrip("0123456789_")


def parse_mcp_servers(raw: Any, where: str) -> tuple[McpServer, ...]:
    """The ``[mcp]`` table of a config file: ``[mcp.servers.NAME]`` tables, in file order."""
    if not isinstance(raw, Mapping) or set(raw) - {"servers"}:
        raise ConfigError(f"{where}: [mcp] holds only [mcp.servers.NAME] tables")
    servers = raw.get("servers", {})
    if not isinstance(servers, Mapping):
        raise ConfigError(f"{where}: [mcp.servers] holds one table per server, e.g. [mcp.servers.git]")
    return tuple(parse_mcp_server(str(name), table, where) for name, table in servers.items())


@dataclass(frozen=True)
class Settings:
    # server and model
    base_url: str = DEFAULT_BASE_URL
    api_key: str = ""
    model: str = ""  # empty: the first model the server lists
    native_tools: bool | None = None  # None: decided by the capability table
    # text path: constrained (JSON schema), free (parsed from text), auto (constrained if the server can).
    # auto by default: with the tool-first schema ({"tool": <name> | "none", ...}) the 0.5B model calls tools
    # with valid arguments, where the answer-first one made it answer from its head (docs/benchmarks.md)
    tool_calls: str = "auto"
    temperature: float = 0.1
    seed: int | None = None  # the sampler's seed for every request; None: the server picks (replies vary)
    max_tokens: int = 1024
    local_server: bool = True  # start the embedded llama-server when base_url is unreachable
    # seconds the embedded server stays up after its last use, for the next ask/chat (0: stop it on exit)
    keep_alive: float = 300.0
    # dynamic tool loader
    dynamic_tools: bool = True  # the loader; off for the gaia preset unless set (GAIA defaults to off)
    preset: str = "default"  # the loader preset
    tau: float | None = None  # None: the preset's threshold
    max_tools: int | None = None  # None: the preset's cap
    prompt_layout: str = "auto"  # stable: keep the KV-cache prefix; rewrite: GAIA's; auto: see loader.presets.layout_for
    skill_tau: float = 0.70  # learned procedures recalled at cosine >= this (calibrated for MiniLM: docs/skills.md)
    # embedder
    embedder: str = "onnx"  # onnx (in process) | http (Lemonade /embeddings)
    embed_model: str = ""  # empty: all-MiniLM-L6-v2 (onnx) or user.embeddinggemma-300m-GGUF (http)
    embed_dim: int | None = None  # None: the model's known dimension
    embed_query_prefix: str | None = None  # None: the model card's prefix, if any
    embed_document_prefix: str | None = None
    embed_base_url: str = ""  # http embedder; empty: base_url
    vision_model: str = ""  # empty: the chat model
    # agent
    memory_disabled: bool = False
    max_steps: int = 50
    context_tokens: int | None = None  # the model's context window; None: ask the server (llama-server /props)
    tool_timeout: float = 180.0
    first_byte_timeout: float = 300.0  # seconds the model server may stay silent: a busy 2-core CPU needs minutes for a long prompt
    auto_approve: bool = False
    allowed_paths: tuple[str, ...] = ()
    judge_skip: tuple[str, ...] = ()  # the judge's guards turned off, by name: to measure what each one earns
    held_calls: bool = True  # a plain request about one file the message names holds the first reply to its call
    # MCP servers ([mcp.servers.NAME] tables); GAIA_MCP=0 turns them all off for one run
    mcp_enabled: bool = True
    mcp_wait: float = 3.0  # seconds the first turn waits for servers still starting; later ones join a later turn
    mcp_servers: tuple[McpServer, ...] = ()
    paths: Paths = field(default_factory=lambda: Paths.resolve(os.environ), compare=False)

    def replace(self, **changes: Any) -> "Settings":
        return dataclasses.replace(self, **changes)


# --- value parsers: each returns the parsed value or raises ValueError(accepted) ---

def _parse_bool(raw: str) -> bool:
    v = raw.strip().lower()
    if v in TRUTHY:
        return True
    if v in FALSY:
        return False
    raise ValueError("1/0, true/false, yes/no or on/off")


def _parse_loose_bool(raw: str) -> bool:
    """GAIA_DYNAMIC_TOOLS semantics: 1/true/yes/on turn it on, anything else is off."""
    return raw.strip().lower() in TRUTHY


def _parse_tau(raw: str) -> float:
    try:
        v = float(raw)
    except ValueError:
        raise ValueError("a number between -1 and 1, e.g. 0.2") from None
    if not -1.0 <= v <= 1.0 or v != v:
        raise ValueError("a number between -1 and 1, e.g. 0.2")
    return v


def _int_at_least(raw: str, minimum: int, accepted: str) -> int:
    try:
        v = int(raw.strip())
    except ValueError:
        raise ValueError(accepted) from None
    if v < minimum:
        raise ValueError(accepted)
    return v


def _parse_max_tools(raw: str) -> int:
    return _int_at_least(raw, CORE_SIZE, f"a whole number >= {CORE_SIZE} (the CORE size)")


def _parse_positive_int(raw: str) -> int:
    return _int_at_least(raw, 1, "a whole number >= 1")


def _parse_seed(raw: str) -> int:
    return _int_at_least(raw, 0, "a whole number >= 0, e.g. 42")


def _parse_positive_float(raw: str) -> float:
    try:
        v = float(raw)
    except ValueError:
        raise ValueError("a number of seconds > 0, e.g. 180") from None
    if not 0 < v <= MAX_SECONDS:  # also refuses inf and nan (threads cannot wait that long)
        raise ValueError(f"a number of seconds > 0 and <= {MAX_SECONDS}, e.g. 180")
    return v


def _parse_keep_alive(raw: str) -> float:
    try:
        v = float(raw)
    except ValueError:
        raise ValueError("a number of seconds >= 0, e.g. 300 (0 stops the embedded server when gaia-lite exits)") from None
    if not 0 <= v <= MAX_SECONDS:  # also refuses inf and nan
        raise ValueError(f"a number of seconds >= 0 and <= {MAX_SECONDS:g}, e.g. 300 (0: stop it on exit)")
    return v


def normalize_base_url(raw: str) -> str:
    """Validate a server URL and append ``/api/v1`` when the path is missing."""
    value = raw.strip()
    example = "an http(s) URL such as http://localhost:13305/api/v1"
    if any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError(f"{example}, without spaces or control characters")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a port that is not a number in 0-65535
    except ValueError as exc:
        raise ValueError(f"{example} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.netloc or not parts.hostname:
        raise ValueError(example)
    path = parts.path.rstrip("/")
    if not path:
        path = "/api/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _parse_url(raw: str) -> str:
    return normalize_base_url(raw)


def _parse_str(raw: str) -> str:
    return raw


def _parse_api_key(raw: str) -> str:
    if not all(" " < c < "\x7f" for c in raw):  # it goes into an HTTP header
        raise ValueError("printable ASCII without spaces (HTTP headers cannot carry other characters)")
    return raw


def _one_of(*choices: str, explain: str = "") -> Callable[[str], str]:
    """A parser for a setting that takes one of a few words, case-insensitively."""
    message = explain or (", ".join(choices[:-1]) + " or " + choices[-1])

    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in choices:
            raise ValueError(message)
        return value

    return parse


_parse_embedder = _one_of("onnx", "http", explain="onnx (in-process MiniLM) or http (the server's /embeddings)")
_parse_preset = _one_of("default", "lean", "examples", "gaia")
_parse_layout = _one_of("auto", "stable", "rewrite", "append")
_parse_tool_calls = _one_of(
    "auto", "constrained", "free",
    explain="auto (constrained when the server supports it), constrained or free",
)


def _parse_ctx(raw: str) -> int | None:
    return None if raw.strip() == "" else _int_at_least(raw, 1024, "a whole number of tokens >= 1024")


def _parse_opt_int(raw: str) -> int | None:
    return None if raw.strip() == "" else _parse_positive_int(raw)


def _parse_paths(raw: str) -> tuple[str, ...]:
    return tuple(p for p in raw.split(os.pathsep) if p)


def _parse_names(raw: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in raw.split(",") if n.strip())


# field -> (env var or None, parser). A field's name is also its config-file key and, where it has
# one, its flag (--max-tools); the env vars keep the names GAIA and Lemonade users already set.
_FIELDS: dict[str, tuple[str | None, Callable[[str], Any]]] = {
    "base_url": ("LEMONADE_BASE_URL", _parse_url),
    "api_key": ("LEMONADE_API_KEY", _parse_api_key),
    "model": ("GAIA_MODEL", _parse_str),
    "native_tools": ("GAIA_NATIVE_TOOLS", _parse_bool),
    "tool_calls": ("GAIA_TOOL_CALLS", _parse_tool_calls),
    "temperature": (None, float),
    "seed": (None, _parse_seed),
    "max_tokens": (None, _parse_positive_int),
    "local_server": ("GAIA_AUTO_START_SERVER", _parse_bool),
    "keep_alive": ("GAIA_KEEP_ALIVE", _parse_keep_alive),
    "dynamic_tools": ("GAIA_DYNAMIC_TOOLS", _parse_loose_bool),
    "preset": ("GAIA_DYNAMIC_TOOLS_PRESET", _parse_preset),
    "tau": ("GAIA_DYNAMIC_TOOLS_TAU", _parse_tau),
    "max_tools": ("GAIA_DYNAMIC_TOOLS_MAX", _parse_max_tools),
    "prompt_layout": ("GAIA_PROMPT_LAYOUT", _parse_layout),
    "skill_tau": ("GAIA_SKILL_TAU", _parse_tau),
    "embedder": ("GAIA_EMBEDDER", _parse_embedder),
    "embed_model": ("GAIA_EMBED_MODEL", _parse_str),
    "embed_dim": ("GAIA_EMBED_DIM", _parse_opt_int),
    "embed_query_prefix": ("GAIA_EMBED_QUERY_PREFIX", _parse_str),
    "embed_document_prefix": ("GAIA_EMBED_DOCUMENT_PREFIX", _parse_str),
    "embed_base_url": ("GAIA_EMBED_BASE_URL", _parse_url),
    "vision_model": ("GAIA_VISION_MODEL", _parse_str),
    "memory_disabled": ("GAIA_MEMORY_DISABLED", _parse_bool),
    "max_steps": ("GAIA_AGENT_MAX_STEPS", _parse_positive_int),
    "context_tokens": ("GAIA_CTX_SIZE", _parse_ctx),
    "tool_timeout": ("GAIA_AGENT_TOOL_TIMEOUT", _parse_positive_float),
    "first_byte_timeout": ("GAIA_FIRST_BYTE_TIMEOUT", _parse_positive_float),
    "auto_approve": ("GAIA_AUTO_APPROVE_TOOLS", _parse_bool),
    "allowed_paths": ("GAIA_ALLOWED_PATHS", _parse_paths),
    "judge_skip": ("GAIA_JUDGE_SKIP", _parse_names),
    "held_calls": ("GAIA_HELD_CALLS", _parse_bool),
    "mcp_enabled": ("GAIA_MCP", _parse_bool),
    "mcp_wait": ("GAIA_MCP_WAIT", _parse_positive_float),
}

ENV_VARS: tuple[str, ...] = tuple(env for env, _ in _FIELDS.values() if env)
_OLD_KEYS = {"loader_preset": "preset", "auto_start_server": "local_server"}  # config keys before the rename


MAX_CONFIG_BYTES = 1 << 20  # a config file is a few hundred bytes; one this big is not a config file
MAX_CONFIG_DEPTH = 32       # tables and arrays nested deeper than this are refused before parsing
# TOML strings and comments, whose brackets do not nest anything
_TOML_INERT = "|".join((r'"""[\s\S]*?"""', r"'''[\s\S]*?'''", r'"(?:[^"\\\n]|\\.)*"', r"'[^'\n]*'", r"#[^\n]*"))


def _toml_depth_exceeds(text: str, limit: int = MAX_CONFIG_DEPTH) -> bool:
    """Are arrays, inline tables or dotted keys (``a.b.c``) nested deeper than ``limit``? Counted
    outside strings and comments, before tomllib (which recurses once per level, and slows down on
    long dotted keys) sees the text."""
    brackets, dots = text.count("[") + text.count("{"), text.count(".")
    if brackets <= limit and dots < limit:  # the normal path
        return False
    import re  # kept local, as in parse_mcp_server

    bare = re.sub(_TOML_INERT, "", text)
    if dots >= limit:  # a key or table header with ``limit`` dots (values such as 1.5 are not keys)
        for line in bare.splitlines():
            key = line.split("=", 1)[0]
            if key.count(".") >= limit and re.fullmatch(r"[ \t]*\[{0,2}[A-Za-z0-9_. \t-]*\]{0,2}[ \t]*", key):
                return True
    depth = 0
    for ch in bare:
        if ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth = max(0, depth - 1)
    return False


def _read_toml(path: Path) -> dict[str, Any]:
    """The config file parsed, within a size and a nesting limit; ConfigError says what to fix."""
    fix = "fix or delete it"
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {path} is over {MAX_CONFIG_BYTES // 2**20} MB; {fix}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML ({exc}); {fix}") from None
    too_deep = ConfigError(f"config file {path} nests arrays, tables or dotted keys more than {MAX_CONFIG_DEPTH} "
                           f"deep; {fix}")
    if _toml_depth_exceeds(text):
        raise too_deep
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML ({exc}); {fix}") from None
    except RecursionError:  # a nesting the count above did not see (dotted keys): the same answer
        raise too_deep from None


def _from_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = _read_toml(path)
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "mcp":  # [mcp.servers.NAME] tables, not a single setting
            out["mcp_servers"] = parse_mcp_servers(value, f"config file {path}")
            continue
        try:
            key = setting_name(key)
        except ConfigError as exc:
            raise ConfigError(f"config file {path}: {exc}") from None
        parser = _FIELDS[key][1]
        if key == "allowed_paths" and isinstance(value, list):
            out[key] = tuple(str(v) for v in value)
            continue
        raw = str(value).lower() if isinstance(value, bool) else str(value)
        try:
            out[key] = parser(raw)
        except ValueError as exc:
            raise ConfigError(f"config file {path}: {key} = {value!r} is invalid; expected {exc}") from None
    return out


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, (var, parser) in _FIELDS.items():
        if var is None or var not in env:
            continue
        raw = env[var]
        try:
            out[key] = parser(raw)
        except ValueError as exc:
            shown = "(hidden)" if key == "api_key" else repr(raw)  # never echo a secret
            raise ConfigError(f"{var}={shown} is invalid; expected {exc}") from None
    return out


def load_settings(cli: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Resolve Settings. ``cli`` holds only the flags the user actually passed
    (None values are ignored), already typed by the CLI parser."""
    env = os.environ if env is None else env
    paths = Paths.resolve(env)
    values: dict[str, Any] = {}
    values.update(_from_file(paths.config_file))
    values.update(_from_env(env))
    for key, value in (cli or {}).items():
        if value is None:
            continue
        if key not in _FIELDS:
            raise KeyError(f"unknown setting {key}")
        if key in ("base_url", "preset", "tool_calls"):  # the flags typer hands over as plain strings
            try:
                value = _FIELDS[key][1](value)
            except ValueError as exc:
                raise ConfigError(f"--{key.replace('_', '-')} {value!r} is invalid; expected {exc}") from None
        values[key] = value
    if "dynamic_tools" not in values and values.get("preset") == "gaia":
        values["dynamic_tools"] = False  # the gaia preset reproduces GAIA, whose loader is off by default
    if "held_calls" not in values and values.get("preset") == "gaia":
        values["held_calls"] = False  # GAIA's agent picks its own first call
    if values.get("max_tools") is not None and values["max_tools"] < CORE_SIZE:
        raise ConfigError(f"--max-tools {values['max_tools']} is invalid; expected a whole number >= {CORE_SIZE} (the CORE size)")
    return Settings(paths=paths, **values)


# --- provenance and single-setting access (``gaia-lite config``), on top of the resolution above ---

# The settings' names, from the one table above: config key, flag (where there is one) and, through
# setting_env_var, env var.
SETTING_NAMES: tuple[str, ...] = tuple(_FIELDS)


def setting_name(key: str) -> str:
    """The setting ``key`` names: its own name, or the new name of a config key of earlier versions
    (``loader_preset`` is ``preset``). ConfigError for an unknown key."""
    name = _OLD_KEYS.get(key, key)
    if name not in _FIELDS:
        raise ConfigError(f"unknown setting {key!r}; known: {', '.join(sorted(_FIELDS))}")
    return name


def old_setting_keys(name: str) -> tuple[str, ...]:
    """The config keys earlier versions wrote for setting ``name`` (still read, never written)."""
    return tuple(old for old, new in _OLD_KEYS.items() if new == name)


def setting_env_var(key: str) -> str | None:
    """The environment variable of a setting, or None when it has none."""
    return _FIELDS[setting_name(key)][0]


def parse_setting(key: str, raw: str) -> Any:
    """Parse one setting's text as the config file and env vars are parsed (ConfigError if invalid)."""
    name = setting_name(key)
    try:
        return _FIELDS[name][1](raw)
    except ValueError as exc:
        raise ConfigError(f"{name} = {raw!r} is invalid; expected {exc}") from None


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings a config file sets, by name, validated as at start-up ({} when it does not exist)."""
    return _from_file(path)


def setting_sources(cli: Mapping[str, Any] | None = None,
                    env: Mapping[str, str] | None = None) -> tuple[Settings, dict[str, str]]:
    """``load_settings(cli, env)`` plus where each value came from: flag, env, file or default."""
    env = os.environ if env is None else env
    settings = load_settings(cli, env)  # validates exactly as start-up does
    sources = {key: "default" for key in _FIELDS}
    sources.update({key: "file" for key in _from_file(settings.paths.config_file)})
    sources.update({key: "env" for key in _from_env(env)})
    sources.update({key: "flag" for key, value in (cli or {}).items() if value is not None})
    return settings, sources
