"""System-prompt composition.

The prompt is built from stable parts first and the volatile tool block last,
so the server's KV-cache prefix survives a change of loaded tools. The agent
recomposes it only when the (sorted) selection changes. With no filter, the
output is exactly what a build without the loader produces: no menu, no
``load_tools``, every tool in registration order.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

from typing import Sequence

from gaia_lite.loader.worked import WorkedPick, call_json
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import render_listed, render_text

__all__ = ["PromptParts", "compose_system_prompt", "RESPONSE_FORMAT", "TOOLS_HEADER", "MENU_HEADER", "WORKDIR_LINE",
           "WORKED_HEADER", "worked_block"]

TOOLS_HEADER = "==== AVAILABLE TOOLS ===="
MENU_HEADER = "==== LOADABLE TOOL BUNDLES ===="

WORKDIR_LINE = "Working directory: {workdir}"
PERSONA = """You are gaia-lite, a concise assistant running locally on the user's computer.
Working directory: {workdir}
Operating system: {os}

Rules:
- Use a tool when the request needs the user's files, documents, memory, shell, clipboard, desktop or images; answer directly for general knowledge, math and chit-chat.
- Use tool and argument names exactly as listed. Never invent tool results.
- Folders: browse_directory lists what is in a folder. Files: find them with search_file, read text with read_file, find the files that mention something with search_file_content. For PDFs or long documents, index_document first, then query_specific_file.
- Tables (CSV, TSV, Excel): use analyze_data_file for totals, rankings and date ranges; for rows that meet a condition, give it a SQL query over table data.
- Memory: remember facts the user asks you to keep; recall them when asked.
- Keep answers short and cite file names you used."""

RESPONSE_FORMAT = """==== RESPONSE FORMAT ====
To call a tool, reply with ONLY this JSON object and nothing else:
{"name": "<tool name>", "arguments": {"<argument>": <value>}}
Example, to read notes.txt: {"name": "read_file", "arguments": {"file_path": "notes.txt"}}
Use only the argument names the tool lists. You will get the tool result back; then call another tool the same way, or answer the user in plain sentences (not JSON).
If no tool is needed, answer in plain sentences."""

# Worked examples ride in the user's message, before it (the cached prefix stays as it was). "Its own
# files and words": an example's file names are made up, and a call that copies one names no real file.
WORKED_HEADER = "Requests like this one, and a call that serves them (use this request's own files and words):"

MENU_INTRO = ("To get more tools, call load_tools with a bundle name below (or a tool's exact name); "
              "they arrive on your next step.")


def worked_block(picks: Sequence[WorkedPick], key: str = "name") -> str:
    """The turn's worked examples, each a request and its call in the reply format's shape ("" for none)."""
    if not picks:
        return ""
    lines = [f'- "{p.example.request}" -> {call_json(p.example.tool, p.example.arguments, key=key)}' for p in picks]
    return "\n".join([WORKED_HEADER, *lines])


@dataclass(frozen=True)
class PromptParts:
    workdir: Path
    text_path: bool  # the model writes calls as text: show the tool list + reply format
    menu: str | None = None  # the bundle menu, only while the loader is active
    extra_blocks: tuple[str, ...] = ()  # e.g. recalled procedures (stable part)
    listed: bool = False  # text path, loader on: tool lines without ": string" (render_listed)
    # False: the working directory is left out (the stable layout puts it in the user message), so the
    # system prompt is the same bytes in every folder and a saved KV cache of it serves them all
    workdir_line: bool = True


def compose_system_prompt(parts: PromptParts, registry: ToolRegistry,
                          filter_to: tuple[str, ...] | None, *, exclude: frozenset[str] = frozenset()) -> str:
    """The system prompt for one selection.

    ``exclude`` removes names from the unfiltered render (``load_tools`` while
    the loader is in an off-state), so the legacy path stays byte-identical.
    """
    persona = PERSONA if parts.workdir_line else PERSONA.replace(WORKDIR_LINE + "\n", "")
    blocks = [persona.format(workdir=parts.workdir, os=f"{platform.system()} {platform.release()}")]
    blocks += [b for b in parts.extra_blocks if b]
    if parts.menu:
        blocks.append(f"{MENU_HEADER}\n{MENU_INTRO}\n{parts.menu}")
    if parts.text_path:
        names = filter_to if filter_to is not None else tuple(n for n in registry.names() if n not in exclude)
        render = render_listed if parts.listed and filter_to is not None else render_text  # off: legacy bytes
        tools_block = f"{TOOLS_HEADER}\n{render(registry, names)}"
        if filter_to is None:
            blocks += [tools_block, RESPONSE_FORMAT]
        else:  # volatile part last: the reply format stays in the cached prefix
            blocks += [RESPONSE_FORMAT, tools_block]
    return "\n\n".join(blocks)
