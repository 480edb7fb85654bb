"""``gaia-lite eval ttft|tasks``: the benchmarks that need a live model server.

``ttft`` times the first token of real requests, loader off vs on; ``tasks``
runs the whole agent on fixture files and checks the answers. Both start the
embedded llama-server when none answers (see ``eval_common.live_client``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, List, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.cli.options import BaseUrlOpt, MaxToolsOpt, PresetOpt, TauOpt
from gaia_lite.errors import ConfigError

from .eval_common import (CtxOpt, LocalOpt, ModelOpt, NativeOpt, live_client, num, pct, print_all,
                          quiet_services, r_or, require_skill_files, say, scratch_paths, settings_from,
                          table)
from .outcome import JsonOpt, emit

__all__ = ["ttft_cmd", "tasks_cmd", "task_arm_settings"]


# ---------------------------------------------------------------- ttft
def _paths(native: bool | None) -> list[str]:
    return ["text", "native"] if native is None else (["native"] if native else ["text"])


def ttft_cmd(
    trials: Annotated[int, typer.Option("--trials", help="Cold first turns and six-turn conversations per arm.")] = 3,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens generated per request (prefill is what is measured).")] = 8,
    rewrite: Annotated[bool, typer.Option("--rewrite", help="Add an arm: GAIA's prompt layout, rewritten whenever the loaded set changes, with an evicting loader (GAIA_PROMPT_LAYOUT=rewrite), to see what the stable layout and the sticky loaded set save.")] = False,
    gaia: Annotated[bool, typer.Option("--gaia", help="Add an arm: GAIA's released loader (--preset gaia, amd-gaia 0.25.1) with its own layout, the reference our default is measured against.")] = False,
    interleave: Annotated[str, typer.Option("--interleave", help="How the scripted conversations alternate the arms: turn (each turn of every arm in turn; needs a server that keeps each conversation's cache, as llama-server's --cache-ram does, and flags any turn that lost it) or conversation (whole conversations one after another).")] = "turn",
    turns: Annotated[Optional[int], typer.Option("--turns", help="Run only the first N turns of the six-turn script (default: all).")] = None,
    first_turns: Annotated[bool, typer.Option("--first-turns/--no-first-turns", help="Measure the cold first turns (default); --no-first-turns runs only the scripted conversations.")] = True,
    restored: Annotated[bool, typer.Option("--restored/--no-restored", help="With the embedded server: also measure first turns with each arm's shared prompt prefix restored from its saved file (a restarted server) and on a kept-alive server (default on).")] = True,
    model: ModelOpt = None, native_tools: NativeOpt = None, preset: PresetOpt = None, tau: TauOpt = None,
    max_tools: MaxToolsOpt = None, base_url: BaseUrlOpt = None, local_server: LocalOpt = None,
    ctx: CtxOpt = 8192, json_out: JsonOpt = False,
) -> None:
    """Live time to first token, loader off vs on, interleaved, on both render paths."""
    # kept lazy: --help imports this module; the eval code loads the agent
    from gaia_lite.eval.ttft import SCRIPT, run_ttft, samples_to_dicts, summarize
    from gaia_lite.llm.capabilities import is_native_tool_model

    if trials < 1 or max_tokens < 1:
        raise ConfigError("--trials and --max-tokens must be >= 1")
    if interleave not in ("turn", "conversation"):
        raise ConfigError(f"--interleave must be turn or conversation, got {interleave!r}")
    if turns is not None and not 2 <= turns <= len(SCRIPT):
        raise ConfigError(f"--turns must be between 2 and {len(SCRIPT)} (turn 1 is cold; later turns are measured)")
    settings = settings_from(model=model, preset=preset, tau=tau, max_tools=max_tools, base_url=base_url,
                         local_server=local_server)
    report: dict[str, Any] = {"trials": trials, "max_tokens": max_tokens, "interleave": interleave, "paths": {}}
    samples_out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gaia-eval-ttft-") as tmp, \
            live_client(settings, model, ctx) as (client, server):
        model_id = client.resolve_model()
        report.update(model=model_id, server=client.base_url, embedded_server=server is not None,
                      default_path="native" if is_native_tool_model(model_id) else "text",
                      load_average_start=_loadavg())
        base = settings.replace(paths=scratch_paths(settings, Path(tmp) / "home"))
        workdir = Path(tmp) / "work"
        workdir.mkdir()
        for path in _paths(native_tools):
            arms: dict[str, Any] = {}
            try:
                for arm in ("off", "on", *(("rewrite",) if rewrite else ()), *(("gaia",) if gaia else ())):
                    arms[arm] = _ttft_arm(arm, base, path, client, workdir)
                restore = prefix_restorer(server, arms) if restored and server is not None else None
                samples = run_ttft({a: s.agent for a, s in arms.items()}, trials=trials, max_tokens=max_tokens,
                                   script=SCRIPT[:turns], first_turns=first_turns, warmup=first_turns,
                                   interleave=interleave, progress=lambda m, p=path: say(f"[{p}] {m}"),
                                   restore=restore)
            finally:
                for s in arms.values():
                    s.close()
            report["paths"][path] = summarize(samples)
            samples_out[path] = samples_to_dicts(samples)
    report["load_average_end"] = _loadavg()
    primary = report["default_path"] if report["default_path"] in report["paths"] else next(iter(report["paths"]))
    report = {**report["paths"][primary], "path": primary, **report, "samples": samples_out}
    emit(report, json_out, lambda: _print_ttft(report), ascii_only=True)


def prefix_restorer(server: Any, arms: dict[str, Any]) -> Any:
    """``restore(arm, agent)``: make the embedded server's slot hold the arm's shared prompt prefix,
    restored from its saved file (built and saved the first time), as a restarted server's is.

    The prefix is the arm's first-request bytes that do not depend on the question: for the loader's
    stable layout the system prompt and CORE tools (cli/shared_prefix.py), for the other arms the
    common start of two first requests with unrelated questions (their whole system prompt and tools)."""
    # kept lazy: --help imports this module
    from gaia_lite import runtime
    from gaia_lite.cli.shared_prefix import common_lines, render_with, shared_prefix_text
    from gaia_lite.eval.ttft import first_request
    from gaia_lite.runtime.kept import build_id
    from gaia_lite.runtime.prefix_cache import prepare

    render = render_with(server.url, server.api_key)
    binary = server.binary or runtime.find_llama_server()
    build = build_id(binary) if binary else "unknown"
    model_id = f"{server.model.name}:{server.model.stat().st_size}"
    prefixes: dict[str, str] = {}

    def prefix_of(arm: str, agent: Any) -> str:
        if arm not in prefixes:
            text = shared_prefix_text(agent, render)
            if not text:
                a = render(*first_request(agent, "What is 12 times 12?"))
                b = render(*first_request(agent, "Summarize the contract in acme_msa.pdf."))
                text = common_lines(a, b)
            prefixes[arm] = text
        return prefixes[arm]

    def restore(arm: str, agent: Any) -> bool:
        text = prefix_of(arm, agent)
        if not text:
            return False
        outcome = prepare(server.url, server.api_key, runtime.prefix_dir(), model_id=model_id, build=build,
                          prefix=text)
        if outcome.action == "built":  # the first time: now restore it, as a restarted server would
            outcome = prepare(server.url, server.api_key, runtime.prefix_dir(), model_id=model_id, build=build,
                              prefix=text)
        return outcome.action == "restored"

    return restore


def _ttft_arm(arm: str, base: Any, path: str, client: Any, workdir: Path) -> Any:
    """The services of one ``eval ttft`` arm on one render path, sharing the client."""
    from gaia_lite.loader.presets import layout_for  # kept lazy: --help imports this module

    layout = "rewrite" if arm == "rewrite" else layout_for(base.prompt_layout, base.preset)
    settings = base.replace(dynamic_tools=arm != "off", native_tools=path == "native", prompt_layout=layout)
    if arm == "gaia":  # GAIA's own defaults (τ, cap) and the layout the preset implies
        settings = settings.replace(preset="gaia", tau=None, max_tools=None, prompt_layout="auto")
    services = quiet_services(settings, client, workdir)
    if arm == "rewrite" and services.loader is not None:
        # the previous default, as a whole: GAIA's layout with an evicting loader
        services.loader.settings = services.loader.settings.replace(sticky=False)
    return services


def _loadavg() -> list[float] | None:
    """1/5/15-minute load averages: TTFT on a shared 2-core machine is only as quiet as its neighbours."""
    try:
        # kept lazy: --help imports this module; the eval code loads the agent
        import os

        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _print_ttft(r: dict[str, Any]) -> None:
    say(f"load average at start {r.get('load_average_start')}, at end {r.get('load_average_end')} "
         "(TTFT scales with CPU contention; the token counts do not)")
    for path, p in r["paths"].items():
        f, later = p["first_turn"], p["later_turns"]
        rows = [["first turn, cold (median)", num(f["off_s"]), num(f["on_s"]), num(f["ratio"], 3)],
                ["first turn, cold (p90)", num(f["off_p90_s"]), num(f["on_p90_s"]), ""],
                ["  server prefill (median)", num(f["prefill"]["off_s"]), num(f["prefill"]["on_s"]),
                 num(f["prefill"]["ratio"], 3)],
                ["  prompt tokens", p["prompt_tokens"]["off"], p["prompt_tokens"]["on"], ""],
                ["  tools shown", p["tools_shown"]["off"], p["tools_shown"]["on"], ""],
                ["later turns, warm (median)", num(later["off_s"]), num(later["on_s"]), num(later["ratio"], 3)],
                ["later turns, warm (p90)", num(later["off_p90_s"]), num(later["on_p90_s"]), ""],
                ["  cached tokens (median)", r_or(p["cached_tokens"]["later_turns"]["off"]),
                 r_or(p["cached_tokens"]["later_turns"]["on"]), ""],
                ["  prefilled tokens (median)", r_or(p["prefilled_tokens"]["later_turns"]["off"]),
                 r_or(p["prefilled_tokens"]["later_turns"]["on"]), ""],
                ["tool-set changes over the script", "", later["tool_set_changes_on"], ""],
                ["prefix changes over the script", later["prefix_changes"]["off"], later["prefix_changes_on"], ""]]
        print_all(table(f"TTFT seconds, {path} path, model {r['model']} ({f['n']} trials; loader selection "
                      f"{num(f['select_ms_on'], 1)} ms)", ["", "loader off", "loader on", "on/off"], rows))
        print_all(table(f"per turn of the six-turn script ({path} path, medians)",
                      ["turn", "off s", "on s", "off prompt/cached", "on prompt/cached", "on tools", "on changed",
                       "on prefix changed"],
                      [[t["turn"], num(t["off_s"]), num(t["on_s"]),
                        f"{r_or(t['off_prompt_tokens'])}/{r_or(t['off_cached_tokens'])}",
                        f"{r_or(t['on_prompt_tokens'])}/{r_or(t['on_cached_tokens'])}",
                        r_or(t["on_tools_shown"]), t["on_tools_changed"], t["on_prefix_changed"]]
                       for t in later["per_turn"]]))
        _print_shared_prefix_firsts(path, p)
        lost = {a: n for a, n in later.get("cache_lost", {}).items() if n}
        if lost:
            say(f"warning ({path} path): the server lost an unchanged conversation's cached prefix on "
                + ", ".join(f"{n} later turn(s) of arm {a}" for a, n in lost.items())
                + "; those turns re-prefilled the history, so the later-turn ratio is not the layout's. "
                  "Use a server that keeps each conversation's cache (llama-server --cache-ram) or "
                  "--interleave conversation.")
        extras = [a for a in ("rewrite", "gaia") if a in p["prompt_tokens"]]
        if extras:
            print_all(table(f"loader on ({path} path): ours (default) vs " + ", ".join(_EXTRA_TITLES[a] for a in extras),
                          ["", "ours", *extras],
                          [["first turn vs off (ratio)", num(f["ratio"], 3), *[num(f.get(f"{a}_ratio"), 3) for a in extras]],
                           ["later turns vs off (ratio)", num(later["ratio"], 3),
                            *[num(later.get(f"{a}_ratio"), 3) for a in extras]],
                           ["later turns, median s", num(later["on_s"]), *[num(later.get(f"{a}_s")) for a in extras]],
                           ["later turns, cached tokens (median)", r_or(p["cached_tokens"]["later_turns"]["on"]),
                            *[r_or(p["cached_tokens"]["later_turns"][a]) for a in extras]],
                           ["later turns, prefilled tokens (total)",
                            r_or(p["prefilled_tokens"]["later_turns_total"]["on"]),
                            *[r_or(p["prefilled_tokens"]["later_turns_total"][a]) for a in extras]],
                           ["prefix changes over the script", later["prefix_changes_on"],
                            *[later["prefix_changes"][a] for a in extras]]]))


def _print_shared_prefix_firsts(path: str, p: dict[str, Any]) -> None:
    """The first-turn table of the restored-prefix and kept-server phases, beside the cold ratio."""
    f = p["first_turn"]
    kinds = [(k, t) for k, t in (("first_turn_restored", "restored prefix (a restarted server)"),
                                  ("first_turn_kept", "kept-alive server")) if k in p]
    if kinds:
        rows = []
        for key, title in kinds:
            e = p[key]
            rows += [[f"first turn, {title} (median)", num(e["off_s"]), num(e["on_s"]), num(e["ratio"], 3)],
                     ["  prefilled / prompt tokens", f"{r_or(e['prefilled_tokens']['off'])}/"
                      f"{r_or(e['prompt_tokens']['off'])}", f"{r_or(e['prefilled_tokens']['on'])}/"
                      f"{r_or(e['prompt_tokens']['on'])}", ""],
                     ["  prefilled share (median)", num(e["prefilled_share"]["off"], 3),
                      num(e["prefilled_share"]["on"], 3), ""]]
        rows.append(["first turn, cold (for comparison)", num(f["off_s"]), num(f["on_s"]), num(f["ratio"], 3)])
        print_all(table(f"first turns with the shared prefix ({path} path, {p[kinds[0][0]]['n']} trials)",
                        ["", "loader off", "loader on", "on/off"], rows))


_EXTRA_TITLES = {"rewrite": "rewrite (GAIA's layout, evicting)", "gaia": "gaia (GAIA 0.25.1's loader)"}


# ---------------------------------------------------------------- tasks
def tasks_cmd(
    arms: Annotated[str, typer.Option("--arms", help="Arms to run, in order: off (all tools), on (dynamic loader), free (loader on, constrained calls off: calls parsed from free text), gbnf (loader on, replies held to a GBNF grammar: prose or one call, llama-server only), answer-first (loader on, the JSON schema with {\"answer\"} as its own branch: the choice is not the first key), skills (loader + the procedures of --skills seeded into each fresh memory; the skill threshold is GAIA_SKILL_TAU), nobridge (free without the native call_tool bridge: later tools are appended to the tools array, GAIA_PROMPT_LAYOUT=append), skip:GUARD[+GUARD...] (on with those guards of the answer judge off, as GAIA_JUDGE_SKIP does: e.g. on,skip:narrated+template measures what they earn; the guards are the judge's table in docs/architecture.md).")] = "off,on,free",
    skills_dir: Annotated[Optional[Path], typer.Option("--skills", help="Skill files (*.md with front matter) the skills arm seeds. Default: the procedures written for this suite.", show_default=False)] = None,
    suite: Annotated[Optional[Path], typer.Option("--suite", help="A task suite in JSON (format: gaia_lite/eval/suite.py; default: the built-in suite, gaia_lite/eval/data/tasks/builtin.json).", show_default=False)] = None,
    task: Annotated[Optional[List[str]], typer.Option("--task", help="Run only this task id (repeatable).", show_default=False)] = None,
    split: Annotated[str, typer.Option("--split", help="Run the suite's dev tasks (tune on these), its held-out test tasks, or all. Splits are reported apart either way.")] = "all",
    repeat: Annotated[int, typer.Option("--repeat", help="Run the suite N times (small models sample): the report gives the mean and the spread (min-max, stdev) of tasks passed.")] = 1,
    out: Annotated[Optional[Path], typer.Option("--out", help="Keep working dirs and tasks.log here (default: a temp dir, kept).", show_default=False)] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Sample with this seed: run N of every arm uses seed+N-1, and every task run starts from an empty prompt cache (llama-server), so arms given the same input reply alike and a before/after differs only where the change acts (slower: each task's first prompt is computed whole). Default: the server's own seed each request.", show_default=False)] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the stopped run in --out: each task whose arms all finished there (its report.partial.json) is kept, the rest run again. Give the same suite, --arms and --repeat.")] = False,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Model calls per turn before the agent must answer.")] = 8,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per model reply (bounds a rambling small model; the answers are short).")] = 512,
    model: ModelOpt = None, native_tools: Annotated[Optional[bool], typer.Option("--native-tools/--text-tools", help="Force a render path (default: from the model table).", show_default=False)] = None,
    preset: PresetOpt = None, tau: TauOpt = None, max_tools: MaxToolsOpt = None, base_url: BaseUrlOpt = None,
    local_server: LocalOpt = None, ctx: CtxOpt = 8192, json_out: JsonOpt = False,
) -> None:
    """End-to-end tasks with the real agent on fixture files, loader off and on; answers checked by rules."""
    # kept lazy: --help imports this module; the eval code loads the agent
    from gaia_lite.eval.tasks import finished_before, inside, run_tasks
    from gaia_lite.registry.execute import Decision

    arm_list, seeds, loaded_suite, chosen = _task_plan(arms, skills_dir, suite, task, split, repeat)
    if max_steps < 1 or max_tokens < 16:
        raise ConfigError("--max-steps must be >= 1 and --max-tokens >= 16")
    if seed is not None and seed < 0:
        raise ConfigError(f"--seed {seed} is invalid; give a whole number >= 0, e.g. --seed 42")
    if resume and out is None:
        raise ConfigError("--resume needs --out DIR: the folder of the stopped run to continue")
    try:   # checked before a server starts: a run that cannot be resumed costs nothing
        finished = finished_before(out, arm_list) if resume and out is not None else None
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    settings = settings_from(model=model, preset=preset, tau=tau, max_tools=max_tools, base_url=base_url,
                         local_server=local_server, max_steps=max_steps)
    run_dir = out or Path(tempfile.mkdtemp(prefix="gaia-eval-tasks-"))
    with live_client(settings, model, ctx) as (client, server):
        model_id = client.resolve_model()
        calls_mode = _calls_mode(settings, client, server)  # probed once, not per fresh task home

        def make_services(arm: str, workdir: Path, home: Path) -> Any:
            s = task_arm_settings(settings, arm, calls_mode).replace(
                paths=scratch_paths(settings, home), native_tools=native_tools, auto_approve=True,
                max_tokens=max_tokens)
            # gated tools (writes, edits, shell) run inside the task's temp dir only
            services = quiet_services(s, client, workdir, approve=lambda _spec, args: (
                Decision.ALLOW if inside(workdir, args) else Decision.DENY))
            if arm == "skills":
                _seed_skills(services, seeds)
            return services

        report = run_tasks(chosen, arm_list, make_services, run_dir, progress=say, repeat=repeat, finished=finished,
                           seed=seed, before_each=None if seed is None else client.forget_cache)
    report.update(model=model_id, embedded_server=server is not None, max_steps=max_steps, max_tokens=max_tokens,
                  tool_calls=calls_mode, split=split,
                  suite=loaded_suite.name, suite_path=str(loaded_suite.path), load_average=_loadavg())
    emit(report, json_out, lambda: _print_tasks(report), ascii_only=True)


def _task_plan(arms: str, skills_dir: Path | None, suite: Path | None, task: list[str] | None, split: str,
               repeat: int) -> tuple[list[str], Path, Any, list[Any]]:
    """The checked flags of ``eval tasks``: its arms, the skill files to seed, the suite and the tasks chosen."""
    from gaia_lite.eval.suite import SuiteError, builtin_suite_path, load_suite  # kept lazy: --help imports this
    from gaia_lite.eval.arms import arms_problem
    from gaia_lite.eval.tasks import ARMS, default_skills_dir

    arm_list = [a.strip() for a in arms.split(",") if a.strip()]
    problem = arms_problem(arm_list, ARMS)
    if problem is not None:
        raise ConfigError(f"--arms {arms!r} is invalid: {problem}; use a comma list of {', '.join(ARMS)} or "
                          "skip:GUARD[+GUARD...] (e.g. on,skills or on,skip:narrated)")
    seeds = skills_dir or default_skills_dir()
    if "skills" in arm_list:
        require_skill_files(seeds)
    if split not in ("dev", "test", "all"):
        raise ConfigError(f"--split {split!r} is invalid; use dev, test or all")
    if repeat < 1:
        raise ConfigError(f"--repeat {repeat} is invalid; expected a whole number >= 1")
    try:
        loaded_suite = load_suite(suite or builtin_suite_path())
        return arm_list, seeds, loaded_suite, loaded_suite.select(task or [], split)
    except SuiteError as exc:
        raise ConfigError(str(exc)) from None


def task_arm_settings(settings: Any, arm: str, calls_mode: str) -> Any:
    """What an arm of ``eval tasks`` changes: the loader, the tool-call mode, (nobridge) the layout and
    (``skip:NAME[+NAME...]``) the judge's guards turned off. ``calls_mode`` is what the off, on and skip
    arms use (see ``_calls_mode``)."""
    from gaia_lite.eval.arms import skipped_guards  # kept lazy: --help imports this module

    calls = "free" if arm in ("free", "nobridge") else arm if arm in ("gbnf", "answer-first") else calls_mode
    s = settings.replace(dynamic_tools=arm != "off", tool_calls=calls)
    if skipped_guards(arm):  # the on arm with those guards off, besides any GAIA_JUDGE_SKIP names
        s = s.replace(judge_skip=tuple(dict.fromkeys((*s.judge_skip, *skipped_guards(arm)))))
    return s.replace(prompt_layout="append") if arm == "nobridge" else s


def _calls_mode(settings: Any, client: Any, server: Any) -> str:
    """``constrained`` or ``free`` for the off and on arms: constrained where the server supports it
    (asked once), whatever the product default is, so that ``on`` vs ``free`` compares the two; and
    ``GRAMMAR_MODE`` (the schema as a compact grammar, as ``auto`` sends it) where the server honours that."""
    if settings.tool_calls == "constrained":
        return "constrained"
    # kept lazy: --help imports this module; the eval code loads the agent
    from gaia_lite.agent.constrained import GRAMMAR_MODE
    from gaia_lite.cli.services import structured_replies

    capable = structured_replies(settings, client, server)
    if not capable.response_format:
        say("the server does not hold replies to a JSON schema: the on and off arms use free tool calls too")
        return "free"
    return GRAMMAR_MODE if capable.grammar else "constrained"


def _seed_skills(services: Any, seeds: Path) -> None:
    # kept lazy: --help imports this module; the eval code loads the agent
    from gaia_lite.skills.store import seed_procedures

    if services.memory is None or services.skills is None:
        services.close()
        raise ConfigError("the skills arm needs the memory database; unset GAIA_MEMORY_DISABLED")
    try:
        seed_procedures(services.memory, services.embedder, seeds)
    except Exception:
        services.close()
        raise


_ARM_TITLES = {"off": "loader off", "on": "loader on", "free": "loader on, free calls",
               "gbnf": "loader on, GBNF (b)", "answer-first": "loader on, answer-first JSON", "skills": "loader + skills",
               "nobridge": "loader on, free calls, no call_tool bridge"}


def _arm_title(arm: str) -> str:
    from gaia_lite.eval.arms import skipped_guards  # kept lazy: --help imports this module

    skipped = skipped_guards(arm)
    return f"loader on, without {', '.join(skipped)}" if skipped else _ARM_TITLES.get(arm, arm)


def _task_cell(runs: list[dict[str, Any]]) -> str:
    """One task in one arm: PASS/FAIL and its turns for one run; runs passed out of N for several."""
    if not runs:
        return "-"
    if len(runs) == 1:
        t = runs[0]
        return ("PASS" if t["passed"] else "FAIL") + f" ({sum(x['passed'] for x in t['turns'])}/{len(t['turns'])} turns)"
    return f"{sum(t['passed'] for t in runs)}/{len(runs)} runs"


def _spread(g: dict[str, Any]) -> str:
    """Tasks passed: 'k/n' for one run; 'mean/n (min-max, sd s)' over several."""
    n = g.get("tasks_per_run", "?")
    if g.get("runs", 1) <= 1:
        return f"{g.get('passed_mean', 0):.0f}/{n} ({pct(g.get('success_mean'))})"
    return (f"{g['passed_mean']:.2f}/{n} ({pct(g.get('success_mean'))}; "
            f"{g['passed_min']}-{g['passed_max']}, sd {g['passed_stdev']:.2f})")


def _origins(arm: dict[str, Any]) -> str:
    """"12 / 3 / 1": turns whose answer was the model's, amended by the agent, or built by it."""
    counts = arm.get("answers") or {}
    return " / ".join(str(counts.get(o, "-")) for o in ("model", "amended", "built"))


def _print_tasks(r: dict[str, Any]) -> None:
    arms = list(r["arms"])
    names = list(dict.fromkeys(t["task"] for t in r["tasks"]))
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for t in r["tasks"]:
        by.setdefault((t["task"], t["arm"]), []).append(t)
    rows = [[name, *[_task_cell(by.get((name, arm), [])) for arm in arms]] for name in names]
    rows.append(["tasks passed" + (f" (mean of {r['repeat']} runs)" if r.get("repeat", 1) > 1 else ""),
                 *[_spread(r["arms"][a]) for a in arms]])
    splits = sorted({s for a in arms for s in r["arms"][a].get("by_split", {})})
    for sp in splits:
        rows.append([f"  {sp} split", *[_spread(r["arms"][a]["by_split"][sp]) if sp in r["arms"][a].get("by_split", {})
                                         else "-" for a in arms]])
    rows.append(["task success", *[pct(r["arms"][a]["success"]) for a in arms]])
    rows.append(["turn success", *[pct(r["arms"][a]["turn_success"]) for a in arms]])
    rows.append(["model calls / tool calls", *[f"{r['arms'][a].get('model_calls', '-')} / {r['arms'][a]['tool_calls']}"
                                               for a in arms]])
    rows.append(["invalid calls", *[r["arms"][a].get("invalid_calls", "-") for a in arms]])
    rows.append(["narrated / malformed turns", *[f"{r['arms'][a].get('narrated_turns', '-')} / "
                                                 f"{r['arms'][a].get('malformed_turns', '-')}" for a in arms]])
    rows.append(["ungrounded turns", *[r["arms"][a].get("ungrounded_turns", "-") for a in arms]])
    rows.append(["answers model / amended / built", *[_origins(r["arms"][a]) for a in arms]])
    rows.append(["built share of passed turns", *[pct(r["arms"][a].get("built_share_of_passed")) for a in arms]])
    rows.append(["escape hatches", *[r["arms"][a]["escape_hatches"] for a in arms]])
    rows.append(["mean first-turn TTFT s", *[num(r["arms"][a].get("mean_first_ttft_s")) for a in arms]])
    rows.append(["mean loaded tools", *[num(r["arms"][a].get("mean_loaded"), 1) for a in arms]])
    rows.append(["turns a skill fired", *[r["arms"][a].get("skill_turns", 0) for a in arms]])
    rows.append(["wall seconds", *[r["arms"][a]["seconds"] for a in arms]])
    rows.append(["wall seconds per task", *[num(r["arms"][a].get("seconds_per_task"), 1) for a in arms]])
    split = "" if r.get("split", "all") == "all" else f", {r['split']} split"
    split += "" if r.get("seed") is None else f", seed {r['seed']}"
    print_all(table(f"eval tasks {r.get('suite', '')}{split}, model {r['model']} (max {r['max_steps']} steps per turn; "
                    f"load average {r.get('load_average')})",
                  ["task", *[_arm_title(a) for a in arms]], rows))
    classes = sorted({c for a in arms for c in r["arms"][a].get("by_class", {})})
    if classes:
        print_all(table("by class (tasks passed)", ["class", *[_arm_title(a) for a in arms]],
                        [[c, *[_spread(r["arms"][a]["by_class"][c]) if c in r["arms"][a].get("by_class", {})
                               else "-" for a in arms]] for c in classes]))
    ls = r.get("log_score")
    if ls:
        print_all(table(f"loader-on log ({r['log']})", ["metric", "value"],
                      [["recall (called ⊆ loaded)", pct(ls["recall"])],
                       ["escape-hatch rate", num(ls["escape_hatch_rate"], 3)],
                       ["tool_set_changes", ls["tool_set_changes"]]]))
    def label(t: dict[str, Any]) -> str:
        return f"{t['task']} [{t['arm']}{'' if r.get('repeat', 1) <= 1 else ' run ' + str(t.get('run', 1))}]"

    for t in r["tasks"]:
        for x in t["turns"]:
            if not x["passed"]:
                say(f"{label(t)} turn {x['turn']}: {'; '.join(x['failures'])} | answer: {x['answer'][:160]!r}")
    for t in r["tasks"]:
        for failure in t.get("files_failures") or ():
            say(f"{label(t)}: {failure}")
