"""Clipboard tools: a real X clipboard under Xvfb, and the clear-error paths."""

from __future__ import annotations

import shutil
import sys

import pytest

from gaia_lite.tools.clipboard import read_clipboard, write_clipboard

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland clipboard paths")
needs_xclip = pytest.mark.skipif(shutil.which("xclip") is None,
                                 reason="xclip not installed (scripts/ci-apt.sh installs it)")


def test_no_display_fails_without_trying_a_helper(tool_ctx, no_display) -> None:
    for result in (read_clipboard(tool_ctx), write_clipboard(tool_ctx, "x")):
        assert result["status"] == "error" and "no graphical session" in result["error"]


def test_missing_helpers_say_what_to_install(tool_ctx, empty_path, monkeypatch) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    for result in (read_clipboard(tool_ctx), write_clipboard(tool_ctx, "x")):
        assert result["status"] == "error" and "apt-get install xclip" in result["error"]


@needs_xclip
def test_display_that_is_not_there_does_not_hang(tool_ctx, monkeypatch) -> None:
    monkeypatch.setenv("DISPLAY", ":4242")       # nothing listens there
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = read_clipboard(tool_ctx)     # returns (an error), rather than waiting on the missing display
    assert result["status"] == "error" and "\n" not in result["error"]


@needs_xclip
def test_round_trip_on_a_real_x_server(tool_ctx, x_display: str) -> None:
    text = "-n héllo ✓\nsecond line; $(not run) `nor this`"
    # xclip's serving child must not block us: a blocked write ends in the tool's time limit, an error
    assert write_clipboard(tool_ctx, text) == {"status": "success", "characters": len(text)}
    result = read_clipboard(tool_ctx)
    assert result["status"] == "success" and result["text"] == text and result["empty"] is False


@needs_xclip
def test_empty_clipboard_reads_as_empty(tool_ctx, x_display: str) -> None:
    result = read_clipboard(tool_ctx)
    assert result["status"] == "success" and result["text"] == "" and result["empty"] is True


def test_write_rejects_non_text(tool_ctx) -> None:
    assert write_clipboard(tool_ctx, 42)["status"] == "error"
