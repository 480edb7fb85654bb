"""Vision tools with a fake LLMPort that records what it was sent."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from gaia_lite.tools.vision import FOCUS_PROMPTS, analyze_image, answer_question_about_image, sniff_image_type


class RecordingLLM:
    """An LLMPort that records describe_image calls and replies from a script."""

    def __init__(self, reply: str = "A red square.", error: Exception | None = None) -> None:
        self.reply, self.error = reply, error
        self.calls: list[tuple[str, str]] = []

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int = 512,
                 cancel: object = None) -> str:
        raise AssertionError("vision tools must not call complete()")

    def describe_image(self, data_url: str, question: str, *, max_tokens: int = 512,
                       cancel: object = None) -> str:
        self.calls.append((data_url, question))
        if self.error:
            raise self.error
        return self.reply


def tiny_png() -> bytes:
    """A real 1x1 red PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
            + chunk(b"IEND", b""))


@pytest.fixture
def png(tmp_path: Path) -> Path:
    path = tmp_path / "square.png"
    path.write_bytes(tiny_png())
    return path


def test_analyze_image_sends_a_png_data_url(tool_ctx, png: Path) -> None:
    tool_ctx.llm = llm = RecordingLLM()
    result = analyze_image(tool_ctx, "square.png", focus="colors")
    assert result["status"] == "success" and result["description"] == "A red square."
    assert result["mime_type"] == "image/png" and result["focus"] == "colors"
    data_url, prompt = llm.calls[0]
    assert data_url.startswith("data:image/png;base64,")
    assert base64.b64decode(data_url.split(",", 1)[1]) == png.read_bytes()
    assert prompt == FOCUS_PROMPTS["colors"]


def test_answer_question_passes_the_question(tool_ctx, png: Path) -> None:
    tool_ctx.llm = llm = RecordingLLM(reply=" It is red. ")
    result = answer_question_about_image(tool_ctx, str(png), "What colour is it?")
    assert result["answer"] == "It is red." and result["question"] == "What colour is it?"
    assert llm.calls[0][1] == "What colour is it?"


@pytest.mark.parametrize("head, mime", [(b"\x89PNG\r\n\x1a\n....", "image/png"), (b"\xff\xd8\xff\xe0JFIF", "image/jpeg"),
                                        (b"GIF89a......", "image/gif"), (b"GIF87a......", "image/gif"),
                                        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"), (b"%PDF-1.7", None),
                                        (b"RIFF\x00\x00\x00\x00WAVEfmt ", None), (b"", None)])
def test_sniffing_uses_magic_bytes(head: bytes, mime) -> None:
    assert sniff_image_type(head) == mime


def test_extension_does_not_matter_content_does(tool_ctx, tmp_path: Path) -> None:
    tool_ctx.llm = llm = RecordingLLM()
    (tmp_path / "photo.dat").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    assert analyze_image(tool_ctx, "photo.dat")["mime_type"] == "image/jpeg"
    (tmp_path / "fake.png").write_text("just text, not an image")
    result = analyze_image(tool_ctx, "fake.png")
    assert result["status"] == "error" and "not a PNG, JPEG, GIF or WEBP" in result["error"]
    assert len(llm.calls) == 1


def test_model_without_vision_gives_a_configuration_hint(tool_ctx, png: Path) -> None:
    tool_ctx.llm = RecordingLLM(error=RuntimeError("400 Bad Request: image input is not supported\nby this model"))
    result = analyze_image(tool_ctx, "square.png")
    assert result["status"] == "error"
    assert "cannot see images" in result["error"] and "GAIA_VISION_MODEL" in result["error"]
    assert "--vision-model" in result["error"] and "\n" not in result["error"]


def test_no_llm_and_empty_reply(tool_ctx, png: Path) -> None:
    assert "GAIA_VISION_MODEL" in analyze_image(tool_ctx, "square.png")["error"]
    tool_ctx.llm = RecordingLLM(reply="   ")
    assert analyze_image(tool_ctx, "square.png")["status"] == "error"


def test_bad_input_errors(tool_ctx, png: Path, outside_dir: Path) -> None:
    tool_ctx.llm = llm = RecordingLLM()
    assert "does not exist" in analyze_image(tool_ctx, "missing.png")["error"]
    assert "--allowed-paths" in analyze_image(tool_ctx, str(outside_dir / "secret_plans.txt"))["error"]
    assert "focus must be one of" in analyze_image(tool_ctx, "square.png", focus="smell")["error"]
    assert answer_question_about_image(tool_ctx, "square.png", " ")["status"] == "error"
    assert analyze_image(tool_ctx, ".")["status"] == "error"
    assert llm.calls == []
