"""A saved KV cache of the prompt prefix every conversation shares, restored when a server starts.

The system prompt plus the CORE tools are the same bytes for every conversation of a model and
settings (agent/prefix.py puts them first). Prefilling them costs most of a cold first turn, so
``prepare()`` makes the server's slot hold them before the first request:

* a saved file for this model, server build and prefix bytes exists and checks out: restore it
  (``POST /slots/0?action=restore``), milliseconds;
* otherwise prefill the prefix once (``/completion`` with ``n_predict`` 0) and save the slot
  (``?action=save``, ``--slot-save-path``), so the next server start restores it.

The file name is a hash of model, build and prefix, so a different model, a rebuilt server or a
changed prompt simply finds no file. A file that does not check out (its sidecar's size, sha256 or
token count differ: truncated, corrupt, or written by another build) is never handed to the server
(llama-server b11434 aborts on a truncated slot file): it is deleted and rebuilt, and the log
says so once. None of this ever reaches the user as an error: a failure only costs the prefill.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PrefixOutcome", "prefix_key", "prepare", "KEEP_FILES"]

log = logging.getLogger("gaia_lite.runtime.prefix")

KEEP_FILES = 8  # saved prefixes kept per folder (~12 KB per token for the 0.5B model: ~10 MB each)
_TIMEOUT = 300.0  # a cold prefill on a busy 2-core machine


@dataclass(frozen=True)
class PrefixOutcome:
    action: str  # "restored", "built", "failed"
    tokens: int
    seconds: float
    key: str
    note: str = ""


def prefix_key(model_id: str, build: str, prefix: str) -> str:
    h = hashlib.sha256()
    for part in (model_id, build, prefix):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:24]


def prepare(url: str, api_key: str, folder: Path, *, model_id: str, build: str, prefix: str,
            api_prefix: str = "/api") -> PrefixOutcome:
    """Make slot 0 of the server at ``url`` hold ``prefix`` (a rendered prompt start), restoring a
    saved file when there is a good one, else prefilling and saving it. Never raises."""
    started = time.monotonic()
    key = prefix_key(model_id, build, prefix)
    name = f"prefix-{key}.bin"
    data, side = folder / name, folder / f"prefix-{key}.json"
    api = _Api(url + api_prefix, api_key)
    try:
        if data.exists() or side.exists():
            problem = _check(data, side)
            if problem is None:
                meta = json.loads(side.read_text())
                reply = api.post(f"/slots/0?action=restore", {"filename": name})
                if reply.get("n_restored") == meta["tokens"]:
                    _touch(side)
                    return PrefixOutcome("restored", int(meta["tokens"]), time.monotonic() - started, key)
                problem = f"the server restored {reply.get('n_restored')} of {meta['tokens']} tokens"
            log.info("PREFIX_CACHE ignoring %s (%s); rebuilding it", name, problem)
            _unlink(data, side)
        api.post("/completion", {"prompt": prefix, "n_predict": 0, "cache_prompt": True, "temperature": 0})
        reply = api.post(f"/slots/0?action=save", {"filename": name})
        tokens = int(reply.get("n_saved", 0))
        if tokens <= 0 or not data.is_file():
            _unlink(data, side)
            return PrefixOutcome("failed", 0, time.monotonic() - started, key, "the server saved nothing")
        meta = {"tokens": tokens, "size": data.stat().st_size, "sha256": _sha256(data), "model": model_id,
                "build": build, "prefix_sha256": hashlib.sha256(prefix.encode()).hexdigest(), "saved": time.time()}
        _write_json(side, meta)
        _prune(folder, keep=KEEP_FILES)
        return PrefixOutcome("built", tokens, time.monotonic() - started, key)
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as exc:
        log.info("PREFIX_CACHE %s failed: %s", name, exc)
        return PrefixOutcome("failed", 0, time.monotonic() - started, key, str(exc)[:200])


def _check(data: Path, side: Path) -> str | None:
    """Why the saved file must not be restored, or None when it checks out."""
    try:
        meta = json.loads(side.read_text())
        size = data.stat().st_size
    except FileNotFoundError as exc:
        return f"{Path(exc.filename or '').name} is missing"
    except (OSError, ValueError) as exc:
        return f"unreadable: {exc}"
    if not isinstance(meta, dict) or not isinstance(meta.get("tokens"), int) or meta["tokens"] <= 0:
        return "its description is not valid"
    if size != meta.get("size"):
        return f"{size} bytes where {meta.get('size')} were saved"
    if _sha256(data) != meta.get("sha256"):
        return "its contents changed since it was saved"
    return None


class _Api:
    def __init__(self, root: str, key: str) -> None:
        self.root, self.key = root, key

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(self.root + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {self.key}"} if self.key else {})})
        with urllib.request.urlopen(req, timeout=_TIMEOUT) as resp:
            out = json.loads(resp.read().decode("utf-8"))
        if not isinstance(out, dict):
            raise ValueError(f"{path} answered {str(out)[:80]}")
        return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _unlink(*paths: Path) -> None:
    for path in paths:
        try:
            path.unlink()
        except OSError:
            pass


def _prune(folder: Path, keep: int) -> None:
    """Keep the ``keep`` most recently used prefixes (a changed prompt leaves its old file behind)."""
    sides = sorted(folder.glob("prefix-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for side in sides[keep:]:
        _unlink(side, side.with_suffix(".bin"))
