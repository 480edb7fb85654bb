#!/usr/bin/env python
"""Capture `gaia-lite chat` with its side panel on one turn, for the README.

    python scripts/capture_panel.py [--question "list the files in this folder"] [--model NAME]
                                    [--size 120x40 --size 80x24] [--out docs/screenshots] [--base-url URL]

The real `gaia-lite chat --dynamic-tools` runs in a detached tmux terminal of each size, in a demo
folder (notes.md, sales.csv, todo.txt) with a fresh gaia-lite home; the question is typed, and when
the turn is over the screen is saved as chat-WxH.txt (plain) and chat-WxH.svg (colours, drawn by
rich's SVG export from the terminal's own escape codes). Nothing is written unless the turn
succeeded: chat recorded it as ok with a tool called and an answer holding every --expect text (for
the default question: the demo's three file names), and no tool call on screen failed (✗).
Each size gets its own fresh home, so each capture is a user's first turn (nothing learned yet).

With no --base-url, chat starts the embedded llama-server as a user's would (default model 0.5B;
--model qwen2.5-coder-1.5b needs `gaia-lite models pull qwen2.5-coder-1.5b`); the script stops it at
the end. Run it under `nice` on a shared machine: one turn takes 20-120 s on 2 busy cores.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.text import Text

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gaia_lite.config import load_settings  # noqa: E402

DEMO_FILES = {"notes.md": "# Notes\nBuy milk. Call Ana on Friday.\n", "todo.txt": "water the plants\n",
              "sales.csv": "region,amount\nnorth,100\nsouth,250\neast,75\n"}
TOOL_LINE = re.compile(r"→ \w+\(.*[✓✗] \d+\.\d\ds")


@dataclass(frozen=True)
class Size:
    width: int
    height: int

    @property
    def name(self) -> str:
        return f"{self.width}x{self.height}"


def parse_size(text: str) -> Size:
    match = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    if not match or int(match[1]) < 60 or int(match[2]) < 20:
        raise argparse.ArgumentTypeError(f"--size {text!r}: give COLUMNSxROWS, at least 60x20 (e.g. 120x40)")
    return Size(int(match[1]), int(match[2]))


class Terminal:
    """One detached tmux session on a private tmux server (-L), so no one else's tmux is touched."""

    def __init__(self, size: Size) -> None:
        self.size = size
        self.socket = f"gaia-capture-{os.getpid()}-{size.name}"

    def _tmux(self, *args: str, capture: bool = False) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=capture, text=True)
        return done.stdout if capture else ""

    def start(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        line = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *command])
        self._tmux("new-session", "-d", "-s", "capture", "-x", str(self.size.width), "-y", str(self.size.height),
                   "-c", str(cwd), f"{line}; echo EXITED $?; sleep 600")

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "capture", "-l", text)
        self._tmux("send-keys", "-t", "capture", "Enter")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "capture", *keys)

    def screen(self, colours: bool = False) -> str:
        return self._tmux("capture-pane", "-p", *(["-e"] if colours else []), "-t", "capture", capture=True)

    def wait(self, done: Callable[[str], bool], timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if done(screen):
                return screen
            if "EXITED" in screen or time.monotonic() > deadline:
                raise CaptureError(f"{self.size.name}: gave up waiting for {what}; the screen was:\n{screen}")
            time.sleep(0.5)

    def close(self) -> None:
        found = subprocess.run(["tmux", "-L", self.socket, "display-message", "-p", "#{socket_path}"],
                               check=False, capture_output=True, text=True).stdout.strip()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], check=False, capture_output=True)
        if found:  # tmux leaves the socket file of a killed server behind
            Path(found).unlink(missing_ok=True)


class CaptureError(Exception):
    pass


def at_prompt(screen: str) -> bool:
    """chat waits for input: the last line with text is the bare prompt."""
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    return bool(lines) and lines[-1].strip() == "›"


def turns(home: Path) -> list[dict]:
    """The finished turns chat recorded (one JSON line each, what `gaia-lite logs` reads)."""
    path = load_settings({}, env={"GAIA_HOME": str(home)}).paths.turns_file
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()] if path.exists() else []


def failure(turn: dict, screen: str, expect: list[str]) -> str | None:
    """Why the captured turn does not show the product working, or None when it does."""
    if turn.get("status") != "ok":
        return f"status {turn.get('status')}: {turn.get('error')}"
    if not turn.get("tools_called"):
        return "no tool was called"
    failed = [m.group(0) for m in TOOL_LINE.finditer(screen) if "✗" in m.group(0)]
    if failed:
        return "a tool call failed: " + failed[0]
    answer = (turn.get("answer") or "").strip()
    if not answer:
        return "the answer is empty"
    missing = [word for word in expect if word not in answer]
    if missing:
        return f"the answer does not name {', '.join(missing)}: {answer[:200]!r}"
    return None


def chat_env(home: Path, base_url: str | None) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/root"), "TERM": "xterm-256color",
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "GAIA_HOME": str(home)}
    for name in ("GAIA_MODELS_DIR", "GAIA_LLAMA_SERVER"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    if base_url:
        env["LEMONADE_BASE_URL"] = base_url
    return env


def gaia_lite() -> list[str]:
    script = Path(sys.executable).with_name("gaia-lite")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gaia_lite"]


def capture_one(size: Size, args: argparse.Namespace, workdir: Path, home: Path) -> tuple[str, str]:
    """Run one chat turn at ``size``; return the screen as plain text and with its escape codes."""
    home.mkdir(parents=True, exist_ok=True)
    term = Terminal(size)
    command = [*gaia_lite(), "chat", "--dynamic-tools", *(["--model", args.model] if args.model else []),
               *(["--no-local-server"] if args.base_url else [])]
    try:
        term.start(command, workdir, chat_env(home, args.base_url))
        term.wait(at_prompt, args.timeout, "the first frame")
        term.type(args.question)
        screen = term.wait(lambda s: at_prompt(s) and len(turns(home)) == 1, args.timeout, "the end of the turn")
        time.sleep(0.5)  # the turn is recorded as the last frame is drawn: let the terminal settle
        plain, coloured = term.screen(), term.screen(colours=True)
        term.keys("C-d")
        try:
            term.wait(lambda s: "EXITED" in s, 30, "chat to quit")
        except CaptureError:
            pass  # the capture is taken; closing the terminal ends chat anyway
    finally:
        term.close()
    why = failure(turns(home)[0], plain, args.expect)
    if why:
        raise CaptureError(f"{size.name}: the turn did not succeed ({why}); nothing written. The screen:\n{plain}")
    return plain, coloured


def to_svg(coloured: str, size: Size, title: str) -> str:
    """The terminal screen as an SVG, through rich's own SVG export."""
    console = Console(record=True, width=size.width, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", legacy_windows=False)
    for line in coloured.rstrip("\n").split("\n"):
        console.print(Text.from_ansi(line), no_wrap=True, overflow="crop", crop=True)
    return console.export_svg(title=title)


def tidy(screen: str) -> str:
    return "\n".join(ln.rstrip() for ln in screen.splitlines()).rstrip() + "\n"


def stop_embedded(home: Path) -> None:
    """The embedded server (and warm worker) this capture's home started would idle on for 5 minutes."""
    subprocess.run([*gaia_lite(), "serve", "--stop"], env={**os.environ, "GAIA_HOME": str(home)},
                   check=False, capture_output=True, timeout=60)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--question", default="list the files in this folder")
    parser.add_argument("--model", help="model id (default: the server's first, the embedded 0.5B)")
    parser.add_argument("--size", type=parse_size, action="append",
                        help="COLUMNSxROWS, repeatable (default: 120x40 and 80x24)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="folder for the files")
    parser.add_argument("--base-url", help="an OpenAI-compatible server instead of the embedded one")
    parser.add_argument("--workdir", type=Path, help="folder chat runs in (default: a new demo folder)")
    parser.add_argument("--expect", action="append",
                        help="text the answer must hold, repeatable (default, for the default question in the demo "
                             "folder: the three file names)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for start-up and for the turn")
    args = parser.parse_args(argv)
    args.size = args.size or [Size(120, 40), Size(80, 24)]
    if args.expect is None:
        default_ask = args.question == parser.get_default("question") and args.workdir is None
        args.expect = sorted(DEMO_FILES) if default_ask else []
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which("tmux") is None:
        print("capture_panel: tmux is not installed (apt-get install tmux)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="gl-capture-"))
    workdir = args.workdir or tmp / "demo"
    if args.workdir is None:
        workdir.mkdir()
        for name, text in DEMO_FILES.items():
            (workdir / name).write_text(text)
    homes = {size: tmp / f"home-{size.name}" for size in args.size}  # each capture is a first session
    try:
        shots = {size: capture_one(size, args, workdir, homes[size]) for size in args.size}
    except CaptureError as exc:
        print(f"capture_panel: {exc}\n(the homes, with chat's log and turns.jsonl, are kept in {tmp})", file=sys.stderr)
        return 1
    finally:
        if not args.base_url:
            for home in homes.values():
                stop_embedded(home)
    args.out.mkdir(parents=True, exist_ok=True)
    for size, (plain, coloured) in shots.items():
        (args.out / f"chat-{size.name}.txt").write_text(tidy(plain), encoding="utf-8")
        (args.out / f"chat-{size.name}.svg").write_text(to_svg(coloured, size, f"gaia-lite chat ({size.name})"),
                                                        encoding="utf-8")
        print(f"wrote {args.out / f'chat-{size.name}.txt'} and .svg")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
