"""Every parameter of every tool the agent registers, fed hostile values through the executor.

test_executor_hostile.py asks that nothing raises. This asks what a model (and the user reading
over its shoulder) can use: each call ends within CALL_BOUND_S, as a payload with a status; an error
is one line of at most MAX_ERROR_CHARS that names the problem, not an exception's class and repr;
and nothing is lost or made on the way: a read-only tool leaves the sandbox byte-identical, no tool
touches the folder outside the sandbox, the fake home or the process's working folder, and the
remembered fact and the indexed document survive every call.

One world per test: a real Sandbox, MemoryStore and RagIndex (hashing embedder), the real loader
behind load_tools, and a model client whose server is not there (the vision and summary tools must
say so in a line). DISPLAY is unset, so the clipboard, notification and window tools meet no session.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from gaia_lite.agent.selection import ToolSelector
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.llm.client import ChatClient
from gaia_lite.loader.loader import build_doc_loader
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor, ToolResult, ToolStatus
from gaia_lite.registry.limits import RateLimiter
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import ToolSpec
from gaia_lite.tools.catalog import doc_tool_specs
from gaia_lite.tools.sandbox import Sandbox

CALL_BOUND_S = 10.0
MAX_ERROR_CHARS = 500
# A payload is what the model reads next; one that echoes a megabyte of its own input back fills its context.
MAX_PAYLOAD_CHARS = 64_000
# Found by this sweep: a success payload that repeats an argument whole. A name, path, pattern, query, id or date
# over 4,096 characters is now refused by the executor (execute.MAX_NAME_CHARS); request_user_input's default is
# the answer the model chose, given back by design. Listed so a new echo fails here.
ECHOES_LEFT = {("request_user_input", "default_if_no_response")}
MEGABYTE = "x" * 1_000_000
OUTSIDE = "<outside>"  # stands for the secret file outside the sandbox, which differs per world

# Tools that may change the sandbox, the memory or the index by design: they run in their own world
# and are held only to the folders they must never touch and to what must survive.
MUTATING = {"run_shell_command", "remember", "update_memory", "forget", "index_document", "index_directory",
            "add_watch_directory", "dump_document", "write_file", "edit_file", "text_to_speech",
            "write_clipboard", "summarize_document"}

# A call that works on its own: each test changes one argument of it.
BASE_ARGS: dict[str, dict[str, Any]] = {
    "run_shell_command": {"command": "ls"},
    "remember": {"fact": "the boiler is serviced in May"},
    "update_memory": {"knowledge_id": "<victim>"},
    "forget": {"knowledge_id": "<victim>"},
    "query_documents": {"query": "notes"},
    "query_specific_file": {"file_path": "docs/notes.md", "query": "notes"},
    "search_indexed_chunks": {"pattern": "notes"},
    "evaluate_retrieval": {"question": "what is in the notes?", "retrieved_info": "nothing secret"},
    "index_document": {"file_path": "docs/notes.md"},
    "summarize_document": {"file_path": "docs/notes.md"},
    "dump_document": {"file_name": "notes.md"},
    "index_directory": {"directory_path": "docs"},
    "add_watch_directory": {"directory": "docs"},
    "search_file": {"file_pattern": "notes"},
    "search_directory": {"directory_name": "docs"},
    "read_file": {"file_path": "a.txt"},
    "search_file_content": {"pattern": "alpha"},
    "write_file": {"file_path": "new.txt", "content": "fresh\n"},
    "edit_file": {"file_path": "a.txt", "old_content": "alpha", "new_content": "ALPHA"},
    "get_file_info": {"file_path": "a.txt"},
    "analyze_data_file": {"file_path": "data/sales.csv"},
    "set_loop_state": {"state": "idle"},
    "request_user_input": {"message": "Which file?"},
    "load_tools": {"bundle": "file_search"},
    "analyze_image": {"image_path": "pic.png"},
    "answer_question_about_image": {"image_path": "pic.png", "question": "What colour is it?"},
    "write_clipboard": {"text": "hello"},
    "notify_desktop": {"title": "Done", "message": "the backup finished"},
    "text_to_speech": {"text": "hello"},
}

WRONG_TYPES: dict[str, Any] = {
    "none": None, "true": True, "int-7": 7, "float-nan": math.nan, "float-inf": math.inf, "list-empty": [],
    "dict-empty": {}, "list-of-dict": [{"path": "/etc/passwd"}],
}
STRINGS: dict[str, Any] = {
    "empty": "", "blank": "   \t ", "newlines": "\n\n\n", "1MB": MEGABYTE, "nul": "a.txt\x00.md",
    "dotdot": "../../../etc/passwd", "tilde": "~", "slash": "/", "outside-abs": OUTSIDE, "fifo": "pipe",
    "symlink-loop": "loop1", "folder-for-file": "docs", "file-for-folder": "a.txt/inner.txt",
    "rtl": "\u202etxt.exe\u202c.txt", "emoji": "\U0001f4c4\U0001f525 notes.md",
    "surrogateescape": "bad\udcff.txt", "lone-surrogate": "\ud800", "int-10e18": 10**18,
}
INTEGERS: dict[str, Any] = {
    "minus-1": -1, "zero": 0, "10e18": 10**18, "minus-10e18": -10**18, "10e100": 10**100, "str-1e400": "1e400",
    "str-nan": "NaN", "str-12abc": "12abc", "float-2.5": 2.5, "empty": "",
}
BOOLEANS: dict[str, Any] = {"str-maybe": "maybe", "int-2": 2, "empty": "", "str-1MB": MEGABYTE}
ARRAYS: dict[str, Any] = {
    **STRINGS, "list-of-none": [None], "nested": [["a", ["b"]]], "100k-items": ["x"] * 100_000,
}
BY_TYPE: dict[str, dict[str, Any]] = {"string": STRINGS, "integer": INTEGERS, "boolean": BOOLEANS,
                                      "array": ARRAYS}

# "SomeError:" or "failed: ValueError" is an exception passed through, not a sentence for the model.
EXCEPTION_DUMP = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b:|failed: [A-Za-z_.]+(?:Error|Exception)\b"
                            r"|Traceback|File \"")


@dataclass
class World:
    base: Path
    root: Path
    watched: tuple[Path, ...]  # folders no tool may change: outside the sandbox, the home, the cwd
    ctx: ToolContext
    executor: ToolExecutor
    keeper_id: str
    victim_id: str

    def concrete(self, value: Any) -> Any:
        if value == OUTSIDE:
            return str(self.base / "outside" / "secret.txt")
        if value == "<victim>":
            return self.victim_id
        return value


def _bounded(spec: ToolSpec) -> ToolSpec:
    """The spec with the test's time bound, so a hang shows as a timeout instead of holding the run."""
    return dataclasses.replace(spec, timeout=CALL_BOUND_S)


def _write_tree(base: Path) -> Path:
    root = base / "root"
    for folder in ("docs", "data", "keep"):
        (root / folder).mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "docs" / "notes.md").write_text("# notes\nnothing secret here\n")
    (root / "data" / "sales.csv").write_text("date,item,amount\n2026-01-02,tea,3.5\n2026-01-05,milk,1.2\n")
    (root / "keep" / "precious.txt").write_text("the user's own words\n")
    (root / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    os.mkfifo(root / "pipe")
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    for folder in ("outside", "home", "cwd"):
        (base / folder).mkdir()
    (base / "outside" / "secret.txt").write_text("OUTSIDE-SECRET\n")
    return root


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.delenv("DISPLAY", raising=False)  # no graphical session: the desktop tools must say so
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # "~" and anything written there stays in the test
    root = _write_tree(tmp_path)
    monkeypatch.chdir(tmp_path / "cwd")  # a tool that writes relative to the process lands here, not in the repo
    embedder = HashEmbedder(dim=128)
    memory = MemoryStore(tmp_path / "memory.db", embedder)
    rag = RagIndex(tmp_path / "rag", embedder)
    rag.index_file(root / "docs" / "notes.md")
    specs = [_bounded(s) for s in doc_tool_specs(with_loader=True)]
    registry = ToolRegistry(specs)
    selector = ToolSelector(registry, build_doc_loader(embedder))
    llm = ChatClient("http://127.0.0.1:9/v1", model="absent", timeout=5.0, first_byte_timeout=5.0)
    ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=tmp_path / "data", memory=memory, rag=rag,
                      llm=llm, embedder=embedder, loader=selector,
                      shell_limiter=RateLimiter(limits=((10_000, 10.0),)))
    keeper = memory.remember("the cat is called Tom", category="fact")
    victim = memory.remember("the dog is called Rex", category="fact")
    executor = ToolExecutor(registry, ctx, approve=lambda spec, args: Decision.ALLOW, default_timeout=CALL_BOUND_S)
    yield World(tmp_path, root, (tmp_path / "outside", tmp_path / "home", tmp_path / "cwd"), ctx, executor,
                keeper.id, victim.id)
    rag.close()
    memory.close()


def snapshot(folder: Path) -> dict[str, Any]:
    """Every entry under ``folder`` and what it holds, without following links or opening FIFOs."""
    found: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        if folder.name == "home" and Path(dirpath) == folder:
            # notify-send and espeak-ng keep their own ~/.config and ~/.cache: the helper's state, not the tool's
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            filenames = [f for f in filenames if not f.startswith(".")]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_fifo():
                found[str(path)] = "fifo"
            elif path.is_file():
                found[str(path)] = path.read_bytes()
            else:
                found[str(path)] = "dir"
    return found


def problems_of(outcome: ToolResult, seconds: float, echo_left: bool = False) -> list[str]:
    """What is wrong with one call's result, as short phrases (empty: the call was handled well)."""
    payload = outcome.payload
    if not isinstance(payload, dict) or not isinstance(payload.get("status"), str) or not payload["status"]:
        return [f"payload without a status: {str(payload)[:200]!r}"]
    found = []
    if seconds > CALL_BOUND_S or outcome.status is ToolStatus.TIMEOUT:
        found.append(f"took {seconds:.1f}s")
    try:
        size = len(json.dumps(payload, default=str))
    except (TypeError, ValueError) as exc:  # the agent sends the payload on as JSON
        return [*found, f"payload is not JSON: {exc}"]
    if size > MAX_PAYLOAD_CHARS and not (echo_left and payload["status"] != "error"):
        found.append(f"payload is {size} characters")
    if EXCEPTION_DUMP.search(json.dumps(payload, default=str)[:MAX_PAYLOAD_CHARS]):
        found.append(f"exception text in payload: {str(payload)[:300]!r}")
    if outcome.status is not ToolStatus.OK or payload["status"] == "error":
        error = payload.get("error")
        if not isinstance(error, str) or not error.strip():
            found.append(f"error without a message: {str(payload)[:200]!r}")
        elif "\n" in error.strip() or len(error) > MAX_ERROR_CHARS:
            found.append(f"error of {len(error)} chars / {error.count(chr(10)) + 1} lines: {error[:200]!r}")
    return found


def run_case(world: World, name: str, args: dict[str, Any], label: str,
             echo_left: bool = False) -> tuple[ToolResult, list[str]]:
    """One call through the executor, and what went wrong with it (each phrase prefixed with ``label``)."""
    before = {folder: snapshot(folder) for folder in (world.root, *world.watched)}
    started = time.monotonic()
    outcome = world.executor.execute(name, {k: world.concrete(v) for k, v in args.items()})
    found = problems_of(outcome, time.monotonic() - started, echo_left)
    for folder, was in before.items():
        if folder == world.root and name in MUTATING:
            continue
        if snapshot(folder) != was:
            found.append(f"changed {folder.name}/")
    return outcome, [f"{label}: {p}" for p in found]


def after_checks(world: World) -> list[str]:
    """What must survive every call: the user's untouched file, the keeper fact, the indexed document."""
    found = []
    if (world.root / "keep" / "precious.txt").read_text() != "the user's own words\n":
        found.append("keep/precious.txt was changed")
    kept = world.ctx.memory.get(world.keeper_id)
    if kept is None or kept.content != "the cat is called Tom":
        found.append(f"the remembered fact was lost or changed: {kept!r}")
    if "notes.md" not in {Path(d.path).name for d in world.ctx.rag.list_documents()}:
        found.append("docs/notes.md fell out of the index")
    return found


def _cases() -> list[tuple[str, str]]:
    return [(spec.name, p.name) for spec in doc_tool_specs(with_loader=True) for p in spec.params]


def _spec(name: str) -> ToolSpec:
    return next(s for s in doc_tool_specs(with_loader=True) if s.name == name)


@pytest.mark.parametrize("name,param", _cases(), ids=[f"{n}-{p}" for n, p in _cases()])
def test_each_parameter_takes_hostile_values_cleanly(world: World, name: str, param: str) -> None:
    spec = _spec(name)
    json_type = next(p.json_type for p in spec.params if p.name == param)
    values = {**WRONG_TYPES, **BY_TYPE.get(json_type, {})}
    found: list[str] = []
    for label, value in values.items():
        found += run_case(world, name, {**BASE_ARGS.get(name, {}), param: value}, f"{name}({param}={label})",
                          (name, param) in ECHOES_LEFT)[1]
    found += after_checks(world)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", [s.name for s in doc_tool_specs(with_loader=True)])
def test_missing_and_unknown_arguments_are_one_line(world: World, name: str) -> None:
    spec = _spec(name)
    base = BASE_ARGS.get(name, {})
    calls = {"unknown-argument": {**base, "bogus_argument": 1},
             "path-like-argument-name": {**base, "../../etc/passwd": "x"},
             "no-arguments-at-all": {}}
    for required in spec.required:
        calls[f"missing-{required}"] = {k: v for k, v in base.items() if k != required}
    found: list[str] = []
    for label, args in calls.items():
        outcome, wrong = run_case(world, name, args, f"{name}({label})")
        found += wrong
        if label != "no-arguments-at-all" and outcome.status is not ToolStatus.INVALID:
            found.append(f"{name}({label}): ran anyway ({outcome.status.value})")
    found += after_checks(world)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", ["x" * 300_000, "1" * 300_000, "a-" * 150_000, "a/" * 150_000],
                         ids=["letters", "digits", "hyphenated", "slashes"])
def test_a_long_word_is_read_in_linear_time(text: str) -> None:
    """These ran O(n^2) in re's C loop with the GIL held: 1 MB froze query_documents, and the whole agent
    with it, past any timeout (30,000 characters took 9 s)."""
    from gaia_lite.agent.opening import _FILE_NAMED
    from gaia_lite.tools.find import PATH_MENTION, request_words
    from gaia_lite.tools.rag import _FILE_MENTION

    started = time.monotonic()
    request_words(text)
    PATH_MENTION.findall(text)
    _FILE_MENTION.findall(text)
    _FILE_NAMED.search(text)   # the agent's, on every user message
    assert time.monotonic() - started < 2.0
