#!/usr/bin/env python
"""Benchmark the embedded runtime on this machine, side by side in one run.

- query embedding latency: in-process ONNX MiniLM vs the HTTP embedder against
  ``llama-server --embedding`` serving the same model as GGUF (interleaved, so
  background noise hits both alike; unique texts, so the cache never answers);
- cold start to healthy of the 0.5B chat server (and of the embedding server);
- resident memory (VmRSS) of this Python process and of each server.

Usage: python scripts/bench_runtime.py [--queries 60] [--starts 3] [--json out.json]
Needs the runtime (scripts/setup.sh) and ../shared/models/all-MiniLM-L6-v2-q8_0.gguf.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path

from gaia_lite.embed import make_embedder
from gaia_lite.runtime import DEFAULT_MODEL, LocalServer, assemble_model, find_llama_server

REPO = Path(__file__).resolve().parents[1]
MINILM_GGUF = REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2-q8_0.gguf"

_SUBJECTS = ["the project README", "my unread email", "tomorrow's weather", "the sales spreadsheet",
             "the failing unit test", "the notes from Monday", "the shell history", "the PDF report"]  # fmt: skip


def _query(i: int) -> str:
    """A ~20-word query, different every call so no cache can answer it."""
    subject = _SUBJECTS[i % len(_SUBJECTS)]
    return (f"could you please look at {subject} and tell me in a few short sentences "
            f"what changed since version {i} and why it matters")  # fmt: skip


def _rss_mib(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _ms(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 2),
        "min_ms": round(ordered[0] * 1000, 2),
    }


def _chat_once(base_url: str, alias: str) -> None:
    body = {"model": alias, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 1}
    req = urllib.request.Request(
        base_url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=120) as resp:
        resp.read()


def bench_embeddings(queries: int) -> dict[str, object]:
    rss_before = _rss_mib()
    onnx = make_embedder("onnx")
    t0 = time.perf_counter()
    onnx.embed_query("warm up: load the tokenizer and the ONNX session")
    onnx_load = time.perf_counter() - t0
    rss_after_onnx = _rss_mib()
    result: dict[str, object] = {
        "onnx_first_call_incl_load_ms": round(onnx_load * 1000, 1),
        "python_rss_before_onnx_mib": round(rss_before, 1),
        "python_rss_after_onnx_mib": round(rss_after_onnx, 1),
    }
    if not MINILM_GGUF.is_file():
        result["http"] = f"skipped: {MINILM_GGUF} not found"
        times = []
        for i in range(queries):
            t = time.perf_counter()
            onnx.embed_query(_query(i))
            times.append(time.perf_counter() - t)
        result["onnx_query"] = _ms(times)
        return result

    with LocalServer(MINILM_GGUF, embedding=True, alias="all-minilm-l6-v2") as srv:
        http = make_embedder("http", model="all-minilm-l6-v2", base_url=srv.base_url)
        http.embed_query("warm up: open the kept-alive connection")
        onnx_times: list[float] = []
        http_times: list[float] = []
        for i in range(queries):
            # Alternate which goes first so neither always runs on a warmer CPU cache.
            pair = [(onnx, onnx_times), (http, http_times)]
            for emb, bucket in pair if i % 2 == 0 else pair[::-1]:
                t = time.perf_counter()
                emb.embed_query(_query(i))
                bucket.append(time.perf_counter() - t)
        assert onnx.cache_hits == 0 and http.cache_hits == 0, "the cache answered: latency would be fake"
        result["onnx_query"] = _ms(onnx_times)
        result["http_query"] = _ms(http_times)
        result["embedding_server_cold_start_s"] = round(srv.cold_start_s or 0.0, 3)
        result["embedding_server_rss_mib"] = round(_rss_mib(srv.pid or 0), 1)
    return result


def bench_chat_server(starts: int) -> dict[str, object]:
    path = assemble_model(DEFAULT_MODEL)
    colds: list[float] = []
    rss_healthy: list[float] = []
    rss_after_chat: list[float] = []
    for _ in range(starts):
        with LocalServer(path, alias=DEFAULT_MODEL) as srv:
            colds.append(srv.cold_start_s or 0.0)
            rss_healthy.append(_rss_mib(srv.pid or 0))
            _chat_once(srv.base_url, srv.alias)
            rss_after_chat.append(_rss_mib(srv.pid or 0))
    return {
        "chat_model": path.name,
        "chat_server_cold_start_s": {
            "median": round(statistics.median(colds), 3),
            "runs": [round(c, 3) for c in colds],
        },
        "chat_server_rss_mib_healthy": round(statistics.median(rss_healthy), 1),
        "chat_server_rss_mib_after_first_chat": round(statistics.median(rss_after_chat), 1),
    }


def _table(r: dict[str, object]) -> str:
    def get(key: str, sub: str | None = None) -> str:
        value = r.get(key)
        if isinstance(value, dict) and sub:
            value = value.get(sub)
        return "-" if value is None else str(value)

    def pair(key_a: str, key_b: str) -> str:
        return f"{get(key_a)} / {get(key_b)}"

    def spread(key: str) -> str:
        return f"{get(key, 'median_ms')} / {get(key, 'p90_ms')}"

    rows = [
        ("query embedding, in-process ONNX (median / p90 ms)", spread("onnx_query")),
        ("query embedding, HTTP llama-server (median / p90 ms)", spread("http_query")),
        ("ONNX first call incl. load (ms)", get("onnx_first_call_incl_load_ms")),
        ("chat server 0.5B cold start to healthy (median s)", get("chat_server_cold_start_s", "median")),
        ("embedding server cold start to healthy (s)", get("embedding_server_cold_start_s")),
        ("python RSS before / after ONNX load (MiB)", pair("python_rss_before_onnx_mib", "python_rss_after_onnx_mib")),
        ("chat server RSS healthy / after first chat (MiB)",
         pair("chat_server_rss_mib_healthy", "chat_server_rss_mib_after_first_chat")),
        ("embedding server RSS (MiB)", get("embedding_server_rss_mib")),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=60, help="query embeddings per backend")
    parser.add_argument("--starts", type=int, default=3, help="cold starts of the chat server")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    if find_llama_server() is None:
        print("llama-server not found: run scripts/setup.sh first", file=sys.stderr)
        return 1
    results: dict[str, object] = {"machine_cores": len(os.sched_getaffinity(0))}
    results.update(bench_embeddings(args.queries))
    results.update(bench_chat_server(args.starts))
    print(_table(results))
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
