"""The README's first screen and its links: the two commands first, at most 25 lines before the first
section, every relative link resolving, and the chat capture it shows being the file the capture
script wrote (scripts/capture_panel.py), not a hand-edited copy."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
COMMANDS = ['scripts/setup.sh && .venv/bin/gaia-lite ask "list the files in this folder"',
            "scripts/test.sh"]


def _lines() -> list[str]:
    return README.read_text(encoding="utf-8").splitlines()


def test_the_readme_opens_with_the_two_commands_in_a_bash_block() -> None:
    body = [ln for ln in _lines()[1:] if ln.strip()]
    assert body[0] == "```bash", body[:3]
    assert [ln.split("   #")[0].rstrip() for ln in body[1:3]] == COMMANDS
    assert body[3] == "```"


def test_the_first_screen_is_at_most_25_lines() -> None:
    lines = _lines()
    first_section = next(i for i, ln in enumerate(lines) if ln.startswith("## "))
    screen = "\n".join(lines[:first_section]).rstrip().splitlines()
    assert len(screen) <= 25, f"{len(screen)} lines before the first section; move prose to docs/"


def test_every_relative_link_resolves() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [link for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
               if not link.startswith("http") and not (REPO / link).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_the_chat_capture_is_the_captured_file() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("gaia-lite chat · model", 1)[1].split("```", 1)[0]
    shown = ("gaia-lite chat · model" + block).rstrip("\n").splitlines()
    captured = (REPO / "docs" / "screenshots" / "chat-120x40.txt").read_text(encoding="utf-8").splitlines()
    start = captured.index(shown[0])
    assert captured[start:start + len(shown)] == shown, "the README's capture differs from chat-120x40.txt"
    for name in ("chat-120x40.svg", "chat-80x24.txt", "chat-80x24.svg"):
        assert (REPO / "docs" / "screenshots" / name).exists(), name
