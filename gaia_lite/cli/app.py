"""The ``gaia-lite`` command line.

    gaia-lite chat                      talk to the agent (interactive)
    gaia-lite ask "QUESTION"            one question, one answer (scripts: --json)
    gaia-lite tools list|select|companions|examples   the tool registry, what the loader picks and learned
    gaia-lite eval recall|cost|ttft|log|tasks   benchmarks of the loader
    gaia-lite serve                     run the embedded llama-server for other clients
    gaia-lite skills ...                learned procedures
    gaia-lite index|memory|config|models|logs|doctor   the state around the agent (own modules)
    gaia-lite mcp add|import|list|tools|remove        MCP servers as tools (own module)

Heavy imports (openai, numpy, onnxruntime) happen inside commands so that
``--help`` stays fast; each such import says so. The commands with modules of their own are
imported only when they run (``LAZY_COMMANDS``, cli/lazy.py): ``--help`` lists them from the
table's one-line help, and a command that needs no model imports no model code.
"""

from __future__ import annotations

import functools
import logging
import sys
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.cli.lazy import LazyCommand, lazy_group, mounted, stand_ins
from gaia_lite.cli.options import DynamicOpt, MaxToolsOpt, PresetOpt, TauOpt, agent_command, settings_from_flags
from gaia_lite.cli.outcome import emit, json_option
from gaia_lite.cli.waiting import WaitingNotice
from gaia_lite.errors import GaiaError
from gaia_lite.events import Event, Notice, TextDelta, ToolCallFinished, TurnFailed, TurnFinished


# ---------------------------------------------------------------- the commands in modules of their own
# Each is imported when it runs (cli/lazy.py); the help line is what `gaia-lite --help` lists, the
# first paragraph of the command's own help (tests/test_cli.py keeps them equal).
def _mount_serve(group: typer.Typer, name: str) -> None:
    from gaia_lite.cli.serve import serve

    group.command(name, help=(serve.__doc__ or "").strip() or None)(serve)


def _mount_eval(group: typer.Typer, name: str) -> None:
    from gaia_lite.cli import eval_cmd

    eval_app = typer.Typer(help=LAZY_COMMANDS["eval"].help, no_args_is_help=True)
    eval_cmd.register(eval_app)
    group.add_typer(eval_app, name=name)


# In the order `--help` lists them: the commands after ask and chat, the groups after tools.
LAZY_COMMANDS: dict[str, LazyCommand] = {
    "serve": LazyCommand("Run a local OpenAI-compatible llama-server until Ctrl-C (`--stop`: stop the kept-alive ones).",
                         _mount_serve),
    "index": LazyCommand("Add files and folders to the document index the agent searches, with progress and a summary\n"
                         "of what was skipped and why (secret, binary, too big, unsupported, outside the allowed "
                         "folders).", mounted("gaia_lite.cli.index_cmd:index")),
    "models": LazyCommand("The server's models, marking the one in use and whether it calls tools natively or as "
                          "text;\nthen the embedded runtime's models, their size and state, and how to add more.",
                          mounted("gaia_lite.cli.models_cmd:models_app"), group=True),
    "logs": LazyCommand("Past turns: question, answer, tools called, loaded set and time to first token.",
                        mounted("gaia_lite.cli.logs_cmd:logs")),
    "doctor": LazyCommand("Check everything a bad setup can break, and say how to fix each: config, server, model,\n"
                          "context window, embedder, memory database, document index, disk space, state folder; and\n"
                          "suggest the bigger model where the memory allows.",
                          mounted("gaia_lite.cli.doctor_cmd:doctor")),
    "eval": LazyCommand("Benchmarks that measure the loader: recall, cost, TTFT, logs, tasks.", _mount_eval, group=True),
    "skills": LazyCommand("Learned procedures (skills): what the SKILL tier loads ahead of semantic matches.",
                          mounted("gaia_lite.cli.skills_cmd:skills_app"), group=True),
    "memory": LazyCommand("What the agent remembers: facts, preferences and past conversations.",
                          mounted("gaia_lite.cli.memory_cmd:memory_app"), group=True),
    "config": LazyCommand("Show, locate and edit gaia-lite's settings (flag > env > config file > default).",
                          mounted("gaia_lite.cli.config_cmd:config_app"), group=True),
    "mcp": LazyCommand("MCP servers as tools: each server is one bundle (`mcp_NAME`) the loader selects from.",
                       mounted("gaia_lite.cli.mcp_cmd:mcp_app"), group=True),
}


app = typer.Typer(
    name="gaia-lite",
    help="A local terminal chat agent that loads only the tools each turn needs.\n\n"
         "Start with `gaia-lite chat`, or `gaia-lite ask \"list the files in this folder\"`. "
         "With no server running, gaia-lite starts its embedded llama-server "
         "(install it with scripts/setup.sh). Point it at Lemonade or any "
         "OpenAI-compatible server with --base-url or LEMONADE_BASE_URL.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    cls=lazy_group(LAZY_COMMANDS),
)
tools_app = typer.Typer(help="Inspect the tool registry and the loader's choices.", no_args_is_help=True)
app.add_typer(tools_app, name="tools")

# --json of ask and the tools commands: the fields each prints
AskJson = json_option("Print one JSON object: answer, tools_called, ttft_s, prompt_tokens, loaded_tools.")
ToolsListJson = json_option('Print [{"name", "bundles", "core", "text_tokens", "native_tokens"}].')
ToolsSelectJson = json_option('Print {"loaded", "reasons", "matched", "scores"}.')
CompanionsJson = json_option('Print [{"tool", "companion", "learned_turns", "prior", "tool_turns", "confidence", "fires"}].')
ExamplesJson = json_option('Print [{"tool", "text", "created_at"}] (with --forget: {"forgotten": N}).')


def setup_logging(settings: Any, *, log_file: Path | None = None, stderr: bool = False) -> None:
    """INFO lines from gaia_lite (TOOL_LOADER, TOOL_CALLS) go to the state log file,
    optionally to ``--log`` and stderr. WARNINGs always reach stderr."""
    root = logging.getLogger("gaia_lite")
    root.setLevel(logging.INFO)
    root.propagate = False
    for h in list(root.handlers):
        root.removeHandler(h)
    fmt = logging.Formatter("%(asctime)s | %(levelname)s | %(name)s | %(message)s")
    settings.paths.state_dir.mkdir(parents=True, exist_ok=True)
    handlers: list[logging.Handler] = [logging.FileHandler(settings.paths.log_file, encoding="utf-8")]
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    err = logging.StreamHandler(sys.stderr)
    err.setLevel(logging.INFO if stderr else logging.WARNING)
    err.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    for h in handlers:
        h.setFormatter(fmt)
        root.addHandler(h)
    root.addHandler(err)


def _approver(settings: Any, interactive: bool):
    from gaia_lite.registry.execute import Decision  # kept lazy: the registry loads numpy, --help does not need it

    def approve(spec: Any, args: dict[str, Any]) -> Decision:
        if settings.auto_approve:
            return Decision.ALLOW
        if not interactive:
            return Decision.DENY
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        typer.echo(f"Allow {spec.name}({shown[:200]})? [y]es / [N]o / [a]lways: ", err=True, nl=False)
        answer = sys.stdin.readline().strip().lower()
        return {"y": Decision.ALLOW, "yes": Decision.ALLOW, "a": Decision.ALWAYS,
                "always": Decision.ALWAYS}.get(answer, Decision.DENY)

    return approve


def _progress_printer():
    """A rich progress bar for model assembly and indexing (stderr)."""
    state: dict[str, Any] = {}

    def progress(label: str, done: int, total: int) -> None:
        # kept lazy: rich.progress costs ~20 ms, and only a run that assembles a model or indexes draws a bar
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

        if "bar" not in state:
            bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn()
                           if total > 10_000 else TextColumn("{task.completed}/{task.total}"),
                           TimeRemainingColumn(), transient=True)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task(label, total=total)
        bar, task = state["bar"], state["task"]
        bar.update(task, completed=done, total=total, description=label)
        if done >= total:
            bar.stop()
            state.clear()

    return progress


# ---------------------------------------------------------------- ask
@app.command()
@agent_command
def ask(
    question: Annotated[str, typer.Argument(help="What to ask, in quotes.")],
    settings: Any, log: Optional[Path],
    json_out: AskJson = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also show TOOL_LOADER lines and info notices on stderr.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Nothing on stderr but errors (no server line, tool lines or warnings).")] = False,
    cont: Annotated[bool, typer.Option("--continue", "-c", help="Continue the last conversation (ask or chat) instead of starting a new one.")] = False,
    conversation: Annotated[Optional[str], typer.Option("--conversation", help="Continue this conversation (an id from `gaia-lite memory list -c`).", show_default=False)] = None,
) -> None:
    """Ask one question and print the answer (exit 3 when no server can be reached).

    The answer alone goes to stdout. stderr gets the server-start line, one line per tool call
    (`→ read_file(file_path='notes.md') ✓ 0.02s`) and warnings; `--quiet` keeps only errors.

    Example: `gaia-lite ask "what is in notes.md?"`, then `gaia-lite ask -c "and how big is it?"`
    """
    # kept lazy: the composition root imports the agent and openai, which --help does not need
    from gaia_lite.cli.resume import resume, save_state
    from gaia_lite.cli.services import build_services, connect, stdin_is_tty
    from gaia_lite.cli.shared_prefix import prepare_prefix
    from gaia_lite.cli.turnlog import TurnRecorder  # kept lazy: only ask records turns

    setup_logging(settings, log_file=log, stderr=verbose)
    say = (lambda msg: typer.echo(msg, err=True))
    progress = (lambda _msg: None) if quiet else say  # errors still go to say
    client, server = connect(settings, announce=progress, progress=None if quiet else _progress_printer())
    services = None
    try:
        interactive = stdin_is_tty()
        services = build_services(settings, client, server=server, approve=_approver(settings, interactive),
                                  confirm_path=_path_confirmer() if interactive else None,
                                  progress=None if quiet else _progress_printer())
        if cont or conversation:
            resumed = resume(services, conversation)
            progress(f"continuing conversation {resumed.session_id} ({resumed.turns} earlier turn(s)"
                     + ("" if resumed.exact else ", rebuilt from memory.db") + ")")
        prepare_prefix(services, progress if verbose else None)
        finished: TurnFinished | None = None
        failed: TurnFailed | None = None
        streamed = False
        turns = TurnRecorder(settings.paths.turns_file, frontend="ask", client=services.client)
        with WaitingNotice(progress, settings.first_byte_timeout) as waiting:
            for ev in turns.wrap(services.agent.run(question)):
                waiting.seen(ev)
                finished, failed, streamed = _show_ask_event(ev, json_out, verbose, progress, finished, failed,
                                                             streamed)
        save_state(services)
        if failed is not None:
            say(f"gaia-lite: error: {failed.error}")
            raise typer.Exit(failed.exit_code)
        assert finished is not None
        # a streamed answer is on screen already: end its line
        emit(_ask_result(finished, services), json_out, "" if streamed else finished.answer, ascii_only=True)
    finally:
        if services is not None:
            services.close()
        elif server is not None:
            server.stop()


def _ask_result(finished: TurnFinished, services: Any) -> dict[str, Any]:
    """What ``ask --json`` prints."""
    return {"answer": finished.answer, "tools_called": list(finished.tools_called),
            "ttft_s": finished.ttft_s, "prompt_tokens": finished.prompt_tokens,
            "cached_tokens": finished.cached_tokens, "loaded_tools": list(finished.loaded_tools),
            "steps": finished.steps, "model": services.client.model,
            "dynamic_tools": services.selector.active,
            "off_state": services.selector.off_state}


def _show_ask_event(ev: Event, json_out: bool, verbose: bool, progress: Callable[[str], None],
                    finished: TurnFinished | None, failed: TurnFailed | None,
                    streamed: bool) -> tuple[TurnFinished | None, TurnFailed | None, bool]:
    """Print one agent event for `ask`: answer text on stdout, progress on stderr (``progress``).
    Return (finished, failed, streamed) updated."""
    if isinstance(ev, TextDelta) and not json_out:
        typer.echo(ev.text, nl=False)
        streamed = True
    elif isinstance(ev, ToolCallFinished):
        if streamed and not json_out:  # a tool line never lands in the middle of the answer's line
            typer.echo("")
            streamed = False
        progress(tool_line(ev))
    elif isinstance(ev, Notice) and (ev.level == "warning" or verbose):
        progress(f"{ev.level}: {ev.message}")
    elif isinstance(ev, TurnFinished):
        finished = ev
    elif isinstance(ev, TurnFailed):
        failed = ev
    return finished, failed, streamed


def tool_line(ev: ToolCallFinished, width: int = 100) -> str:
    """``→ browse_directory(directory_path='.') ✓ 0.02s``; a call that did not succeed ends with ✗
    and why."""
    args = ", ".join(f"{k}={v!r}" for k, v in ev.arguments.items())
    if len(args) > width:
        args = args[:width - 1] + "…"
    ok = ev.outcome == "ok" and ev.status not in ("error", "denied")
    line = f"→ {ev.name}({args}) {'✓' if ok else '✗'} {ev.duration_s:.2f}s"
    if not ok:
        why = str(ev.result.get("error") or ev.outcome)
        line += f" ({why[:width] + '…' if len(why) > width else why})"
    return line


def _path_confirmer():
    def confirm(question: str) -> bool:
        typer.echo(f"{question} [y/N]: ", err=True, nl=False)
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return confirm


# ---------------------------------------------------------------- chat
@app.command()
@agent_command
def chat(
    settings: Any, log: Optional[Path],
    no_panel: Annotated[bool, typer.Option("--no-panel", help="Hide the side panel of loaded tools and TOOL_LOADER lines.")] = False,
    cont: Annotated[bool, typer.Option("--continue", "-c", help="Resume the last conversation (ask or chat) with its history.")] = False,
) -> None:
    """Chat with the agent. Type /help inside for commands; Ctrl-C cancels an answer, Ctrl-D quits."""
    from gaia_lite.cli.chat import run_chat  # kept lazy: prompt-toolkit and the agent are not needed for --help

    setup_logging(settings, log_file=log)
    raise typer.Exit(run_chat(settings, no_panel=no_panel, progress=_progress_printer(), resume_last=cont))


# ---------------------------------------------------------------- tools
@tools_app.command("list")
def tools_list(
    json_out: ToolsListJson = False,
    dynamic_tools: DynamicOpt = None,
) -> None:
    """Every registered tool with its bundles, CORE mark and prompt cost on both render paths."""
    from gaia_lite.cli.tools_cmd import print_tools_table, tools_list_rows  # kept lazy: loads numpy

    settings = settings_from_flags({"dynamic_tools": dynamic_tools})
    rows, tokenizer = tools_list_rows(settings)
    emit(rows, json_out, lambda: print_tools_table(rows, tokenizer), ascii_only=True)


@tools_app.command("select")
def tools_select(
    query: Annotated[str, typer.Argument(help="The user message to select tools for.")],
    history: Annotated[Optional[List[str]], typer.Option("--history", help="An earlier user message (repeatable, oldest first).")] = None,
    json_out: ToolsSelectJson = False,
    tau: TauOpt = None, max_tools: MaxToolsOpt = None, preset: PresetOpt = None,
) -> None:
    """Show which tools the loader would load for QUERY, and why (offline: no model server needed)."""
    from gaia_lite.cli.tools_cmd import print_selection, select_for_query  # kept lazy: loads numpy

    settings = settings_from_flags({"tau": tau, "max_tools": max_tools, "preset": preset})
    report = select_for_query(settings, query, list(history or []))
    emit(report, json_out, lambda: print_selection(report), ascii_only=True)


@tools_app.command("companions")
def tools_companions(
    json_out: CompanionsJson = False,
) -> None:
    """Workflow companions learned from past turns: when a tool is selected, the tools turns used with it
    come too (within the cap, after direct matches).

    Example: `gaia-lite tools companions --json`
    """
    from gaia_lite.cli.tools_cmd import companion_rows, print_companions  # kept lazy: loads numpy

    rows = companion_rows(settings_from_flags({}))
    emit(rows, json_out, lambda: print_companions(rows), ascii_only=True)


@tools_app.command("examples")
def tools_examples(
    tool: Annotated[Optional[str], typer.Argument(help="Only this tool's examples.", show_default=False)] = None,
    forget: Annotated[bool, typer.Option("--forget", help="Delete the learned examples (of TOOL, or all).")] = False,
    json_out: ExamplesJson = False,
) -> None:
    """Example requests learned from your own wording: a message whose turn called a tool successfully
    becomes an example of that tool (at most 8 per tool, the newest kept, stored in memory.db).

    Example: `gaia-lite tools examples analyze_data_file --forget`
    """
    from gaia_lite.cli.tools_cmd import example_rows, print_examples  # kept lazy: loads numpy

    rows, forgotten = example_rows(settings_from_flags({}), tool, forget)
    emit({"forgotten": forgotten} if forget else rows, json_out, lambda: print_examples(rows, tool, forgotten, forget),
         ascii_only=True)


# ---------------------------------------------------------------- the commands in modules of their own
stand_ins(app, LAZY_COMMANDS)


@functools.cache
def command() -> Any:
    """The click command typer builds from ``app``: reading every command's signature costs ~40 ms, so it
    is built once per process (the warm worker builds it before forking, and its children start with it)."""
    return typer.main.get_command(app)


def main() -> None:
    """Entry point: one-line errors, no tracebacks, meaningful exit codes."""
    try:
        command()()
    except GaiaError as exc:
        typer.echo(f"gaia-lite: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("", err=True)
        sys.exit(130)
    except OSError as exc:  # a folder or file gaia-lite needs: one line, not a traceback
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        typer.echo(f"gaia-lite: error: {where}{exc.strerror or exc}", err=True)
        sys.exit(1)
