"""ChatClient: the only module that talks to the model server.

It wraps the ``openai`` SDK against any OpenAI-compatible server (Lemonade,
llama-server, vLLM, Ollama). SDK objects stop here: callers get text deltas,
ToolCall values and a Usage record with TTFT and the server's own prompt and
cache counts (llama-server reports ``timings.prompt_n`` and ``cache_n``).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Generator, Sequence

from gaia_lite.errors import Cancelled, ModelError, ServerUnreachable
from gaia_lite.llm.textcalls import _loads_lenient
from gaia_lite.messages import ChatResult, ToolCall, Usage

__all__ = ["ChatClient", "Cancelled"]


def _field(obj: Any, name: str) -> Any:
    """Read a field that may be an attribute or, for server extras, in model_extra."""
    if obj is None:
        return None
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


class ChatClient:
    """One server connection, shared by the agent and the tools (so it is never reconfigured
    mid-session: the vision model is chosen per request, never by swapping ``model``)."""

    def __init__(self, base_url: str, *, api_key: str = "", model: str = "",
                 timeout: float = 600.0, http_client: Any = None,
                 sampling: dict[str, Any] | None = None, vision_model: str = "",
                 first_byte_timeout: float = 300.0) -> None:
        import openai  # heavy import kept off the --help path

        self.base_url = base_url.rstrip("/")
        self.model = model
        self._openai = openai
        self.sampling = dict(sampling or {})
        self.first_byte_timeout = first_byte_timeout
        # read= bounds each wait for bytes: a server that accepts and never answers
        # (or stalls mid-reply) fails after first_byte_timeout, not after `timeout`.
        limits = openai.Timeout(timeout, connect=10.0, read=min(first_byte_timeout, timeout))
        kwargs: dict[str, Any] = {"base_url": self.base_url, "api_key": api_key or "not-needed",
                                  "timeout": limits, "max_retries": 0}
        if http_client is not None:
            kwargs["http_client"] = http_client
        self._client = openai.OpenAI(**kwargs)
        self.vision_model = vision_model  # empty: the chat model

    # ---------------------------------------------------------------- discovery
    def health(self, timeout: float = 2.0) -> bool:
        """True when ``{base}/health`` answers 200 (Lemonade and llama-server --api-prefix /api)."""
        try:
            with urllib.request.urlopen(self.base_url + "/health", timeout=timeout) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def context_size(self, timeout: float = 2.0) -> int | None:
        """The server's context window in tokens, when it says (llama-server ``/props``); else None."""
        root = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        try:
            with urllib.request.urlopen(root + "/props", timeout=timeout) as resp:
                data = json.loads(resp.read().decode("utf-8"))
        except (urllib.error.URLError, OSError, ValueError):
            return None
        settings = data.get("default_generation_settings") if isinstance(data, dict) else None
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        return int(n_ctx) if isinstance(n_ctx, int) and n_ctx > 0 else None

    def list_models(self) -> list[str]:
        try:
            return [str(m.id) for m in self._client.models.list().data]
        except self._openai.APITimeoutError:
            raise self._silent() from None
        except self._openai.APIConnectionError as exc:
            raise ServerUnreachable(self.base_url, type(exc).__name__) from None
        except self._openai.APIError as exc:
            raise ModelError(f"listing models at {self.base_url} failed: {exc}") from None
        except (ValueError, AttributeError, TypeError):  # a web page or broken JSON, not a model list
            raise ModelError(f"{self.base_url}/models did not answer with an OpenAI model list; check that "
                             "--base-url points at an OpenAI-compatible API (it usually ends in /v1)") from None

    def _silent(self) -> ModelError:
        return ModelError(f"the model server at {self.base_url} accepted the request but sent nothing for "
                          f"{self.first_byte_timeout:g} s; check that it is running and not overloaded, or raise "
                          "GAIA_FIRST_BYTE_TIMEOUT for a model that is slow to start")

    def resolve_model(self) -> str:
        """The configured model, or the first one the server lists."""
        if not self.model:
            models = self.list_models()
            if not models:
                raise ModelError(f"the server at {self.base_url} lists no models; load one or pass --model")
            self.model = models[0]
        return self.model

    # ---------------------------------------------------------------- chat
    def stream_chat(self, messages: Sequence[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                    max_tokens: int = 1024, temperature: float = 0.1,
                    cancel: threading.Event | None = None, model: str | None = None,
                    **extra: Any) -> Generator[str, None, ChatResult]:
        """Stream one completion: yields content deltas, returns the ChatResult.

        ``model`` overrides the chat model for this request only; ``cancel`` is checked
        between chunks and stops the stream with ``Cancelled``."""
        model = model or self.resolve_model()
        body: dict[str, Any] = {"model": model, "messages": list(messages), "stream": True,
                                "max_tokens": max_tokens, "temperature": temperature,
                                "stream_options": {"include_usage": True}}
        if tools:
            body["tools"] = tools
        extra_body = {**self.sampling, **extra}
        start = time.perf_counter()
        ttft: float | None = None
        content: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish: str | None = None
        usage_obj: Any = None
        timings: Any = None
        chunks = 0
        try:
            stream = self._client.chat.completions.create(**body, extra_body=extra_body or None)
            try:
                for chunk in stream:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                    chunks += 1
                    timings = _field(chunk, "timings") or timings
                    if getattr(chunk, "usage", None):
                        usage_obj = chunk.usage
                    for choice in chunk.choices or []:
                        delta = choice.delta
                        if choice.finish_reason:
                            finish = choice.finish_reason
                        if delta is None:
                            continue
                        text = delta.content or ""
                        think = _field(delta, "reasoning_content") or ""
                        if (text or think or delta.tool_calls) and ttft is None:
                            ttft = time.perf_counter() - start
                        if think:
                            reasoning.append(think)
                        if text:
                            content.append(text)
                            yield text
                        for tc in delta.tool_calls or []:
                            slot = calls.setdefault(tc.index if tc.index is not None else len(calls),
                                                    {"id": None, "name": "", "arguments": ""})
                            if tc.id:
                                slot["id"] = tc.id
                            if tc.function is not None:
                                slot["name"] += tc.function.name or ""
                                slot["arguments"] += tc.function.arguments or ""
            finally:
                close = getattr(stream, "close", None)
                if close:
                    close()
        except Cancelled:
            raise
        except self._openai.APITimeoutError:
            raise self._silent() from None
        except self._openai.APIConnectionError as exc:
            raise ServerUnreachable(self.base_url, type(exc).__name__) from None
        except self._openai.APIStatusError as exc:
            raise ModelError(f"the server rejected the request (HTTP {exc.status_code}): {_short(exc)}") from None
        except self._openai.APIError as exc:
            raise ModelError(f"the server failed mid-response: {_short(exc)}") from None
        except Exception as exc:
            raise _protocol_error(self, exc) from None
        if not chunks:  # e.g. a 200 web page: no server-sent events at all
            raise ModelError(f"the server at {self.base_url} did not answer with a chat completion stream; "
                             "check that --base-url points at an OpenAI-compatible API")
        total = time.perf_counter() - start
        return ChatResult(
            content="".join(content),
            tool_calls=tuple(_finish_call(slot) for _, slot in sorted(calls.items())),
            finish_reason=finish,
            usage=_usage(usage_obj, timings, ttft, total),
            reasoning="".join(reasoning),
        )

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


def _protocol_error(client: ChatClient, exc: Exception) -> Exception:
    """A reply that is not the protocol (bad JSON, a stalled stream) as a ModelError;
    anything else is a bug and stays as it is."""
    if any(c.__name__.endswith("TimeoutException") for c in type(exc).__mro__):
        return client._silent()
    if isinstance(exc, (ValueError, AttributeError, TypeError, KeyError)):
        return ModelError(f"the server at {client.base_url} sent a reply that is not valid chat-completion "
                          f"JSON ({type(exc).__name__}); check that --base-url points at an OpenAI-compatible API")
    return exc


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
    return ToolCall(id=slot["id"] or "call_" + uuid.uuid4().hex[:12], name=slot["name"].strip(),
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
