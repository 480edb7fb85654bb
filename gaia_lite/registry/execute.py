"""``execute_tool``: run a named tool against the FULL registry.

The loader only narrows what the *prompt* shows. A model that names a tool it
was not shown still gets it run here ("free recovery"); the ``on_invoke`` hook
lets the loader count that as an escape hatch.

Order of operations: unwrap a ``call_tool`` bridge call into the direct call it
stands for (registry/bridge.py), normalise the name, resolve it, validate and
coerce the arguments, ask the confirmation gate for side-effecting tools, call the hook,
run with a timeout. Every outcome is a ``ToolResult``; a failure's payload is a
dict with ``status: "error"`` so the model can repair its call in one step.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Callable

from gaia_lite.events import ToolsLoaded

from .bridge import unwrap
from .context import CallCancel, ToolContext, ToolReply
from .failure import ToolFailure, error_payload
from .paths import repair_path_arguments
from .redact import asked_kinds, redact_payload
from .registry import ToolRegistry
from .spec import ParamSpec, Redirect, ToolSpec

__all__ = ["ToolExecutor", "ToolResult", "ToolStatus", "Decision", "Approver", "resolve_name", "validate_arguments",
           "short_repr", "one_line_error", "MAX_ERROR_CHARS"]


class Decision(str, Enum):
    ALLOW = "allow"
    DENY = "deny"
    ALWAYS = "always"


Approver = Callable[[ToolSpec, dict[str, Any]], Decision]


class ToolStatus(str, Enum):
    """How a call ended, as the loop needs to know it (the tool's own ``status`` stays in the payload)."""

    OK = "ok"              # the tool ran and did not report an error
    ERROR = "error"        # the tool reported an error, or raised
    INVALID = "invalid"    # unknown tool or arguments that do not fit: it never ran
    REFUSED = "refused"    # refused before running: its precheck (the shell policy) or the loop's repeat guard
    DENIED = "denied"      # the user did not approve it
    TIMEOUT = "timeout"    # it did not finish in time; its cancel flag was set


@dataclass(frozen=True)
class ToolResult:
    """One executed (or refused) call. ``payload`` is what the model gets back, as JSON."""

    requested: str
    name: str | None  # the resolved registry name, None when unresolved
    arguments: dict[str, Any]
    payload: dict[str, Any]
    status: ToolStatus
    duration_s: float
    invoked: bool = False  # the on_invoke hook saw this call (the loader counted it)
    loaded: ToolsLoaded | None = None  # load_tools added tools to the prompt

    @property
    def ok(self) -> bool:
        return self.status is ToolStatus.OK

    @property
    def shown_status(self) -> str:
        """The status word the tool itself reported ("success", "found", "error", ...)."""
        return str(self.payload.get("status", "success"))


def normalize_name(raw: str) -> str:
    name = raw.strip().strip("`'\"")
    if name.endswith("()"):
        name = name[:-2]
    return name.replace("-", "_").strip()


def resolve_name(raw: str, registry: ToolRegistry) -> tuple[str | None, str | None]:
    """(resolved name, None) or (None, error message listing candidates)."""
    name = normalize_name(raw)
    if not name:
        return None, "Tool name is missing. Name one of the tools listed in AVAILABLE TOOLS."
    if name in registry:
        return name, None
    lower = name.lower()
    exact = [n for n in registry.names() if n.lower() == lower]
    if len(exact) == 1:
        return exact[0], None
    suffix = [n for n in registry.names() if n.lower().endswith("_" + lower)]
    if len(suffix) == 1:
        return suffix[0], None
    prefix = sorted(n for n in registry.names() if n.lower().startswith(lower + "_"))[:10]
    candidates = sorted(set(prefix) | set(suffix))[:10]
    if len(candidates) >= 2:
        return None, f"Tool name '{name}' is ambiguous or incomplete. Use exactly one of: {', '.join(candidates)}."
    if candidates:
        return None, f"Unknown tool '{name}'. Did you mean: {candidates[0]}?"
    return None, f"Unknown tool '{name}'. Use only tools listed in AVAILABLE TOOLS."


_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _coerce(p: ParamSpec, value: Any) -> Any:
    """Coerce one argument to its JSON type; raise ValueError with a short reason."""
    if value is None:
        if p.nullable or not p.required:
            return None
        raise ValueError("must not be null")
    _check_text(value)
    coerce = _COERCERS.get(p.json_type)
    return coerce(p, value) if coerce is not None else value


def _check_text(value: Any) -> None:
    """Refuse a string (or a list's string) that cannot be UTF-8: JSON lets a model write a lone surrogate
    ("\\ud800"), and every file name, SQLite query and subprocess after this would fail on it with an
    exception instead of a sentence."""
    for text in (value if isinstance(value, list) else [value]):
        if isinstance(text, str):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError(f"holds {text[exc.start]!r}, a lone surrogate that is not text; "
                                 "send plain UTF-8 text") from None


def _to_string(p: ParamSpec, value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        value = ", ".join(str(v) for v in value)  # models often send ["a", "b"] for "a, b"
    if isinstance(value, (dict, list)):
        raise ValueError("expected a string")
    value = str(value)
    if p.enum and value not in p.enum:
        folded = {e.lower(): e for e in p.enum}.get(value.strip().lower())  # "Summary" means summary
        if folded is None:
            raise ValueError(f"must be one of {', '.join(p.enum)}")
        value = folded
    return value


def _to_boolean(p: ParamSpec, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError("expected true or false")


def _to_integer(p: ParamSpec, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            f = float(value.strip())
        except ValueError:
            raise ValueError("expected a whole number") from None
        if f.is_integer():
            return int(f)
    raise ValueError("expected a whole number")


def _to_number(p: ParamSpec, value: Any) -> int | float:
    if isinstance(value, bool):
        raise ValueError("expected a number")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise ValueError("expected a number")


def _to_array(p: ParamSpec, value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(parsed, list):
            return parsed
    raise ValueError("expected a list")


def _to_object(p: ParamSpec, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    raise ValueError("expected an object")


_COERCERS: dict[str, Callable[[ParamSpec, Any], Any]] = {
    "string": _to_string, "boolean": _to_boolean, "integer": _to_integer, "number": _to_number,
    "array": _to_array, "object": _to_object,
}


def validate_arguments(spec: ToolSpec, args: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(coerced kwargs, None) or (None, an error that names the problem and shows the signature)."""
    expected = f"Expected: {spec.signature_text()}"
    args = _short_names_read(spec, args)
    unknown = [k for k in args if k not in spec.param_names]
    if unknown:
        return None, (f"{spec.name}: unknown argument(s) {', '.join(repr(u) for u in unknown)}. {expected}")
    missing = [p for p in spec.required if p not in args]
    if missing:
        return None, f"{spec.name}: missing required argument(s) {', '.join(repr(m) for m in missing)}. {expected}"
    out: dict[str, Any] = {}
    for p in spec.params:
        if p.name not in args:
            continue
        if args[p.name] is None and not p.required and not p.nullable:
            continue  # null for a parameter with a default (remember's domain="") means "not given": the default holds
        try:
            out[p.name] = _coerce(p, args[p.name])
        except ValueError as exc:
            return None, f"{spec.name}: argument {p.name!r}={short_repr(args[p.name])} is invalid ({exc}). {expected}"
        if isinstance(out[p.name], str) and len(out[p.name]) > MAX_NAME_CHARS and p.name not in LONG_TEXT \
                and spec.schema is None:   # an MCP server's tool keeps its own schema, and its own bounds
            return None, (f"{spec.name}: argument {p.name!r} is {len(out[p.name]):,} characters; the limit is "
                          f"{MAX_NAME_CHARS:,} for a name, path, pattern or query: send a shorter one")
    return out, None


# A name, path, pattern, query, id or date longer than this is refused before a tool runs: found by the hostile
# sweep, a megabyte of it was searched for and echoed back whole in a successful result, into the model's context
MAX_NAME_CHARS = 4096
# the built-in tools' parameters whose text is written, stored, run or shown, and may be long: each tool bounds its own
LONG_TEXT = frozenset({"content", "old_content", "new_content", "text", "fact", "command", "retrieved_info",
                       "message", "default_if_no_response"})


MAX_ERROR_CHARS = 500


def one_line_error(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with its ``error`` on one line of at most MAX_ERROR_CHARS, cut in the middle: a tool's
    message can quote what the model sent ("Unknown bundle '<a megabyte>'", a name with newlines in it),
    and the model needs what is wrong (the start) and how to fix it (the end), not the echo."""
    error = payload.get("error")
    if not isinstance(error, str):
        return payload
    line = " ".join(error.split())
    if len(line) > MAX_ERROR_CHARS:
        line = f"{line[:300]} ... {line[-(MAX_ERROR_CHARS - 305):]}"
    return payload if line == error else {**payload, "error": line}


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters: an error names the bad value, it does not
    echo a megabyte of it back into the model's context."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _short_names_read(spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with each unknown name that is one part of exactly one parameter not given read as that parameter:
    ``path`` as ``directory_path``, ``pattern`` as ``file_pattern``. A server without a grammar lets a model write
    the short name, and the error and a second call cost a step. A name two parameters end or start with
    (``content`` for ``old_content`` and ``new_content``) stays unknown."""
    out = dict(args)
    for name in [k for k in args if k not in spec.param_names]:
        fits = [p for p in spec.param_names if p not in out and (p.endswith("_" + name) or p.startswith(name + "_"))]
        if not fits and name in _PLACES:
            # "path" for search_file_content's directory: the 1.5B's grep of "src" failed on it (probe55)
            fits = [p for p in spec.param_names if p not in out and p in _PLACES]
        if len(fits) == 1:
            out[fits[0]] = out.pop(name)
    return out


_PLACES = frozenset({"path", "file_path", "directory", "directory_path", "folder", "folder_path", "dir"})


def _suggest_tools(spec: ToolSpec, args: dict[str, Any], registry: ToolRegistry) -> str:
    """When the arguments fit another tool better, say so: small models often
    pick a tool by name and pass the arguments of the one they meant."""
    unknown = [k for k in args if k not in spec.param_names]
    if not unknown:
        return ""
    fits = [s.signature_text() for s in registry
            if s.name != spec.name and all(k in s.param_names for k in unknown)]
    if not fits:
        return ""
    return f" Tools that take {', '.join(repr(k) for k in unknown)}: {'; '.join(fits[:3])}."


class ToolExecutor:
    def __init__(self, registry: ToolRegistry, ctx: ToolContext, *,
                 approve: Approver | None = None,
                 on_invoke: Callable[[str], None] | None = None,
                 default_timeout: float = 180.0) -> None:
        self.registry = registry
        self.ctx = ctx
        self.approve = approve or (lambda spec, args: Decision.DENY)
        self.on_invoke = on_invoke
        self.default_timeout = default_timeout
        self._always: set[str] = set()

    def execute(self, requested: str, arguments: dict[str, Any] | None) -> ToolResult:
        start = time.perf_counter()
        direct = unwrap(requested, arguments)  # a bridged call is checked and run exactly as a direct one
        requested, args = direct.name, direct.arguments

        def done(name: str | None, status: ToolStatus, payload: dict[str, Any], used: dict[str, Any] = args,
                 invoked: bool = False, loaded: ToolsLoaded | None = None) -> ToolResult:
            return ToolResult(requested, name, used, one_line_error(payload), status, time.perf_counter() - start,
                              invoked, loaded)

        if direct.error is not None:
            return done(None, ToolStatus.INVALID, error_payload(direct.error))
        name, error = resolve_name(requested, self.registry)
        if name is None:
            return done(None, ToolStatus.INVALID, error_payload(error or ""))
        spec = self.registry[name]
        kwargs, error = validate_arguments(spec, args)
        if kwargs is None:
            # The model did reach for this tool: GAIA's hook runs before argument checks, so a
            # badly-argued call to an unlisted tool is still an escape hatch (and counts as use).
            if self.on_invoke is not None:
                self.on_invoke(name)
            return done(name, ToolStatus.INVALID,
                        error_payload((error or "") + _suggest_tools(spec, args, self.registry)),
                        invoked=self.on_invoke is not None)
        meant = self._meant(spec, kwargs)
        if meant is not None:
            return meant
        # before the pre-check and approval: both judge (and the user sees) the path that will be used
        kwargs = self._repair_paths(spec, kwargs)
        precheck = getattr(spec.fn, "precheck", None)
        if callable(precheck):
            try:
                refusal = precheck(self.ctx, **kwargs)
            except ToolFailure as exc:
                refusal = exc.message
            except Exception as exc:  # a pre-check is tool code: it must fail as data too
                refusal = f"{name} failed: {type(exc).__name__}: {exc}"
            if refusal:
                return done(name, ToolStatus.REFUSED, error_payload(refusal), kwargs)
        if spec.gated and name not in self._always:
            decision = self.approve(spec, kwargs)
            if decision == Decision.ALWAYS:
                self._always.add(name)
            elif decision != Decision.ALLOW:
                return done(name, ToolStatus.DENIED, {
                    "status": "denied",
                    "error": f"The user did not approve {name}. Do not retry; ask the user or answer without it."},
                    kwargs)
        if self.on_invoke is not None:
            self.on_invoke(name)
        status, reply = self._run(spec, kwargs)
        # every tool's output, MCP's too: secrets by shape (redact.py), but for a password the user asks for
        payload = redact_payload(reply.payload, asked_kinds(self.ctx.request.message))
        return done(name, status, payload, kwargs, invoked=self.on_invoke is not None, loaded=reply.loaded)

    def _meant(self, spec: ToolSpec, kwargs: dict[str, Any]) -> ToolResult | None:
        """The call a tool says this one stands for, run in its place (its own checks and approval apply),
        or None. A look-alike picked with the right arguments: the 1.5B asked to "turn off debug in
        config/app.yaml" called update_memory with the file as its id and "debug: false" as the content."""
        redirect = getattr(spec.fn, "redirect", None)
        try:
            target: Redirect | None = redirect(self.ctx, **kwargs) if callable(redirect) else None
        except Exception:  # tool code, only a guess at a better call: when it breaks, the call runs as asked
            return None
        # the same tool again only with other arguments (write_file to the file the request names): its own
        # redirect then finds nothing more to change
        if target is None or target.name not in self.registry or \
                (target.name == spec.name and target.arguments == kwargs):
            return None
        result = self.execute(target.name, target.arguments)
        if not result.ok and not target.stands:  # the stand-in failed too: the model hears about the tool it called
            return None
        payload = {**result.payload, "note": target.reason}
        return dataclasses.replace(result, requested=spec.name, payload=payload)

    def _repair_paths(self, spec: ToolSpec, kwargs: dict[str, Any]) -> dict[str, Any]:
        guard = self.ctx.sandbox
        if guard is None or self.ctx.workdir is None:  # a bare context (tests, tool-only use)
            return kwargs
        allowed = (*getattr(guard, "roots", ()), *getattr(guard, "approved", ()))
        return repair_path_arguments(spec, kwargs, Path(self.ctx.workdir), allowed)

    def _run(self, spec: ToolSpec, kwargs: dict[str, Any]) -> tuple[ToolStatus, ToolReply]:
        timeout = spec.timeout or self.default_timeout
        box: dict[str, Any] = {}
        cancel = CallCancel(self.ctx.cancel)
        ctx = dataclasses.replace(self.ctx, cancel=cancel)  # this call's own cancel flag

        def target() -> None:
            try:
                box["result"] = spec.fn(ctx, **kwargs) if spec.takes_context else spec.fn(**kwargs)
            except Exception as exc:  # a buggy tool must never kill the loop
                box["error"] = exc

        # A daemon thread: a tool that hangs past its timeout cannot block exit.
        worker = threading.Thread(target=target, name=f"tool:{spec.name}", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            cancel.set()  # timeouts are cooperative: the model stream and long tools stop at their next check
            return ToolStatus.TIMEOUT, ToolReply({"status": "error", "timeout": True,
                                                  "error": f"{spec.name} did not finish within {timeout:g}s. "
                                                           "Try a narrower request."})
        if "error" in box:
            exc = box["error"]
            if isinstance(exc, ToolFailure):  # the tool's own words, passed through as they are
                return ToolStatus.ERROR, ToolReply(exc.payload())
            return ToolStatus.ERROR, ToolReply(error_payload(f"{spec.name} failed: {type(exc).__name__}: {exc}"))
        result = box.get("result")
        if isinstance(result, ToolReply):
            reply = result
        else:
            reply = ToolReply(result if isinstance(result, dict) else {"status": "success", "result": result})
        return (ToolStatus.ERROR if reply.payload.get("status") == "error" else ToolStatus.OK), reply

