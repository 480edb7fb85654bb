"""Desktop tools: system summary, notifications, window list, text to speech.

Each uses what the platform already has (Linux: /proc, notify-send, wmctrl,
espeak-ng; macOS: sysctl, osascript, say; Windows: PowerShell), found with
``shutil.which``. Model-given text is passed as argv items, on stdin or in
environment variables, never spliced into a script. Every subprocess has a
timeout; a missing facility is a one-line error with an install hint.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from dataclasses import dataclass
from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

from .backup import backup_file
from .sandbox import SandboxError, resolve_user_path

__all__ = ["TOOLS", "get_system_info", "notify_desktop", "list_windows", "text_to_speech",
           "CommandOutcome", "run_platform_command", "graphical_session"]

MAX_SPEECH_CHARS = 5000


@dataclass(frozen=True)
class CommandOutcome:
    """What a platform helper did. ``problem`` is set when it could not run at all."""

    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def first_error_line(self) -> str:
        lines = (self.stderr or self.stdout).strip().splitlines()
        return lines[0][:200] if lines else f"exit code {self.returncode}"


def run_platform_command(argv: list[str], *, input_text: str | None = None, timeout: float = 10.0,
                         env: dict[str, str] | None = None, detached: bool = False) -> CommandOutcome:
    """Run a helper program with a timeout; never raises.

    ``detached=True`` is for helpers that fork a child which keeps serving
    (xclip -i, xsel -i, wl-copy): their output goes to files, not pipes, so
    we do not wait for the child to close them.
    """
    exe = shutil.which(argv[0])
    if exe is None:
        return CommandOutcome(None, problem=f"{argv[0]} is not installed")
    if any("\x00" in a for a in argv):  # the OS cannot pass it (subprocess raises ValueError); said as a problem
        return CommandOutcome(None, problem="the text holds a NUL byte, which a program argument cannot; remove it")
    data = input_text.encode("utf-8") if input_text is not None else None
    stdin = None if data is not None else subprocess.DEVNULL
    try:
        if detached:
            with tempfile.TemporaryFile() as err:
                proc = subprocess.run([exe, *argv[1:]], input=data, stdin=stdin, stdout=subprocess.DEVNULL,
                                      stderr=err, timeout=timeout, env=env)
                err.seek(0)
                return CommandOutcome(proc.returncode, "", err.read().decode("utf-8", "replace"))
        proc = subprocess.run([exe, *argv[1:]], input=data, stdin=stdin, capture_output=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return CommandOutcome(None, problem=f"{argv[0]} did not finish within {timeout:g} s")
    except OSError as exc:
        return CommandOutcome(None, problem=f"{argv[0]} could not start: {exc.strerror or exc}")
    return CommandOutcome(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                          proc.stderr.decode("utf-8", "replace"))


def graphical_session() -> str | None:
    """'wayland', 'x11' or None (no display to talk to) on Linux/BSD."""
    if os.environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    if os.environ.get("DISPLAY"):
        return "x11"
    return None


def _powershell() -> str | None:
    return shutil.which("powershell") or shutil.which("pwsh")


# ---------------------------------------------------------------- system info

def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _cpu_model() -> str | None:
    if sys.platform.startswith("linux"):
        for line in _read_text("/proc/cpuinfo").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    elif sys.platform == "darwin":
        out = run_platform_command(["sysctl", "-n", "machdep.cpu.brand_string"], timeout=5)
        if out.ok and out.stdout.strip():
            return out.stdout.strip()
    return platform.processor() or None


def _memory_bytes() -> tuple[int | None, int | None]:
    """(total, available) in bytes, or None where the platform will not say."""
    meminfo = _read_text("/proc/meminfo")
    if meminfo:
        fields = {m.group(1): int(m.group(2)) * 1024 for m in re.finditer(r"^(\w+):\s+(\d+) kB", meminfo, re.M)}
        return fields.get("MemTotal"), fields.get("MemAvailable", fields.get("MemFree"))
    if sys.platform == "darwin":
        out = run_platform_command(["sysctl", "-n", "hw.memsize"], timeout=5)
        return (int(out.stdout.strip()) if out.ok and out.stdout.strip().isdigit() else None), None
    if sys.platform == "win32":
        # kept lazy: Windows only
        import ctypes

        class _Status(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                        ("avail", ctypes.c_ulonglong), ("pf_total", ctypes.c_ulonglong),
                        ("pf_avail", ctypes.c_ulonglong), ("v_total", ctypes.c_ulonglong),
                        ("v_avail", ctypes.c_ulonglong), ("v_ext", ctypes.c_ulonglong)]
        status = _Status(length=ctypes.sizeof(_Status))
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
            return status.total, status.avail
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), None
    except (ValueError, OSError, AttributeError):
        return None, None


def _gb(n: int | None) -> float | None:
    return round(n / 1024 ** 3, 2) if n is not None else None


def _distribution() -> str | None:
    m = re.search(r'^PRETTY_NAME="?([^"\n]+)"?', _read_text("/etc/os-release"), re.M)
    return m.group(1) if m else None


@tool
def get_system_info(ctx: ToolContext) -> dict:
    """Show this computer's operating system, CPU, memory and free disk space."""
    total, available = _memory_bytes()
    info: dict = {"status": "success", "os": platform.system(), "os_release": platform.release(),
                  "distribution": _distribution() if sys.platform.startswith("linux") else None,
                  "machine": platform.machine(), "hostname": platform.node(),
                  "python": platform.python_version(),
                  "cpu": {"model": _cpu_model(), "logical_cores": os.cpu_count()},
                  "memory": {"total_gb": _gb(total), "available_gb": _gb(available)}}
    try:
        disk = shutil.disk_usage(ctx.workdir)
        info["disk"] = {"path": str(ctx.workdir), "total_gb": _gb(disk.total), "used_gb": _gb(disk.used),
                        "free_gb": _gb(disk.free)}
    except OSError as exc:
        info["disk"] = {"path": str(ctx.workdir), "error": exc.strerror or str(exc)}
    if hasattr(os, "getloadavg"):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    uptime = _read_text("/proc/uptime").split()
    if uptime:
        info["uptime_hours"] = round(float(uptime[0]) / 3600, 1)
    return {"status": "success", "message": _system_said(info), **info}


def _system_said(info: dict) -> str:
    """The facts in one sentence, as a person asks them: "Debian GNU/Linux 12 (Linux 6.1) on x86_64, 2 CPU cores
    (...), 23.6 GB of memory (20.8 GB free), 72.4 GB of 252 GB disk free here." Unknown parts are left out."""
    kernel = f"{info['os']} {info['os_release']}".strip()
    system = f"{info['distribution']} ({kernel})" if info.get("distribution") else kernel
    cpu, memory, disk = info["cpu"], info["memory"], info.get("disk", {})
    parts = [f"{system} on {info['machine']}" if info.get("machine") else system]
    if cpu.get("logical_cores"):
        parts.append(f"{cpu['logical_cores']} CPU cores" + (f" ({cpu['model']})" if cpu.get("model") else ""))
    if memory.get("total_gb") is not None:
        free = f" ({memory['available_gb']} GB free)" if memory.get("available_gb") is not None else ""
        parts.append(f"{memory['total_gb']} GB of memory{free}")
    if disk.get("free_gb") is not None:
        parts.append(f"{disk['free_gb']} GB of {disk['total_gb']} GB disk free here")
    return ", ".join(parts) + "."


# ---------------------------------------------------------------- notifications

_MAC_NOTIFY = ["-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)",
               "-e", "end run"]
_WIN_NOTIFY = ("Add-Type -AssemblyName System.Windows.Forms; $n = New-Object System.Windows.Forms.NotifyIcon; "
               "$n.Icon = [System.Drawing.SystemIcons]::Information; $n.Visible = $true; "
               "$n.ShowBalloonTip([int]$env:GAIA_NOTIFY_MS, $env:GAIA_NOTIFY_TITLE, $env:GAIA_NOTIFY_TEXT, 'Info'); "
               "Start-Sleep -Milliseconds 500")


@tool
def notify_desktop(ctx: ToolContext, title: str, message: str, timeout: int = 5) -> dict:
    """Show a desktop notification (pop-up) with a title and message.

    Only when the user asks to be notified or for a pop-up.

    Args:
        title: Short heading of the notification.
        message: The notification text.
        timeout: Seconds the notification stays visible (1-60).
    """
    if not isinstance(title, str) or not title.strip():
        return error_payload("title is empty: give the notification a heading")
    message = str(message or "")[:1000]
    try:
        seconds = max(1, min(60, int(timeout)))
    except (TypeError, ValueError):
        return error_payload(f"timeout must be a whole number of seconds, got {timeout!r}")
    if sys.platform == "darwin":
        out = run_platform_command(["osascript", *_MAC_NOTIFY, title[:200], message])
    elif sys.platform == "win32":
        if not _powershell():
            return error_payload("notifications not available: PowerShell was not found")
        env = {**os.environ, "GAIA_NOTIFY_TITLE": title[:200], "GAIA_NOTIFY_TEXT": message,
               "GAIA_NOTIFY_MS": str(seconds * 1000)}
        out = run_platform_command([_powershell(), "-NoProfile", "-NonInteractive", "-Command", _WIN_NOTIFY],
                                   env=env, timeout=15)
    else:
        if shutil.which("notify-send") is None:
            return error_payload("notifications not available: install notify-send (apt-get install libnotify-bin)")
        out = run_platform_command(["notify-send", f"--expire-time={seconds * 1000}", "--app-name=gaia-lite",
                                    "--", title[:200], message])
    if not out.ok:
        why = out.problem or out.first_error_line()
        return error_payload(f"the notification could not be shown: {why} (is a desktop session running?)")
    # "message" is what the user reads of a result (the answer built from it), so the pop-up's text is "text"
    return {"status": "success", "title": title, "text": message, "timeout": seconds,
            "message": f"Shown on the desktop: {title}: {message}"}


# ---------------------------------------------------------------- windows

_MAC_WINDOWS = ('tell application "System Events" to get name of every application process '
                'whose background only is false')
_WIN_WINDOWS = ("Get-Process | Where-Object { $_.MainWindowTitle } | "
                "ForEach-Object { \"$($_.Id)`t$($_.ProcessName)`t$($_.MainWindowTitle)\" }")


def _linux_windows() -> dict:
    session = graphical_session()
    if session is None:
        return error_payload("window list not available: no graphical session (DISPLAY is not set)")
    if session == "wayland" and not os.environ.get("DISPLAY"):
        return error_payload("window list not available on Wayland: compositors do not expose other apps' windows")
    if shutil.which("wmctrl") is None:
        return error_payload("window list not available: install wmctrl (apt-get install wmctrl)")
    out = run_platform_command(["wmctrl", "-l", "-p"], timeout=5)
    if not out.ok:
        return error_payload(f"window list not available: {out.problem or out.first_error_line()} "
                             "(wmctrl needs an EWMH window manager)")
    windows = []
    for line in out.stdout.splitlines():
        parts = line.split(None, 4)
        if len(parts) >= 4:
            windows.append({"id": parts[0], "desktop": parts[1], "pid": parts[2],
                            "title": parts[4] if len(parts) == 5 else ""})
    return {"status": "success", "count": len(windows), "windows": windows}


@tool
def list_windows(ctx: ToolContext) -> dict:
    """List the open application windows on the desktop."""
    if sys.platform == "darwin":
        out = run_platform_command(["osascript", "-e", _MAC_WINDOWS], timeout=10)
        if not out.ok:
            return error_payload(f"window list not available: {out.problem or out.first_error_line()}")
        names = [n.strip() for n in out.stdout.split(",") if n.strip()]
        return {"status": "success", "count": len(names), "windows": [{"app": n} for n in names]}
    if sys.platform == "win32":
        if not _powershell():
            return error_payload("window list not available: PowerShell was not found")
        out = run_platform_command([_powershell(), "-NoProfile", "-NonInteractive", "-Command", _WIN_WINDOWS],
                                   timeout=15)
        if not out.ok:
            return error_payload(f"window list not available: {out.problem or out.first_error_line()}")
        rows = [line.split("\t", 2) for line in out.stdout.splitlines() if line.count("\t") >= 2]
        return {"status": "success", "count": len(rows),
                "windows": [{"pid": r[0], "app": r[1], "title": r[2]} for r in rows]}
    return _linux_windows()


# ---------------------------------------------------------------- speech

_WIN_SPEAK = ("Add-Type -AssemblyName System.Speech; $s = New-Object System.Speech.Synthesis.SpeechSynthesizer; "
              "$s.SetOutputToWaveFile($env:GAIA_TTS_OUT); $s.Speak([Console]::In.ReadToEnd()); $s.Dispose()")


def _speech_command(voice: str, out: Path) -> tuple[list[str], dict | None] | str:
    """(argv, env) for this platform's speech engine, or an error message."""
    if sys.platform == "darwin":
        argv = ["say", "-o", str(out), "--file-format=WAVE", "--data-format=LEI16@22050", "-f", "-"]
        return (argv if voice in ("", "en") else argv[:1] + ["-v", voice] + argv[1:]), None
    if sys.platform == "win32":
        if not _powershell():
            return "text to speech not available: PowerShell was not found"
        return [_powershell(), "-NoProfile", "-NonInteractive", "-Command", _WIN_SPEAK], \
            {**os.environ, "GAIA_TTS_OUT": str(out)}
    engine = shutil.which("espeak-ng") or shutil.which("espeak")
    if engine is None:
        return "text to speech not available: install espeak-ng (apt-get install espeak-ng)"
    return [Path(engine).name, "-v", voice or "en", "-w", str(out), "--stdin"], None


@tool(gated=True)
def text_to_speech(ctx: ToolContext, text: str, output_path: str = "", voice: str = "en") -> dict:
    """Turn text into spoken audio saved as a WAV file.

    Only when the user asks to hear it or for audio; "say in one sentence" wants a written answer.

    Args:
        text: The words to speak (up to 5000 characters).
        output_path: Where to save the .wav; default is the app's data folder.
        voice: Voice or language code, e.g. "en", "en-us", "de".
    """
    if not isinstance(text, str) or not text.strip():
        return error_payload("text is empty: give the words to speak")
    if len(text) > MAX_SPEECH_CHARS:
        return error_payload(f"text is {len(text)} characters; the limit is {MAX_SPEECH_CHARS}. Split it up")
    voice = (voice or "en").strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_+\- ]{0,39}", voice):
        return error_payload(f"voice {voice!r} is not a valid voice name; try \"en\"")
    try:
        if output_path:
            out = resolve_user_path(ctx, output_path, write=True)
            if out.suffix.lower() != ".wav":
                return error_payload("output_path must end in .wav")
        else:
            out = Path(ctx.data_dir) / "tts" / f"speech_{time.strftime('%Y%m%d-%H%M%S')}_{os.getpid()}.wav"
        if out.is_dir():
            return error_payload(f"{out} is a folder; give a .wav file name")
        out.parent.mkdir(parents=True, exist_ok=True)
        backup = backup_file(ctx, out) if out.exists() else None
    except SandboxError as exc:
        return error_payload(str(exc))
    except OSError as exc:
        return error_payload(f"cannot create the folder for {output_path or 'speech'}: {exc.strerror or exc}")
    command = _speech_command(voice, out)
    if isinstance(command, str):
        return error_payload(command)
    argv, env = command
    result = run_platform_command(argv, input_text=text, env=env, timeout=120)
    if not result.ok or not out.exists():
        why = result.problem or result.first_error_line()
        return error_payload(f"speech synthesis failed: {why}")
    try:
        with wave.open(str(out), "rb") as wav:
            duration = round(wav.getnframes() / float(wav.getframerate()), 2)
    except (wave.Error, EOFError, OSError):
        duration = None
    return {"status": "success", "output_path": str(out), "voice": voice, "engine": Path(argv[0]).stem,
            "duration_seconds": duration, "characters": len(text), "backup_path": str(backup) if backup else None}


TOOLS = [get_system_info, notify_desktop, list_windows, text_to_speech]
