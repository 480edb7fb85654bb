"""ChatClient: the only module that talks to the model server.

It wraps the ``openai`` SDK against any OpenAI-compatible server (Lemonade,
llama-server, vLLM, Ollama). SDK objects stop here: callers get text deltas,
ToolCall values and a Usage record with TTFT and the server's own prompt and
cache counts (llama-server reports ``timings.prompt_n`` and ``cache_n``).
"""

from __future__ import annotations

import functools
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Generator, Iterator, Sequence

from gaia_lite.errors import Cancelled, GaiaError, ModelError, ReplyCutOff, ServerTooSlow, ServerUnreachable
from gaia_lite.llm.event_limit import EventLimit, limited
from gaia_lite.llm.textcalls import _loads_lenient
from gaia_lite.messages import ChatResult, ToolCall, Usage, new_call_id

__all__ = ["ChatClient", "Cancelled", "DISCOVERY_TIMEOUT_S"]

DISCOVERY_TIMEOUT_S = 15.0  # GET /models
_MAX_PROPS_BYTES = 1 << 20  # /props is a few KB; a server that streams more is not llama-server
_LISTING, _OPENING, _READING = "listing", "opening", "reading"  # what a failed call was doing


def _field(obj: Any, name: str) -> Any:
    """Read a field that may be an attribute or, for server extras, in model_extra."""
    if obj is None:
        return None
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


@functools.cache
def tls_context() -> Any:
    """The TLS context the SDK's HTTP client would make for itself (its CA bundle takes ~15 ms to load), made
    once per process: the warm worker makes it before it forks, so no `ask` child loads the bundle again.
    None when the SDK's HTTP library has no way to make one apart (the client then makes its own)."""
    import importlib

    import openai

    library = openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]  # httpx, or its fork httpx2
    make = getattr(importlib.import_module(library), "create_ssl_context", None)
    return make() if make is not None else None


class ChatClient:
    """One server connection, shared by the agent and the tools (so it is never reconfigured
    mid-session: the vision model is chosen per request, never by swapping ``model``)."""

    def __init__(self, base_url: str, *, api_key: str = "", model: str = "",
                 timeout: float = 600.0, http_client: Any = None,
                 sampling: dict[str, Any] | None = None, vision_model: str = "",
                 first_byte_timeout: float = 300.0, discovery_timeout: float = DISCOVERY_TIMEOUT_S) -> None:
        import openai  # heavy import kept off the --help path

        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self._openai = openai
        self.sampling = dict(sampling or {})
        self.first_byte_timeout = first_byte_timeout
        # GET /models answers from memory on every server we know: a few seconds is plenty, and a
        # server that hangs there must not hold `ask` for the whole first-byte limit in silence
        self.discovery_timeout = min(discovery_timeout, first_byte_timeout)
        # read= bounds each wait for bytes: a server that accepts and never answers
        # (or stalls mid-reply) fails after first_byte_timeout, not after `timeout`.
        limits = openai.Timeout(timeout, connect=10.0, read=min(first_byte_timeout, timeout))
        self._client_kwargs: dict[str, Any] = {"base_url": self.base_url, "api_key": api_key or "not-needed",
                                               "timeout": limits, "max_retries": 0}
        self._http_client = http_client
        self.vision_model = vision_model  # empty: the chat model

    @functools.cached_property
    def _client(self) -> Any:
        """The OpenAI client, made on first use: making one costs ~30 ms (its TLS context), and `ask` makes a
        client for the configured server only to find it down with ``health()``."""
        if self._http_client is not None:
            http = self._http_client
        else:
            context = tls_context()
            http = self._openai.DefaultHttpxClient(**({"verify": context} if context is not None else {}))
        http.event_hooks["response"].append(self._limit_events)
        return self._openai.OpenAI(**self._client_kwargs, http_client=http)

    def _limit_events(self, response: Any) -> None:
        """Response hook: hold each event of a streamed reply to a size (llm/event_limit.py). The SDK reads
        the body through ``response.iter_bytes()``, so wrapping that one method sees every byte before
        the SDK buffers it; GET /models is one JSON body, not a stream, and keeps its own reader."""
        if response.request.method == "POST":
            response.iter_bytes = limited(response.iter_bytes, EventLimit(self.base_url))

    # ---------------------------------------------------------------- discovery
    def health(self, timeout: float = 2.0) -> bool:
        """True when ``{base}/health`` answers 200 (Lemonade and llama-server --api-prefix /api)."""
        try:
            with urllib.request.urlopen(self.base_url + "/health", timeout=timeout) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    @property
    def _root(self) -> str:
        """The server's own API root, without the OpenAI ``/v1`` (llama-server's ``/props`` and ``/slots``)."""
        return self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url

    def context_size(self, timeout: float = 2.0) -> int | None:
        """The server's context window in tokens, when it says (llama-server ``/props``); else None."""
        try:
            with urllib.request.urlopen(self._root + "/props", timeout=timeout) as resp:
                data = json.loads(resp.read(_MAX_PROPS_BYTES).decode("utf-8"))
        except (urllib.error.URLError, OSError, ValueError, RecursionError):
            return None
        settings = data.get("default_generation_settings") if isinstance(data, dict) else None
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        return int(n_ctx) if isinstance(n_ctx, int) and n_ctx > 0 else None

    def forget_cache(self, timeout: float = 10.0) -> bool:
        """Empty llama-server's prompt cache (``POST /slots/0?action=erase``); False where the server has none.

        A prompt computed on top of a cached prefix is not bit-for-bit the prompt computed whole (the server
        batches it otherwise), so a seeded reply repeats only from the same cache: ``eval tasks --seed``
        empties it before every task run."""
        headers = {"Content-Type": "application/json"} | (
            {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})
        request = urllib.request.Request(self._root + "/slots/0?action=erase", data=b"{}", method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def list_models(self) -> list[str]:
        """The server's model ids (``GET /models``), within ``discovery_timeout`` seconds."""
        limit = self.discovery_timeout
        try:
            listing = self._client.with_options(timeout=limit).models.list()
            return [str(m.id) for m in listing.data]
        except Exception as exc:
            raise self._translate(exc, _LISTING) from None  # its own wording names the listing limit

    def resolve_model(self) -> str:
        """The configured model, or the first one the server lists."""
        if not self.model:
            models = self.list_models()
            if not models:
                raise ModelError(f"the server at {self.base_url} lists no models; load one or pass --model")
            self.model = models[0]
        return self.model

    # ---------------------------------------------------------------- errors, in one place
    def _translate(self, exc: BaseException, phase: str, limit: float | None = None) -> BaseException:
        """The one mapping of openai/httpx failures to gaia-lite errors. ``phase`` is what was under way:
        listing the models, opening a chat request, or reading its reply (a connection lost while
        reading is not an unreachable server). Anything that is not a server failure is a bug and
        stays as it is."""
        o = self._openai
        if isinstance(exc, GaiaError):
            return exc
        if isinstance(exc, o.APITimeoutError) or any(c.__name__.endswith("TimeoutException")
                                                      for c in type(exc).__mro__):
            return self._slow(phase, limit)
        if isinstance(exc, o.APIConnectionError):
            if phase == _READING:
                return ReplyCutOff(f"the connection to the model server at {self.base_url} was lost mid-reply "
                                   f"({_cause(exc)}); the partial answer was not kept. Check the server's log "
                                   "(it may have crashed or run out of memory), then ask again")
            return ServerUnreachable(self.base_url, type(exc).__name__)
        if isinstance(exc, o.APIError):
            status = getattr(exc, "status_code", None)
            code = f" (HTTP {status})" if status else ""
            if phase == _LISTING:
                return ModelError(f"listing models at {self.base_url} failed{code}: {_short(exc)}")
            if status:
                return ModelError(f"the server rejected the request{code}: {_short(exc)}")
            return ModelError(f"the server failed mid-response: {_short(exc)}")
        if isinstance(exc, (ValueError, AttributeError, TypeError, KeyError, RecursionError)):
            if phase == _LISTING:
                return ModelError(f"{self.base_url}/models did not answer with an OpenAI model list; check that "
                                  "--base-url points at an OpenAI-compatible API (it usually ends in /v1)")
            return ModelError(f"the server at {self.base_url} sent a reply that is not valid chat-completion "
                              f"JSON ({type(exc).__name__}); check that --base-url points at an OpenAI-compatible API")
        return exc

    def _slow(self, phase: str, limit: float | None) -> ServerTooSlow:
        if limit is not None:
            return ServerTooSlow(f"the model server at {self.base_url} did not answer within {limit:g} s")
        if phase == _LISTING:
            return ServerTooSlow(f"the model server at {self.base_url} did not list its models (GET /models) within "
                              f"{self.discovery_timeout:g} s; check that it is running and not overloaded")
        return ServerTooSlow(f"the model server at {self.base_url} accepted the request but sent nothing for "
                          f"{self.first_byte_timeout:g} s; check that it is running and not overloaded, or raise "
                          "GAIA_FIRST_BYTE_TIMEOUT for a model that is slow to start")

    # ---------------------------------------------------------------- chat
    def stream_chat(self, messages: Sequence[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                    max_tokens: int = 1024, temperature: float = 0.1,
                    cancel: threading.Event | None = None, model: str | None = None,
                    timeout: float | None = None, **extra: Any) -> Generator[str, None, ChatResult]:
        """Stream one completion: yields content deltas, returns the ChatResult.

        ``model`` overrides the chat model for this request only; ``cancel`` is checked
        between chunks and stops the stream with ``Cancelled``; ``timeout`` bounds the whole
        request (a probe), where otherwise only each wait for bytes is bounded. A stream that
        ends without a ``finish_reason`` raises ``ReplyCutOff``: it is not a complete answer."""
        body = self._body(messages, tools, max_tokens, temperature, model or self.resolve_model())
        fold = _StreamFold(time.perf_counter())
        try:
            stream = self._client.chat.completions.create(**body, extra_body={**self.sampling, **extra} or None,
                                                          **({"timeout": timeout} if timeout else {}))
        except Exception as exc:
            raise self._translate(exc, _OPENING, timeout) from None
        try:
            for chunk in stream:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                if timeout and time.perf_counter() - fold.start > timeout:
                    raise ServerTooSlow(f"the model server at {self.base_url} did not finish a reply within "
                                     f"{timeout:g} s")
                yield from fold.add(chunk)
        except Exception as exc:
            raise self._translate(exc, _READING, timeout) from None
        finally:
            close = getattr(stream, "close", None)
            if close:
                close()
        return self._finished(fold)

    @staticmethod
    def _body(messages: Sequence[dict[str, Any]], tools: list[dict[str, Any]] | None, max_tokens: int,
              temperature: float, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": list(messages), "stream": True,
                                "max_tokens": max_tokens, "temperature": temperature,
                                "stream_options": {"include_usage": True}}
        if tools:
            body["tools"] = tools
        return body

    def _finished(self, fold: "_StreamFold") -> ChatResult:
        """The stream's result, once it is known to be whole: some events, and a finish reason."""
        if not fold.chunks:  # e.g. a 200 web page: no server-sent events at all
            raise ModelError(f"the server at {self.base_url} did not answer with a chat completion stream; "
                             "check that --base-url points at an OpenAI-compatible API")
        if fold.finish is None:
            said = len("".join(fold.content))
            raise ReplyCutOff(f"the model's reply was cut off: the stream from {self.base_url} ended without a "
                              f"finish reason after {said:,} characters{' and a tool call' if fold.calls else ''}; "
                              "the partial answer is incomplete and was not kept. Ask again, or check the "
                              "server's log")
        return fold.result(time.perf_counter())

    def chat(self, messages: Sequence[dict[str, Any]], **kwargs: Any) -> ChatResult:
        gen = self.stream_chat(messages, **kwargs)
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                return stop.value

    # ---------------------------------------------------------------- LLMPort for tools
    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int = 512,
                 cancel: threading.Event | None = None) -> str:
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": prompt})
        return self.chat(messages, max_tokens=max_tokens, cancel=cancel).content.strip()

    def describe_image(self, data_url: str, question: str, *, max_tokens: int = 512,
                       cancel: threading.Event | None = None) -> str:
        messages = [{"role": "user", "content": [
            {"type": "text", "text": question},
            {"type": "image_url", "image_url": {"url": data_url}},
        ]}]
        return self.chat(messages, max_tokens=max_tokens, cancel=cancel,
                         model=self.vision_model or None).content.strip()


class _StreamFold:
    """What the chunks of one stream add up to, gathered as they arrive."""

    def __init__(self, start: float) -> None:
        self.start = start
        self.ttft: float | None = None
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage: Any = None
        self.timings: Any = None
        self.chunks = 0

    def add(self, chunk: Any) -> Iterator[str]:
        """Fold one chunk in; yields its answer text."""
        self.chunks += 1
        self.timings = _field(chunk, "timings") or self.timings
        if getattr(chunk, "usage", None):
            self.usage = chunk.usage
        for choice in chunk.choices or []:
            if choice.finish_reason:
                self.finish = choice.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            text, think = delta.content or "", _field(delta, "reasoning_content") or ""
            if (text or think or delta.tool_calls) and self.ttft is None:
                self.ttft = time.perf_counter() - self.start
            if think:
                self.reasoning.append(think)
            if text:
                self.content.append(text)
                yield text
            for tc in delta.tool_calls or []:
                self._add_call(tc)

    def _add_call(self, tc: Any) -> None:
        slot = self.calls.setdefault(tc.index if tc.index is not None else len(self.calls),
                                     {"id": None, "name": "", "arguments": ""})
        if tc.id:
            slot["id"] = tc.id
        if tc.function is not None:
            slot["name"] += tc.function.name or ""
            slot["arguments"] += tc.function.arguments or ""

    def result(self, now: float) -> ChatResult:
        return ChatResult(
            content="".join(self.content),
            tool_calls=tuple(_finish_call(slot) for _, slot in sorted(self.calls.items())),
            finish_reason=self.finish,
            usage=_usage(self.usage, self.timings, self.ttft, now - self.start),
            reasoning="".join(self.reasoning),
        )


def _cause(exc: BaseException) -> str:
    """The transport's own words for a lost connection ("peer closed connection …"), short."""
    inner = exc.__cause__ or exc.__context__ or exc
    text = " ".join(str(inner).split()) or type(inner).__name__
    return text[:160]


def _short(exc: Exception) -> str:
    msg = getattr(exc, "message", None) or str(exc)
    return " ".join(str(msg).split())[:300]


def _finish_call(slot: dict[str, Any]) -> ToolCall:
    raw = slot["arguments"].strip()
    try:
        args = json.loads(raw) if raw else {}
    except ValueError:
        args = _loads_lenient(raw)
    if not isinstance(args, dict):
        args = {"__raw__": raw}
    return ToolCall(id=slot["id"] or new_call_id(), name=slot["name"].strip(),
                    arguments=args, source="native")


def _usage(usage: Any, timings: Any, ttft: float | None, total: float) -> Usage:
    prompt = getattr(usage, "prompt_tokens", None) if usage is not None else None
    completion = getattr(usage, "completion_tokens", None) if usage is not None else None
    details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    prompt_ms = None
    if isinstance(timings, dict):
        # llama-server: prompt_n = tokens processed now, cache_n = tokens reused from the KV cache
        n, c = timings.get("prompt_n"), timings.get("cache_n")
        if isinstance(n, int) and isinstance(c, int):
            prompt, cached = n + c, c
        prompt_ms = timings.get("prompt_ms")
    return Usage(ttft_s=ttft, total_s=total, prompt_tokens=prompt, cached_tokens=cached,
                 completion_tokens=completion, prompt_ms=prompt_ms)
