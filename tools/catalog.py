"""The `doc` profile: which tools exist and in what order they register.

The order is GAIA's registration order for the profile and is the unfiltered
render order (part of the prompt's byte identity). ``load_tools`` joins right
after ``request_user_input`` only when a loader is configured.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from gaia_lite.registry.spec import ToolSpec, spec_of

from .load import load_tools

__all__ = ["DOC_ORDER", "MEMORY_TOOLS", "doc_tool_specs", "FAMILY_MODULES", "LOAD_TOOLS_AFTER"]

# family module -> tools it defines (each module exports TOOLS)
FAMILY_MODULES = ("shell", "memory", "rag", "files", "data", "loop", "vision", "desktop", "clipboard")

MEMORY_TOOLS = ("remember", "recall", "update_memory", "forget", "search_past_conversations")

DOC_ORDER: tuple[str, ...] = (
    "run_shell_command",
    *MEMORY_TOOLS,
    "query_documents", "query_specific_file", "search_indexed_chunks", "evaluate_retrieval",
    "index_document", "list_indexed_documents", "rag_status", "summarize_document",
    "dump_document", "index_directory", "add_watch_directory",
    "search_file", "search_directory", "read_file", "search_file_content", "write_file",
    "edit_file", "browse_directory", "get_file_info", "analyze_data_file", "list_recent_files",
    "set_loop_state", "request_user_input",
    # load_tools goes here when a loader is configured
    "analyze_image", "answer_question_about_image",
    "get_system_info", "read_clipboard", "write_clipboard", "notify_desktop", "list_windows",
    "text_to_speech",
)
LOAD_TOOLS_AFTER = "request_user_input"


def _all_specs() -> dict[str, ToolSpec]:
    found: dict[str, ToolSpec] = {}
    for family in FAMILY_MODULES:
        module = importlib.import_module(f"gaia_lite.tools.{family}")
        fns: list[Callable[..., Any]] = module.TOOLS
        for fn in fns:
            spec = spec_of(fn)
            if spec.name in found:
                raise ValueError(f"tool {spec.name!r} defined twice (in {family})")
            found[spec.name] = spec
    return found


def doc_tool_specs(*, memory_enabled: bool = True, with_loader: bool = False) -> list[ToolSpec]:
    """The 37 doc tools in registration order (32 when memory is disabled), plus ``load_tools``
    after ``request_user_input`` when a loader is configured."""
    specs = _all_specs()
    missing = [n for n in DOC_ORDER if n not in specs]
    extra = sorted(set(specs) - set(DOC_ORDER))
    if missing or extra:
        raise ValueError(f"doc catalog drift: missing {missing or 'none'}, unlisted {extra or 'none'}")
    out: list[ToolSpec] = []
    for name in DOC_ORDER:
        if memory_enabled or name not in MEMORY_TOOLS:
            out.append(specs[name])
        if name == LOAD_TOOLS_AFTER and with_loader:
            out.append(spec_of(load_tools))
    return out
