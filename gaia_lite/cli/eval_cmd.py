"""``gaia-lite eval recall|cost|ttft|log|tasks``: the benchmarks, as commands of the product.

``register(eval_app)`` mounts the five commands (``cli/app.py`` calls it).
This module holds the offline ones (recall, cost, log); ``eval_live`` holds
the two that need a model server (ttft, tasks). The measuring lives in
``gaia_lite.eval``; these modules parse flags, build the services and the
server, print tables and charts, and map outcomes to exit codes (0 ok, 1
below a target or failed, 2 bad input, 3 no server).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from rich.text import Text
from typing_extensions import Annotated

from gaia_lite.cli.options import BaseUrlOpt, MaxToolsOpt, PresetOpt, TauOpt
from gaia_lite.errors import ConfigError

from .eval_common import (TokenizerOpt, live_client, num, pct, print_all, require_skill_files, say,
                          settings_from, table)
from .outcome import JsonOpt, emit

__all__ = ["register"]

# ---------------------------------------------------------------- recall
def recall_cmd(
    dataset: Annotated[Path, typer.Argument(help="A judged set (JSON, format above; shared/evaldata holds five).")],
    registry: Annotated[str, typer.Option("--registry", help="doc: our 37 tools and bundles; dataset: the set's own tools; mcp: the set's tools served by an MCP fixture server.")] = "doc",
    tau: TauOpt = None, max_tools: MaxToolsOpt = None, preset: PresetOpt = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="Score a fixed random sample of N cases.", show_default=False)] = None,
    cases: Annotated[bool, typer.Option("--cases", help="Include (JSON) or list (table) the per-case results.")] = False,
    tokenizer: TokenizerOpt = "auto", json_out: JsonOpt = False, base_url: BaseUrlOpt = None,
    skills: Annotated[Optional[Path], typer.Option("--skills", help="A folder of skill files (*.md): seed them into a throwaway memory and compare the SKILL tier off vs on (doc registry).", show_default=False)] = None,
    skill_tau: Annotated[Optional[float], typer.Option("--skill-tau", help="With --skills: similarity a procedure needs to fire (default GAIA_SKILL_TAU, 0.70).", show_default=False)] = None,
    learn_from: Annotated[Optional[Path], typer.Option("--learn-from", help="A judged set fed first into a throwaway memory as successful past turns (message + expected tools); DATASET is then scored with what the loader learned.", show_default=False)] = None,
) -> None:
    """Offline recall of the loader on a judged set: strict, before any escape hatch.

    A judged set is JSON: {"tools": [{"name", "description", "parameters"}] (for --registry
    dataset/mcp), "cases": [{"id", "query", "expected_tools": [names], "match": "all"|"any",
    "history": [earlier user messages]}]}. "tools", "match" and "history" are optional.
    """
    # kept lazy: --help imports this module; the eval code loads numpy and the embedder
    from gaia_lite.cli.wiring import build_embedder
    from gaia_lite.eval.recall import run_recall
    from gaia_lite.eval.tokens import TokenCounterError, make_token_counter

    if registry not in ("doc", "dataset", "mcp"):
        raise ConfigError(f"--registry {registry!r} is invalid; expected doc, dataset or mcp")
    _check_judged_file("dataset", dataset)
    if learn_from is not None:
        _check_judged_file("--learn-from", learn_from, allow_empty=True)
    if learn_from is not None and skills is not None:
        raise ConfigError("--learn-from and --skills measure different things; use one at a time")
    settings = settings_from(tau=tau, max_tools=max_tools, preset=preset, base_url=base_url)
    try:
        counter = make_token_counter(tokenizer, settings.base_url)
    except (TokenCounterError, ValueError) as exc:
        raise ConfigError(f"--tokenizer {tokenizer}: {exc}") from None
    if skills is not None:
        _skills_recall(dataset, skills, settings, counter, skill_tau, registry, cases, json_out)
        return
    try:
        report = run_recall(dataset, registry_mode=registry, preset=settings.preset, threshold=settings.tau,
                            max_tools=settings.max_tools, embedder=build_embedder(settings, settings.base_url),
                            token_counter=counter, limit=limit, include_cases=cases,
                            cache_dir=settings.paths.cache_dir / "eval-vectors", learn_from=learn_from)
    except (ValueError, KeyError) as exc:
        raise ConfigError(f"{dataset if learn_from is None else f'{dataset} / {learn_from}'}: {exc}") from None
    emit(report, json_out, lambda: _print_recall(report, dataset, registry, cases), ascii_only=True)


def _print_recall(report: dict[str, Any], dataset: Path, registry: str, cases: bool) -> None:
    rows = [["recall (strict)", pct(report["recall"])],
            *[[f"  {k}", pct(v)] for k, v in report["recall_by_kind"].items()],
            ["cases scored / skipped", f"{report['scored_cases']} / {report['skipped_cases']}"],
            ["mean loaded tools", num(report["mean_loaded"], 1)],
            ["native tokens: loaded / all", f"{report['mean_native_tokens']:.0f} / {report['baseline_native_tokens']}"],
            ["text tokens: loaded / all", f"{report['mean_text_tokens']:.0f} / {report['baseline_text_tokens']}"],
            ["r@1 / r@5 / r@10", f"{pct(report['r_at_1'])} / {pct(report['r_at_5'])} / {pct(report['r_at_10'])}"],
            ["mrr", num(report["mrr"], 3)],
            ["selection ms p50 / p95", f"{report['selection_ms_p50']:.1f} / {report['selection_ms_p95']:.1f}"]]
    if "learned" in report:
        lr = report["learned"]
        rows.append(["learned from " + Path(lr["from"]).name,
                     f"{lr['examples']} examples ({lr['tools_with_examples']} tools), {lr['companion_edges']} companion edges"])
    print_all(table(f"eval recall {dataset.name} (registry {registry}, tokens: {report['tokenizer']})",
                  ["metric", "value"], rows))
    if cases:
        misses = [c for c in report.get("case_results", []) if not c["pass"]]
        print_all(table(f"{len(misses)} missed cases", ["case", "kind", "missing"],
                      [[c["id"], c["kind"], ", ".join(c["missing"])] for c in misses]))


def _check_judged_file(label: str, path: Path, *, allow_empty: bool = False) -> None:
    """Fail in one line, before any model or embedder loads, when ``path`` is not a judged set."""
    from gaia_lite.eval.judged_format import load_judged_set  # kept lazy: --help imports this module

    try:
        load_judged_set(path, allow_empty=allow_empty)
    except ValueError as exc:
        raise ConfigError(f"{label} {exc}; the format is in `gaia-lite eval recall --help`") from None


def _skills_recall(dataset: Path, seeds: Path, settings: Any, counter: Any, skill_tau: float | None,
                   registry: str, cases: bool, json_out: bool) -> None:
    """``eval recall --skills DIR``: the SKILL tier off vs on, on goals that match seeded procedures."""
    # kept lazy: --help imports this module; the eval code loads numpy and the embedder
    from gaia_lite.cli.wiring import build_embedder
    from gaia_lite.eval.skills_eval import format_report, run_skills_recall

    if registry != "doc":
        raise ConfigError("--skills works with --registry doc (procedures name doc tools)")
    require_skill_files(seeds)
    tau = settings.skill_tau if skill_tau is None else skill_tau
    if not -1.0 <= tau <= 1.0:
        raise ConfigError(f"--skill-tau {tau} is invalid; expected a number between -1 and 1")
    try:
        report = run_skills_recall(dataset, seeds, embedder=build_embedder(settings, settings.base_url),
                                   preset=settings.preset, tau=tau, threshold=settings.tau,
                                   max_tools=settings.max_tools, token_counter=counter, include_cases=cases)
    except (ValueError, KeyError) as exc:
        raise ConfigError(f"{dataset}: {exc}") from None
    emit(report, json_out, lambda: typer.echo(format_report(report)), ascii_only=True)


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
    # kept lazy: --help imports this module; the eval code loads numpy and the embedder
    from gaia_lite.eval.tokens import ServerTokenCounter, TokenCounterError, make_token_counter

    counter = None
    try:
        counter = make_token_counter(kind, settings.base_url)
    except TokenCounterError as exc:
        if kind != "server" or not settings.local_server:
            raise ConfigError(f"--tokenizer {kind}: {exc}") from None
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if counter is not None:
        yield counter
        return
    with live_client(settings, None, 8192) as (client, _server):
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
    # kept lazy: --help imports this module; the eval code loads numpy and the embedder
    from gaia_lite.cli.wiring import build_embedder
    from gaia_lite.eval import cost

    k = _parse_sizes(sizes)
    if bundle_size < 1:
        raise ConfigError("--clone-bundle-size must be >= 1")
    if plot is not None:
        _require_matplotlib()
    settings = settings_from(preset=preset, tau=tau, max_tools=max_tools, base_url=base_url)
    with _token_counter(tokenizer, settings) as counter:
        report = cost.run_cost(embedder=build_embedder(settings, settings.base_url), counter=counter, sizes=k,
                               preset=settings.preset, threshold=settings.tau, max_tools=settings.max_tools,
                               query=query or cost.FIXED_QUERY, clone_bundle_size=bundle_size,
                               cache_dir=settings.paths.cache_dir / "eval-vectors",
                               progress=say)
        report["mcp_servers"] = _mcp_costs(settings, counter)
    if plot is not None:
        _plot_cost(report, plot)
        report["plot"] = str(plot)
    emit(report, json_out, lambda: _print_cost(report), ascii_only=True)


def _mcp_costs(settings: Any, counter: Any) -> list[dict[str, Any]]:
    """What each configured MCP server's tools cost if all were shown, and its bundle menu line
    (the loader shows them only when selected, like any bundle). Empty without servers."""
    from gaia_lite.cli.wiring import build_mcp
    from gaia_lite.registry.registry import ToolRegistry
    from gaia_lite.registry.render import native_json, render_native, render_text

    manager = build_mcp(settings, None, grace=60.0, tool_cache=False)
    if manager is None:
        return []
    rows = []
    try:
        for join in manager.joins():
            if join.bundle is None:
                say(join.notice.message)
                continue
            registry = ToolRegistry(join.specs)
            rows.append({"server": join.bundle.name.removeprefix("mcp_"), "bundle": join.bundle.name,
                         "tools": len(join.specs),
                         "native_tokens": counter.count(native_json(render_native(registry, registry.names()))),
                         "text_tokens": counter.count(render_text(registry, registry.names())),
                         "menu_tokens": counter.count(f"- {join.bundle.name}: {join.bundle.description}")})
    finally:
        manager.close()
    return rows


def _print_cost(r: dict[str, Any]) -> None:
    t, n = r["text"], r["native"]
    rows = [["all tools (baseline)", r["tools"], t["baseline_tokens"], n["baseline_tokens"], "100 %", "100 %"],
            ["per tool min / median / max", 1, f"{t['per_tool_min']} / {t['per_tool_median']} / {t['per_tool_max']}",
             f"{n['per_tool_min']} / {n['per_tool_median']} / {n['per_tool_max']}", "", ""],
            ["bundle menu (loader on)", "", r["menu_tokens"], "", "", ""]]
    for s in r["loaded_sets"]:
        rows.append([s["label"], s["n"], s["text_tokens"], s["native_tokens"], pct(s["text_share"]),
                     pct(s["native_share"])])
    for m in r.get("mcp_servers", []):
        rows.append([f"MCP {m['bundle']}: all its tools (menu line {m['menu_tokens']})", m["tools"],
                     m["text_tokens"], m["native_tokens"], "", ""])
    print_all(table(f"tool-prompt cost (tokens: {r['tokenizer']}; preset {r['preset']}, tau {r['threshold']}, "
                  f"cap {r['max_tools']})", ["set", "tools", "text", "native", "text share", "native share"], rows))
    w = r.get("worked") or {}
    if w.get("bank"):
        d = w["line_tokens"]
        wrows = [["bank / picked per turn at most", f"{w['bank']} / {w['per_turn']}"],
                 ["shown to the model (preset)", "yes" if w.get("shown") else "no: they only bring their tools"],
                 ["header line", w["header_tokens"]],
                 ["one example line min / median / max", f"{d['min']:.0f} / {d['median']:.0f} / {d['max']:.0f}"]]
        wrows += [[f"{q['label']}: {', '.join(q['examples']) or 'none'}", q["tokens"]] for q in w["queries"]]
        print_all(table("worked examples (in the user's message, after the cached prefix)", ["what", "tokens"], wrows))
    for label, block in (("fixed query (clones do not match)", r), ("query that matches the clones", r.get("matching"))):
        if not block:
            continue
        s = block["slope"]
        print_all(table(
            f"slope, {label}: {block.get('query', r['slope']['query'])!r}",
            ["K", "off native", "on native", "off text", "on text", "menu", "clones m/l"],
            [[x["k"], x["unfiltered_native"], x["loaded_native"], x["unfiltered_text"], x["loaded_text"],
              x["menu_tokens"], f"{x['clones_matched']}/{x['clones_loaded']}"] for x in block["series"]]
            + [["per tool", num(s["unfiltered_native"]), num(s["loaded_native"]),
                num(s["unfiltered_text"]), num(s["loaded_text"]), num(s["loaded_menu"]), ""]]))
    print_all(_cost_chart(r))


def _cost_chart(r: dict[str, Any], width: int = 46) -> Any:
    """Cost vs K as bars, one scale per render path (no plotting dependency)."""
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
    import matplotlib  # optional (--plot only): imported when asked for

    matplotlib.use("Agg")  # before pyplot is imported: no display needed
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
    # kept lazy: --help imports this module; the eval code loads numpy and the embedder
    from gaia_lite.eval.logscore import score_file

    if not run_log.is_file():
        raise ConfigError(f"log file {run_log} does not exist")
    score = score_file(run_log)
    report = {"log": str(run_log), **score.to_dict(), "min_recall": min_recall}
    emit(report, json_out, lambda: _print_log(report, run_log), ascii_only=True)
    if score.recall is None:
        say(f"gaia-lite: no scored turns in {run_log}: it needs TOOL_LOADER selection lines and TOOL_CALLS lines "
             "(run ask/chat with --dynamic-tools --log FILE)")
        raise typer.Exit(1)
    if score.recall < min_recall:
        say(f"recall {score.recall:.3f} is below --min-recall {min_recall}")
        raise typer.Exit(1)


def _print_log(report: dict[str, Any], run_log: Path) -> None:
    rows = [["sessions / selection turns", f"{report['sessions']} / {report['turns']}"],
            ["scored turns (with TOOL_CALLS)", report["scored_turns"]],
            ["recall (called ⊆ loaded)", pct(report["recall"])],
            ["recall on turns that called tools", f"{pct(report['recall_tool_turns'])} of {report['tool_turns']}"],
            ["free recoveries / load_tools calls", f"{report['escape_hatch_count']} / {report['load_tools_count']}"],
            ["escape-hatch rate", num(report["escape_hatch_rate"], 3)],
            ["tool_set_changes", report["tool_set_changes"]],
            ["turns with the loader off (not scored)", report["unfiltered_turns"]]]
    print_all(table(f"eval log {run_log.name}", ["metric", "value"], rows))
    if report["misses"]:
        print_all(table("missed turns", ["session", "turn", "called", "not loaded"],
                        [[m["session"], m["turn"], ", ".join(m["called"]), ", ".join(m["missing"])]
                         for m in report["misses"]]))
    for w in report["warnings"][:20]:
        say(f"warning: {w}")


# ---------------------------------------------------------------- mount
def register(eval_app: typer.Typer) -> None:
    """Add recall, cost, ttft, log and tasks to ``gaia-lite eval``."""
    eval_app.command("recall")(recall_cmd)
    eval_app.command("cost")(cost_cmd)
    # kept lazy: --help imports this module; the eval code loads numpy and the embedder
    from .eval_live import tasks_cmd, ttft_cmd

    eval_app.command("ttft")(ttft_cmd)
    eval_app.command("log")(log_cmd)
    eval_app.command("tasks")(tasks_cmd)

