"""How fast does ``gaia-lite index`` index a folder of 200 mixed files?

Builds a folder of 200 files like a person's documents folder (Markdown notes,
text, Python, CSV, JSON and PDFs of varied length, plus files the command must
skip: credentials, binaries, an over-size file, unsupported types and
symlinks out of the allowed folder), then runs the real command in a fresh
``GAIA_HOME`` with the configured embedder (in-process MiniLM by default)
and reports files/s and chunks/s from its ``--json`` summary.

Run: ``python scripts/bench_index.py [--files 200] [--repeats 1]``; each
repeat indexes into a new home, so every run embeds everything.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # the PDF writer lives with the tests
    sys.path.insert(0, str(REPO))

from tests.memory.pdfgen import make_pdf  # noqa: E402

WORDS = ("the budget report for the third quarter shows revenue growth in every region while costs "
         "stayed flat so the team plans to hire two engineers and move the launch date to march "
         "meeting notes action items customer feedback onboarding invoice contract deadline "
         "database migration backup restore server latency memory cache index search vector").split()

# (extension, share of the indexable files)
KINDS = ((".md", 55), (".txt", 35), (".py", 30), (".csv", 20), (".json", 15), (".pdf", 10))
# files the command must skip, by reason, out of every 200
SKIPS = {"secret": 5, "binary": 10, "unsupported": 12, "too big": 1, "outside": 7}


def _prose(rng: random.Random, words: int) -> str:
    lines, line = [], []
    for _ in range(words):
        line.append(rng.choice(WORDS))
        if len(line) >= 12:
            lines.append(" ".join(line).capitalize() + ".")
            line = []
    return "\n".join(lines + ([" ".join(line)] if line else [])) + "\n"


def _write(path: Path, ext: str, rng: random.Random, max_words: int) -> None:
    words = rng.randint(min(60, max_words), max_words)
    if ext == ".py":
        body = "\n".join(f"def step_{i}(x):\n    \"\"\"{_prose(rng, 12).strip()}\"\"\"\n    return x + {i}\n"
                         for i in range(max(1, words // 20)))
        path.write_text(body, encoding="utf-8")
    elif ext == ".csv":
        rows = ["region,quarter,revenue"] + [f"{rng.choice(['north', 'south', 'east', 'west'])},Q{rng.randint(1, 4)},"
                                             f"{rng.randint(1000, 99999)}" for _ in range(max(1, words // 3))]
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    elif ext == ".json":
        items = [{"id": i, "note": _prose(rng, 10).strip()} for i in range(max(1, words // 12))]
        path.write_text(json.dumps(items, indent=1), encoding="utf-8")
    elif ext == ".pdf":
        make_pdf(path, [_prose(rng, 40).replace("\n", " ") for _ in range(rng.randint(1, 4))])
    else:
        path.write_text(f"# Note {path.stem}\n\n" + _prose(rng, words), encoding="utf-8")


def make_mixed_folder(root: Path, *, files: int = 200, max_words: int = 1200, seed: int = 7) -> dict[str, int]:
    """Fill ``root/docs`` with ``files`` mixed files (see the module doc); returns the expected counts.

    Symlinks point into ``root/elsewhere``, which is outside ``root/docs``.
    """
    rng = random.Random(seed)
    docs, elsewhere = root / "docs", root / "elsewhere"
    for d in (docs, elsewhere, docs / "notes", docs / "code"):
        d.mkdir(parents=True, exist_ok=True)
    scale = files / 200
    skips = {k: max(1, round(v * scale)) if k != "too big" else 1 for k, v in SKIPS.items()}
    indexable = files - sum(skips.values())
    weights = [w for _, w in KINDS]
    for i in range(indexable):
        ext = rng.choices([k for k, _ in KINDS], weights)[0]
        folder = docs / ("code" if ext == ".py" else "notes" if ext == ".md" else "")
        _write(folder / f"file_{i:03d}{ext}", ext, rng, max_words)
    secrets = ["credentials.json", "server.key", "client_secret_web.json", "service-account-ci.json", "tls.pem"]
    for i in range(skips["secret"]):
        (docs / (secrets[i % len(secrets)] if i < len(secrets) else f"backup_{i}.pem")).write_text("secret\n")
    for i in range(skips["binary"]):
        (docs / f"dump_{i}.txt").write_bytes(b"\x00\x01binary" * 64)
    for i in range(skips["unsupported"]):
        (docs / f"picture_{i}{('.png', '.docx', '.zip')[i % 3]}").write_bytes(b"\x89PNG" + bytes(64))
    with open(docs / "huge_export.txt", "wb") as fh:  # sparse: over the size limit without using the disk
        fh.truncate(101 * 2**20)
    for i in range(skips["outside"]):
        target = elsewhere / f"private_{i}.md"
        target.write_text(_prose(rng, 50), encoding="utf-8")
        os.symlink(target, docs / f"link_{i}.md")
    return {"files": indexable, "skipped": sum(skips.values()), **{f"skipped_{k}": v for k, v in skips.items()}}


def run_once(root: Path, files: int) -> dict[str, float]:
    expected = make_mixed_folder(root, files=files)
    env = {**os.environ, "GAIA_HOME": str(root / "home")}
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # run from inside docs/, so the symlinks into elsewhere/ point outside the allowed folders
    proc = subprocess.run([sys.executable, "-m", "gaia_lite", "index", ".", "--json"], cwd=root / "docs", env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"gaia-lite index failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    out = json.loads(proc.stdout)
    assert out["files"] == expected["files"], (out["files"], expected)
    return {"files": out["files"], "chunks": out["chunks"], "skipped": len(out["skipped"]),
            "index_s": out["seconds"], "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "files_per_s": out["files_per_s"], "chunks_per_s": out["chunks_per_s"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
            runs.append(run_once(Path(tmp), args.files))
    for r in runs:
        print(f"{r['files']} files + {r['skipped']} skipped, {r['chunks']} chunks: {r['index_s']:.2f} s indexing "
              f"({r['files_per_s']:.1f} files/s, {r['chunks_per_s']:.1f} chunks/s), {r['wall_s']:.2f} s wall "
              f"incl. start-up and the walk, {r['cpu_s']:.1f} s CPU ({1000 * r['cpu_s'] / max(r['chunks'], 1):.0f} ms "
              f"per chunk); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
