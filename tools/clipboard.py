"""Clipboard tools: read and replace the clipboard's text.

Backends, first match wins: Wayland (wl-paste / wl-copy), X11 (xclip, then
xsel), macOS (pbpaste / pbcopy), Windows (PowerShell Get-/Set-Clipboard).
Text always travels on stdin/stdout, never on a command line. The X11 and
Wayland helpers are only started when a display is set, so a headless
machine gets an immediate error instead of a hang.
"""

from __future__ import annotations

import shutil
import sys

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

from .desktop import CommandOutcome, graphical_session, run_platform_command

__all__ = ["TOOLS", "read_clipboard", "write_clipboard", "clipboard_backend"]

MAX_READ_CHARS = 20_000
MAX_WRITE_CHARS = 1_000_000
_PS_READ = "Get-Clipboard -Raw"
_PS_WRITE = "Set-Clipboard -Value ([Console]::In.ReadToEnd())"


def clipboard_backend() -> tuple[list[str], list[str]] | str:
    """(read argv, write argv) for this machine, or a one-line reason it has none."""
    if sys.platform == "darwin":
        return ["pbpaste"], ["pbcopy"]
    if sys.platform == "win32":
        ps = shutil.which("powershell") or shutil.which("pwsh")
        if not ps:
            return "clipboard not available: PowerShell was not found"
        base = [ps, "-NoProfile", "-NonInteractive", "-Command"]
        return base + [_PS_READ], base + [_PS_WRITE]
    session = graphical_session()
    if session == "wayland" and shutil.which("wl-paste") and shutil.which("wl-copy"):
        return ["wl-paste", "--no-newline"], ["wl-copy"]
    if session is not None and shutil.which("xclip"):
        return ["xclip", "-selection", "clipboard", "-o"], ["xclip", "-selection", "clipboard", "-i"]
    if session is not None and shutil.which("xsel"):
        return ["xsel", "--clipboard", "--output"], ["xsel", "--clipboard", "--input"]
    if session is None:
        return "clipboard not available: no graphical session (DISPLAY/WAYLAND_DISPLAY not set)"
    return ("clipboard not available: install xclip (apt-get install xclip), xsel, "
            "or wl-clipboard on Wayland")


def _is_empty_selection(out: CommandOutcome) -> bool:
    """xclip/wl-paste report an empty clipboard as an error; it is just empty."""
    text = out.stderr.lower()
    return out.returncode not in (0, None) and ("not available" in text or "nothing is copied" in text
                                                or "no selection" in text)


# xclip answers in milliseconds; the limit only ends a hang (a clipboard owner that never replies), and
# is generous because a busy machine can delay a helper process by seconds
CLIPBOARD_TIMEOUT_S = 15.0

@tool
def read_clipboard(ctx: ToolContext) -> dict:
    """Get the text currently on the clipboard.

    Only when the user mentions the clipboard or what they copied."""
    backend = clipboard_backend()
    if isinstance(backend, str):
        return error_payload(backend)
    out = run_platform_command(backend[0], timeout=CLIPBOARD_TIMEOUT_S)
    if _is_empty_selection(out):
        return {"status": "success", "text": "", "empty": True, "truncated": False}
    if not out.ok:
        return error_payload(f"could not read the clipboard: {out.problem or out.first_error_line()}")
    text = out.stdout
    return {"status": "success", "text": text[:MAX_READ_CHARS], "empty": not text,
            "characters": len(text), "truncated": len(text) > MAX_READ_CHARS}


@tool
def write_clipboard(ctx: ToolContext, text: str) -> dict:
    """Put text on the clipboard, replacing what was there.

    Only when the user asks to copy something.

    Args:
        text: The text to copy.
    """
    if not isinstance(text, str):
        return error_payload("text must be a string")
    if len(text) > MAX_WRITE_CHARS:
        return error_payload("text is longer than 1,000,000 characters")
    backend = clipboard_backend()
    if isinstance(backend, str):
        return error_payload(backend)
    out = run_platform_command(backend[1], input_text=text, timeout=CLIPBOARD_TIMEOUT_S, detached=True)
    if not out.ok:
        return error_payload(f"could not write the clipboard: {out.problem or out.first_error_line()}")
    return {"status": "success", "characters": len(text)}


TOOLS = [read_clipboard, write_clipboard]
