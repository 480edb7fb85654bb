"""Measure the file-finding engine (tools/find.py): ranking quality on a table of cases and speed, on a
realistic generated tree, against library rankers; and the spelling similarity it shares with edit_file.

    .venv/bin/python scripts/bench_find.py [--files 20000] [--json]

The tree is a home folder of ``--files`` files (code repositories, client folders, photos, finance,
notes, a few deep archives; about 2.2 entries per file counting folders, at most 100,000 entries: one
search's budget), generated from a fixed seed. Each case is a request as people and small models phrase
it (words, a guessed path, a misspelling, a folder asked for in words) with the one path that is meant.
Arms:

* ``engine+rapidfuzz`` / ``engine+difflib``: the engine's word scoring (tools/find.py) with rapidfuzz's
  or difflib's ratio for spellings (``find.ratio`` says which one ships);
* ``rapidfuzz WRatio`` / ``rapidfuzz token_set``: rapidfuzz's process.extract over the names (relative
  paths for token_set), the library doing the whole ranking;
* ``... on words()``: the same with the engine's tokenizer as processor (camelCase, separators,
  plurals), so the library's scorer alone is compared;
* ``difflib close``: difflib.get_close_matches over the names.

Also: edit_file's closest lines (each line of a 5,000-line file against the text asked for) with each
ratio, and the walk's cost at several depths (the default depth of a search). Results:
docs/benchmarks.md, "Fuzzy file-name matching".
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from rapidfuzz import fuzz, process, utils

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import find
from gaia_lite.tools.sandbox import Sandbox

# (request, kind, the relative path meant)
CASES: list[tuple[str, str, str]] = [
    ("the website redesign project", "folder", "clients/acme-corp/website-redesign"),
    ("website_redesign_project", "folder", "clients/acme-corp/website-redesign"),
    ("the Acme Corp client", "folder", "clients/acme-corp"),
    ("AcmeCorp", "folder", "clients/acme-corp"),
    ("docs/handbook.txt", "file", "policies/employee-handbook.md"),
    ("employee handbook", "file", "policies/employee-handbook.md"),
    ("employe handbok", "file", "policies/employee-handbook.md"),
    ("budget 2024", "file", "finance/budgets/Budget_2024_final.xlsx"),
    ("q3 report", "file", "reports/Q3-Report.pdf"),
    ("meeting notes march", "file", "notes/2024/meetingNotes-March.md"),
    ("the invoices folder", "folder", "finance/invoices"),
    ("tax return 2023", "file", "finance/taxes/2023/tax-return.pdf"),
    ("lasagna recipe", "file", "home/recipes/lasagna.md"),
    ("recipies", "folder", "home/recipes"),
    ("my resume", "file", "career/Resume_2024.docx"),
    ("vacation photos italy", "folder", "Photos/2023/2023-vacation-italy"),
    ("quarterly_forecast.xlsx", "file", "archive/2019/old/projects/misc/backup/v2/final/quarterly-forecast.xlsx"),
    ("onboarding checklist", "file", "hr/onboarding/checklist.md"),
    ("globex marketing plan", "file", "clients/globex/marketing-campaign/marketing_plan.md"),
    ("Initech contract", "file", "clients/initech/legal/Initech-Contract-signed.pdf"),
    ("wedding guest list", "file", "personal/wedding/guest_list.csv"),
    ("car insurance", "file", "finance/insurance/car-insurance-policy.pdf"),
    ("the payroll script", "file", "code/hr-tools/scripts/payroll.py"),
    ("DatabaseConfig", "file", "code/inventory-service/src/config/database_config.yaml"),
]

# Near misses: each shares a word or a spelling with one of the cases, so ranking has to choose
DISTRACTORS = ["clients/globex/website-assets/logo.png", "notes/redesign-ideas.md", "hr/employee-benefits.md",
               "hr/employees.csv", "finance/budgets/budget_2023.xlsx", "calendar/2024-calendar.pdf",
               "reports/Q2-Report.pdf", "reports/q3-notes.md", "reports/annual-report.pdf",
               "notes/2024/meetingNotes-February.md", "notes/march-budget.md", "finance/invoices-2019-archive/a.pdf",
               "finance/receipts/r1.pdf", "career/cover-letter.docx", "Photos/2022/2022-vacation-spain/IMG_1.jpg",
               "finance/payroll-2024.xlsx", "code/inventory-service/src/config/database_schema.sql",
               "code/inventory-service/src/config/app_config.yaml", "finance/taxes/2022/tax-return.pdf",
               "home/recipes/pancakes.md", "clients/acme-corp/support/tickets.csv", "personal/wedding/venue.md",
               "finance/insurance/home-insurance-policy.pdf", "hr/onboarding/welcome.md", "policies/travel-policy.md"]

_WORDS = ("alpha beta gamma delta util helper model view controller service client server cache queue "
          "parser loader writer reader config test main index api auth user order item stock price "
          "report summary draft final old new backup copy notes list data export import").split()
_COMPANIES = ["acme-corp", "globex", "initech", "umbrella", "hooli", "stark-industries", "wayne-enterprises",
              "wonka", "soylent", "tyrell", "cyberdyne", "aperture", "black-mesa", "vandelay", "dunder-mifflin"]
_PROJECTS = ["marketing-campaign", "legal", "mobile-app", "annual-report", "rebranding",
             "data-migration", "support", "onboarding", "audit"]


def _touch(path: Path, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def build_tree(root: Path, files: int, seed: int = 7) -> int:
    """A home folder of about ``files`` files; returns the number of files made."""
    rng = random.Random(seed)
    for _, _, rel in CASES:
        (root / rel).mkdir(parents=True, exist_ok=True) if "." not in Path(rel).name else _touch(root / rel)
    for rel in DISTRACTORS:
        _touch(root / rel)
    made = len(CASES) + len(DISTRACTORS)
    for company in _COMPANIES:  # the website redesign is Acme's alone; other projects repeat across clients
        for project in rng.sample(_PROJECTS, 4) + (["website-redesign"] if company == "acme-corp" else []):
            base = root / "clients" / company / project
            for i in range(rng.randint(5, 25)):
                _touch(base / rng.choice(["", "notes", "assets", "drafts"]) / f"{rng.choice(_WORDS)}_{i}.md")
                made += 1
    repos = [f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}" for _ in range(12)] + ["hr-tools", "inventory-service"]
    while made < files * 0.55:
        repo = rng.choice(repos)
        depth = rng.randint(1, 6)
        folder = root / "code" / repo / "src" / Path(*[rng.choice(_WORDS) for _ in range(depth)])
        _touch(folder / f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}.py")
        made += 1
    while made < files:
        year = rng.choice(["2019", "2020", "2021", "2022", "2023", "2024"])
        event = f"{year}-{rng.choice(['birthday', 'hiking', 'christmas', 'beach', 'concert', 'garden'])}"
        _touch(root / "Photos" / year / event / f"IMG_{rng.randint(1000, 9999)}.jpg", "")
        made += 1
    return made


Ranker = Callable[[str, str, list[tuple[str, bool]]], list[str]]


def engine_arm(similarity: find.Similarity, entries: list[find.Entry], root: Path) -> Ranker:
    def run(query: str, kind: str, _: list[tuple[str, bool]]) -> list[str]:
        return [str(f.path.relative_to(root)) for f in find.rank(query, entries, kind, similarity=similarity)[:3]]
    return run


# How alike two spellings are (0-1), as the engine's similarity: the two candidates
RATIOS: dict[str, find.Similarity] = {
    "rapidfuzz": lambda a, b: fuzz.ratio(a, b) / 100.0,
    "difflib": lambda a, b: difflib.SequenceMatcher(None, a, b).ratio(),
}


def _stem_words(name: str) -> str:
    """A name as the engine reads it: its words, without the extension."""
    return " ".join(find.words(os.path.splitext(name)[0] if "." in name[1:] else name))


def library_arms() -> dict[str, Ranker]:
    def extract(q: str, kind: str, rels: list[tuple[str, bool]], scorer, on_path: bool, processor) -> list[str]:
        pool = [r for r, is_dir in rels if is_dir == (kind == "folder")]
        choices = pool if on_path else [Path(r).name for r in pool]
        best = process.extract(q, choices, scorer=scorer, processor=processor, limit=3)
        return [pool[i] for _, _, i in best]

    return {
        "difflib close": lambda q, kind, rels: _by_name(
            rels, kind, lambda names: difflib.get_close_matches(q.lower(), names, n=3, cutoff=0.3)),
        "rapidfuzz WRatio": lambda q, k, rels: extract(q, k, rels, fuzz.WRatio, False, utils.default_process),
        "rapidfuzz token_set": lambda q, k, rels: extract(q, k, rels, fuzz.token_set_ratio, True,
                                                          utils.default_process),
        "WRatio on words()": lambda q, k, rels: extract(q, k, rels, fuzz.WRatio, False, _stem_words),
        "token_set on words()": lambda q, k, rels: extract(q, k, rels, fuzz.token_set_ratio, True,
                                                           lambda t: " ".join(find.words(t))),
        "QRatio on words()": lambda q, k, rels: extract(q, k, rels, fuzz.QRatio, False, _stem_words),
    }


def _by_name(rels: list[tuple[str, bool]], kind: str, pick: Callable[[list[str]], list[str]]) -> list[str]:
    pool = [r for r, is_dir in rels if is_dir == (kind == "folder")]
    names = [Path(r).name.lower() for r in pool]
    chosen = pick(names)
    return [pool[names.index(n)] for n in chosen]


def closest_lines_costs(lines: int = 5_000, seed: int = 3) -> dict[str, dict]:
    """edit_file's closest lines for an old_content the file does not hold: every line scored against
    each asked-for line (tools/files.py), with each ratio. Returns ms and how many lines reach 0.5."""
    rng = random.Random(seed)
    vocab = "def return self value data item config port host name for in if else while import class".split()
    text = [" " * rng.choice([0, 4, 8]) + " ".join(rng.choice(vocab) for _ in range(rng.randint(2, 12)))
            for _ in range(lines)]
    asked = ["port = 8080", "def load_config(self, path):"]
    out = {}
    for name, similarity in RATIOS.items():
        started = time.perf_counter()
        scored = [max(similarity(a, ln.strip().lower()) for a in asked) for ln in text]
        out[name] = {"lines": lines, "ms": round((time.perf_counter() - started) * 1e3, 1),
                     "close": sum(1 for r in scored if r >= 0.5)}
    return out


def score_arms(arms: dict[str, Ranker], rels: list[tuple[str, bool]], repeats: int) -> dict[str, dict]:
    """Each arm's top-1 and top-3 hits over CASES and its median wall and CPU time per query. The arms
    take turns on each case, so a change in the machine's load falls on all of them alike."""
    got: dict[str, list[list[str]]] = {name: [] for name in arms}
    wall: dict[str, list[float]] = {name: [] for name in arms}
    cpu: dict[str, list[float]] = {name: [] for name in arms}
    for query, kind, _ in CASES:
        last: dict[str, list[str]] = {}
        for _ in range(repeats):
            for name, run in arms.items():
                started, cpu_started = time.perf_counter(), time.process_time()
                last[name] = run(query, kind, rels)
                wall[name].append(time.perf_counter() - started)
                cpu[name].append(time.process_time() - cpu_started)
        for name in arms:
            got[name].append(last[name])
    return {name: _hits(got[name]) | {"median_ms": round(statistics.median(wall[name]) * 1e3, 2),
                                      "median_cpu_ms": round(statistics.median(cpu[name]) * 1e3, 2)}
            for name in arms}


def _hits(got: list[list[str]]) -> dict:
    meant = [m for _, _, m in CASES]
    return {"top1": sum(bool(g) and g[0] == m for g, m in zip(got, meant)),
            "top3": sum(m in g for g, m in zip(got, meant)), "cases": len(CASES),
            "misses": [{"query": q, "got": g[:1]} for (q, _, m), g in zip(CASES, got) if not g or g[0] != m]}


def walk_costs(ctx: ToolContext, root: Path) -> dict[str, float]:
    out = {}
    for depth in (6, 10, 16, 64):
        times = []
        for _ in range(5):
            started = time.perf_counter()
            n = sum(1 for _ in find.scan(ctx, [root], depth))
            times.append(time.perf_counter() - started)
        out[f"depth {depth}"] = {"entries": n, "median_ms": round(statistics.median(times) * 1e3, 1)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        made = build_tree(root, args.files)
        ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=root / ".data", cancel=threading.Event())
        entries = list(find.scan(ctx, [root], 64))
        if len(entries) >= find.ENTRY_BUDGET:
            raise SystemExit(f"bench_find: {made} files make more entries than one search looks at "
                             f"({find.ENTRY_BUDGET:,}), so cases past them cannot be found; use --files 44000 "
                             "or fewer (about 2.2 entries per file)")
        rels = [(str(e.path.relative_to(root)), e.is_dir) for e in entries]
        arms = {f"engine+{name}": engine_arm(similarity, entries, root) for name, similarity in RATIOS.items()}
        arms.update(library_arms())
        report = {"files": made, "entries": len(entries),
                  "arms": score_arms(arms, rels, args.repeats),
                  "walk": walk_costs(ctx, root), "closest_lines": closest_lines_costs()}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"tree: {report['files']} files, {report['entries']} entries")
    for name, r in report["arms"].items():
        print(f"{name:20s} top1 {r['top1']:2d}/{r['cases']}  top3 {r['top3']:2d}/{r['cases']}  "
              f"median {r['median_ms']:8.2f} ms/query (CPU {r['median_cpu_ms']:8.2f})  misses: {[m['query'] for m in r['misses']]}")
    for name, c in report["closest_lines"].items():
        print(f"closest lines, {name:9s} {c['lines']} lines  {c['ms']:7.1f} ms  {c['close']} lines >= 0.5")
    for depth, w in report["walk"].items():
        print(f"walk {depth:9s} {w['entries']:6d} entries  {w['median_ms']:7.1f} ms")


if __name__ == "__main__":
    main()
