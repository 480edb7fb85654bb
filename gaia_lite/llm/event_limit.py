"""A limit on the size of one server-sent event in a chat stream.

The SDK reads a stream "without imposing a line or event size limit" (openai/_streaming.py): a
server that sends a 10 MB ``data:`` line and then nothing more keeps the reader buffering and
waiting for the line's end until the first-byte timeout (300 s), with no word to the user. A
chat-completion chunk is a few hundred bytes (a token or a piece of tool-call arguments, plus
llama-server's timings), so an event of a megabyte is not a chat stream: the reply ends there, in
one line that says so. The bytes are counted as they arrive, so the limit holds whether or not the
event ever ends.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from gaia_lite.errors import ReplyCutOff

__all__ = ["MAX_EVENT_BYTES", "EventLimit", "limited"]

MAX_EVENT_BYTES = 1 << 20
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")  # a blank line ends an event (CRLF, LF or CR line ends)
_TAIL = 3  # an event's end may be split across two chunks: keep the bytes that could start one


class EventLimit:
    """Counts the bytes of each event of one stream as they arrive; ``feed`` raises ReplyCutOff when one
    passes ``limit`` (not a ModelError: the server refused nothing, so no other reply mode is tried)."""

    def __init__(self, base_url: str, limit: int = MAX_EVENT_BYTES) -> None:
        self.base_url = base_url
        self.limit = limit
        self.pending = 0  # bytes of the event not ended yet
        self.tail = b""  # the last bytes fed, already counted in pending

    def feed(self, chunk: bytes) -> None:
        data = self.tail + chunk
        events = _EVENT_END.split(data)  # the first continues the open event, the last one is still open
        sizes = [self.pending - len(self.tail) + len(events[0]), *map(len, events[1:])]
        self.pending = sizes[-1]
        self.tail = data[-_TAIL:]
        if max(sizes) > self.limit:
            raise ReplyCutOff(f"the model server at {self.base_url} sent a server-sent event of more than "
                             f"{_mb(self.limit)} (a chat stream's events are a few hundred bytes); the reply "
                             "was stopped there. Is --base-url an OpenAI-compatible chat server?")


def _mb(n: int) -> str:
    return f"{n / (1 << 20):g} MB" if n >= 1 << 20 else f"{n:,} bytes"


def limited(read: Callable[..., Iterator[bytes]], limit: EventLimit) -> Callable[..., Iterator[bytes]]:
    """``read`` (a response's ``iter_bytes``) with every chunk fed to ``limit`` before it is passed on."""

    def checked(*args: object, **kwargs: object) -> Iterator[bytes]:
        for chunk in read(*args, **kwargs):
            limit.feed(chunk)
            yield chunk

    return checked
