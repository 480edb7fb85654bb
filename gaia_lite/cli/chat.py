"""``gaia-lite chat``: the interactive loop.

    run_chat(settings)
      ├─ Screen (rich, stdout is a TTY) or PlainScreen (pipe)  + ChatView
      ├─ connect() -> build_services(approve=, ask_user=, confirm_path=, progress=screen.progress)
      └─ ChatSession.run():  read a line ─┬─ /command -> a method here (touches services)
                                          └─ message  -> screen.run_turn(agent.run(text))

The agent yields events; the view folds them; the screen draws the view.
Inline questions (tool approval, request_user_input, paths outside the
sandbox) pause the screen and ask with prompt-toolkit.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import select
import sys
import threading
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from prompt_toolkit import PromptSession
from rich.table import Table
from rich.text import Text

from gaia_lite.agent.selection import OFF_REASONS
from gaia_lite.cli.resume import Resumed, resume, save_state
from gaia_lite.cli.services import build_services, connect
from gaia_lite.cli.shared_prefix import prepare_prefix
from gaia_lite.cli.turnlog import TurnRecorder
from gaia_lite.config import Settings
from gaia_lite.errors import GaiaError
from gaia_lite.events import Event, ToolsLoaded, ToolsSelected, TurnFailed
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.registry.execute import Decision
from gaia_lite.tools.os_sandbox import status_line as shell_sandbox_status
from gaia_lite.tools.rag import resume_watches
from gaia_lite.ui.commands import parse_command, render_help
from gaia_lite.ui.console import is_terminal, make_console
from gaia_lite.ui.conversation import key_args, render_entries
from gaia_lite.ui.input import LineReader, PlainReader, SlashCompleter, ask_choice
from gaia_lite.ui.plain import PlainScreen
from gaia_lite.ui.screen import Screen, interrupt_handler
from gaia_lite.ui.view import BundleLayout, ChatView

__all__ = ["run_chat", "ChatSession", "Asker"]

log = logging.getLogger("gaia_lite.ui")


class Asker:
    """The injected callables that ask the user something in the middle of a turn."""

    def __init__(self, screen: Any, settings: Settings, *, interactive: bool, terminal: bool = True) -> None:
        self.screen = screen
        self.settings = settings
        self.interactive = interactive  # stdin is a terminal: questions can be answered
        self.terminal = terminal  # stdout too: prompt-toolkit asks, else stderr + a stdin line

    def approve(self, spec: Any, args: dict[str, Any]) -> Any:
        if self.settings.auto_approve:
            return Decision.ALLOW
        if not self.interactive:
            self.screen.view.add("notice", f"{spec.name} needs approval and there is no terminal to ask; "
                                           "denied (use --yes to allow)", level="warning")
            return Decision.DENY
        with self.screen.paused():
            answer = ask_choice(f"Allow {spec.name}({key_args(args, limit=160, per_value=120)})?",
                                ("y", "N", "a(lways)"), default="n", interactive=self.terminal)
        decision = {"y": Decision.ALLOW, "a": Decision.ALWAYS}.get(answer, Decision.DENY)
        self.screen.view.add("info", f"  {spec.name}: {decision.value}")
        return decision

    def ask_user(self, message: str, choices: Sequence[str] | None = None, *,
                 timeout: float | None = None) -> str | None:
        if not self.interactive:
            return None
        hint = f" ({' / '.join(choices)})" if choices else ""
        if timeout:
            hint += f" [{timeout:.0f} s]"
        with self.screen.paused():
            if self.terminal:
                answer = _prompt_with_timeout(f"{message}{hint} > ", timeout)
            else:
                sys.stderr.write(f"{message}{hint} > ")
                sys.stderr.flush()
                answer = read_line_with_timeout(sys.stdin, timeout)
        if answer is None:
            self.screen.view.add("info", "  no answer" + (f" within {timeout:.0f} s" if timeout else ""))
            return None
        self.screen.view.add("info", f"  you answered: {answer}")
        return answer

    def confirm_path(self, question: str) -> bool:
        if not self.interactive:
            return False
        with self.screen.paused():
            return ask_choice(question, ("y", "N"), default="n", interactive=self.terminal) == "y"


def _prompt_with_timeout(text: str, timeout: float | None) -> str | None:
    """A prompt-toolkit prompt that gives up after ``timeout`` seconds (None on timeout or Ctrl-D)."""
    session: PromptSession[str] = PromptSession()
    timer = None
    if timeout:
        def expire() -> None:
            app = session.app
            loop = getattr(app, "loop", None)
            if app.is_running and loop is not None:
                loop.call_soon_threadsafe(lambda: app.exit(result=None) if app.is_running else None)

        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
    try:
        return session.prompt(text)
    except EOFError:
        return None
    finally:
        if timer is not None:
            timer.cancel()


def read_line_with_timeout(stream: Any, timeout: float | None) -> str | None:
    """One line from a non-terminal stdin, or None at end of input or after ``timeout`` seconds."""
    if timeout:
        try:
            ready, _, _ = select.select([stream], [], [], timeout)
        except (OSError, ValueError):  # no file descriptor (e.g. a StringIO in tests): just read
            ready = [stream]
        if not ready:
            return None
    line = stream.readline()
    return line.rstrip("\n") if line else None


class _WarningBuffer(logging.Handler):
    """WARNINGs logged while the live screen owns the terminal, shown later as notices."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: deque[str] = deque(maxlen=50)

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("gaia_lite.loader", "gaia_lite.ui")):
            return  # loader state reaches the UI as events; the UI shows its own errors
        self.messages.append(record.getMessage())


@contextmanager
def _warnings_to(buffer: _WarningBuffer) -> Iterator[None]:
    """Swap gaia_lite's stderr handlers for ``buffer`` (stderr writes would tear the live frame)."""
    logger = logging.getLogger("gaia_lite")
    streams = [h for h in logger.handlers if type(h) is logging.StreamHandler]
    for h in streams:
        logger.removeHandler(h)
    logger.addHandler(buffer)
    try:
        yield
    finally:
        logger.removeHandler(buffer)
        for h in streams:
            logger.addHandler(h)


def _layout(loader: Any = None) -> BundleLayout:
    """CORE and the bundles in menu order: the live loader's (MCP servers join it mid-session), else the profile's."""
    core, bundles = getattr(loader, "core", None), getattr(loader, "bundles", None)
    if core is not None and bundles is not None:
        return BundleLayout(frozenset(core), tuple((b.name, b.members) for b in bundles))
    cfg = load_bundles()
    return BundleLayout(cfg.core, tuple((b.name, b.members) for b in cfg.bundles))


def _shell_sandbox_text() -> str:
    return shell_sandbox_status().removeprefix("shell sandbox: ")


class ChatSession:
    def __init__(self, services: Any, view: ChatView, screen: Any, make_reader: Callable[["ChatSession"], Any],
                 warnings: _WarningBuffer | None = None) -> None:
        self.s = services
        self.view = view
        self.screen = screen
        self.reader = make_reader(self)  # the reader completes /load names and opens /details through the session
        self.warnings = warnings
        self.layout = _layout(getattr(services, "loader", None))
        self.exit_code = 0
        self.turns = TurnRecorder(services.settings.paths.turns_file, frontend="chat", client=services.client)
        self.intro: tuple[str, ...] = ()  # --continue: the earlier turns, shown after the welcome

    # ------------------------------------------------------------------ state the view needs
    def _loader_facts(self) -> dict[str, Any]:
        sel = self.s.selector
        off = sel.off_state
        loader = self.s.loader
        return {"registry_names": self.s.registry.names(), "active": bool(sel.active), "off_state": off,
                "off_reason": OFF_REASONS.get(off or "", ""),
                "max_tools": getattr(loader, "max_tools", None) if loader is not None else None}

    def load_names(self) -> list[str]:
        bundles = [name for name, _ in self.layout.bundles]
        return bundles + sorted(n for n in self.s.registry.names() if n not in bundles)

    def _drain_warnings(self) -> None:
        while self.warnings is not None and self.warnings.messages:
            self.view.add("notice", self.warnings.messages.popleft(), level="warning")

    # ------------------------------------------------------------------ the loop
    def start(self) -> None:
        facts = self._loader_facts()
        self.view.start_session(layout=self.layout, **facts)
        client = self.s.client
        loader = "dynamic tools on" if facts["active"] else f"loader off ({facts['off_state']})"
        welcome = (f"gaia-lite chat · model {client.model or '?'} · {loader}",
                   "/help for commands · Enter sends · Alt-Enter new line · Ctrl-C cancels · Ctrl-D quits")
        welcome += self._resume_watches() + self.intro
        for line in welcome:
            self.view.add("info", line)
        self._drain_warnings()
        if self.screen.mode != "side":  # the frame shows them in its conversation pane
            for line in welcome:
                self.screen.print(Text(line, style="dim"))
        self.screen.print_frame()

    def _resume_watches(self) -> tuple[str, ...]:
        """Folders watched in earlier sessions keep being watched (their first scan runs in the background)."""
        if self.s.rag is None:
            return ()
        resumed, skipped = resume_watches(self.s.ctx)
        lines = []
        if resumed:
            lines.append(f"watching {len(resumed)} saved folder(s): {', '.join(resumed)}")
        if skipped:
            lines.append(f"not watching: {'; '.join(skipped)}")
        return tuple(lines)

    def run(self) -> int:
        self.start()
        while True:
            line = self.reader.read()
            if line is None:
                break
            if not line.strip():
                continue
            cmd = parse_command(line)
            if cmd is None:
                text = line[1:] if line.lstrip().startswith("//") else line
                if not self.ask(text):
                    break
                continue
            if cmd.error:
                self.view.add("error", cmd.error)
                self.screen.print(Text(f"✗ {cmd.error}", style="red"))
                continue
            if cmd.name == "/quit":
                break
            handler: Callable[[str], None] = getattr(self, "cmd_" + cmd.name[1:])
            try:
                handler(cmd.arg)
            except Exception as exc:  # a failing command must not end the session
                log.exception("%s failed", cmd.name)
                self._say(f"{cmd.name} failed: {type(exc).__name__}: {exc}", "red")
        return self.exit_code

    def ask(self, text: str) -> bool:
        """One turn; False when the session cannot go on."""
        cancel = self.s.ctx.cancel
        cancel.clear()
        try:
            with interrupt_handler(cancel.set, hold=self.screen.hold_interrupt):
                outcome = self.screen.run_turn(self.turns.wrap(self._with_layout(self.s.agent.run(text))))
        except KeyboardInterrupt:  # a second Ctrl-C while the first was being handled
            self._say("cancelled (Ctrl-C); the conversation is kept", "red")
            outcome = None
        except Exception as exc:  # a bug below the UI: say so, keep the session
            log.exception("the turn failed")
            self._say(f"the turn failed: {type(exc).__name__}: {exc} (details in the log)", "red")
            outcome = None
        finally:
            cancel.clear()
        latency = self.screen.first_token_latency_s
        if latency is not None:  # what drawing the screen added to the first streamed token
            log.info("UI_FIRST_TOKEN %s", json.dumps({"turn": self.view.turn, "mode": self.screen.mode,
                                                      "ms": round(latency * 1000, 3)}))
        if self.warnings is not None and self.warnings.messages:
            self._drain_warnings()
            self.screen.print_frame()
        save_state(self.s)  # a later `ask -c` or `chat --continue` goes on from here
        if isinstance(outcome, TurnFailed) and not outcome.recoverable:
            self.exit_code = outcome.exit_code
            return False
        return True

    def _with_layout(self, events: Iterator[Event]) -> Iterator[Event]:
        """The turn's events; when its selection comes, the panel's bundles are refreshed first, so the
        tools of an MCP server that joined this turn show under their own bundle."""
        for ev in events:
            if isinstance(ev, ToolsSelected) and getattr(self.s, "loader", None) is not None:
                layout = _layout(self.s.loader)
                if layout != self.layout:
                    self.layout = self.view.panel.layout = layout
            yield ev

    # ------------------------------------------------------------------ commands
    def _say(self, text: str, style: str = "dim", *, panel_changed: bool = False) -> None:
        """A command's result: in the frame's conversation pane, or printed (then the
        collapsed or stacked panel again if the command changed it)."""
        self.view.add("error" if style == "red" else "info", text)
        if self.screen.mode == "side":
            self.screen.print_frame()
            return
        self.screen.print(Text(text, style=style))
        if panel_changed:
            self.screen.print_frame()

    def cmd_help(self, arg: str) -> None:
        self.screen.print(render_help())

    def cmd_tools(self, arg: str) -> None:
        panel = self.view.panel
        loaded = set(panel.loaded) if panel.off_state is None else set(self.s.registry.names())
        table = Table(box=None, padding=(0, 1), header_style="bold")
        table.add_column("", no_wrap=True)
        table.add_column("tool", no_wrap=True)
        table.add_column("bundle", no_wrap=True)
        table.add_column("what it does", overflow="ellipsis", no_wrap=True)
        for spec in self.s.registry:
            mark = ("C" if spec.name in self.layout.core else "●") if spec.name in loaded else " "
            table.add_row(mark, spec.name, self.layout.bundle_of(spec.name) or "core", spec.summary)
        state = ("loader off: every tool is in the prompt" if panel.off_state is not None
                 else f"{len(loaded)} of {len(self.s.registry)} loaded (C = CORE, ● = loaded)")
        self.screen.print(table)
        self.screen.print(Text(state, style="dim"))

    def cmd_load(self, arg: str) -> None:
        if not arg:
            self._say("usage: /load <bundle|tool>; bundles: " + ", ".join(n for n, _ in self.layout.bundles), "red")
            return
        outcome = self.s.agent.load(arg)
        if not isinstance(outcome, ToolsLoaded):
            self._say(f"/load {arg}: {outcome}", "red")
            return
        self.view.add_loaded(outcome)
        added = ", ".join(outcome.admitted) or "nothing new (already loaded)"
        self._say(f"/load {arg}: bundle {outcome.bundle} → {added}", panel_changed=True)

    def cmd_reset(self, arg: str) -> None:
        loader = self.s.loader
        summary = None
        if loader is not None and getattr(loader, "turn", 0) > 0 and hasattr(loader, "stats"):
            summary = dataclasses.asdict(loader.stats)
        self.s.agent.reset()
        self.view.reset(summary=summary, **{k: v for k, v in self._loader_facts().items() if k != "max_tools"})
        note = " (TOOL_LOADER_SESSION summary logged)" if summary is not None else ""
        self._say(f"conversation and loader session cleared{note}", panel_changed=True)

    def cmd_status(self, arg: str) -> None:
        s, st = self.s, self.s.settings
        loader = s.loader
        if loader is not None:
            cfg = loader.settings
            loader_text = (f"on · preset {st.preset} · tau {cfg.threshold:g} · cap {cfg.max_tools}"
                           + (" · loaded tools stay" if cfg.sticky else " · LRU eviction")
                           + ("" if s.selector.active else f" · OFF now ({s.selector.off_state})"))
        else:
            loader_text = f"off ({s.selector.off_state})"
        server = s.client.base_url + (f" (embedded llama-server, {s.server.alias})" if s.server is not None else "")
        opts = s.agent.options
        window = f"{opts.context_tokens:,} tokens, oldest turns dropped to fit" if opts.context_tokens \
            else "unknown (set GAIA_CTX_SIZE to fit long chats)"
        rows = [("server", server), ("model", f"{s.client.model} · "
                                              f"{'native' if opts.native_tools else 'text'} tool calls"),
                ("context", window), ("prompt", f"{opts.prompt_layout} layout"),
                ("embedder", str(getattr(s.embedder, "id", st.embedder))), ("loader", loader_text),
                ("memory", "disabled" if st.memory_disabled else str(st.paths.memory_db)),
                ("documents", str(st.paths.rag_db)), ("history", str(st.paths.history_file)),
                ("log", str(st.paths.log_file)), ("workdir", str(s.agent.options.workdir)),
                ("shell", _shell_sandbox_text())]
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for k, v in rows:
            table.add_row(k, v)
        self.screen.print(table)

    def cmd_index(self, arg: str) -> None:
        if not arg:
            self._say("usage: /index <file or folder>", "red")
            return
        path = Path(arg).expanduser()
        rag = self.s.rag
        cancel = self.s.ctx.cancel
        cancel.clear()
        try:
            with interrupt_handler(cancel.set):
                if path.is_dir():
                    res = rag.index_directory(path, progress=self.screen.progress, cancel=cancel)
                    text = (f"indexed {path}: {res['indexed']} new, {res['updated']} updated, "
                            f"{res['unchanged']} unchanged, {len(res['failed'])} failed"
                            + (" (cancelled)" if res.get("cancelled") else ""))
                else:
                    self.screen.progress(f"indexing {path.name}", 0, 1)
                    r = rag.index_file(path)
                    self.screen.progress(f"indexing {path.name}", 1, 1)
                    text = f"{r.status} {path}: {r.pages} pages, {r.chunks} chunks"
        except KeyboardInterrupt:
            text = f"indexing {path} cancelled"
        except (GaiaError, OSError, ValueError) as exc:
            text = f"could not index {path}: {exc}"
        finally:
            self.screen.stop_progress()
            cancel.clear()
        self._say(text)

    def cmd_panel(self, arg: str) -> None:
        self.screen.toggle_panel()
        self.screen.print_frame()

    def cmd_details(self, arg: str = "") -> None:
        on = self.view.toggle_details()
        if self.screen.mode == "side":
            self.screen.print_frame()
        else:
            self.screen.print(render_entries(self.view.current_turn_entries(), on))
        self.screen.print(Text(f"tool details {'on' if on else 'off'}", style="dim"))

    def cmd_last(self, arg: str) -> None:
        self.screen.print(render_entries(self.view.current_turn_entries(), self.view.details))


def resumed_lines(services: Any, resumed: Resumed) -> tuple[str, ...]:
    """The continued conversation's earlier turns, as they were said (questions as typed, answers)."""
    how = "" if resumed.exact else " (rebuilt from memory.db)"
    lines = [f"continuing conversation {resumed.session_id}: {resumed.turns} earlier turn(s){how}"]
    questions = iter(services.agent.user_messages)
    for message in services.agent.history:
        content = message.get("content")
        if message.get("role") == "user":
            lines.append(f"› {next(questions, content if isinstance(content, str) else '')}")
        elif message.get("role") == "assistant" and isinstance(content, str) and not message.get("tool_calls"):
            lines.append(content)
    return tuple(lines)


def run_chat(settings: Settings, *, no_panel: bool, progress: Callable[[str, int, int], None] | None,
             resume_last: bool = False) -> int:
    """The ``chat`` command (``resume_last``: ``--continue``). Returns the exit code (0, or the code of a
    fatal error)."""
    view = ChatView()
    tty_out, tty_in = is_terminal(sys.stdout), sys.stdin.isatty()
    if tty_out:
        screen: Any = Screen(make_console(), view, pref="off" if no_panel else "auto")
    else:
        screen = PlainScreen(sys.stdout, view, status=not no_panel)
    asker = Asker(screen, settings, interactive=tty_in, terminal=tty_in and tty_out)
    say = (lambda msg: screen.print(Text(msg, style="dim")))
    try:
        client, server = connect(settings, announce=say, progress=progress)
    except GaiaError as exc:
        print(f"gaia-lite: error: {exc}", file=sys.stderr)
        return exc.exit_code
    services = None
    warnings = _WarningBuffer() if tty_out else None
    try:
        services = build_services(settings, client, server=server, approve=asker.approve,
                                  ask_user=asker.ask_user, confirm_path=asker.confirm_path,
                                  progress=screen.progress)
        intro = resumed_lines(services, resume(services, None)) if resume_last else ()
        prepare_prefix(services)

        def make_reader(session: ChatSession) -> Any:
            if tty_out and tty_in:
                return LineReader(settings.paths.history_file, SlashCompleter(session.load_names),
                                  on_details=session.cmd_details)
            return PlainReader(echo=None if tty_in else (lambda t: screen.print(Text(f"› {t}"))))

        session = ChatSession(services, view, screen, make_reader, warnings)
        session.intro = intro
        if warnings is not None:
            with _warnings_to(warnings):
                return session.run()
        return session.run()
    except GaiaError as exc:
        print(f"gaia-lite: error: {exc}", file=sys.stderr)
        return exc.exit_code
    finally:
        if services is not None:
            services.close()
        elif server is not None:
            server.stop()
