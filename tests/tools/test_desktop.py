"""Desktop tools: real facilities where installed, clear errors where not."""

from __future__ import annotations

import shutil
import sys
import time
import wave
from pathlib import Path

import pytest

from gaia_lite.tools.desktop import (
    get_system_info, list_windows, notify_desktop, run_platform_command, text_to_speech,
)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux helper programs")
needs_espeak = pytest.mark.skipif(not (shutil.which("espeak-ng") or shutil.which("espeak")),
                                  reason="espeak-ng not installed (scripts/ci-apt.sh installs it)")


def test_system_info_from_stdlib(tool_ctx, tmp_path: Path) -> None:
    info = get_system_info(tool_ctx)
    assert info["status"] == "success"
    assert info["cpu"]["logical_cores"] >= 1
    assert info["disk"]["path"] == str(tmp_path) and info["disk"]["total_gb"] > 0
    if sys.platform.startswith("linux"):
        assert info["memory"]["total_gb"] > 0 and info["cpu"]["model"]
    # the facts in one sentence, first: what "what OS am I on?" is answered from (built, it was "- os: Linux ...")
    assert list(info)[:2] == ["status", "message"]
    assert info["message"].startswith(info["distribution"] or info["os"]), info["message"]
    assert f"{info['cpu']['logical_cores']} CPU cores" in info["message"]
    assert f"{info['disk']['free_gb']} GB of {info['disk']['total_gb']} GB disk free here." in info["message"]


def test_system_info_without_any_helper_programs(tool_ctx, empty_path) -> None:
    assert get_system_info(tool_ctx)["status"] == "success"


def test_run_platform_command_never_raises(tmp_path: Path) -> None:
    missing = run_platform_command(["definitely-not-a-program-xyz"])
    assert missing.returncode is None and "not installed" in missing.problem
    start = time.monotonic()
    slow = run_platform_command([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert slow.returncode is None and "did not finish" in slow.problem
    assert time.monotonic() - start < 25   # ended by the 0.5 s limit, not the 30 s sleep (slack for a busy machine)
    echo = run_platform_command([sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"],
                                input_text="-n ; rm -rf / $(x)")
    assert echo.ok and echo.stdout.strip() == "-N ; RM -RF / $(X)"


@linux_only
def test_notify_without_notify_send_says_what_to_install(tool_ctx, empty_path) -> None:
    result = notify_desktop(tool_ctx, "Done", "Report written")
    assert result["status"] == "error" and "apt-get install libnotify-bin" in result["error"]


@linux_only
@pytest.mark.skipif(shutil.which("notify-send") is None, reason="notify-send not installed")
def test_notify_without_a_session_fails_fast_and_clearly(tool_ctx, no_display, monkeypatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    start = time.monotonic()
    result = notify_desktop(tool_ctx, "Done", "-x; rm -rf /", timeout=2)
    assert time.monotonic() - start < 15
    assert result["status"] in ("success", "error")
    if result["status"] == "error":
        assert "\n" not in result["error"] and "notification could not be shown" in result["error"]


def test_notify_argument_errors(tool_ctx) -> None:
    assert notify_desktop(tool_ctx, " ", "x")["status"] == "error"
    assert notify_desktop(tool_ctx, "t", "x", timeout="long")["status"] == "error"


@linux_only
def test_list_windows_without_display(tool_ctx, no_display) -> None:
    result = list_windows(tool_ctx)
    assert result["status"] == "error" and "no graphical session" in result["error"]


@linux_only
def test_list_windows_without_wmctrl(tool_ctx, empty_path, monkeypatch) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    result = list_windows(tool_ctx)
    assert result["status"] == "error" and "apt-get install wmctrl" in result["error"]


@linux_only
@pytest.mark.skipif(shutil.which("wmctrl") is None, reason="wmctrl not installed")
def test_list_windows_on_a_real_x_server(tool_ctx, x_display: str) -> None:
    result = list_windows(tool_ctx)          # Xvfb has no window manager: a clear error, or a list
    if result["status"] == "success":
        assert isinstance(result["windows"], list)
    else:
        assert "window manager" in result["error"] and "\n" not in result["error"]


@linux_only
def test_tts_without_espeak_says_what_to_install(tool_ctx, empty_path) -> None:
    result = text_to_speech(tool_ctx, "hello")
    assert result["status"] == "error" and "apt-get install espeak-ng" in result["error"]


@needs_espeak
def test_tts_writes_a_real_wav_in_the_data_dir(tool_ctx) -> None:
    result = text_to_speech(tool_ctx, "Hello from gaia lite.")
    assert result["status"] == "success"
    out = Path(result["output_path"])
    assert out.parent == tool_ctx.data_dir / "tts" and out.suffix == ".wav"
    with wave.open(str(out), "rb") as wav:
        assert wav.getnframes() > 0 and wav.getframerate() > 0
    assert result["duration_seconds"] > 0.2


@needs_espeak
def test_tts_honours_voice_and_output_path(tool_ctx, tmp_path: Path) -> None:
    result = text_to_speech(tool_ctx, "-v starts with a dash; $(rm -rf /)", output_path="audio/out.wav",
                            voice="en-us")
    assert result["status"] == "success" and result["voice"] == "en-us"
    assert (tmp_path / "audio" / "out.wav").stat().st_size > 44
    unknown = text_to_speech(tool_ctx, "hello", output_path="x.wav", voice="zz-nonexistent")
    assert unknown["status"] == "error" and "speech synthesis failed" in unknown["error"]


def test_tts_refusals(tool_ctx, outside_dir: Path) -> None:
    assert "--allowed-paths" in text_to_speech(tool_ctx, "hi", output_path=str(outside_dir / "a.wav"))["error"]
    assert "system folder" in text_to_speech(tool_ctx, "hi", output_path="/usr/share/a.wav")["error"]
    assert ".wav" in text_to_speech(tool_ctx, "hi", output_path="speech.mp3")["error"]
    assert text_to_speech(tool_ctx, "  ")["status"] == "error"
    assert "5000" in text_to_speech(tool_ctx, "x" * 5001)["error"]
    assert "voice" in text_to_speech(tool_ctx, "hi", voice="-w /etc/passwd")["error"]
