"""``gaia-lite skills``: list, show, add, enable/disable, delete and synthesize procedures.

Procedures live in the memory database (``memory.db`` under the data dir;
``GAIA_HOME`` moves it). Every command except ``synthesize`` works offline;
``synthesize`` needs the chat model (it starts the embedded server if no
server answers, like ``ask`` does).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from typing_extensions import Annotated

from .outcome import JsonOpt, emit

__all__ = ["skills_app"]

skills_app = typer.Typer(
    help="Learned procedures (skills): what the SKILL tier loads ahead of semantic matches.\n\n"
         "Teach one by hand with `gaia-lite skills add FILE.md`, or let gaia-lite learn them from "
         "repeated successful runs with `gaia-lite skills synthesize`.",
    no_args_is_help=True,
)

def _fail(message: str, code: int = 1) -> None:
    typer.echo(f"gaia-lite: error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def _opened(*, embed: bool = True, cli: dict[str, Any] | None = None) -> Iterator[tuple[Any, Any, Any]]:
    """(settings, ProcedureStore, MemoryStore), closed afterwards; errors become one line."""
    # kept lazy: --help imports this module; the stores load numpy
    from gaia_lite.config import load_settings
    from gaia_lite.errors import GaiaError

    try:
        settings = load_settings(cli or {})
    except GaiaError as exc:
        _fail(str(exc), exc.exit_code)
    if settings.memory_disabled:
        _fail("memory is disabled (GAIA_MEMORY_DISABLED), and skills are stored in memory; unset it first", 2)
    # kept lazy: --help imports this module; the stores load numpy
    from gaia_lite.memory.store import MemoryStore
    from gaia_lite.skills.store import ProcedureStore

    embedder = None
    if embed:
        # kept lazy: --help imports this module; the stores load numpy
        from gaia_lite.cli.wiring import build_embedder

        try:
            embedder = build_embedder(settings, settings.base_url)
        except Exception as exc:
            _fail(f"cannot build the embedder: {exc}", 2)
    try:
        memory = MemoryStore(settings.paths.memory_db)
    except Exception as exc:
        _fail(f"cannot open the memory database {settings.paths.memory_db}: {exc}")
    try:
        yield settings, ProcedureStore(memory, embedder), memory
    finally:
        memory.close()


def _proc_json(p: Any) -> dict[str, Any]:
    return {"name": p.name, "when_to_use": p.when_to_use, "body": p.body, "tools_required": list(p.tools_required),
            "tool_sequence": [s.to_json() for s in p.tool_sequence], "success_count": p.success_count,
            "attempt_count": p.attempt_count, "enabled": p.enabled, "provenance": p.provenance,
            "created_at": p.created_at, "last_used_at": p.last_used_at}


def _known_tools() -> tuple[set[str], set[str]]:
    """(every doc-profile tool name, the CORE names); empty sets if the catalog is unavailable."""
    try:
        # kept lazy: --help imports this module; the stores load numpy
        from gaia_lite.loader.bundles import load_bundles
        from gaia_lite.tools.catalog import DOC_ORDER

        core = set(load_bundles("doc").core)
        return set(DOC_ORDER) | core, core
    except Exception:
        return set(), set()


@skills_app.command("list")
def list_cmd(json_out: JsonOpt = False) -> None:
    """Every stored procedure: name, on/off, successes/attempts, origin and tools."""
    with _opened(embed=False) as (_, store, _m):
        procs = store.all()
    emit([_proc_json(p) for p in procs], json_out, lambda: _print_procedures(procs), ascii_only=True)


def _print_procedures(procs: list[Any]) -> None:
    if not procs:
        typer.echo("No procedures yet. Add one with `gaia-lite skills add FILE.md`, or run "
                   "`gaia-lite skills synthesize` after a few similar multi-step requests.")
        return
    width = max(len(p.name) for p in procs)
    typer.echo(f"{'NAME':<{width}}  ON   USED   ORIGIN       TOOLS")
    for p in procs:
        used = f"{p.success_count}/{p.attempt_count}"
        typer.echo(f"{p.name:<{width}}  {'yes' if p.enabled else 'no ':<3}  {used:<5}  {p.provenance:<11}  "
                   f"{', '.join(p.tools_required)}")


@skills_app.command("show")
def show_cmd(name: Annotated[str, typer.Argument(help="The procedure's name.")], json_out: JsonOpt = False) -> None:
    """One procedure as a skill file (re-addable with `skills add`), with its counters."""
    with _opened(embed=False) as (_, store, _m):
        proc = store.get(name)
    if proc is None:
        _fail(f"no procedure named {name!r} (see `gaia-lite skills list`)")
    emit(_proc_json(proc), json_out, lambda: _print_procedure(proc), ascii_only=True)


def _print_procedure(proc: Any) -> None:
    from gaia_lite.skills.procedure import render_skill_file  # kept lazy: --help imports this module

    typer.echo(render_skill_file(proc), nl=False)
    seq = " -> ".join(s.tool for s in proc.tool_sequence)
    typer.echo(f"\n# {'enabled' if proc.enabled else 'disabled'}; {proc.success_count} successes in "
               f"{proc.attempt_count} uses; {proc.provenance}, created {proc.created_at[:19]}"
               + (f", last used {proc.last_used_at[:19]}" if proc.last_used_at else "")
               + (f"\n# recorded sequence: {seq}" if seq else ""))


@skills_app.command("add")
def add_cmd(
    file: Annotated[Path, typer.Argument(help="A markdown file: front matter (name, when_to_use, tools_required), then the steps.")],
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a procedure of the same name (its counters are kept).")] = False,
) -> None:
    """Teach a procedure by hand from a markdown skill file (see docs/skills.md)."""
    # kept lazy: --help imports this module; the stores load numpy
    from gaia_lite.skills.procedure import SkillFormatError, parse_skill_file
    from gaia_lite.skills.store import SkillStoreError

    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}", 2)
    try:
        spec = parse_skill_file(text, default_name=file.stem)
    except SkillFormatError as exc:
        _fail(f"{file}: {exc}", 2)
    known, core = _known_tools()
    if known:
        unknown = [t for t in spec.tools_required if t not in known]
        if unknown:
            typer.echo(f"warning: not doc-profile tools, they will be ignored: {', '.join(unknown)}", err=True)
        in_core = [t for t in spec.tools_required if t in core]
        if in_core and len(in_core) == len(spec.tools_required):
            typer.echo("note: every tool listed is CORE (always loaded), so this procedure only adds prompt "
                       "guidance", err=True)
    with _opened() as (_, store, _m):
        try:
            proc = store.add(spec, provenance="manual", replace=replace)
        except SkillStoreError as exc:
            _fail(str(exc) + ("" if replace else "; pass --replace to overwrite it, or delete it first"))
    typer.echo(f"{'Replaced' if replace else 'Added'} {proc.name} (tools: {', '.join(proc.tools_required) or 'none'}).")


def _toggle(name: str, enabled: bool) -> None:
    with _opened(embed=False) as (_, store, _m):
        found = store.set_enabled(name, enabled)
    if not found:
        _fail(f"no procedure named {name!r} (see `gaia-lite skills list`)")
    typer.echo(f"{'Enabled' if enabled else 'Disabled'} {name}.")


@skills_app.command("disable")
def disable_cmd(name: Annotated[str, typer.Argument(help="The procedure's name.")]) -> None:
    """Stop recalling a procedure (kept, with its counters; `enable` brings it back)."""
    _toggle(name, False)


@skills_app.command("enable")
def enable_cmd(name: Annotated[str, typer.Argument(help="The procedure's name.")]) -> None:
    """Recall a disabled procedure again."""
    _toggle(name, True)


@skills_app.command("delete")
def delete_cmd(
    name: Annotated[str, typer.Argument(help="The procedure's name.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a procedure for good (synthesis will not rebuild it from the same runs)."""
    if not yes and sys.stdin.isatty() and not typer.confirm(f"Delete procedure {name}?"):
        raise typer.Exit(1)
    with _opened(embed=False) as (_, store, _m):
        found = store.delete(name)
    if not found:
        _fail(f"no procedure named {name!r} (see `gaia-lite skills list`)")
    typer.echo(f"Deleted {name}.")


@skills_app.command("synthesize")
def synthesize_cmd(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show which clusters of runs qualify; no model call, nothing stored.")] = False,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model id on the server (env GAIA_MODEL).", show_default=False)] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server URL (env LEMONADE_BASE_URL).", show_default=False)] = None,
    local_server: Annotated[Optional[bool], typer.Option("--local-server/--no-local-server", help="Start the embedded llama-server when no server answers.", show_default=False)] = None,
    json_out: JsonOpt = False,
) -> None:
    """Distil repeated successful multi-step runs into procedures (one model call per cluster)."""
    # kept lazy: --help imports this module; the stores load numpy
    from gaia_lite.errors import GaiaError
    from gaia_lite.skills.synthesis import synthesize

    cli = {"model": model, "base_url": base_url, "local_server": local_server}
    with _opened(cli=cli) as (settings, store, _m):
        client = server = None
        try:
            if not dry_run:
                # kept lazy: --help imports this module; the stores load numpy
                from gaia_lite.cli.services import connect

                client, server = connect(settings, announce=lambda msg: typer.echo(msg, err=True))
            known, _core = _known_tools()
            report = synthesize(store, client, registry=known or None, dry_run=dry_run)
        except GaiaError as exc:
            _fail(str(exc), exc.exit_code)
        except Exception as exc:  # embedder trouble and the like: one line, not a traceback
            _fail(f"synthesis failed: {exc}")
        finally:
            if server is not None:
                server.stop()
    emit({"spans": report.spans, "clusters": report.clusters, "created": report.created,
          "outcomes": [{"status": o.status, "name": o.name, "tools_required": list(o.tools_required),
                        "runs": len(o.span_ids), "goals": list(o.goals), "detail": o.detail}
                       for o in report.outcomes]}, json_out, lambda: _print_synthesis(report), ascii_only=True)


def _print_synthesis(report: Any) -> None:
    typer.echo(f"{report.spans} recorded runs with 3+ tool steps, {report.clusters} groups of similar goals, "
               f"{len(report.outcomes)} qualifying (3+ runs, 80%+ success).")
    for o in report.outcomes:
        label = {"created": f"created {o.name}", "covered": f"covered by {o.name}", "declined": "skipped by the model",
                 "failed": "failed", "planned": "would be distilled"}[o.status]
        typer.echo(f"- {label}: {len(o.span_ids)} runs, tools {', '.join(o.tools_required) or 'none'}; "
                   f"e.g. {o.goals[0][:80]!r}" + (f" ({o.detail})" if o.detail and o.status != "planned" else ""))
