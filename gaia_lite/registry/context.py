"""What a tool may touch: the ToolContext and the ports it exposes.

Tools import only the registry package (this module, ``ports``, ``limits``,
``spec``) and third-party libraries. They never import the agent, the UI or
the loader; the composition root (``cli``) builds the concrete services and
hands them over here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from gaia_lite.events import ToolsLoaded

from .limits import Once, RateLimiter
from .ports import DocumentIndexPort, MemoryPort, ProgressFn

__all__ = ["ToolContext", "PathGuard", "LLMPort", "EmbedderPort", "AskUser", "CallCancel", "LoopDirective",
           "LoopState", "TurnRequest", "MemoryPort", "DocumentIndexPort", "LoaderPort", "ToolReply", "no_user"]


class PathGuard(Protocol):
    """The sandbox. ``check`` resolves symlinks and ``..`` and raises
    ``SandboxError`` (a PermissionError) with a one-line reason when refused."""

    roots: Sequence[Path]

    @property
    def approved(self) -> Sequence[Path]:
        """Folders outside the roots the user approved this session."""
        ...

    def check(self, path: str | Path, *, write: bool = False) -> Path: ...


class LLMPort(Protocol):
    """The chat model, for tools that need it (summaries, vision). Pass ``cancel=ctx.cancel`` so a
    call the executor gave up on stops streaming instead of running on in the background."""

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int = 512,
                 cancel: threading.Event | None = None) -> str: ...

    def describe_image(self, data_url: str, question: str, *, max_tokens: int = 512,
                       cancel: threading.Event | None = None) -> str: ...


class EmbedderPort(Protocol):
    id: str

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...


class LoaderPort(Protocol):
    """The dynamic tool loader, as ``load_tools`` uses it: add a bundle (or the bundles of a tool)
    to what the prompt shows. Returns what was loaded, or a one-line reason it was not."""

    def load_bundle(self, bundle: str) -> ToolsLoaded | str: ...


@dataclass(frozen=True)
class ToolReply:
    """What a tool returns when it has more to report than its payload: ``load_tools`` hands back
    the ``ToolsLoaded`` outcome, which the executor passes on in the ToolResult."""

    payload: dict[str, Any]
    loaded: ToolsLoaded | None = None


class AskUser(Protocol):
    """Ask the person at the terminal; None = no answer (nobody there, or ``timeout`` seconds passed)."""

    def __call__(self, message: str, choices: Sequence[str] | None = None, *,
                 timeout: float | None = None) -> str | None: ...


class CallCancel(threading.Event):
    """One tool call's cancel flag: the executor sets it when the call runs out of time, and it
    also reads as set while the turn's flag is (Ctrl-C). Tools and the client only call ``is_set()``."""

    def __init__(self, turn: threading.Event) -> None:
        super().__init__()
        self._turn = turn

    def is_set(self) -> bool:
        return super().is_set() or self._turn.is_set()


def no_user(message: str, choices: Sequence[str] | None = None, *, timeout: float | None = None) -> str | None:
    """Nobody to ask (``ask --json``, tests): every question goes unanswered."""
    return None


@dataclass(frozen=True)
class LoopDirective:
    """What ``set_loop_state`` asked the autonomous loop to do next."""

    state: str  # idle | scheduled | paused
    reason: str
    wake_in_seconds: int
    wake_at: float | None  # epoch seconds, for scheduled


@dataclass
class LoopState:
    directive: LoopDirective | None = None  # None until set_loop_state is called


@dataclass
class TurnRequest:
    """The user's message of the turn in progress, set by the agent at the start of each turn. A tool
    reads it to find what the model's arguments dropped: a small model asks query_documents "how many
    days in advance?" for "According to policies/travel-policy.md, how many days in advance ...?"."""

    message: str = ""
    # the conversation before it, the user's messages and the answers: what a follow-up ("and beans?") points back to
    earlier: str = ""
    # the user's messages before it alone: what the user said, where an answer may have echoed a tool's wrong guess
    asked_before: str = ""


@dataclass
class ToolContext:
    """Per-agent services for tools, and the state tool families keep between calls (the loop
    directive, the shell rate limit and its sandbox notice). Nothing here is shared between agents.
    The executor gives each call a copy with that call's own ``cancel`` flag, so tools never rebind
    fields: they call the services and update the state objects."""

    workdir: Path
    sandbox: PathGuard
    data_dir: Path
    memory: MemoryPort | None = None  # None: memory is disabled
    rag: DocumentIndexPort | None = None
    llm: LLMPort | None = None
    embedder: EmbedderPort | None = None
    loader: LoaderPort | None = None  # None: no loader configured (load_tools is not registered then)
    ask_user: AskUser = no_user
    cancel: threading.Event = field(default_factory=threading.Event)  # set: stop (Ctrl-C, or the call timed out)
    progress: ProgressFn | None = None  # (label, done, total) for long work
    loop: LoopState = field(default_factory=LoopState)
    request: TurnRequest = field(default_factory=TurnRequest)  # "" outside a turn of the agent
    shell_limiter: RateLimiter = field(default_factory=RateLimiter)
    shell_notice: Once = field(default_factory=Once)  # "no kernel sandbox here", said once per session
    watch_interval_s: float = 5.0  # seconds between scans of a watched folder (tests shorten it)
