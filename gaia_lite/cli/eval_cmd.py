"""``gaia-lite eval recall|cost|ttft|log|tasks``: the benchmarks, as commands of the product.

``register(eval_app)`` mounts the five commands (``cli/app.py`` calls it).
The measuring lives in ``gaia_lite.eval``; this module parses flags, builds
the services and the server, prints tables and charts, and maps outcomes to
exit codes (0 ok, 1 below a target or failed, 2 bad input, 3 no server).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any, Iterator, List, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.cli.options import BaseUrlOpt, MaxToolsOpt, PresetOpt, TauOpt
from gaia_lite.errors import ConfigError, ServerUnreachable

__all__ = ["register"]

# ---------------------------------------------------------------- options (own copies: app.py imports us)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model id on a running server; when gaia-lite starts its embedded server: qwen2.5-coder-0.5b (default), qwen2.5-coder-1.5b or a .gguf path.", show_default=False)]
LocalOpt = Annotated[Optional[bool], typer.Option("--local-server/--no-local-server", help="Start the embedded llama-server when no server answers (default on); it is stopped afterwards.", show_default=False)]
NativeOpt = Annotated[Optional[bool], typer.Option("--native-tools/--text-tools", help="Measure only this render path. Default: both.", show_default=False)]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="auto (the server's /tokenize when one answers, else chars/4), server, chars or minilm.")]
CtxOpt = Annotated[int, typer.Option("--ctx", help="Context size of the embedded server, when gaia-lite starts it.")]


def _settings(**flags: Any) -> Any:
    from gaia_lite.config import load_settings

    keys = {"model": "model", "base_url": "base_url", "tau": "tau", "max_tools": "max_tools",
            "preset": "loader_preset", "local_server": "auto_start_server", "max_steps": "max_steps"}
    return load_settings({field: flags.get(flag) for flag, field in keys.items()})


def _scratch_paths(settings: Any, root: Path) -> Any:
    """Fresh config/data/state dirs under ``root``; the tool-vector cache stays shared (it is pure)."""
    from gaia_lite.config import Paths

    return Paths(root / "config.toml", root / "data", root / "state", settings.paths.cache_dir)


def _say(msg: str) -> None:
    typer.echo(msg, err=True)


@contextlib.contextmanager
def _live_client(settings: Any, model: str | None, ctx: int) -> Iterator[tuple[Any, Any]]:
    """(ChatClient, LocalServer or None): the configured server, else the embedded one (stopped on exit)."""
    from gaia_lite.llm.client import ChatClient

    sampling = {"repeat_penalty": 1.1}  # as the chat client of `ask` and `chat`
    client = ChatClient(settings.base_url, api_key=settings.api_key, model=model or settings.model,
                        sampling=sampling)
    if client.health():
        yield client, None
        return
    if not settings.auto_start_server:
        raise ServerUnreachable(settings.base_url)
    from gaia_lite import runtime

    try:
        server = runtime.ensure_local_server(None, model=model or runtime.DEFAULT_MODEL, ctx_size=ctx)
    except runtime.LocalRuntimeError as exc:
        raise ServerUnreachable(settings.base_url, str(exc)) from None
    assert server is not None
    try:
        _say(f"started the embedded llama-server at {server.base_url} (model {server.alias}, ctx {ctx})")
        yield ChatClient(server.base_url, model=server.alias, sampling=sampling), server
    finally:
        server.stop()


def _table(title: str, columns: list[str], rows: list[list[Any]]) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*("-" if v is None else str(v) for v in row))
    return table


def _print(*renderables: Any) -> None:
    from rich.console import Console

    console = Console()
    for r in renderables:
        console.print(r)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"


def _num(v: float | None, nd: int = 2) -> str:
    return "-" if v is None else f"{v:.{nd}f}"


# ---------------------------------------------------------------- recall
def recall_cmd(
    dataset: Annotated[Path, typer.Argument(help="A judged set in the format of shared/evaldata/README.md.")],
    registry: Annotated[str, typer.Option("--registry", help="doc: our 37 tools and bundles; dataset: the set's own tools.")] = "doc",
    tau: TauOpt = None, max_tools: MaxToolsOpt = None, preset: PresetOpt = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="Score a fixed random sample of N cases.", show_default=False)] = None,
    cases: Annotated[bool, typer.Option("--cases", help="Include (JSON) or list (table) the per-case results.")] = False,
    tokenizer: TokenizerOpt = "auto", json_out: JsonOpt = False, base_url: BaseUrlOpt = None,
) -> None:
    """Offline recall of the loader on a judged set: strict, before any escape hatch."""
    from gaia_lite.cli.services import build_embedder
    from gaia_lite.eval.recall import run_recall
    from gaia_lite.eval.tokens import TokenCounterError, make_token_counter

    if registry not in ("doc", "dataset"):
        raise ConfigError(f"--registry {registry!r} is invalid; expected doc or dataset")
    if not dataset.is_file():
        raise ConfigError(f"dataset {dataset} does not exist")
    settings = _settings(tau=tau, max_tools=max_tools, preset=preset, base_url=base_url)
    try:
        counter = make_token_counter(tokenizer, settings.base_url)
    except (TokenCounterError, ValueError) as exc:
        raise ConfigError(f"--tokenizer {tokenizer}: {exc}") from None
    try:
        report = run_recall(dataset, registry_mode=registry, preset=settings.loader_preset, threshold=settings.tau,
                            max_tools=settings.max_tools, embedder=build_embedder(settings, settings.base_url),
                            token_counter=counter, limit=limit, include_cases=cases,
                            cache_dir=settings.paths.cache_dir / "eval-vectors")
    except (ValueError, KeyError) as exc:
        raise ConfigError(f"{dataset}: {exc}") from None
    if json_out:
        typer.echo(json.dumps(report))
        return
    rows = [["recall (strict)", _pct(report["recall"])],
            *[[f"  {k}", _pct(v)] for k, v in report["recall_by_kind"].items()],
            ["cases scored / skipped", f"{report['scored_cases']} / {report['skipped_cases']}"],
            ["mean loaded tools", _num(report["mean_loaded"], 1)],
            ["native tokens: loaded / all", f"{report['mean_native_tokens']:.0f} / {report['baseline_native_tokens']}"],
            ["text tokens: loaded / all", f"{report['mean_text_tokens']:.0f} / {report['baseline_text_tokens']}"],
            ["r@1 / r@5 / r@10", f"{_pct(report['r_at_1'])} / {_pct(report['r_at_5'])} / {_pct(report['r_at_10'])}"],
            ["mrr", _num(report["mrr"], 3)],
            ["selection ms p50 / p95", f"{report['selection_ms_p50']:.1f} / {report['selection_ms_p95']:.1f}"]]
    _print(_table(f"eval recall {dataset.name} (registry {registry}, tokens: {report['tokenizer']})",
                  ["metric", "value"], rows))
    if cases:
        misses = [c for c in report.get("case_results", []) if not c["pass"]]
        _print(_table(f"{len(misses)} missed cases", ["case", "kind", "missing"],
                      [[c["id"], c["kind"], ", ".join(c["missing"])] for c in misses]))


# ---------------------------------------------------------------- cost
def _parse_sizes(raw: str) -> list[int]:
    try:
        sizes = sorted({int(x) for x in raw.split(",") if x.strip()})
    except ValueError:
        raise ConfigError(f"--sizes {raw!r} is invalid; expected whole numbers such as 0,10,100,1000") from None
    if len(sizes) < 2 or sizes[0] < 0:
        raise ConfigError(f"--sizes {raw!r} is invalid; expected at least two sizes >= 0")
    return sizes


@contextlib.contextmanager
def _token_counter(kind: str, settings: Any) -> Iterator[Any]:
    """A token counter; ``server`` starts the embedded server when none answers (and stops it)."""
    from gaia_lite.eval.tokens import ServerTokenCounter, TokenCounterError, make_token_counter

    counter = None
    try:
        counter = make_token_counter(kind, settings.base_url)
    except TokenCounterError as exc:
        if kind != "server" or not settings.auto_start_server:
            raise ConfigError(f"--tokenizer {kind}: {exc}") from None
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if counter is not None:
        yield counter
        return
    with _live_client(settings, None, 8192) as (client, _server):
        yield ServerTokenCounter(client.base_url, name=f"server:{client.resolve_model()}")


def cost_cmd(
    sizes: Annotated[str, typer.Option("--sizes", help="Numbers of cloned tools K for the slope.")] = "0,10,100,1000",
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Also draw cost vs K to this PNG (needs matplotlib).", show_default=False)] = None,
    query: Annotated[Optional[str], typer.Option("--query", help="The fixed loader query for the slope.", show_default=False)] = None,
    bundle_size: Annotated[int, typer.Option("--clone-bundle-size", help="Clones per bundle (each bundle adds a menu line).")] = 5,
    tokenizer: TokenizerOpt = "auto", preset: PresetOpt = None, tau: TauOpt = None, max_tools: MaxToolsOpt = None,
    base_url: BaseUrlOpt = None, json_out: JsonOpt = False,
) -> None:
    """Tool-prompt cost: per tool, baseline, CORE, loaded sets, and the slope as tools are added."""
    from gaia_lite.cli.services import build_embedder
    from gaia_lite.eval import cost

    k = _parse_sizes(sizes)
    if bundle_size < 1:
        raise ConfigError("--clone-bundle-size must be >= 1")
    if plot is not None:
        _require_matplotlib()
    settings = _settings(preset=preset, tau=tau, max_tools=max_tools, base_url=base_url)
    with _token_counter(tokenizer, settings) as counter:
        report = cost.run_cost(embedder=build_embedder(settings, settings.base_url), counter=counter, sizes=k,
                               preset=settings.loader_preset, threshold=settings.tau, max_tools=settings.max_tools,
                               query=query or cost.FIXED_QUERY, clone_bundle_size=bundle_size,
                               cache_dir=settings.paths.cache_dir / "eval-vectors",
                               progress=_say)
    if plot is not None:
        _plot_cost(report, plot)
        report["plot"] = str(plot)
    if json_out:
        typer.echo(json.dumps(report))
        return
    _print_cost(report)


def _print_cost(r: dict[str, Any]) -> None:
    t, n = r["text"], r["native"]
    rows = [["all tools (baseline)", r["tools"], t["baseline_tokens"], n["baseline_tokens"], "100 %", "100 %"],
            ["per tool min / median / max", 1, f"{t['per_tool_min']} / {t['per_tool_median']} / {t['per_tool_max']}",
             f"{n['per_tool_min']} / {n['per_tool_median']} / {n['per_tool_max']}", "", ""],
            ["bundle menu (loader on)", "", r["menu_tokens"], "", "", ""]]
    for s in r["loaded_sets"]:
        rows.append([s["label"], s["n"], s["text_tokens"], s["native_tokens"], _pct(s["text_share"]),
                     _pct(s["native_share"])])
    _print(_table(f"tool-prompt cost (tokens: {r['tokenizer']}; preset {r['preset']}, tau {r['threshold']}, "
                  f"cap {r['max_tools']})", ["set", "tools", "text", "native", "text share", "native share"], rows))
    for label, block in (("fixed query (clones do not match)", r), ("query that matches the clones", r.get("matching"))):
        if not block:
            continue
        s = block["slope"]
        _print(_table(
            f"slope, {label}: {block.get('query', r['slope']['query'])!r}",
            ["K", "off native", "on native", "off text", "on text", "menu", "clones m/l"],
            [[x["k"], x["unfiltered_native"], x["loaded_native"], x["unfiltered_text"], x["loaded_text"],
              x["menu_tokens"], f"{x['clones_matched']}/{x['clones_loaded']}"] for x in block["series"]]
            + [["per tool", _num(s["unfiltered_native"]), _num(s["loaded_native"]),
                _num(s["unfiltered_text"]), _num(s["loaded_text"]), _num(s["loaded_menu"]), ""]]))
    _print(_cost_chart(r))


def _cost_chart(r: dict[str, Any], width: int = 46) -> Any:
    """Cost vs K as bars, one scale per render path (no plotting dependency)."""
    from rich.text import Text

    out = Text(f"cost vs K (clones of {r['slope']['clone_of']}); █ unfiltered  ▓ loader on (tools)  ░ + menu\n")
    for path in ("native", "text"):
        top = max(max(x[f"unfiltered_{path}"], x[f"loaded_{path}"] + x["menu_tokens"]) for x in r["series"]) or 1
        out.append(f"{path} path\n", style="bold")
        for x in r["series"]:
            for label, value, char, extra in (("off", x[f"unfiltered_{path}"], "█", 0),
                                              ("on ", x[f"loaded_{path}"], "▓", x["menu_tokens"])):
                bar = char * max(1, round(width * value / top))
                menu = "░" * round(width * extra / top)
                out.append(f"  K={x['k']:<5} {label} ")
                out.append(bar, style="red" if label == "off" else "green")
                out.append(menu, style="yellow")
                out.append(f" {value}" + (f" + {extra}" if extra else "") + "\n")
    return out


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError("--plot needs matplotlib: pip install matplotlib (the table and the terminal "
                          "chart need nothing)") from None


def _plot_cost(r: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [x["k"] for x in r["series"]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, p in zip(axes, ("native", "text")):
        ax.plot(ks, [x[f"unfiltered_{p}"] for x in r["series"]], "o-", color="tab:red", label="loader off (all tools)")
        ax.plot(ks, [x[f"loaded_{p}"] for x in r["series"]], "o-", color="tab:green", label="loader on (loaded tools)")
        ax.plot(ks, [x[f"loaded_{p}"] + x["menu_tokens"] for x in r["series"]], "o--", color="tab:olive",
                label="loader on + bundle menu")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_yscale("log")
        ax.set_title(f"{p} path")
        ax.set_xlabel(f"K cloned tools ({r['slope']['clone_of']})")
        ax.set_ylabel(f"prompt tokens ({r['tokenizer']})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("gaia-lite eval cost: tool-prompt tokens vs registered tools")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- log
def log_cmd(
    run_log: Annotated[Path, typer.Argument(help="A log with TOOL_LOADER and TOOL_CALLS lines (`--log` of ask/chat, or eval tasks).")],
    min_recall: Annotated[float, typer.Option("--min-recall", help="Exit 1 when recall is below this.")] = 1.0,
    json_out: JsonOpt = False,
) -> None:
    """Recall from a real run: was every called tool loaded in that turn's prompt?"""
    from gaia_lite.eval.logscore import score_file

    if not run_log.is_file():
        raise ConfigError(f"log file {run_log} does not exist")
    score = score_file(run_log)
    report = {"log": str(run_log), **score.to_dict(), "min_recall": min_recall}
    if json_out:
        typer.echo(json.dumps(report))
    else:
        rows = [["sessions / selection turns", f"{report['sessions']} / {report['turns']}"],
                ["scored turns (with TOOL_CALLS)", report["scored_turns"]],
                ["recall (called ⊆ loaded)", _pct(report["recall"])],
                ["recall on turns that called tools", f"{_pct(report['recall_tool_turns'])} of {report['tool_turns']}"],
                ["free recoveries / load_tools calls", f"{report['escape_hatch_count']} / {report['load_tools_count']}"],
                ["escape-hatch rate", _num(report["escape_hatch_rate"], 3)],
                ["tool_set_changes", report["tool_set_changes"]],
                ["turns with the loader off (not scored)", report["unfiltered_turns"]]]
        _print(_table(f"eval log {run_log.name}", ["metric", "value"], rows))
        if report["misses"]:
            _print(_table("missed turns", ["session", "turn", "called", "not loaded"],
                          [[m["session"], m["turn"], ", ".join(m["called"]), ", ".join(m["missing"])]
                           for m in report["misses"]]))
        for w in report["warnings"][:20]:
            _say(f"warning: {w}")
    if score.recall is None:
        _say(f"gaia-lite: no scored turns in {run_log}: it needs TOOL_LOADER selection lines and TOOL_CALLS lines "
             "(run ask/chat with --dynamic-tools --log FILE)")
        raise typer.Exit(1)
    if score.recall < min_recall:
        _say(f"recall {score.recall:.3f} is below --min-recall {min_recall}")
        raise typer.Exit(1)


# ---------------------------------------------------------------- ttft
def _paths(native: bool | None) -> list[str]:
    return ["text", "native"] if native is None else (["native"] if native else ["text"])


def _quiet_services(settings: Any, client: Any, workdir: Path, approve: Any = None) -> Any:
    from gaia_lite.cli.services import build_services

    return build_services(settings, client, approve=approve, workdir=workdir)


def ttft_cmd(
    trials: Annotated[int, typer.Option("--trials", help="Cold first turns and six-turn conversations per arm.")] = 3,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens generated per request (prefill is what is measured).")] = 8,
    rewrite: Annotated[bool, typer.Option("--rewrite", help="Add a third arm: GAIA's prompt layout with an evicting loader (GAIA_PROMPT_LAYOUT=rewrite), to see what the stable layout and the sticky loaded set save.")] = False,
    model: ModelOpt = None, native_tools: NativeOpt = None, preset: PresetOpt = None, tau: TauOpt = None,
    max_tools: MaxToolsOpt = None, base_url: BaseUrlOpt = None, local_server: LocalOpt = None,
    ctx: CtxOpt = 8192, json_out: JsonOpt = False,
) -> None:
    """Live time to first token, loader off vs on, interleaved, on both render paths."""
    from gaia_lite.eval.ttft import run_ttft, samples_to_dicts, summarize
    from gaia_lite.llm.capabilities import is_native_tool_model

    if trials < 1 or max_tokens < 1:
        raise ConfigError("--trials and --max-tokens must be >= 1")
    settings = _settings(model=model, preset=preset, tau=tau, max_tools=max_tools, base_url=base_url,
                         local_server=local_server)
    report: dict[str, Any] = {"trials": trials, "max_tokens": max_tokens, "paths": {}}
    samples_out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gaia-eval-ttft-") as tmp, \
            _live_client(settings, model, ctx) as (client, server):
        model_id = client.resolve_model()
        report.update(model=model_id, server=client.base_url, embedded_server=server is not None,
                      default_path="native" if is_native_tool_model(model_id) else "text",
                      load_average_start=_loadavg())
        base = settings.replace(paths=_scratch_paths(settings, Path(tmp) / "home"))
        workdir = Path(tmp) / "work"
        workdir.mkdir()
        for path in _paths(native_tools):
            arms = {}
            try:
                for arm in ("off", "on", *(("rewrite",) if rewrite else ())):
                    layout = "rewrite" if arm == "rewrite" else base.layout
                    arms[arm] = _quiet_services(base.replace(dynamic_tools=arm != "off", prompt_layout=layout,
                                                             native_tools=path == "native"), client, workdir)
                    if arm == "rewrite" and arms[arm].loader is not None:
                        # the previous default, as a whole: GAIA's layout with an evicting loader
                        arms[arm].loader.settings = arms[arm].loader.settings.replace(sticky=False)
                samples = run_ttft({a: s.agent for a, s in arms.items()}, trials=trials, max_tokens=max_tokens,
                                   progress=lambda m, p=path: _say(f"[{p}] {m}"))
            finally:
                for s in arms.values():
                    s.close()
            report["paths"][path] = summarize(samples)
            samples_out[path] = samples_to_dicts(samples)
    report["load_average_end"] = _loadavg()
    primary = report["default_path"] if report["default_path"] in report["paths"] else next(iter(report["paths"]))
    report = {**report["paths"][primary], "path": primary, **report, "samples": samples_out}
    if json_out:
        typer.echo(json.dumps(report))
        return
    _print_ttft(report)


def _loadavg() -> list[float] | None:
    """1/5/15-minute load averages: TTFT on a shared 2-core machine is only as quiet as its neighbours."""
    try:
        import os

        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _print_ttft(r: dict[str, Any]) -> None:
    _say(f"load average at start {r.get('load_average_start')}, at end {r.get('load_average_end')} "
         "(TTFT scales with CPU contention; the token counts do not)")
    for path, p in r["paths"].items():
        f, later = p["first_turn"], p["later_turns"]
        rows = [["first turn, cold (median)", _num(f["off_s"]), _num(f["on_s"]), _num(f["ratio"], 3)],
                ["first turn, cold (p90)", _num(f["off_p90_s"]), _num(f["on_p90_s"]), ""],
                ["  server prefill (median)", _num(f["prefill"]["off_s"]), _num(f["prefill"]["on_s"]),
                 _num(f["prefill"]["ratio"], 3)],
                ["  prompt tokens", p["prompt_tokens"]["off"], p["prompt_tokens"]["on"], ""],
                ["  tools shown", p["tools_shown"]["off"], p["tools_shown"]["on"], ""],
                ["later turns, warm (median)", _num(later["off_s"]), _num(later["on_s"]), _num(later["ratio"], 3)],
                ["later turns, warm (p90)", _num(later["off_p90_s"]), _num(later["on_p90_s"]), ""],
                ["  cached tokens (median)", _r_or(p["cached_tokens"]["later_turns"]["off"]),
                 _r_or(p["cached_tokens"]["later_turns"]["on"]), ""],
                ["  prefilled tokens (median)", _r_or(p["prefilled_tokens"]["later_turns"]["off"]),
                 _r_or(p["prefilled_tokens"]["later_turns"]["on"]), ""],
                ["tool-block changes over the script", "", later["tool_set_changes_on"], ""]]
        _print(_table(f"TTFT seconds, {path} path, model {r['model']} ({f['n']} trials; loader selection "
                      f"{_num(f['select_ms_on'], 1)} ms)", ["", "loader off", "loader on", "on/off"], rows))
        _print(_table(f"per turn of the six-turn script ({path} path, medians)",
                      ["turn", "off s", "on s", "off prompt/cached", "on prompt/cached", "on tools", "on changed"],
                      [[t["turn"], _num(t["off_s"]), _num(t["on_s"]),
                        f"{_r_or(t['off_prompt_tokens'])}/{_r_or(t['off_cached_tokens'])}",
                        f"{_r_or(t['on_prompt_tokens'])}/{_r_or(t['on_cached_tokens'])}",
                        _r_or(t["on_tools_shown"]), t["on_tools_changed"]] for t in later["per_turn"]]))
        if "rewrite" in p["prompt_tokens"]:
            _print(_table(f"prompt layout, loader on ({path} path): stable (default) vs rewrite (GAIA)",
                          ["", "stable", "rewrite"],
                          [["first turn vs off (ratio)", _num(f["ratio"], 3), _num(f.get("rewrite_ratio"), 3)],
                           ["later turns vs off (ratio)", _num(later["ratio"], 3),
                            _num(later.get("rewrite_ratio"), 3)],
                           ["later turns, median s", _num(later["on_s"]), _num(later.get("rewrite_s"))],
                           ["later turns, cached tokens (median)",
                            _r_or(p["cached_tokens"]["later_turns"]["on"]),
                            _r_or(p["cached_tokens"]["later_turns"]["rewrite"])],
                           ["later turns, prefilled tokens (total)",
                            _r_or(p["prefilled_tokens"]["later_turns_total"]["on"]),
                            _r_or(p["prefilled_tokens"]["later_turns_total"]["rewrite"])]]))


def _r_or(v: Any) -> str:
    return "-" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v))


# ---------------------------------------------------------------- tasks
def tasks_cmd(
    arms: Annotated[str, typer.Option("--arms", help="Arms to run, in order: off (all tools), on (dynamic loader), skills (loader + the procedures of --skills seeded into each fresh memory; the skill threshold is GAIA_SKILL_TAU).")] = "off,on",
    skills_dir: Annotated[Optional[Path], typer.Option("--skills", help="Skill files (*.md with front matter) the skills arm seeds. Default: the procedures written for this suite.", show_default=False)] = None,
    task: Annotated[Optional[List[str]], typer.Option("--task", help="Run only this task (repeatable).", show_default=False)] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Keep working dirs and tasks.log here (default: a temp dir, kept).", show_default=False)] = None,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Model calls per turn before the agent must answer.")] = 8,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per model reply (bounds a rambling small model; the answers are short).")] = 512,
    model: ModelOpt = None, native_tools: Annotated[Optional[bool], typer.Option("--native-tools/--text-tools", help="Force a render path (default: from the model table).", show_default=False)] = None,
    preset: PresetOpt = None, tau: TauOpt = None, max_tools: MaxToolsOpt = None, base_url: BaseUrlOpt = None,
    local_server: LocalOpt = None, ctx: CtxOpt = 8192, json_out: JsonOpt = False,
) -> None:
    """End-to-end tasks with the real agent on fixture files, loader off and on; answers checked by rules."""
    from gaia_lite.eval.tasks import ARMS, default_skills_dir, run_tasks, select_tasks
    from gaia_lite.registry.execute import Decision

    arm_list = [a.strip() for a in arms.split(",") if a.strip()]
    if not arm_list or any(a not in ARMS for a in arm_list) or len(set(arm_list)) != len(arm_list):
        raise ConfigError(f"--arms {arms!r} is invalid; use a comma list of {', '.join(ARMS)} (e.g. on,skills)")
    seeds = skills_dir or default_skills_dir()
    if "skills" in arm_list and not (seeds.is_dir() and any(seeds.glob("*.md"))):
        raise ConfigError(f"--skills {seeds}: no *.md skill files there; point --skills at a folder of them")
    try:
        chosen = select_tasks(task or [])
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if max_steps < 1 or max_tokens < 16:
        raise ConfigError("--max-steps must be >= 1 and --max-tokens >= 16")
    settings = _settings(model=model, preset=preset, tau=tau, max_tools=max_tools, base_url=base_url,
                         local_server=local_server, max_steps=max_steps)
    run_dir = out or Path(tempfile.mkdtemp(prefix="gaia-eval-tasks-"))
    with _live_client(settings, model, ctx) as (client, server):
        model_id = client.resolve_model()

        def make_services(arm: str, workdir: Path, home: Path) -> Any:
            s = settings.replace(paths=_scratch_paths(settings, home), dynamic_tools=arm != "off",
                                 native_tools=native_tools, auto_approve=True, max_tokens=max_tokens)
            services = _quiet_services(s, client, workdir, approve=lambda _spec, _args: Decision.ALLOW)
            if arm == "skills":
                _seed_skills(services, seeds)
            return services

        report = run_tasks(chosen, arm_list, make_services, run_dir, progress=_say)
    report.update(model=model_id, embedded_server=server is not None, max_steps=max_steps, max_tokens=max_tokens)
    if json_out:
        typer.echo(json.dumps(report))
        return
    _print_tasks(report)


def _seed_skills(services: Any, seeds: Path) -> None:
    from gaia_lite.skills.store import seed_procedures

    if services.memory is None or services.skills is None:
        services.close()
        raise ConfigError("the skills arm needs the memory database; unset GAIA_MEMORY_DISABLED")
    try:
        seed_procedures(services.memory, services.embedder, seeds)
    except Exception:
        services.close()
        raise


_ARM_TITLES = {"off": "loader off", "on": "loader on", "skills": "loader + skills"}


def _print_tasks(r: dict[str, Any]) -> None:
    arms = list(r["arms"])
    names = list(dict.fromkeys(t["task"] for t in r["tasks"]))
    by = {(t["task"], t["arm"]): t for t in r["tasks"]}
    rows = []
    for name in names:
        row = [name]
        for arm in arms:
            t = by.get((name, arm))
            row.append("-" if t is None else ("PASS" if t["passed"] else "FAIL")
                       + f" ({sum(x['passed'] for x in t['turns'])}/{len(t['turns'])} turns)")
        rows.append(row)
    rows.append(["task success", *[_pct(r["arms"][a]["success"]) for a in arms]])
    rows.append(["turn success", *[_pct(r["arms"][a]["turn_success"]) for a in arms]])
    rows.append(["tool calls / escape hatches", *[f"{r['arms'][a]['tool_calls']} / {r['arms'][a]['escape_hatches']}"
                                                  for a in arms]])
    rows.append(["model calls", *[r["arms"][a].get("model_calls", "-") for a in arms]])
    rows.append(["mean loaded tools", *[_num(r["arms"][a].get("mean_loaded"), 1) for a in arms]])
    rows.append(["turns a skill fired", *[r["arms"][a].get("skill_turns", 0) for a in arms]])
    rows.append(["seconds", *[r["arms"][a]["seconds"] for a in arms]])
    _print(_table(f"eval tasks, model {r['model']} (max {r['max_steps']} steps per turn)",
                  ["task", *[_ARM_TITLES.get(a, a) for a in arms]], rows))
    ls = r.get("log_score")
    if ls:
        _print(_table(f"loader-on log ({r['log']})", ["metric", "value"],
                      [["recall (called ⊆ loaded)", _pct(ls["recall"])],
                       ["escape-hatch rate", _num(ls["escape_hatch_rate"], 3)],
                       ["tool_set_changes", ls["tool_set_changes"]]]))
    fails = [(t["task"], t["arm"], x) for t in r["tasks"] for x in t["turns"] if not x["passed"]]
    for task, arm, x in fails:
        _say(f"{task} [{arm}] turn {x['turn']}: {'; '.join(x['failures'])} | answer: {x['answer'][:160]!r}")


# ---------------------------------------------------------------- mount
def register(eval_app: typer.Typer) -> None:
    """Add recall, cost, ttft, log and tasks to ``gaia-lite eval``."""
    eval_app.command("recall")(recall_cmd)
    eval_app.command("cost")(cost_cmd)
    eval_app.command("ttft")(ttft_cmd)
    eval_app.command("log")(log_cmd)
    eval_app.command("tasks")(tasks_cmd)

