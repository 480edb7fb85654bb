"""Vision tools: describe an image or answer a question about it.

The image is read through the sandbox, its type is sniffed from the magic
bytes (not the extension) and it goes to ``ctx.llm.describe_image`` as a
base64 data URL. A model without vision support typically makes the server
reject the request; that becomes a one-line error telling the user how to
configure a vision model.
"""

from __future__ import annotations

import base64

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

from .sandbox import SandboxError, resolve_user_path

__all__ = ["TOOLS", "analyze_image", "answer_question_about_image", "sniff_image_type", "FOCUS_PROMPTS"]

MAX_IMAGE_BYTES = 20 * 1024 * 1024
FOCUS_PROMPTS = {
    "all": "Describe this image: the main subject, setting, notable details, colours and any text in it.",
    "composition": "Describe the composition of this image: layout, framing, perspective and balance.",
    "colors": "Describe the colours of this image: the palette, contrast and lighting.",
    "mood": "Describe the mood and atmosphere of this image and what creates it.",
    "details": "List the notable details in this image, including any readable text, numbers or labels.",
}
_NO_VISION = ("the configured model cannot see images ({reason}); set GAIA_VISION_MODEL "
              "(or --vision-model) to a vision-capable model")


def sniff_image_type(head: bytes) -> str | None:
    """MIME type from the first bytes: PNG, JPEG, GIF or WEBP; None otherwise."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _ask_about_image(ctx: ToolContext, image_path: str, prompt: str) -> dict:
    """Shared path: sandbox, read, sniff, data URL, model call. Returns text or an error."""
    try:
        path = resolve_user_path(ctx, image_path)
    except SandboxError as exc:
        return error_payload(str(exc))
    if not path.is_file():
        return error_payload(f"{path} does not exist or is not a file; find it with search_file")
    size = path.stat().st_size
    if size > MAX_IMAGE_BYTES:
        return error_payload(f"{path.name} is {size / 1e6:.1f} MB; images up to 20 MB are supported")
    try:
        data = path.read_bytes()
    except OSError as exc:
        return error_payload(f"cannot read {path}: {exc.strerror or exc}")
    mime = sniff_image_type(data[:16])
    if mime is None:
        return error_payload(f"{path.name} is not a PNG, JPEG, GIF or WEBP image")
    if ctx.llm is None:
        return error_payload(_NO_VISION.format(reason="no model is connected"))
    data_url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    try:
        text = ctx.llm.describe_image(data_url, prompt, cancel=ctx.cancel)
    except Exception as exc:  # noqa: BLE001 - any server/client failure means "cannot see"
        reason = " ".join(str(exc).split())[:160] or type(exc).__name__
        return error_payload(_NO_VISION.format(reason=reason))
    if not isinstance(text, str) or not text.strip():
        return error_payload(_NO_VISION.format(reason="it returned an empty answer"))
    return {"status": "success", "image_path": str(path), "mime_type": mime, "size_bytes": size,
            "text": text.strip()}


@tool
def analyze_image(ctx: ToolContext, image_path: str, focus: str = "all") -> dict:
    """Describe what an image file shows (photo, screenshot, chart) using the vision model.

    Args:
        image_path: PNG, JPEG, GIF or WEBP file.
        focus: One of all, composition, colors, mood, details.
    """
    key = (focus or "all").strip().lower()
    if key not in FOCUS_PROMPTS:
        return error_payload(f"focus must be one of {', '.join(FOCUS_PROMPTS)}; got {focus!r}")
    result = _ask_about_image(ctx, image_path, FOCUS_PROMPTS[key])
    if result["status"] == "success":
        result["focus"] = key
        result["description"] = result.pop("text")
    return result


@tool
def answer_question_about_image(ctx: ToolContext, image_path: str, question: str) -> dict:
    """Answer a specific question about an image file using the vision model.

    Args:
        image_path: PNG, JPEG, GIF or WEBP file.
        question: What to find out, e.g. "What is the total on this receipt?".
    """
    if not isinstance(question, str) or not question.strip():
        return error_payload("question is empty: ask something about the image")
    result = _ask_about_image(ctx, image_path, question.strip())
    if result["status"] == "success":
        result["question"] = question.strip()
        result["answer"] = result.pop("text")
    return result


TOOLS = [analyze_image, answer_question_about_image]
