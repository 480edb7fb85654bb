"""Worked examples: a request and the one call that serves it, shown to the model beside the tools.

A small model copies a nearby example far better than it follows a tool's description: with eleven
look-alike search tools, content search went unchosen however its docstring was worded, and a request to
change one setting in a file went to ``update_memory``. Each turn the loader retrieves the few examples
whose requests are closest to the user's message (MiniLM cosine, the embedder the loader already has)
and admits their tools; the agent shows them in the user's message, after the cached prompt prefix.

The bank ships with the product (``bundles/<profile>_worked.toml``, written from each tool's purpose,
never from a task suite) and grows from the user's own successful turns (``skills/learning.py``: the
message of a turn and the call that served it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Iterable, Mapping

import numpy as np

from gaia_lite.embed.base import Embedder

from .cache import DocEmbeddingCache
from .scoring import embed_cached

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["WorkedExample", "WorkedPick", "WorkedBank", "load_worked", "parse_worked", "call_json", "NO_TOOL",
           "with_learned", "WORKING_FOLDER"]

NO_TOOL = "none"  # an anchor for a request that needs no tool: the closest one means no example

MAX_REQUEST_CHARS = 300
WORKING_FOLDER = "."  # an argument that names no place the user said: the folder the agent works in


@dataclass(frozen=True)
class WorkedExample:
    """A request and the call that serves it."""

    request: str
    tool: str
    arguments: Mapping[str, Any]
    learned: bool = False  # from the user's own successful turn, not the shipped bank
    shown: bool = True  # False: an anchor, which wins retrieval for its requests but is not shown

    @property
    def takes_nothing(self) -> bool:
        """Whether its call takes nothing from its request: no arguments, or the working folder alone
        ("show me what files are here": browse_directory of "."). Such a call serves any request as close."""
        return self.tool != NO_TOOL and all(v in (WORKING_FOLDER, "") for v in self.arguments.values())


@dataclass(frozen=True)
class WorkedPick:
    example: WorkedExample
    score: float  # how close it is to the turn (WorkedBank.nearest)


def call_json(tool: str, arguments: Mapping[str, Any], *, key: str = "name") -> str:
    """One call written the way the reply format asks for it (``key`` names the tool)."""
    return json.dumps({key: tool, "arguments": dict(arguments)}, ensure_ascii=False)


def parse_worked(data: Mapping[str, Any], *, source: str = "<worked>") -> tuple[WorkedExample, ...]:
    """The ``[[example]]`` tables of a bank file; ValueError naming the entry that is wrong."""
    raw = data.get("example", [])
    if not isinstance(raw, list):
        raise ValueError(f"{source}: `example` must be an array of tables ([[example]])")
    taught = data.get("taught")
    if taught is not None and (not isinstance(taught, list) or not all(isinstance(t, str) for t in taught)):
        raise ValueError(f"{source}: `taught` must be a list of tool names")
    out = []
    for i, entry in enumerate(raw, 1):
        where = f"{source}: example {i}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} is not a table")
        request, tool, arguments = entry.get("request"), entry.get("tool"), entry.get("arguments", {})
        if not isinstance(request, str) or not request.strip():
            raise ValueError(f"{where}: `request` must be a non-empty string")
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError(f"{where}: `tool` must be a tool name")
        if not isinstance(arguments, dict):
            raise ValueError(f"{where}: `arguments` must be a table")
        name = tool.strip()
        out.append(WorkedExample(" ".join(request.split()), name, dict(arguments),
                                 shown=name != NO_TOOL and (taught is None or name in taught)))
    return tuple(out)


def load_worked(profile: str = "doc") -> tuple[WorkedExample, ...]:
    """The bank shipped with ``profile`` (empty when it has none)."""
    res = resources.files("gaia_lite.bundles").joinpath(f"{profile}_worked.toml")
    if not res.is_file():
        return ()
    return parse_worked(tomllib.loads(res.read_text(encoding="utf-8")), source=f"{profile}_worked.toml")


def with_learned(shipped: Iterable[WorkedExample], learned: Iterable[WorkedExample]) -> tuple[WorkedExample, ...]:
    """The shipped bank and the user's own examples, which are shown under the same rule: only for the
    tools the bank teaches (an anchor otherwise). Shown "list the files in this folder" -> browse_directory
    beside that very request, the 0.5B model answered "List the files in the directory /tmp/fb."."""
    shipped = tuple(shipped)
    taught = {e.tool for e in shipped if e.shown}
    return (*shipped, *(replace(e, shown=e.tool in taught) for e in learned))


class WorkedBank:
    """The examples one loader retrieves from. Request vectors are embedded once, through the same
    on-disk cache as the tool documents, so a second run embeds nothing."""

    def __init__(self, examples: Iterable[WorkedExample], embedder: Embedder, cache: DocEmbeddingCache) -> None:
        # the user's own wording first: of two equally close requests, theirs is the better guide
        self.examples = tuple(sorted(examples, key=lambda e: not e.learned))
        self._embedder = embedder
        self._cache = cache
        self._matrix: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.examples)

    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            texts = [e.request[:MAX_REQUEST_CHARS] for e in self.examples]
            self._matrix = embed_cached(texts, self._embedder, self._cache) if texts else np.zeros((0, 0), np.float32)
        return self._matrix

    def nearest(self, query: np.ndarray, tool_scores: Mapping[str, float], *, limit: int, threshold: float,
                weight: float = 0.5, margin: float = 0.1) -> tuple[WorkedPick, ...]:
        """Up to ``limit`` examples, one per tool, best first. An example scores ``weight`` times its
        request's cosine to the message plus the rest times its tool's score this turn (the loader's
        calibrated one): MiniLM's nearest request alone follows the topic ("the port in config.ini" was
        nearest "what port does server.conf use", a read), the tool's score alone ranks look-alikes
        within a few hundredths. Kept: at or above ``threshold``, and within ``margin`` of the best (a
        distant second example steers more than it teaches). Tools ``tool_scores`` lacks are skipped."""
        if limit <= 0 or not self.examples:
            return ()
        cosines = self.matrix() @ np.asarray(query, dtype=np.float32)
        # A turn is learned when its tool ran, not when its answer was right: a learned example is shown
        # only when its tool is this message's best-scored one ("what does notes.md say?" answered after
        # a grep for 'notes.md' must not come back as the way to ask it)
        top = max(tool_scores.values(), default=0.0)
        # a no-tool anchor has no tool score: its request's cosine alone
        combined = [(float(c) if e.tool == NO_TOOL else weight * float(c) + (1 - weight) * tool_scores[e.tool], i)
                     for i, (e, c) in enumerate(zip(self.examples, cosines))
                     if e.tool in tool_scores or e.tool == NO_TOOL]
        picks: list[WorkedPick] = []
        for score, i in sorted(combined, key=lambda si: (-si[0], si[1])):
            if score < threshold or len(picks) >= limit or (picks and score < picks[0].score - margin):
                break
            ex = self.examples[i]
            if ex.learned and ex.shown and tool_scores.get(ex.tool, 0.0) < top:
                ex = replace(ex, shown=False)
            if all(p.example.tool != ex.tool for p in picks):
                picks.append(WorkedPick(ex, score))
        return tuple(picks)

    def sure_pick(self, query: np.ndarray, *, cosine: float, margin: float) -> WorkedPick | None:
        """The example whose call serves the message as it stands, or None: the request nearest to it (its
        cosine alone, as a paraphrase is near), at ``cosine`` or above, nearer by ``margin`` than any
        example of another tool or of none, and whose call takes nothing from its request (``takes_nothing``).
        "list the files in this folder" is 0.66 from "show me what files are here" and 0.58 from the next
        tool's nearest request; "Which file in this folder mentions a blue heron?" is 0.49 from it."""
        if not self.examples:
            return None
        cosines = self.matrix() @ np.asarray(query, dtype=np.float32)
        order = np.argsort(-cosines, kind="stable")
        best, top = self.examples[int(order[0])], float(cosines[order[0]])
        if not best.takes_nothing or top < cosine:
            return None
        rival = next((float(cosines[i]) for i in order[1:] if self.examples[int(i)].tool != best.tool), None)
        return None if rival is not None and top - rival < margin else WorkedPick(best, top)
