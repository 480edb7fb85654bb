"""Cost of the secret-content check on tool output (gaia_lite/registry/redact.py).

Every tool result passes redact_payload in the executor, so its cost is paid on each call.
This times it on 1 MB of mixed text (source code full of `token`/`password` words, prose,
log lines, JSON, git hashes, base64 lines, and a few real-shaped secrets), in two shapes:
one 1 MB string (read_file of a big file) and the same text as 5,000 small result dicts
(a search with many hits). The text is built from a fixed seed, so every run times the same
bytes. Issue 30's bound: <= 20 ms per 1 MB.

Usage: .venv/bin/python scripts/bench_redact.py [--runs 31] [--mb 1] [--json]
Run it under the bench lock: flock /tmp/gaia-bench.lock nice -n -5 .venv/bin/python scripts/bench_redact.py
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import time

from gaia_lite.registry.redact import redact_payload

PLANTED = ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n",
           "url = https://deploy:9fJx2LqWm4Ztr8Kd@git.example.com/team/app.git\n",
           "token: ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n",
           "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----\n")


def mixed_text(size: int, seed: int = 30) -> str:
    rng = random.Random(seed)
    words = ("the quick brown fox token password secret api key config value user host path file read "
             "write auth session request response cache index").split()
    makers = (
        lambda: " ".join(rng.choice(words) for _ in range(14)) + ".\n",
        lambda: "def get_token(self, password: str) -> str:\n    return self.api_key or os.environ['TOKEN']\n",
        lambda: f"commit {''.join(rng.choice('0123456789abcdef') for _ in range(40))}\n",
        lambda: '{"name": "x", "token_count": %d, "auth": true, "url": "https://example.com/a?b=c"}\n'
                % rng.randint(0, 10**6),
        lambda: "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(76)) + "\n",
        lambda: f"2026-12-02 12:00:00 INFO request id={rng.randint(0, 10**9)} took 12ms status=200\n",
        lambda: "password = os.environ.get('DB_PASSWORD')  # read at start-up\n",
    )
    parts: list[str] = []
    total = 0
    while total < size:
        part = rng.choice(makers)()
        parts.append(part)
        total += len(part)
    for i, secret in enumerate(PLANTED):
        parts.insert((i + 1) * len(parts) // (len(PLANTED) + 1), secret)
    return "".join(parts)[:size]


def _median_ms(payload: dict, runs: int) -> tuple[float, dict]:
    times, out = [], payload
    for _ in range(runs):
        start = time.perf_counter()
        out = redact_payload(payload)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    text = mixed_text(int(args.mb * 1_000_000))
    redact_payload({"warm": text[:1000]})  # compile the pattern outside the timing
    one_ms, one = _median_ms({"status": "success", "content": text}, args.runs)
    lines = text.splitlines(keepends=True)
    step = max(1, len(lines) // 5000)
    hits = [{"file": f"src/m{i}.py", "line": i, "text": "".join(lines[i:i + step])} for i in range(0, len(lines), step)]
    many_ms, many = _median_ms({"status": "success", "matches": hits}, args.runs)
    report = {"bytes": len(text.encode()), "runs": args.runs, "one_string_ms": round(one_ms, 2),
              "many_strings_ms": round(many_ms, 2), "strings": len(hits),
              "found_one": one.get("redacted", ""), "found_many": many.get("redacted", "")}
    if args.json:
        print(json.dumps(report))
        return
    print(f"redact_payload on {report['bytes']:,} bytes of mixed text, median of {args.runs} runs:")
    print(f"  one string:           {one_ms:7.2f} ms   ({report['found_one'] or 'nothing found'})")
    print(f"  {len(hits):,} small strings: {many_ms:7.2f} ms   ({report['found_many'] or 'nothing found'})")


if __name__ == "__main__":
    main()
