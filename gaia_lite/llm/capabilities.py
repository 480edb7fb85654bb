"""Which models call tools natively (OpenAI ``tool_calls``) and which write
calls into their text. Native models get ``tools=`` schemas; text-path models
get the one-line tool list plus a JSON reply format the parser reads.

Unknown ids default to native, as GAIA does; ``--native-tools/--text-tools``
overrides the table.
"""

from __future__ import annotations

import re

__all__ = ["is_native_tool_model"]

# (pattern, native?) — first match wins. Order from specific to general.
_TABLE: tuple[tuple[str, bool], ...] = (
    # Measured on llama-server: Qwen2.5-Coder 0.5B/1.5B never fill tool_calls,
    # they write the call as JSON into the message content instead.
    (r"qwen2\.5-coder", False),
    (r"smollm", False),
    (r"-flm$", False),          # Lemonade NPU (FastFlowLM) builds: no native tools
    (r"gemma-?3-?270m", False),
    (r"gemma-?4", True),
    (r"qwen(2\.5|3)", True),
    (r"llama-?3\.[1-9]", True),
    (r"mistral|ministral|devstral", True),
    (r"gpt-|o[1-9]-", True),
    (r"phi-?4", True),
)


def is_native_tool_model(model_id: str) -> bool:
    if not model_id:
        return False
    mid = model_id.lower()
    for pattern, native in _TABLE:
        if re.search(pattern, mid):
            return native
    return True
