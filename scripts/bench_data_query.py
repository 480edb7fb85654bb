"""Measure the engines for analyze_data_file's ``query`` (SQL over a table file): SQLite (stdlib, as
shipped in tools/table_sql.py) against DuckDB (PyPI ``duckdb``), when DuckDB is importable.

    .venv/bin/python scripts/bench_data_query.py [--rows 1000 100000] [--repeat 5] [--json]

For each size an expenses CSV is generated from a fixed seed (date, category, amount written as
``$1,234.50`` or ``42.10``, note) and read once the way the tool reads it (table_read: parse, type every
cell). Then, per engine, the median over ``--repeat`` runs of:

* ``load``: a fresh in-memory database holding the typed rows as table data;
* ``group by``: ``SELECT category, SUM(amount), COUNT(*) FROM data GROUP BY category``;
* ``import``: importing the engine in a fresh interpreter (``python -c "import X"``), the cost the
  first query of a session pays.

DuckDB has two loads: from the same typed rows (numpy columns, ``register``), and its own CSV reader
(``read_csv_auto``), which is faster but types ``$1,234.50`` as text, so its sums are not the tool's.
The limits each engine offers for a model-written query are printed with the figures; the wheel size
and installed size are read from the installed distribution.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from gaia_lite.tools.table_read import _frame, _read_rows
from gaia_lite.tools.table_sql import _database, run_query

GROUP_BY = "SELECT category, SUM(amount), COUNT(*) FROM data GROUP BY category ORDER BY 2 DESC"
CATEGORIES = ["groceries", "rent", "transport", "utilities", "eating out", "health", "gifts", "travel"]
LIMITS = {
    "sqlite": "authorizer per action (SELECT, READ of data, allowlisted FUNCTIONs, RECURSIVE; ATTACH, PRAGMA, "
              "writes, load_extension denied at prepare time); progress handler stops a query at a deadline; "
              "setlimit caps value size and ATTACH; a fresh :memory: database per call",
    "duckdb": "no authorizer: enable_external_access=false and lock_configuration=true block file/network "
              "access and settings; no statement timeout, so a timer thread must call interrupt(); max_memory "
              "and threads cap resources; statement kinds must be checked by parsing (duckdb.extract_statements)",
}


def write_csv(path: Path, rows: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    start = date(2024, 1, 1)
    lines = ["date,category,amount,note"]
    for i in range(rows):
        amount = rng.uniform(2, 2500)
        said = f'"${amount:,.2f}"' if i % 3 == 0 else f"{amount:.2f}"
        lines.append(f"{start + timedelta(days=rng.randrange(730))},{rng.choice(CATEGORIES)},{said},note {i % 97}")
    path.write_text("\n".join(lines) + "\n")


def median_time(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def import_time(module: str, repeat: int) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                  check=True).stdout) for _ in range(repeat))


def bench_sqlite(frame: Any, repeat: int) -> dict[str, float]:
    conn = _database(frame)
    try:
        query = median_time(lambda: conn.execute(GROUP_BY).fetchall(), repeat)
    finally:
        conn.close()
    return {"load": median_time(lambda: _database(frame).close(), repeat), "group by": query,
            "tool query (load + run + limits)": median_time(lambda: run_query(frame, GROUP_BY), repeat)}


def _duck_columns(frame: Any) -> dict[str, Any]:
    import numpy as np

    out: dict[str, Any] = {}
    for name in frame.names:
        if frame.types[name] == "number":
            out[name] = np.array([float(v) if v is not None else np.nan for v in frame.numbers[name]])
        elif frame.types[name] == "date":
            out[name] = np.array([d.isoformat() if d else None for d in frame.dates[name]], dtype=object)
        else:
            out[name] = np.array(frame.text[name], dtype=object)
    return out


def bench_duckdb(frame: Any, csv_path: Path, repeat: int) -> dict[str, float]:
    import duckdb

    def from_rows() -> Any:
        con = duckdb.connect(config={"enable_external_access": False, "threads": 1})
        con.register("rows_in", _duck_columns(frame))
        con.execute("CREATE TABLE data AS SELECT * FROM rows_in")
        return con

    def from_csv() -> Any:
        con = duckdb.connect(config={"threads": 1})
        con.execute(f"CREATE TABLE data AS SELECT * FROM read_csv_auto('{csv_path}')")
        return con

    con = from_rows()
    try:
        query = median_time(lambda: con.execute(GROUP_BY).fetchall(), repeat)
    finally:
        con.close()
    return {"load": median_time(lambda: from_rows().close(), repeat), "group by": query,
            "load (own CSV reader, $ amounts as text)": median_time(lambda: from_csv().close(), repeat)}


def sizes(dist: str) -> dict[str, str]:
    try:
        files = metadata.files(dist) or []
    except metadata.PackageNotFoundError:
        return {}
    installed = sum(f.size or 0 for f in files)
    return {"installed": f"{installed / 1e6:.1f} MB"}


def run(rows_list: list[int], repeat: int) -> dict[str, Any]:
    try:
        import duckdb  # noqa: F401 - only whether it imports
        have_duck = True
    except ImportError:
        have_duck = False
    report: dict[str, Any] = {"import_s": {"sqlite3": import_time("sqlite3", repeat)}, "sizes": {}, "limits": LIMITS}
    if have_duck:
        report["import_s"]["duckdb"] = import_time("duckdb", repeat)
        report["sizes"]["duckdb"] = sizes("duckdb")
    with tempfile.TemporaryDirectory() as tmp:
        for rows in rows_list:
            path = Path(tmp) / f"expenses_{rows}.csv"
            write_csv(path, rows)
            started = time.perf_counter()
            frame = _frame(_read_rows(path))
            entry: dict[str, Any] = {"read + type (shared)": time.perf_counter() - started,
                                     "sqlite": bench_sqlite(frame, repeat)}
            if have_duck:
                entry["duckdb"] = bench_duckdb(frame, path, repeat)
            report[f"{rows} rows"] = entry
    return report


def show(report: dict[str, Any]) -> None:
    print("import (fresh interpreter): " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in report["import_s"].items()))
    for engine, said in report["sizes"].items():
        print(f"{engine} size: {said}")
    for key, entry in report.items():
        if not key.endswith(" rows"):
            continue
        print(f"\n{key}: read + type every cell (both engines) {entry['read + type (shared)'] * 1000:.0f} ms")
        for engine in ("sqlite", "duckdb"):
            for what, seconds in entry.get(engine, {}).items():
                print(f"  {engine:7} {what:45} {seconds * 1000:8.1f} ms")
    print("\nlimits:")
    for engine, said in report["limits"].items():
        print(f"  {engine}: {said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.rows, args.repeat)
    print(json.dumps(report, indent=2)) if args.json else show(report)


if __name__ == "__main__":
    main()
