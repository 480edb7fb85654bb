"""ChatSession (gaia_lite/cli/chat.py) over fake services: commands, turns, frames.

The fakes stand in for the composition root's objects with the few attributes
the chat loop reads; the real agent and loader are covered by their own tests
and by the tmux acceptance test.
"""

from __future__ import annotations

import io
import logging
import threading
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable

from gaia_lite.cli.chat import Asker, ChatSession, _WarningBuffer, _warnings_to
from gaia_lite.config import Settings
from gaia_lite.registry.execute import Decision
from gaia_lite.ui.plain import PlainScreen
from gaia_lite.ui.screen import Screen
from gaia_lite.ui.view import ChatView

from .scenes import REGISTRY, browse_turn, capture_console, clipboard_loaded, output


@dataclass
class FakeStats:
    turns: int
    escape_hatch_count: int
    load_tools_count: int
    escape_hatch_rate: float
    tool_set_changes: int


class FakeLoader:
    def __init__(self) -> None:
        self.turn = 0
        self.max_tools = 14
        self.settings = SimpleNamespace(threshold=0.3, max_tools=14, sticky=True)

    @property
    def stats(self) -> FakeStats:
        return FakeStats(self.turn, 0, 1, 1 / max(self.turn, 1), 0)


class FakeAgent:
    def __init__(self, loader: FakeLoader) -> None:
        self.loader = loader
        self.options = SimpleNamespace(native_tools=True, workdir="/work", context_tokens=8192,
                                       prompt_layout="stable")
        self.queries: list[str] = []
        self.resets = 0

    def run(self, query: str):
        self.queries.append(query)
        self.loader.turn += 1
        yield from browse_turn(self.loader.turn)

    def load(self, bundle: str):
        return clipboard_loaded(self.loader.turn) if bundle == "clipboard" else f"Unknown bundle '{bundle}'"

    def reset(self) -> None:
        self.resets += 1
        self.loader.turn = 0


def fake_services() -> Any:
    loader = FakeLoader()
    specs = [SimpleNamespace(name=n, summary=f"does {n}") for n in REGISTRY]

    class Registry:
        def names(self) -> list[str]:
            return list(REGISTRY)

        def __iter__(self):
            return iter(specs)

        def __len__(self) -> int:
            return len(specs)

    registry = Registry()
    settings = Settings()
    return SimpleNamespace(
        settings=settings, client=SimpleNamespace(model="tiny-model", base_url="http://127.0.0.1:9/api/v1"),
        registry=registry, loader=loader, agent=FakeAgent(loader), server=None,
        selector=SimpleNamespace(active=True, off_state=None),
        ctx=SimpleNamespace(cancel=threading.Event(), rag=None), rag=None,
        embedder=SimpleNamespace(id="hash-embedder"))


class Lines:
    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def read(self) -> str | None:
        return self.lines.pop(0) if self.lines else None


def typed(*lines: str) -> Callable[[Any], Lines]:
    """A ChatSession reader factory that types ``lines`` and then ends the chat."""
    return lambda session: Lines(*lines)


def test_plain_session_runs_turns_and_commands():
    services = fake_services()
    view = ChatView()
    out = io.StringIO()
    screen = PlainScreen(out, view)
    session = ChatSession(services, view, screen, typed("list the files", "/load clipboard", "/load nope",
                                                         "/bogus", "//not a command", "/reset", "/quit", "never"))
    assert session.run() == 0
    text = out.getvalue()
    assert "\x1b" not in text
    assert services.agent.queries == ["list the files", "/not a command"]
    assert "/load clipboard: bundle clipboard → read_clipboard, write_clipboard" in text
    assert "/load nope: Unknown bundle 'nope'" in text
    assert "✗ unknown command /bogus; /help lists the commands" in text
    assert "conversation and loader session cleared (TOOL_LOADER_SESSION summary logged)" in text
    assert services.agent.resets == 1
    # after /reset the panel is back to CORE and shows the summary entry
    assert view.panel.pending_core and [e.kind for e in view.panel.entries] == ["session"]


def test_side_session_frames_show_load_and_reset():
    services = fake_services()
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    ui_log = logging.getLogger("gaia_lite.ui")
    ui_log.addHandler(handler)
    level, ui_log.level = ui_log.level, logging.INFO
    view = ChatView()
    console = capture_console(120, 40)
    screen = Screen(console, view)
    session = ChatSession(services, view, screen, typed("list the files", "/load clipboard"))
    session.run()
    text = output(console)
    last = text[text.rindex("╭─ tools"):]
    assert "clipboard    L read_clipboard" in last
    assert "▾ turn 1 · load_tools clipboard" in last
    mark = len(text)
    session.reader = Lines("/reset")
    session.run()
    after = output(console)[mark:]
    frame = after[after.rindex("╭─ tools"):]
    assert "Loaded 11/14 · CORE 11 · new session" in frame
    assert "▾ TOOL_LOADER_SESSION (logged by /reset)" in frame
    assert "clipboard    L" not in frame
    ui_log.removeHandler(handler)
    ui_log.setLevel(level)
    first = [r for r in records if r.startswith("UI_FIRST_TOKEN ")]
    assert len(first) == 1 and first[0].startswith('UI_FIRST_TOKEN {"turn": 1, "mode": "side", "ms": ')


def test_help_status_and_tools_print_tables():
    services = fake_services()
    view = ChatView()
    out = io.StringIO()
    screen = PlainScreen(out, view, width=120)
    ChatSession(services, view, screen, typed("/help", "/status", "/tools")).run()
    text = out.getvalue()
    assert "/load <bundle|tool>" in text and "Alt-Enter / Esc Enter" in text
    assert "loader     on · preset default · tau 0.3 · cap 14 · loaded tools stay" in text
    assert "context    8,192 tokens, oldest turns dropped to fit" in text and "prompt     stable layout" in text
    assert "embedder   hash-embedder" in text
    assert " C  load_tools " in text and " ●  browse_directory" not in text  # before any turn: CORE only
    assert "11 of 38 loaded (C = CORE, ● = loaded)" in text


def test_warnings_are_held_and_shown_as_notices():
    logger = logging.getLogger("gaia_lite")
    stream = logging.StreamHandler(io.StringIO())
    logger.addHandler(stream)
    buffer = _WarningBuffer()
    try:
        with _warnings_to(buffer):
            assert stream not in logger.handlers
            logging.getLogger("gaia_lite.memory").warning("disk is slow")
            logging.getLogger("gaia_lite.loader").warning("handled by events")
        assert stream in logger.handlers
    finally:
        logger.removeHandler(stream)
    assert list(buffer.messages) == ["disk is slow"]


def test_asker_without_a_terminal_denies_and_says_why():
    view = ChatView()
    screen = PlainScreen(io.StringIO(), view)
    asker = Asker(screen, Settings(), interactive=False)
    spec = SimpleNamespace(name="write_file")
    assert asker.approve(spec, {"path": "x"}) == Decision.DENY
    assert "use --yes" in view.entries[-1].text
    assert Asker(screen, Settings(auto_approve=True), interactive=False).approve(spec, {}) == Decision.ALLOW
    assert asker.ask_user("name?") is None and asker.confirm_path("outside?") is False


class FakeRag:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def index_directory(self, path, *, progress=None, cancel=None):
        self.calls.append(f"dir {path}")
        for i in range(3):
            progress(f"indexing f{i}.md", i, 3)
        progress("indexing done", 3, 3)
        return {"indexed": 2, "updated": 0, "unchanged": 1, "failed": [], "files": 3, "cancelled": False}

    def watched(self):
        return []  # no folders saved by earlier sessions

    def index_file(self, path):
        self.calls.append(f"file {path}")
        if path.name == "bad.pdf":
            raise ValueError("not a PDF")
        return SimpleNamespace(status="indexed", pages=2, chunks=5)


def test_index_reports_progress_and_results(tmp_path):
    services = fake_services()
    services.rag = services.ctx.rag = FakeRag()
    (tmp_path / "doc.md").write_text("x")
    view = ChatView()
    console = capture_console(120, 40)
    screen = Screen(console, view)
    session = ChatSession(services, view, screen, typed(f"/index {tmp_path}", f"/index {tmp_path / 'doc.md'}",
                                                         f"/index {tmp_path / 'bad.pdf'}", "/index"))
    session.run()
    texts = [e.text for e in view.entries if e.kind in ("info", "error")]
    assert f"indexed {tmp_path}: 2 new, 0 updated, 1 unchanged, 0 failed" in texts
    assert f"indexed {tmp_path / 'doc.md'}: 2 pages, 5 chunks" in texts
    assert f"could not index {tmp_path / 'bad.pdf'}: not a PDF" in texts
    assert "usage: /index <file or folder>" in texts
    assert services.rag.calls == [f"dir {tmp_path}", f"file {tmp_path / 'doc.md'}", f"file {tmp_path / 'bad.pdf'}"]


def test_approval_asks_inline_and_remembers_always(monkeypatch):
    view = ChatView()
    screen = Screen(capture_console(120, 40), view)
    answers = iter(["y", "n", "a"])
    questions: list[str] = []

    def fake_ask(question, choices, *, default, interactive):
        questions.append(question)
        return next(answers)

    monkeypatch.setattr("gaia_lite.cli.chat.ask_choice", fake_ask)
    asker = Asker(screen, Settings(), interactive=True)
    spec = SimpleNamespace(name="run_shell_command")
    got = [asker.approve(spec, {"command": "ls -la"}) for _ in range(3)]
    assert got == [Decision.ALLOW, Decision.DENY, Decision.ALWAYS]
    assert questions[0] == "Allow run_shell_command(command='ls -la')?"
    assert [e.text for e in view.entries] == ["  run_shell_command: allow", "  run_shell_command: deny",
                                              "  run_shell_command: always"]


def test_no_color_keeps_layout_and_drops_colour():
    from gaia_lite.ui.console import make_console
    from gaia_lite.ui.frame import Frame

    from .scenes import new_view

    view = new_view()
    for ev in browse_turn():
        view.apply(ev)
    coloured = make_console(io.StringIO(), width=120, height=40, force_terminal=True, color_system="truecolor",
                            environ={})
    plain = make_console(io.StringIO(), width=120, height=40, force_terminal=True, color_system="truecolor",
                         environ={"NO_COLOR": "1"})
    for console in (coloured, plain):
        console.print(Frame(view))
    assert "\x1b[38;" in coloured.file.getvalue() or "\x1b[3" in coloured.file.getvalue()
    assert "\x1b[38;" not in plain.file.getvalue() and "\x1b[32m" not in plain.file.getvalue()
    strip = __import__("re").compile(r"\x1b\[[0-9;]*m")
    assert strip.sub("", coloured.file.getvalue()) == strip.sub("", plain.file.getvalue())


def test_a_crashing_turn_or_command_does_not_end_the_session():
    services = fake_services()

    def broken(query: str):
        raise ValueError("loader configuration names tools missing from the registry")
        yield  # pragma: no cover

    services.agent.run = broken
    services.agent.load = lambda bundle: 1 / 0
    view = ChatView()
    out = io.StringIO()
    session = ChatSession(services, view, PlainScreen(out, view), typed("hi", "/load data", "/help"))
    assert session.run() == 0
    text = out.getvalue()
    assert "the turn failed: ValueError: loader configuration names tools missing" in text
    assert "/load failed: ZeroDivisionError: division by zero" in text
    assert "/load <bundle|tool>" in text  # /help still ran
